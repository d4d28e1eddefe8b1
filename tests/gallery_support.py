"""Packs and helpers for the gallery tests.

The CPU pack is measured for real on this machine (the gallery sweep, short budget, one thread).
Packs with other machine labels are TEST FIXTURES: a real pack whose fingerprint label says it is a
fixture copy, so the gallery sees different content. The GPU pack is the shipped H100 pack
(lib/recorded/h100_training.json, measured on an H100) under a fixture label, since the
shipped one itself is refused as a duplicate of what the gallery already shows.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
H100_PACK = ROOT / "lib" / "recorded" / "h100_training.json"
H200_PACK = ROOT / "lib" / "recorded" / "h200_training.json"


@functools.lru_cache(maxsize=1)
def _cpu_pack() -> str:
    from lib.core.results import dumps_pack
    from lib.recorded.gallery.sweep import record_gallery_pack

    return dumps_pack(record_gallery_pack(["cpu"], budget_s=0.01, num_threads=1))


def cpu_pack() -> dict[str, Any]:
    """This machine's gallery sweep, measured once per test process."""
    return json.loads(_cpu_pack())


def relabelled(pack: dict[str, Any], label: str) -> dict[str, Any]:
    """A TEST FIXTURE copy of a pack under another machine label (different content for the gallery)."""
    out = copy.deepcopy(pack)
    out["machine"]["label"] = label
    for row in out["rows"]:
        row["machine"] = label
    return out


def fixture_bytes(n: int) -> bytes:
    """The n-th distinct CPU pack (a fixture copy of the real one)."""
    return json.dumps(relabelled(cpu_pack(), f"TEST FIXTURE copy {n} of this CPU's pack")).encode()


def gpu_fixture_bytes() -> bytes:
    pack = json.loads(H100_PACK.read_text())
    return json.dumps(relabelled(pack, "TEST FIXTURE: the shipped H100 pack under another label")).encode()


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'gallery.sqlite'}"


def add_many(
    url: str, payloads: list[bytes], session: str, barrier=None, course: str = "", max_per_course: int = 300
) -> list[int | str]:
    """Add each payload through a fresh engine of its own (the tests run this in child processes):
    the new entry's id, or the kind of refusal (GalleryError.kind) where it was refused."""
    import sqlalchemy

    from lib.recorded.gallery.entry import GalleryError
    from lib.recorded.gallery.store import Gallery, Limits

    engine = sqlalchemy.create_engine(url)
    gallery = Gallery(engine, Limits(max_actions=1000, max_per_course=max_per_course))
    if barrier is not None:
        barrier.wait(timeout=60)  # every writer starts at the same moment
    out: list[int | str] = []
    for n, data in enumerate(payloads):
        try:
            out.append(
                gallery.add(f"p{n}.json", data, name=f"writer {session} #{n}", course=course, session=session).id
            )
        except GalleryError as err:
            out.append(err.kind)
    engine.dispose()
    return out
