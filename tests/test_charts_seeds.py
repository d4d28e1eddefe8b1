"""The Seed cases' times chart (lib.charts.seeds): each bar's time as given, its call's colour, a log axis,
a title a phone shows whole, and a pixel height (no 'Dropping "fit-y"')."""

from __future__ import annotations

import pandas as pd

from lib.charts import seed_times_chart
from lib.charts.seeds import CALLS, TITLE_LINE_CHARS
from lib.lessons.seed_cases.times import Call

ROWS = [
    {"label": "reported in seed 003 · CPU", "call": "CPU", "s": 296.9},
    {"label": "reported in seed 003 · GPU, first call", "call": "GPU, first call", "s": 0.55},
    {"label": "recorded on NVIDIA H200, 2026-11-21 · GPU", "call": "GPU", "s": 0.142},
]


def test_each_time_is_a_bar_of_its_calls_colour_on_a_log_axis():
    spec = seed_times_chart(
        pd.DataFrame(ROWS), title="Time for one call (CPU: its only call; GPU: warm), at the seed's sizes"
    ).to_dict()
    data = next(iter(spec["datasets"].values()))
    assert [(r["label"], r["s"], r["text"]) for r in data] == [
        ("reported in seed 003 · CPU", 296.9, "297 s"),
        ("reported in seed 003 · GPU, first call", 0.55, "550 ms"),
        ("recorded on NVIDIA H200, 2026-11-21 · GPU", 0.142, "142 ms"),
    ]
    bars = spec["layer"][0]["encoding"]
    assert bars["x"]["scale"]["type"] == "log" and bars["x"]["scale"]["domain"][0] < 0.142
    assert bars["color"]["scale"]["domain"] == ["CPU", "GPU", "GPU, first call"]
    assert bars["color"]["scale"]["range"] == [CALLS[c] for c in ("CPU", "GPU", "GPU, first call")]
    assert set(CALLS) == {str(c) for c in Call}  # every call the lesson draws has its colour
    assert isinstance(spec["height"], int) and spec["autosize"]["type"] == "fit-x"
    lines = spec["title"]["text"]
    assert len(lines) > 1 and all(len(line) <= TITLE_LINE_CHARS for line in lines)


def test_no_rows_draw_an_empty_chart_without_failing():
    spec = seed_times_chart(pd.DataFrame(columns=["label", "call", "s"])).to_dict()
    assert "title" not in spec
