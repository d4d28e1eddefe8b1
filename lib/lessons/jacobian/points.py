"""A point of the Jacobian page: one method's Jacobian at one val on one device (lib.core.point.Point),
in the series it is drawn in ('cpu (live, this server)'), with what the lesson reads from it by name.

    point = MethodPoint.of_row(row)    # where a labelled row comes in (lib.lessons.jacobian.screen)
    point.method, point.val, point.median_s, point.ok, point.status
    point.row()                        # back to a row at the edges: the chart's data, the table
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from lib.core.crossover import spread
from lib.core.point import Frozen, Point
from lib.core.rows import Status

# A record of Altair's data (the chart's edge): a point's row, with the columns the chart draws it by.
ChartRow = dict[str, Any]


@dataclass(frozen=True)
class MethodPoint:
    """One method's Jacobian at one val on one device, in its series (where it was measured)."""

    series: str
    point: Point

    @classmethod
    def of_row(cls, row: Mapping[str, Any]) -> MethodPoint:
        """A row labelled with its series (lib.lessons.common.onscreen.labelled) as a point in that series."""
        return cls(row["series"], Point.from_row({k: v for k, v in row.items() if k != "series"}))

    def row(self) -> dict[str, Any]:
        """The point as the row it came from, for the edges that read rows (charts, tables, the noise rule)."""
        return dict(self._row)  # a copy: a chart's row adds its own columns

    @cached_property
    def _row(self) -> dict[str, Any]:  # to_row walks every field and the sentences ask often: once a point
        return {**self.point.to_row(), "series": self.series}

    @property
    def settings(self) -> Frozen:
        return self.point.settings

    @property
    def method(self) -> str:
        return str(self.settings["method"])

    @property
    def val(self) -> int:
        return int(self.settings["val"])

    @property
    def device(self) -> str:
        return self.point.device

    @property
    def ok(self) -> bool:
        """Measured, with a positive, finite median (lib.core.rows.is_ok)."""
        return self.point.ok

    @property
    def median_s(self) -> float | None:
        return self.point.median_s

    @property
    def status(self) -> Status:
        return self.point.status

    @property
    def message(self) -> str | None:
        return self.point.message

    @property
    def spread(self) -> float:
        """How uncertain its time is (lib.core.crossover.spread: the IQR, or a prediction's band)."""
        return spread(self.row())


def timed(point: MethodPoint | None) -> bool:
    """Whether there is a point, and it was measured."""
    return point is not None and point.ok
