"""Hand-made recorded packs for the Training page with KNOWN crossovers (test fixtures only).

Real measurements are noisy, so a test that asserts an exact sentence needs rows whose answer is
known in advance. These rows follow two simple cost formulas, and their machines are named
"TEST FIXTURE" so nobody could take them for measurements; they are written only to temporary
folders, never shipped in lib/recorded/.

    GPU (fixture):  1 ms per step + FLOPs / 5 TFLOP/s     (launch-bound at small sizes)
    small server:   50 µs per step + FLOPs / 20 GFLOP/s   (its arithmetic is slow)
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

from lib.core.point import Point
from lib.lessons.training.live_point import LivePoint
from lib.lessons.training.view import AXES, MLP

GPU_NAME = "TEST FIXTURE GPU"
GPU_STEP = (1e-3, 5e12)
# the other execution modes remove launch overhead: (fixed cost per step, one-off compile seconds)
MODE_STEP = {"cuda_graph": (1e-4, None), "compile": (4e-4, 30.0)}
CPU_STEP = (5e-5, 2e10)
WIDTHS = (4, 64, 1024, 8192)  # the slider's ends and two between: other widths are predicted
DEPTHS = (1, 3, 16)


def step_time(settings: dict, kind: str) -> float:
    fixed, rate = GPU_STEP if kind == "gpu" else CPU_STEP
    if kind == "gpu" and settings.get("mode", "eager") in MODE_STEP:
        fixed = MODE_STEP[settings["mode"]][0]
    return fixed + MLP.flops(MLP.resolve(settings)) / rate


def crossover_by_hand(
    width: int = 64, depth: int = 3, xs: tuple[int, ...] | None = None, dataset_size: int = 65536
) -> tuple[int, int, float]:
    """The bracket and the log-log interpolated break-even batch size of the two formulas."""
    xs = list(xs or AXES["batch_size"].steps)
    at = {"hidden_width": width, "depth": depth, "dataset_size": dataset_size}
    ratio = [
        math.log(step_time({"batch_size": b, **at}, "gpu") / step_time({"batch_size": b, **at}, "cpu")) for b in xs
    ]
    i = next(i for i in range(1, len(xs)) if ratio[i] <= 0 < ratio[i - 1])
    frac = ratio[i - 1] / (ratio[i - 1] - ratio[i])
    return xs[i - 1], xs[i], math.exp(math.log(xs[i - 1]) + frac * math.log(xs[i] / xs[i - 1]))


def _row(settings: dict, device: str, kind: str, machine: str) -> dict:
    resolved = MLP.resolve(settings)
    t = step_time(settings, kind)
    steps = math.ceil(resolved["dataset_size"] / min(resolved["batch_size"], resolved["dataset_size"]))
    compile_s = MODE_STEP.get(settings.get("mode"), (0, None))[1] if kind == "gpu" else None
    return {
        **resolved,
        "workload": "mlp",
        "device": device,
        "median_s": t,
        "iqr_s": 0.02 * t,
        "repeats": 20,
        "cold_s": (compile_s or 0.0) + 2 * t,
        "status": "ok",
        "message": "",
        "steps_per_epoch": steps,
        "epoch_s": t * steps,
        "flops": MLP.flops(resolved),
        "num_threads": 1,
        "swept": "batch_size,hidden_width,depth",
        "machine": machine,
    }


def write_packs(directory: Path) -> Path:
    """A GPU machine's pack (GPU and host CPU rows) and a small server's CPU pack, on a grid of every
    batch size x WIDTHS x DEPTHS, dataset 65,536 rows (so every batch size is its own step)."""
    directory.mkdir(parents=True, exist_ok=True)
    grid = [
        {"batch_size": b, "hidden_width": w, "depth": d, "dataset_size": 65536}
        for w in WIDTHS
        for d in DEPTHS
        for b in AXES["batch_size"].steps
    ]
    gpu_machine = {
        "cpu_model": "TEST FIXTURE CPU",
        "cpu_cores": 16,
        "torch": "fixture",
        "date": "2026-01-02T00:00:00",
        "gpus": [GPU_NAME],
        "label": f"{GPU_NAME} (2026-01-02)",
    }
    small_machine = {
        "cpu_model": "TEST FIXTURE small server",
        "cpu_cores": 2,
        "torch": "fixture",
        "date": "2026-01-03T00:00:00",
        "gpus": [],
        "label": "TEST FIXTURE small server",
    }
    gpu_rows = [_row(s, "cuda:0", "gpu", gpu_machine["label"]) for s in grid]
    gpu_rows += [
        _row({**s, "mode": mode}, "cuda:0", "gpu", gpu_machine["label"])
        for mode in MODE_STEP
        for s in grid
        if s["depth"] == 3
    ]
    gpu_rows += [_row(s, "cpu", "cpu", gpu_machine["label"]) for s in grid]
    small_rows = [_row(s, "cpu", "cpu", small_machine["label"]) for s in grid]
    for name, machine, rows in (
        ("fixture_gpu_training.json", gpu_machine, gpu_rows),
        ("fixture_small_cpu_training.json", small_machine, small_rows),
    ):
        (directory / name).write_text(json.dumps({"schema_version": 1, "machine": machine, "rows": rows}))
    return directory


def live_cpu(
    settings: dict, median_s: float, iqr_s: float, repeats: int, steps_per_epoch: int, epoch_s: float | None = None
) -> LivePoint:
    """One point of this server's live CPU curve as the live path hands it, measured at 1,000 s on the clock
    (epoch_s: steps_per_epoch steps of median_s unless given)."""
    epoch = median_s * steps_per_epoch if epoch_s is None else epoch_s
    point = replace(
        Point.new(MLP.name, settings, "cpu"), median_s=median_s, iqr_s=iqr_s, repeats=repeats, epoch_s=epoch
    )
    return LivePoint(point.with_counts(steps_per_epoch=steps_per_epoch), measured_at=1_000.0)
