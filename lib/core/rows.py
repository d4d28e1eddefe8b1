"""One result row per (workload, settings, device): its fields, its status, and the one test of
whether it holds a usable time.

Rows stay plain dicts (they go to JSON, CSV and DataFrames unchanged); `Row` names their fields
for readers and type checkers, the way torch.utils.benchmark's Measurement names its own.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from typing import Any, TypedDict


class Status(str, enum.Enum):
    """What became of a point. A str, so rows loaded from JSON ('ok') compare equal to it."""

    OK = "ok"  # measured: median_s, iqr_s and repeats hold its time
    OOM = "oom"  # ran out of memory on the device; the sweep went on
    SKIPPED = "skipped"  # refused before allocating (memory, work cap, time budget, device cannot run it)
    ERROR = "error"  # bad settings, a failed check, or another exception; `message` says which

    def __str__(self) -> str:  # f"{Status.OK}" -> "ok" on every Python version
        return self.value


class Row(TypedDict, total=False):
    """The fields every row has (settings are further keys, one per setting of the workload)."""

    workload: str
    device: str
    median_s: float | None  # steady-state time of one call (null unless ok)
    iqr_s: float | None  # its interquartile range
    repeats: int  # timed blocks behind the median
    status: str  # a Status value
    message: str  # why a point is not ok, or a remark (noisy, timed once)
    origin: str  # 'live' (this server), or absent for recorded rows
    swept: str  # the setting(s) varied: 'batch_size', or 'batch_size,hidden_width,depth' for a grid
    cold_s: float | None  # the first call, never part of the median
    epoch_s: float | None  # median_s x steps_per_epoch, where the workload has epochs


def is_ok(row: Mapping[str, Any] | None, key: str = "median_s") -> bool:
    """True when the row was measured and holds a positive, finite `key` (the time by default)."""
    if not row or row.get("status") != Status.OK:
        return False
    value = row.get(key)
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def new_row(workload: str, settings: Mapping[str, Any], device: str) -> dict[str, Any]:
    """A row for one point before it is measured: its settings, and status ok with no time yet."""
    row: dict[str, Any] = {"workload": workload, **settings, "device": device}
    row.update(median_s=None, iqr_s=None, repeats=0, status=Status.OK.value, message="")
    return row


def refused(row: dict[str, Any], status: Status, message: str) -> dict[str, Any]:
    """Mark a row as not measured, with why; its times are cleared."""
    row.update(status=status.value, message=message, median_s=None, iqr_s=None, repeats=0)
    return row
