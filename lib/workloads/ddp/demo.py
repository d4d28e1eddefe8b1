"""The multi-GPU page's live demo: what it runs on this server, and running it.

    plan = demo_plan("mlp")        device, process counts, settings and batch sizes
    points = run_demo("mlp")       through lib.core.sweep: one torchrun launch per process count, scaling efficiency added

On a server with fewer than two GPUs the demo is one gloo process on the CPU, small enough for a
2-core host; with two or more GPUs, the recording's MLP over 1, 2 (and 4) GPUs.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, replace

from lib.core.devices import cuda_available
from lib.core.gate import recording_gate
from lib.core.point import Frozen, Point
from lib.core.rows import Origin
from lib.core.sweep import RunRequest, resolve_points, run_points
from lib.workloads.ddp.launch import available_cores
from lib.workloads.ddp.workload import WORKLOAD, ProgressFn


@dataclass(frozen=True)
class DemoPlan:
    """What the live demo runs: on which device, over which process counts and batch sizes, with
    which other settings."""

    device: str
    gpus: tuple[int, ...]
    settings: Frozen
    batch_sizes: tuple[int, ...]

    def points(self) -> list[dict[str, str | int]]:
        """Each run's settings, as a sweep's request takes them."""
        return [{**self.settings, "gpus": n, "batch_size": b} for n in self.gpus for b in self.batch_sizes]


# Small enough for a 2-core server (one launch, a few seconds); on a server with several GPUs,
# the recording's MLP over 1, 2 (and 4) GPUs.
DEMO_CPU = {
    "mlp": DemoPlan(
        "cpu",
        (1,),
        Frozen({"model": "mlp", "hidden_width": 256, "depth": 2, "input_features": 256, "steps": 30}),
        (8, 32, 128),
    ),
    "cnn": DemoPlan("cpu", (1,), Frozen({"model": "cnn", "width": 8, "steps": 20}), (4, 16, 64)),
}
DEMO_CUDA = {
    "mlp": DemoPlan(
        "cuda",
        (1, 2, 4),
        Frozen({"model": "mlp", "hidden_width": 2048, "depth": 8, "input_features": 1024, "steps": 50}),
        (16, 64, 256, 1024),
    ),
    "cnn": DemoPlan("cuda", (1, 2, 4), Frozen({"model": "cnn", "width": 64, "steps": 30}), (16, 64, 256, 1024)),
}


def demo_plan(model: str) -> DemoPlan:
    """What the live demo runs here: CPU with one gloo process unless this server has 2+ GPUs."""
    gpus_here = 0
    if cuda_available():  # needs no torch where there is no NVIDIA driver
        import torch

        gpus_here = torch.cuda.device_count()
    if gpus_here >= 2:
        plan = DEMO_CUDA[model]
        return replace(plan, gpus=tuple(n for n in plan.gpus if n <= gpus_here))
    return DEMO_CPU[model]


def demo_threads(gpus: int) -> int:
    """CPU threads per process in the live demo: one core is left for the web server (on a 2-core
    host two busy threads stall whenever the server takes a core); $GPUWIN_LIVE_THREADS overrides."""
    override = os.environ.get("GPUWIN_LIVE_THREADS")
    if override:
        return max(1, int(override))
    return max(1, (available_cores() - 1) // max(1, gpus))


def run_demo(model: str, progress: ProgressFn | None = None, budget_s: float = 0.3) -> list[Point]:
    """The live demo's points (origin live), scaling efficiency added, as the Multi-GPU lesson reads them; holds the
    app's measurement lock when there is one, so it never runs beside another live measurement."""
    plan = demo_plan(model)
    try:
        from lib.core.measure_lock import MEASURE_LOCK

        lock = MEASURE_LOCK.hold(f"ddp demo ({model})")
    except ImportError:
        lock = contextlib.nullcontext()
    with lock:
        threads = demo_threads(max(plan.gpus)) if plan.device == "cpu" else None
        # the sweep engine every workload goes through: no memory cap beyond free memory, two minutes in all
        return run_points(
            RunRequest(
                WORKLOAD,
                tuple(resolve_points(WORKLOAD, plan.points())),
                (plan.device,),
                point_budget_s=budget_s,
                num_threads=threads,
                gate=recording_gate(memory_cap_gb=None, budget_s=120.0),
                swept="batch_size",
                origin=Origin.LIVE,
                progress=progress,
            )
        )
