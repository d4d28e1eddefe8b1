"""The Class gallery's screen: what the page shows, as one value, built from the machines it holds.

    on = screen(shipped, shared)        the answer, its notes, the chart's frames and caption
    count_caption(...)                  'N shared entries in course X (page 1 of 3: …), and 2 shipped with the app.'

The page lays these out and declares its widgets; every sentence and frame is made here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from lib.core.fmt import fmt_value, plural
from lib.lessons.gallery.answer import gallery_answer, gallery_notes
from lib.lessons.gallery.view import GalleryMachine, crossover_points, gallery_comparison, speedup_frame
from lib.lessons.your_results.compare import Comparison
from lib.recorded.gallery.sweep import GALLERY_SWEEP
from lib.recorded.uploads import plain

SORT_NAMES = {
    "crossover": "where the GPU catches up (smallest first)",
    "newest": "newest first",
    "name": "who named it",
    "machine": "GPU or CPU name",
}
UNKNOWN_COURSE = "The course code below is not one this gallery knows, so there is nothing to show yet."
NO_CHART = "No machine here has both CPU and GPU results yet, so there is no speed-up line to draw."
TABLE_CAPTION = (
    "Click a column's header to sort by it. 'GPU catches up at batch size' compares each machine's GPU "
    "with its own CPU, interpolated between the two measured batch sizes around the crossing and rounded "
    "to the digits they support; it is left empty where they are more than 4× apart (the crossover "
    "column gives them)."
)
PICK_TWO = "Pick two (yours and the H200, say) to open them together on the Your results page."
COMPARE_LINK = "Compare them on Your results: both machines' CPU and GPU curves, their fingerprints, a download"


def what_it_is() -> str:
    """The 'What the gallery is' words: the one sweep every machine ran."""
    return (
        "Every machine visitors chose to share, measured on **the same sweep**: "
        f"{plain(GALLERY_SWEEP.describe(), limit=300)}. Each line is one machine's GPU speed-up over its own CPU, "
        "so you can see where your GPU starts to win beside your class's machines and the shipped H200 and H100."
    )


@dataclass(frozen=True, eq=False)
class Screen:
    """The gallery's first screen: its answer, the notes under the chart, the chart's frames and caption."""

    machines: tuple[GalleryMachine, ...]  # the shipped machines, then this page's entries
    comparison: Comparison | None
    answer: str
    notes: str
    frame: pd.DataFrame  # one line per machine with both devices: its CPU time over its GPU time
    crossings: pd.DataFrame  # where each line catches up (the diamonds)
    chart_caption: str | None  # None where there is no chart


def chart_caption(machines: Sequence[GalleryMachine], frame: pd.DataFrame, crossings: pd.DataFrame) -> str | None:
    """What the speed-up chart draws, and which machines it cannot (CPU only); None without a chart."""
    if frame.empty:
        return None
    drawn = set(frame["machine"])
    cpu_only = [m.line for m in machines if m.line not in drawn]
    return (
        "One line per machine: its CPU time divided by its GPU time at each batch size (above 1× the GPU is "
        "faster); "
        + (
            "a diamond marks where it catches up."
            if len(crossings)
            else "no diamond is drawn: no line's crossing can be placed closer than the range the answer gives."
        )
        + (f" CPU only, so no line: {plain('; '.join(cpu_only), limit=600)}." if cpu_only else "")
    )


def screen(shipped: Sequence[GalleryMachine], shared: Sequence[GalleryMachine]) -> Screen:
    machines = (*shipped, *shared)
    comparison = gallery_comparison(machines)
    frame, crossings = speedup_frame(comparison), crossover_points(comparison)
    return Screen(
        machines,
        comparison,
        gallery_answer(machines, comparison),
        gallery_notes(machines, comparison),
        frame,
        crossings,
        chart_caption(machines, frame, crossings),
    )


def count_caption(
    total: int, course: str, page: int, pages: int, shown: int, shipped: int, stored_in: str, waiting: int
) -> str:
    """How many entries there are, which page of them is shown, where they are stored, how many wait."""
    return (
        plural(total, "shared entry", "shared entries")
        + (f" in course {plain(course)}" if course else "")
        + (f" (page {page} of {pages}: {shown} of them here)" if pages > 1 else "")
        + f", and {fmt_value(shipped)} shipped with the app. Stored in {stored_in}."
        + (
            f" {plural(waiting, 'more waits', 'more wait')} for the instructor's approval (many were added in "
            "the last hour)."
            if waiting
            else ""
        )
    )


def header(course: str) -> str:
    return f"The machines of course {plain(course)}" if course else "Every machine"
