"""What is built from the shipped packs, built once per process.

The packs are parsed once (lib.recorded keeps them), so the same row lists come back on every page
run. A value built from them (a merged pack, a machine's step tables and cost models) is kept while
those very objects come back, compared by identity: a new upload is a new list and is built anew.

    _TABLES = IdentityMemo(32)
    tables = _TABLES.get([pack["rows"]], lambda: build(pack), extra=machine)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
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
            while len(self._held) > self.size:
                self._held.pop(next(iter(self._held)))
        return held[1]
