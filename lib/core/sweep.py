"""Measure points across devices: one loop for CLI sweeps, grids and the pages' live sweeps.

    measure_point(workload, settings, device)                  one point, one Point
    run_points(RunRequest(workload, points, devices, refuse=..., ...))   the loop, with hooks
    run_sweep(workload, "batch_size", [1, 16, 256], fixed, devices)   one setting varied

Every point asked for ends up as a Point (lib.core.point): `ok`, `oom`, `skipped` (the device cannot run it, over
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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from lib.core.devices import device_name
from lib.core.gate import Gate, default_memory_cap_gb, recording_gate
from lib.core.point import Point
from lib.core.profiling import count_kernels
from lib.core.rows import Status
from lib.core.run_request import FROM_ENV, AtFn, RunRequest, Timing
from lib.core.timing import cpu_threads, time_phases, time_step
from lib.core.workload import Launched, SettingError, Settings, SettingValue, Workload, built_step


def _cap(memory_cap_gb: Any) -> float | None:
    return default_memory_cap_gb() if memory_cap_gb is FROM_ENV else memory_cap_gb


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


def estimated_point(workload: Workload, settings: Settings, device: str) -> Point:
    """A point before it runs: its settings and the workload's estimates."""
    point = Point.new(workload.name, settings, device).with_counts(
        flops=float(workload.flops(settings)),
        bytes=float(workload.bytes_moved(settings)),
        peak_memory_estimate_bytes=float(workload.peak_memory_bytes(settings, device)),
    )
    return workload.estimated(point, settings, device)


def measure_point(
    workload: Workload,
    settings: Mapping[str, Any],
    device: str,
    *,
    budget_s: float = 1.0,
    memory_cap_gb: Any = FROM_ENV,
    num_threads: int | None = None,
    with_phases: bool = True,
    with_profile: bool = False,
    check: bool = False,
    slow_call_s: float | None = None,
    single_call_s: float | None = None,
    gate: Gate | None = None,
) -> Point:
    """Time one point on one device and return it (never raises for the work itself).

    `gate` (lib.core.gate) decides whether the point may be built; without one, a recording's gate
    with `memory_cap_gb` only.

    `settings` should be the workload's resolved Settings; a plain dict is resolved here, as an
    entry point (bad settings become an error point). with_profile adds the kernel count and
    device-busy time of one warm step (lib.core.profiling). slow_call_s / single_call_s: see
    lib.core.timing.time_step (steps of seconds or minutes)."""
    try:
        settings = workload.resolve(settings)
    except SettingError as err:
        return Point.new(workload.name, settings, device).refused(Status.ERROR, str(err))
    gate = gate or recording_gate(memory_cap_gb=_cap(memory_cap_gb))
    refusal = gate.check(workload, settings, device)
    if refusal:
        return estimated_point(workload, settings, device).refused(Status.SKIPPED, refusal.message)
    return _measure(
        workload,
        settings,
        device,
        Timing(budget_s, num_threads, with_phases, slow_call_s, single_call_s),
        with_profile=with_profile,
        check=check,
    )


def _measure(
    workload: Workload,
    settings: Settings,
    device: str,
    timing: Timing,
    *,
    with_profile: bool = False,
    check: bool = False,
) -> Point:
    """Build, time and close a point the gate let through (or launch it, for a workload with a Launch)."""
    point = estimated_point(workload, settings, device)
    if workload.launch is not None:
        return _launched(workload, [(point, settings)], device, timing, deadline_s=None)[0]
    try:
        point = point.with_notes(device_name=device_name(device))
        with built_step(workload, settings, device) as step:
            point = _timed(point, step, device, timing)
            if with_profile:
                point = _profiled(point, step, device, timing.num_threads)
            if check and step.check is not None:
                step.check()
    except AssertionError as err:
        point = point.refused(Status.ERROR, f"result check failed: {err}")
    except Exception as err:
        first_line = str(err).splitlines()[0] if str(err) else ""
        if is_out_of_memory(err):
            point = point.refused(Status.OOM, f"ran out of memory on {device}: {first_line[:200]}")
        else:
            point = point.refused(Status.ERROR, f"{type(err).__name__}: {first_line[:300]}")
    return point


