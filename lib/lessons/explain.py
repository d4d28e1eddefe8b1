"""Sentences computed from the result rows on screen. Every number in them comes from a row.

Used by the app's pages (no Streamlit here, so the words are unit-tested without a browser).
"""

from __future__ import annotations

from typing import Any

from lib.core.crossover import CostModel, Crossover, CrossKind, SweepAnalysis
from lib.core.devices import is_cuda
from lib.core.fmt import fmt_flops, fmt_num, fmt_ratio, fmt_s, fmt_value


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
    if found.kind == CrossKind.GPU_WINS:
        text = f"{gpu} is faster at every {setting} on the chart, from {first} to {last}: no crossover in this range."
        return text + (f" At {setting} {first} the two are within the spread of the repeats."
                       if found.ties and found.ties[0] == found.span[0] else "")
    if found.kind == CrossKind.CPU_WINS:
        return f"{cpu} is faster at every {setting} on the chart, from {first} to {last}: {gpu} does not catch up in this range."
    if found.kind in (CrossKind.CROSSES, CrossKind.CROSSES_BACK):
        low, high = found.sure or found.bracket
        where = _between(low, high, setting)
        if found.kind == CrossKind.CROSSES:
            return f"{gpu} catches up with {cpu} {where}; most likely at about {likely(found.x)}."
        return f"{gpu} is faster at the smaller values and {cpu} catches up {where}; most likely at about {likely(found.x)}."
    changes = "; ".join(f"{'the GPU' if who == 'gpu' else 'the CPU'} leads from {fmt_value(hi)} (after {fmt_value(lo)})"
                        for lo, hi, who in found.crossings)
    return (f"{gpu} and {cpu} trade the lead {len(found.crossings)} times between {setting} {first} and {last}: "
            f"{changes}. Where they are this close, the spread of the repeats decides more than the device.")


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
        unit, device_word = ("kernels", "the GPU") if gpu else ("operator calls", "the CPU")
        rest = ("launching them and the Python in between" if gpu
                else "Python, autograd and dispatch between them")
        text = (f"**{label}**: one step takes {fmt_s(t)} and issues {kernels} {unit}; {device_word} was busy "
                f"running them for {fmt_s(busy)} ({busy / t:.0%} of the step). The other {fmt_s(overhead)} is {rest}: "
                f"{kernels} {unit} × ≈{fmt_s(per)} each = {fmt_s(overhead)} of overhead against {fmt_s(busy)} "
                f"of arithmetic, so the step is **{what}**: {why[what]}")
        return text
    if model is not None and work is not None:
        fixed, variable = model.overhead_s, model.seconds_per_work * work
        return (f"**{label}**: one step takes {fmt_s(t)}. Fitted over this curve, a step costs {fmt_s(fixed)} "
                f"fixed plus its work at {fmt_num(model.throughput / 1e9)} GFLOP/s; at this point that is {fmt_s(fixed)} "
                f"fixed against {fmt_s(variable)} for {fmt_flops(work)} of arithmetic, so the step is "
                f"**{what}**: {why[what]}")
    return f"**{label}**: one step takes {fmt_s(t)}; these results carry no kernel count or curve to explain it further."


def transfer_sentence(row: dict[str, Any], label: str) -> str | None:
    """How much of a step the host-to-device copy took, when the row timed it."""
    t, copy = row.get("median_s"), row.get("phase_transfer_s")
    if not t or copy is None:
        return None
    return (f"{label}: copying one batch from host memory took {fmt_s(copy)}, "
            f"{min(copy / t, 9.99):.0%} of a {fmt_s(t)} step.")
