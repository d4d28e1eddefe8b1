"""The one voice: every sentence that says where two curves cross, or which of two times wins.

Every page, lesson and the CLI calls these, so a kind of result is worded once and fixed once.
The two things compared are typed `Side`s (a CPU against a GPU, 1 GPU against 2, one machine's
CPU against its GPU), never display strings parsed back; the words are a typed `Sentence` (with
the result it says in `.about`) that a page renders as markdown and the CLI as plain text.

    crossover_sentence(found, "batch size", Side(Unit.CPU), Side(Unit.GPU))   who is faster where
    crossover_brief(found)                                                      the same in a table cell
    empty_side_sentence(cpu, why, gpu, xs, "batch size", found)                 one curve empty: what each has
    versus(Side(Unit.CPU), 2e-3, Side(Unit.GPU), 1e-3)                          which of two times wins
    faster_sentence(v, "per epoch"), lead_words(v, "epoch")                     ... said two ways
    ratio_words(GPU, CPU, 2.43)                                                 'the GPU takes 2.43× as long as the CPU'

Reword one kind of crossover: change one branch of `crossover_sentence` (tests/test_voice.py
holds every kind).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from lib.core import noise
from lib.core.crossover import CrossKind, Crossover, Lead, SweepAnalysis
from lib.core.fmt import Sentence, Strong, and_list, crossing_about, fmt_ratio, fmt_s, fmt_times, fmt_value, plural, say
from lib.core.rows import Origin
from lib.recorded.sources import SeriesName, without_days


class Unit(enum.Enum):
    """What runs the work on one side."""

    CPU = "CPU"
    GPU = "GPU"
    PROCESS = "process"
    MACHINE = "machine"


@dataclass(frozen=True)
class Side:
    """One side of a comparison. unit: what it is; count: how many of the unit, when the sides
    differ by that (1 GPU against 2 GPUs); name: what a sentence calls it ('this server's CPU',
    'its GPU'; default 'the CPU', '2 GPUs'); legend: the name is the curve's name in the chart's
    legend, shown in bold so the words point at the curve."""

    unit: Unit
    name: str = ""
    legend: bool = False
    count: int | None = None

    @property
    def noun(self) -> str:
        """What a sentence calls the side when it is not pointing at the legend: 'the GPU', '2 GPUs'."""
        if self.count is not None:
            return plural(self.count, self.unit.value, "processes" if self.unit == Unit.PROCESS else None)
        return self.name if self.name and not self.legend else f"the {self.unit.value}"

    @property
    def text(self) -> str:
        """The side's name without bold: 'this server's CPU', 'the GPU'."""
        return self.name or self.noun

    @property
    def called(self) -> str:
        """The side's name in a sentence (a str that is Strong where it is a legend name)."""
        return Strong(self.name) if self.legend and self.name else (self.name or self.noun)

    @property
    def many(self) -> bool:
        return (self.count or 1) > 1

    def verb(self, one: str, many: str) -> str:
        """'is' / 'are': the verb agreeing with the side."""
        return many if self.many else one


def legend_side(unit: Unit, name: str) -> Side:
    """A side named by its curve's legend name (bold on a page)."""
    return Side(unit, name, legend=True)


def gpu_or_cpu(device: str) -> Unit:
    return Unit.CPU if device == "cpu" or device.startswith("cpu") else Unit.GPU


def device_side(device: str) -> Side:
    """A device named as the command line writes it ('cpu', 'cuda:0'), bold on a page."""
    return Side(gpu_or_cpu(device), device, legend=True)


def series_side(series: SeriesName) -> Side:
    """A curve as a sentence names it, from its typed name: this server's CPU, the NVIDIA H200 GPU,
    the NVIDIA H200 machine's CPU (the legend beside the chart keeps the full name and date)."""
    unit = gpu_or_cpu(series.device)
    if series.origin == Origin.LIVE:
        return Side(unit, f"this server's {unit.value}", legend=True)
    machine = without_days(series.machine or "")  # a list of days has commas of its own: 'a, b and c'
    if not machine:
        return Side(unit, f"the recorded {unit.value}", legend=True)
    return Side(unit, f"the {machine} machine's CPU" if unit == Unit.CPU else f"the {machine} GPU", legend=True)


# -- where two curves cross ---------------------------------------------------------------------------
def _between(low: float | None, high: float | None, setting: str) -> str:
    if low is not None and high is not None:
        return f"between {setting} {fmt_value(low)} and {fmt_value(high)}"
    if high is not None:
        return f"at or below {setting} {fmt_value(high)}"
    return f"above {setting} {fmt_value(low)}" if low is not None else f"somewhere in the measured range of {setting}"


