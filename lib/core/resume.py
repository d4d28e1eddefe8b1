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

from lib.core.results import PackError, setting_keys
from lib.core.rows import Status
from lib.core.workload import Settings, Workload

Key = tuple


class Resume:
    """The points of one sweep (each on each device), keyed by every setting; `kept` the earlier rows
    taken as they are."""

    def __init__(self, workload: Workload, points: Sequence[Mapping[str, Any]], devices: Sequence[str],
                 swept: str) -> None:
        self.workload, self.swept = workload, swept
        self.defaults = workload.defaults()
        names: set[str] = set()
        for p in points:  # a point whose settings did not resolve is an error row: its settings are its keys
            names.update(p.keys() if isinstance(p, Settings) else setting_keys(p))
        self.names = sorted(names)
        self.wanted = {self.key(p, d) for p in points for d in devices}
        self.kept: dict[Key, dict[str, Any]] = {}
        self.earlier: list[dict[str, Any]] = []

    def key(self, row: Mapping[str, Any], device: str) -> Key:
        """What tells a point apart: its device and every setting (one missing from an older row: its default)."""
        return (str(device), *(row.get(n, self.defaults.get(n)) for n in self.names))

    def take(self, rows: Sequence[Mapping[str, Any]], where: str) -> None:
        """Keep the measured rows of `rows` (the pack at `where`); PackError naming the first row that
        is no point of this sweep, or a second row of one point (one of the two would be lost)."""
        seen: dict[Key, int] = {}
        for i, row in enumerate(rows):
            key = self.key(row, str(row.get("device")))
            if row.get("workload") != self.workload.name or row.get("swept") != self.swept or key not in self.wanted:
                raise PackError(
                    f"--resume: {where} holds rows[{i}] ({_what(row)}), which is not a point of this sweep "
                    f"({self.workload.name} over {self.swept}) and would be lost; resume with the --over, --set "
                    f"and --devices that wrote it, or give another --out")
            if key in seen:
                raise PackError(f"--resume: {where} holds rows[{seen[key]}] and rows[{i}] of one point; "
                                "one would be lost, so give another --out")
            seen[key] = i
            self.earlier.append(dict(row))
            if row.get("status") in (Status.OK, Status.OOM):
                self.kept[key] = dict(row)

    def row_for(self, point: Mapping[str, Any], device: str) -> dict[str, Any] | None:
        """The earlier row of this point on this device, if it was measured."""
        return self.kept.get(self.key(point, device))

    def with_rest(self, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """`rows` (the sweep so far) and every earlier row of a point they do not have yet: what a pack
        written half way holds, so stopping before a refused point is asked again keeps its row."""
        have = {self.key(r, str(r.get("device"))) for r in rows}
        return [*rows, *(r for r in self.earlier if self.key(r, str(r.get("device"))) not in have)]


def _what(row: Mapping[str, Any]) -> str:
    swept = row.get("swept") or "no setting named"
    return f"{row.get('workload')} over {swept} on {row.get('device')}"
