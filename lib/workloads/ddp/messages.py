"""What the parent (lib.workloads.ddp.launch) and its torchrun processes (lib.workloads.ddp.worker)
tell each other, as typed values; JSON only where they cross a process boundary:

    LaunchConfig   the parent -> every rank, on the command line (--json-args)
    Progress       rank 0 -> the parent, rewritten after each point (result.json)
    Failure        a failing rank -> the parent (error.rank<R>.json)
    DDPResult      one point's outcome: status, message and what was measured

No torch here: the parent reads these without loading it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from lib.core.point import Point
from lib.core.rows import Status
from lib.workloads.ddp.models import DDPSettings

# A JSON object as json.loads gives it, read field by field into the types below.
JsonObject = dict[str, Any]


@dataclass(frozen=True)
class Timed:
    """One call timed on every rank at once: median and IQR over `repeats` blocks of `calls_per_repeat`
    calls (the slowest rank per block), and the slowest rank's first call."""

    median_s: float
    iqr_s: float
    repeats: int
    calls_per_repeat: int
    cold_s: float


@dataclass(frozen=True)
class Exchange:
    """One all-reduce of a gradient-sized buffer, timed alone; gbps None where it took no time."""

    grad_bytes: float
    allreduce_s: float
    allreduce_gbps: float | None


@dataclass(frozen=True)
class DDPResult:
    """One point's outcome. `step` is the DDP step; with phases, `compute_s` the same step without the
    gradient exchange and `comm_s` what the exchange added; the rest as measured (None where not)."""

    status: Status
    message: str = ""
    step: Timed | None = None
    compute_s: float | None = None
    comm_s: float | None = None
    exchange: Exchange | None = None
    peak_memory_bytes: float | None = None
    num_threads: int | None = None
    device_name: str | None = None

    def into(self, point: Point) -> Point:
        """The point with what was measured put in, and its group's throughput (gpus x batch_size / step)."""
        if self.step is not None:
            step = self.step
            point = replace(point, median_s=step.median_s, iqr_s=step.iqr_s, repeats=step.repeats, cold_s=step.cold_s)
            point = point.with_counts(calls_per_repeat=step.calls_per_repeat)
            if self.status == Status.OK and step.median_s > 0:
                samples = int(point.settings["gpus"]) * int(point.settings["batch_size"]) / step.median_s
                point = point.with_counts(samples_per_s=samples)
        if self.compute_s is not None and self.comm_s is not None:
            point = replace(point, phases=point.phases.with_(compute=self.compute_s, comm=self.comm_s))
        if self.exchange is not None:
            exchange = self.exchange
            point = point.with_counts(grad_bytes=exchange.grad_bytes, allreduce_s=exchange.allreduce_s)
            if exchange.allreduce_gbps is not None:
                point = point.with_counts(allreduce_gbps=exchange.allreduce_gbps)
        if self.peak_memory_bytes is not None:
            point = point.with_counts(peak_memory_bytes=self.peak_memory_bytes)
        if self.num_threads is not None:
            point = point.with_counts(num_threads=self.num_threads)
        if self.device_name is not None:
            point = point.with_notes(device_name=self.device_name)
        return point

    def as_json(self) -> JsonObject:
        return {**asdict(self), "status": self.status.value}

    @classmethod
    def from_json(cls, obj: JsonObject) -> DDPResult:
        step, exchange = obj.get("step"), obj.get("exchange")
        return cls(
            status=Status(obj["status"]),
            message=str(obj.get("message") or ""),
            step=Timed(**step) if step else None,
            compute_s=obj.get("compute_s"),
            comm_s=obj.get("comm_s"),
            exchange=Exchange(**exchange) if exchange else None,
            peak_memory_bytes=obj.get("peak_memory_bytes"),
            num_threads=obj.get("num_threads"),
            device_name=obj.get("device_name"),
        )


@dataclass(frozen=True)
class LaunchConfig:
    """One launch's points and how to time them, the same for every rank."""

    points: tuple[DDPSettings, ...]
    device: str  # 'cuda' or 'cpu': each rank takes its own GPU
    backend: str
    budget_s: float
    threads: int
    with_phases: bool
    deadline_s: float | None
    collective_timeout_s: float
    result_path: str
    error_dir: str

    def as_json(self) -> JsonObject:
        return {**asdict(self), "points": [p.as_json() for p in self.points]}

    @classmethod
    def from_json(cls, obj: JsonObject) -> LaunchConfig:
        return cls(**{**obj, "points": tuple(DDPSettings.of(p) for p in obj["points"])})


@dataclass(frozen=True)
class Progress:
    """Rank 0's results so far, and the index of the point it is on (None once all are done)."""

    results: tuple[DDPResult, ...]
    current: int | None

    def as_json(self) -> JsonObject:
        return {"points": [r.as_json() for r in self.results], "current": self.current}

    @classmethod
    def from_json(cls, obj: JsonObject) -> Progress:
        return cls(tuple(DDPResult.from_json(r) for r in obj.get("points", [])), obj.get("current"))


@dataclass(frozen=True)
class Failure:
    """A rank that failed: at which point (None: before any, setting up the group), and why."""

    rank: int
    index: int | None
    status: Status
    message: str

    def as_json(self) -> JsonObject:
        return {**asdict(self), "status": self.status.value}

    @classmethod
    def from_json(cls, obj: JsonObject) -> Failure:
        return cls(
            int(obj.get("rank", 0)), obj.get("index"), Status(obj.get("status", "error")), obj.get("message", "")
        )
