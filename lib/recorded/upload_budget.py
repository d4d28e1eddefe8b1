"""How much one visitor's uploads may hold, and the server's ledger of what every visitor holds.

A few sessions each uploading dozens of packs would hold gigabytes of the server's memory, even after
their tabs closed. So every upload is bounded per file, per session
and per server, each file is read once per session (not once per rerun), and a session's rows are
given back when it ends:

    held = SessionUploads()                        # one per visitor session (ui.sources keeps it)
    sources, dropped = held.read([(file_id, name, get_bytes), ...])   # a file over a cap: Source.error
    held.release()                                 # the session ended: rows, view and ledger share let go

What is refused says which cap it met and what to do, in one line; nothing else on the page is lost.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lib.recorded.recording import Recording
from lib.recorded.uploads import Source, UploadLimits, read_uploads

LIMITS = UploadLimits()


class Ledger:
    """Rows and bytes held by every session's uploads together, so the server's share has a ceiling."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[int, tuple[int, int]] = {}  # holder id -> (rows, bytes)

    def take(self, holder: int, rows: int, nbytes: int, limits: UploadLimits) -> bool:
        """Add to the holder's share if the server stays within its caps; False (nothing taken) if not."""
        with self._lock:
            all_rows = sum(r for r, _ in self._held.values()) + rows
            all_bytes = sum(b for _, b in self._held.values()) + nbytes
            if all_rows > limits.server_rows or all_bytes > limits.server_bytes:
                return False
            had_rows, had_bytes = self._held.get(holder, (0, 0))
            self._held[holder] = (had_rows + rows, had_bytes + nbytes)
            return True

    def give_back(self, holder: int, rows: int, nbytes: int) -> None:
        with self._lock:
            had_rows, had_bytes = self._held.get(holder, (0, 0))
            left = (max(0, had_rows - rows), max(0, had_bytes - nbytes))
            if left == (0, 0):
                self._held.pop(holder, None)
            else:
                self._held[holder] = left

    def release(self, holder: int) -> None:
        with self._lock:
            self._held.pop(holder, None)

    def totals(self) -> tuple[int, int]:
        """(rows, bytes) held by all sessions now."""
        with self._lock:
            return sum(r for r, _ in self._held.values()), sum(b for _, b in self._held.values())


LEDGER = Ledger()


@dataclass
class _File:
    source: Source
    rows: int = 0
    nbytes: int = 0
    keys: frozenset[str] = frozenset()


