"""The one place results are kept: a bounded cache in this process, and a cache on disk between processes.

    @kept(entries=32)                                  # in this process, the 32 last-used results
    def tables(rows: list[dict], machine: str) -> dict: ...

    @on_disk("costmodel-machine", code=[costmodel])    # and on disk: a cold process loads it
    def fitted(observations: list, device_kind: str) -> CostModel: ...

A caller calls the function; the decorator decides. A result is keyed by what it depends on, the
call's arguments: a hashable argument by its value, a list or dict by the identity of the very object
(held, and compared with `is`: the packs lib.recorded parses come back as the same objects until a
file changes, so a new upload is a new list and is built anew), a tuple of those by each of its items
so (a fresh tuple of the packs' row lists finds what the same lists built). A parameter named with a leading underscore is handed to the function but not keyed (what the key
already names, e.g. the rows a digest stands for). Every cache has an entry count, so none grows
without bound on a server many visitors share; the disk folder keeps at most MAX_FILES files.

Streamlit's own caches are not used for results: ui.cache only binds this module's lifetime to
Streamlit's "clear cache" and keeps a visitor's session-scoped uploads.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import inspect
import os
import pickle
import sys
import tempfile
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

MAX_HELD = 256  # values a disk cache also keeps in memory, per function
MAX_FILES = 500  # a folder of stale fits (old packs, old code) is trimmed, oldest first
CACHE_DIR = Path(__file__).resolve().parents[2] / ".cache"
_MISSING = object()


@dataclass(frozen=True)
class CacheInfo:
    """What a kept function has done in this process (tests count builds through it)."""

    hits: int
    misses: int
    entries: int
    max_entries: int


class _Same:
    """A key part standing for one object by its identity (a list or dict has no value hash)."""

    __slots__ = ("held",)

    def __init__(self, held: Any) -> None:
        self.held = held

    def __hash__(self) -> int:
        return id(self.held)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.held is self.held


def _part(value: Any) -> Hashable:
    try:
        hash(value)
        return value
    except TypeError:
        pass
    if isinstance(value, tuple):
        return tuple(map(_part, value))
    return _Same(value)  # a list of thousands of rows: one identity, never an item at a time


class _Kept:
    """The process cache of one function: its last-used `entries` results, each for at most ttl_s."""

    def __init__(self, entries: int, ttl_s: float | None, copies: bool) -> None:
        self.entries, self.ttl_s, self.copies = entries, ttl_s, copies
        self._held: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.RLock] = {}
        self.hits = self.misses = 0

    def look(self, key: Hashable) -> Any:
        with self._lock:
            found = self._held.get(key)
            if found is None or (self.ttl_s is not None and time.time() - found[0] > self.ttl_s):
                return _MISSING
            self._held.move_to_end(key)
            self.hits += 1
        # a copy per caller where asked (a live result a page may change, as st.cache_data gave)
        return pickle.loads(found[1]) if self.copies else found[1]

    def put(self, key: Hashable, value: Any) -> None:
        stored = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL) if self.copies else value
        with self._lock:
            self._held[key] = (time.time(), stored)
            self._held.move_to_end(key)
            while len(self._held) > self.entries:
                self._held.popitem(last=False)

    def get(self, key: Hashable, build: Callable[[], Any]) -> Any:
        value = self.look(key)
        if value is not _MISSING:
            return value
        # one build per key at a time: thirty first visitors wait for one chart, not build thirty
        with self._lock:
            building = self._building.setdefault(key, threading.RLock())
        try:
            with building:
                value = self.look(key)
                if value is not _MISSING:
                    return value
                with self._lock:
                    self.misses += 1
                value = build()
                self.put(key, value)
                return value
        finally:
            with self._lock:
                self._building.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._held.clear()

    def info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self.hits, self.misses, len(self._held), self.entries)


_ALL: weakref.WeakSet[_Kept] = weakref.WeakSet()


def _keyed(function: Callable[..., Any]) -> Callable[..., Hashable]:
    """The key of a call: each argument the function names without a leading underscore."""
    signature = inspect.signature(function)

    def key(*args: Any, **kwargs: Any) -> Hashable:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple((name, _part(value)) for name, value in bound.arguments.items() if not name.startswith("_"))

    return key


def kept(entries: int, *, ttl_s: float | None = None, copies: bool = False) -> Callable[[F], F]:
    """Keep the function's results in this process: the `entries` last used, each for at most ttl_s
    seconds (None: until pushed out), handed out as they are, or as a fresh copy each (copies=True).
    The decorated function has .clear() and .info()."""

    def decorate(function: F) -> F:
        store, key = _Kept(entries, ttl_s, copies), _keyed(function)
        _ALL.add(store)

        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            return store.get(key(*args, **kwargs), lambda: function(*args, **kwargs))

        call.clear, call.info, call._store = store.clear, store.info, store  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return decorate


def on_disk(name: str, code: Sequence[ModuleType | Path]) -> Callable[[F], F]:
    """Keep the function's results on disk as well (values that take seconds to build from shipped data,
    e.g. a cost model fitted to a dense grid), so that a cold process loads them instead of building them.

    The key is the arguments themselves (pickled, hashed: a changed pack gives other arguments) and the
    source of the modules in `code` (a changed fitting rule rebuilds; a folder there: every .py file under
    it), so it works whatever the value is, as long as it pickles. The folder is $GPUWIN_CACHE_DIR or the
    repository's .cache/ (git-ignored); where it cannot be written, values are kept in memory only."""

    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        store = _Kept(MAX_HELD, None, False)
        _ALL.add(store)
        code_hash: list[str] = []

        def digest(*args: Any, **kwargs: Any) -> str:
            if not code_hash:
                code_hash.append(hashlib.sha256("\0".join([sys.version, *map(_source, code)]).encode()).hexdigest())
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            inputs = tuple(value for name, value in bound.arguments.items() if not name.startswith("_"))
            made = hashlib.sha256(code_hash[0].encode())
            made.update(pickle.dumps(inputs, protocol=4))
            return made.hexdigest()[:40]

        def loaded_or_built(key: str, args: tuple, kwargs: dict) -> Any:
            folder = cache_dir()
            path = folder / f"{name}-{key}.pkl" if folder is not None else None
            value = _read(path) if path is not None else _MISSING
            if value is _MISSING:
                value = function(*args, **kwargs)
                if path is not None:
                    _write(path, value)
            return value

        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            key = digest(*args, **kwargs)
            return store.get(key, lambda: loaded_or_built(key, args, kwargs))

        call.clear, call.info, call.code = store.clear, store.info, tuple(code)  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return decorate


