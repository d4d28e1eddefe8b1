"""The shape every workload has, so pages, sweeps, the CLI and tests treat them alike.

A workload declares its settings (with ranges and defaults), builds one step for a device,
estimates FLOPs, bytes moved and peak memory, and checks its own result.

Settings are resolved once, where a request enters (the CLI, a page, a sweep):

    settings = workload.resolve({"batch_size": "64"})    # parsed, range-checked, cross-checked: a Settings
    wider = settings.replace(hidden_width=256)           # a new Settings, checked again
    with built_step(workload, settings, "cpu") as step:  # build -> close -> free memory
        step.run()

Everything below the entry takes the Settings as it is and never re-resolves a dict.
"""

from __future__ import annotations

import contextlib
import gc
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from lib.core.gc_scope import frozen_heap
from lib.core.point import Point, SettingValue  # SettingValue: defined beside Point, whose settings hold it
from lib.core.rows import Status


class SettingError(ValueError):
    """A setting's value is missing, malformed or out of range; the message says which."""


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def parse_bool(raw: Any) -> bool:
    """True or False from a bool or its words in a URL or on a command line ('on', 'false', '1');
    ValueError for anything else. The one reading of a switch, for settings and URL widgets alike."""
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(raw)


@dataclass(frozen=True)
class Setting:
    """One knob of a workload. `choices` for a fixed set; `minimum`/`maximum` for numbers.
    `log` says the range spans decades (sliders and sweeps should be log-spaced)."""

    name: str
    default: SettingValue
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple | None = None
    log: bool = False

    @property
    def kind(self) -> type:
        return type(self.default)

    def parse(self, raw: Any) -> Any:
        """Coerce a value (a string from the CLI or a URL, or a Python value) and check its range."""
        kind = self.kind
        try:
            if kind is bool:
                value = parse_bool(raw)
            elif kind is int:
                as_float = float(raw)
                if not as_float.is_integer():
                    raise ValueError
                value = int(as_float)
            elif kind is float:
                value = float(raw)
            else:
                value = str(raw).strip()
        except (TypeError, ValueError):
            raise SettingError(f"{self.name}: expected {kind.__name__}, got {raw!r}") from None
        if kind is float and not math.isfinite(value):  # NaN passes every range check, and no pack holds it
            raise SettingError(f"{self.name}: expected a finite number, got {raw!r}")
        if self.choices is not None and value not in self.choices:
            options = ", ".join(str(c) for c in self.choices)
            raise SettingError(f"{self.name}: {value!r} is not one of {options}")
        if self.minimum is not None and value < self.minimum:
            raise SettingError(f"{self.name}: {value} is below the minimum {self.minimum:g}")
        if self.maximum is not None and value > self.maximum:
            raise SettingError(f"{self.name}: {value} is above the maximum {self.maximum:g}")
        return value


class Settings(dict):
    """One workload's settings, every value parsed and range-checked and the whole cross-checked.

    Made only by Workload.resolve; immutable. A dict (so rows, JSON and `{**settings}` take it as
    it is) that also reads as an object (settings.depth) and knows its workload."""

    __slots__ = ("workload",)

    def __init__(self, workload: Workload, values: Mapping[str, Any]) -> None:
        super().__init__(values)
        object.__setattr__(self, "workload", workload)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{self.workload.name} has no setting '{name}'") from None

    def _immutable(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("Settings are immutable: use replace()")

    __setitem__ = __delitem__ = __setattr__ = _immutable
    clear = pop = popitem = setdefault = update = _immutable  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Settings) and other.workload.name != self.workload.name:
            return False
        return dict.__eq__(self, other)

    def __hash__(self) -> int:  # type: ignore[override]
        return hash((self.workload.name, tuple(sorted((k, repr(v)) for k, v in self.items()))))

    def __repr__(self) -> str:
        return f"Settings({self.workload.name}, {dict.__repr__(self)})"

    def __reduce__(self) -> tuple:
        return (Settings, (self.workload, dict(self)))

    def replace(self, **changes: Any) -> Settings:
        """These settings with some values changed, resolved (and so checked) again."""
        return self.workload.resolve({**self, **changes})


@dataclass(frozen=True)
class Extras:
    """What a built step says besides its time. The scalar ones that are set become the point's fields of
    the same name where it has none (note and data_note: reserved row fields; data: the data set that
    really ran, a setting); the rest stay with the step: its loss per epoch (filled in as it runs) and a
    workload's own account of what one call computes (`detail`: the Jacobian's JacobianCounts)."""

    note: str | None = None
    data_note: str | None = None
    data: str | None = None
    initial_weights_abs_sum: float | None = None
    epoch_losses: list[float] | None = None
    detail: object | None = None

    def fields(self) -> dict[str, SettingValue]:
        """The scalar ones that are set, by their row names."""
        named = {
            "note": self.note,
            "data_note": self.data_note,
            "data": self.data,
            "initial_weights_abs_sum": self.initial_weights_abs_sum,
        }
        return {k: v for k, v in named.items() if v is not None}


@dataclass
class Step:
    """One unit of work on one device, ready to time.

    run: the call that is timed (one training step, one matmul, one epoch of loading...).
    phases: optional parts of it, each timed on its own (e.g. 'transfer', 'compute').
    units: how to turn per-call time into the numbers people quote, e.g.
        {"steps_per_epoch": 469} -> epoch_s = median_s * 469.
    check: raises AssertionError if the work computed something wrong.
    extras: what the step says besides its time (notes, the data that ran, its loss curve): Extras.
    synchronized: False for the deliberately naive timing variant (matmul sync=false).
    """

    run: Callable[[], Any]
    phases: dict[str, Callable[[], Any]] = field(default_factory=dict)
    units: dict[str, float] = field(default_factory=dict)
    check: Callable[[], None] | None = None
    extras: Extras = field(default_factory=Extras)
    synchronized: bool = True
    close: Callable[[], None] | None = None


