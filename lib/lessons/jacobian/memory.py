"""The Jacobian page's 'memory each method needs': the workload's peak-memory estimate of each method along
val, every point on screen at its estimate (timed or not), and the table of the points not timed with the
reason. Records here; the chart's and the table's dicts are made by record() (lib.lessons.jacobian.screen).
No Streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lib.core.fmt import fmt_bytes
from lib.core.rows import Status
from lib.lessons.jacobian.points import MethodPoint
from lib.lessons.jacobian.view import LABEL, WORKLOAD, params_of


def memory_cap_rule(cap_gb: float) -> tuple[float, str]:
    """The memory chart's line for the live memory cap: (bytes, label)."""
    return cap_gb * 1e9, f"memory cap for live runs here: {fmt_bytes(cap_gb * 1e9)}"


def estimate_bytes(method: str, val: int, device: str) -> float:
    return float(WORKLOAD.peak_memory_bytes(params_of(method, val), device))


@dataclass(frozen=True)
class MemoryEstimate:
    """The workload's peak-memory estimate of one method at one val on one kind of device: a point of the
    memory chart's lines (colour the method, line style the device)."""

    method: str
    val: int
    device: str  # 'the CPU' or 'a GPU', as the legend says it
    bytes: float

    def record(self) -> dict[str, str | int | float]:
        """The point as the memory chart's data."""
        return {
            "val": self.val,
            "bytes": self.bytes,
            "color": LABEL[self.method],
            "dash": self.device,
            "method": self.method,
        }


@dataclass(frozen=True)
class MemoryMark:
    """A point on screen at its estimated memory: a circle when it was timed, a cross when not."""

    method: str
    val: int
    bytes: float
    measured: bool
    detail: str  # where it was measured, and 'timed' or why not

    def record(self) -> dict[str, str | int | float]:
        """The mark as the memory chart's data."""
        return {
            "val": self.val,
            "bytes": self.bytes,
            "color": LABEL[self.method],
            "status": "measured" if self.measured else "not measured",
            "detail": self.detail,
        }


@dataclass(frozen=True)
class NotMeasured:
    """A point on screen that was not timed, with the reason: a line of the table of points not measured."""

    series: str
    method: str
    val: int
    status: str | None  # 'refused' for a point skipped before it ran, else the row's status
    why: str

    def record(self) -> dict[str, str | int | None]:
        """The line as the table shows it, its columns named for people."""
        return {
            "measured on": self.series,
            "method": LABEL[self.method],
            "val": self.val,
            "status": self.status,
            "why": self.why,
        }


def memory_estimates(methods: Sequence[str], vals: Sequence[int], gpu: bool) -> list[MemoryEstimate]:
    """The workload's peak-memory estimate per method and val, for the CPU (and a GPU when one is
    on screen). They differ only for the loop, whose freed temporaries the CPU's allocator strands."""
    kinds = [("cpu", "the CPU")] + ([("cuda:0", "a GPU")] if gpu else [])
    return [
        MemoryEstimate(m, v, label, estimate_bytes(m, v, device))
        for m in methods
        for device, label in kinds
        for v in vals
    ]


def memory_marks(points: Sequence[MethodPoint]) -> list[MemoryMark]:
    """Every point on screen at its estimated memory: measured, or not (with the reason)."""
    return [
        MemoryMark(
            p.method,
            p.val,
            estimate_bytes(p.method, p.val, p.device),
            p.ok,
            f"{p.series}: {'timed' if p.ok else (p.message or p.status.value)}",
        )
        for p in points
    ]


def not_measured(points: Sequence[MethodPoint]) -> list[NotMeasured]:
    """The points on screen that were not timed, each with the reason (for a table)."""
    return [
        NotMeasured(
            p.series, p.method, p.val, "refused" if p.status == Status.SKIPPED else p.status.value, p.message or ""
        )
        for p in points
        if not p.ok
    ]
