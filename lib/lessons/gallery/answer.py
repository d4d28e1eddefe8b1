"""The Class gallery page's one-sentence answer, above its chart: where the class's GPUs catch up with
their own CPUs.

    gallery_answer(machines, comparison)    one sentence, above the chart
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


def _crossings(
    machines: Sequence[GalleryMachine], comparison: compare.Comparison | None
) -> list[tuple[float, GalleryMachine]]:
    found = [(x, m) for m in machines for x, _ in [crossover_words(comparison, m)] if x is not None]
    return sorted(found, key=lambda xm: xm[0])


def _bracket(comparison: compare.Comparison, machine: GalleryMachine) -> tuple[float | None, float | None]:
    found = comparison.crossovers[machine.line]
    return found.sure or found.bracket or (None, None)


def _ranked(comparison: compare.Comparison, first: GalleryMachine, last: GalleryMachine) -> bool:
    """Whether the first machine surely crosses before the last: their brackets do not overlap. Sorting by the
    likely values alone ranked two machines whose brackets were the same."""
    (_, first_high), (last_low, _) = _bracket(comparison, first), _bracket(comparison, last)
    return first_high is not None and last_low is not None and first_high < last_low


def _span(comparison: compare.Comparison, found: Sequence[tuple[float, GalleryMachine]]) -> str:
    brackets = [_bracket(comparison, m) for _, m in found]
    lows, highs = [b[0] for b in brackets if b[0] is not None], [b[1] for b in brackets if b[1] is not None]
    return (
        f"between batch size {fmt_value(min(lows))} and {fmt_value(max(highs))}"
        if lows and highs
        else "within the batch sizes measured"
    )


def gallery_answer(machines: Sequence[GalleryMachine], comparison: compare.Comparison | None) -> str:
    """Where the machines' GPUs catch up with their own CPUs: the earliest and the latest, in one short
    sentence; which machines those are, and the points too close to call, are gallery_notes', under the chart."""
    found = _crossings(machines, comparison)
    with_gpu = [m for m in machines if any(r.get("device") != "cpu" and is_ok(r) for r in m.rows)]
    if not found:
        if not with_gpu:
            return "No machine here has both CPU and GPU results yet, so there is no speed-up to compare."
        return (
            f"On none of the {len(with_gpu)} machines with a GPU here do the GPU and its own CPU cross within the "
            "batch sizes measured; the table says who is faster."
        )
    (_, first), (_, last) = found[0], found[-1]
    if len(found) == 1:
        return (
            say("On ", Strong(plain(first.line)), ", ")
            + crossover_sentence(comparison.crossovers[first.line], "batch size", OWN_CPU, OWN_GPU, notes=False)
        ).markdown()
    named = [likely_about(comparison.crossovers[m.line]) for m in (first, last)]
    if None not in named and _ranked(comparison, first, last):
        return (
            f"The GPUs here catch up with their own CPUs between batch size ≈ {named[0]} and ≈ {named[1]}, "
            f"{len(found)} machines in all."
        )
    # a bracket too wide to name one value (lib.core.fmt.crossing_about), or brackets that overlap: the brackets'
    # span, and no ranking by it
    return f"The GPUs here catch up with their own CPUs {_span(comparison, found)} on all {len(found)} machines that cross."


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

    if not _ranked(comparison, first, last):
        return (
            "Their ranges overlap, so no machine here is surely the earliest or the latest to cross (the table "
            "gives each machine's crossover)."
        )

    def where(machine: GalleryMachine) -> str:
        found_here = comparison.crossovers[machine.line]
        named = likely_about(found_here)
        low, high = found_here.sure or found_here.bracket or (None, None)
        return (
            f"≈ {named}"
            if named
            else f"between {fmt_value(low)} and {fmt_value(high)}"
            if low and high
            else "in the batch sizes measured"
        )

    return f"Earliest: **{plain(first.line)}** ({where(first)}); latest: **{plain(last.line)}** ({where(last)})."
