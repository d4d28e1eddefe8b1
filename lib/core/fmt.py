"""Numbers as people read them: one formatter per kind of number, used by every page and the CLI."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


def fmt_s(seconds: float | None) -> str:
    """A duration with a sensible unit: 812 µs, 1.23 ms, 4.5 s."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "–"
    s = float(seconds)
    if s >= 100:
        return f"{s:,.0f} s"
    if s >= 1:
        return f"{s:.3g} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    if s >= 1e-6:
        return f"{s * 1e6:.3g} µs"
    return f"{s * 1e9:.3g} ns"


def fmt_num(x: float, sig: int = 3) -> str:
    """A number to `sig` significant digits without exponents: 0.0123, 812, 11,400."""
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    digits = int(math.floor(math.log10(abs(x))))
    if digits >= sig - 1:
        return f"{round(x, sig - 1 - digits):,.0f}"
    return f"{x:.{sig}g}" if digits >= -4 else f"{x:.{sig - 1}e}"


def fmt_ratio(ratio: float) -> str:
    """1.00×, 12.5×, 340×: always with its significant zeros, so 1.00× does not read as exactly 1."""
    if ratio < 10:
        return f"{ratio:.2f}×"
    if ratio < 100:
        return f"{ratio:.1f}×"
    return f"{ratio:,.0f}×"


