"""The ddp workload: its settings, FLOP/byte/memory estimates, and one result row per point.

One measured point = one `torchrun` launch of `gpus` processes (one per GPU; on the CPU, one per
core with the gloo backend), each running lib.workloads.ddp.worker. The sweep engine
(lib.core.sweep) gates and records the points as it does every workload's; TorchrunLaunch times the
ones it lets through, points that share a process count in the same launch (the launch costs
seconds; lib.workloads.ddp.launch). Rank 0 writes a JSON file whose fields go into each row:

    median_s, iqr_s, repeats   step time of the whole group (slowest rank per timed block)
    samples_per_s              global throughput: gpus x batch_size / median_s
    scaling_efficiency         samples_per_s at N / (N x samples_per_s at 1), when the gpus=1 point
                               with the same other settings is among the rows (efficiency.py)
    phase_compute_s            the same step under DDP's no_sync(): no gradient exchange
    phase_comm_s               communication the step could not hide: step - no-sync step (>= 0)
    grad_bytes                 bytes of gradient all-reduced every step
    allreduce_s, allreduce_gbps  one all-reduce of a buffer that size, timed alone, and
                               grad_bytes / allreduce_s in GB/s (what one exchange costs unhidden)
    peak_memory_bytes          torch.cuda.max_memory_allocated, largest over the GPUs (CUDA only)

`batch_size` is per process (per GPU); the global batch of a step is gpus x batch_size.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch

import lib.workloads.ddp.launch as torchrun
from lib.core.devices import is_cuda
from lib.core.point import Point
from lib.core.workload import Launch, Setting, Settings, Step, Workload
from lib.workloads import mlp
from lib.workloads.ddp.efficiency import WORKLOAD_NAME, with_scaling_efficiency
from lib.workloads.ddp.launch import available_cores
from lib.workloads.ddp.messages import DDPResult
from lib.workloads.ddp.models import (
    BYTES_PER_FLOAT,
    IMAGE_SHAPE,
    DDPSettings,
    build_model,
    cnn_stages,
    make_optimizer,
    mlp_params,
    synthetic_batch,
)

ProgressFn = Callable[[float, str], None]


def resolve_backend(backend: str, device: str) -> str:
    if backend == "auto":
        return "nccl" if is_cuda(device) else "gloo"
    return backend


class TorchrunLaunch(Launch):
    """Points sharing a device, a process count and a backend run in one torchrun launch (lib.workloads.ddp.launch)."""

    def group(self, settings: Settings, device: str) -> tuple[int, str]:
        return int(settings["gpus"]), resolve_backend(settings["backend"], device)

    def describe(self, points: Sequence[Settings], device: str) -> str:
        kind = "cuda" if is_cuda(device) else "cpu"
        return f"torchrun: {int(points[0]['gpus'])} process(es) on {kind}, {len(points)} point(s)"

    def run(
        self,
        points: Sequence[Settings],
        device: str,
        *,
        budget_s: float,
        num_threads: int | None,
        with_phases: bool,
        deadline_s: float | None,
    ) -> list[DDPResult]:
        kind = "cuda" if is_cuda(device) else "cpu"
        gpus, backend = self.group(points[0], device)
        threads = num_threads or max(1, available_cores() // gpus)
        return torchrun.launch(
            [replace(DDPSettings.of(p), backend=backend) for p in points],
            kind,
            gpus,
            backend,
            budget_s=budget_s,
            threads=threads,
            with_phases=with_phases,
            deadline_s=deadline_s,
        )


class DDPTraining(Workload):
    name = WORKLOAD_NAME  # "ddp", the name its rows carry
    title = "Multi-GPU training step (DistributedDataParallel)"
    description = (
        "One optimizer step of an MLP or a small CNN on `gpus` processes with DistributedDataParallel, "
        "launched through torchrun: each process computes gradients on its own batch of `batch_size` "
        "rows, then all processes average their gradients with an all-reduce."
    )
    # Points are timed in torchrun launches, not by build() in this process; lib.core.sweep gates,
    # orders and records them as it does every workload's.
    launch = TorchrunLaunch()

    settings = (
        Setting(
            "model",
            "mlp",
            "the model: an MLP (hidden_width x depth) or a 10-layer CNN on 3x32x32 images",
            choices=("mlp", "cnn"),
        ),
        Setting(
            "batch_size",
            64,
            "rows per process (per GPU) per step; the global batch is gpus x batch_size",
            1,
            65_536,
            log=True,
        ),
        Setting("gpus", 1, "processes, one per GPU (on the CPU: one per core, gloo backend)", 1, 64),
        Setting(
            "backend",
            "auto",
            "collective backend: auto = nccl on CUDA, gloo on the CPU",
            choices=("auto", "nccl", "gloo"),
        ),
        Setting(
            "steps",
            50,
            "most timed steps per measurement (fewer when the time budget runs out; at least 3 timed blocks)",
            3,
            100_000,
            log=True,
        ),
        Setting("hidden_width", 1024, "MLP: units in each hidden layer", 1, 16_384, log=True),
        Setting("depth", 4, "MLP: number of hidden layers", 1, 32),
        Setting("input_features", 1024, "MLP: features per row", 1, 65_536, log=True),
        Setting("width", 64, "CNN: channels of the first stage (then 2x and 4x)", 1, 1024, log=True),
        Setting("classes", 10, "output classes (cross-entropy loss)", 2, 100_000, log=True),
        Setting("lr", 0.01, "learning rate of SGD with momentum 0.9", 1e-6, 10.0, log=True),
        Setting("seed", 0, "random seed for weights and data", 0, 2**31 - 1),
    )

    # -- estimates of the whole group (the interface every workload has) ---------------------------
    def flops(self, params: Settings) -> float:
        """FLOPs of one step of the whole group (all processes together)."""
        point = DDPSettings.of(params)
        return flops_per_process(point) * point.gpus

    def bytes_moved(self, params: Settings) -> float:
        """Least memory traffic of one step of the whole group, plus the gradient all-reduce."""
        point = DDPSettings.of(params)
        per_process = parameter_count(point) * BYTES_PER_FLOAT * 6 + activation_floats(point) * BYTES_PER_FLOAT * 2
        exchange = grad_bytes(point) * 2 if point.gpus > 1 else 0
        return float((per_process + exchange) * point.gpus)

    def peak_memory_bytes(self, params: Settings, device: str) -> float:
        return peak_bytes(DDPSettings.of(params), device)

    # -- one process, no DDP (the interface every workload has) ------------------------------------
    def build(self, params: Settings, device: str) -> Step:
        """The same step in this process without DistributedDataParallel (one device, no
        exchange): what generic code gets; the sweep engine times points through TorchrunLaunch."""
        import torch
        from torch import nn

        point = DDPSettings.of(self.resolve(params))
        dev = torch.device(device)
        model = build_model(point).to(dev)
        optimizer = make_optimizer(model, point)
        loss_fn = nn.CrossEntropyLoss()
        x, y = synthetic_batch(point, 0, device)
        last: dict[str, torch.Tensor] = {}

        def run() -> None:
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            last["loss"] = loss.detach()

        def check() -> None:
            run()
            value = float(last["loss"])
            assert math.isfinite(value), f"loss became {value}"

        return Step(run=run, check=check)

    # -- many processes, through torchrun ----------------------------------------------------------
    def refusal(self, settings: Settings, device: str) -> str | None:
        """GPUs or cores this machine lacks, or NCCL without CUDA: asked by the gate before a launch."""
        gpus = int(settings["gpus"])
        if is_cuda(device):
            import torch

            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
            if count == 0:
                return f"gpus={gpus} on CUDA asked for, but CUDA is not available on this machine; not run"
            if gpus > count:
                return f"gpus={gpus} asked for, but this machine has {count} GPU(s); not run"
            return None
        if resolve_backend(settings["backend"], device) == "nccl":
            return "backend nccl needs CUDA GPUs; use gloo (or auto) on the CPU; not run"
        if gpus > available_cores():
            return f"gpus={gpus} processes on the CPU need {gpus} cores, this machine has {available_cores()}; not run"
        return None

    def estimated(self, point: Point, settings: Settings, device: str) -> Point:
        """The backend this device gets for `auto`, the bytes all-reduced every step, and the device
        as a kind ('cuda', not 'cuda:0': a point of N processes uses GPUs 0 to N-1)."""
        kind = "cuda" if is_cuda(device) else "cpu"
        backend = resolve_backend(settings["backend"], device)
        point = replace(point, device=kind, settings=point.settings.with_(backend=backend))
        return point.with_counts(grad_bytes=float(grad_bytes(DDPSettings.of(settings))))

    def summarise(self, points: list[Point]) -> list[Point]:
        return with_scaling_efficiency(points)


# -- estimates per process ---------------------------------------------------------------------------
def parameter_count(params: DDPSettings) -> int:
    if params.model == "cnn":
        convs = sum(cin * cout * 9 + cout for cin, cout, _ in cnn_stages(params))
        final = cnn_stages(params)[-1][1] * (IMAGE_SHAPE[1] >> 3) ** 2
        return convs + final * params.classes + params.classes
    return mlp.WORKLOAD.parameter_count(mlp_params(params))


def grad_bytes(params: DDPSettings) -> int:
    """Bytes each process all-reduces every step: one fp32 gradient per parameter."""
    return parameter_count(params) * BYTES_PER_FLOAT


def flops_per_process(params: DDPSettings) -> float:
    rows = params.batch_size
    if params.model == "cnn":
        convs = sum(2 * cin * cout * 9 * side * side for cin, cout, side in cnn_stages(params))
        final = 2 * cnn_stages(params)[-1][1] * (IMAGE_SHAPE[1] >> 3) ** 2 * params.classes
        return 3.0 * (convs + final) * rows  # backward costs about twice the forward pass
    sizes = mlp.layer_sizes(mlp_params(params))
    return (
        3.0 * 2 * sum(i * o for i, o in zip(sizes[:-1], sizes[1:])) * rows
    )  # as its CNN's: backward twice the forward


def activation_floats(params: DDPSettings) -> int:
    """Floats of activations one process keeps for the backward pass."""
    rows = params.batch_size
    if params.model == "cnn":
        per_row = sum(IMAGE_SHAPE) + sum(cout * side * side for _, cout, side in cnn_stages(params))
        return rows * per_row * 2
    return rows * sum(mlp.layer_sizes(mlp_params(params))) * 2


def peak_bytes(params: DDPSettings, device: str) -> float:
    """Per GPU on CUDA; on the CPU, all processes together (they share the host's memory). Each
    process holds weights, gradients, momentum, DDP's gradient buckets, the all-reduce probe
    buffer, the batch and the activations (x2 for their gradients in the backward pass)."""
    states = parameter_count(params) * BYTES_PER_FLOAT * 5
    per_process = float(states + activation_floats(params) * BYTES_PER_FLOAT * 2)
    return per_process if is_cuda(device) else per_process * params.gpus


WORKLOAD = DDPTraining()
