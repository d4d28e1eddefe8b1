"""Where one step's time went, in bars and in words. Every number in them comes from a row.

Used by the app's pages (no Streamlit here, so the words are unit-tested without a browser). What
holds the step back (four regimes, the roofline) and the sentence for these bars live in
lib.lessons.common.verdict; the crossover and 'A against B' sentences in lib.lessons.common.voice.
"""

from __future__ import annotations

from typing import Any

SPLIT_PARTS = {
    "busy": "running kernels (on a CPU: operators)",  # arithmetic or memory traffic: the verdict says which
    "transfer": "copying the batch in",
    "overhead": "overhead: Python, dispatch, launching, waiting",
}


def time_split(row: dict[str, Any]) -> dict[str, Any] | None:
    """Where one step's time went, the one definition the bars and the words both use:
    busy = the device ran kernels (on the CPU: operators) for this long; transfer = copying the
    batch in, where the row timed it; overhead = the rest of the step (launching work from Python,
    autograd, dispatch, waiting). From the row's profile, or for a predicted point from the cost
    model's share of issuing the work (said so in `source`). None when the row carries neither."""
    t = row.get("median_s")
    if not t:
        return None
    if row.get("device_busy_s") is not None and row.get("kernels"):
        busy = min(float(row["device_busy_s"]), t)
        source = "profile"
    elif row.get("launch_share") is not None:
        busy = t * (1.0 - float(row["launch_share"]))
        source = "cost model"
    else:
        return None
    transfer = min(float(row.get("phase_transfer_s") or 0.0), t - busy)
    return {
        "step_s": t,
        "busy": busy,
        "transfer": transfer,
        "overhead": max(0.0, t - busy - transfer),
        "kernels": row.get("kernels"),
        "source": source,
    }
