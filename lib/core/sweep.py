"""Measure points across devices: one loop for CLI sweeps, grids and the pages' live sweeps.

    measure_point(workload, settings, device)                  one point, one row
    run_points(workload, points, devices, refuse=..., ...)    the loop, with hooks
    run_sweep(workload, "batch_size", [1, 16, 256], fixed, devices)   one setting varied

Every point asked for ends up as a row: `ok`, `oom`, `skipped` (the device cannot run it, over
the memory limit, refused by a hook such as a live work cap, or past the time budget) or
`error`, each with a message. Nothing is dropped silently. Before a point is allocated one gate
(lib.core.gate) is asked, in this order: the workload (can this device run it at all), memory,
the work cap, the caller's hook, the time budget.

A workload whose points run in processes of its own (ddp, through torchrun) goes through the same
loop: its `Launch` (lib.core.workload) only times the points the gate let through, a group of points
per launch.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from lib.core.devices import device_name
from lib.core.gate import Gate, default_memory_cap_gb, recording_gate
from lib.core.profiling import count_kernels
from lib.core.rows import Status, new_row, refused
from lib.core.timing import cpu_threads, time_phases, time_step
from lib.core.workload import SettingError, Settings, Workload, built_step

ProgressFn = Callable[[float, str], None]
RowFn = Callable[[dict[str, Any]], None]
RefuseFn = Callable[[Settings, str], "str | None"]
AtFn = Callable[[Settings], bool]

_FROM_ENV = object()  # memory_cap_gb default: read $GPUWIN_MEMORY_CAP_GB when the call is made


def _cap(memory_cap_gb: Any) -> float | None:
    return default_memory_cap_gb() if memory_cap_gb is _FROM_ENV else memory_cap_gb


def is_out_of_memory(err: BaseException) -> bool:
    import torch
    if isinstance(err, MemoryError):
        return True
    oom_type = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(err, oom_type):
        return True
    text = str(err).lower()
    return isinstance(err, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text)


def memory_refusal(workload: Workload, settings: Settings, device: str, cap_gb: float | None) -> str | None:
    """Why a point must not be allocated (this process's memory plus the estimate above the cap, or
    the estimate above free memory), or None: the gate's memory question alone."""
    refusal = recording_gate(memory_cap_gb=cap_gb).memory(workload, settings, device)
    return refusal.message if refusal else None


def estimated_row(workload: Workload, settings: Settings, device: str) -> dict[str, Any]:
    """A row for the point before it runs: its settings and the workload's estimates."""
    row = new_row(workload.name, settings, device)
    row["flops"] = float(workload.flops(settings))
    row["bytes"] = float(workload.bytes_moved(settings))
    row["peak_memory_estimate_bytes"] = float(workload.peak_memory_bytes(settings, device))
    row.update(workload.estimates(settings, device))
    return row


def measure_point(
    workload: Workload,
    settings: Mapping[str, Any],
    device: str,
    *,
    budget_s: float = 1.0,
    memory_cap_gb: Any = _FROM_ENV,
    num_threads: int | None = None,
    with_phases: bool = True,
    with_profile: bool = False,
    check: bool = False,
    slow_call_s: float | None = None,
    single_call_s: float | None = None,
    gate: Gate | None = None,
) -> dict[str, Any]:
    """Time one point on one device and return its row (never raises for the work itself).

    `gate` (lib.core.gate) decides whether the point may be built; without one, a recording's gate
    with `memory_cap_gb` only.

    `settings` should be the workload's resolved Settings; a plain dict is resolved here, as an
    entry point (bad settings become an error row). with_profile adds the kernel count and
    device-busy time of one warm step (lib.core.profiling). slow_call_s / single_call_s: see
    lib.core.timing.time_step (steps of seconds or minutes)."""
    try:
        settings = workload.resolve(settings)
    except SettingError as err:
        return refused(new_row(workload.name, settings, device), Status.ERROR, str(err))
    gate = gate or recording_gate(memory_cap_gb=_cap(memory_cap_gb))
    refusal = gate.check(workload, settings, device)
    if refusal:
        return refused(estimated_row(workload, settings, device), Status.SKIPPED, refusal.message)
    return _measure(workload, settings, device, budget_s=budget_s, num_threads=num_threads, with_phases=with_phases,
                    with_profile=with_profile, check=check, slow_call_s=slow_call_s, single_call_s=single_call_s)