def _decider(base: Side, challenger: Side) -> str:
    """What the comparison is about, for 'the spread decides more than …'."""
    if base.unit == challenger.unit == Unit.MACHINE:
        return "the machine"
    if base.unit == challenger.unit:
        return f"the number of {plural(2, base.unit.value, 'processes').split(' ', 1)[1]}"
    return "the device"


def _runs(values: tuple[float, ...], shared: tuple[float, ...]) -> list[str]:
    """Values grouped into runs of neighbours on the chart: ['1', '16 to 128', '4,096', '8,192'] (a run
    of three or more as a range, shorter ones value by value)."""
    pos = {x: i for i, x in enumerate(shared)}
    runs: list[list[float]] = []
    for x in values:
        if runs and pos.get(x, -2) == pos.get(runs[-1][-1], -9) + 1:
            runs[-1].append(x)
        else:
            runs.append([x])
    said: list[str] = []
    for r in runs:
        said += [fmt_value(x) for x in r] if len(r) <= 2 else [f"{fmt_value(r[0])} to {fmt_value(r[-1])}"]
    return said


def close_words(
    found: Crossover, setting: str, hollow: bool = False, base: Side | None = None, challenger: Side | None = None
) -> str:
    """' Too close to call at batch size 2 to 128 (the gap is within the spread). At batch size 1 the
    GPU's point (hollow) is noisy, …: too close to call there.' ('' with neither). Only the points that
    decide nothing are named; a noisy point with a gap of noise.NEVER_CLOSE or more leads like any other.
    `hollow`: the chart beside the words draws those points hollow (lib.charts.provenance does; a chart
    that does not must not be pointed at); `base`, `challenger`: the two curves, to say whose point."""
    said = ""
    if close := tuple(x for x in found.ties if x not in found.doubtful and x not in found.lone):
        said += (
            f" Too close to call at {setting} {and_list(_runs(close, found.shared))} (the gap is within the spread)."
        )
    if found.lone:
        said += (
            f" The lead at {setting} {and_list(_runs(found.lone, found.shared))} is not counted: no neighbouring "
            "point shows it too."
        )
    noisy = tuple(x for x in found.doubtful if x in found.ties)
    if noisy:
        mark = " (hollow)" if hollow else ""
        whose = [
            side.text
            for side, xs in ((base, found.doubtful_cpu), (challenger, found.doubtful_gpu))
            if side is not None and any(x in xs for x in noisy)
        ]
        curve = f" of {and_list(whose)}" if whose else ""
        one = len(noisy) == 1
        said += (
            f" {'The point' if one else 'The points'}{curve} at {setting} {and_list(_runs(noisy, found.shared))}{mark} "
            f"{'is' if one else 'are'} noisy (the repeats spread over more than half the time), and the gap there "
            f"is under {noise.NEVER_CLOSE:g}×: too close to call."
        )
    return said


def _noisy_only(found: Crossover) -> Crossover:
    """found with only its noisy points among the ties: what close_words says under 'the same time everywhere'."""
    return Crossover(
        found.kind,
        None,
        shared=found.shared,
        ties=tuple(x for x in found.ties if x in found.doubtful),
        doubtful=found.doubtful,
        doubtful_cpu=found.doubtful_cpu,
        doubtful_gpu=found.doubtful_gpu,
    )


def likely_about(found: Crossover | None) -> str | None:
    """The most likely crossover value as the words and the chart's rule print it (lib.core.fmt.crossing_about
    over the range the sentence names: the spread's sure range, else the medians' bracket); None where the
    range is too wide to name one value, or there is no one value."""
    if found is None or found.kind not in (CrossKind.CROSSES, CrossKind.CROSSES_BACK) or found.x is None:
        return None
    low, high = found.sure or found.bracket or (None, None)
    return crossing_about(found.x, low, high)


