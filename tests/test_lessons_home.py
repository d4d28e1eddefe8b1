"""What the Home page computes (lib.lessons.home.view): the one-chart sweep and its words, on a hand-made pack."""

from __future__ import annotations

import math

from lib.lessons.common import voice
from lib.lessons.home import screen as S
from lib.lessons.home import view as home
from lib.workloads import get_workload

MLP = get_workload("mlp")
MACHINE = {"gpus": ["NVIDIA H200"], "date": "2026-11-21T10:00:00", "cpu_model": "Xeon", "torch_threads": 8}
STEPS = 4


def row(device, batch, step_s, over="batch_size", **extra):
    return {
        "workload": "mlp",
        "device": device,
        "swept": over,
        "batch_size": batch,
        "median_s": step_s,
        "iqr_s": step_s / 10,
        "repeats": 5,
        "status": "ok",
        "message": "",
        "steps_per_epoch": STEPS,
        "epoch_s": step_s * STEPS,
        **extra,
    }


def pack(rows):
    return {"schema_version": 1, "machine": MACHINE, "rows": rows, "path": "/x/h200_training.json"}


CROSSING = pack([row("cpu", 1, 1e-3), row("cuda:0", 1, 4e-3), row("cpu", 1024, 1.0), row("cuda:0", 1024, 0.1)])


def test_one_chart_picks_the_first_pack_with_both_devices():
    assert home.one_chart([None, pack([row("cpu", 1, 1e-3)])], MLP) is None
    chart = home.one_chart([None, pack([]), CROSSING], MLP)
    assert chart.over == "batch_size" and chart.setting == "batch size" and chart.machine == "NVIDIA H200, 2026-11-21"
    assert chart.y == "epoch_s" and chart.iqr == "epoch_iqr_s" and chart.y_title == "time per epoch"
    assert chart.cpu_label == "cpu (recorded on NVIDIA H200, 2026-11-21)"
    assert chart.gpu_label == "cuda:0 (recorded on NVIDIA H200, 2026-11-21)"
    assert all(math.isclose(r["epoch_iqr_s"], r["iqr_s"] * STEPS) for r in chart.rows)
    # issue 37: 1 to 1,024 is too wide a bracket to name one value: the chart draws no rule where the words name none
    assert chart.analysis.measured.kind == "crosses" and 1 < chart.analysis.measured.x < 1024
    assert chart.crossover_x is None
    narrow = home.one_chart(
        [pack([row("cpu", 256, 1e-3), row("cuda:0", 256, 4e-3), row("cpu", 1024, 1.0), row("cuda:0", 1024, 0.1)])], MLP
    )
    assert 256 < narrow.crossover_x < 1024


def test_steps_without_epochs_are_drawn_per_step():
    rows = [{k: v for k, v in r.items() if k not in ("epoch_s", "steps_per_epoch")} for r in CROSSING["rows"]]
    chart = home.one_chart([pack(rows)], MLP)
    assert chart.y == "median_s" and chart.iqr == "iqr_s" and chart.y_title == "time per step"
    assert all("epoch_iqr_s" not in r for r in chart.rows)
    assert home.time_key([{"epoch_s": float("nan")}]) == "median_s"


def test_ends_sentence_words_both_ends_of_the_curve():
    text = home.ends_sentence(home.one_chart([CROSSING], MLP))
    assert text == (
        "At batch size 1, the GPU takes 4.00× as long as the CPU (16 ms against 4 ms); "
        "at 1,024, the GPU is 10.0× as fast as the CPU (400 ms against 4 s)."
    )
    assert home.verdict(1.0, 1.0) == "both take 1 s"


# -- on the shipped packs (issue 23, "Where a number came from") ------------------------------------
def _shipped():
    from lib.recorded import load_recorded
    from lib.recorded.sources import gpu_sources, source_pack

    packs = load_recorded()[0]
    for source in gpu_sources(packs):
        pack = source_pack(source, packs)
        chart = home.one_chart([pack], MLP)
        if chart:
            yield source, pack, chart


def _days(text):
    import re

    return set(re.findall(r"\d{4}-\d{2}-\d{2}", text))


TIME = r"(\d[\d,.]*) (µs|ms|s)\b"


def _said_times(text):
    import re

    return [f"{n} {u}" for n, u in re.findall(TIME, text)]


def _drawn_words(rows):
    return " ".join(f"{r['series']} {r['origin_note']}" for r in rows)


