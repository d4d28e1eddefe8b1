"""Live sweeps for the app: quick enough for a web page, honest about what was not run.

Differences from lib.core.sweep.run_sweep, all for a page that must answer within seconds on a
small shared server:
- phases (transfer / compute / overhead) and a kernel count are measured only at the point
  the user is looking at (`current`), not at every point of the curve;
- a per-device cap on the work of one step (FLOPs): points above it become `skipped` rows
  that say so, instead of holding the server for minutes;
- a total time budget, after which the remaining points are `skipped` rows.

Every row is a normal result row (lib.core.results schema), with swept=<setting> and origin='live'.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any, Callable, Sequence

import torch

from lib.core.devices import is_cuda
from lib.core.sweep import DEFAULT_MEMORY_CAP_GB, base_row, free_memory, measure_point, sweep_values
from lib.core.profiling import count_kernels
from lib.core.timing import cpu_threads
from lib.core.workload import SettingError, Workload

ProgressFn = Callable[[float, str], None]

# PyTorch's CPU thread count when the app started (a measurement may change it for a while).
TORCH_DEFAULT_THREADS = torch.get_num_threads()


def default_live_threads() -> int:
    """CPU threads for live measurements in the app: PyTorch's default, less one core left for
    the web server on small machines. On a 2-core host two busy intra-op threads stall at every
    barrier whenever the server (or the host) takes a core, and steps then take 10-100x longer;
    one thread gives stable numbers. $GPUWIN_LIVE_THREADS overrides."""
    override = os.environ.get("GPUWIN_LIVE_THREADS")
    if override:
        return max(1, int(override))
    cores = os.cpu_count() or 1
    return max(1, min(TORCH_DEFAULT_THREADS, cores - 1))


DEFAULT_CPU_THREADS = default_live_threads()

# Most floating-point work one step may take in a live CPU run (a 2-core host does a few tens
# of GFLOP/s, so about 0.1 s per step at the cap). GPUs get a much larger allowance.
LIVE_MAX_FLOPS = {
    "cpu": float(os.environ.get("GPUWIN_LIVE_MAX_GFLOP_CPU", "3")) * 1e9,
    "cuda": float(os.environ.get("GPUWIN_LIVE_MAX_GFLOP_CUDA", "2000")) * 1e9,
}


def log_grid(choices: Sequence[Any], n: int = 6, include: Sequence[Any] = ()) -> list[Any]:
    """About n values spread evenly over `choices` (already log-spaced and ascending), always
    with both ends and every value of `include` that is one of the choices."""
    choices = list(choices)
    if len(choices) <= n:
        picked = set(range(len(choices)))
    else:
        picked = {round(i * (len(choices) - 1) / (n - 1)) for i in range(n)}
    picked |= {choices.index(v) for v in include if v in choices}
    return [choices[i] for i in sorted(picked)]


def device_cap(device: str, caps: dict[str, float] | None) -> float | None:
    caps = LIVE_MAX_FLOPS if caps is None else caps
    return caps.get("cuda" if is_cuda(device) else "cpu")


def work_refusal(workload: Workload, params: dict[str, Any], device: str, caps: dict[str, float] | None) -> str | None:
    """Why a point is too much work to time live on this device, or None."""
    cap = device_cap(device, caps)
    if cap is None:
        return None
    try:
        flops = float(workload.flops(workload.resolve(params)))
    except (SettingError, NotImplementedError):
        return None  # measure_point reports bad settings itself
    if flops > cap:
        return (f"about {flops / 1e9:.3g} GFLOP per step, more than the {cap / 1e9:g} GFLOP a live "
                f"run on {device} may take here; not run (see the recorded results, or run it with the CLI)")
    return None


def profile_point(workload: Workload, params: dict[str, Any], device: str, median_s: float,
                  num_threads: int | None = None) -> dict[str, float]:
    """Kernels (CUDA) or operator calls (CPU) in one step, and how long the device was busy.

    On CUDA the busy time comes from the GPU's own clock. On the CPU the profiler slows every
    op, so the busy *fraction* of the profiled call is scaled by the unprofiled median."""
    step = workload.build(workload.resolve(params), device)
    try:
        with cpu_threads(num_threads):
            info = count_kernels(step.run, device)
    finally:
        if step.close is not None:
            step.close()
        del step
        free_memory()
    busy = info["device_busy_s"] if is_cuda(device) else info.get("busy_fraction", 0.0) * median_s
    return {"kernels": float(info["kernels"]), "device_busy_s": float(min(busy, median_s))}


def live_sweep(
    workload: Workload,
    over: str,
    values: Sequence[Any],
    fixed: dict[str, Any] | None,
    devices: Sequence[str],
    *,
    current: Any = None,
    point_budget_s: float = 0.15,
    total_budget_s: float | None = 60.0,
    num_threads: int | None = None,
    memory_cap_gb: float | None = DEFAULT_MEMORY_CAP_GB,
    max_flops: dict[str, float] | None = None,
    profile_current: bool = True,
    progress: ProgressFn | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Sweep `over` through `values` (others `fixed`) on every device, one row per (value, device).

    Phases and the kernel profile are measured only where value == current. `on_row` gets each
    row as soon as it is complete (a page can draw the curve while it grows)."""
    values = sweep_values(over, values, workload)
    if current is not None:
        current = workload.setting(over).parse(current)
    fixed = {k: v for k, v in (fixed or {}).items() if k != over}
    extra = len(devices) if (profile_current and current in values) else 0
    total = len(values) * len(devices) + extra
    started = time.perf_counter()
    done = 0
    rows: list[dict[str, Any]] = []

    def report(message: str) -> None:
        if progress:
            progress(min(done / total, 1.0), message)

    for value in values:
        params = {**fixed, over: value}
        at_current = value == current
        for device in devices:
            report(f"timing {over}={value} on {device} ({done + 1}/{total})")
            refusal = work_refusal(workload, params, device, max_flops)
            over_time = total_budget_s is not None and time.perf_counter() - started >= total_budget_s
            if refusal or over_time:
                row = base_row(workload, params, device)
                try:
                    row.update(workload.resolve(params))
                except SettingError:
                    pass
                row.update(status="skipped", message=refusal or f"time budget of {total_budget_s:g} s used up before this point")
            else:
                row = measure_point(workload, params, device, budget_s=point_budget_s, memory_cap_gb=memory_cap_gb,
                                    num_threads=num_threads, with_phases=at_current)
            row["swept"] = over
            row["origin"] = "live"
            rows.append(row)
            done += 1
            if at_current and profile_current:
                if row["status"] == "ok" and row.get("median_s"):
                    report(f"counting kernels at {over}={value} on {device}")
                    try:
                        row.update(profile_point(workload, params, device, row["median_s"], num_threads))
                    except Exception as err:  # noqa: BLE001 - a failed profile must not lose the timing
                        row["message"] = (row.get("message") or "") + f" (kernel count failed: {type(err).__name__})"
                done += 1
            if on_row is not None:
                on_row(row)
    if progress:
        progress(1.0, f"done: {len(rows)} points in {time.perf_counter() - started:.1f} s")
    return rows


def warm_up(workload: Workload, params: dict[str, Any] | None = None, device: str = "cpu",
            num_threads: int | None = None, calls: int = 3) -> None:
    """Pay the process's one-off costs (first kernels, allocator, optimizer set-up, the profiler's
    own start-up) before a visitor waits for them. Measures nothing."""
    step = workload.build(workload.resolve(params or {}), device)
    try:
        with cpu_threads(num_threads):
            for _ in range(calls):
                step.run()
            count_kernels(step.run, device)
    finally:
        if step.close is not None:
            step.close()
        del step
        free_memory()


def rows_at(rows: Sequence[dict[str, Any]], setting: str, value: Any) -> list[dict[str, Any]]:
    """The rows measured at setting == value (any device)."""
    def same(a: Any, b: Any) -> bool:
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9)
        except (TypeError, ValueError):
            return a == b

    return [r for r in rows if setting in r and same(r[setting], value)]
