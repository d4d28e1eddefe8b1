"""Sentences computed from the result rows on screen. Every number in them comes from a row.

Used by the app's pages (no Streamlit here, so the words are unit-tested without a browser).
"""

from __future__ import annotations

from typing import Any

from lib.core.crossover import CostModel, SweepAnalysis
from lib.core.devices import is_cuda
from lib.core.fmt import fmt_flops, fmt_num, fmt_rate, fmt_ratio, fmt_s, fmt_value, pct, plural


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


def crossover_sentence(analysis: SweepAnalysis | None, setting: str, cpu_label: str, gpu_label: str) -> str:
    """Where the GPU catches up, from the measured points only (never from an extrapolated fit)."""
    if analysis is None or not analysis.gpu_device:
        return "There is no GPU curve on screen, so there is no crossover to show."
    m = analysis.measured
    if m.kind == "crosses":
        lo, hi = m.bracket
        return (f"**{gpu_label}** catches up with **{cpu_label}** at {setting} ≈ {fmt_num(m.x)} "
                f"(between the measured {fmt_value(lo)} and {fmt_value(hi)}).")
    if m.kind == "gpu_wins":
        return (f"**{gpu_label}** is at least as fast as **{cpu_label}** from the first point measured: "
                "no crossover in this range.")
    if m.kind == "cpu_wins":
        return f"**{cpu_label}** is faster at every point measured: **{gpu_label}** never catches up in this range."
    return "Too few points were measured on both devices to locate a crossover."


def regime(row: dict[str, Any], model: CostModel | None = None, work: float | None = None) -> str | None:
    """'overhead-bound' or 'throughput-bound' for one measured row: from its kernel profile when
    it has one (launch and Python overhead vs device-busy time), else from the fitted cost model."""
    t = row.get("median_s")
    busy, kernels = row.get("device_busy_s"), row.get("kernels")
    if t and busy is not None and kernels:
        return "overhead-bound" if t - busy > busy else "throughput-bound"
    if model is not None and work is not None:
        return model.regime(work)
    return None


def regime_sentence(
    row: dict[str, Any], label: str, *, model: CostModel | None = None, work: float | None = None,
) -> str:
    """The regime of one point and why, with the numbers of that row (and of the sweep's fit)."""
    t = row.get("median_s")
    if not t:
        return f"{label}: not measured at this point ({row.get('message') or row.get('status')})."
    busy, kernels = row.get("device_busy_s"), row.get("kernels")
    gpu = is_cuda(str(row.get("device", "")))
    what = regime(row, model, work)
    why = {
        "overhead-bound": ("the fixed cost of issuing work dominates, so more work per step (a bigger batch, "
                           "wider layers) costs little extra time here. This is where a GPU loses to a CPU."),
        "throughput-bound": ("time grows with the arithmetic, so the device's raw speed decides. "
                             "This is where a GPU's throughput pays off."),
    }
    if busy is not None and kernels:
        kernels = int(kernels)
        overhead = max(0.0, t - busy)
        per = overhead / kernels
        one, many, device_word = (("kernel", "kernels", "the GPU") if gpu
                                  else ("operator call", "operator calls", "the CPU"))
        calls = plural(kernels, one, many)
        rest = ("launching them and the Python in between" if gpu
                else "Python, autograd and dispatch between them")
        return (f"**{label}**: one step takes {fmt_s(t)} and issues {calls}; {device_word} was busy running them "
                f"for {fmt_s(busy)} ({pct(busy / t)} of the step). The other {fmt_s(overhead)} is {rest}: "
                f"{calls} × ≈{fmt_s(per)} each = {fmt_s(overhead)} of overhead against {fmt_s(busy)} "
                f"of arithmetic, so the step is **{what}**: {why[what]}")
    if model is not None and work is not None:
        fixed, variable = model.overhead_s, model.seconds_per_work * work
        return (f"**{label}**: one step takes {fmt_s(t)}. Fitted over this curve, a step costs {fmt_s(fixed)} "
                f"fixed plus its work at {fmt_rate(model.throughput)}; at this point that is {fmt_s(fixed)} "
                f"fixed against {fmt_s(variable)} for {fmt_flops(work)} of arithmetic, so the step is "
                f"**{what}**: {why[what]}")
    return (f"**{label}**: one step takes {fmt_s(t)}; these results carry no kernel count or curve to explain it "
            "further.")


def transfer_sentence(row: dict[str, Any], label: str) -> str | None:
    """How much of a step the host-to-device copy took, when the row timed it."""
    t, copy = row.get("median_s"), row.get("phase_transfer_s")
    if not t or copy is None:
        return None
    return (f"{label}: copying one batch from host memory took {fmt_s(copy)}, "
            f"{pct(min(copy / t, 9.99))} of a {fmt_s(t)} step.")
