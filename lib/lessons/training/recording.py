"""One recording per curve: a recorded Training curve is one machine on one day, the other days its band.

No Streamlit here.
"""

from __future__ import annotations

import collections
from dataclasses import replace

from lib.lessons.common.one_day import line_day
from lib.lessons.training.step_point import StepPoint


def one_recording(points: list[StepPoint]) -> tuple[StepPoint, ...]:
    """A curve is one recording, one machine on one day: the recording that holds the most of its points
    (the newest of equals: lib.lessons.common.one_day.line_day, the rule every page's curves follow). A point kept from another day that this recording also measured takes this
    recording's time; the other days stay its band. Without this a curve stitched a day's exact points onto
    another day's grid, and a crossover read off it was no day's."""
    held = collections.Counter(
        day for p in points if not p.predicted for day in {p.machine, *(d.recording for d in p.by_recording)} if day
    )
    if len(held) < 2:
        return tuple(points)
    best = line_day(held)
    out = []
    for p in points:
        days = dict(p.by_recording)
        if p.machine != best and best in days:
            p = replace(
                p,
                machine=best,
                epoch_s=days[best],
                median_s=days[best] / float(p.steps_per_epoch or 1),
                iqr_s=0.0,  # that day's own IQR is not kept beside its median: its band is the days' range
                origin_note=f"{p.origin_note}; drawn: the {best} recording, as the rest of its curve",
            )
        out.append(p)
    return tuple(out)