def crossover_sentence(
    found: Crossover | SweepAnalysis | None,
    setting: str,
    base: Side,
    challenger: Side,
    *,
    hollow: bool = False,
    notes: bool = True,
) -> Sentence:
    """Who is faster where, read from the points both curves have (never from an extrapolated fit).
    `base` is the first curve given to find_crossover (the CPU, 1 GPU), `challenger` the second. A
    range comes from the spread of both curves (where neither is surely faster), the likely value
    from the medians. Every kind of Crossover has its words here, and only here. `hollow`: the chart
    draws the points not believed hollow, so the words may say so (close_words). `notes=False`: the answer
    alone, for the one sentence above a chart (the points too close to call, and why, are then close_words',
    said under it)."""
    if isinstance(found, SweepAnalysis):
        found = found.measured if found.gpu_device else None
    if found is None or found.kind == CrossKind.ONE_DEVICE:
        curve = f"{challenger.unit.value} curve" if challenger.count is None else f"curve for {challenger.noun}"
        return say(
            f"There is no {curve} on screen, so there is no crossover to show.",
            about=found or Crossover(CrossKind.ONE_DEVICE, None),
        )
    if found.kind == CrossKind.TOO_FEW_POINTS:
        both = (
            "both devices"
            if base.count is None and base.unit != challenger.unit
            else f"both {base.noun} and {challenger.noun}"
        )
        return say(f"Too few points were measured on {both} to locate a crossover.", about=found)
    cpu, gpu = base.called, challenger.called
    first, last = (fmt_value(v) for v in found.span)
    if found.kind in (CrossKind.GPU_WINS, CrossKind.CPU_WINS) and found.shared and len(found.ties) == len(found.shared):
        # the same time within the spread everywhere (e.g. two recordings of one device): nobody leads
        span = f"from {first} to {last}" if first != last else f"which is only {first}"
        if not notes:  # the one sentence above a chart: at most 30 words
            where = f"from {setting} {first} to {last}" if first != last else f"at {setting} {first}"
            return say(gpu, " and ", cpu, f" take the same time within the spread {where}.", about=found)
        return say(
            gpu,
            " and ",
            cpu,
            f" take the same time within the spread of the repeats at every {setting} "
            f"both curves have, {span}: neither is surely faster, so there is no crossover to place."
            f"{close_words(_noisy_only(found), setting, hollow, base, challenger) if notes else ''}",
            about=found,
        )
    if (
        found.kind in (CrossKind.GPU_WINS, CrossKind.CPU_WINS) and first == last
    ):  # one shared point: no range to speak of
        ahead, behind = (challenger, base) if found.kind == CrossKind.GPU_WINS else (base, challenger)
        there = (
            ""
            if found.kind == CrossKind.GPU_WINS
            else f"there {challenger.noun} {challenger.verb('does', 'do')} not catch up, and "
        )
        if not notes:
            return say(
                ahead.called,
                f" {ahead.verb('is', 'are')} faster than ",
                behind.called,
                f" at the one {setting} both curves have, {first}: one point places no crossover.",
                about=found,
            )
        return say(
            ahead.called,
            f" {ahead.verb('is', 'are')} faster than ",
            behind.called,
            f" at every {setting} both curves have, which is only {first}: {there}one point cannot place a crossover.",
            about=found,
        )
    close = close_words(found, setting, hollow, base, challenger) if notes else ""
    if found.noisy_only:  # every lead on the chart rests on points whose own repeats do not support them
        why = " (its repeats spread over more than half its time)" if notes else ""
        return say(
            "Too noisy here to say whether ",
            challenger.called,
            " or ",
            cpu,
            f" {base.verb('is', 'are')} faster: every lead rests on a noisy point{why}.",
            about=found,
        )
    clear = [x for x in found.shared if x not in found.ties]
    where = (
        f"at every {setting} both curves have, from {first} to {last}"
        if not found.ties
        else f"at every {setting} on the chart where the gap is clear ({and_list(_runs(tuple(clear), found.shared))})"
    )
    if not notes and found.kind in (CrossKind.GPU_WINS, CrossKind.CPU_WINS):  # at most 30 words
        ahead, behind = (gpu, cpu) if found.kind == CrossKind.GPU_WINS else (cpu, gpu)
        side = challenger if found.kind == CrossKind.GPU_WINS else base
        where, then = (
            (f"at every {setting} both curves have, {first} to {last}", "no crossover there")
            if not found.ties
            else (f"wherever the gap is clear, {first} to {last}", "never clearly slower")
        )
        return say(ahead, f" {side.verb('is', 'are')} faster than ", behind, f" {where}: {then}.", about=found)
    if found.kind == CrossKind.GPU_WINS:
        then = (
            ": no crossover in this range."
            if not found.ties
            else f": {base.noun} {base.verb('is', 'are')} never clearly faster."
        )
        return say(gpu, f" {challenger.verb('is', 'are')} faster than ", cpu, f" {where}{then}{close}", about=found)
    if found.kind == CrossKind.CPU_WINS:
        then = (
            f"{challenger.verb('does', 'do')} not catch up there."
            if not found.ties
            else f"never clearly {challenger.verb('catches', 'catch')} up."
        )
        return say(
            cpu,
            f" {base.verb('is', 'are')} faster than ",
            gpu,
            f" {where}: {challenger.noun} {then}{close}",
            about=found,
        )
    if found.kind in (CrossKind.CROSSES, CrossKind.CROSSES_BACK):
        low, high = found.sure or found.bracket
        between = _between(low, high, setting)
        about = likely_about(found)
        likely = (
            f"; most likely at about {about}."
            if about is not None
            else ": the medians swap back and forth in between, so no single value can be named."
            if found.x is None
            else "; the points measured place it no closer."
            if notes
            else "."
        )  # the answer alone: the bracket says how close, in fewer words
        if found.kind == CrossKind.CROSSES:
            return say(
                gpu, f" {challenger.verb('catches', 'catch')} up with ", cpu, f" {between}{likely}{close}", about=found
            )
        return say(
            gpu,
            f" {challenger.verb('is', 'are')} faster at the smaller values and ",
            cpu,
            f" {base.verb('catches', 'catch')} up {between}{likely}{close}",
            about=found,
        )
    named = []
    for lo, hi, who in found.crossings:
        leader = challenger if who == Lead.GPU else base
        named.append(f"{leader.noun} {leader.verb('leads', 'lead')} from {fmt_value(hi)} (after {fmt_value(lo)})")
    # more than three changes would fill a phone's first screen: the first and the last say where it settles
    changes = "; ".join(named) if len(named) <= 3 else f"{named[0]}; after {len(named) - 2} more changes, {named[-1]}"
    if not notes:  # every change, and why they are this close: crossover_notes', under the chart
        return say(
            gpu,
            " and ",
            cpu,
            f" trade the lead {len(found.crossings)} times between {setting} {first} and {last}.",
            about=found,
        )
    return say(
        gpu,
        " and ",
        cpu,
        f" trade the lead {len(found.crossings)} times between {setting} {first} and "
        f"{last}: {changes}. Where they are this close, the spread of the repeats decides more than "
        f"{_decider(base, challenger)}.{close_words(found, setting, hollow, base, challenger)}",
        about=found,
    )


