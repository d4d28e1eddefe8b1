"""Measure points and sweeps across devices: progress, time budget, memory refusal, OOM survival.

Every point asked for ends up as a row: `ok`, `oom`, `skipped` (over the memory limit or the
time budget) or `error`, each with a message. Nothing is dropped silently.
"""

from __future__ import annotations

import gc
import os
import time
import traceback
from typing import Any, Callable, Sequence

import torch

from lib.core.devices import device_name, memory_info
from lib.core.timing import time_phases, time_step
from lib.core.workload import SettingError, Workload

ProgressFn = Callable[[float, str], None]

# A hosted demo box has about 2.7 GB; refuse points estimated above this (per device).
DEFAULT_MEMORY_CAP_GB = float(os.environ.get("GPUWIN_MEMORY_CAP_GB", "2.7"))


def is_out_of_memory(err: BaseException) -> bool:
    if isinstance(err, MemoryError):
        return True
    oom_type = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(err, oom_type):
        return True
    text = str(err).lower()
    return isinstance(err, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text)


def free_memory() -> None:
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def memory_refusal(workload: Workload, params: dict[str, Any], device: str, cap_gb: float | None) -> str | None:
    """Why a point must not be allocated (estimate above free memory or the cap), or None."""
    estimate = workload.peak_memory_bytes(params, device)
    free, _ = memory_info(device)
    limit, what = free, f"the {free / 1e9:.1f} GB free on {device}"
    if cap_gb is not None and cap_gb * 1e9 < limit:
        limit, what = cap_gb * 1e9, f"the {cap_gb:g} GB memory cap"
    if estimate > limit:
        return f"needs about {estimate / 1e9:.1f} GB, more than {what}; not run"
    return None


def base_row(workload: Workload, params: dict[str, Any], device: str) -> dict[str, Any]:
    row: dict[str, Any] = {"workload": workload.name, **params, "device": device}
    row.update(median_s=None, iqr_s=None, repeats=0, status="ok", message="")
    return row


def measure_point(
    workload: Workload,
    params: dict[str, Any],
    device: str,
    *,
    budget_s: float = 1.0,
    memory_cap_gb: float | None = DEFAULT_MEMORY_CAP_GB,
    num_threads: int | None = None,
    with_phases: bool = True,
    check: bool = False,
    slow_call_s: float | None = None,
    single_call_s: float | None = None,
) -> dict[str, Any]:
    """Time one setting on one device and return its result row (never raises for the work itself).
    slow_call_s / single_call_s: see lib.core.timing.time_step (for steps of seconds or minutes)."""
    row = base_row(workload, params, device)
    try:
        params = workload.resolve(params)
        row.update({"workload": workload.name, **params, "device": device})
        row["flops"] = float(workload.flops(params))
        row["bytes"] = float(workload.bytes_moved(params))
        row["peak_memory_estimate_bytes"] = float(workload.peak_memory_bytes(params, device))
    except SettingError as err:
        row.update(status="error", message=str(err))
        return row

    refusal = memory_refusal(workload, params, device, memory_cap_gb)
    if refusal:
        row.update(status="skipped", message=refusal)
        return row

    step = None
    try:
        row["device_name"] = device_name(device)
        step = workload.build(params, device)
        m = time_step(step.run, device, budget_s=budget_s, num_threads=num_threads, synchronized=step.synchronized,
                      slow_call_s=slow_call_s, single_call_s=single_call_s)
        row.update(
            median_s=m.median_s, iqr_s=m.iqr_s, repeats=m.repeats, cold_s=m.cold_s,
            calls_per_repeat=m.calls_per_repeat, num_threads=m.num_threads,
        )
        if m.median_s > 0:
            row["achieved_flops_per_s"] = row["flops"] / m.median_s
        for unit, count in step.units.items():
            row[unit] = count
        if "steps_per_epoch" in step.units:
            row["epoch_s"] = m.median_s * step.units["steps_per_epoch"]
        if with_phases and step.phases:
            phases = time_phases(step.phases, device, budget_s=max(budget_s / 4, 0.05), num_threads=num_threads)
            for name, seconds in phases.items():
                row[f"phase_{name}_s"] = seconds
            row["phase_overhead_s"] = max(0.0, m.median_s - sum(phases.values()))
        for key, value in step.extras.items():
            if isinstance(value, (int, float, str, bool)) and key not in row:
                row[key] = value
        if check and step.check is not None:
            step.check()
        if m.note:
            row["message"] = m.note
        elif m.spread_ratio > 0.5:
            row["message"] = f"noisy: the spread (IQR) is {m.spread_ratio:.0%} of the median"
    except AssertionError as err:
        row.update(status="error", message=f"result check failed: {err}")
    except Exception as err:  # noqa: BLE001 - every failure becomes a row, the sweep goes on
        if is_out_of_memory(err):
            row.update(status="oom", message=f"ran out of memory on {device}: {str(err).splitlines()[0][:200]}")
        else:
            row.update(status="error", message=f"{type(err).__name__}: {str(err).splitlines()[0][:300] if str(err) else ''}")
            row["traceback"] = traceback.format_exc(limit=3)[-1000:]
        row.update(median_s=None, iqr_s=None, repeats=0)
    finally:
        if step is not None and step.close is not None:
            step.close()
        del step
        free_memory()
    row.pop("traceback", None)
    return row


def sweep_values(key: str, values: Sequence[Any], workload: Workload) -> list[Any]:
    setting = workload.setting(key)
    return [setting.parse(v) for v in values]


def run_sweep(
    workload: Workload,
    over: str,
    values: Sequence[Any],
    fixed: dict[str, Any] | None,
    devices: Sequence[str],
    *,
    point_budget_s: float = 1.0,
    total_budget_s: float | None = None,
    memory_cap_gb: float | None = DEFAULT_MEMORY_CAP_GB,
    num_threads: int | None = None,
    with_phases: bool = True,
    progress: ProgressFn | None = None,
) -> list[dict[str, Any]]:
    """Sweep `over` through `values` (others fixed) on every device. One row per (value, device).

    Points left when `total_budget_s` runs out are kept as `skipped` rows saying so.
    """
    values = sweep_values(over, values, workload)
    fixed = {k: v for k, v in (fixed or {}).items() if k != over}
    total = len(values) * len(devices)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    done = 0
    for value in values:
        params = {**fixed, over: value}
        for device in devices:
            elapsed = time.perf_counter() - started
            label = f"{workload.name} {over}={value} on {device}"
            if progress:
                progress(done / total, f"measuring {label} ({done + 1}/{total})")
            if total_budget_s is not None and elapsed >= total_budget_s:
                row = base_row(workload, params, device)
                try:
                    row.update(workload.resolve(params))
                except SettingError:
                    pass
                row.update(status="skipped", message=f"time budget of {total_budget_s:g} s used up before this point")
            else:
                row = measure_point(
                    workload, params, device, budget_s=point_budget_s, memory_cap_gb=memory_cap_gb,
                    num_threads=num_threads, with_phases=with_phases,
                )
            row["swept"] = over
            rows.append(row)
            done += 1
    if progress:
        progress(1.0, f"done: {total} points in {time.perf_counter() - started:.1f} s")
    return rows
