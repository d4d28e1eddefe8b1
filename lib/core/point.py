"""One measured (or refused, recorded, predicted) point as a typed value, from the sweep to the chart.

    point = Point.new("mlp", settings, "cpu")                  # before it is measured
    point = replace(point, median_s=1e-3, iqr_s=1e-5, repeats=40)
    point.settings["batch_size"], point.counts.flops, point.phases["transfer"]

A row (a plain dict) is a point's shape in a file, a CSV, a DataFrame or Altair's data: Point.from_row
and Point.to_row convert at those edges (lib.core.results, and rows_of for code still reading rows),
and to_row(from_row(row)) == row for every valid row: no field is lost. Which key of a row is a setting
is lib.core.results' rule (every key that is not a reserved field and not a phase).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from lib.core.rows import Origin, Status

SettingValue = str | int | float | bool  # what one setting holds once parsed (lib.core.workload.Setting.parse)


class Frozen(Mapping[str, Any]):
    """An immutable mapping of names to plain values (settings, phases): hashable and picklable,
    which a MappingProxyType is not (points travel from the measuring process through a pipe)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        object.__setattr__(self, "_items", dict(items))

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self._items.items()))

    def __setattr__(self, name: str, value: Any) -> None:
        raise TypeError("Frozen is immutable: make a new one")

    def __reduce__(self) -> tuple:  # its dict as it is: a cached pack's thousands of points load without a copy each
        return (_frozen, (self._items,))

    def __repr__(self) -> str:
        return f"Frozen({self._items!r})"

    def with_(self, **changes: Any) -> Frozen:
        return Frozen({**self._items, **changes})


def _frozen(items: dict[str, Any]) -> Frozen:
    made = object.__new__(Frozen)
    object.__setattr__(made, "_items", items)
    return made


@dataclass(frozen=True)
class Counts:
    """Numbers a point may carry besides its time, each None where not known: estimated before it
    runs (flops, bytes, memory), counted while it runs (kernels, threads, steps), derived after it
    (throughput, scaling, a prediction's band)."""

    flops: float | None = None
    bytes: float | None = None
    peak_memory_estimate_bytes: float | None = None
    steps_per_epoch: float | None = None
    num_threads: int | None = None
    calls_per_repeat: int | None = None
    kernels: float | None = None
    device_busy_s: float | None = None
    achieved_flops_per_s: float | None = None
    samples_per_s: float | None = None
    scaling_efficiency: float | None = None
    grad_bytes: float | None = None
    allreduce_s: float | None = None
    allreduce_gbps: float | None = None
    peak_memory_bytes: float | None = None
    batches_per_epoch: float | None = None
    initial_weights_abs_sum: float | None = None
    epoch_s_low: float | None = None
    epoch_s_high: float | None = None
    median_s_low: float | None = None
    median_s_high: float | None = None
    launch_share: float | None = None


@dataclass(frozen=True)
class Notes:
    """Text a point may carry, each None where absent: the GPU's name, the variant drawn, a predicted
    point's why, what data really ran, and other remarks."""

    device_name: str | None = None
    variant: str | None = None
    origin_note: str | None = None
    data_note: str | None = None
    note: str | None = None


class OtherRecording(NamedTuple):
    """Another recording's time of the same point (machine and day, step seconds): kept when one
    machine's packs of several days are merged, so the day-to-day spread is drawn and fitted."""

    recording: str  # 'NVIDIA H200 (2026-11-23)'
    median_s: float


COUNT_FIELDS = tuple(f.name for f in dataclasses.fields(Counts))
NOTE_FIELDS = tuple(f.name for f in dataclasses.fields(Notes))
NO_COUNTS, NO_NOTES, NOTHING = Counts(), Notes(), Frozen()  # shared by the many points that carry none
_HEAD = ("workload", "device", "median_s", "iqr_s", "repeats", "status", "message")
_OPTIONAL = ("cold_s", "epoch_s", "machine", "origin", "swept", "recorded_on")
_MERGED = "other_recordings"  # a merged recording's rows only (lib.recorded.sources.newest_points), never a file's
_RESERVED = frozenset(_HEAD + _OPTIONAL + COUNT_FIELDS + NOTE_FIELDS + (_MERGED,))
_COUNTS, _NOTES = frozenset(COUNT_FIELDS), frozenset(NOTE_FIELDS)  # a set's lookup: every row of every pack is read


def is_phase_key(key: str) -> bool:
    return key.startswith("phase_") and key.endswith("_s") and len(key) > len("phase__s")


