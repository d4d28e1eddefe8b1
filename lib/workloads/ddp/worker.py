"""One process of a DistributedDataParallel measurement; started by torchrun, never by hand:

    python -m torch.distributed.run --standalone --nproc_per_node=N \\
        -m lib.workloads.ddp.worker --json-args '{"points": [...], "device": "cuda", ...}'

(lib.workloads.ddp.launch.launch builds that command.) Every rank runs the same points in the same
order; rank 0 writes `result_path` after each point. A rank that fails writes
`error_dir/error.rank<R>.json` naming the point, and exits: torchrun then stops the others.

Why not lib.core.timing.time_step: it sizes its warm-up and its number of timed blocks from this
process's own clock, so two ranks could run a different number of steps, and a rank that runs
one step more waits for ever in an all-reduce no one else joins. Here every count is agreed
between the ranks (the slowest rank's estimate decides) before any timed step; the statistics
are lib.core.timing's (median and IQR over blocks of at least MIN_BLOCK_S).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from lib.core.devices import cpu_model, synchronize
from lib.core.rows import Status
from lib.core.timing import MIN_BLOCK_S, median_and_iqr
from lib.workloads.ddp.messages import DDPResult, Exchange, Failure, JsonObject, LaunchConfig, Progress, Timed
from lib.workloads.ddp.models import DDPSettings, build_model, make_optimizer, synthetic_batch
from lib.workloads.ddp.workload import peak_bytes

WARMUP_CALLS = 3
MIN_REPEATS = 3
MAX_REPEATS = 200


class Group:
    """This rank's view of the process group, with the few collectives the timing needs."""

    def __init__(self, device: str):
        self.device = device
        self.rank = dist.get_rank()
        self.world = dist.get_world_size()

    def _reduce(self, value: float, op) -> float:
        t = torch.tensor([float(value)], dtype=torch.float64, device=self.device)
        dist.all_reduce(t, op=op)
        return float(t.item())

    def max(self, value: float) -> float:
        return self._reduce(value, dist.ReduceOp.MAX)

    def min(self, value: float) -> float:
        return self._reduce(value, dist.ReduceOp.MIN)

    def any(self, flag: bool) -> bool:
        return self.max(1.0 if flag else 0.0) > 0.5

    def barrier(self) -> None:
        dist.barrier()
        synchronize(self.device)


