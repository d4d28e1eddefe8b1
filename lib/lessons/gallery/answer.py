"""The Class gallery page's one-sentence answer, above its chart: where the class's GPUs catch up with
their own CPUs.

    gallery_answer(machines, comparison)    one sentence, above the chart (issue 37)
    gallery_notes(machines, comparison)     which machines, and the points too close to call, under it
"""

from __future__ import annotations

from collections.abc import Sequence

from lib.core.fmt import Strong, fmt_about, say
from lib.core.rows import is_ok
from lib.lessons.common.voice import crossover_notes, crossover_sentence
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
    (lo, first), (hi, _) = found[0], found[-1]
    if len(found) == 1:
        return (say("On ", Strong(plain(first.line)), ", ")
                + crossover_sentence(comparison.crossovers[first.line], "batch size", OWN_CPU, OWN_GPU, notes=False)
                ).markdown()
    return (f"The GPUs here catch up with their own CPUs between batch size ≈ {fmt_about(lo)} and ≈ {fmt_about(hi)}, "
            f"{len(found)} machines in all.")


def gallery_notes(machines: Sequence[GalleryMachine], comparison: compare.Comparison | None) -> str:
    """What the answer leaves for under the chart: which machines catch up earliest and latest, or the one
    machine's points too close to call. Empty when there is nothing to add."""
    found = _crossings(machines, comparison)
    if not found:
        return ""
    (lo, first), (hi, last) = found[0], found[-1]
    if len(found) == 1:
        return crossover_notes(comparison.crossovers[first.line], "batch size", OWN_CPU, OWN_GPU)
    return f"Earliest: **{plain(first.line)}** (≈ {fmt_about(lo)}); latest: **{plain(last.line)}** (≈ {fmt_about(hi)})."
