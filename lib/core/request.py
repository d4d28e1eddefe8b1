"""A live measurement as one frozen value: the job the measuring process runs and, made from the
very same arguments, the key its result is cached under.

    request = LiveRequest.of(live_sweep, LiveSweep(workload, "batch_size", [1, 8, 64], fixed, ["cpu"], current=64),
                             LiveBudget(point_s=0.1, total_s=60.0, num_threads=1))
    request.key                        # what ui.measure caches the result under
    points = request(progress=report)  # in lib.core.worker: live_sweep(sweep, budget, progress=report)

A key written apart from its job forgets what the job is given (the data pipeline's key left out the
job's total budget, so two budgets shared one answer). Here the job's every argument (the workload,
its settings, the devices, the budgets, the threads) is in the key because the key is made from
them; what the job reads besides its arguments (the live work caps, lib.core.gate.live_max_flops)
is added. Equal keys are equal requests (and hash alike), so a request can itself be a key.

The job must be a module-level function (it is pickled into the measuring process with its
arguments). Plain dicts and lists among the arguments are copied when the request is made: a
caller changing its own dict afterwards changes neither the job nor the key.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, Generic, TypeVar

from lib.core.gate import live_max_flops
from lib.core.workload import Settings, Workload

R = TypeVar("R")  # what the job returns (live_sweep: its points)


@dataclasses.dataclass(frozen=True, eq=False)
class LiveRequest(Generic[R]):
    """job(*args, **options): one live measurement, and its cache key (`key`)."""

    job: Callable[..., R]
    args: tuple[Any, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()
    key: str = dataclasses.field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(_copy(a) for a in self.args))
        object.__setattr__(self, "options", tuple(sorted((str(k), _copy(v)) for k, v in self.options)))
        key = {
            "job": _name(self.job),
            "args": [_keyable(a) for a in self.args],
            "options": {k: _keyable(v) for k, v in self.options},
            "caps": live_max_flops(),
        }
        object.__setattr__(self, "key", json.dumps(key, sort_keys=True, default=repr))

    @classmethod
    def of(cls, job: Callable[..., R], *args: Any, **options: Any) -> LiveRequest[R]:
        return cls(job, args, tuple(options.items()))

    @property
    def kwargs(self) -> dict[str, Any]:
        """The job's keyword arguments."""
        return dict(self.options)

    def __call__(self, **callbacks: Any) -> R:
        """Run the job (in the measuring process), with the worker's callbacks (progress, on_point)."""
        return self.job(*self.args, **self.kwargs, **callbacks)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LiveRequest) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)


def _name(fn: Callable[..., Any]) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def _copy(value: Any) -> Any:
    """Plain containers copied all the way down; anything else (Settings, a workload, a preset) as it is."""
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_copy(v) for v in value)
    return value


def _keyable(value: Any) -> Any:
    """A value as JSON that says what it is: a workload by its name, settings with their workload's
    name, a dataclass by its type and fields, a function by its dotted name."""
    if isinstance(value, Workload):
        return {"workload": value.name}
    if isinstance(value, Settings):
        return {"settings": value.workload.name, "values": {str(k): _keyable(v) for k, v in value.items()}}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): _keyable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_keyable(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            "type": type(value).__qualname__,
            **{f.name: _keyable(getattr(value, f.name)) for f in dataclasses.fields(value)},
        }
    if callable(value) and hasattr(value, "__qualname__"):
        return _name(value)
    return value
