"""What holds one step back, one of five answers, and the one change that would move it.

    v = verdict(row, ceilings)          # Verdict: regime, numbers, fix (None: the row has no split)
    verdict_sentence(v, "GPU · H200")   # the words, the only place they are written
    verdict_words(v, "cuda:0 at batch_size 64").plain()   # the same words for the command line

From the step's own numbers (lib.lessons.common.explain.time_split: busy time, kernels; the row's flops,
bytes and mode) against the recording GPU's measured roofline (lib.recorded.ceilings, never a vendor's
figure). A regime is a physics claim: memory or arithmetic holds a step only when it comes near that roof.

    LAUNCH_BOUND     the device waits for the host more than it works (worded for the mode: eager's Python
                     and one launch per op; compile's generated launches; a CUDA graph's replay and gaps)
    MEMORY_BOUND     over the whole timed step its counted bytes move at ROOF_SHARE or more of the
                     measured bandwidth (its flop per byte below the ridge)
    COMPUTE_BOUND    likewise its flops against the FLOP/s peak (TF32's for a TF32 row, else fp32's)
    KERNEL_LATENCY   busy, under ROOF_SHARE of both roofs, with tiny kernels at their latency floor (kernels
                     not counted: work the ceilings would do in under 1/LATENCY_GAP of the busy time)
    BELOW_ROOFS      busy, under ROOF_SHARE of both roofs, kernels not tiny: the page says what it cannot tell

Where a ceiling is not recorded the verdict says what it can (regime None where it cannot tell
memory from arithmetic) and the sentence says which ceiling is missing. No Streamlit here.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lib.core.devices import is_cuda
from lib.core.fmt import Sentence, Strong, fmt_bytes, fmt_flops, fmt_num, fmt_rate, fmt_s, pct, plural, say
from lib.core.rows import Origin, is_ok
from lib.lessons.common.explain import SplitSource, time_split
from lib.recorded.ceilings import Ceilings
from lib.workloads import execution

# A kernel busy this long or less on average does about no work: a launch's fixed cost on the GPU
# (scheduling, a wave of blocks, writing back) is a few µs; the recorded CUDA graphs at batch 1
# average 1.5-4 µs a kernel.
LATENCY_FLOOR_S = 10e-6
# ... and, with no bandwidth ceiling recorded, the step is latency-bound when the arithmetic ceiling
# would run its flops this many times faster than the GPU was busy.
LATENCY_SLACK = 2.0
# Memory-bound only when over the whole timed step the counted bytes move at this share of the measured
# bandwidth or more (compute-bound likewise against the FLOP/s roof): a step held by memory or arithmetic
# runs near that roof, and under 30 % most of the step goes to what the roof does not price.
ROOF_SHARE = 0.3
# Kernels not counted (a predicted step): latency-bound when the ceilings would do its counted work in
# under 1 % of its busy time; no plausible undercount of its bytes (the least it must touch) closes that.
LATENCY_GAP = 100.0
UNDECIDED = "not decided"  # the roofline's word for a point whose regime the recorded ceilings cannot tell


class Regime(enum.Enum):
    LAUNCH_BOUND = "launch-bound"
    KERNEL_LATENCY = "kernel-latency-bound"
    MEMORY_BOUND = "memory-bound"
    COMPUTE_BOUND = "compute-bound"
    BELOW_ROOFS = "below both roofs"


class Fix(enum.Enum):
    """The one change that would move a verdict (each one is a switch or setting a reader has)."""

    NO_ITEM = "no loss.item() every step"
    DATA_ON_DEVICE = "keep the data on the device"
    CUDA_GRAPH = "a CUDA graph or torch.compile"
    BIGGER_BATCH = "a bigger batch"
    FUSE = "fewer, fused kernels"
    LOWER_PRECISION = "lower precision"


@dataclass(frozen=True)
class Verdict:
    regime: Regime | None  # None: busy with work, but no recorded ceiling tells memory from arithmetic
    gpu: bool
    step_s: float
    busy_s: float
    transfer_s: float
    overhead_s: float
    kernels: int
    flops: float | None
    bytes: float | None
    ceilings: Ceilings | None
    source: SplitSource
    fix: Fix | None
    mode: str = execution.DEFAULT  # how the step ran (lib.workloads.execution): the words of its overhead
    tf32: bool = False  # its matmuls ran TF32 (a matmul row with dtype tf32): its arithmetic roof is TF32's

    @property
    def intensity(self) -> float | None:
        """Flop per byte of the step (its x on a roofline)."""
        return self.flops / self.bytes if self.flops and self.bytes else None

    @property
    def achieved_flops_per_s(self) -> float | None:
        """Arithmetic done per second of the step (its y on a roofline)."""
        return self.flops / self.step_s if self.flops and self.step_s else None

    @property
    def flops_roof(self) -> tuple[float, str] | None:
        """The arithmetic ceiling this step is read against and its name: TF32's for a TF32 row, else fp32's."""
        c = self.ceilings
        if c is None:
            return None
        return (c.tf32_flops_per_s, "TF32") if self.tf32 and c.tf32_flops_per_s else (c.flops_per_s, "fp32")

    @property
    def compute_share(self) -> float | None:
        """The step's FLOP/s over the whole timed step, as a share of its arithmetic ceiling."""
        roof = self.flops_roof
        return self.achieved_flops_per_s / roof[0] if roof and self.achieved_flops_per_s else None

    @property
    def memory_share(self) -> float | None:
        """The step's counted bytes per second of the whole timed step, as a share of the measured bandwidth
        (None where the bandwidth or the bytes are not known)."""
        c = self.ceilings
        if c is None or not c.bytes_per_s or not self.bytes or not self.step_s:
            return None
        return self.bytes / self.step_s / c.bytes_per_s

    @property
    def roof_s(self) -> float | None:
        """How long the ceilings say the step's work needs at the least (None: not known)."""
        roof = self.flops_roof
        if roof is None or not self.flops:
            return None
        c = self.ceilings
        memory = self.bytes / c.bytes_per_s if self.bytes and c.bytes_per_s else 0.0
        return max(self.flops / roof[0], memory)


