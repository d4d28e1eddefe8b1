"""One process-wide queue in front of every live measurement.

Two visitors timing at once on a 2-core server would each slow the other and both report
nonsense, and torch's CPU thread count is process-global. So every live measurement in the app
runs while holding MEASURE_LOCK. Visitors who find it held wait in line, first come first served:
while they wait, `on_wait(holder, place, waited_s)` is called every `poll_s` so a page can show the
visitor's place and the expected wait; if `on_wait` raises (Streamlit stops a script whose visitor
left or moved a slider), that visitor's place is given up at once. The lock keeps a record of
who held it when, so tests can check that measurements never overlapped, and of how long holds
take, so a page can tell how long a wait would be before it starts one.

No Streamlit here: the app's ui.measure wraps this with the queue note and the progress bar.
"""

from __future__ import annotations

import contextlib
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

TYPICAL_HOLD_S = 3.0  # what a hold is assumed to take before any has been seen


@dataclass(frozen=True)
class Holding:
    """One stretch during which the lock was held."""

    label: str
    thread: str
    start: float  # time.perf_counter() when acquired
    end: float | None  # None while still held
    waited_s: float  # how long the holder waited before it got the lock
    place: int = 0  # its place in line when it started waiting (0: it did not wait)


WaitFn = Callable[["Holding | None", int, float], None]


class MeasureLock:
    def __init__(self, keep: int = 500) -> None:
        self._cond = threading.Condition()
        self._holder: Holding | None = None
        self._line: deque[object] = deque()  # tickets of those waiting, first in line first
        self._record: deque[Holding] = deque(maxlen=keep)

    def holder(self) -> Holding | None:
        """Who holds the lock now (None when free)."""
        with self._cond:
            return self._holder

    def waiting(self) -> int:
        """How many are in line behind the holder."""
        with self._cond:
            return len(self._line)

    def record(self) -> list[Holding]:
        """Finished and current holdings, oldest first."""
        with self._cond:
            return list(self._record) + ([self._holder] if self._holder is not None else [])

    def typical_hold_s(self) -> float:
        """The median length of the last holds (a guess before there were any)."""
        with self._cond:
            recent = [h.end - h.start for h in list(self._record)[-20:] if h.end is not None]
        return statistics.median(recent) if recent else TYPICAL_HOLD_S

    def expected_wait_s(self) -> float:
        """About how long a visitor arriving now would wait: everyone ahead, one typical hold each."""
        with self._cond:
            ahead = len(self._line) + (self._holder is not None)
        return ahead * self.typical_hold_s()

    @contextlib.contextmanager
    def hold(
        self, label: str, on_wait: WaitFn | None = None, timeout_s: float | None = None, poll_s: float = 0.25
    ) -> Iterator[Holding]:
        """Hold the lock for the body, after everyone already in line. TimeoutError after timeout_s."""
        asked = time.perf_counter()
        ticket = object()
        me = threading.current_thread().name
        with self._cond:
            holding = self._take(label, me, asked, 0) if self._holder is None and not self._line else None
            if holding is None:
                self._line.append(ticket)
            place = len(self._line)
        try:
            while holding is None:
                with self._cond:
                    if self._holder is None and self._line[0] is ticket:
                        self._line.popleft()
                        holding = self._take(label, me, asked, place)
                        break
                    self._cond.wait(poll_s)
                    holder, now_place = self._holder, self._line.index(ticket) + 1
                waited = time.perf_counter() - asked
                if on_wait is not None:
                    on_wait(holder, now_place, waited)  # may raise: then this place is given up below
                if timeout_s is not None and waited >= timeout_s:
                    raise TimeoutError(f"waited {timeout_s:g} s for other measurements to finish")
        except BaseException:
            with self._cond:
                if ticket in self._line:
                    self._line.remove(ticket)
                self._cond.notify_all()
            raise
        try:
            yield holding
        finally:
            with self._cond:
                self._record.append(
                    Holding(label, me, holding.start, time.perf_counter(), holding.waited_s, holding.place)
                )
                self._holder = None
                self._cond.notify_all()

    def _take(self, label: str, thread: str, asked: float, place: int) -> Holding:
        """Become the holder (called with the condition held)."""
        start = time.perf_counter()
        self._holder = Holding(label, thread, start, None, start - asked, place)
        return self._holder


def overlapping(holdings: list[Holding]) -> list[tuple[Holding, Holding]]:
    """Pairs of finished holdings whose intervals overlap (there should be none)."""
    done = sorted((h for h in holdings if h.end is not None), key=lambda h: h.start)
    return [(a, b) for a, b in zip(done, done[1:]) if b.start < a.end]


# The one lock every live measurement in this process goes through.
MEASURE_LOCK = MeasureLock()