def empty_side_sentence(
    empty: Side, why: str, other: Side, xs: Sequence[float], setting: str, found: Crossover
) -> Sentence:
    """Where one curve holds no time at all and the other does: what each side has, and why the empty one is
    empty, not 'too few points on both' ('The CPU has no points here: every step is over this server's live
    limits; **GPU · H200** has 10 points, from batch size 2 to 1,024.'). The empty side is named by its noun,
    not its legend name: a curve without points is not drawn, so no legend entry could be pointed at."""
    xs = sorted(xs)
    span = (
        f"from {setting} {fmt_value(xs[0])} to {fmt_value(xs[-1])}"
        if len(xs) > 1
        else f"at {setting} {fmt_value(xs[0])}"
    )
    noun = empty.noun
    return say(
        noun[:1].upper() + noun[1:],
        f" has no points here: {why}; ",
        other.called,
        f" has {plural(len(xs), 'point')}, {span}.",
        about=found,
    )


def crossover_notes(
    found: Crossover | SweepAnalysis | None, setting: str, base: Side, challenger: Side, *, hollow: bool = False
) -> str:
    """What crossover_sentence(..., notes=False) leaves for under the chart: the points too close to call and
    why (close_words); where the lead changes hands more than once, every change and why they are this close.
    '' when there is nothing to add."""
    if isinstance(found, SweepAnalysis):
        found = found.measured if found.gpu_device else None
    if found is None or found.kind in (CrossKind.ONE_DEVICE, CrossKind.TOO_FEW_POINTS):
        return ""
    if found.kind in (CrossKind.GPU_WINS, CrossKind.CPU_WINS) and found.shared and len(found.ties) == len(found.shared):
        return close_words(_noisy_only(found), setting, hollow, base, challenger).strip()
    if found.kind == CrossKind.MIXED:
        full = crossover_sentence(found, setting, base, challenger, hollow=hollow).markdown()
        rest = full[full.index(": ", full.index(" trade the lead ")) + 2 :].strip()  # after 'between A and B: '
        return rest[:1].upper() + rest[1:]
    return close_words(found, setting, hollow, base, challenger).strip()


def crossover_brief(found: Crossover | None, setting: str, base: Side, challenger: Side) -> str:
    """The same result in a table cell: '≈ 1,200', 'GPU faster from the smallest batch size', …"""
    kind = found.kind if found is not None else CrossKind.TOO_FEW_POINTS
    if kind in (CrossKind.ONE_DEVICE, CrossKind.TOO_FEW_POINTS):
        return "not enough points on both devices"
    if kind in (CrossKind.CROSSES, CrossKind.CROSSES_BACK):
        about = likely_about(found)
        low, high = found.sure or found.bracket or (None, None)
        where = (
            f"≈ {about}"
            if about is not None
            else f"between {fmt_value(low)} and {fmt_value(high)}"
            if low is not None and high is not None
            else "somewhere in the measured range"
        )
        return where if kind == CrossKind.CROSSES else f"{base.unit.value} catches up {where}"
    if kind == CrossKind.GPU_WINS:
        return f"{challenger.unit.value} faster from the smallest {setting}"
    if kind == CrossKind.CPU_WINS:
        return f"{base.unit.value} faster at every {setting} measured"
    return f"the lead changes {plural(len(found.crossings), 'time')}"


