"""A model family the Training page can switch between: one record, declared by its workload module.

    step_terms, structural_kernels = lib.workloads.traced.family_terms(WORKLOAD)
    FAMILY = TrainingFamily(WORKLOAD, "MLP", axes=(...), width="hidden_width", depth="depth",
                            step_terms=step_terms, structural_kernels=structural_kernels)

The Training lesson (lib.lessons.training) reads only this record: its sliders are the family's
axes, a recorded step is keyed by (rows, width, depth) where `width` and `depth` name the family's
own settings (an MLP's hidden width and its hidden layers; a CNN's channels and its blocks), and
the machine's cost model prices a step with the family's counted terms. So adding a family is
its workload module (with this record, listed in lib.workloads.FAMILIES) and its recording.

A family's step must take the page's switches and modes as settings (data_resident,
item_every_step, pin_memory, mode), as lib.workloads.mlp's does: the page's pitfalls and ways of
running the step are the same for every family.

A family may also have choices: settings that pick another model rather than a point along a
curve (torchvision's network, a transformer's sequence length). Each value is a model of its own,
recorded and predicted apart: `family.pick(model="resnet18")` is the family with that value fixed
(one record per value, so views and caches keyed by it stay the same), and its `key` names it.
A family whose structure has no repeated layers to count (a torchvision network) has no depth.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from lib.core.point import Frozen
from lib.core.workload import Workload

SWITCHES = ("data_resident", "item_every_step", "pin_memory")  # every family's step takes these, and `mode`
NO_DEPTH = 1  # the depth in the step key of a family without a depth setting: one fixed structure


@dataclass(frozen=True)
class Axis:
    """One setting the page sweeps: its slider's steps (the x-axis when chosen) and what it means."""

    label: str
    steps: tuple[int, ...]
    sentence: str


@dataclass(frozen=True)
class Choice:
    """A setting that picks another model (not a slider along a curve): its options and their words."""

    label: str  # 'network'
    options: tuple[Any, ...]
    sentence: str
    url: str  # its key in the page's URL ('network': the page's own 'model' names the family)
    words: Mapping[Any, str] = field(default_factory=dict)  # how an option is shown ('ResNet-18'); else as it is

    def show(self, value: Any) -> str:
        return self.words.get(value, f"{value:,}" if isinstance(value, int) else str(value))


@dataclass(frozen=True)
class Grid:
    """A family's coarse recording (scripts/record_packs.py): each mode over batches x widths x depths,
    profiled after timing, at each value of its choices (the MLP's dense grids are its own jobs)."""

    batches: tuple[int, ...]
    widths: tuple[int, ...]
    depths: tuple[int, ...] = (NO_DEPTH,)
    modes: tuple[str, ...] = ("eager", "cuda_graph", "compile")
    picks: tuple[Mapping[str, Any], ...] = ({},)  # the choices recorded (each a grid of its own): the defaults


@dataclass(frozen=True, eq=False)  # one record per family: compared and hashed as itself
class TrainingFamily:
    workload: Workload
    label: str  # how the page names it ('MLP')
    axes: Mapping[str, Axis]  # the page's sliders, in order: batch_size and dataset_size, and its shape
    width: str  # the setting that sizes each layer's work (with the rows): a step's key is (rows, width, depth)
    depth: str | None  # the setting that repeats layers: its kernels are counted, so any depth is predicted
    step_terms: Callable[
        ..., dict[str, float]
    ]  # lib.core.costmodel's terms of one step (lib.workloads.traced.family_terms)
    structural_kernels: Callable[[Mapping[str, Any]], float]  # kernels per step, from the structure alone
    # the shipped recordings' Training grids (scripts/record_packs.py): swept setting -> values
    recorded_sweeps: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    # where its GPU timelines are recorded (one step's CPU thread against its GPU stream): batches x widths
    timeline_batches: tuple[int, ...] = ()
    timeline_widths: tuple[int, ...] = ()
    choices: Mapping[str, Choice] = field(default_factory=dict)  # settings that pick another model
    fixed: Mapping[str, Any] = field(default_factory=dict)  # the choices this record fixes (pick())
    grid: Grid | None = None  # its coarse recording; None: the MLP's own dense grids

    def __repr__(self) -> str:  # a view's repr names its family, not every slider step
        return f"TrainingFamily({self.key})"

    @property
    def name(self) -> str:
        return self.workload.name

    @property
    def key(self) -> str:
        """The workload's name and every choice's value: 'torchvision:resnet18' (caches are keyed by it)."""
        return ":".join([self.name, *(str(self.default(k)) for k in self.choices)])

    def pick(self, **values: Any) -> TrainingFamily:
        """The family with these choices fixed: the same record for the same values (so views compare)."""
        unknown = set(values) - set(self.choices)
        if unknown:
            raise TypeError(f"{self.label} has no choice {', '.join(sorted(unknown))}")
        for k, v in values.items():
            if v not in self.choices[k].options:
                raise ValueError(f"{self.label}: {k}={v!r} is not one of {self.choices[k].options}")
        fixed = {**self.fixed, **values}
        base = self._picks.get("", self)
        key = tuple(sorted((k, v) for k, v in fixed.items() if v != base.workload.defaults()[k]))
        if key not in base._picks:
            base._picks[key] = replace(base, fixed=dict(key))
            base._picks[key]._picks[""] = base
        return base._picks[key]

    def every_pick(self) -> list[TrainingFamily]:
        """The family at every value of its choices (itself alone when it has none)."""
        names = list(self.choices)
        return [
            self.pick(**dict(zip(names, values)))
            for values in itertools.product(*(self.choices[k].options for k in names))
        ]

    @property
    def named(self) -> str:
        """How sentences name it: its label, with each choice's value ('torchvision model (ResNet-18)')."""
        if not self.choices:
            return self.label
        return f"{self.label} ({', '.join(c.show(self.default(k)) for k, c in self.choices.items())})"

    @cached_property
    def _picks(self) -> dict[Any, TrainingFamily]:  # the base record's picks, and each pick's base
        return {(): self} if not self.fixed else {}

    def default(self, name: str) -> Any:
        """A setting's default as the workload declares it, or as this record fixes it (the page never
        types one again)."""
        return self._defaults[name]

    @cached_property
    def _defaults(self) -> Frozen:  # read for every view the page builds: looked up once
        return Frozen({**self.workload.defaults(), **self.fixed})

    def page_settings(self) -> tuple[str, ...]:
        """The settings the page moves: its axes, the switches and the mode."""
        return (*self.axes, *SWITCHES, "mode")

    def page_defaults(self) -> Frozen:
        """Every other setting, at the workload's default on this page (recorded rows must match them)."""
        moved = set(self.page_settings())
        return Frozen((k, v) for k, v in self._defaults.items() if k not in moved)

    def depth_of(self, settings: Mapping[str, Any]) -> int:
        return int(settings[self.depth]) if self.depth else NO_DEPTH

    def step_key(self, settings: Mapping[str, Any]) -> tuple[int, int, int]:
        """(rows, width, depth) of a step: the rows one step trains (the batch, or the whole dataset
        when the batch is larger), and the family's two shape settings. KeyError, TypeError or
        ValueError for a row without them."""
        rows = min(int(settings["batch_size"]), int(settings["dataset_size"]))
        return rows, int(settings[self.width]), self.depth_of(settings)
