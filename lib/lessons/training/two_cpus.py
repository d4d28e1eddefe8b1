"""Two CPU curves on one chart, this server's live one and the recorded small server's: where they disagree.

No Streamlit here.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from lib.core import noise
from lib.core.crossover import spread
from lib.core.fmt import Sentence, fmt_ratio, say
from lib.core.rows import Origin, is_ok
from lib.lessons.common.voice import Unit, legend_side
from lib.lessons.training.view import View
from lib.lessons.training.words import Row, doubt


def cpu_disagreement(
    recorded: Sequence[Row], live: Sequence[Row], view: View, recorded_label: str, *, grid: Collection[Any] | None
) -> Sentence | None:
    """Where this server's live CPU and the recorded small server's CPU clearly differ (the one noise rule,
    each with its spread) at most of the grid points both have: the sentence that says so, after the live
    crossover (two answers from two CPUs that disagree, unexplained, would leave a reader to pick one). None
    where they agree, or too few points are shared to tell."""
    rec = {r[view.over]: r for r in recorded if is_ok(r, "epoch_s") and r.get("origin") != Origin.PREDICTED}
    mine = {r[view.over]: r for r in live if is_ok(r, "epoch_s") and (grid is None or r[view.over] in grid)}
    shared = sorted(set(rec) & set(mine))
    if len(shared) < 3:
        return None
    # apart: the noise rule calls the gap clear, and it is CLEAR_RATIO or more (two CPUs of one kind differ by less
    # from one process or day to the next; the recording that set this sentence off was 2.5x slow)
    doubted = doubt(recorded, view.over) | doubt(live, view.over)
    apart = [
        x
        for x in shared
        if noise.decides(
            rec[x]["epoch_s"], mine[x]["epoch_s"], spread(rec[x], "epoch_s"), spread(mine[x], "epoch_s"), x in doubted
        )
        and max(rec[x]["epoch_s"], mine[x]["epoch_s"]) >= noise.CLEAR_RATIO * min(rec[x]["epoch_s"], mine[x]["epoch_s"])
    ]
    if len(apart) * 2 <= len(shared):
        return None
    ratios = sorted(rec[x]["epoch_s"] / mine[x]["epoch_s"] for x in apart)
    middle = ratios[len(ratios) // 2]
    how = f"is {fmt_ratio(middle)} as fast as" if middle >= 1 else f"takes {fmt_ratio(1 / middle)} as long as"
    return say(
        " This server's CPU ",
        how,
        " ",
        legend_side(Unit.CPU, recorded_label).called,
        f" at {len(apart)} of the {len(shared)} {view.axis.label}s both have (beyond both spreads), so the answer "
        "above is the recorded server's, not this one's.",
        about=(len(apart), len(shared), middle),
    )
