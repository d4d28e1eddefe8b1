"""One recording per curve: a recorded curve is one machine on one day; its other days are drawn apart.

    day = line_day({"NVIDIA H200 (2026-11-21)": 1, "NVIDIA H200 (2026-11-28)": 9})   # the 11-28 recording
    split = on_day(points, day)     # that day's points on the line, the other days' points apart

Training's curves (lib.lessons.training.recording), Timing pitfalls' and the Jacobian's (lib.lessons.common.
onscreen.recorded_views) all choose their day here. No Streamlit here.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import NamedTuple

from lib.core.point import NOTHING, Point

DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
APART = "apart"  # the chart data's column marking a point of another recording day than its line's


def day_in(recording: str | None) -> str:
    """The day a recording names ('NVIDIA H200 (2026-11-23)' -> '2026-11-23'), '' when it names none."""
    found = DAY.findall(str(recording or ""))
    return found[-1] if found else ""


def line_day(held: Mapping[str, int]) -> str | None:
    """The recording a curve is drawn from, of {recording: points it holds}: the one holding the most (the full
    grid, not a later lease's few points), the newest of equals; None when there is none."""
    if not held:
        return None
    return max(held, key=lambda recording: (held[recording], day_in(recording)))


def held_days(points: Iterable[Point]) -> collections.Counter[str]:
    """How many measured points each recording day holds, as a merged pack kept them (a point timed on several
    days is kept from the newest, the others' times beside it: lib.recorded.sources.newest_points). Counting
    the times kept beside too would draw an old day's bare medians (no spread, no first call) over the newer
    grid that replaced it."""
    return collections.Counter(p.recorded_on for p in points if p.ok and p.recorded_on)


def days_of(points: Iterable[Point]) -> set[str]:
    """Every recording day the points were timed on: their own, and the days whose times were kept beside."""
    return {
        day for p in points if p.ok for day in (p.recorded_on or "", *(day_in(r.recording) for r in p.other_recordings))
    } - {""}


class OneDay(NamedTuple):
    """A curve's recorded points split by day: those drawn on its line, and the other days' drawn apart."""

    line: tuple[Point, ...]  # the line's day (a point kept from another day that this day timed too: its time)
    apart: tuple[Point, ...]  # each other day's point, its own day in `recorded_on`, never on the line


def on_day(points: Sequence[Point], day: str | None) -> OneDay:
    """`points` (a merged pack's, each with its day) split into `day`'s line and the other days' points (None:
    all on the line, one day found). A point not measured stays with the line (drawn on none; its note stays).
    Without this a line joined one day's grid to another day's points, and its legend and crossover were no day's."""
    if day is None:
        return OneDay(tuple(points), ())
    line, apart = [], []
    for p in points:
        others = {day_in(r.recording): r.median_s for r in p.other_recordings}
        own = p.recorded_on or ""
        if own == day or not p.ok:
            line.append(replace(p, other_recordings=()))
        else:
            if day in others:
                line.append(timed_on(p, day, others[day]))
            apart.append(replace(p, other_recordings=()))
        apart += [timed_on(p, other, t) for other, t in others.items() if other not in (day, own)]
    return OneDay(tuple(line), tuple(apart))


def timed_on(point: Point, day: str, median_s: float) -> Point:
    """The point as another day timed it: that day's median only (its spread, first call and phases were not
    kept beside it), its rate scaled to that time."""
    rate = point.counts.achieved_flops_per_s
    if rate is not None and point.median_s and median_s > 0:
        rate = rate * point.median_s / median_s
    return replace(
        point,
        median_s=median_s,
        iqr_s=None,
        cold_s=None,
        phases=NOTHING,
        recorded_on=day,
        other_recordings=(),
        counts=replace(point.counts, achieved_flops_per_s=rate),
    )
