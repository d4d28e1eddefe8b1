"""The timing harness: warm up, synchronise, repeat, report median and spread.

Why our own loop rather than torch.utils.benchmark.Timer alone: the app needs the cold first
call reported separately, a hard time budget per point (a web page cannot wait for
`blocked_autorange` on a multi-second training step), per-phase timings, and a deliberately
naive mode (no synchronise) to show what an unsynchronised timer reports. The loop copies
Timer's method -- calls grouped in blocks long enough that clock and synchronise costs vanish,
statistics over the blocks -- and benchmarks/harness_vs_timer.py checks it agrees with Timer.
"""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from lib.core.devices import synchronize

# Shortest stretch between two clock reads: long enough that the ~0.1 us clock read and the
# ~10 us CUDA synchronise are under 1% of it.
MIN_BLOCK_S = 2e-3


@dataclass
class Measurement:
    """Steady-state time of one call, plus what it took to get there."""

    device: str
    median_s: float
    iqr_s: float
    repeats: int  # timed blocks
    calls_per_repeat: int
    cold_s: float | None  # the very first call, never part of the median
    num_threads: int
    synchronized: bool = True
    times_s: list[float] = field(default_factory=list)  # per-call time of each block
    phases_s: dict[str, float] = field(default_factory=dict)
    note: str = ""  # how a very slow step was timed, when it was not repeated

    @property
    def spread_ratio(self) -> float:
        """IQR relative to the median: how much to trust the median."""
        return self.iqr_s / self.median_s if self.median_s > 0 else math.inf


@contextlib.contextmanager
def cpu_threads(num_threads: int | None) -> Iterator[int]:
    """Run with `num_threads` intra-op CPU threads (None: leave as is), restoring afterwards."""
    import torch

    before = torch.get_num_threads()
    if num_threads is not None and num_threads != before:
        torch.set_num_threads(max(1, int(num_threads)))
    try:
        yield torch.get_num_threads()
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


def median_and_iqr(times: list[float]) -> tuple[float, float]:
    if not times:
        raise ValueError("no times to summarise")
    if len(times) == 1:
        return times[0], 0.0
    q1, _, q3 = statistics.quantiles(times, n=4, method="inclusive")
    return statistics.median(times), q3 - q1


Clock = Callable[[], float]


def _timed_calls(step: Callable[[], object], device: str, calls: int, sync: bool, clock: Clock) -> float:
    """Wall time of `calls` consecutive calls, synchronised at both ends when `sync`."""
    if sync:
        synchronize(device)
    start = clock()
    for _ in range(calls):
        step()
    if sync:
        synchronize(device)
    return clock() - start


