"""The Class gallery page's one-sentence answer, above its chart: where the class's GPUs catch up with
their own CPUs.

    gallery_answer(machines, comparison)
"""

from __future__ import annotations

from collections.abc import Sequence

from lib.core.fmt import Strong, fmt_value, say
from lib.core.rows import is_ok
from lib.lessons.common.voice import crossover_sentence, likely_about
from lib.lessons.gallery.view import OWN_CPU, OWN_GPU, GalleryMachine, crossover_words
from lib.lessons.your_results import compare
from lib.recorded.uploads import plain


def gallery_answer(machines: Sequence[GalleryMachine], comparison: compare.Comparison | None) -> str:
    """Where the machines' GPUs catch up with their own CPUs: the earliest and the latest."""
    found = [(x, m) for m in machines for x, _ in [crossover_words(comparison, m)] if x is not None]
    with_gpu = [m for m in machines if any(r.get("device") != "cpu" and is_ok(r) for r in m.rows)]
    if not found:
        if not with_gpu:
            return "No machine here has both CPU and GPU results yet, so there is no speed-up to compare."
        return (f"On none of the {len(with_gpu)} machines with a GPU here do the GPU and its own CPU cross within the "
                "batch sizes measured; the table says who is faster.")
    found.sort(key=lambda xm: xm[0])
    (_, first), (_, last) = found[0], found[-1]
    if len(found) == 1:
        return (say("On ", Strong(plain(first.line)), ", ")
                + crossover_sentence(comparison.crossovers[first.line], "batch size", OWN_CPU, OWN_GPU)).markdown()

    named = [likely_about(comparison.crossovers[m.line]) for _, m in (found[0], found[-1])]
    if None not in named:
        return (f"The GPUs here catch up with their own CPUs between batch size ≈ {named[0]} "
                f"(**{plain(first.line)}**) and ≈ {named[1]} (**{plain(last.line)}**), {len(found)} machines in all.")
    # a bracket too wide to name one value (lib.core.fmt.crossing_about): the brackets' span, and no ranking by it
    brackets = [comparison.crossovers[m.line].sure or comparison.crossovers[m.line].bracket for _, m in found]
    lows, highs = [b[0] for b in brackets if b and b[0] is not None], [b[1] for b in brackets if b and b[1] is not None]
    span = (f"between batch size {fmt_value(min(lows))} and {fmt_value(max(highs))}" if lows and highs
            else "within the batch sizes measured")
    return (f"The GPUs here catch up with their own CPUs {span} on all {len(found)} machines that cross; the batch "
            "sizes measured do not place each of them closer.")
