"""A step's timeline as typed values, and the timelines file they are kept in (JSON only there).

    entry.steps[i].events     TimelineEvents (lane, name, kind, start_us, end_us), times from that step's start
    entry.figures             of the middle step: Figures, with .gpu (GpuBusy) or .cpu (CpuBusy)
    timelines_file(entries, machine)  ->  the file's object;  read_timelines(obj)  ->  a TimelinesFile

lib.core.timeline records them; lib.recorded.timelines finds the shipped ones. No torch here.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from lib.core.devices import MachineObject
from lib.core.gate import Limit
from lib.core.point import Frozen
from lib.core.rows import Status

TIMELINES_KIND = "gpuwin-timelines"
TIMELINES_VERSION = 1

JsonObject = dict[str, Any]  # an object of a timelines file, as json.load gives it


class EventKind(str, enum.Enum):
    """What a bar on a timeline is (a str: its value is the file's and the chart's word)."""

    OPERATOR = "operator"
    LAUNCH = "launch"
    RUNTIME = "runtime"
    SYNC = "sync"
    KERNEL = "kernel"
    COPY = "copy"
    MEMSET = "memset"

    def __str__(self) -> str:
        return self.value


class TimelineEvent(NamedTuple):
    """One bar: on which lane ('CPU: Python thread', 'GPU: stream 7'), what ran, and when (µs)."""

    lane: str
    name: str
    kind: EventKind
    start_us: float
    end_us: float

    @property
    def on_gpu(self) -> bool:
        return self.lane.startswith("GPU")

    def shifted(self, by_us: float) -> TimelineEvent:
        return self._replace(start_us=self.start_us - by_us, end_us=self.end_us - by_us)


@dataclass(frozen=True)
class GpuBusy:
    """A step's GPU stream: kernels, busy time and share of the step, idle time between its first and
    last kernel, and the mean delay from a kernel's launch call to its start."""

    kernels: float
    busy_us: float
    busy_fraction: float
    idle_between_us: float
    launch_delay_us: float


@dataclass(frozen=True)
class CpuBusy:
    """A step without a GPU lane: how long and what share of it the thread ran operators."""

    busy_us: float
    busy_fraction: float


@dataclass(frozen=True)
class Figures:
    """What a reader takes from one step's picture; `gpu` where it has a GPU lane, else `cpu`."""

    step_us: float
    operators: float
    launches: float
    syncs: float
    gpu: GpuBusy | None = None
    cpu: CpuBusy | None = None

    def as_json(self) -> dict[str, float]:
        out = {"step_us": self.step_us, "operators": self.operators, "launches": self.launches, "syncs": self.syncs}
        if self.gpu is not None:
            out.update(
                kernels=self.gpu.kernels,
                gpu_busy_us=self.gpu.busy_us,
                gpu_busy_fraction=self.gpu.busy_fraction,
                gpu_idle_between_us=self.gpu.idle_between_us,
                launch_delay_us=self.gpu.launch_delay_us,
            )
        if self.cpu is not None:
            out.update(cpu_busy_us=self.cpu.busy_us, cpu_busy_fraction=self.cpu.busy_fraction)
        return out

    @classmethod
    def from_json(cls, obj: JsonObject) -> Figures | None:
        if not obj:
            return None
        gpu = cpu = None
        if "gpu_busy_fraction" in obj:
            gpu = GpuBusy(
                float(obj.get("kernels", 0)),
                float(obj["gpu_busy_us"]),
                float(obj["gpu_busy_fraction"]),
                float(obj["gpu_idle_between_us"]),
                float(obj["launch_delay_us"]),
            )
        if "cpu_busy_fraction" in obj:
            cpu = CpuBusy(float(obj["cpu_busy_us"]), float(obj["cpu_busy_fraction"]))
        return cls(
            float(obj["step_us"]), float(obj["operators"]), float(obj["launches"]), float(obj["syncs"]), gpu, cpu
        )


@dataclass(frozen=True)
class TimelineStep:
    """One profiled step: its events, its figures, and its wall time under the profiler (None in files
    recorded before it was kept)."""

    events: tuple[TimelineEvent, ...]
    figures: Figures | None
    wall_us: float | None = None

    def as_json(self) -> JsonObject:
        out: JsonObject = {
            "events": [{**e._asdict(), "kind": e.kind.value} for e in self.events],
            "figures": self.figures.as_json() if self.figures else {},
        }
        if self.wall_us is not None:
            out["wall_us"] = self.wall_us
        return out

    @classmethod
    def from_json(cls, obj: JsonObject) -> TimelineStep:
        events = tuple(
            TimelineEvent(
                str(e["lane"]), str(e["name"]), EventKind(e["kind"]), float(e["start_us"]), float(e["end_us"])
            )
            for e in obj.get("events", [])
        )
        return cls(events, Figures.from_json(obj.get("figures") or {}), obj.get("wall_us"))


