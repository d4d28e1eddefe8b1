"""Sentences computed from the result rows on screen. Every number in them comes from a row.

Used by the app's pages (no Streamlit here, so the words are unit-tested without a browser).
"""

from __future__ import annotations

from typing import Any

from lib.core.crossover import CrossKind, Crossover, SweepAnalysis
from lib.core.devices import is_cuda
from lib.core.fmt import fmt_num, fmt_ratio, fmt_s, fmt_value, pct, plural


def compare_sentence(
    a_label: str, a_s: float, b_label: str, b_s: float, *,
    what: str = "per epoch", a_iqr: float | None = None, b_iqr: float | None = None,
) -> str:
    """Which of two measured times wins and by how much; says so when the gap is within the spread."""
    if a_s <= 0 or b_s <= 0:
        return "One of the times is zero; nothing to compare."
    fast, fast_s, slow, slow_s = (a_label, a_s, b_label, b_s) if a_s <= b_s else (b_label, b_s, a_label, a_s)
    sentence = (f"**{fast}** is faster at these settings: {fmt_s(fast_s)} {what} against {fmt_s(slow_s)} "
                f"on {slow}, {fmt_ratio(slow_s / fast_s)} as fast.")
    spread = max(a_iqr or 0.0, b_iqr or 0.0)
    if spread > 0 and slow_s - fast_s < spread:
        sentence += (f" But the gap ({fmt_s(slow_s - fast_s)}) is smaller than the spread of the repeats "
                     f"(IQR up to {fmt_s(spread)}): call it a tie.")
    return sentence


def likely(x: float) -> str:
    """A break-even value as a reader should take it: two significant digits (about 700, not 683.4),
    so the same recorded data always reads the same and no false precision is claimed."""
    return fmt_num(float(f"{x:.2g}"), 2) if x >= 1 else fmt_num(x, 2)


def _between(low: float | None, high: float | None, setting: str) -> str:
    if low is not None and high is not None:
        return f"between {setting} {fmt_value(low)} and {fmt_value(high)}"
    if high is not None:
        return f"at or below {setting} {fmt_value(high)}"
    return f"above {setting} {fmt_value(low)}" if low is not None else f"somewhere in the measured range of {setting}"


def crossover_sentence(found: Crossover | SweepAnalysis | None, setting: str, cpu_label: str, gpu_label: str) -> str:
    """Who is faster where, read from the points both curves have (never from an extrapolated fit):
    the one sentence every page uses for a CPU-versus-GPU crossover. A range comes from the spread
    of both curves (where neither is surely faster), the likely value from the medians."""
    if isinstance(found, SweepAnalysis):
        found = found.measured if found.gpu_device else None
    if found is None or found.kind == CrossKind.ONE_DEVICE:
        return "There is no GPU curve on screen, so there is no crossover to show."
    if found.kind == CrossKind.TOO_FEW_POINTS:
        return "Too few points were measured on both devices to locate a crossover."
    cpu, gpu = f"**{cpu_label}**", f"**{gpu_label}**"
    first, last = (fmt_value(v) for v in found.span)
    if found.kind in (CrossKind.GPU_WINS, CrossKind.CPU_WINS) and first == last:  # one shared point: no range to speak of
        ahead, behind = (gpu, cpu) if found.kind == CrossKind.GPU_WINS else (cpu, gpu)
        there = "" if found.kind == CrossKind.GPU_WINS else "there the GPU does not catch up, and "
        return (f"{ahead} is faster than {behind} at every {setting} on the chart where both were timed, which is only "
                f"{first}: {there}one point cannot place a crossover.")
    if found.kind == CrossKind.GPU_WINS:
        text = f"{gpu} is faster than {cpu} at every {setting} on the chart, from {first} to {last}: no crossover in this range."
        return text + (f" At {setting} {first} the two are within the spread of the repeats."
                       if found.ties and found.ties[0] == found.span[0] else "")
    if found.kind == CrossKind.CPU_WINS:
        return (f"{cpu} is faster than {gpu} at every {setting} on the chart, from {first} to {last}: the GPU does not "
                "catch up in this range.")
    if found.kind in (CrossKind.CROSSES, CrossKind.CROSSES_BACK):
        low, high = found.sure or found.bracket
        where = _between(low, high, setting)
        if found.kind == CrossKind.CROSSES:
            return f"{gpu} catches up with {cpu} {where}; most likely at about {likely(found.x)}."
        return f"{gpu} is faster at the smaller values and {cpu} catches up {where}; most likely at about {likely(found.x)}."
    named = [f"{'the GPU' if who == 'gpu' else 'the CPU'} leads from {fmt_value(hi)} (after {fmt_value(lo)})"
             for lo, hi, who in found.crossings]
    # more than three changes would fill a phone's first screen: the first and the last say where it settles
    changes = "; ".join(named) if len(named) <= 3 else f"{named[0]}; after {len(named) - 2} more changes, {named[-1]}"
    return (f"{gpu} and {cpu} trade the lead {len(found.crossings)} times between {setting} {first} and {last}: "
            f"{changes}. Where they are this close, the spread of the repeats decides more than the device.")


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
