"""A result's status and origin, and the one test of whether a row holds a usable time.

A point is typed from the sweep on (lib.core.point.Point); a row is its plain-dict shape in files,
CSVs, DataFrames and the code not yet converted. Every row has: workload, device, one key per
setting, median_s and iqr_s (null unless ok), repeats, status (a Status value), message (why not ok,
or a remark); often origin (an Origin value; absent for recorded rows), swept (the setting varied),
cold_s (the first call, never in the median) and epoch_s.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from typing import Any


class Status(str, enum.Enum):
    """What became of a point. A str, so rows loaded from JSON ('ok') compare equal to it."""

    OK = "ok"  # measured: median_s, iqr_s and repeats hold its time
    OOM = "oom"  # ran out of memory on the device; the sweep went on
    SKIPPED = "skipped"  # refused before allocating (memory, work cap, time budget, device cannot run it)
    ERROR = "error"  # bad settings, a failed check, or another exception; `message` says which

    def __str__(self) -> str:  # f"{Status.OK}" -> "ok" on every Python version
        return self.value


class Origin(str, enum.Enum):
    """Where a point's time came from. A str, so rows loaded from JSON ('live') compare equal to it."""

    LIVE = "live"  # measured on this server just now
    RECORDED = "recorded"  # measured on a recording machine, shipped in a pack
    DERIVED = "derived"  # a recorded step times the steps of an epoch
    PREDICTED = "predicted"  # the machine's cost model, for a point nobody recorded

    def __str__(self) -> str:
        return self.value


def is_ok(row: Mapping[str, Any] | None, key: str = "median_s") -> bool:
    """True when the row was measured and holds a positive, finite `key` (the time by default)."""
    if not row or row.get("status") != Status.OK:
        return False
    value = row.get(key)
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