def _timed(point: Point, step, device: str, timing: Timing) -> Point:
    """The point with the step's Measurement in it: time, spread, counts, phases, and what the step reports."""
    m = time_step(
        step.run,
        device,
        budget_s=timing.budget_s,
        num_threads=timing.num_threads,
        synchronized=step.synchronized,
        slow_call_s=timing.slow_call_s,
        single_call_s=timing.single_call_s,
    )
    point = replace(point, median_s=m.median_s, iqr_s=m.iqr_s, repeats=m.repeats, cold_s=m.cold_s)
    point = point.with_counts(calls_per_repeat=m.calls_per_repeat, num_threads=m.num_threads)
    if m.median_s > 0:
        point = point.with_counts(achieved_flops_per_s=point.counts.flops / m.median_s)
    point = point.reported(step.units)
    if "steps_per_epoch" in step.units:
        point = replace(point, epoch_s=m.median_s * step.units["steps_per_epoch"])
    if timing.with_phases and step.phases:
        phases = time_phases(
            step.phases, device, budget_s=max(timing.budget_s / 4, 0.05), num_threads=timing.num_threads
        )
        overhead = max(0.0, m.median_s - sum(phases.values()))
        point = replace(point, phases=point.phases.with_(**phases, overhead=overhead))
    # a step's scalar extras it does not already carry (its notes, a weights checksum); lists stay in the step
    point = point.reported({k: v for k, v in step.extras.fields().items() if not point.carries(k)})
    if m.note:
        return replace(point, message=m.note)
    if m.spread_ratio > 0.5:
        return replace(point, message=f"noisy: the spread (IQR) is {m.spread_ratio:.0%} of the median")
    return point


def profile_point(point: Point, workload: Workload, settings: Settings, device: str, num_threads: int | None) -> Point:
    """The measured point with the kernel count and busy time of one warm step (the step is built again)."""
    if workload.launch is not None:  # build() here is not the step its processes timed
        return point.remarked(" (no kernel count: this workload runs in processes of its own)")
    try:
        with built_step(workload, settings, device) as step:
            return _profiled(point, step, device, num_threads)
    except Exception as err:
        return point.remarked(f" (profile failed: {type(err).__name__})")


def _profiled(point: Point, step, device: str, num_threads: int | None) -> Point:
    """Kernels (CUDA) or operator calls (CPU) in one warm step, and how long the device was busy.
    On CUDA the busy time comes from the GPU's own clock; on the CPU the profiler slows every op,
    so the busy *fraction* of the profiled call is scaled by the unprofiled median."""
    try:
        with cpu_threads(num_threads):
            info = count_kernels(step.run, device)
    except Exception as err:
        return point.remarked(f" (kernel count failed: {type(err).__name__})")
    median = point.median_s
    busy = info["device_busy_s"] if str(device).startswith("cuda") else info.get("busy_fraction", 0.0) * median
    return point.with_counts(kernels=float(info["kernels"]), device_busy_s=float(min(busy, median)))


def _at(rule: AtFn | bool) -> AtFn:
    return rule if callable(rule) else (lambda _settings: bool(rule))


def run_points(request: RunRequest) -> list[Point]:
    """Measure every point on every device, one Point per (point, device), in that order."""
    workload, devices, on_point, progress = request.workload, request.devices, request.on_point, request.progress
    phases_at, profile_at = _at(request.with_phases), _at(request.with_profile)
    describe = request.describe or (lambda s: workload.name)
    gate = request.gate or recording_gate(memory_cap_gb=_cap(request.memory_cap_gb), budget_s=request.total_budget_s)
    total = max(1, len(request.points) * len(devices))
    started = time.perf_counter()
    done: list[Point] = []
    # Profiles come after every timing: once torch.profiler has traced CUDA, CUPTI stays attached to
    # the process and slows each later kernel launch (up to 2x on launch-bound steps: docs/profiler_after_effect.txt)
    to_profile: list[tuple[int, Settings, str]] = []
    # Points of a workload with a Launch are gated here in order, then launched a group at a time.
    to_launch: list[tuple[int, Settings, str]] = []
    for point in request.points:
        for device in devices:
            before = request.kept(point, device) if request.kept else None
            if before is not None:
                done.append(before)
                if on_point is not None:
                    on_point(before)
                continue
            if progress and workload.launch is None:
                what = describe(point) if isinstance(point, Settings) else "bad settings"
                progress(len(done) / total, f"measuring {what} on {device} ({len(done) + 1}/{total})")
            result = _one(request, point, device, gate=gate, phases_at=phases_at, measure=workload.launch is None)
            if request.swept:
                result = replace(result, swept=request.swept)
            if request.origin:
                result = replace(result, origin=request.origin)
            done.append(result)
            if result.status == Status.OK and isinstance(point, Settings):
                if workload.launch is not None:
                    to_launch.append((len(done) - 1, point, device))
                    continue
                if profile_at(point):
                    to_profile.append((len(done) - 1, point, device))
            if on_point is not None:
                on_point(result)
    _launch_groups(request, done, to_launch, gate=gate, phases_at=phases_at, total=total)
    for i, (at, point, device) in enumerate(to_profile):
        if progress:
            progress(len(done) / total, f"profiling {describe(point)} on {device} ({i + 1}/{len(to_profile)})")
        done[at] = profile_point(done[at], workload, point, device, request.num_threads)
    if progress:
        progress(1.0, f"done: {len(done)} points in {time.perf_counter() - started:.1f} s")
    return workload.summarise(done)


def _timing(request: RunRequest, with_phases: bool) -> Timing:
    return Timing(request.point_budget_s, request.num_threads, with_phases, request.slow_call_s, request.single_call_s)


