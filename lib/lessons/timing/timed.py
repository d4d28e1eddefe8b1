"""A matmul point on the Timing pitfalls page: the point (lib.core.point.Point) and the series it is drawn
in ('cpu (live, this server)'), with the few numbers the lesson reads from it by name.

    timed = Timed.of_row(row)        # where a labelled row comes in (lib.lessons.timing.view.screen)
    timed.size, timed.median_s, timed.cold_s, timed.rate, timed.copy_s
    timed.row()                      # back to a row at the edges: the chart's data, the table, the notes
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lib.core.rows import Status
from lib.lessons.common.in_series import InSeries


def _positive(value: float | None) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


@dataclass(frozen=True)
class Timed(InSeries):
    """One matmul point on screen, in its series (where it was measured)."""

    @property
    def size(self) -> int:
        return int(self.point.settings["size"])

    @property
    def sync(self) -> bool:
        return bool(self.point.settings.get("sync", True))

    @property
    def dtype(self) -> str:
        return str(self.point.settings.get("dtype"))

    @property
    def cold_ok(self) -> bool:
        """Measured, with a positive, finite first call."""
        return self.point.status == Status.OK and _positive(self.cold_s)

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
