"""A recorded pack as a typed value: where it came from, the machine that recorded it, its points.

    recordings, problems = load_recordings()     # lib.recorded: every shipped pack, its points parsed once
    recording.points                             # (Point, ...): what lessons and charts read
    recording.machine.gpus, recording.date       # its Fingerprint (lib.recorded.pack)
    machine_text(recording.machine)              # 'NVIDIA H200, 2026-11-23' (lib.recorded.sources)

`pack` is the same pack as a dict, for the code that still reads a pack's rows (lib.recorded.sources'
row functions, the adapters): recording_of gives a pack dict's own Recording back.

May import lib.core and lib.workloads; never lessons, charts or Streamlit.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from lib.core.cache import kept
from lib.core.devices import is_cuda
from lib.core.point import Point
from lib.recorded.pack import Fingerprint, Pack

# a pack dict's id -> the Recording it is the dict of: an adapter handed a pack finds its points typed already
_OF_PACK: weakref.WeakValueDictionary[int, Recording] = weakref.WeakValueDictionary()


@dataclass(frozen=True, eq=False)  # one object per pack: caches key what is built from it by its identity
class Recording:
    """One pack (or one machine's packs merged: lib.recorded.sources.source_recording), its points in
    the pack's order."""

    path: str  # the file, or the merged files' names
    machine: Fingerprint
    points: tuple[Point, ...]
    pack: Mapping[str, Any]  # the pack as a dict, its rows the same points': the adapter for row readers

    def __post_init__(self) -> None:
        _OF_PACK[id(self.pack)] = self

    @cached_property
    def file_pack(self) -> Pack:
        """The pack as its file holds it (without the 'path' the loader adds), typed: what Your results and
        the gallery compare."""
        return Pack.from_json({k: v for k, v in self.pack.items() if k != "path"})

    @property
    def date(self) -> str:
        """When the pack was recorded, as its machine says ('2026-11-23T10:00:00+00:00'), or ''."""
        return self.machine.date

    @cached_property
    def has_gpu(self) -> bool:
        """Whether it holds a GPU's points: every page asks on every run, and a CPU pack has thousands."""
        return any(is_cuda(p.device) for p in self.points)

    def of(self, workload: str) -> Iterable[Point]:
        """Its points of one workload, on any device."""
        return (p for p in self.points if p.workload == workload)


def recording_of(pack: Mapping[str, Any]) -> Recording:
    """The Recording of a pack dict: the one it is the dict of (a loaded or merged pack), else typed here
    (a visitor's upload, a pack a caller made)."""
    own = _OF_PACK.get(id(pack))
    return own if own is not None and own.pack is pack else _typed(pack)


@kept(64)
def _typed(pack: Mapping[str, Any]) -> Recording:
    """A pack dict's rows typed once per pack object per process."""
    machine = Fingerprint.from_json(pack["machine"])
    return Recording(str(pack.get("path") or ""), machine, tuple(Point.from_row(r) for r in pack["rows"]), pack)