def verdict(row: Mapping[str, Any], ceilings: Ceilings | None = None) -> Verdict | None:
    """The regime of the step in `row` (a timed row: its median, never a profiled step's wall time)
    and the fix read from the row's own settings. Ceilings only count for a GPU row."""
    split = time_split(row)
    if split is None:
        return None
    gpu = is_cuda(str(row.get("device", "")))
    ceilings = ceilings if gpu else None
    kernels = int(split.kernels or 0)
    flops, nbytes = (float(row[k]) if row.get(k) else None for k in ("flops", "bytes"))
    base = dict(
        gpu=gpu,
        step_s=split.step_s,
        busy_s=split.busy,
        transfer_s=split.transfer,
        overhead_s=split.overhead,
        kernels=kernels,
        flops=flops,
        bytes=nbytes,
        ceilings=ceilings,
        source=split.source,
        mode=str(row.get("mode") or execution.DEFAULT),
        tf32=row.get("dtype") == "tf32",
    )
    draft = Verdict(regime=None, fix=None, **base)  # its shares of the roofs, before its regime is read from them
    draft = Verdict(regime=_regime(draft), fix=None, **base)
    return Verdict(regime=draft.regime, fix=_fix(draft, row), **base)


def _regime(v: Verdict) -> Regime | None:
    """Overhead first (the device waits more than it works); then a roof only where the step comes near it
    over the whole timed step; below both roofs the kernels' own latency, never memory or arithmetic."""
    if v.overhead_s + v.transfer_s > v.busy_s:
        return Regime.LAUNCH_BOUND
    if not v.gpu or v.ceilings is None or not v.flops:
        return None
    compute, memory = v.compute_share or 0.0, v.memory_share
    if compute >= ROOF_SHARE and (memory is None or compute >= memory):
        return Regime.COMPUTE_BOUND
    tiny = bool(v.kernels) and v.busy_s / v.kernels <= LATENCY_FLOOR_S
    if memory is None:  # no bandwidth ceiling: tiny kernels far below the arithmetic roof; else memory is unknown
        return Regime.KERNEL_LATENCY if tiny and (v.roof_s or 0.0) * LATENCY_SLACK < v.busy_s else None
    if memory >= ROOF_SHARE:
        return Regime.MEMORY_BOUND
    far = not v.kernels and (v.roof_s or 0.0) * LATENCY_GAP < v.busy_s
    return Regime.KERNEL_LATENCY if tiny or far else Regime.BELOW_ROOFS


def _can_grow(row: Mapping[str, Any]) -> bool:
    """Whether a bigger batch is a change this step can take: it is not already the whole dataset."""
    try:
        return int(row["batch_size"]) < int(row["dataset_size"])
    except (KeyError, TypeError, ValueError):
        return False


