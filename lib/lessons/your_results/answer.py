"""The Your results page's one-sentence answer, above its first chart.

    machines_answer(comparison)
"""

from __future__ import annotations

from lib.core.crossover import CrossKind
from lib.lessons.your_results import compare


def machines_answer(comparison: compare.Comparison) -> str:
    """The first chart in one sentence: a machine whose GPU catches up with its CPU on it, else which
    curve is fastest, else what each machine has."""
    lines = compare.crossover_lines(comparison)
    crossing = next((line for line in lines if line.about is not None and line.about.kind == CrossKind.CROSSES), None)
    if crossing is not None:
        return crossing.markdown()
    return compare.fastest_line(comparison) or (lines[0].markdown() if lines else "One curve, nothing to compare.")
