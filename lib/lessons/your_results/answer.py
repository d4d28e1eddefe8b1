"""The Your results page's one-sentence answer, above its first chart.

machines_answer(comparison)
"""

from __future__ import annotations

from lib.core.crossover import CrossKind
from lib.core.fmt import fmt_s, fmt_value
from lib.lessons.your_results import compare
from lib.recorded.uploads import plain


def machines_answer(comparison: compare.Comparison) -> str:
    """The first chart in one short sentence: a machine whose GPU catches up with its CPU on it,
    else which curve is fastest at the largest value several share, else what the first machine has. The
    points too close to call, every other machine's line and the slowest curves are said under the chart."""
    lines = compare.crossover_lines(comparison, notes=False)
    crossing = next((line for line in lines if line.about is not None and line.about.kind == CrossKind.CROSSES), None)
    if crossing is not None:
        return crossing.markdown()
    return fastest_at_the_largest(comparison) or (lines[0].markdown() if lines else "One curve, nothing to compare.")


def fastest_at_the_largest(comparison: compare.Comparison) -> str | None:
    """'At batch size 8,192 the fastest of 8 curves is **GPU · NVIDIA H200 (2026-11-21)**, 1.03 ms a step.'"""
    if len(comparison.curves) < 2:
        return None
    shared = [x for x in {x for c in comparison.curves for x in c.xs} if sum(x in c.xs for c in comparison.curves) >= 2]
    if not shared:
        return None
    x = max(shared)
    times = [(dict(zip(c.xs, c.times_s))[x], c) for c in comparison.curves if x in c.xs]
    best_t, best = min(times, key=lambda tc: tc[0])
    return (
        f"At {plain(compare.setting_name(comparison.setting))} {fmt_value(x)} the fastest of {len(times)} curves "
        f"is **{plain(compare.curve_name(best.machine, best.device))}**, {fmt_s(best_t)} a step."
    )
