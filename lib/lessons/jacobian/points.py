"""A point of the Jacobian page: one method's Jacobian at one val on one device (lib.core.point.Point),
in the series it is drawn in ('cpu (live, this server)'), with what the lesson reads from it by name.

    point = MethodPoint.of_row(row)    # where a labelled row comes in (lib.lessons.jacobian.screen); InSeries
    point.method, point.val, point.median_s, point.ok, point.status
    point.row()                        # back to a row at the edges: the chart's data, the table
"""

from __future__ import annotations

from dataclasses import dataclass

from lib.core.point import Frozen
from lib.lessons.common.in_series import InSeries


@dataclass(frozen=True)
class MethodPoint(InSeries):
    """One method's Jacobian at one val on one device, in its series (where it was measured)."""

    @property
    def settings(self) -> Frozen:
        return self.point.settings

    @property
    def method(self) -> str:
        return str(self.settings["method"])

    @property
    def val(self) -> int:
        return int(self.settings["val"])


def timed(point: MethodPoint | None) -> bool:
    """Whether there is a point, and it was measured."""
    return point is not None and point.ok