def _fix(v: Verdict, row: Mapping[str, Any]) -> Fix | None:
    """The one change that moves this verdict, never one already on in the row's settings."""
    found = execution.BY_VALUE.get(str(row.get("mode") or "eager"))  # the mode's record: graphed? compiled?
    grow = _can_grow(row)
    if v.regime == Regime.LAUNCH_BOUND:
        if v.gpu and row.get("item_every_step"):
            return Fix.NO_ITEM
        if v.gpu and v.transfer_s > v.overhead_s and row.get("data_resident") is False:
            return Fix.DATA_ON_DEVICE
        if v.gpu and not (found and found.graphed):
            return Fix.CUDA_GRAPH
        return Fix.BIGGER_BATCH if grow else None
    if v.regime in (Regime.KERNEL_LATENCY, Regime.MEMORY_BOUND, Regime.BELOW_ROOFS):
        if grow:
            return Fix.BIGGER_BATCH
        return Fix.FUSE if not (found and found.compile) else None
    if v.regime == Regime.COMPUTE_BOUND:
        return Fix.LOWER_PRECISION
    return None


def split_sentence(row: Mapping[str, Any], label: str, ceilings: Ceilings | None = None) -> str | None:
    """The words for the bars of time_split: where one step's time went, what holds it, what would move it."""
    v = verdict(row, ceilings)
    return verdict_sentence(v, label) if v else None


@dataclass(frozen=True)
class RooflinePoint:
    """One step of a curve on the roofline (lib.charts.roofline draws it)."""

    x: Any  # the swept setting's value at this step
    intensity: float  # flop per byte counted
    rate: float  # FLOP/s over the whole timed step
    regime: Regime | None  # None: the recorded ceilings cannot tell (drawn as UNDECIDED)
    current: bool  # the point the slider picks
    predicted: bool  # a step nobody recorded, its place the cost model's: drawn hollow, as on the curve chart
    series: str | None = None  # the curve's legend name, whose step it is (what its regime words quote)


def roofline_points(
    rows: Sequence[Mapping[str, Any]],
    ceilings: Ceilings | None,
    over: str,
    current: Any = None,
    series: str | None = None,
) -> list[RooflinePoint]:
    """A curve's timed steps (those with flops and bytes counted) as roofline points, in `series`."""
    out = []
    for row in rows:
        if not (is_ok(row) and row.get("flops") and row.get("bytes")):
            continue
        v = verdict(row, ceilings)
        out.append(
            RooflinePoint(
                x=row.get(over),
                intensity=float(row["flops"]) / float(row["bytes"]),
                rate=float(row["flops"]) / float(row["median_s"]),
                regime=v.regime if v else None,
                current=row.get(over) == current,
                predicted=row.get("origin") == Origin.PREDICTED,
                series=series or None,
            )
        )
    return out


# -- the words ----------------------------------------------------------------------------------------------
def rate_bytes(rate: float) -> str:
    return f"{fmt_bytes(rate)}/s"


def verdict_sentence(v: Verdict, label: str) -> str:
    """'**GPU · H200**: one step takes …; the GPU is busy … This step is memory-bound: … What would
    move it: …' Every number is on the verdict (and its ceilings, which name their recordings)."""
    unit = "kernel" if v.gpu else "operator"
    device = "GPU" if v.gpu else "CPU"
    count = f" and issues {plural(v.kernels, unit)}" if v.kernels else ""
    how = "measured with the profiler" if v.source == SplitSource.PROFILE else "as the cost model splits it"
    rest = v.overhead_s + v.transfer_s
    them = "them" if v.kernels else f"its {unit}s"
    head = (
        f"**{label}**: one step takes {fmt_s(v.step_s)}{count}; the {device} is busy running {them} for "
        f"{fmt_s(v.busy_s)} ({pct(v.busy_s / v.step_s)}), {how}."
    )
    body = _regime_words(v, rest)
    if v.transfer_s > 0 and not (v.gpu and v.regime == Regime.LAUNCH_BOUND and v.transfer_s > v.overhead_s):
        body += f" Copying the batch in took {fmt_s(v.transfer_s)} of the step."
    return f"{head} {body}{_fix_words(v)}"


