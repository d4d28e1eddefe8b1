"""The ddp workload: its settings, FLOP/byte/memory estimates, and one result row per point.

One measured point = one `torchrun` launch of `gpus` processes (one per GPU; on the CPU, one per
core with the gloo backend), each running lib.workloads.ddp.worker. Several points that share a
process count run in the same launch (the launch costs seconds; lib.workloads.ddp.launch). Rank 0
writes a JSON file that this module turns into one result row per point:

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
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch

from lib.core.devices import is_cuda
from lib.core.rows import Status
from lib.core.workload import Setting, SettingError, Step, Workload
from lib.workloads import mlp
from lib.workloads.ddp.efficiency import WORKLOAD_NAME, add_scaling_efficiency
from lib.workloads.ddp.launch import available_cores, launch
from lib.workloads.ddp.models import (
    BYTES_PER_FLOAT,
    IMAGE_SHAPE,
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


class DDPTraining(Workload):
    name = WORKLOAD_NAME  # "ddp", the name its rows carry
    title = "Multi-GPU training step (DistributedDataParallel)"
    description = (
        "One optimizer step of an MLP or a small CNN on `gpus` processes with DistributedDataParallel, "
        "launched through torchrun: each process computes gradients on its own batch of `batch_size` "
        "rows, then all processes average their gradients with an all-reduce."
    )
    # The CLI and pages hand whole points or sweeps to measure_point / run_sweep below, which
    # start their own processes, instead of timing build() in this process.
    launches_processes = True

    settings = (
        Setting("model", "mlp", "the model: an MLP (hidden_width x depth) or a 10-layer CNN on 3x32x32 images", choices=("mlp", "cnn")),
        Setting("batch_size", 64, "rows per process (per GPU) per step; the global batch is gpus x batch_size", 1, 65_536, log=True),
        Setting("gpus", 1, "processes, one per GPU (on the CPU: one per core, gloo backend)", 1, 64),
        Setting("backend", "auto", "collective backend: auto = nccl on CUDA, gloo on the CPU", choices=("auto", "nccl", "gloo")),
        Setting("steps", 50, "most timed steps per measurement (fewer when the time budget runs out; at least 3 timed blocks)", 3, 100_000, log=True),
        Setting("hidden_width", 1024, "MLP: units in each hidden layer", 1, 16_384, log=True),
        Setting("depth", 4, "MLP: number of hidden layers", 1, 32),
        Setting("input_features", 1024, "MLP: features per row", 1, 65_536, log=True),
        Setting("width", 64, "CNN: channels of the first stage (then 2x and 4x)", 1, 1024, log=True),
        Setting("classes", 10, "output classes (cross-entropy loss)", 2, 100_000, log=True),
        Setting("lr", 0.01, "learning rate of SGD with momentum 0.9", 1e-6, 10.0, log=True),
        Setting("seed", 0, "random seed for weights and data", 0, 2**31 - 1),
    )

    # -- estimates (per process unless said otherwise) -------------------------------------------
    def parameter_count(self, params: dict[str, Any]) -> int:
        if params["model"] == "cnn":
            convs = sum(cin * cout * 9 + cout for cin, cout, _ in cnn_stages(params))
            final = cnn_stages(params)[-1][1] * (IMAGE_SHAPE[1] >> 3) ** 2
            return convs + final * int(params["classes"]) + int(params["classes"])
        return mlp.WORKLOAD.parameter_count(mlp_params(params))

    def grad_bytes(self, params: dict[str, Any]) -> int:
        """Bytes each process all-reduces every step: one fp32 gradient per parameter."""
        return self.parameter_count(params) * BYTES_PER_FLOAT

    def flops_per_process(self, params: dict[str, Any]) -> float:
        rows = int(params["batch_size"])
        if params["model"] == "cnn":
            convs = sum(2 * cin * cout * 9 * side * side for cin, cout, side in cnn_stages(params))
            final = 2 * cnn_stages(params)[-1][1] * (IMAGE_SHAPE[1] >> 3) ** 2 * int(params["classes"])
            return 3.0 * (convs + final) * rows  # backward costs about twice the forward pass
        return mlp.WORKLOAD.flops({**mlp_params(params), "batch_size": rows, "dataset_size": rows})

    def flops(self, params: dict[str, Any]) -> float:
        """FLOPs of one step of the whole group (all processes together)."""
        return self.flops_per_process(params) * int(params["gpus"])

    def activation_floats(self, params: dict[str, Any]) -> int:
        """Floats of activations one process keeps for the backward pass."""
        rows = int(params["batch_size"])
        if params["model"] == "cnn":
            per_row = sum(IMAGE_SHAPE) + sum(cout * side * side for _, cout, side in cnn_stages(params))
            return rows * per_row * 2
        return rows * sum(mlp.layer_sizes(mlp_params(params))) * 2

    def bytes_moved(self, params: dict[str, Any]) -> float:
        """Least memory traffic of one step of the whole group, plus the gradient all-reduce."""
        per_process = self.parameter_count(params) * BYTES_PER_FLOAT * 6 + self.activation_floats(params) * BYTES_PER_FLOAT * 2
        exchange = self.grad_bytes(params) * 2 if int(params["gpus"]) > 1 else 0
        return float((per_process + exchange) * int(params["gpus"]))

    def peak_memory_bytes(self, params: dict[str, Any], device: str) -> float:
        """Per process: weights, gradients, momentum, DDP's gradient buckets, the all-reduce probe
        buffer, the batch and the activations (x2 for their gradients in the backward pass)."""
        states = self.parameter_count(params) * BYTES_PER_FLOAT * 5
        return float(states + self.activation_floats(params) * BYTES_PER_FLOAT * 2)

    # -- one process, no DDP (the interface every workload has) ------------------------------------
    def build(self, params: dict[str, Any], device: str) -> Step:
        """The same step in this process without DistributedDataParallel (one device, no
        exchange): what generic code gets; the CLI and the page use measure_point instead."""
        import torch
        from torch import nn
        params = self.resolve(params)
        dev = torch.device(device)
        model = build_model(params).to(dev)
        optimizer = make_optimizer(model, params)
        loss_fn = nn.CrossEntropyLoss()
        x, y = synthetic_batch(params, 0, device)
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
    def measure_point(
        self, params: dict[str, Any], device: str = "cpu", *, budget_s: float = 1.0,
        memory_cap_gb: float | None = None, num_threads: int | None = None, with_phases: bool = True,
        check: bool = False, timeout_s: float | None = None,
    ) -> dict[str, Any]:
        """One row for one setting: same signature as lib.core.sweep.measure_point, minus the workload."""
        rows = self.measure_points([params], device, budget_s=budget_s, memory_cap_gb=memory_cap_gb,
                                   num_threads=num_threads, with_phases=with_phases, timeout_s=timeout_s)
        return rows[0]

    def run_sweep(
        self, over: str, values: Sequence[Any], fixed: dict[str, Any] | None, devices: Sequence[str], *,
        point_budget_s: float = 1.0, total_budget_s: float | None = None, memory_cap_gb: float | None = None,
        num_threads: int | None = None, with_phases: bool = True, progress: ProgressFn | None = None,
        timeout_s: float | None = None,
    ) -> list[dict[str, Any]]:
        """Same signature as lib.core.sweep.run_sweep, minus the workload: one row per (value, device),
        points sharing a process count measured in one launch; scaling efficiency added where the
        sweep holds the gpus=1 point."""
        parsed = [self.setting(over).parse(v) for v in values]
        fixed = {k: v for k, v in (fixed or {}).items() if k != over}
        started = time.perf_counter()
        rows: list[dict[str, Any]] = []
        for device in devices:
            remaining = None if total_budget_s is None else max(0.0, total_budget_s - (time.perf_counter() - started))
            device_rows = self.measure_points(
                [{**fixed, over: value} for value in parsed], device, budget_s=point_budget_s,
                memory_cap_gb=memory_cap_gb, num_threads=num_threads, with_phases=with_phases,
                total_budget_s=remaining, progress=progress, timeout_s=timeout_s,
            )
            rows.extend(device_rows)
        # Same order as lib.core.sweep.run_sweep: by value, then device.
        order = {id(r): (i % len(parsed), i // len(parsed)) for i, r in enumerate(rows)}
        rows.sort(key=lambda r: order[id(r)])
        for row in rows:
            row["swept"] = over
        if progress:
            progress(1.0, f"done: {len(rows)} points in {time.perf_counter() - started:.1f} s")
        return add_scaling_efficiency(rows)

    def measure_points(
        self, points: Sequence[dict[str, Any]], device: str, *, budget_s: float = 1.0,
        memory_cap_gb: float | None = None, num_threads: int | None = None, with_phases: bool = True,
        total_budget_s: float | None = None, progress: ProgressFn | None = None, timeout_s: float | None = None,
    ) -> list[dict[str, Any]]:
        """One row per point, in order; never raises for the work itself."""
        kind = "cuda" if is_cuda(device) else "cpu"
        rows: list[dict[str, Any]] = []
        resolved: list[dict[str, Any] | None] = []
        launchable: dict[tuple[int, str], list[int]] = {}
        for given in points:
            row, params = self._base_row(given, kind, memory_cap_gb)
            rows.append(row)
            resolved.append(params)
            if row["status"] == Status.OK and params is not None:
                launchable.setdefault((int(params["gpus"]), row["backend"]), []).append(len(rows) - 1)

        started = time.perf_counter()
        done = 0
        for (gpus, backend), indices in launchable.items():
            remaining = None if total_budget_s is None else total_budget_s - (time.perf_counter() - started)
            if remaining is not None and remaining <= 0:
                for i in indices:
                    rows[i].update(status="skipped", message=f"time budget of {total_budget_s:g} s used up before this point")
                continue
            if progress:
                progress(done / max(1, len(points)),
                         f"torchrun: {gpus} process(es) on {kind}, {len(indices)} point(s) ({done + 1}/{len(points)})")
            threads = num_threads or max(1, available_cores() // gpus)
            results = launch(
                [{**resolved[i], "backend": backend} for i in indices],
                kind, gpus, backend, budget_s=budget_s, threads=threads, with_phases=with_phases,
                deadline_s=remaining, timeout_s=timeout_s,
            )
            for i, result in zip(indices, results):
                self._finish_row(rows[i], result)
            done += len(indices)
        return rows

    def _base_row(self, given: dict[str, Any], kind: str, memory_cap_gb: float | None) -> tuple[dict[str, Any], dict | None]:
        import torch
        row: dict[str, Any] = {"workload": self.name, **given, "device": kind}
        row.update(median_s=None, iqr_s=None, repeats=0, status="ok", message="")
        try:
            params = self.resolve(given)
        except SettingError as err:
            row.update(status="error", message=str(err))
            return row, None
        backend = resolve_backend(params["backend"], kind)
        row = {"workload": self.name, **params, "backend": backend, "device": kind,
               **{k: row[k] for k in ("median_s", "iqr_s", "repeats", "status", "message")}}
        row["flops"] = float(self.flops(params))
        row["bytes"] = float(self.bytes_moved(params))
        row["grad_bytes"] = float(self.grad_bytes(params))
        row["peak_memory_estimate_bytes"] = float(self.peak_memory_bytes(params, kind))
        gpus = int(params["gpus"])
        if kind == "cuda":
            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
            if count == 0:
                row.update(status="skipped", message=f"gpus={gpus} on CUDA asked for, but CUDA is not available on this machine; not run")
            elif gpus > count:
                row.update(status="skipped", message=f"gpus={gpus} asked for, but this machine has {count} GPU(s); not run")
        else:
            if backend == "nccl":
                row.update(status="error", message="backend nccl needs CUDA GPUs; use gloo (or auto) on the CPU")
            elif gpus > available_cores():
                row.update(status="skipped", message=f"gpus={gpus} processes on the CPU need {gpus} cores, this machine has {available_cores()}; not run")
        if row["status"] != Status.OK:
            return row, params
        estimate = self.peak_memory_bytes(params, kind) * (gpus if kind == "cpu" else 1)
        where = "in all processes together" if kind == "cpu" else "per GPU"
        if memory_cap_gb is not None and estimate > memory_cap_gb * 1e9:
            row.update(status="skipped", message=f"needs about {estimate / 1e9:.1f} GB {where}, more than the {memory_cap_gb:g} GB memory cap; not run")
        elif kind == "cpu":
            from lib.core.devices import memory_info

            free, _ = memory_info("cpu")
            if estimate > free:
                row.update(status="skipped", message=f"needs about {estimate / 1e9:.1f} GB {where}, more than the {free / 1e9:.1f} GB free; not run")
        return row, params

    def _finish_row(self, row: dict[str, Any], result: dict[str, Any]) -> None:
        for key, value in result.items():
            if key == "status" or value is not None:
                row[key] = value
        if row["status"] != Status.OK:
            row.update(median_s=None, iqr_s=None, repeats=0)
            return
        median = row["median_s"]
        if median and median > 0:
            row["samples_per_s"] = int(row["gpus"]) * int(row["batch_size"]) / median
            row["achieved_flops_per_s"] = row["flops"] / median
            if row.get("iqr_s", 0) / median > 0.5 and not row.get("message"):
                row["message"] = f"noisy: the spread (IQR) is {row['iqr_s'] / median:.0%} of the median"


WORKLOAD = DDPTraining()
