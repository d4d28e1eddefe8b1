"""Where one step's time went, in bars and in words. Every number in them comes from a row.

Used by the app's pages (no Streamlit here, so the words are unit-tested without a browser). The
crossover and 'A against B' sentences live in lib.lessons.common.voice.
"""

from __future__ import annotations

from typing import Any

from lib.core.devices import is_cuda
from lib.core.fmt import fmt_s, pct, plural

SPLIT_PARTS = {
    "busy": "running kernels (arithmetic)",
    "transfer": "copying the batch in",
    "overhead": "overhead: launching, Python, waiting",
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
    return {"step_s": t, "busy": busy, "transfer": transfer, "overhead": max(0.0, t - busy - transfer),
            "kernels": row.get("kernels"), "source": source}


def regime(row: dict[str, Any]) -> str | None:
    """'overhead-bound' or 'throughput-bound': whichever of overhead and arithmetic took more of the step."""
    split = time_split(row)
    if split is None:
        return None
    return "overhead-bound" if split["overhead"] + split["transfer"] > split["busy"] else "throughput-bound"


def split_sentence(row: dict[str, Any], label: str) -> str | None:
    """The words for the bars of time_split: which part took most of one step, and what that means."""
    split = time_split(row)
    if split is None:
        return None
    t, busy, rest = split["step_s"], split["busy"], split["overhead"] + split["transfer"]
    gpu = is_cuda(str(row.get("device", "")))
    unit = "kernels" if gpu else "operators"
    count = f" and issues {plural(int(split['kernels']), unit[:-1])}" if split["kernels"] else ""
    how = "measured with the profiler" if split["source"] == "profile" else "as the cost model splits it"
    head = (f"**{label}**: one step takes {fmt_s(t)}{count}; the {'GPU' if gpu else 'CPU'} is busy running them "
            f"for {fmt_s(busy)} ({pct(busy / t)}), {how}.")
    if regime(row) == "overhead-bound":
        extra = (f" The other {fmt_s(rest)} is overhead: issuing the work, not doing it. Here more work per step "
                 "(a bigger batch, wider layers) would cost little extra time.")
        if split["kernels"] and gpu:
            extra += f" That is about {fmt_s(rest / split['kernels'])} per kernel launched."
    else:
        extra = (f" Most of the step is arithmetic ({fmt_s(rest)} is overhead): time grows with the work, and the "
                 "device with more throughput wins.")
    if split["transfer"] > 0:
        extra += f" Copying the batch in took {fmt_s(split['transfer'])} of it."
    return head + extra
