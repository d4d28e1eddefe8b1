"""The one rule for noise: when two times are too close to call, and when a point is not believed.

Every crossover, tie and 'A is faster than B' in the app reads these, so a page never calls a
2.2× gap a tie, and one stray point never makes a headline:

    is_tie(1.0e-3, 1.1e-3, 0.2e-3, 0.1e-3)          True: the gap is within the repeats' spread
    is_tie(1.0e-3, 2.2e-3, 1.0e-3, 1.0e-3)          False: beyond CLEAR_RATIO the medians decide
    doubtful([1, 2, 4], [1.7e-3, 0.9e-3, 1.0e-3],
             [0.1e-3, 0.9e-3, 0.1e-3])              {2.0}: its repeats spread over more than half its time
    decides(1e-3, 360e-3, doubted=True)             True: a gap of 2× or more is never too close
    believed(0.9e-3, 0.0, repeats=1)                False: one call has no spread to judge it by

A point is disbelieved from measurement evidence only: its own spread (the IQR of its repeats, or
its band: the range of the days it was recorded on, or a prediction's band) wider than NOISY of its
time. Never from the curve's shape: a tight, reproducible dip is real and is drawn as such. A doubtful
point stays on the chart (drawn hollow, with its bar); it decides a comparison only where the gap is
NEVER_CLOSE or more, which no spread here ever made.
"""

from __future__ import annotations

from collections.abc import Sequence

# Two times within 5 % are the same time to a reader: runs of one program in two processes, or on
# two days, drift by about that much, whatever the repeats' own spread says.
EVEN_RATIO = 1.05
# Beyond 1.5× the medians decide even where the IQRs overlap: a quarter of the repeats of the slower
# would have had to run 1.5× faster than its median, which no timing here ever showed.
CLEAR_RATIO = 1.5
# A point whose IQR (or band) is more than half its median is noisy: drawn hollow, and it decides only a
# gap of NEVER_CLOSE or more.
NOISY = 0.5
# A gap of 2× or more is never too close to call, however noisy either point: it is a plain gap on the
# chart's log axis, and a noisy point's median is still the middle of its repeats (its noise is said beside).
NEVER_CLOSE = 2.0
# A live point timed over fewer blocks than this has no spread to judge it by (one warm call after a slow cold
# one is a single draw): it is not believed, whatever its IQR of 0 says. The harness times at least this many.
MIN_REPEATS = 3
# A lead that one point alone shows, which neither neighbour confirms, changes the lead only by a gap of 2×
# or more: a smaller one is what one stray point of either curve makes.
CONFIRM_RATIO = 2.0


def is_noisy(t: float, spread: float) -> bool:
    """Whether a time's spread (its IQR, or a prediction's band) is more than NOISY of it."""
    return t > 0 and spread > NOISY * t


def believed(t: float, spread: float, repeats: int) -> bool:
    """Whether one measured time may carry a claim alone: timed over MIN_REPEATS blocks or more, and not noisy."""
    return repeats >= MIN_REPEATS and t > 0 and not is_noisy(t, spread)


def is_tie(a: float, b: float, a_spread: float = 0.0, b_spread: float = 0.0) -> bool:
    """Whether times a and b (seconds, with their IQRs) are too close to call: within EVEN_RATIO of
    each other, or their IQRs overlap, or either is noisy, while they are less than CLEAR_RATIO apart."""
    fast, slow = sorted((a, b))
    if fast <= 0:
        return False
    ratio = slow / fast
    if ratio >= CLEAR_RATIO:
        return False
    spread_fast, spread_slow = (a_spread, b_spread) if a <= b else (b_spread, a_spread)
    return (
        ratio < EVEN_RATIO
        or fast + spread_fast / 2 >= slow - spread_slow / 2
        or is_noisy(fast, spread_fast)
        or is_noisy(slow, spread_slow)
    )


def decides(a: float, b: float, a_spread: float = 0.0, b_spread: float = 0.0, doubted: bool = False) -> bool:
    """Whether times a and b say who is faster: not a tie (is_tie), and neither point doubtful unless the
    gap is NEVER_CLOSE or more."""
    fast, slow = sorted((a, b))
    if fast <= 0:
        return False
    if slow / fast >= NEVER_CLOSE:
        return True
    return not doubted and not is_tie(a, b, a_spread, b_spread)


def doubtful(xs: Sequence[float], ts: Sequence[float], spreads: Sequence[float] | None = None) -> set[float]:
    """The x values of one curve whose point is not believed: its own spread (IQR, or the band of its
    days or of its prediction) is more than NOISY of its time (is_noisy). The curve's shape never makes a
    point doubtful: a dip or a spike with tight repeats was measured so."""
    spreads = list(spreads) if spreads is not None else [0.0] * len(xs)
    return {
        float(x) for x, t, s in zip(xs, ts, spreads) if t is not None and t > 0 and is_noisy(float(t), float(s or 0.0))
    }
