"""What a sweep is asked: the points, devices and budgets of one run of lib.core.sweep.run_points, and
the callbacks it reports to, as one frozen request; and how each point is timed (Timing)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lib.core.gate import Gate
from lib.core.point import Point
from lib.core.rows import Origin
from lib.core.workload import Settings, Workload

ProgressFn = Callable[[float, str], None]
PointFn = Callable[[Point], None]
RefuseFn = Callable[[Settings, str], "str | None"]
AtFn = Callable[[Settings], bool]

FROM_ENV = object()  # memory_cap_gb default: read $GPUWIN_MEMORY_CAP_GB when the call is made


@dataclass(frozen=True)
class Timing:
    """How one point is timed: lib.core.timing.time_step's budget, threads and slow-step thresholds."""

    budget_s: float
    num_threads: int | None
    with_phases: bool
    slow_call_s: float | None = None
    single_call_s: float | None = None


@dataclass(frozen=True)
class RunRequest:
    """What run_points measures, within which budgets, and whom it tells as it goes.

    A point is a resolved Settings, or an error Point already made (settings that did not resolve).
    `gate` (lib.core.gate) is asked before each point is built; without one, a recording's gate with
    `memory_cap_gb` and `total_budget_s`. `with_phases` / `with_profile` say where phases and kernel
    counts are measured (a bool, or a function of the settings). slow_call_s / single_call_s: see
    lib.core.timing.time_step.

    Callbacks: `refuse(settings, device)` may refuse a point before it is allocated (e.g. a live work
    cap); `on_point` gets each point as soon as it is complete; `progress` gets (fraction done,
    message); `kept(point, device)` may give a point measured before (a resumed recording), taken as
    it is; `describe(settings)` names a point in the progress lines."""

    # what to measure
    workload: Workload
    points: tuple[Settings | Point, ...]
    devices: tuple[str, ...]
    with_phases: AtFn | bool = True
    with_profile: AtFn | bool = False
    swept: str | None = None
    origin: Origin | None = None
    # budgets
    point_budget_s: float = 1.0
    total_budget_s: float | None = None
    memory_cap_gb: Any = FROM_ENV
    num_threads: int | None = None
    slow_call_s: float | None = None
    single_call_s: float | None = None
    gate: Gate | None = None
    # callbacks
    refuse: RefuseFn | None = None
    describe: Callable[[Settings], str] | None = None
    progress: ProgressFn | None = None
    on_point: PointFn | None = None
    kept: Callable[[Settings | Point, str], Point | None] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "points", tuple(self.points))
        object.__setattr__(self, "devices", tuple(self.devices))
        if self.origin is not None:
            object.__setattr__(self, "origin", Origin(self.origin))