@dataclass
class SessionUploads:
    """One visitor's uploads: each file read once, within the session's and the server's caps.
    `view` and `recordings` are what the pages build from them; release() lets all of it go."""

    ledger: Ledger = field(default_factory=lambda: LEDGER)
    limits: UploadLimits = field(default_factory=lambda: LIMITS)
    view: Any = None  # the page's compared view, with the key it was built for: (key, view)
    recordings: list[Recording] = field(default_factory=list)  # the uploads as every lesson page reads them
    # what else goes with the session, by name (ui: Streamlit's copy of the files, the widget's file objects)
    also_release: dict[str, Callable[[], None]] = field(default_factory=dict)
    _files: dict[str, _File] = field(default_factory=dict)  # file id -> a file read and held
    _refused: dict[str, Source] = field(default_factory=dict)  # file id -> why it was not
    _after_refusal: tuple[str, ...] = ()  # the files the widget returns once refused ones are let go
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def read(self, files: Sequence[tuple[str, str, Callable[[], bytes]]]) -> tuple[list[Source], list[str]]:
        """Each (file id, name, its bytes when called) as a Source, in order; a file read before is not read
        again (nor are its bytes asked for).
        Also the ids of the files refused (over a cap, or unreadable), whose bytes the caller lets go:
        the widget then no longer returns them, so their messages are shown until the files change."""
        with self._lock:
            ids = [file_id for file_id, _, _ in files]
            for file_id in [f for f in self._files if f not in ids]:  # removed from the widget: given back
                gone = self._files.pop(file_id)
                self.ledger.give_back(id(self), gone.rows, gone.nbytes)
            if tuple(ids) != self._after_refusal:  # the visitor changed the files: old refusals are done with
                self._refused = {f: s for f, s in self._refused.items() if f in ids}
            sources, dropped = [], []
            for file_id, name, data in files:
                if file_id in self._files:
                    sources.append(self._files[file_id].source)
                    continue
                refused = self._refused.get(file_id)
                if refused is None:
                    entry = self._read(name, data())
                    if entry.source.pack is not None:
                        self._files[file_id] = entry
                        sources.append(entry.source)
                        continue
                    refused = self._refused[file_id] = entry.source
                sources.append(refused)
                dropped.append(file_id)
            if dropped:
                self._after_refusal = tuple(f for f in ids if f not in dropped)
            sources += [s for f, s in self._refused.items() if f not in ids]
            return sources, dropped

    def _read(self, name: str, data: bytes) -> _File:
        limits = self.limits
        if len(self._files) >= limits.session_files:
            return _File(
                Source(
                    name,
                    error=f"{name}: not read: this page reads at most {limits.session_files} "
                    "files at a time; remove one to add another",
                )
            )
        held_bytes = sum(f.nbytes for f in self._files.values())
        if held_bytes + len(data) > limits.session_bytes:
            return _File(
                Source(
                    name,
                    error=f"{name}: not read: with it your files would hold more than "
                    f"{limits.session_bytes / 1e6:.0f} MB, the most one visitor's uploads "
                    "may; remove a file to add this one",
                )
            )
        [source] = read_uploads([(name, data)], limits=limits)
        if source.pack is None:
            return _File(source)
        rows = len(source.pack.rows)
        held_rows = sum(f.rows for f in self._files.values())
        if held_rows + rows > limits.session_rows:
            return _File(
                Source(
                    name,
                    error=f"{name}: not read: its {rows:,} rows would bring your files past "
                    f"{limits.session_rows:,} rows, the most one visitor's uploads may "
                    "hold; remove a file to add this one",
                )
            )
        keys = frozenset(k for row in source.pack.rows for k in row)
        held_keys = frozenset().union(*(f.keys for f in self._files.values()))
        if len(held_keys | keys) > limits.session_keys:
            return _File(
                Source(
                    name,
                    error=f"{name}: not read: with it your files would have more than "
                    f"{limits.session_keys} different fields in their rows; remove a file "
                    "to add this one",
                )
            )
        if not self.ledger.take(id(self), rows, len(data), limits):
            return _File(
                Source(
                    name,
                    error=f"{name}: not read: the server holds as many uploaded results as it "
                    "can for all its visitors right now; try again in a few minutes",
                )
            )
        return _File(source, rows, len(data), keys)

    def held(self) -> tuple[int, int]:
        """(rows, bytes) this session's files hold."""
        with self._lock:
            return sum(f.rows for f in self._files.values()), sum(f.nbytes for f in self._files.values())

    def release(self) -> None:
        """The session ended: its parsed rows, view and recordings are let go and its share given back."""
        with self._lock:
            self._files.clear()
            self._refused.clear()
            self.view = None
            self.recordings = []
            self.ledger.release(id(self))
        for let_go in list(self.also_release.values()):
            let_go()
        trim_memory()


_LIBC: Any = None


def trim_memory() -> bool:
    """Hand freed heap pages back to the system (glibc's malloc_trim): a row's dict is larger than
    Python's small-object allocator takes, so it comes from malloc, which keeps freed pages for
    reuse unless asked. False where there is no glibc."""
    global _LIBC
    if _LIBC is None:
        name = ctypes.util.find_library("c")
        try:
            _LIBC = ctypes.CDLL(name) if name else False
        except OSError:
            _LIBC = False
    if not _LIBC or not hasattr(_LIBC, "malloc_trim"):
        return False
    _LIBC.malloc_trim(0)
    return True
