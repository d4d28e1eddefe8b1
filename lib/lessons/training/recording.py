"""One recording per curve: a recorded Training curve is one machine on one day, the other days its band.

No Streamlit here.
"""

from __future__ import annotations

import collections
from typing import Any

from lib.core.rows import Origin


def one_recording(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A curve is one recording, one machine on one day: the recording that holds the most of its points
    (the newest of equals). A point kept from another day that this recording also measured takes this
    recording's time; the other days stay its band. Without this a curve stitched a day's exact points onto
    another day's grid, and a crossover read off it was no day's."""
    held = collections.Counter(
        day
        for r in rows
        if r.get("origin") in (Origin.RECORDED, Origin.DERIVED)
        for day in {r.get("machine"), *(r.get("epoch_s_by_recording") or {})}
        if day
    )
    if len(held) < 2:
        return rows
    best = max(held, key=lambda day: (held[day], str(day)[-11:]))  # labels end '(YYYY-MM-DD)'
    out = []
    for r in rows:
        days = r.get("epoch_s_by_recording") or {}
        if r.get("machine") != best and best in days:
            steps = float(r.get("steps_per_epoch") or 1)
            r = {
                **r,
                "machine": best,
                "epoch_s": days[best],
                "median_s": days[best] / steps,
                "iqr_s": 0.0,  # that day's own IQR is not kept beside its median: its band is the days' range
                "origin_note": f"{r.get('origin_note', '')}; drawn: the {best} recording, as the rest of its curve",
            }
        out.append(r)
    return out
