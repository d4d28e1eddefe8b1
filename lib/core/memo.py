"""What is built from the shipped packs, built once per process.

The packs are parsed once (lib.recorded keeps them), so the same row lists come back on every page
run. A value built from them (a merged pack, a machine's step tables and cost models) is kept while
those very objects come back, compared by identity: a new upload is a new list and is built anew.

    _TABLES = IdentityMemo(32)
    tables = _TABLES.get([pack["rows"]], lambda: build(pack), extra=machine)

What takes seconds to build (a fitted cost model) is also kept on disk between processes (DiskMemo).
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class IdentityMemo(Generic[T]):
    """The last `size` values built, each keyed by the identity of the objects it was built from."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._held: dict[tuple, tuple[tuple[Any, ...], T]] = {}

    def get(self, objects: Sequence[Any], build: Callable[[], T], extra: Hashable = None) -> T:
        key = (tuple(id(o) for o in objects), extra)
        held = self._held.get(key)
        # an id can be reused once its object is gone: the objects themselves are kept and compared
        if held is None or any(a is not b for a, b in zip(held[0], objects)):
            held = (tuple(objects), build())
            self._held[key] = held
            # visitors' scripts run in threads of their own: list() copies the keys at once and pop(k, None)
            # never fails, where iterating a dict another thread changes, or popping what it popped, raised
            for old in list(self._held)[:max(0, len(self._held) - self.size)]:
                self._held.pop(old, None)
        return held[1]


class DiskMemo(Generic[T]):
    """Values that take seconds to build from shipped data (a cost model fitted to a dense grid), kept
    on disk so that a cold process loads them instead of building them again.

        _FITS = DiskMemo("costmodel-machine", code=[costmodel])
        model = _FITS.get(observations, lambda: costmodel.fit(observations, "cuda"))

    The key is the inputs themselves (pickled, hashed: a changed pack gives other inputs) and the
    source of the modules in `code` (a changed fitting rule rebuilds; a folder there: every .py file
    under it), so it works whatever the value is, as long as it pickles. The folder is $GPUWIN_CACHE_DIR or the repository's .cache/
    (git-ignored); where it cannot be written, values are kept in memory only."""

    def __init__(self, name: str, code: Sequence[ModuleType | Path]) -> None:
        self.name, self.code = name, tuple(code)
        self._held: dict[str, T] = {}
        self._code_hash: str | None = None

    def key(self, inputs: Any) -> str:
        if self._code_hash is None:
            sources = [_source(item) for item in self.code]
            self._code_hash = hashlib.sha256("\0".join([sys.version, *sources]).encode()).hexdigest()
        digest = hashlib.sha256(self._code_hash.encode())
        digest.update(pickle.dumps(inputs, protocol=4))
        return digest.hexdigest()[:40]

    def get(self, inputs: Any, build: Callable[[], T]) -> T:
        key = self.key(inputs)
        if key in self._held:
            return self._held[key]
        folder = cache_dir()
        path = folder / f"{self.name}-{key}.pkl" if folder is not None else None
        value = _read(path) if path is not None else _MISSING
        if value is _MISSING:
            value = build()
            if path is not None:
                _write(path, value)
        self._held[key] = value
        while len(self._held) > MAX_HELD:
            self._held.pop(next(iter(self._held)))
        return value


def _source(code: ModuleType | Path) -> str:
    """A module's source; a file's text; a folder's: every .py file under it, each named (a value built by
    code spread over many modules is keyed by all of them, so no edit anywhere there leaves it stale)."""
    if isinstance(code, ModuleType):
        return inspect.getsource(code)
    files = [code] if code.is_file() else sorted(code.rglob("*.py"))
    return "\0".join(f"{f.relative_to(code.parent)}\0{f.read_text(encoding='utf-8')}" for f in files)


MAX_HELD = 256
_MISSING = object()
CACHE_DIR = Path(__file__).resolve().parents[2] / ".cache"
MAX_FILES = 500  # a folder of stale fits (old packs, old code) is trimmed, oldest first


def cache_dir() -> Path | None:
    """Where DiskMemo keeps values: $GPUWIN_CACHE_DIR, else .cache/ in the repository; None when it
    cannot be made (a read-only checkout: memory only)."""
    folder = Path(os.environ.get("GPUWIN_CACHE_DIR") or CACHE_DIR)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK | os.R_OK) else None


def _read(path: Path) -> Any:
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except FileNotFoundError:
        return _MISSING
    except Exception:  # a torn or foreign file: build again and overwrite it
        return _MISSING


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
