"""What the Home page computes (lib.lessons.home.view): the one-chart sweep and its words, on a hand-made pack."""

from __future__ import annotations

import math

from lib.lessons.home import view as home
from lib.workloads import get_workload

MLP = get_workload("mlp")
MACHINE = {"gpus": ["NVIDIA H200"], "date": "2026-11-21T10:00:00", "cpu_model": "Xeon", "torch_threads": 8}
STEPS = 4


def row(device, batch, step_s, over="batch_size", **extra):
    return {"workload": "mlp", "device": device, "swept": over, "batch_size": batch, "median_s": step_s,
            "iqr_s": step_s / 10, "repeats": 5, "status": "ok", "message": "", "steps_per_epoch": STEPS,
            "epoch_s": step_s * STEPS, **extra}


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
    assert 1 < chart.crossover_x < 1024


def test_steps_without_epochs_are_drawn_per_step():
    rows = [{k: v for k, v in r.items() if k not in ("epoch_s", "steps_per_epoch")} for r in CROSSING["rows"]]
    chart = home.one_chart([pack(rows)], MLP)
    assert chart.y == "median_s" and chart.iqr == "iqr_s" and chart.y_title == "time per step"
    assert all("epoch_iqr_s" not in r for r in chart.rows)
    assert home.time_key([{"epoch_s": float("nan")}]) == "median_s"


def test_ends_sentence_words_both_ends_of_the_curve():
    text = home.ends_sentence(home.one_chart([CROSSING], MLP))
    assert text == ("At batch size 1, the GPU takes 4.00× as long as the CPU (16 ms against 4 ms); "
                    "at 1,024, the GPU is 10.0× as fast as the CPU (400 ms against 4 s).")
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


def test_home_names_exactly_the_days_of_the_rows_it_draws_and_its_numbers_are_the_charts():
    seen = 0
    for _source, pack, chart in _shipped():
        drawn = {r.get("recorded_on") or pack["machine"]["date"][:10] for r in chart.rows}
        assert _days(chart.machine) == drawn and all(_days(r["series"]) == drawn for r in chart.rows)
        modes = home.modes_sentence(chart, pack)
        if not modes:
            continue
        seen += 1
        gpu = chart.analysis.gpu_device
        point = next(r for r in chart.rows if r["device"] == gpu and r["batch_size"] == 64)
        # the eager time named is the chart's own point (the same row, the same day), not another row's
        assert f"takes {home.fmt_s(point['median_s'])} (recorded {point['recorded_on']}" in modes
        # every day named is a day of a row the sentence reads (the eager point, its other recordings, the graph)
        graphed = {r["recorded_on"] for r in pack["rows"] if r.get("mode") == "cuda_graph"}
        assert _days(modes) <= drawn | _days(str(point.get("other_recordings"))) | graphed
        assert " and " not in modes.split(" on ")[-1].split(":")[0]  # the machine, not a list of all its days
        if point.get("other_recordings"):  # two recordings of one point that differ: the range is said
            low = min(point["median_s"], *(t for _, t in point["other_recordings"]))
            assert f"from {home.fmt_s(low)}" in modes
    assert seen >= 2  # the H200 and the H100 both ship eager and graphed steps
