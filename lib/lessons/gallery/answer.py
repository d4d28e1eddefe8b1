"""The Class gallery page's one-sentence answer, above its chart: where the class's GPUs catch up with
their own CPUs.

    gallery_answer(machines, comparison)    one sentence, above the chart (issue 37)
    gallery_notes(machines, comparison)     which machines, and the points too close to call, under it
"""

from __future__ import annotations

from collections.abc import Sequence

from lib.core.fmt import Strong, fmt_value, say
from lib.core.rows import is_ok
from lib.lessons.common.voice import crossover_notes, crossover_sentence, likely_about
from lib.lessons.gallery.view import OWN_CPU, OWN_GPU, GalleryMachine, crossover_words
from lib.lessons.your_results import compare
from lib.recorded.uploads import plain


def _crossings(machines: Sequence[GalleryMachine], comparison: compare.Comparison | None
               ) -> list[tuple[float, GalleryMachine]]:
    found = [(x, m) for m in machines for x, _ in [crossover_words(comparison, m)] if x is not None]
    return sorted(found, key=lambda xm: xm[0])


def gallery_answer(machines: Sequence[GalleryMachine], comparison: compare.Comparison | None) -> str:
    """Where the machines' GPUs catch up with their own CPUs: the earliest and the latest, in one short sentence
    (issue 37); which machines those are, and the points too close to call, are gallery_notes', under the chart."""
    found = _crossings(machines, comparison)
    with_gpu = [m for m in machines if any(r.get("device") != "cpu" and is_ok(r) for r in m.rows)]
    if not found:
        if not with_gpu:
            return "No machine here has both CPU and GPU results yet, so there is no speed-up to compare."
        return (f"On none of the {len(with_gpu)} machines with a GPU here do the GPU and its own CPU cross within the "
                "batch sizes measured; the table says who is faster.")
    (_, first), (_, last) = found[0], found[-1]
    if len(found) == 1:
        return (say("On ", Strong(plain(first.line)), ", ")
                + crossover_sentence(comparison.crossovers[first.line], "batch size", OWN_CPU, OWN_GPU, notes=False)
                ).markdown()
    named = [likely_about(comparison.crossovers[m.line]) for m in (first, last)]
    if None not in named:
        return (f"The GPUs here catch up with their own CPUs between batch size ≈ {named[0]} and ≈ {named[1]}, "
                f"{len(found)} machines in all.")
    # a bracket too wide to name one value (lib.core.fmt.crossing_about): the brackets' span, and no ranking by it
    brackets = [comparison.crossovers[m.line].sure or comparison.crossovers[m.line].bracket for _, m in found]
    lows, highs = [b[0] for b in brackets if b and b[0] is not None], [b[1] for b in brackets if b and b[1] is not None]
    span = (f"between batch size {fmt_value(min(lows))} and {fmt_value(max(highs))}" if lows and highs
            else "within the batch sizes measured")
    return f"The GPUs here catch up with their own CPUs {span} on all {len(found)} machines that cross."


def gallery_notes(machines: Sequence[GalleryMachine], comparison: compare.Comparison | None) -> str:
    """What the answer leaves for under the chart: which machines catch up earliest and latest (each with the
    value its bracket supports, or its bracket), or the one machine's points too close to call. Empty when there
    is nothing to add."""
    found = _crossings(machines, comparison)
    if not found:
        return ""
    (_, first), (_, last) = found[0], found[-1]
    if len(found) == 1:
        return crossover_notes(comparison.crossovers[first.line], "batch size", OWN_CPU, OWN_GPU)

    def where(machine: GalleryMachine) -> str:
        found_here = comparison.crossovers[machine.line]
        named = likely_about(found_here)
        low, high = found_here.sure or found_here.bracket or (None, None)
        return (f"≈ {named}" if named else f"between {fmt_value(low)} and {fmt_value(high)}" if low and high
                else "in the batch sizes measured")

    return f"Earliest: **{plain(first.line)}** ({where(first)}); latest: **{plain(last.line)}** ({where(last)})."