def _regime_words(v: Verdict, rest: float) -> str:
    c = v.ceilings
    if v.regime == Regime.LAUNCH_BOUND:
        if not v.gpu:
            return (
                f"The other {fmt_s(rest)} is overhead between operators (Python, autograd, PyTorch's dispatch): "
                "the CPU pays it too, per operator, as the GPU's step does before its launches. This step is "
                "overhead-bound: more work per step would cost little extra time."
            )
        if v.transfer_s > v.overhead_s:  # the host's copy, more than its launches
            return (
                f"Of the other {fmt_s(rest)}, {fmt_s(v.transfer_s)} is copying the batch in and "
                f"{fmt_s(v.overhead_s)} issuing the work: this step is bound by the host, the copy first, not by "
                "the GPU's work."
            )
        return _overhead_words(v, rest)
    if v.regime in (Regime.KERNEL_LATENCY, Regime.BELOW_ROOFS):
        return _latency_words(v)
    if v.regime == Regime.MEMORY_BOUND:
        return (
            f"This step is memory-bound: over the whole step it moved its {fmt_bytes(v.bytes or 0)} (the least it "
            f"must touch, as this app counts them) at {rate_bytes((v.bytes or 0) / v.step_s)}, "
            f"{pct(v.memory_share or 0)} of this GPU's measured bandwidth ({rate_bytes(c.bytes_per_s)}); "
            f"{fmt_flops(v.flops or 0)} over those bytes is {per_byte(v.intensity or 0)} flop per byte, below the "
            f"ridge of {fmt_num(c.ridge)} (its measured {fmt_rate(c.flops_per_s)} ÷ {rate_bytes(c.bytes_per_s)}): "
            "its dot on the roofline sits under the slanted bandwidth roof, where the bytes, not the arithmetic, "
            "set the pace."
        )
    # the step's height on the roofline (lib.charts.roofline: its flops over the whole timed step), never a
    # rate over the busy time alone, which no chart draws
    achieved = v.achieved_flops_per_s or 0.0
    if v.regime == Regime.COMPUTE_BOUND:
        rate, name = v.flops_roof
        where = (
            f" ({per_byte(v.intensity)} flop per byte, above the ridge of {fmt_num(c.ridge)})"
            if c.ridge and v.intensity and v.intensity > c.ridge
            else ""
        )
        return (
            f"This step is compute-bound{where}: over the whole step it ran {fmt_rate(achieved)} (its dot on the "
            f"roofline), {pct(v.compute_share or 0)} of this GPU's measured {name} peak ({fmt_rate(rate)})."
        )
    if v.gpu and c is not None and v.flops:
        return (
            f"The GPU is busy most of the step, yet over the whole step it reached {pct(v.compute_share or 0)} "
            f"of its measured {v.flops_roof[1]} peak (its dot on the roofline), so arithmetic is not what holds "
            "it; this GPU's memory bandwidth was not recorded, so this page cannot say whether the bytes do."
        )
    own = f"Most of the step is the {'kernels' if v.gpu else 'operators'}' own work ({fmt_s(rest)} is overhead)"
    if v.gpu:
        return (
            f"{own}; no ceiling of this GPU is recorded with the step's flops and bytes, so this page cannot "
            "say whether memory or arithmetic holds it."
        )
    return f"{own}: time grows with the work, and the device with more throughput wins."


def _overhead_words(v: Verdict, rest: float) -> str:
    """A GPU step held by what is around its kernels, worded for how it ran: eager issues one launch per
    operation from Python; a CUDA graph replays the whole step at once; torch.compile fuses its kernels."""
    how = execution.BY_VALUE.get(v.mode)
    per = f", about {fmt_s(rest / v.kernels)} per kernel" if v.kernels else ""
    launched = f"{per} launched" if per else ""  # where each kernel is launched on its own
    after = "more work per step would cost little extra time."
    if how is not None and how.graphed:
        issued, around = (
            (
                f"{how.label} issues it as one CUDA graph replay for each of its compiled calls (forward, "
                "backward, update)",
                "the compiled calls' own Python (their guard checks), the replays' launches",
            )
            if how.compile
            else (
                "the whole step is captured in one CUDA graph and issued as one replay",
                "the step's Python around the replay, the replay's own launch",
            )
        )
        return (
            f"For the other {fmt_s(rest)} no kernel of the step is running, though {issued}, not one launch per "
            f"kernel: that time is {around} and the gaps the GPU leaves between one kernel and the next{per}. "
            f"This step is launch-bound all the same, held by that overhead around its kernels, not by memory or "
            f"arithmetic: {after}"
        )
    if how is not None and how.compile:
        return (
            f"The other {fmt_s(rest)} the GPU waits for the CPU to issue the work: torch.compile's generated code "
            f"({how.label}) checks its guards on each compiled call, then launches each of its fewer, fused "
            f"kernels{launched}. This step is launch-bound: {after}"
        )
    return (
        f"The other {fmt_s(rest)} the GPU waits for the CPU to issue the work (Python, autograd, one launch per "
        f"operation{launched}). This step is launch-bound: {after}"
    )


