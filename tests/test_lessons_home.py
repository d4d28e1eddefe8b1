"""What the Home page computes (lib.lessons.home): the one-chart sweep and its words, on a hand-made pack."""

from __future__ import annotations

import math

from lib.lessons import home
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
