"""A recording resumed from its own pack (`python -m lib sweep --resume`): the rows it keeps, and why
a pack of another sweep is refused rather than written over.

Every row of the earlier pack must be a point of this sweep (its workload, its `swept`, one of its
devices and every setting of one of its points): measured rows (ok, out of memory) are kept as they
are, refused ones are asked again and replaced by their new row. A row that is no point of this
sweep would be dropped when the pack is written again, so the resume is refused instead, naming it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lib.core.point import Point
from lib.core.results import PackError
from lib.core.rows import Status
from lib.core.workload import Settings, Workload

Key = tuple


class Resume:
    """The points of one sweep (each on each device), keyed by every setting; `kept` the earlier points
    taken as they are."""

    def __init__(
        self, workload: Workload, points: Sequence[Settings | Point], devices: Sequence[str], swept: str
    ) -> None:
        self.workload, self.swept = workload, swept
        self.defaults = workload.defaults()
        names: set[str] = set()
        for p in points:  # a point whose settings did not resolve is an error point: its settings as given
            names.update(_settings(p).keys())
        self.names = sorted(names)
        self.wanted = {self.key(p, d) for p in points for d in devices}
        self.kept: dict[Key, Point] = {}
        self.earlier: list[Point] = []

    def key(self, point: Settings | Point, device: str) -> Key:
        """What tells a point apart: its device and every setting (one missing from an older point: its default)."""
        settings = _settings(point)
        return (str(device), *(settings.get(n, self.defaults.get(n)) for n in self.names))

    def take(self, points: Sequence[Point], where: str) -> None:
        """Keep the measured points of `points` (the pack at `where`); PackError naming the first one
        that is no point of this sweep, or a second one of one point (one of the two would be lost)."""
        seen: dict[Key, int] = {}
        for i, point in enumerate(points):
            key = self.key(point, point.device)
            if point.workload != self.workload.name or point.swept != self.swept or key not in self.wanted:
                raise PackError(
                    f"--resume: {where} holds rows[{i}] ({_what(point)}), which is not a point of this sweep "
                    f"({self.workload.name} over {self.swept}) and would be lost; resume with the --over, --set "
                    f"and --devices that wrote it, or give another --out"
                )
            if key in seen:
                raise PackError(
                    f"--resume: {where} holds rows[{seen[key]}] and rows[{i}] of one point; "
                    "one would be lost, so give another --out"
                )
            seen[key] = i
            self.earlier.append(point)
            if point.status in (Status.OK, Status.OOM):
                self.kept[key] = point

    def point_for(self, point: Settings | Point, device: str) -> Point | None:
        """The earlier point of this one on this device, if it was measured."""
        return self.kept.get(self.key(point, device))

    def with_rest(self, points: Sequence[Point]) -> list[Point]:
        """`points` (the sweep so far) and every earlier point they do not have yet: what a pack written
        half way holds, so stopping before a refused point is asked again keeps its row."""
        have = {self.key(p, p.device) for p in points}
        return [*points, *(p for p in self.earlier if self.key(p, p.device) not in have)]


def _settings(point: Settings | Point) -> Mapping[str, Any]:
    return point if isinstance(point, Settings) else point.settings


def _what(point: Point) -> str:
    return f"{point.workload} over {point.swept or 'no setting named'} on {point.device}"