def _measure(workload: Workload, settings: Settings, device: str, *, budget_s: float, num_threads: int | None,
             with_phases: bool, with_profile: bool, check: bool, slow_call_s: float | None,
             single_call_s: float | None) -> dict[str, Any]:
    """Build, time and close a point the gate let through (or launch it, for a workload with a Launch)."""
    row = estimated_row(workload, settings, device)
    if workload.launch is not None:
        _launch_into(workload, [(row, settings)], device, budget_s=budget_s, num_threads=num_threads,
                     with_phases=with_phases, deadline_s=None)
        return row
    try:
        row["device_name"] = device_name(device)
        with built_step(workload, settings, device) as step:
            _time_into(row, step, device, budget_s=budget_s, num_threads=num_threads, with_phases=with_phases,
                       slow_call_s=slow_call_s, single_call_s=single_call_s)
            if with_profile:
                _profile_into(row, step, device, num_threads)
            if check and step.check is not None:
                step.check()
    except AssertionError as err:
        refused(row, Status.ERROR, f"result check failed: {err}")
    except Exception as err:
        first_line = str(err).splitlines()[0] if str(err) else ""
        if is_out_of_memory(err):
            refused(row, Status.OOM, f"ran out of memory on {device}: {first_line[:200]}")
        else:
            refused(row, Status.ERROR, f"{type(err).__name__}: {first_line[:300]}")
            row["traceback"] = traceback.format_exc(limit=3)[-1000:]
    row.pop("traceback", None)
    return row


def _time_into(row: dict[str, Any], step, device: str, *, budget_s: float, num_threads: int | None,
               with_phases: bool, slow_call_s: float | None, single_call_s: float | None) -> None:
    m = time_step(step.run, device, budget_s=budget_s, num_threads=num_threads, synchronized=step.synchronized,
                  slow_call_s=slow_call_s, single_call_s=single_call_s)
    row.update(median_s=m.median_s, iqr_s=m.iqr_s, repeats=m.repeats, cold_s=m.cold_s,
               calls_per_repeat=m.calls_per_repeat, num_threads=m.num_threads)
    if m.median_s > 0:
        row["achieved_flops_per_s"] = row["flops"] / m.median_s
    row.update(step.units)
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
    if m.note:
        row["message"] = m.note
    elif m.spread_ratio > 0.5:
        row["message"] = f"noisy: the spread (IQR) is {m.spread_ratio:.0%} of the median"


def profile_point(row: dict[str, Any], workload: Workload, settings: Settings, device: str,
                  num_threads: int | None) -> None:
    """Add the kernel count and busy time of one warm step to a measured row (the step is built again)."""
    if workload.launch is not None:  # build() here is not the step its processes timed
        row["message"] = (row.get("message") or "") + " (no kernel count: this workload runs in processes of its own)"
        return
    try:
        with built_step(workload, settings, device) as step:
            _profile_into(row, step, device, num_threads)
    except Exception as err:
        row["message"] = (row.get("message") or "") + f" (profile failed: {type(err).__name__})"


def _profile_into(row: dict[str, Any], step, device: str, num_threads: int | None) -> None:
    """Kernels (CUDA) or operator calls (CPU) in one warm step, and how long the device was busy.
    On CUDA the busy time comes from the GPU's own clock; on the CPU the profiler slows every op,
    so the busy *fraction* of the profiled call is scaled by the unprofiled median."""
    try:
        with cpu_threads(num_threads):
            info = count_kernels(step.run, device)
    except Exception as err:
        row["message"] = (row.get("message") or "") + f" (kernel count failed: {type(err).__name__})"
        return
    median = row["median_s"]
    busy = info["device_busy_s"] if str(device).startswith("cuda") else info.get("busy_fraction", 0.0) * median
    row.update(kernels=float(info["kernels"]), device_busy_s=float(min(busy, median)))


def _at(rule: AtFn | bool) -> AtFn:
    return rule if callable(rule) else (lambda _settings: bool(rule))