def time_step(
    step: Callable[[], object],
    device: str,
    *,
    budget_s: float = 1.0,
    min_repeats: int = 3,
    max_repeats: int = 200,
    warmup_s: float | None = None,
    num_threads: int | None = None,
    synchronized: bool = True,
    measure_cold: bool = True,
    slow_call_s: float | None = None,
    single_call_s: float | None = None,
    clock: Clock = time.perf_counter,
) -> Measurement:
    """Time one call of `step` on `device`.

    1. cold: the first call alone (CUDA context, cuBLAS handles, allocator, lazy init);
    2. warm-up: at least two more calls and `warmup_s` (default a fifth of the budget),
       which also estimates the call time;
    3. timed blocks of `calls_per_repeat` calls, each block synchronised before and after
       its clock reads, until `budget_s` is spent (at least `min_repeats` blocks).

    With `synchronized=False` the clock is read without waiting for the device: the
    number a naive timer reports (each block is one call), shown only to teach the pitfall.

    Steps of seconds or minutes (the seeds' big runs) cannot be repeated within a budget: a cold
    call at or above `single_call_s` is the result itself (its first-call costs are small beside
    it), and one at or above `slow_call_s` is followed by a single warm call, which is the result.

    `clock` is the seam for tests (as torch.utils.benchmark tests Timer with a mock timer): every
    duration the harness decides on is read from it.
    """
    warmup_s = budget_s / 5 if warmup_s is None else warmup_s
    with cpu_threads(num_threads) as threads:
        cold = (
            _timed_calls(step, device, 1, sync=True, clock=clock)
            if measure_cold or slow_call_s or single_call_s
            else None
        )
        once = _timed_once(step, device, cold, slow_call_s, single_call_s, clock)
        if once is not None:
            return Measurement(
                device=device,
                median_s=once[0],
                iqr_s=0.0,
                repeats=1,
                calls_per_repeat=1,
                cold_s=cold,
                num_threads=threads,
                times_s=[once[0]],
                note=once[1],
            )
        estimate = _warm_up(step, device, warmup_s, clock)
        calls = 1 if not synchronized else max(1, math.ceil(MIN_BLOCK_S / max(estimate, 1e-9)))
        times = _blocks(step, device, calls, synchronized, budget_s, min_repeats, max_repeats, clock)
    median, iqr = median_and_iqr(times)
    return Measurement(
        device=device,
        median_s=median,
        iqr_s=iqr,
        repeats=len(times),
        calls_per_repeat=calls,
        cold_s=cold,
        num_threads=threads,
        synchronized=synchronized,
        times_s=times,
    )


def _timed_once(
    step: Callable[[], object],
    device: str,
    cold: float | None,
    slow_call_s: float | None,
    single_call_s: float | None,
    clock: Clock,
) -> tuple[float, str] | None:
    """For steps of seconds or minutes: the cold call itself, or one warm call after it, or None (time it
    with repeats). A warm call under slow_call_s shows the cold call was slow from first-call costs alone (a
    fresh process, a busy machine): such a step is fast, and one call of it would be a point with no spread."""
    if single_call_s is not None and cold >= single_call_s:
        return cold, f"timed once ({cold:.0f} s per call): first-call costs are small beside that"
    if slow_call_s is not None and cold >= slow_call_s:
        warm = _timed_calls(step, device, 1, sync=True, clock=clock)
        return (warm, "one warm call, timed after the cold one") if warm >= slow_call_s else None
    return None


def _warm_up(step: Callable[[], object], device: str, warmup_s: float, clock: Clock) -> float:
    """At least two calls and warmup_s of them; returns the time one call takes (the estimate that
    sizes the timed blocks)."""
    calls, spent = 0, 0.0
    while calls < 2 or spent < warmup_s:
        spent += _timed_calls(step, device, 1, sync=True, clock=clock)
        calls += 1
        if calls >= 2 and spent / calls > warmup_s:
            break  # slow step: two warm calls are enough
    return spent / calls


def _blocks(
    step: Callable[[], object],
    device: str,
    calls: int,
    synchronized: bool,
    budget_s: float,
    min_repeats: int,
    max_repeats: int,
    clock: Clock,
) -> list[float]:
    """The timed blocks: per-call time of each, until the budget is spent (at least min_repeats)."""
    times: list[float] = []
    spent = 0.0
    while len(times) < max_repeats and (len(times) < min_repeats or spent < budget_s):
        block = _timed_calls(step, device, calls, sync=synchronized, clock=clock)
        spent += block
        times.append(block / calls)
    if not synchronized:
        synchronize(device)  # drain the queue so the next measurement starts clean
    return times


def time_phases(
    phases: dict[str, Callable[[], object]], device: str, *, budget_s: float = 0.5, num_threads: int | None = None
) -> dict[str, float]:
    """Median time of each phase, each timed on its own with the same harness.

    Phases are timed separately (and synchronised at their ends), so their sum can differ from
    the whole step, where the device may overlap them; callers report the difference as
    'overhead and sync' (or as overlap when negative).
    """
    return {
        name: time_step(fn, device, budget_s=budget_s, num_threads=num_threads, measure_cold=False).median_s
        for name, fn in phases.items()
    }
