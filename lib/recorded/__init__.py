"""Result packs measured on real GPUs with this project's CLI and shipped with the app, and the
one loader that reads them.

    recordings, problems = load_recordings()   # every pack here (or in $GPUWIN_RECORDED_DIR), parsed once
    recordings[0].pack                         # the same pack as a dict, for code that still reads rows

A pack that does not validate is left out and named in `problems`; the others are still used.
Each pack is a lib.recorded.recording.Recording (its machine a Fingerprint, its points typed once, with
the parse); its dict gets a 'path' key. The folder is listed at most once a second and read again only when
a file in it changes, so a pack dropped in while the server runs is picked up without a restart.

May import lib.core and lib.workloads; never lessons, charts or Streamlit.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import NamedTuple

from lib.core import point, results
from lib.core.cache import kept, on_disk
from lib.core.load import Load, pack_quiet
from lib.core.point import Point
from lib.core.results import PackError, load_pack
from lib.recorded import pack as pack_module
from lib.recorded import recording as recording_module
from lib.recorded.pack import Pack
from lib.recorded.recording import Recording

RECORDED_DIR = Path(__file__).resolve().parent


def recorded_dir() -> Path:
    """lib/recorded/, or $GPUWIN_RECORDED_DIR when set (tests point it at a fixture pack)."""
    return Path(os.environ.get("GPUWIN_RECORDED_DIR") or RECORDED_DIR)


LEASES_DIR = "leases"  # a machine recorded again on another lease: more days of the same recordings
RESCAN_S = 1.0  # a pack dropped in is seen within this long; every page run asks, often several times
_scanned: dict[Path, tuple[float, tuple]] = {}


def _stamp(directory: Path) -> tuple:
    """The folder's pack files with their times and sizes, listed again at most every RESCAN_S."""
    now = time.monotonic()
    seen = _scanned.get(directory)
    if seen is not None and now - seen[0] < RESCAN_S:
        return seen[1]
    # leases/: the same machine recorded again on another lease (day); each is its own recording,
    # merged by lib.recorded.sources.newest_rows into one curve with the days' range as its band
    patterns = ("*.json", "*.json.gz", f"{LEASES_DIR}/*.json", f"{LEASES_DIR}/*.json.gz")
    files = sorted(f for p in patterns for f in directory.glob(p)) if directory.is_dir() else []
    stamp = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    _scanned[directory] = (now, stamp)
    return stamp


class _Parsed(NamedTuple):
    """A pack file as parsed: the pack as lib.core.results validated it, and its rows as points."""

    pack: Pack
    points: tuple[Point, ...]


# Parsing and validating the shipped JSON takes up to seconds on a small host (the first visitor's wait), and
# typing its rows as points half a second more; the parsed pack with its points, pickled in the cache folder,
# loads in a few hundredths of a second. Keyed by the file's bytes and the loader's and the point's source, so
# an edited pack, a changed schema, a changed Point or Pack, or a changed _Parsed parses again.
@on_disk("pack", code=[results, point, pack_module, recording_module, Path(__file__)])
def _parsed_once(name: str, digest: str, _path: str) -> _Parsed:
    pack = Pack.from_json(load_pack(_path))
    return _Parsed(pack, tuple(Point.from_row(r) for r in pack.rows))


def _parsed(path: str) -> _Parsed:
    if Path(path).stat().st_size > results.MAX_PACK_BYTES:
        load_pack(path)  # refused there, unread: raises PackError
    data = Path(path).read_bytes()
    return _parsed_once(Path(path).name, hashlib.sha256(data).hexdigest(), path)


class _Loaded(NamedTuple):
    recordings: tuple[Recording, ...]
    problems: tuple[str, ...]


@kept(8)
def _load(stamp: tuple) -> _Loaded:
    recordings, problems = [], []
    for path, _, _ in stamp:
        try:
            pack, points = _parsed(path)
            machine = pack.machine.to_json()
            if pack_quiet(machine) is False:  # a wrong number with a real date on it: never drawn
                why = "; ".join(Load.reasons_of(machine)) or "its machine was busy"
                problems.append(f"{Path(path).name}: recorded while the machine was busy ({why}), so not shown")
                continue
            recordings.append(Recording(path, pack.machine, points, {**pack.to_json(), "path": path}))
        except PackError as err:
            problems.append(str(err))  # load_pack's message starts with the file's name
        except OSError as err:
            problems.append(f"{Path(path).name}: {err.strerror or err}")
    return _Loaded(tuple(recordings), tuple(problems))


def load_recordings(directory: str | Path | None = None) -> tuple[list[Recording], list[str]]:
    """Every pack in `directory` (default: recorded_dir()) as a Recording, and a line per file that could
    not be read."""
    loaded = _load(_stamp(Path(directory) if directory is not None else recorded_dir()))
    return list(loaded.recordings), list(loaded.problems)


def machine_recordings() -> tuple[list[Recording], list[str]]:
    """The shipped recordings a page lists as machines to compare (Your results, the gallery): each once,
    without leases/ (the same recordings on another day: a day of a machine's curve, not another machine)."""
    recordings, problems = load_recordings()
    return [r for r in recordings if Path(r.path).parent.name != LEASES_DIR], problems