def run_points(
    workload: Workload,
    points: Iterable[Settings | dict[str, Any]],
    devices: Sequence[str],
    *,
    point_budget_s: float = 1.0,
    total_budget_s: float | None = None,
    memory_cap_gb: Any = _FROM_ENV,
    num_threads: int | None = None,
    with_phases: AtFn | bool = True,
    with_profile: AtFn | bool = False,
    refuse: RefuseFn | None = None,
    swept: str | None = None,
    origin: str | None = None,
    describe: Callable[[Settings], str] | None = None,
    progress: ProgressFn | None = None,
    on_row: RowFn | None = None,
    slow_call_s: float | None = None,
    single_call_s: float | None = None,
    gate: Gate | None = None,
    kept: Callable[[Settings | dict[str, Any], str], dict[str, Any] | None] | None = None,
) -> list[dict[str, Any]]:
    """Measure every point on every device, one row per (point, device), in that order.

    `gate` (lib.core.gate) is asked before each point is built; without one, a recording's gate with
    `memory_cap_gb` and `total_budget_s`.

    A point is a resolved Settings, or an error row already made (settings that did not resolve).
    Hooks: `refuse(settings, device)` may refuse a point before it is allocated (e.g. a live work
    cap); `with_phases` / `with_profile` say where phases and kernel counts are measured (a bool,
    or a function of the settings); `on_row` gets each row as soon as it is complete; `progress`
    gets (fraction done, message); `kept(point, device)` may give a row measured before (a resumed
    recording), taken as it is. slow_call_s / single_call_s: see lib.core.timing.time_step."""
    points = list(points)
    phases_at, profile_at = _at(with_phases), _at(with_profile)
    describe = describe or (lambda s: workload.name)
    gate = gate or recording_gate(memory_cap_gb=_cap(memory_cap_gb), budget_s=total_budget_s)
    total = max(1, len(points) * len(devices))
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    # Profiles come after every timing: once torch.profiler has traced CUDA, CUPTI stays attached to
    # the process and slows each later kernel launch (up to 2x on launch-bound steps: docs/profiler_after_effect.txt)
    to_profile: list[tuple[dict[str, Any], Settings, str]] = []
    # Points of a workload with a Launch are gated here in order, then launched a group at a time.
    to_launch: list[tuple[dict[str, Any], Settings, str]] = []
    for point in points:
        for device in devices:
            before = kept(point, device) if kept else None
            if before is not None:
                rows.append(before)
                if on_row is not None:
                    on_row(before)
                continue
            if progress and workload.launch is None:
                what = describe(point) if isinstance(point, Settings) else "bad settings"
                progress(len(rows) / total, f"measuring {what} on {device} ({len(rows) + 1}/{total})")
            row = _one(workload, point, device, gate=gate, refuse=refuse, point_budget_s=point_budget_s,
                       num_threads=num_threads, phases_at=phases_at, slow_call_s=slow_call_s,
                       single_call_s=single_call_s, measure=workload.launch is None)
            if swept:
                row["swept"] = swept
            if origin:
                row["origin"] = origin
            rows.append(row)
            if row.get("status") == Status.OK and isinstance(point, Settings):
                if workload.launch is not None:
                    to_launch.append((row, point, device))
                    continue
                if profile_at(point):
                    to_profile.append((row, point, device))
            if on_row is not None:
                on_row(row)
    _launch_groups(workload, to_launch, gate=gate, point_budget_s=point_budget_s, num_threads=num_threads,
                   phases_at=phases_at, progress=progress, on_row=on_row, total=total)
    for i, (row, point, device) in enumerate(to_profile):
        if progress:
            progress(len(rows) / total, f"profiling {describe(point)} on {device} ({i + 1}/{len(to_profile)})")
        profile_point(row, workload, point, device, num_threads)
    if progress:
        progress(1.0, f"done: {len(rows)} points in {time.perf_counter() - started:.1f} s")
    return workload.summarise(rows)


def _one(workload: Workload, point: Settings | dict[str, Any], device: str, *, gate: Gate,
         refuse: RefuseFn | None, point_budget_s: float, num_threads: int | None, phases_at: AtFn,
         slow_call_s: float | None, single_call_s: float | None, measure: bool = True) -> dict[str, Any]:
    """The point's row: refused, or measured (measure=False: let through, to be launched later)."""
    if not isinstance(point, Settings):  # an error row made where the settings were resolved
        return {**point, "device": device}
    refusal = gate.check(workload, point, device, rule=refuse)
    if refusal:
        return refused(estimated_row(workload, point, device), Status.SKIPPED, refusal.message)
    if not measure:
        return estimated_row(workload, point, device)
    return _measure(workload, point, device, budget_s=point_budget_s, num_threads=num_threads,
                    with_phases=phases_at(point), with_profile=False, check=False, slow_call_s=slow_call_s,
                    single_call_s=single_call_s)


