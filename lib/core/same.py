"""'The same', 'about even', 'as fast', 'no faster': one rule on every page, lib.core.noise.is_tie.

Every sentence that calls two times the same (or one no faster than the other) asks here, with the
spreads of both where the rows have them, so no page keeps a threshold of its own (Timing
called 21.3 ms against 32.2 ms 'about the same', Data pipeline counted 20 % as the same, Seed cases
1.5×, Training 5 % or overlapping spreads). The thresholds are noise's (EVEN_RATIO, CLEAR_RATIO,
NOISY); this module adds none.

    same_time(1.0e-3, 1.1e-3, 0.2e-3, 0.1e-3)   True: within the repeats' spread
    same_rows(cpu_row, gpu_row, "epoch_s")       the same, each row's own spread (lib.core.crossover.spread)
    same_ratio(1.03)                             a ratio alone (a seed's printed times): True, within EVEN_RATIO
    sameness(24.7e-3, 17.1e-3, 71e-3, 1e-3)      Sameness.TOO_NOISY: a tie only because one time is noisy
    RULE_WORDS                                   the rule in words, for a caption

A tie (same_time) says no sentence may call one time faster. Whether a sentence may call the two *the same* asks
sameness: a tie that stands only on a noisy point (1.44× apart, one IQR 290 % of its time) is no evidence that the
device does not matter; it says the data cannot tell.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from lib.core import noise
from lib.core.crossover import spread
from lib.core.fmt import pct


def same_time(a: float, b: float, a_spread: float = 0.0, b_spread: float = 0.0) -> bool:
    """Whether times a and b (seconds, each with its spread: IQR or band) read as the same time."""
    return noise.is_tie(float(a), float(b), float(a_spread or 0.0), float(b_spread or 0.0))


def same_rows(a: Mapping[str, Any], b: Mapping[str, Any], time_key: str = "median_s") -> bool:
    """Whether two rows' times are the same, each judged with its own spread."""
    return same_time(a[time_key], b[time_key], spread(dict(a), time_key), spread(dict(b), time_key))


def same_ratio(ratio: float, rel_spread: float = 0.0) -> bool:
    """Whether a ratio of two times (b ÷ a) reads as even: b and a the same time, b's spread
    `rel_spread` of b (0: two single printed times, as a seed's)."""
    return same_time(1.0, float(ratio), 0.0, float(ratio) * rel_spread)


class Sameness(Enum):
    """What two times, each with its spread, allow a sentence to say."""

    SAME = "same"  # within EVEN_RATIO, or believed spreads that overlap: 'the same', 'does not matter'
    TOO_NOISY = "too noisy"  # a tie only because either time is too noisy to trust: 'too noisy to say'
    APART = "apart"  # one is faster: the medians decide


def sameness(a: float, b: float, a_spread: float = 0.0, b_spread: float = 0.0) -> Sameness:
    """Whether times a and b are the same, too noisy to tell, or apart (noise.is_tie, then which part of it holds)."""
    a, b, a_spread, b_spread = float(a), float(b), float(a_spread or 0.0), float(b_spread or 0.0)
    if not noise.is_tie(a, b, a_spread, b_spread):
        return Sameness.APART
    fast, slow = sorted((a, b))
    if slow / fast < noise.EVEN_RATIO:
        return Sameness.SAME  # close enough whatever the spreads
    if noise.is_noisy(a, a_spread) or noise.is_noisy(b, b_spread):
        return Sameness.TOO_NOISY
    return Sameness.SAME  # believed spreads that overlap


def rows_sameness(a: Mapping[str, Any], b: Mapping[str, Any], time_key: str = "median_s") -> Sameness:
    """sameness of two rows' times, each with its own spread."""
    return sameness(a[time_key], b[time_key], spread(dict(a), time_key), spread(dict(b), time_key))


# The rule in words, from noise's constants (a caption says it as the code does).
RULE_WORDS = (
    f"Two times count as the same when they are within {pct(round(noise.EVEN_RATIO - 1, 6))} of each other, "
    "when their spreads (the error bars) overlap, or when either is too noisy to trust; never when one is "
    f"{noise.CLEAR_RATIO:g}× the other or more."
)