@dataclass(frozen=True)
class Point:
    """One point on one device: its settings, where and when its time was taken, the time (median and
    spread over `repeats` timed blocks) or why there is none (status, message), its counts and phases.

    `origin` is an Origin, or None for a recorded pack's rows (they name none); `origin_text` keeps an
    origin that names no Origin (early seed packs name the script that made them). `machine` is the
    machine and day it was measured on ('NVIDIA H200 (2026-11-21)'), None until a pack says.
    `recorded_on` and `other_recordings` are set where one machine's packs are merged: the day of the
    pack the point came from, and the same point's times in the other recordings."""

    workload: str
    device: str
    settings: Frozen = field(default_factory=Frozen)
    median_s: float | None = None
    iqr_s: float | None = None
    repeats: int = 0
    status: Status = Status.OK
    message: str = ""
    origin: Origin | None = None
    origin_text: str | None = None
    machine: str | None = None
    swept: str | None = None
    cold_s: float | None = None
    epoch_s: float | None = None
    recorded_on: str | None = None
    other_recordings: tuple[OtherRecording, ...] = ()
    counts: Counts = field(default_factory=Counts)
    phases: Frozen = field(default_factory=Frozen)  # phase name ('transfer') -> seconds
    notes: Notes = field(default_factory=Notes)

    @classmethod
    def new(cls, workload: str, settings: Mapping[str, SettingValue], device: str) -> Point:
        """A point before it is measured: its settings, and status ok with no time yet."""
        return cls(workload, device, Frozen(settings))

    @property
    def day(self) -> str | None:
        """The day the machine label names ('NVIDIA H200 (2026-11-21)' -> '2026-11-21'), or None."""
        label = self.machine or ""
        return label.rsplit("(", 1)[1][:-1] if label.endswith(")") and "(" in label else None

    @property
    def ok(self) -> bool:
        """Measured, with a positive, finite median."""
        value = self.median_s
        return (
            self.status == Status.OK
            and isinstance(value, (int, float))
            and not isinstance(value, bool)
            and math.isfinite(value)
            and value > 0
        )

    def refused(self, status: Status, message: str) -> Point:
        """This point not measured, with why; its times cleared."""
        return replace(self, status=status, message=message, median_s=None, iqr_s=None, repeats=0)

    def with_counts(self, **changes: Any) -> Point:
        return replace(self, counts=replace(self.counts, **changes))

    def with_notes(self, **changes: Any) -> Point:
        return replace(self, notes=replace(self.notes, **changes))

    def remarked(self, words: str) -> Point:
        """The message with `words` added at its end."""
        return replace(self, message=(self.message or "") + words)

    def carries(self, key: str) -> bool:
        """Whether the point holds a value under this row key (a setting, a count, a note, a phase, ...)."""
        return key in self.to_row()

    def reported(self, fields: Mapping[str, Any]) -> Point:
        """This point with the fields a workload reports by name (its estimates before a point runs, a
        launched point's results) put where they belong: a setting, a count, a phase, the device, ..."""
        return _apply(self, fields)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Point:
        """A point from a row (a pack's, a CSV's): only lib.core.results and the edges call this."""
        top, counts, notes, settings, phases = _split(row)
        return cls(
            **top,
            settings=Frozen(settings),
            counts=Counts(**counts) if counts else NO_COUNTS,
            phases=Frozen(phases) if phases else NOTHING,
            notes=Notes(**notes) if notes else NO_NOTES,
        )

    def to_row(self) -> dict[str, Any]:
        """The point as a row: settings after the workload, then the fields every row has, then the
        ones it carries (a None optional field is left out, as a row without it reads)."""
        row: dict[str, Any] = {
            "workload": self.workload,
            **self.settings,
            "device": self.device,
            "median_s": self.median_s,
            "iqr_s": self.iqr_s,
            "repeats": self.repeats,
            "status": self.status.value,
            "message": self.message,
        }
        origin = self.origin.value if self.origin is not None else self.origin_text
        optional = {
            "cold_s": self.cold_s,
            "epoch_s": self.epoch_s,
            "machine": self.machine,
            "origin": origin,
            "swept": self.swept,
        }
        row.update((k, v) for k, v in optional.items() if v is not None)
        row.update((k, v) for k, v in dataclasses.asdict(self.counts).items() if v is not None)
        row.update((k, v) for k, v in dataclasses.asdict(self.notes).items() if v is not None)
        row.update((f"phase_{name}_s", seconds) for name, seconds in self.phases.items())
        if self.recorded_on is not None:  # a merged recording's keys, last as its rows have always had them
            row["recorded_on"] = self.recorded_on
        if self.other_recordings:  # plain pairs in a row, as a DataFrame and Arrow have always read them
            row[_MERGED] = tuple((o.recording, o.median_s) for o in self.other_recordings)
        return row


class _Routed(NamedTuple):
    """A row's keys sorted to where they belong in a Point, each part by field name."""

    top: dict[str, Any]  # Point's own fields, each of its own type: passed to Point by name
    counts: dict[str, float | None]
    notes: dict[str, str | None]
    settings: dict[str, SettingValue]
    phases: dict[str, float]  # by phase name ('transfer'), not the row's key ('phase_transfer_s')


def _split(fields: Mapping[str, Any]) -> _Routed:
    """Row keys sorted to where they belong (the one router of row keys)."""
    top, counts, notes, settings, phases = _Routed({}, {}, {}, {}, {})
    for key, value in fields.items():
        if key in _COUNTS:
            counts[key] = value
        elif key in _NOTES:
            notes[key] = value
        elif key == "status":
            top[key] = Status(value)
        elif key == "origin":
            top["origin"], top["origin_text"] = _origin(value)
        elif key == _MERGED:
            top[key] = tuple(OtherRecording(*pair) for pair in value or ())
        elif key in _RESERVED:
            top[key] = value
        elif is_phase_key(key):
            phases[key[len("phase_") : -len("_s")]] = value
        else:
            settings[key] = value
    return _Routed(top, counts, notes, settings, phases)


def _apply(point: Point, fields: Mapping[str, Any]) -> Point:
    """`point` with each named field set where it belongs."""
    top, counts, notes, settings, phases = _split(fields)
    if counts:
        top["counts"] = replace(point.counts, **counts)
    if notes:
        top["notes"] = replace(point.notes, **notes)
    if settings:
        top["settings"] = point.settings.with_(**settings)
    if phases:
        top["phases"] = point.phases.with_(**phases)
    return replace(point, **top) if top else point


def _origin(value: Any) -> tuple[Origin | None, str | None]:
    try:
        return Origin(value), None
    except ValueError:
        return None, value


def rows_of(points: Iterable[Point]) -> list[dict[str, Any]]:
    """The adapter for code that still reads rows (lessons, charts): each point as its row."""
    return [p.to_row() for p in points]


def points_of(rows: Iterable[Mapping[str, Any]]) -> list[Point]:
    """Rows (from a file, or code that still makes rows) as points."""
    return [Point.from_row(r) for r in rows]
