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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from lib.core.workload import Workload

SWITCHES = ("data_resident", "item_every_step", "pin_memory")  # every family's step takes these, and `mode`


@dataclass(frozen=True)
class Axis:
    """One setting the page sweeps: its slider's steps (the x-axis when chosen) and what it means."""

    label: str
    steps: tuple[int, ...]
    sentence: str


@dataclass(frozen=True, eq=False)  # one record per family: compared and hashed as itself
class TrainingFamily:
    workload: Workload
    label: str  # how the page names it ('MLP')
    axes: Mapping[str, Axis]  # the page's sliders, in order: batch_size and dataset_size, and its shape
    width: str  # the setting that sizes each layer's work (with the rows): a step's key is (rows, width, depth)
    depth: str  # the setting that repeats layers: its kernels are counted, so any depth is predicted
    step_terms: Callable[..., dict[str, float]]  # lib.core.costmodel's terms of one step (lib.workloads.traced.family_terms)
    structural_kernels: Callable[[Mapping[str, Any]], float]  # kernels per step, from the structure alone
    # the shipped recordings' Training grids (scripts/record_packs.py): swept setting -> values
    recorded_sweeps: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    # where its GPU timelines are recorded (one step's CPU thread against its GPU stream): batches x widths
    timeline_batches: tuple[int, ...] = ()
    timeline_widths: tuple[int, ...] = ()

    def __repr__(self) -> str:  # a view's repr names its family, not every slider step
        return f"TrainingFamily({self.name})"

    @property
    def name(self) -> str:
        return self.workload.name

    def default(self, name: str) -> Any:
        """A setting's default as the workload declares it (the page never types one again)."""
        return self._defaults[name]

    @cached_property
    def _defaults(self) -> dict[str, Any]:  # read for every view the page builds: looked up once
        return self.workload.defaults()

    def page_settings(self) -> tuple[str, ...]:
        """The settings the page moves: its axes, the switches and the mode."""
        return (*self.axes, *SWITCHES, "mode")

    def page_defaults(self) -> dict[str, Any]:
        """Every other setting, at the workload's default on this page (recorded rows must match them)."""
        moved = set(self.page_settings())
        return {k: v for k, v in self.workload.defaults().items() if k not in moved}

    def step_key(self, settings: Mapping[str, Any]) -> tuple[int, int, int]:
        """(rows, width, depth) of a step: the rows one step trains (the batch, or the whole dataset
        when the batch is larger), and the family's two shape settings. KeyError, TypeError or
        ValueError for a row without them."""
        rows = min(int(settings["batch_size"]), int(settings["dataset_size"]))
        return rows, int(settings[self.width]), int(settings[self.depth])
