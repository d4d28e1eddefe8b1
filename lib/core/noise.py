"""The one rule for noise: when two times are too close to call, and when a point is not believed.

Every crossover, tie and 'A is faster than B' in the app reads these, so a page never calls a
2.2× gap a tie, and one stray point never makes a headline:

    is_tie(1.0e-3, 1.1e-3, 0.2e-3, 0.1e-3)          True: the gap is within the repeats' spread
    is_tie(1.0e-3, 2.2e-3, 1.0e-3, 1.0e-3)          False: beyond CLEAR_RATIO the medians decide
    doubtful([1, 2, 4], [1.7e-3, 0.97e-3, 1.0e-3])  {1.0}: more work took far less time: out of line

A doubtful point stays on the chart (drawn hollow, with its IQR bar); it is not believed: a
comparison there counts as too close to call, whatever the gap. A noisy point (is_noisy) is drawn
hollow too; it ties whatever is within CLEAR_RATIO of it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# Two times within 5 % are the same time to a reader: runs of one program in two processes, or on
# two days, drift by about that much, whatever the repeats' own spread says.
EVEN_RATIO = 1.05
# Beyond 1.5× the medians decide even where the IQRs overlap: a quarter of the repeats of the slower
# would have had to run 1.5× faster than its median, which no timing here ever showed.
CLEAR_RATIO = 1.5
# A point whose IQR is more than half its median is noisy: drawn hollow, and it decides nothing.
NOISY = 0.5
# A point 1.5× off the line through its neighbours (a spike, or a bent end) is out of line.
OUT_OF_LINE = 1.5
# A lead that one point alone shows, which neither neighbour confirms, changes the lead only by a gap of 2×
# or more: a smaller one is what one stray point of either curve makes.
CONFIRM_RATIO = 2.0


def is_noisy(t: float, spread: float) -> bool:
    """Whether a time's spread (its IQR, or a prediction's band) is more than NOISY of it."""
    return t > 0 and spread > NOISY * t


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
    return (ratio < EVEN_RATIO or fast + spread_fast / 2 >= slow - spread_slow / 2
            or is_noisy(fast, spread_fast) or is_noisy(slow, spread_slow))


def doubtful(xs: Sequence[float], ts: Sequence[float], spreads: Sequence[float] | None = None) -> set[float]:
    """The x values of one curve whose point is not believed, because it is out of line: the curve
    turns back at it (inside: both neighbours on the same side of it; at an end: the next point's
    other neighbour on the same side as the end) and it lies more than OUT_OF_LINE off the log-log
    line through those two neighbours. A curve that only bends (flat, then rising) never
    turns back: the times of more work do not fall."""
    spreads = list(spreads) if spreads is not None else [0.0] * len(xs)
    pts = sorted((float(x), float(t), float(s or 0.0)) for x, t, s in zip(xs, ts, spreads) if t and t > 0 and x > 0)
    out: set[float] = set()
    if len(pts) < 3:
        return out
    logs = [(math.log(x), math.log(t)) for x, t, _ in pts]
    limit = math.log(OUT_OF_LINE)

    def off(i: int, j: int, k: int) -> float:
        """How far (log) point i lies from the line through points j and k."""
        (xj, tj), (xk, tk), (xi, ti) = logs[j], logs[k], logs[i]
        return ti - (tj + (tk - tj) * (xi - xj) / (xk - xj))

    def turns(i: int, j: int, k: int) -> bool:
        """Whether the curve turns back at j on the way from i to k."""
        return (logs[j][1] - logs[i][1]) * (logs[k][1] - logs[j][1]) < 0

    # the worst point first (a spike inside before an end), then the rest judged without it: a spike
    # makes its neighbours look bent; never more than a third of a curve is set aside
    alive = list(range(len(pts)))
    while len(alive) >= 3 and len(out) < len(pts) // 3 + 1:
        found: list[tuple[bool, float, int]] = []
        for n, i in enumerate(alive):
            inside = 0 < n < len(alive) - 1
            j, k = (alive[n - 1], alive[n + 1]) if inside else (alive[1], alive[2]) if n == 0 else (alive[-2], alive[-3])
            if (turns(j, i, k) if inside else turns(i, j, k)) and abs(off(i, j, k)) > limit:
                found.append((inside, abs(off(i, j, k)), i))
        if not found:
            break
        worst = max(found)[2]
        out.add(pts[worst][0])
        alive.remove(worst)
    return out
