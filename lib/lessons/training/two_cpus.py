"""Two CPU curves on one chart, this server's live one and the recorded small server's: where they disagree.

No Streamlit here.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from lib.core import noise
from lib.core.fmt import Sentence, fmt_ratio, say
from lib.core.point import SettingValue
from lib.core.rows import Origin
from lib.lessons.common.voice import Unit, legend_side
from lib.lessons.training.live_point import CurvePoint
from lib.lessons.training.reading import Clock, at, spread_s, timed
from lib.lessons.training.view import View
from lib.lessons.training.words import doubt


def cpu_disagreement(
    recorded: Sequence[CurvePoint],
    live: Sequence[CurvePoint],
    view: View,
    recorded_label: str,
    *,
    grid: Collection[SettingValue] | None,
) -> Sentence | None:
    """Where this server's live CPU and the recorded small server's CPU clearly differ (the one noise rule,
    each with its spread) at most of the grid points both have: the sentence that says so, after the live
    crossover (two answers from two CPUs that disagree, unexplained, would leave a reader to pick one). None
    where they agree, or too few points are shared to tell."""
    rec = {at(p, view.over): p for p in recorded if timed(p, Clock.EPOCH) and p.origin != Origin.PREDICTED}
    mine = {at(p, view.over): p for p in live if timed(p, Clock.EPOCH) and (grid is None or at(p, view.over) in grid)}
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
            rec[x].epoch_s, mine[x].epoch_s, spread_s(rec[x], Clock.EPOCH), spread_s(mine[x], Clock.EPOCH), x in doubted
        )
        and max(rec[x].epoch_s, mine[x].epoch_s) >= noise.CLEAR_RATIO * min(rec[x].epoch_s, mine[x].epoch_s)
    ]
    if len(apart) * 2 <= len(shared):
        return None
    ratios = sorted(rec[x].epoch_s / mine[x].epoch_s for x in apart)
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
