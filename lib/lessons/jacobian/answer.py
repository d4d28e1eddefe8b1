"""The Jacobian page's one-sentence answer, above its chart: the fastest method timed at the batch
on screen against the seed's loop; and its notes, under the chart: the loop's own time, and whether the
method matters more than the device (one short sentence up top).

    jacobian_answer(points, 100, ["loop", "vmap_jacfwd"])
    jacobian_notes(points, 100, ["loop", "vmap_jacfwd"])
"""

from __future__ import annotations

from collections.abc import Sequence

from lib.core.fmt import fmt_ratio, fmt_s, fmt_value, plural
from lib.lessons.common.answers import who
from lib.lessons.jacobian.points import MethodPoint
from lib.lessons.jacobian.view import LABEL as METHOD_LABEL


def _median(point: MethodPoint) -> float:
    return float(point.median_s)


def _answer_and_notes(points: Sequence[MethodPoint], val: int, methods: Sequence[str]) -> tuple[str, str]:
    v = fmt_value(val)
    at = f"With {plural(val, 'input')} in the batch (val = {v})"
    if not methods:
        return "Pick at least one method below to see its curve.", ""
    here = [p for p in points if p.val == int(val) and p.method in methods and p.ok]
    if not here:
        return f"{at} nothing was timed here; the points not measured (below) say why.", ""
    best = min(here, key=_median)
    name = f"{METHOD_LABEL[best.method]} on {who(best.series)}"
    loops = [p for p in here if p.method == "loop"]
    if best.method == "loop":
        return (
            f"{at} the seed's loop is the fastest method timed here: {fmt_s(best.median_s)} on {who(best.series)}."
        ), ""
    if not loops:
        why = (
            "Add the loop below to compare it with the seed's method."
            if "loop" not in methods
            else "The seed's loop was not timed at this size here (too many backward passes or too much memory)."
        )
        return f"{at}, the fastest method timed is {name}: {fmt_s(best.median_s)}.", why
    loop = min(loops, key=_median)
    method_gap = _median(loop) / _median(best)
    text = (
        f"{at}, {name} takes {fmt_s(best.median_s)}: **{fmt_ratio(method_gap)} faster** than the "
        "seed's loop at its best."
    )
    notes = f"The seed's loop at its best: {fmt_s(loop.median_s)} on {who(loop.series)}"
    device_gaps = []
    for method in {p.method for p in here}:
        times = [_median(p) for p in here if p.method == method]
        if len(times) > 1:
            device_gaps.append(max(times) / min(times))
    if device_gaps and method_gap > max(device_gaps):
        notes += (
            f"; the devices differ by {fmt_ratio(max(device_gaps))} at most: the method matters more than the device"
        )
    return text, notes + "."


def jacobian_answer(points: Sequence[MethodPoint], val: int, methods: Sequence[str]) -> str:
    """The fastest method timed at `val` against the seed's loop at its best, in one short sentence (above
    the chart; the rest is jacobian_notes')."""
    return _answer_and_notes(points, val, methods)[0]


def jacobian_notes(points: Sequence[MethodPoint], val: int, methods: Sequence[str]) -> str:
    """What the answer leaves for under the chart: the seed's loop's own time, and 'the method matters more
    than the device' only when the points show a larger gap between methods than between devices; or why the
    loop is missing. Empty when there is nothing to add."""
    return _answer_and_notes(points, val, methods)[1]