def median_step(steps: Sequence[TimelineStep]) -> TimelineStep | None:
    """The step a timeline's figures come from: the median by its traced length (not the middle by order,
    which was the profiler's slow first step when only three were kept)."""
    ranked = sorted(steps, key=lambda s: s.figures.step_us)
    return ranked[(len(ranked) - 1) // 2] if ranked else None


@dataclass(frozen=True)
class Timeline:
    """The timeline of one point: its settings and device, and either its steps (status ok) or why it
    has none (skipped, with the gate's `refused` limit where it was the gate; error).

    `recorded_day` is the day its file's machine was recorded ('' where the file names none); None for
    a timeline measured live."""

    workload: str
    settings: Frozen
    device: str
    status: Status = Status.OK
    message: str = ""
    device_name: str | None = None
    steps: tuple[TimelineStep, ...] | None = None
    figures: Figures | None = None
    num_threads: int | None = None
    refused: Limit | None = None
    recorded_day: str | None = None

    @property
    def middle(self) -> TimelineStep | None:
        """The step the page draws (its figures are the entry's)."""
        return median_step(self.steps or ())

    def as_json(self) -> JsonObject:
        """The entry as its file holds it (the order of its keys as they were always written)."""
        out: JsonObject = {
            "workload": self.workload,
            "settings": dict(self.settings),
            "device": self.device,
            "status": self.status.value,
            "message": self.message,
        }
        if self.device_name is not None:
            out["device_name"] = self.device_name
        if self.steps is not None:
            out["steps"] = [s.as_json() for s in self.steps]
            out["figures"] = self.figures.as_json() if self.figures else {}
        if self.num_threads is not None:
            out["num_threads"] = self.num_threads
        if self.refused is not None:
            out["refused"] = self.refused.value
        return out

    @classmethod
    def from_json(cls, obj: JsonObject, recorded_day: str | None = None) -> Timeline:
        steps = obj.get("steps")
        return cls(
            workload=str(obj["workload"]),
            settings=Frozen(obj["settings"]),
            device=str(obj["device"]),
            status=Status(obj["status"]),
            message=str(obj.get("message") or ""),
            device_name=obj.get("device_name"),
            steps=None if steps is None else tuple(TimelineStep.from_json(s) for s in steps),
            figures=Figures.from_json(obj.get("figures") or {}),
            num_threads=obj.get("num_threads"),
            refused=Limit(obj["refused"]) if obj.get("refused") else None,
            recorded_day=recorded_day,
        )

    def on(self, day: str) -> Timeline:
        return replace(self, recorded_day=day)


@dataclass(frozen=True)
class TimelinesFile:
    """A timelines file read: the machine it was recorded on, its entries, and where it lies."""

    machine: MachineObject
    timelines: tuple[Timeline, ...]
    path: str | None = None


class TimelineError(ValueError):
    """A timelines file that does not validate; the message names the bad field."""


def timelines_file(entries: Sequence[Timeline], machine: MachineObject) -> JsonObject:
    """The object of a timelines file holding `entries` (validated, as a reader would)."""
    obj = {
        "kind": TIMELINES_KIND,
        "version": TIMELINES_VERSION,
        "machine": machine,
        "timelines": [e.as_json() for e in entries],
    }
    validate_timelines(obj)
    return obj


def read_timelines(obj: Any, path: str | None = None) -> TimelinesFile:
    """A parsed timelines file as typed values, else TimelineError naming the bad field."""
    validate_timelines(obj)
    machine = obj["machine"]
    day = str(machine.get("date") or "")[:10]
    try:
        entries = tuple(Timeline.from_json(e, day) for e in obj.get("timelines") or [])
    except (KeyError, TypeError, ValueError) as err:
        raise TimelineError(f"timelines: {err}") from None
    return TimelinesFile(machine, entries, path)


def validate_timelines(obj: Any) -> None:
    """Nothing if `obj` is a timelines file this app reads, else TimelineError naming the field."""
    if not isinstance(obj, dict) or obj.get("kind") != TIMELINES_KIND:
        raise TimelineError(f"kind: expected {TIMELINES_KIND!r}")
    if obj.get("version") != TIMELINES_VERSION:
        raise TimelineError(f"version: this app reads version {TIMELINES_VERSION}, got {obj.get('version')!r}")
    if not isinstance(obj.get("machine"), dict):
        raise TimelineError("machine: missing")
    for i, entry in enumerate(obj.get("timelines") or []):
        where = f"timelines[{i}]"
        for key in ("workload", "settings", "device", "status"):
            if key not in entry:
                raise TimelineError(f"{where}.{key}: missing")
        for j, step in enumerate(entry.get("steps", [])):
            for k, e in enumerate(step.get("events", [])):
                if not (isinstance(e, dict) and {"lane", "name", "start_us", "end_us"} <= set(e)):
                    raise TimelineError(f"{where}.steps[{j}].events[{k}]: needs lane, name, start_us, end_us")
                if not float(e["end_us"]) >= float(e["start_us"]):
                    raise TimelineError(f"{where}.steps[{j}].events[{k}]: ends before it starts")
