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
from lib.core.rows import Origin
from lib.lessons.common.live import LiveCurve
from lib.lessons.training.step_point import StepPoint


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


CurvePoint = StepPoint | LivePoint  # a Training curve's point: recorded (derived, predicted) or measured here


def live_points(curve: LiveCurve) -> list[LivePoint]:
    """The live sweep's points as the Training lesson reads them, each with when it was measured once it was."""
    return [LivePoint(p, curve.measured_at) for p in curve.points]


def curve_rows(points: Sequence[CurvePoint]) -> list[dict[str, Any]]:
    """A curve as the rows the words that still read rows, and the chart's data, take."""
    return [p.to_row() for p in points]
