"""A point as a page draws it: the point (lib.core.point.Point) and the series it is drawn in
('cpu (live, this server)'), with what every lesson reads from it by name. A lesson's own points add the
settings it reads (Timing's Timed, Jacobian's MethodPoint); the data pipeline uses it as it is.

    shown = InSeries.of_row(row)     # where a labelled row comes in (lib.lessons.common.onscreen.labelled)
    shown.median_s, shown.ok, shown.status, shown.spread
    shown.row()                      # back to a row at the edges: the chart's data, the table, the notes
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

from lib.core.crossover import spread
from lib.core.point import Point
from lib.core.rows import Status

# A record of Altair's data (the chart's edge): a point's row, with the columns the chart draws it by.
ChartRow = dict[str, Any]

_Shown = TypeVar("_Shown", bound="InSeries")


@dataclass(frozen=True)
class InSeries:
    """One point on screen, in its series (where it was measured)."""

    series: str
    point: Point

    @classmethod
    def of_row(cls: type[_Shown], row: Mapping[str, Any]) -> _Shown:
        """A row labelled with its series as a point in that series."""
        return cls(row["series"], Point.from_row({k: v for k, v in row.items() if k != "series"}))

    def row(self) -> ChartRow:
        """The point as the row it came from, for the edges that read rows (charts, tables, the noise rule)."""
        return dict(self._row)  # a copy: a chart's row adds its own columns

    @cached_property
    def _row(self) -> ChartRow:  # to_row walks every field and the sentences ask often: once a point
        return {**self.point.to_row(), "series": self.series}

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