def test_home_names_exactly_the_days_of_the_rows_it_draws_and_its_numbers_are_the_charts():
    """Issue 23: Home said "the chart's step at batch 64 takes 1.48 ms (recorded 2026-11-24; … also 1 ms on
    NVIDIA H200 (2026-11-21)). Captured in one CUDA graph, … 167 µs (recorded 2026-11-23)" while its chart drew
    epochs, one day, and no graph. Now every time, ratio and day the words name is a point the chart draws
    (drawn(chart), the rows the page hands to the chart)."""
    seen = 0
    for _source, _pack, chart in _shipped():
        days = {r["recorded_on"] for r in chart.rows}
        assert _days(chart.machine) == days and all(_days(r["series"]) == days for r in chart.rows)
        rows = home.drawn(chart)
        words = _drawn_words(rows)
        for name in {r["series"] for r in rows}:  # a curve is one recording; the others are its band, not its points
            assert len({r["machine"] for r in rows if r["series"] == name}) == 1, name
        # the caption names each band's other recording, which the band's tooltip names too
        assert _days(home.caption(chart)) <= _days(words)
        modes = home.modes_sentence(chart)
        if not modes:
            continue
        seen += 1
        text = modes.markdown()
        graph = {r["batch_size"]: r for r in rows if r["series"] == chart.graph_label}
        eager = {r["batch_size"]: r for r in rows if r["series"] == chart.gpu_label}
        assert len(graph) >= 2 and set(graph) <= set(eager)  # a curve of its own, at the eager curve's x values
        e, g = eager[64][chart.y], graph[64][chart.y]
        # the times named are the two drawn points at batch 64 (per epoch, as drawn), their ratio the drawn one
        assert _said_times(text) == [home.fmt_s(g), home.fmt_s(e)], text
        assert f"{home.fmt_ratio(e / g)} as fast" in text
        assert _days(text) <= _days(words) and _days(text) == {eager[64]["recorded_on"], graph[64]["recorded_on"]}
        # where the CUDA graph stands against the CPU is read from the drawn graph curve, not said from elsewhere
        assert modes.about.kind.name == "GPU_WINS" and "faster than" in text
        # a step recorded on several days is drawn with its band, each day named in its tooltip
        for r in rows:
            for label, t in r.get("other_recordings") or ():
                assert label in r["origin_note"] and r[f"{chart.y}_low"] <= t * r["steps_per_epoch"] + 1e-12
    assert seen >= 2  # the H200 and the H100 both ship eager and graphed steps


def test_the_graph_curve_is_drawn_from_the_packs_graphed_steps_and_said_from_it():
    """On a hand-made pack: the CUDA-graph curve is the pack's graphed steps (recorded on a bigger dataset:
    derived per epoch of the chart's), drawn with its origin, and the sentence quotes its points."""
    graph = [
        row("cuda:0", b, t, mode="cuda_graph", dataset_size=65536) for b, t in ((1, 1e-4), (1024, 2e-4), (64, 1.5e-4))
    ]
    chart = home.one_chart([pack(CROSSING["rows"] + [row("cpu", 64, 2e-3), row("cuda:0", 64, 3e-3)] + graph)], MLP)
    rows = home.drawn(chart)
    drawn_graph = sorted((r["batch_size"], r["epoch_s"], r["origin"]) for r in rows if r["series"] == chart.graph_label)
    assert drawn_graph == [
        (1, 1e-4 * STEPS, "derived"),
        (64, 1.5e-4 * STEPS, "derived"),
        (1024, 2e-4 * STEPS, "derived"),
    ]
    assert chart.graph_label == "cuda:0, one CUDA graph (recorded on NVIDIA H200, 2026-11-21)"
    assert all(
        r["origin_note"].startswith("derived: 4 steps of the step recorded on")
        for r in rows
        if r["series"] == chart.graph_label
    )
    text = home.modes_sentence(chart).markdown()
    assert "At batch size 64 it takes 600 µs per epoch against 12 ms eager: 20.0× as fast." in text, text
    assert "**The NVIDIA H200 GPU in one CUDA graph** is faster than **the NVIDIA H200 machine's CPU**" in text, text
    # no graphed steps in the pack: no curve and nothing said about one
    plain = home.one_chart([CROSSING], MLP)
    assert not plain.graphed and home.modes_sentence(plain) is None
    assert {r["series"] for r in home.drawn(plain)} == {plain.cpu_label, plain.gpu_label}


def test_homes_screen_holds_the_answer_the_chart_rows_and_the_words_under_it():
    assert S.home_screen([None, pack([row("cpu", 1, 1e-3)])]) is None
    assert not S.answers(pack([row("cpu", 1, 1e-3)])) and S.answers(CROSSING)
    shown = S.home_screen([CROSSING])
    chart = home.one_chart([CROSSING], MLP)
    assert shown.rows == home.drawn(chart) and shown.crossover == home.crossover_range(chart)
    sides = voice.series_side(chart.cpu_label), voice.series_side(chart.gpu_label)
    assert (
        shown.answer
        == voice.crossover_sentence(chart.analysis, "batch size", *sides, hollow=True, notes=False)
        .capitalised()
        .markdown()
    )
    assert home.ends_sentence(chart) in shown.ends and shown.caption == home.caption(chart)
    assert shown.modes is None  # no CUDA-graph rows in the pack: no sentence about them


def test_a_refusal_says_one_sentence_up_top_and_where_to_look_under_it():
    assert S.refusal("The 4-GPU machine has no Training rows. Pick the H200 in the sidebar.") == (
        "The 4-GPU machine has no Training rows.",
        "Pick the H200 in the sidebar.",
    )
    assert S.refusal("Nothing here") == ("Nothing here", None)