def _latency_words(v: Verdict) -> str:
    """Busy, but below both roofs: tiny kernels at their latency floor, or (BELOW_ROOFS) kernels that are not
    tiny, where the page says what it cannot tell; each roof's share where it is known."""
    shares = ""
    if v.memory_share is not None:
        shares = (
            f" Over the whole step it moved its counted bytes at {pct(v.memory_share)} of this GPU's measured "
            f"bandwidth and did its arithmetic at {pct(v.compute_share or 0)} of its {v.flops_roof[1]} peak: its "
            f"dot on the roofline sits below both roofs (under {pct(ROOF_SHARE)} of each), so neither memory nor "
            "arithmetic holds it there."
        )
    work = (
        f"the whole step's {fmt_flops(v.flops or 0)} and {fmt_bytes(v.bytes or 0)} would take {_short(v.roof_s)} "
        f"at this GPU's ceilings{_missing(v.ceilings)}, against {fmt_s(v.busy_s)} busy"
    )
    each = f"its {plural(v.kernels, 'kernel')} last {fmt_s(v.busy_s / v.kernels)} each on average" if v.kernels else ""
    if v.regime == Regime.BELOW_ROOFS:
        return (
            f"This step is below both roofs: {each or 'its kernels run'}, {work}.{shares} Its kernels are not "
            f"at their latency floor either, and the bytes this app counts are the least the step must touch: "
            "this page cannot tell kernels that leave the GPU partly idle from memory traffic it does not count."
        )
    if each:
        return (
            f"This step is kernel-latency-bound: {each}, each at its latency floor; {work}: each kernel does too "
            f"little to come near either ceiling.{shares}"
        )
    return (
        f"This step is kernel-latency-bound: {work}, so the time is its kernels' fixed cost each (starting, a "
        f"wave of blocks, writing back), not their work.{shares}"
    )


def per_byte(intensity: float) -> str:
    """A step's flop per byte as its dot on the roofline sits: whole above 100 ('1,434', where three
    significant digits, '1,430', would name a point the chart does not draw)."""
    return f"{intensity:,.0f}" if intensity >= 100 else fmt_num(intensity)


def _short(seconds: float | None) -> str:
    return "under 1 µs" if seconds is not None and seconds < 1e-6 else fmt_s(seconds)


def _missing(c: Ceilings | None) -> str:
    return "" if c is None or c.bytes_per_s else " (its arithmetic ceiling; its bandwidth was not recorded)"


FIX_WORDS = {
    Fix.NO_ITEM: "drop the loss.item() from every step (read the loss once an epoch): each one makes the CPU wait "
    "for the GPU before it can queue the next step.",
    Fix.DATA_ON_DEVICE: "keep the data on the device: copy it once, not every batch.",
    Fix.CUDA_GRAPH: "capture the step in one CUDA graph (or torch.compile with mode='reduce-overhead'): all its "
    "kernels go in one launch instead of one each.",
    Fix.BIGGER_BATCH: "a bigger batch: as many {unit} as now, each with more rows to work on, for little more time.",
    Fix.FUSE: "fewer, bigger kernels: torch.compile, which fuses the many small element-wise ones.",
}


def _fix_words(v: Verdict) -> str:
    if v.fix is None:
        return ""
    if v.fix == Fix.BIGGER_BATCH and v.regime == Regime.MEMORY_BOUND:
        return (
            " What would move it: a bigger batch, which reads each weight and optimizer state once for more "
            "rows, so more arithmetic per byte."
        )
    if v.fix == Fix.LOWER_PRECISION:
        c = v.ceilings
        if v.tf32:
            return (
                " No switch on this page moves it: only less arithmetic or faster arithmetic would, e.g. bf16 matmuls."
            )
        tf32 = (
            (
                f" (this GPU's TF32 matmul measured {fmt_rate(c.tf32_flops_per_s)} against "
                f"{fmt_rate(c.flops_per_s)} in fp32)"
            )
            if c and c.tf32_flops_per_s
            else ""
        )
        return (
            " No switch on this page moves it: only less arithmetic or faster arithmetic would, e.g. TF32 or "
            f"bf16 matmuls{tf32}."
        )
    return " What would move it: " + FIX_WORDS[v.fix].format(unit="kernels" if v.gpu else "operators")


def verdict_words(v: Verdict, label: str) -> Sentence:
    """verdict_sentence's own words as a Sentence, its label the strong part: the command line prints
    `.plain()` (`python -m lib crossover`), so the CLI and the pages say one verdict, written once."""
    said, strong = verdict_sentence(v, label), f"**{label}**"
    if not said.startswith(strong):
        raise ValueError(f"a verdict sentence opens with its label: {said[:80]!r}")
    return say(Strong(label), said[len(strong) :], about=v)