class Launched(Protocol):
    """What a Launch made of one point: its status and message, and what it measured put into the point."""

    @property
    def status(self) -> Status: ...

    @property
    def message(self) -> str: ...

    def into(self, point: Point) -> Point: ...


class Launch:
    """How a workload whose points run in processes of its own (ddp: one torchrun launch of `gpus`
    processes) times them. The sweep engine (lib.core.sweep) still resolves, gates, orders, budgets
    and records every point; only the timing is handed here, a group of points at a time, because
    a launch costs seconds and points of one group share it."""

    def group(self, settings: Settings, device: str) -> Any:
        """What points must share to be measured in one launch (hashable)."""
        raise NotImplementedError

    def describe(self, points: Sequence[Settings], device: str) -> str:
        """The progress line while a group runs."""
        return f"{len(points)} point(s) on {device}"

    def run(
        self,
        points: Sequence[Settings],
        device: str,
        *,
        budget_s: float,
        num_threads: int | None,
        with_phases: bool,
        deadline_s: float | None,
    ) -> Sequence[Launched]:
        """One outcome per point, in order; never raises for the work itself. `deadline_s`: seconds
        left of the caller's time budget, or None."""
        raise NotImplementedError


class Workload:
    """Subclass per workload; pages and the CLI use only these members."""

    name: str = ""
    title: str = ""
    description: str = ""
    settings: Sequence[Setting] = ()
    call: str = "step"  # what one timed call is, in words ('epoch' for the data pipeline): '5 GFLOP per epoch'
    # None: each point is built and timed in the sweep's own process (every workload but ddp)
    launch: Launch | None = None

    # -- settings --------------------------------------------------------------------------
    def setting(self, name: str) -> Setting:
        for s in self.settings:
            if s.name == name:
                return s
        known = ", ".join(s.name for s in self.settings)
        raise SettingError(f"{self.name} has no setting '{name}' (it has: {known})")

    def defaults(self) -> dict[str, SettingValue]:
        """Each setting at its default: a new dict the caller may fill in."""
        return {s.name: s.default for s in self.settings}

    def resolve(self, given: Mapping[str, Any] | None = None) -> Settings:
        """Defaults overlaid with `given`, each parsed and range-checked, then completed and
        cross-checked. Settings of this workload come back as they are: they were resolved once."""
        if isinstance(given, Settings) and given.workload.name == self.name:
            return given
        params = self.defaults()
        for key, raw in (given or {}).items():
            params[key] = self.setting(key).parse(raw)
        self.complete(params)
        self.validate(params)
        return Settings(self, params)

    def complete(self, params: dict[str, SettingValue]) -> None:
        """Fill in values that follow from others (e.g. a data set's shape). Override where needed."""

    def validate(self, params: Mapping[str, Any]) -> None:
        """Cross-setting checks; raise SettingError. Override where settings interact."""

    def refusal(self, settings: Settings, device: str) -> str | None:
        """Why these settings cannot run on `device` at all (e.g. a CUDA graph on the CPU), or None."""
        return None

    def estimated(self, point: Point, settings: Settings, device: str) -> Point:
        """The point before it runs with what this workload knows of it beyond FLOPs, bytes and peak
        memory (nothing by default)."""
        return point

    def summarise(self, points: list[Point]) -> list[Point]:
        """Fields that need several points of one run (ddp: scaling efficiency against the gpus=1
        point), added when the run ends; the points as they are by default."""
        return points

    # -- the work --------------------------------------------------------------------------
    def build(self, params: Settings, device: str) -> Step:
        raise NotImplementedError

    def flops(self, params: Settings) -> float:
        """Floating-point operations in one call of the step."""
        raise NotImplementedError

    def bytes_moved(self, params: Settings) -> float:
        """Least bytes one call must read and write (memory traffic, plus host-device copies)."""
        raise NotImplementedError

    def peak_memory_bytes(self, params: Settings, device: str) -> float:
        """Estimated peak memory of building and running the step, checked before allocating."""
        raise NotImplementedError

    def cost_terms(self, params: Settings) -> tuple[dict[str, float], dict[str, float]]:
        """What a step's time is made of, for lib.core.costmodel: terms of issuing the work (a fixed
        cost, plus per-launch-like counts where the workload has them) and of doing it."""
        return {"1": 1.0}, {"flops": float(self.flops(params)), "bytes": float(self.bytes_moved(params))}


# What a timed, phased and profiled point holds on the host beside its own tensors: the allocator's
# freed blocks not yet returned (glibc keeps tensors under 32 MiB in its heap), the profiler's events,
# autograd's bookkeeping; 2-65 MB measured on the CPU (docs/memory_estimates.txt). Workloads add it
# to their peak memory estimate.
RUNTIME_BYTES = 96e6


def free_memory() -> None:
    """Collect what the last step left behind, and hand cached CUDA blocks back to the driver."""
    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


@contextlib.contextmanager
def built_step(workload: Workload, settings: Settings, device: str) -> Iterator[Step]:
    """Build the step, hand it to the body, then close it and free its memory, whatever happens. The heap is
    frozen meanwhile (lib.core.gc_scope), so freeing walks the step's own objects, not every import's."""
    with frozen_heap():
        step = workload.build(settings, device)
        try:
            yield step
        finally:
            if step.close is not None:
                step.close()
            del step
            free_memory()
