"""One machine's recorded training steps, as the Training page looks them up: a StepTable per family,
machine and kind of device, keyed by the configuration that decides a step's time (step_config) and its
(rows, width, depth), with the machine's cost model for the steps nobody recorded.

No Streamlit: lib.lessons.training.view draws its curves from these tables.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lib.core.cache import kept
from lib.core.rows import is_ok
from lib.lessons.training.model import MachineModel
from lib.recorded.sources import gpu_sources, machine_text, small_server_pack, source_pack
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


def page_model(row: Mapping[str, Any], family: TrainingFamily = mlp.FAMILY) -> bool:
    """A row of the family's model as this page trains it: every setting but the sliders, switches and
    mode at its default."""
    return row.get("workload") == family.name and all(row.get(k, v) == v for k, v in family.page_defaults().items())


class StepTable:
    """One machine's recorded steps of one model family on one kind of device, by configuration and
    (rows, width, depth) (the family's width and depth settings: lib.workloads.family), and the
    machine's cost model for the steps nobody recorded (one model for every configuration)."""

    def __init__(
        self, rows: Sequence[Mapping[str, Any]], device_kind: str, machine: str, family: TrainingFamily = mlp.FAMILY
    ) -> None:
        self.device_kind, self.machine, self.family = device_kind, machine, family
        self.steps: dict[tuple, dict[tuple[int, int, int], Mapping[str, Any]]] = {}
        self._model: list[MachineModel | None] = []
        found: list[tuple[tuple, tuple[int, int, int], Mapping[str, Any]]] = []
        for row in rows:
            kind = "cpu" if row.get("device") == "cpu" else "cuda"
            if kind != device_kind or not is_ok(row) or not page_model(row, family):
                continue
            try:
                key = family.step_key(row)
            except (KeyError, TypeError, ValueError):  # an uploaded row without this page's sizes: not a step here
                continue
            found.append((step_config(row, kind), key, row))
        # A curve is drawn from one recording where one holds its points: of a step recorded twice, the
        # recording with more steps of that configuration (the full grid, not a later lease's few points)
        # keeps it, the other's time becomes the day-to-day band. Picking per point the newer row mixed
        # two days along one curve, and their day-to-day gap read as a bend.
        sizes = collections.Counter((config, _recording(row)) for config, _, row in found)
        for config, key, row in found:
            table = self.steps.setdefault(config, {})
            if key not in table:
                table[key] = row
            else:
                table[key] = _same_step(table[key], row, lambda r, c=config: sizes[(c, _recording(r))])
        # the recorded rows, widths and depths over every configuration, read once: covers() is asked for every
        # predicted point of every curve on every page run, and the dense grids hold thousands of steps
        keys = [k for table in self.steps.values() for k in table]
        self.span = tuple(frozenset(axis) for axis in zip(*keys)) if keys else None

    def step(self, config: tuple, rows: int, width: int, depth: int) -> Mapping[str, Any] | None:
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


def _same_step(
    a: Mapping[str, Any], b: Mapping[str, Any], size: Callable[[Mapping[str, Any]], int] = lambda r: 0
) -> Mapping[str, Any]:
    """One step recorded twice (another dataset size, another pack): the preferred row, keeping the
    other's time as one more recording when it comes from another recording (machine and day), so
    the day-to-day spread is drawn and fitted. size: how many steps of this configuration the row's
    recording holds (the larger grid keeps the point)."""
    keep, other = (b, a) if (size(b), *_preference(b)) > (size(a), *_preference(a)) else (a, b)
    known = {label for label, _ in recordings(keep)}
    extra = [(label, t) for label, t in recordings(other) if label not in known]
    if not extra:
        return keep
    return {**keep, "other_recordings": (*keep.get("other_recordings", ()), *extra)}


def _recording(row: Mapping[str, Any]) -> str:
    """The recording a row came from: its machine and day ('NVIDIA H200 (2026-11-23)')."""
    return str(row.get("machine") or "")


def _preference(row: Mapping[str, Any]) -> tuple[str, int]:
    """Of one step recorded twice, the later recording ('NVIDIA H200 (2026-11-23)' names its day), so
    that modes compared at a point come from one session; then the one with more repeats."""
    return str(row.get("machine") or ""), int(row.get("repeats", 0))


def recordings(row: Mapping[str, Any]) -> list[tuple[str, float]]:
    """(recording, step seconds) of each time a step was recorded: the kept row's, then the others'."""
    own = (str(row.get("machine") or "the newest recording"), float(row["median_s"]))
    return [own, *((str(r), float(t)) for r, t in row.get("other_recordings") or ())]


def tables(pack: Mapping[str, Any] | None, machine: str, family: TrainingFamily = mlp.FAMILY) -> dict[str, StepTable]:
    """The pack's step tables of one family by device kind ('cpu', 'cuda'), built once per pack per
    process (the pack objects come from lib.recorded's cache, so the same rows come back on every page run)."""
    if pack is None:
        return {}
    return _tables(pack["rows"], machine, family)


@kept(32)
def _tables(rows: list[dict[str, Any]], machine: str, family: TrainingFamily) -> dict[str, StepTable]:
    return {kind: StepTable(rows, kind, machine, family) for kind in ("cpu", "cuda")}


def prepare(packs: Sequence[dict[str, Any]]) -> int:
    """Build every recorded machine's step tables and fit each configuration's cost model, as the
    Training page will (same packs, same keys, so the page finds them built): a server does this once
    in the background at start, instead of its first Training visitor waiting seconds for it.
    Returns how many models were fitted (one per machine and device)."""
    machines = [(p, machine_text(p["machine"])) for p in (source_pack(s, packs) for s in gpu_sources(packs)) if p]
    fitted = 0
    for family in FAMILIES:
        small = small_server_pack(packs, family.workload)
        for pack, machine in [*machines, *([(small, machine_text(small["machine"]))] if small else [])]:
            for table in tables(pack, machine, family).values():
                fitted += table.model() is not None
    return fitted
