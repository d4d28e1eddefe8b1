"""One machine's recorded training steps, as the Training page looks them up: a StepTable per family,
machine and kind of device, keyed by the configuration that decides a step's time (step_config) and its
(rows, width, depth), with the machine's cost model for the steps nobody recorded. A step is the recorded
Point (lib.recorded's, typed once when its pack was parsed).

No Streamlit: lib.lessons.training.view draws its curves from these tables.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from lib.core.cache import kept
from lib.core.point import OtherRecording, Point
from lib.lessons.training.model import MachineModel
from lib.recorded.recording import Recording
from lib.recorded.sources import machine_text, recorded_sources, small_server_recording, source_recording
from lib.workloads import FAMILIES, execution, mlp
from lib.workloads.family import TrainingFamily

EXTRAPOLATE = 8  # a prediction may reach this many times beyond the recorded batch rows, no further


def step_config(settings: Mapping[str, Any], device_kind: str) -> tuple:
    """What decides a step's time besides its rows, width and depth. On a GPU: the switches and the
    mode (pinning only matters when batches are copied). On a CPU the switches change nothing (a
    copy to the CPU is no copy, item() there waits for nothing), so only the mode counts."""
    mode = settings.get("mode", "eager")
    if device_kind == "cpu":
        return (mode,)
    resident = bool(settings.get("data_resident", True))
    pinned = bool(settings.get("pin_memory", False)) and not resident
    return (mode, resident, pinned, bool(settings.get("item_every_step", False)))


def page_model(point: Point, family: TrainingFamily = mlp.FAMILY) -> bool:
    """A point of the family's model as this page trains it: every setting but the sliders, switches and
    mode at its default."""
    settings = point.settings
    return point.workload == family.name and all(settings.get(k, v) == v for k, v in family.page_defaults().items())


class StepTable:
    """One machine's recorded steps of one model family on one kind of device, by configuration and
    (rows, width, depth) (the family's width and depth settings: lib.workloads.family), and the
    machine's cost model for the steps nobody recorded (one model for every configuration)."""

    def __init__(
        self, points: Sequence[Point], device_kind: str, machine: str, family: TrainingFamily = mlp.FAMILY
    ) -> None:
        self.device_kind, self.machine, self.family = device_kind, machine, family
        self.steps: dict[tuple, dict[tuple[int, int, int], Point]] = {}
        self._model: list[MachineModel | None] = []
        found: list[tuple[tuple, tuple[int, int, int], Point]] = []
        for point in points:
            kind = "cpu" if point.device == "cpu" else "cuda"
            if kind != device_kind or not point.ok or not page_model(point, family):
                continue
            try:
                key = family.step_key(point.settings)
            except (KeyError, TypeError, ValueError):  # an uploaded row without this page's sizes: not a step here
                continue
            found.append((step_config(point.settings, kind), key, point))
        # A curve is drawn from one recording where one holds its points: of a step recorded twice, the
        # recording with more steps of that configuration (the full grid, not a later lease's few points)
        # keeps it, the other's time becomes the day-to-day band. Picking per point the newer row mixed
        # two days along one curve, and their day-to-day gap read as a bend.
        sizes = collections.Counter((config, _recording(point)) for config, _, point in found)
        for config, key, point in found:
            table = self.steps.setdefault(config, {})
            if key not in table:
                table[key] = point
            else:
                table[key] = _same_step(table[key], point, lambda p, c=config: sizes[(c, _recording(p))])
        # the recorded rows, widths and depths over every configuration, read once: covers() is asked for every
        # predicted point of every curve on every page run, and the dense grids hold thousands of steps
        keys = [k for table in self.steps.values() for k in table]
        self.span = tuple(frozenset(axis) for axis in zip(*keys)) if keys else None

    def step(self, config: tuple, rows: int, width: int, depth: int) -> Point | None:
        return self.steps.get(config, {}).get((rows, width, depth))

    def covers(self, config: tuple, rows: int, width: int, depth: int) -> bool:
        """Whether the machine's recordings span this step well enough to predict it. One model
        prices every configuration, so the span is the machine's, over all of them: the width a
        recorded one or within the recorded widths (or one doubling beyond them), the rows within the
        recorded ones or up to EXTRAPOLATE times beyond them, and any depth of the slider once two
        depths were recorded (depth enters as counted kernels and operations, not as a curve to
        extrapolate). A CUDA graph or torch.compile on a CPU is never predicted: they run on CUDA."""
        if self.device_kind == "cpu" and execution.on_cpu(config[0]) != config[0]:
            return False
        if self.span is None:
            return False
        r, w, d = self.span
        widths_ok = width in w or (len(w) > 1 and min(w) / 2 <= width <= max(w) * 2)
        depths_ok = depth in d or len(d) > 1
        return widths_ok and depths_ok and len(r) > 1 and min(r) / EXTRAPOLATE <= rows <= max(r) * EXTRAPOLATE

    def recorded_depths(self, config: tuple) -> list[int]:
        """The depths recorded for this configuration."""
        return sorted({depth for _, _, depth in self.steps.get(config, {})})

    def count(self, config: tuple) -> int:
        return len(self.steps.get(config, {}))

    def model(self) -> MachineModel | None:
        """The machine's cost model on this device, fitted once (None with too few recorded steps)."""
        if not self._model:
            self._model.append(MachineModel.of(self.steps, self.device_kind, family=self.family))
        return self._model[0]

    def __len__(self) -> int:
        return sum(len(t) for t in self.steps.values())


def _same_step(a: Point, b: Point, size: Callable[[Point], int] = lambda p: 0) -> Point:
    """One step recorded twice (another dataset size, another pack): the preferred point, keeping the
    other's time as one more recording when it comes from another recording (machine and day), so
    the day-to-day spread is drawn and fitted. size: how many steps of this configuration the point's
    recording holds (the larger grid keeps the point)."""
    keep, other = (b, a) if (size(b), *_preference(b)) > (size(a), *_preference(a)) else (a, b)
    known = {label for label, _ in recordings(keep)}
    extra = [OtherRecording(label, t) for label, t in recordings(other) if label not in known]
    if not extra:
        return keep
    return replace(keep, other_recordings=(*keep.other_recordings, *extra))


def _recording(point: Point) -> str:
    """The recording a point came from: its machine and day ('NVIDIA H200 (2026-11-23)')."""
    return str(point.machine or "")


def _preference(point: Point) -> tuple[str, int]:
    """Of one step recorded twice, the later recording ('NVIDIA H200 (2026-11-23)' names its day), so
    that modes compared at a point come from one session; then the one with more repeats."""
    return str(point.machine or ""), int(point.repeats)


def recordings(point: Point) -> list[tuple[str, float]]:
    """(recording, step seconds) of each time a step was recorded: the kept point's, then the others'."""
    own = (str(point.machine or "the newest recording"), float(point.median_s))
    return [own, *((str(r), float(t)) for r, t in point.other_recordings)]


def tables(recording: Recording | None, machine: str, family: TrainingFamily = mlp.FAMILY) -> dict[str, StepTable]:
    """The recording's step tables of one family by device kind ('cpu', 'cuda'), built once per recording per
    process (lib.recorded hands out the same Recording objects until a file changes)."""
    if recording is None:
        return {}
    return _tables(recording, machine, family)


@kept(32)
def _tables(recording: Recording, machine: str, family: TrainingFamily) -> dict[str, StepTable]:
    return {kind: StepTable(recording.points, kind, machine, family) for kind in ("cpu", "cuda")}


def prepare(recordings: Sequence[Recording]) -> int:
    """Build every recorded machine's step tables and fit each configuration's cost model, as the
    Training page will (same recordings, same keys, so the page finds them built): a server does this once
    in the background at start, instead of its first Training visitor waiting seconds for it.
    Returns how many models were fitted (one per machine and device)."""
    sources = recorded_sources(recordings)
    merged = (source_recording(s, recordings) for s in sources)
    machines = [(r, machine_text(r.machine)) for r in merged if r]
    fitted = 0
    for family in FAMILIES:
        small = small_server_recording(recordings, family.workload)
        for recording, machine in [*machines, *([(small, machine_text(small.machine))] if small else [])]:
            for table in tables(recording, machine, family).values():
                fitted += table.model() is not None
    return fitted