# -- which of two times wins ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Versus:
    """Two times of the same work set side by side: the faster, the slower, and whether the gap is
    within the spread of the repeats (a tie)."""

    fast: Side
    fast_s: float
    slow: Side
    slow_s: float
    spread_s: float = 0.0
    tie: bool = False

    @property
    def ratio(self) -> float:
        """How many times as fast the faster is (>= 1)."""
        return self.slow_s / self.fast_s


def versus(a: Side, a_s: float, b: Side, b_s: float, *, spread_s: float = 0.0, tie: bool | None = None) -> Versus:
    """a against b (a wins an exact tie). A tie by the one noise rule (lib.core.noise.is_tie): the gap
    is within `spread_s` (each side's IQR up to it; 0: the two times alone) and under its ratio, unless
    the caller decided it (`tie`, from the same rule with each side's own spread)."""
    fast, fast_s, slow, slow_s = (a, a_s, b, b_s) if a_s <= b_s else (b, b_s, a, a_s)
    return Versus(
        fast, fast_s, slow, slow_s, spread_s, tie if tie is not None else noise.is_tie(a_s, b_s, spread_s, spread_s)
    )


def faster_sentence(v: Versus, what: str = "per epoch", *, at: str = " at these settings") -> Sentence:
    """'**the GPU** is faster at these settings: 1 ms per epoch against 2 ms on the CPU, 2.00× as fast.'
    A tie leads with the tie and names no winner: a reader who stops after 'is faster' would repeat
    a lead the numbers do not show."""
    if v.tie:
        text = say(
            v.fast.called,
            " and ",
            v.slow.called,
            f" are too close to call{at}: {fmt_s(v.fast_s)} {what} "
            f"on {v.fast.text} against {fmt_s(v.slow_s)} on {v.slow.text}",
            about=v,
        )
        if v.spread_s > 0:
            return text + (
                f"; the gap ({fmt_s(v.slow_s - v.fast_s)}) is smaller than the spread of the repeats "
                f"(IQR up to {fmt_s(v.spread_s)})."
            )
        return text + "; the gap is within the spread of the numbers here."
    return say(
        v.fast.called,
        f" {v.fast.verb('is', 'are')} faster{at}: {fmt_s(v.fast_s)} {what} against "
        f"{fmt_s(v.slow_s)} on {v.slow.text}, {fmt_ratio(v.ratio)} as fast.",
        about=v,
    )


def ratio_words(
    challenger: Side, base: Side, ratio: float, *, past: bool = False, tie: bool = False, noisy: bool = False
) -> str:
    """challenger's time ÷ base's time in words: 'the GPU takes 1.98× as long as the CPU', 'the GPU is
    3.25× as fast as the CPU', or, where the one rule calls the two times the same (`tie`: the caller
    asked lib.core.same with the spreads it has), 'the two are about even'. No threshold of its own."""
    take, be = ("took", "was") if past else ("takes", "is")
    if noisy:  # a tie only because either time is too noisy to trust (lib.core.same.Sameness.TOO_NOISY)
        return (
            f"the two {'were' if past else 'are'} too noisy to compare ({challenger.unit.value} time ÷ "
            f"{base.unit.value} time = {fmt_times(ratio)})"
        )
    if tie or ratio == 1.0:
        return (
            f"the two {'were' if past else 'are'} about even ({challenger.unit.value} time ÷ {base.unit.value} "
            f"time = {fmt_times(ratio)})"
        )
    if ratio > 1.0:
        return f"{challenger.noun} {take} {fmt_times(ratio)} as long as {base.noun}"
    return f"{challenger.noun} {be} {fmt_times(1 / ratio)} as fast as {base.noun}"


def lead_words(v: Versus, what: str) -> str:
    """'the GPU's epoch is 4.00× as fast': the faster side's `what` against the slower's."""
    return f"{v.fast.noun}'s {what} is {fmt_ratio(v.ratio)} as fast"


CPU, GPU = Side(Unit.CPU), Side(Unit.GPU)  # 'the CPU', 'the GPU': one machine's two devices
