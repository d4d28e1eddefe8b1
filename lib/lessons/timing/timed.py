"""A matmul point on the Timing pitfalls page: the point (lib.core.point.Point) and the series it is drawn
in ('cpu (live, this server)'), with the few numbers the lesson reads from it by name.

    timed = Timed.of_row(row)        # where a labelled row comes in (lib.lessons.timing.view.screen)
    timed.size, timed.median_s, timed.cold_s, timed.rate, timed.copy_s
    timed.row()                      # back to a row at the edges: the chart's data, the table, the notes
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from lib.core.crossover import spread
from lib.core.point import Point
from lib.core.rows import Status


def _positive(value: float | None) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


# A record of Altair's data (the chart's edge): a point's row, with the columns the chart draws it by.
ChartRow = dict[str, Any]


@dataclass(frozen=True)
class Timed:
    """One matmul point on screen, in its series (where it was measured)."""

    series: str
    point: Point

    @classmethod
    def of_row(cls, row: Mapping[str, Any]) -> Timed:
        """A row labelled with its series (lib.lessons.common.onscreen.labelled) as a point in that series."""
        return cls(row["series"], Point.from_row({k: v for k, v in row.items() if k != "series"}))

    def row(self) -> dict[str, Any]:
        """The point as the row it came from, for the edges that read rows (charts, tables, the noise rule)."""
        return dict(self._row)  # a copy: a chart's row adds its own columns

    @cached_property
    def _row(self) -> dict[str, Any]:  # to_row walks every field and the sentences ask often: once a point
        return {**self.point.to_row(), "series": self.series}

    @property
    def size(self) -> int:
        return int(self.point.settings["size"])

    @property
    def device(self) -> str:
        return self.point.device

    @property
    def sync(self) -> bool:
        return bool(self.point.settings.get("sync", True))

    @property
    def dtype(self) -> str:
        return str(self.point.settings.get("dtype"))

    @property
    def ok(self) -> bool:
        """Measured, with a positive, finite median (lib.core.rows.is_ok)."""
        return self.point.ok

    @property
    def cold_ok(self) -> bool:
        """Measured, with a positive, finite first call."""
        return self.point.status == Status.OK and _positive(self.cold_s)

    @property
    def median_s(self) -> float | None:
        return self.point.median_s

    @property
    def cold_s(self) -> float | None:
        return self.point.cold_s

    @property
    def rate(self) -> float | None:
        """Achieved FLOP/s."""
        return self.point.counts.achieved_flops_per_s

    @property
    def copy_s(self) -> float | None:
        """The host-to-device copy timed on its own, where it was."""
        return self.point.phases.get("transfer")

    @property
    def spread(self) -> float:
        """How uncertain its time is (lib.core.crossover.spread: the IQR, or a prediction's band)."""
        return spread(self.row())