def clear_all() -> None:
    """Forget every result this process keeps (the disk cache stays): Streamlit's "clear cache" (ui.cache)."""
    for store in list(_ALL):
        store.clear()


def entries() -> int:
    """How many results this process keeps, over every cache."""
    return sum(store.info().entries for store in list(_ALL))


def _source(code: ModuleType | Path) -> str:
    """A module's source; a file's text; a folder's: every .py file under it, each named (a value built by
    code spread over many modules is keyed by all of them, so no edit anywhere there leaves it stale)."""
    if isinstance(code, ModuleType):
        return inspect.getsource(code)
    files = [code] if code.is_file() else sorted(code.rglob("*.py"))
    return "\0".join(f"{f.relative_to(code.parent)}\0{f.read_text(encoding='utf-8')}" for f in files)


def cache_dir() -> Path | None:
    """Where on_disk keeps values: $GPUWIN_CACHE_DIR, else .cache/ in the repository; None when it
    cannot be made (a read-only checkout: memory only)."""
    folder = Path(os.environ.get("GPUWIN_CACHE_DIR") or CACHE_DIR)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK | os.R_OK) else None


def _read(path: Path) -> Any:
    try:
        with open(path, "rb") as f, _no_collection():
            return pickle.load(f)
    except FileNotFoundError:
        return _MISSING
    except Exception:  # a torn or foreign file: build again and overwrite it
        return _MISSING


@contextlib.contextmanager
def _no_collection() -> Any:
    """No garbage collection while a value is unpickled: its thousands of new objects (a pack's points) set off
    collections that walk the server's whole heap for garbage a fresh value cannot hold (a load took 2-3 times
    as long). Left off only if it was off."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _write(path: Path, value: Any) -> None:
    try:
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=".tmp-", delete=False) as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(f.name, path)  # atomic: a reader sees the old file or the whole new one
        files = sorted(path.parent.glob("*.pkl"), key=lambda p: p.stat().st_mtime)
        for stale in files[:-MAX_FILES]:
            stale.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        with contextlib.suppress(OSError, NameError):
            os.unlink(f.name)
