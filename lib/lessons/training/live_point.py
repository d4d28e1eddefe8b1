"""One point of this server's live Training curve, typed: the measured Point, when it was measured, and
whether the screen draws it as the live CPU's (its row then says origin 'live').

    live = live_points(curve)          # a LiveCurve's points, each knowing when it was measured
    point.device, point.settings, point.to_row()

No Streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from lib.core.point import Frozen, Point
from lib.core.rows import Origin, Status
from lib.lessons.common.live import LiveCurve
from lib.lessons.training.step_point import DayEpoch, EpochBand, StepPoint


@dataclass(frozen=True)
class LivePoint:
    point: Point
    measured_at: float | None = None  # the clock's time when its sweep ended (None: still measuring)
    on_live_cpu: bool = False  # drawn as this server's live CPU curve: its origin is LIVE

    @property
    def device(self) -> str:
        return self.point.device

    @property
    def settings(self) -> Frozen:
        return self.point.settings

    @property
    def origin(self) -> Origin | None:
        return Origin.LIVE if self.on_live_cpu else self.point.origin

    # the read surface StepPoint shares (lib.lessons.training.reading), each from the measured Point
    @property
    def median_s(self) -> float | None:
        return self.point.median_s

    @property
    def iqr_s(self) -> float | None:
        return self.point.iqr_s

    @property
    def epoch_s(self) -> float | None:
        return self.point.epoch_s

    @property
    def status(self) -> Status:
        return self.point.status

    @property
    def message(self) -> str:
        return self.point.message

    @property
    def machine(self) -> str | None:
        return self.point.machine

    @property
    def steps_per_epoch(self) -> float | None:
        return self.point.counts.steps_per_epoch

    @property
    def epoch_band(self) -> EpochBand | None:
        return _band(self.point.counts.epoch_s_low, self.point.counts.epoch_s_high)

    @property
    def median_band(self) -> EpochBand | None:
        return _band(self.point.counts.median_s_low, self.point.counts.median_s_high)

    @property
    def by_recording(self) -> tuple[DayEpoch, ...]:
        return ()  # measured once, here

    @property
    def kernels(self) -> float | None:
        return self.point.counts.kernels

    @property
    def cold_s(self) -> float | None:
        return self.point.cold_s

    def as_live_cpu(self) -> LivePoint:
        return replace(self, on_live_cpu=True)

    def to_row(self) -> dict[str, Any]:
        """The row the words and the chart read: the point's, with when it was measured, then its origin."""
        row = self.point.to_row()
        if self.measured_at is not None:
            row["measured_at"] = self.measured_at
        if self.on_live_cpu:
            row["origin"] = Origin.LIVE.value
        return row


def _band(low: float | None, high: float | None) -> EpochBand | None:
    return None if low is None and high is None else EpochBand(low, high)


CurvePoint = StepPoint | LivePoint  # a Training curve's point: recorded (derived, predicted) or measured here


def live_points(curve: LiveCurve) -> list[LivePoint]:
    """The live sweep's points as the Training lesson reads them, each with when it was measured once it was."""
    return [LivePoint(p, curve.measured_at) for p in curve.points]


def curve_rows(points: Sequence[CurvePoint]) -> list[dict[str, Any]]:
    """A curve as the rows the words that still read rows, and the chart's data, take."""
    return [p.to_row() for p in points]