def _launch_groups(workload: Workload, todo: Sequence[tuple[dict[str, Any], Settings, str]], *, gate: Gate,
                   point_budget_s: float, num_threads: int | None, phases_at: AtFn, progress: ProgressFn | None,
                   on_row: RowFn | None, total: int) -> None:
    """Launch the points the gate let through, one launch per group (Launch.group), in order; a
    group reached after the time budget is used up is skipped with the gate's words."""
    if not todo or workload.launch is None:
        return
    launch = workload.launch
    groups: dict[tuple, list[tuple[dict[str, Any], Settings]]] = {}
    for row, point, device in todo:
        groups.setdefault((device, launch.group(point, device), phases_at(point)), []).append((row, point))
    done = total - len(todo)
    for (device, _, with_phases), members in groups.items():
        late = gate.time()
        if late:
            for row, _ in members:
                refused(row, Status.SKIPPED, late.message)
        else:
            if progress:
                progress(done / total, f"{launch.describe([p for _, p in members], device)} ({done + 1}/{total})")
            left = None if gate.budget_s is None else gate.budget_s - gate.elapsed_s()
            _launch_into(workload, members, device, budget_s=point_budget_s, num_threads=num_threads,
                         with_phases=with_phases, deadline_s=left)
        done += len(members)
        for row, _ in members:
            if on_row is not None:
                on_row(row)


def _launch_into(workload: Workload, members: Sequence[tuple[dict[str, Any], Settings]], device: str, *,
                 budget_s: float, num_threads: int | None, with_phases: bool, deadline_s: float | None) -> None:
    """One Launch.run over the members' points; each result goes into its row as _measure's would."""
    assert workload.launch is not None
    results = workload.launch.run([p for _, p in members], device, budget_s=budget_s, num_threads=num_threads,
                                  with_phases=with_phases, deadline_s=deadline_s)
    for (row, _), fields in zip(members, results):
        status = Status(fields.get("status", Status.OK))
        row.update({k: v for k, v in fields.items() if v is not None and k not in ("status", "message")})
        if status != Status.OK:
            refused(row, status, fields.get("message") or "")
            continue
        row["message"] = fields.get("message") or ""
        median = row.get("median_s")
        if median and median > 0:
            row["achieved_flops_per_s"] = row["flops"] / median
            if (row.get("iqr_s") or 0) / median > 0.5 and not row["message"]:
                row["message"] = f"noisy: the spread (IQR) is {row['iqr_s'] / median:.0%} of the median"


def resolve_points(workload: Workload, given: Iterable[Mapping[str, Any]]) -> list[Settings | dict[str, Any]]:
    """Each point's settings resolved once (the entry of a sweep); bad ones become error rows."""
    points: list[Settings | dict[str, Any]] = []
    for params in given:
        try:
            points.append(workload.resolve(params))
        except SettingError as err:
            points.append(refused(new_row(workload.name, params, ""), Status.ERROR, str(err)))
    return points


def run_sweep(
    workload: Workload,
    over: str,
    values: Sequence[Any],
    fixed: Mapping[str, Any] | None,
    devices: Sequence[str],
    **options: Any,
) -> list[dict[str, Any]]:
    """Sweep `over` through `values` (the other settings `fixed`) on every device: run_points over
    one point per value, each row marked swept=over. Options are run_points'."""
    setting = workload.setting(over)
    fixed = {k: v for k, v in (fixed or {}).items() if k != over}
    points = resolve_points(workload, ({**fixed, over: setting.parse(v)} for v in values))
    options.setdefault("describe", lambda s: f"{workload.name} {over}={s[over]}")
    return run_points(workload, points, devices, swept=over, **options)


def grid_points(workload: Workload, axes: Sequence[tuple[str, Sequence[Any]]], fixed: Mapping[str, Any] | None
                ) -> list[Settings | dict[str, Any]]:
    """Every combination of the axes' values (the first axis outermost), the other settings fixed."""
    combos: list[dict[str, Any]] = [dict(fixed or {})]
    for name, values in axes:
        setting = workload.setting(name)
        combos = [{**c, name: setting.parse(v)} for c in combos for v in values]
    return resolve_points(workload, combos)

