"""The Training page's "How each way of running the step moves the crossover": one GPU curve per
recorded execution mode against the answer's CPU curve, and each mode's step at the slider's point.

    modes = modes_view(view, gpu, screen)    # Modes, or None where fewer than two modes are recorded
    modes.rows()        # the curves, as lib.charts.provenance.curve_chart draws them
    modes.steps         # one StepBar per mode: its step here, with where the time came from
    modes.bar_rows()    # those bars, as lib.charts.steps.mode_steps_chart draws them
    modes.lines         # each mode's crossover, read from exactly those curves
    modes.step_lines    # what one CUDA graph saves, when a compile pays off: read from those bars

The words name the curves by their legend names and quote only the rows the two charts draw, so a
bullet never quotes a mode's step that no chart on the page shows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lib.core.rows import Origin
from lib.lessons.training import view as training_view
from lib.lessons.training import words
from lib.lessons.training.live_point import CurvePoint
from lib.lessons.training.screen import CurveName, Machine, Screen, chart_rows, curve_origin, label
from lib.lessons.training.step_point import NO_PROFILE, StepPoint


@dataclass
class Modes:
    curves: dict[CurveName, list[CurvePoint]] = field(default_factory=dict)  # the CPU curve, then one GPU curve a mode
    cpu_label: CurveName | None = None
    by_mode: dict[str, CurveName] = field(default_factory=dict)  # mode value -> its curve's legend name
    over: str = "batch_size"
    doubtful: dict[str, frozenset] = field(default_factory=dict)
    steps: list[StepBar] = field(default_factory=list)  # each mode's step at the slider's point (the bars)
    lines: list[str] = field(default_factory=list)
    step_lines: list[str] = field(default_factory=list)

    def rows(self) -> list[dict[str, Any]]:
        """The curves as the chart draws them (hollow: a point the noise rule does not believe, as on the main chart)."""
        return chart_rows(self.curves, self.doubtful, self.over)

    def bar_rows(self) -> list[dict[str, str | float | bool]]:
        """The bars as the chart draws them."""
        return [bar.to_row() for bar in self.steps]


@dataclass(frozen=True)
class StepBar:
    """One bar: a mode's step at the slider's point, where its time came from (`note` in full for the tooltip,
    `source` in short under the bar) and, for a compiled mode recorded with it, its first (compiling) step."""

    series: CurveName
    x: int
    step_s: float
    origin: Origin
    note: str
    source: str  # 'recorded on NVIDIA H200 (2026-11-23)', 'predicted by the cost model'
    kernels: float | None = None
    cold_s: float | None = None

    def to_row(self) -> dict[str, str | float | bool]:
        row: dict[str, str | float | bool] = {
            "series": self.series,
            "x": self.x,
            "step_s": self.step_s,
            "origin": self.origin.value,
            "note": self.note,
            "from": self.source,
            "predicted": self.origin == Origin.PREDICTED,
        }
        row.update((k, v) for k, v in (("kernels", self.kernels), ("cold_s", self.cold_s)) if v)
        return row


def has_modes(gpu: Machine | None, screen: Screen) -> bool:
    """Whether modes_view has anything to compare (two modes recorded on the sidebar's GPU and a CPU curve),
    without building its curves (on a Training visit they were 44 % of the server's work, for an expander
    few open)."""
    table = gpu.tables.get("cuda") if gpu else None
    return (
        len(training_view.modes_recorded(table)) >= 2
        and screen.cpu_label is not None
        and bool(screen.curves.get(screen.cpu_label))
    )


def modes_view(view: training_view.View, gpu: Machine | None, screen: Screen) -> Modes | None:
    """Each recorded mode's GPU curve against the answer's CPU curve (None: not has_modes)."""
    if not has_modes(gpu, screen):
        return None
    table = gpu.tables.get("cuda")
    cpu = screen.curves[screen.cpu_label]
    modes = training_view.modes_recorded(table)
    out = Modes(over=view.over, cpu_label=screen.cpu_label)
    out.curves[screen.cpu_label] = cpu
    here: dict[str, StepPoint | None] = {}  # each mode's step at the slider's point
    for mode in modes:
        points = training_view.curve(training_view.View(**{**view.__dict__, "mode": mode}), table, "cuda:0", gpu.words)
        if points:
            name = label("GPU", training_view.mode_label(mode), *curve_origin(points))
            out.curves[name], out.by_mode[mode] = list(points), name
            here[mode] = next((p for p in points if p.settings.get(view.over) == view.current), None)
    out.doubtful = {name: words.doubt(points, view.over) for name, points in out.curves.items()}
    out.lines = [
        words.mode_line(out.curves[screen.cpu_label], out.curves[name], view, screen.cpu_label, name).markdown()
        for name in out.by_mode.values()
    ]
    out.steps = [
        step_bar(step, name, view.current, mode in training_view.COMPILED_MODES)
        for mode, name in out.by_mode.items()
        if (step := here[mode]) is not None and _timed(step)
    ]
    out.step_lines = _step_lines(here)
    return out


def _timed(step: StepPoint) -> bool:
    """Whether the step holds a positive, finite time (a bar can be drawn of it)."""
    return math.isfinite(step.median_s) and step.median_s > 0


def step_bar(step: StepPoint, name: CurveName, x: int, compiled: bool = False) -> StepBar:
    """A mode's bar from its step at the slider's point; a compiled mode's first (compiling) step is the one
    the compile's payback quotes (a predicted step carries no profile)."""
    note = step.origin_note or words.origin_words(step)
    # in short, under the bar: how the time was had, and the recording it came from (its note in full: the tooltip)
    short = {
        Origin.PREDICTED: "predicted by the cost model",
        Origin.DERIVED: f"derived from a step recorded on {step.machine}",
    }.get(step.origin, f"recorded on {step.machine}")
    profile = NO_PROFILE if step.predicted else step.profile
    kernels, cold = profile.kernels, profile.cold_s if compiled else None
    return StepBar(
        name,
        x,
        float(step.median_s),
        step.origin,
        note,
        short,
        float(kernels) if kernels else None,
        float(cold) if cold else None,
    )


def _step_lines(steps: Mapping[str, StepPoint | None]) -> list[str]:
    """What one CUDA graph saves and when a compile pays off, read from each mode's step at the slider's point."""
    lines = []
    if saving := words.graph_saving(steps.get("eager"), steps.get("cuda_graph")):
        lines.append(saving)
    for mode in training_view.COMPILED_MODES:
        if payback := words.compile_payback(steps.get("eager"), steps.get(mode)):
            lines.append(f"{training_view.mode_label(mode)}: {payback}")
    return lines
