"""Where one step's time went, in bars and in words. Every number in them comes from a row.

Used by the app's pages (no Streamlit here, so the words are unit-tested without a browser). What
holds the step back (four regimes, the roofline) and the sentence for these bars live in
lib.lessons.common.verdict; the crossover and 'A against B' sentences in lib.lessons.common.voice.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SPLIT_PARTS = {
    "busy": "running kernels (on a CPU: operators)",  # arithmetic or memory traffic: the verdict says which
    "transfer": "copying the batch in",
    "overhead": "overhead: Python, dispatch, launching, waiting",
}


class SplitSource(str, enum.Enum):
    """Where a split's busy time came from. A str, so it reads as the words it always was."""

    PROFILE = "profile"  # the step's own profile: its kernels (operators) and their busy time
    COST_MODEL = "cost model"  # a predicted point: the model's share of issuing the work


@dataclass(frozen=True)
class TimeSplit:
    """One step's time (step_s) in the parts of SPLIT_PARTS, each in seconds, and how many kernels ran."""

    step_s: float
    busy: float
    transfer: float
    overhead: float
    kernels: float | None
    source: SplitSource

    def parts(self) -> dict[str, float]:
        """Each part of SPLIT_PARTS by its name, in its order: the bars' segments."""
        seconds = {"busy": self.busy, "transfer": self.transfer, "overhead": self.overhead}
        return {name: seconds[name] for name in SPLIT_PARTS}


def time_split(row: Mapping[str, Any]) -> TimeSplit | None:
    """Where one step's time went, the one definition the bars and the words both use:
    busy = the device ran kernels (on the CPU: operators) for this long; transfer = copying the
    batch in, where the row timed it; overhead = the rest of the step (launching work from Python,
    autograd, dispatch, waiting). From the row's profile, or for a predicted point from the cost
    model's share of issuing the work (said so in `source`). None when the row carries neither."""
    t = row.get("median_s")
    if not t:
        return None
    if row.get("device_busy_s") is not None and row.get("kernels"):
        busy = min(float(row["device_busy_s"]), t)
        source = SplitSource.PROFILE
    elif row.get("launch_share") is not None:
        busy = t * (1.0 - float(row["launch_share"]))
        source = SplitSource.COST_MODEL
    else:
        return None
    transfer = min(float(row.get("phase_transfer_s") or 0.0), t - busy)
    return TimeSplit(t, busy, transfer, max(0.0, t - busy - transfer), row.get("kernels"), source)
