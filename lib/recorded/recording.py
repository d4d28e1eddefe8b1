"""A recorded pack as a typed value: where it came from, the machine that recorded it, its points.

    recordings, problems = load_recordings()     # lib.recorded: every shipped pack, its points parsed once
    recording.points                             # (Point, ...): what lessons and charts read
    machine_text(recording.machine)              # 'NVIDIA H200, 2026-11-23' (lib.recorded.sources)

A pack file's machine fingerprint stays the mapping lib.core.results validated (a file's record, read
by name at the edge: `machine`). `pack` is the same pack as a dict, for the code that still reads a
pack's rows (lib.recorded.sources' row functions, the adapter).

May import lib.core and lib.workloads; never lessons, charts or Streamlit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lib.core.cache import kept
from lib.core.point import Point

MachineRecord = Mapping[str, Any]  # a pack's machine fingerprint, as lib.core.results validates it in a file


@dataclass(frozen=True, eq=False)  # one object per pack: caches key what is built from it by its identity
class Recording:
    """One pack (or one machine's packs merged: lib.recorded.sources.source_recording), its points in
    the pack's order."""

    path: str  # the file, or the merged files' names
    machine: MachineRecord
    points: tuple[Point, ...]
    pack: Mapping[str, Any]  # the pack as a dict, its rows the same points': the adapter for row readers

    @property
    def date(self) -> str:
        """When the pack was recorded, as its machine says ('2026-11-23T10:00:00+00:00'), or ''."""
        return str(self.machine.get("date") or "")

    def of(self, workload: str) -> Iterable[Point]:
        """Its points of one workload, on any device."""
        return (p for p in self.points if p.workload == workload)


@kept(64)
def recording_of(pack: Mapping[str, Any]) -> Recording:
    """The Recording of a pack dict that lib.recorded did not load (a visitor's upload, a pack a caller made):
    its rows typed once per pack object per process. A loaded pack has its own: load_recordings."""
    return Recording(str(pack.get("path") or ""), pack["machine"], tuple(Point.from_row(r) for r in pack["rows"]), pack)