def timed(fn: Callable[[], Any], group: Group, *, budget_s: float, max_calls: int) -> Timed:
    """Median and IQR of one call of `fn` on every rank at once (the slowest rank per block).

    cold call, WARMUP_CALLS warm calls, then `repeats` blocks of `calls` calls, where calls and
    repeats come from the slowest rank's warm-up estimate, so every rank runs the same count."""
    device = group.device

    def once() -> float:
        synchronize(device)
        t0 = time.perf_counter()
        fn()
        synchronize(device)
        return time.perf_counter() - t0

    group.barrier()
    cold = once()
    estimate = group.max(statistics.median([once() for _ in range(WARMUP_CALLS)]))
    calls = max(1, math.ceil(MIN_BLOCK_S / max(estimate, 1e-9)))
    by_budget = int(budget_s / max(estimate * calls, 1e-9))
    repeats = max(MIN_REPEATS, min(MAX_REPEATS, max_calls // calls, by_budget))
    times = []
    for _ in range(repeats):
        group.barrier()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        synchronize(device)
        times.append((time.perf_counter() - t0) / calls)
    slowest = torch.tensor(times, dtype=torch.float64, device=device)
    dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
    median, iqr = median_and_iqr(slowest.tolist())
    return Timed(median, iqr, repeats, calls, group.max(cold))


def check_synchronised(model: nn.Module, loss: float, group: Group) -> None:
    """The DDP promise: after synchronised steps every rank holds the same weights (and a finite loss)."""
    if not math.isfinite(loss):
        raise AssertionError(f"loss became {loss}")
    checksum = float(sum(p.detach().double().sum() for p in model.parameters()).item())
    high, low = group.max(checksum), group.min(checksum)
    if abs(high - low) > 1e-9 * max(1.0, abs(high)):
        raise AssertionError(f"weights differ between ranks after synchronised steps ({low!r} vs {high!r})")


def time_allreduce(grad_numel: int, group: Group, *, budget_s: float, max_calls: int) -> Exchange:
    """One all-reduce of a buffer as big as the gradient, timed alone: the exchange unhidden."""
    buffer = torch.zeros(grad_numel, dtype=torch.float32, device=group.device)  # zeros: sums stay finite
    seconds = timed(lambda: dist.all_reduce(buffer), group, budget_s=budget_s, max_calls=max_calls).median_s
    grad_bytes = grad_numel * 4
    return Exchange(float(grad_bytes), seconds, grad_bytes / seconds / 1e9 if seconds > 0 else None)


def time_training(
    point: DDPSettings, group: Group, local_rank: int, *, with_phases: bool, budget_s: float, max_calls: int
) -> tuple[DDPResult, int]:
    """The DDP step timed across the group (and, with phases, the same step without the gradient
    exchange), and the number of gradient elements. The model lives only in this frame."""
    device = group.device
    cuda = device.startswith("cuda")
    model = build_model(point).to(device)
    grad_numel = sum(p.numel() for p in model.parameters() if p.requires_grad)
    ddp = DDP(model, device_ids=[local_rank] if cuda else None)
    optimizer = make_optimizer(ddp, point)
    loss_fn = nn.CrossEntropyLoss()
    x, y = synthetic_batch(point, group.rank, device)
    last: dict[str, torch.Tensor] = {}

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(ddp(x), y)
        loss.backward()  # DDP all-reduces gradient buckets while the backward pass goes on
        optimizer.step()
        last["loss"] = loss.detach()

    def step_no_exchange() -> None:
        optimizer.zero_grad(set_to_none=True)
        with ddp.no_sync():  # the same step without the gradient all-reduce
            loss = loss_fn(ddp(x), y)
            loss.backward()
        optimizer.step()

    result = DDPResult(Status.OK, step=timed(step, group, budget_s=budget_s, max_calls=max_calls))
    check_synchronised(model, float(last["loss"].item()), group)
    if with_phases:
        # Weights drift apart from here on (no exchange); nothing is checked after this.
        compute = timed(step_no_exchange, group, budget_s=budget_s / 2, max_calls=max_calls).median_s
        result = replace(result, compute_s=compute, comm_s=max(0.0, result.step.median_s - compute))
    return result, grad_numel


def measure(point: DDPSettings, group: Group, config: LaunchConfig, local_rank: int) -> DDPResult:
    device = group.device
    cuda = device.startswith("cuda")
    budget = config.budget_s
    max_calls = point.steps

    if cuda:
        estimate = peak_bytes(point, "cuda")
        free = group.min(torch.cuda.mem_get_info(device)[0])
        if estimate > free:
            return DDPResult(
                Status.SKIPPED,
                f"needs about {estimate / 1e9:.1f} GB per GPU, more than the {free / 1e9:.1f} GB free; not run",
            )
        torch.cuda.reset_peak_memory_stats(device)

    result, grad_numel = time_training(
        point, group, local_rank, with_phases=config.with_phases, budget_s=budget, max_calls=max_calls
    )
    if cuda:
        result = replace(result, peak_memory_bytes=group.max(torch.cuda.max_memory_allocated(device)))
        torch.cuda.empty_cache()  # the model is gone with time_training's frame; free its blocks

    threads = torch.get_num_threads()
    return replace(
        result,
        exchange=time_allreduce(grad_numel, group, budget_s=budget / 4, max_calls=max_calls),
        num_threads=threads,
        device_name=torch.cuda.get_device_name(device) if cuda else f"{cpu_model()} ({threads} threads per process)",
    )


def _is_oom(err: BaseException) -> bool:
    from lib.core.sweep import is_out_of_memory

    return is_out_of_memory(err)


def _write(path: Path, obj: JsonObject) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj), encoding="utf-8")
    os.replace(tmp, path)


def _fail(config: LaunchConfig, rank: int, index: int | None, err: BaseException) -> None:
    first = str(err).splitlines()[0][:300] if str(err) else ""
    if _is_oom(err):
        status, message = Status.OOM, f"ran out of memory on {config.device}: {first[:200]}"
    elif isinstance(err, AssertionError):
        status, message = Status.ERROR, f"result check failed: {first}"
    else:
        status, message = Status.ERROR, f"{type(err).__name__}: {first}" if first else type(err).__name__
    _write(Path(config.error_dir) / f"error.rank{rank}.json", Failure(rank, index, status, message).as_json())
    print(message, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--json-args", required=True, help="the measurement, as JSON (see lib.workloads.ddp.launch.launch)"
    )
    config = LaunchConfig.from_json(json.loads(parser.parse_args(argv).json_args))
    rank = int(os.environ.get("RANK", "0"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    try:
        if config.device == "cuda":
            torch.cuda.set_device(local_rank)
            device = f"cuda:{local_rank}"
        else:
            device = "cpu"
            torch.set_num_threads(config.threads)
        timeout = _dt.timedelta(seconds=config.collective_timeout_s)
        kwargs = {"device_id": torch.device(device)} if config.backend == "nccl" else {}
        dist.init_process_group(backend=config.backend, timeout=timeout, **kwargs)
        group = Group(device)
    except BaseException as err:  # reported to the parent, then exit
        _fail(config, rank, None, err)
        return 1

    started = time.perf_counter()
    deadline = config.deadline_s
    results: list[DDPResult] = []
    result_path = Path(config.result_path)
    for index, point in enumerate(config.points):
        if rank == 0:
            _write(result_path, Progress(tuple(results), index).as_json())
        over = deadline is not None and time.perf_counter() - started > deadline
        if group.any(over):
            results.append(DDPResult(Status.SKIPPED, "time budget used up before this point"))
            continue
        try:
            results.append(measure(point, group, config, local_rank))
        except BaseException as err:  # one rank failing ends this launch
            _fail(config, rank, index, err)
            return 1
        if config.device == "cuda":
            torch.cuda.empty_cache()
    if rank == 0:
        _write(result_path, Progress(tuple(results), None).as_json())
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
