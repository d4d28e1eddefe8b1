"""One process-wide lock around every live measurement.

Two visitors timing at once on a 2-core server would each slow the other and both report
nonsense, and torch's CPU thread count is process-global. So every live measurement in the
app runs while holding MEASURE_LOCK; a visitor who finds it held is told who holds it (the
`on_wait` callback) and then waits its turn. The lock keeps a record of who held it when, so
tests can check that measurements never overlapped.

No Streamlit here: the app's ui.measure wraps this with the waiting note and progress bar.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Holding:
    """One stretch during which the lock was held."""

    label: str
    thread: str
    start: float  # time.perf_counter() when acquired
    end: float | None  # None while still held
    waited_s: float  # how long the holder waited before it got the lock


class MeasureLock:
    def __init__(self, keep: int = 500) -> None:
        self._lock = threading.Lock()
        self._state = threading.Lock()  # guards the bookkeeping below
        self._holder: Holding | None = None
        self._waiting = 0
        self._record: deque[Holding] = deque(maxlen=keep)

    def holder(self) -> Holding | None:
        """Who holds the lock now (None when free)."""
        with self._state:
            return self._holder

    def waiting(self) -> int:
        """How many callers are queued behind the holder."""
        with self._state:
            return self._waiting

    def record(self) -> list[Holding]:
        """Finished and current holdings, oldest first."""
        with self._state:
            current = [self._holder] if self._holder is not None else []
            return list(self._record) + current

    @contextlib.contextmanager
    def hold(
        self,
        label: str,
        on_wait: Callable[[Holding | None, int], None] | None = None,
        timeout_s: float | None = None,
    ) -> Iterator[Holding]:
        """Hold the lock for the body. When it is taken, call on_wait(holder, queued_ahead)
        once, then block until it is free (or raise TimeoutError after timeout_s)."""
        asked = time.perf_counter()
        if not self._lock.acquire(blocking=False):
            with self._state:
                holder, ahead = self._holder, self._waiting
                self._waiting += 1
            try:
                if on_wait is not None:
                    on_wait(holder, ahead)
                got = self._lock.acquire(timeout=-1 if timeout_s is None else timeout_s)
            finally:
                with self._state:
                    self._waiting -= 1
            if not got:
                raise TimeoutError(f"waited {timeout_s:g} s for another measurement to finish")
        start = time.perf_counter()
        holding = Holding(label, threading.current_thread().name, start, None, start - asked)
        with self._state:
            self._holder = holding
        try:
            yield holding
        finally:
            with self._state:
                self._record.append(Holding(label, holding.thread, start, time.perf_counter(), holding.waited_s))
                self._holder = None
            self._lock.release()


def overlapping(holdings: list[Holding]) -> list[tuple[Holding, Holding]]:
    """Pairs of finished holdings whose intervals overlap (there should be none)."""
    done = sorted((h for h in holdings if h.end is not None), key=lambda h: h.start)
    return [(a, b) for a, b in zip(done, done[1:]) if b.start < a.end]


# The one lock every live measurement in this process goes through.
MEASURE_LOCK = MeasureLock()
