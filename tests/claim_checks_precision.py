"""An independent check that a printed crossover value claims no more digits than its bracket supports
(issue 37, class H): 'between batch size 1 and 1,024; most likely at about 5.4' names a value to two
significant digits inside a bracket that spans 1,024×.

It reads only the words and the bracket (the two measured values either side), and restates the rule
on purpose instead of importing lib.core.fmt: a checker that called the formatter would agree with it
whatever it printed.

    precision_problems("... between batch size 1 and 1,024; most likely at about 5.4.", (1, 1024))  # one problem
    digits_fit_bracket("... between batch size 512 and 1,024; most likely at about 700.", (512, 1024))  # True
"""

from __future__ import annotations

import re

WIDE = 4.0  # a bracket wider than this names no single value (restated from lib.core.fmt.WIDE_BRACKET)
MAX_DIGITS = 2  # never more significant digits than this
NUM = r"(\d[\d,]*(?:\.\d+)?)"
# every way the app prints one crossover value: a sentence, a table cell, a chart's rule
VALUE = re.compile(rf"most likely at about {NUM}|crossover ≈ {NUM}|≈ {NUM}")
BETWEEN = re.compile(rf"between [a-z ]*?{NUM} and {NUM}")


def significant_digits(text: str) -> int:
    """How many significant digits a printed number claims: '5.4' 2, '700' 1, '1,200' 2, '0.012' 2, '5.0' 2."""
    digits = text.replace(",", "")
    if "." in digits:
        return len(digits.replace(".", "").lstrip("0")) or 1
    return len(digits.strip("0")) or 1


def _one_digit(value: float) -> float:
    return float(f"{value:.1g}")


def precision_problems(sentence: str, bracket: tuple[float, float] | None = None) -> list[str]:
    """What is wrong with each crossover value the sentence prints, judged against `bracket` (default:
    the sentence's own 'between A and B'). Empty when every value fits."""
    if bracket is None:
        found = BETWEEN.search(sentence)
        if not found:
            return []
        bracket = tuple(float(g.replace(",", "")) for g in found.groups())
    lo, hi = sorted(float(b) for b in bracket)
    problems = []
    for match in VALUE.finditer(sentence):
        text = next(g for g in match.groups() if g)
        value = float(text.replace(",", ""))
        digits = significant_digits(text)
        said = match.group(0)
        if lo <= 0 or hi / lo > WIDE:
            width = f"{hi / lo:,.0f}×" if lo > 0 and hi / lo >= 10 else f"{hi / lo:.2f}×" if lo > 0 else "unbounded"
            problems.append(
                f"'{said}' names one value inside a bracket of {lo:g} to {hi:g}, {width} wide "
                f"(more than {WIDE:g}×): only the bracket may be given"
            )
        elif not lo <= value <= hi:
            problems.append(f"'{said}' lies outside its bracket {lo:g} to {hi:g}")
        elif digits > MAX_DIGITS:
            problems.append(f"'{said}' claims {digits} significant digits (at most {MAX_DIGITS})")
        elif digits > 1 and lo <= _one_digit(value) <= hi:
            problems.append(
                f"'{said}' claims {digits} significant digits where one ({_one_digit(value):g}) "
                f"already lies in the bracket {lo:g} to {hi:g}"
            )
    return problems


def digits_fit_bracket(sentence: str, bracket: tuple[float, float] | None = None) -> bool:
    """Whether every crossover value the sentence prints claims only the digits its bracket supports."""
    return not precision_problems(sentence, bracket)
