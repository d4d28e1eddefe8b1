"""How the Training words read a curve's point, recorded or live (a CurvePoint): its time, whether it has
one, how uncertain it is, and where it lies on the swept axis. The same rules lib.core.rows.is_ok and
lib.core.crossover.spread apply to a row, read from the typed point.

    timed(point, Clock.EPOCH), time_s(point, Clock.EPOCH), spread_s(point, Clock.EPOCH), at(point, "batch_size")

No Streamlit.
"""

from __future__ import annotations

import math
from enum import Enum

from lib.core.rows import Status
from lib.core.workload import SettingValue
from lib.lessons.training.live_point import CurvePoint


class Clock(Enum):
    """Which of a point's times is read: one step's, or an epoch's (its steps_per_epoch steps)."""

    STEP = "median_s"
    EPOCH = "epoch_s"


def time_s(point: CurvePoint, clock: Clock = Clock.STEP) -> float | None:
    return point.epoch_s if clock is Clock.EPOCH else point.median_s


def timed(point: CurvePoint | None, clock: Clock = Clock.STEP) -> bool:
    """Whether the point ran and holds a positive, finite time on this clock."""
    if point is None or point.status != Status.OK:
        return False
    value = time_s(point, clock)
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def spread_s(point: CurvePoint, clock: Clock = Clock.STEP) -> float:
    """How uncertain the time is: its band where it has one (a prediction's, the days'), else its IQR,
    scaled to an epoch on the epoch's clock."""
    band = point.epoch_band if clock is Clock.EPOCH else point.median_band
    if band is not None and isinstance(band.low, (int, float)) and isinstance(band.high, (int, float)):
        return float(band.high) - float(band.low)
    iqr = point.iqr_s or 0.0
    return float(iqr) * float(point.steps_per_epoch or 1) if clock is Clock.EPOCH else float(iqr)


def at(point: CurvePoint, over: str) -> SettingValue | None:
    """Where the point lies on the swept axis: its value of that setting."""
    return point.settings.get(over)
