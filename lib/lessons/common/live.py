"""The app's live-measurement policy: quick enough for a web page, honest about what was not run.

live_sweep(LiveSweep(...), LiveBudget(...)) is lib.core.sweep.run_sweep with these hooks, all for a page
that must answer within seconds on a small shared server:
- phases (transfer / compute / overhead) and a kernel count are measured only at the point
  the user is looking at (`current`), not at every point of the curve;
- the live gate (lib.core.gate): the memory cap, a per-device cap on the work of one step
  (FLOPs) and a total time budget; points it refuses become `skipped` rows that say so, instead
  of holding the server for minutes. The page's timeline (live_timeline) asks the same gate.

Every point is a normal result point (lib.core.point.Point), with swept=<setting> and origin='live'.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from lib.core.devices import torch_default_threads
from lib.core.fmt import fmt_value
from lib.core.gate import Gate, live_gate, live_max_flops
from lib.core.point import Point
from lib.core.profiling import count_kernels
from lib.core.rows import Origin
from lib.core.step_timeline import Timeline
from lib.core.sweep import run_sweep
from lib.core.timeline import timeline_point
from lib.core.timing import cpu_threads
from lib.core.workload import Settings, SettingValue, Workload, built_step

ProgressFn = Callable[[float, str], None]
PointFn = Callable[[Point], None]

# PyTorch's CPU thread count when the app started (a measurement may change it for a while).
TORCH_DEFAULT_THREADS = torch_default_threads()


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
LIVE_TIMELINE_BUDGET_S = 20.0  # one step's timeline on a page: a few warm steps, each under the work cap

# Most floating-point work one step may take in a live run, per device kind (lib.core.gate): part of
# every live measurement's cache key, so a server started with other caps measures again.
LIVE_MAX_FLOPS = live_max_flops()


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


def work_refusal(workload: Workload, settings: Settings, device: str, caps: dict[str, float] | None) -> str | None:
    """Why a point is too much work to time live on this device, or None (the gate's work question)."""
    refusal = Gate(max_flops=LIVE_MAX_FLOPS if caps is None else caps).work(workload, settings, device)
    return refusal.message if refusal else None


@dataclass(frozen=True)
class LiveSweep:
    """What a live sweep measures: `over` through `values` (the other settings `fixed`) on every device.
    Phases and the kernel profile only where the value is `current` (None: nowhere; profiling a grid
    point costs more than timing it) and profile_current allows it; `refuse` says why a point is not
    to be run, as the live gate does. The containers are copied: a caller changing its own dict
    afterwards changes neither the sweep nor a request's key made from it (lib.core.request)."""

    workload: Workload
    over: str
    values: Sequence[SettingValue]
    fixed: Mapping[str, SettingValue] | None
    devices: Sequence[str]
    current: SettingValue | None = None
    profile_current: bool = True
    refuse: Callable[[Settings, str], str | None] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(self.values))
        object.__setattr__(self, "fixed", None if self.fixed is None else dict(self.fixed))
        object.__setattr__(self, "devices", tuple(self.devices))


@dataclass(frozen=True)
class LiveBudget:
    """What a live sweep may spend: seconds per point and in all (None: no total), CPU threads (None: as
    the process has them), and the live gate's caps (None: the server's, lib.core.gate)."""

    point_s: float = 0.15
    total_s: float | None = 60.0
    num_threads: int | None = None
    max_flops: dict[str, float] | None = None
    memory_cap_gb: float | None = None


class LiveCurve(NamedTuple):
    """A live sweep's points as a page gets them, and when they were measured (seconds since the epoch;
    None while they come in): the words say their age ('measured live 3 min ago')."""

    points: tuple[Point, ...] = ()
    measured_at: float | None = None


def live_sweep(
    sweep: LiveSweep,
    budget: LiveBudget = LiveBudget(),
    *,
    progress: ProgressFn | None = None,
    on_point: PointFn | None = None,
) -> list[Point]:
    """The sweep, one point per (value, device), marked origin='live'; points the live gate refuses
    (lib.core.gate: memory, work, sweep.refuse, the budget's time) are skipped. progress(fraction,
    message) before each point and on_point(point) after it (lib.core.sweep.run_points)."""
    workload, over = sweep.workload, sweep.over
    current = None if sweep.current is None else workload.setting(over).parse(sweep.current)
    gate = live_gate(budget_s=budget.total_s, memory_cap_gb=budget.memory_cap_gb, max_flops=budget.max_flops)

    # Not on a live GPU: after a CUDA trace the profiler stays attached to the server process and slows
    # every later launch, so each visitor's next live timing would be too slow (recorded rows carry the profile).
    profile = sweep.profile_current and not any(str(d).startswith("cuda") for d in sweep.devices)
    return run_sweep(
        workload,
        over,
        sweep.values,
        sweep.fixed,
        sweep.devices,
        point_budget_s=budget.point_s,
        gate=gate,
        num_threads=budget.num_threads,
        with_phases=lambda s: s[over] == current,
        with_profile=lambda s: profile and s[over] == current,
        refuse=sweep.refuse,
        origin=Origin.LIVE,
        describe=lambda s: f"{over.replace('_', ' ')} {fmt_value(s[over])}",
        progress=progress,
        on_point=on_point,
    )


def live_timeline(
    workload: Workload,
    settings: Settings,
    device: str,
    *,
    steps: int = 3,
    num_threads: int | None = None,
    budget_s: float | None = LIVE_TIMELINE_BUDGET_S,
    progress: ProgressFn | None = None,
) -> Timeline:
    """The timeline of one point for a page (lib.core.timeline.timeline_point) behind the live gate:
    the work and memory caps, a time budget, and a report between steps where a visitor who left
    cancels it (lib.core.worker)."""
    gate = live_gate(budget_s=budget_s)
    return timeline_point(
        workload, settings, device, steps=steps, num_threads=num_threads, gate=gate, progress=progress
    )


def warm_up(
    workload: Workload,
    params: Mapping[str, SettingValue] | None = None,
    device: str = "cpu",
    num_threads: int | None = None,
    calls: int = 3,
) -> None:
    """Pay the process's one-off costs (first kernels, allocator, optimizer set-up, the profiler's
    own start-up) before a visitor waits for them. Measures nothing."""
    with built_step(workload, workload.resolve(params or {}), device) as step, cpu_threads(num_threads):
        for _ in range(calls):
            step.run()
        count_kernels(step.run, device)