def fmt_value(value: Any) -> str:
    """A setting's value as people write it: 8,192 / 0.01 / on."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return fmt_num(value, 4)
    return str(value)


def fmt_flops(flops: float) -> str:
    for scale, unit in ((1e12, "TFLOP"), (1e9, "GFLOP"), (1e6, "MFLOP"), (1e3, "kFLOP")):
        if flops >= scale:
            return f"{flops / scale:.3g} {unit}"
    return f"{flops:.3g} FLOP"


def fmt_times(ratio: float) -> str:
    """A ratio with its ×: 2.43×, 0.85×, 0.0412× (small ones keep three significant digits)."""
    return fmt_ratio(ratio) if ratio >= 0.1 else f"{fmt_num(ratio)}×"


def fmt_rate(rate: float | None) -> str:
    """Floating-point operations per second: 812 GFLOP/s, 45.1 TFLOP/s."""
    if not rate:
        return "–"
    for scale, unit in ((1e15, "PFLOP/s"), (1e12, "TFLOP/s"), (1e9, "GFLOP/s"), (1e6, "MFLOP/s")):
        if rate >= scale:
            return f"{fmt_num(rate / scale)} {unit}"
    return f"{fmt_num(rate)} FLOP/s"


def fmt_bytes(n: float) -> str:
    """Bytes with an SI unit: 3.5 GB, 812 kB."""
    for scale, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if n >= scale:
            return f"{fmt_num(n / scale)} {unit}"
    return f"{n:.0f} B"


def gb_apart(larger: float, smaller: float) -> tuple[str, str]:
    """Two byte counts in GB with just enough decimals to read as different ('2.74', '2.70', not
    '2.7' and '2.7' in "needs about 2.7 GB, more than the 2.7 GB cap")."""
    for digits in range(1, 7):
        a, b = f"{larger / 1e9:.{digits}f}", f"{smaller / 1e9:.{digits}f}"
        if a != b:
            return a, b
    return a, b


def pct(fraction: float) -> str:
    """A share: 42%, or 'under 1%' for a small one that is not zero."""
    return f"{fraction:.0%}" if fraction >= 0.01 or fraction == 0 else "under 1%"


def plural(n: float, word: str, words: str | None = None) -> str:
    """'1 step', '3 steps', '1,024 steps' (words: the plural when it is not word + 's')."""
    count = fmt_value(n)
    return f"{count} {word}" if n == 1 else f"{count} {words or word + 's'}"


def and_list(items: Iterable[Any], conjunction: str = "and") -> str:
    """'a', 'a and b', 'a, b and c' ('a, b or c' with conjunction='or'): a list as a sentence says it
    (every page's lists, one rule)."""
    items, joint = [str(i) for i in items], f" {conjunction} "
    return joint.join([", ".join(items[:-1]), items[-1]]) if len(items) > 2 else joint.join(items)


# -- significant digits, chosen once -------------------------------------------------------------------
ABOUT_DIGITS = 2  # a break-even value, and any value read off where two curves meet


def fmt_about(x: float) -> str:
    """A value read off between measured points: two significant digits (about 700, not 683.4), so
    the same recorded data always reads the same and no false precision is claimed. Every crossover
    x on a page, a chart's rule and the CLI goes through here."""
    x = float(x)
    return fmt_num(float(f"{x:.{ABOUT_DIGITS}g}"), ABOUT_DIGITS) if x >= 1 else fmt_num(x, ABOUT_DIGITS)


def round_sig(x: float, sig: int) -> float:
    """x rounded to `sig` significant digits: round_sig(683.4, 1) == 700.0."""
    return float(f"{float(x):.{sig}g}")


# A crossover's bracket (the measured values either side of it, as its sentence names them) wider than
# this factor names no most likely value: two doublings of the power-of-two grids the pages sweep; past
# them the value interpolated between two far-apart medians is a guess the measurements do not back.
WIDE_BRACKET = 4.0


def crossing_about(x: float | None, low: float | None = None, high: float | None = None) -> str | None:
    """The most likely crossover value with only the digits its bracket (low, high) supports, as every
    sentence, table cell and chart rule prints it; None where none may be named: the bracket spans more
    than WIDE_BRACKET, or no rounding of at most ABOUT_DIGITS significant digits lands inside it. One
    significant digit, two where one would fall outside the bracket: 'about 700' between 512 and 1,024
    (never 683), 'about 1,200' between 1,024 and 2,048. Without a bracket: fmt_about's two digits."""
    if x is None or not math.isfinite(x) or x <= 0:
        return None
    if low is None or high is None or low <= 0:
        return fmt_about(x)
    lo, hi = sorted((float(low), float(high)))
    if hi / lo > WIDE_BRACKET:
        return None
    for sig in range(1, ABOUT_DIGITS + 1):
        value = round_sig(x, sig)
        if lo <= value <= hi:
            return fmt_num(value, sig) if value < 1 else fmt_value(int(value) if value.is_integer() else value)
    return None


# A count read off measured times names its second significant digit only when it is known to better
# than this (its relative error, from the spreads): the second digit of 21,072 is a tenth of it.
COUNT_FINE = 0.1


def about_count(n: float, rel_err: float = 1.0) -> int:
    """A count read off measured times ('pays off after about 20,000 steps'), rounded to one significant
    digit, two where its relative error is under COUNT_FINE; never below 1."""
    return max(1, int(round_sig(max(n, 1.0), 2 if rel_err < COUNT_FINE else 1)))


# -- a sentence, typed until it meets its edge -----------------------------------------------------------
class Strong(str):
    """A part of a sentence shown in bold on a page (a curve's legend name, the verdict); plain in the CLI."""


@dataclass(frozen=True)
class Sentence:
    """Words made of plain and strong parts, with the typed result they say (`about`), so code and
    tests read the result, never the English. Rendered only at the edge: `markdown()` for a page,
    `plain()` for the command line."""

    parts: tuple[str, ...] = ()
    about: Any = None  # what the words say, typed (a Crossover, a Versus, ...)

    def markdown(self) -> str:
        return "".join(f"**{p}**" if isinstance(p, Strong) and p else p for p in self.parts)

    def plain(self) -> str:
        return "".join(str(p) for p in self.parts)

    def __add__(self, other: Sentence | str) -> Sentence:
        if isinstance(other, Sentence):  # the words joined say what either said (the first, when both do)
            return Sentence(self.parts + other.parts, self.about if self.about is not None else other.about)
        return Sentence((*self.parts, other), self.about)

    def __radd__(self, other: str) -> Sentence:
        return Sentence((other, *self.parts), self.about)

    def capitalised(self) -> Sentence:
        """The sentence with its first letter capitalised (a strong part stays strong)."""
        if not self.parts or not self.parts[0]:
            return self
        first = self.parts[0]
        up = first[:1].upper() + first[1:]
        return Sentence((Strong(up) if isinstance(first, Strong) else up, *self.parts[1:]), self.about)


def say(*parts: str, about: Any = None) -> Sentence:
    """Sentence(parts): `say("On ", Strong("H200"), " the GPU wins.")`."""
    return Sentence(tuple(p for p in parts if p), about)


def age_words(seconds: float) -> str:
    """How long ago a live result was measured, counted from its stored time (an old result never
    reads as new): 'less than a minute ago', '3 min ago', '2 h 5 min ago'."""
    minutes = int(max(0.0, seconds) // 60)
    if minutes < 1:
        return "less than a minute ago"
    if minutes < 60:
        return f"{minutes} min ago"
    return f"{minutes // 60} h {minutes % 60} min ago" if minutes % 60 else f"{minutes // 60} h ago"