def _one(
    request: RunRequest, point: Settings | Point, device: str, *, gate: Gate, phases_at: AtFn, measure: bool = True
) -> Point:
    """The point on this device: refused, or measured (measure=False: let through, to be launched later)."""
    workload = request.workload
    if not isinstance(point, Settings):  # an error point made where the settings were resolved
        return replace(point, device=device)
    refusal = gate.check(workload, point, device, rule=request.refuse)
    if refusal:
        return estimated_point(workload, point, device).refused(Status.SKIPPED, refusal.message)
    if not measure:
        return estimated_point(workload, point, device)
    return _measure(workload, point, device, _timing(request, phases_at(point)))


def _launch_groups(
    request: RunRequest,
    done: list[Point],
    todo: Sequence[tuple[int, Settings, str]],
    *,
    gate: Gate,
    phases_at: AtFn,
    total: int,
) -> None:
    """Launch the points the gate let through, one launch per group (Launch.group), in order, each
    result put in its place in `done`; a group reached after the time budget is used up is skipped
    with the gate's words."""
    workload, progress, on_point = request.workload, request.progress, request.on_point
    if not todo or workload.launch is None:
        return
    launch = workload.launch
    groups: dict[tuple, list[tuple[int, Settings]]] = {}
    for at, point, device in todo:
        groups.setdefault((device, launch.group(point, device), phases_at(point)), []).append((at, point))
    finished = total - len(todo)
    for (device, _, with_phases), members in groups.items():
        late = gate.time()
        if late:
            for at, _ in members:
                done[at] = done[at].refused(Status.SKIPPED, late.message)
        else:
            if progress:
                progress(
                    finished / total, f"{launch.describe([p for _, p in members], device)} ({finished + 1}/{total})"
                )
            left = None if gate.budget_s is None else gate.budget_s - gate.elapsed_s()
            results = _launched(
                workload, [(done[at], p) for at, p in members], device, _timing(request, with_phases), deadline_s=left
            )
            for (at, _), result in zip(members, results):
                done[at] = result
        finished += len(members)
        for at, _ in members:
            if on_point is not None:
                on_point(done[at])


def _launched(
    workload: Workload,
    members: Sequence[tuple[Point, Settings]],
    device: str,
    timing: Timing,
    *,
    deadline_s: float | None,
) -> list[Point]:
    """One Launch.run over the members' points; each result put into its point as _measure's would be."""
    assert workload.launch is not None
    results = workload.launch.run(
        [s for _, s in members],
        device,
        budget_s=timing.budget_s,
        num_threads=timing.num_threads,
        with_phases=timing.with_phases,
        deadline_s=deadline_s,
    )
    return [_with_launch_result(point, fields) for (point, _), fields in zip(members, results)]


def _with_launch_result(point: Point, result: Launched) -> Point:
    """A launched point's result (what its processes measured) put into the point."""
    point = result.into(point)
    if result.status != Status.OK:
        return point.refused(result.status, result.message)
    point = replace(point, message=result.message)
    median = point.median_s
    if median and median > 0:
        point = point.with_counts(achieved_flops_per_s=point.counts.flops / median)
        if (point.iqr_s or 0) / median > 0.5 and not point.message:
            point = replace(point, message=f"noisy: the spread (IQR) is {point.iqr_s / median:.0%} of the median")
    return point


def resolve_points(workload: Workload, given: Iterable[Mapping[str, SettingValue]]) -> list[Settings | Point]:
    """Each point's settings resolved once (the entry of a sweep); bad ones become error points."""
    points: list[Settings | Point] = []
    for params in given:
        try:
            points.append(workload.resolve(params))
        except SettingError as err:
            points.append(Point.new(workload.name, params, "").refused(Status.ERROR, str(err)))
    return points


def run_sweep(
    workload: Workload,
    over: str,
    values: Sequence[SettingValue],
    fixed: Mapping[str, SettingValue] | None,
    devices: Sequence[str],
    **options: Any,
) -> list[Point]:
    """Sweep `over` through `values` (the other settings `fixed`) on every device: run_points over
    one point per value, each marked swept=over. Options are RunRequest's."""
    setting = workload.setting(over)
    fixed = {k: v for k, v in (fixed or {}).items() if k != over}
    points = resolve_points(workload, ({**fixed, over: setting.parse(v)} for v in values))
    options.setdefault("describe", lambda s: f"{workload.name} {over}={s[over]}")
    return run_points(RunRequest(workload, tuple(points), tuple(devices), swept=over, **options))


def grid_points(
    workload: Workload, axes: Sequence[tuple[str, Sequence[SettingValue]]], fixed: Mapping[str, SettingValue] | None
) -> list[Settings | Point]:
    """Every combination of the axes' values (the first axis outermost), the other settings fixed."""
    combos: list[dict[str, SettingValue]] = [dict(fixed or {})]
    for name, values in axes:
        setting = workload.setting(name)
        combos = [{**c, name: setting.parse(v)} for c in combos for v in values]
    return resolve_points(workload, combos)
