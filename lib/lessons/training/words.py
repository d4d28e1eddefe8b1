"""The Training page's sentences, each read from the curve points the chart draws (lib.lessons.training.view).

Nothing here states a number that is not in the points passed in, and the crossover words come from
lib.core.crossover over exactly the points on the chart, so a sentence cannot contradict its chart
(tests/test_lessons_training.py checks that over many views).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from lib.core import noise
from lib.core.crossover import CrossKind, Crossover, Lead, find_crossover
from lib.core.fmt import Sentence, about_count, age_words, fmt_ratio, fmt_s, fmt_value, plural, say
from lib.core.point import SettingValue
from lib.core.rows import Origin, Status
from lib.core.same import Sameness, same_time, sameness
from lib.lessons.common.voice import (
    Side,
    Unit,
    crossover_notes,
    crossover_sentence,
    empty_side_sentence,
    faster_sentence,
    legend_side,
    likely_about,
    versus,
)
from lib.lessons.training.live_point import CurvePoint
from lib.lessons.training.reading import Clock, at, spread_s, time_s, timed
from lib.lessons.training.step_point import EpochBand, StepPoint
from lib.lessons.training.view import View, origins


def doubt(points: Sequence[CurvePoint], over: str) -> frozenset[float]:
    """The x values of one curve whose point the noise rule does not believe (lib.core.noise.doubtful):
    judged by the point's own spread, its repeats' IQR or its band (the days it was recorded on), on the
    epoch the chart draws. Drawn hollow; decides only a gap of noise.NEVER_CLOSE or more. Each point is
    judged alone, so the slider's own point never changes which of the others are believed."""
    clock = Clock.EPOCH if all(timed(p, Clock.EPOCH) for p in points if timed(p)) else Clock.STEP
    # a prediction is not a measurement: its band says how far off the model may be (drawn, and counted as the
    # spread of every comparison), never that a time was measured wrongly
    ok = [p for p in points if timed(p, clock) and at(p, over) is not None and p.origin != Origin.PREDICTED]
    return frozenset(
        noise.doubtful([at(p, over) for p in ok], [time_s(p, clock) for p in ok], [spread_s(p, clock) for p in ok])
    )


def crossover_of(
    cpu: Sequence[CurvePoint], gpu: Sequence[CurvePoint], over: str, only: Collection[SettingValue] | None = None
) -> Crossover:
    """The crossover of two curves over every point both have (`only`: just these x values, e.g. a
    live curve's fixed grid), with the points the noise rule does not believe counted as too close."""
    by_cpu = {at(p, over): p for p in cpu if timed(p, Clock.EPOCH) and (only is None or at(p, over) in only)}
    by_gpu = {at(p, over): p for p in gpu if timed(p, Clock.EPOCH) and (only is None or at(p, over) in only)}
    if not by_gpu:
        return Crossover(CrossKind.ONE_DEVICE if by_cpu else CrossKind.TOO_FEW_POINTS, None)
    xs = sorted(set(by_cpu) & set(by_gpu))
    return find_crossover(
        xs,
        [time_s(by_cpu[x], Clock.EPOCH) for x in xs],
        [time_s(by_gpu[x], Clock.EPOCH) for x in xs],
        [spread_s(by_cpu[x], Clock.EPOCH) for x in xs],
        [spread_s(by_gpu[x], Clock.EPOCH) for x in xs],
        cpu_doubtful=doubt(cpu, over),
        gpu_doubtful=doubt(gpu, over),
    )


def hollow(point: CurvePoint, doubted: Collection[float], over: str) -> bool:
    """Whether the chart draws a point hollow: not believed, or noisy (lib.core.noise.is_noisy)."""
    return at(point, over) in doubted or (timed(point) and noise.is_noisy(float(point.median_s), spread_s(point)))


def measured_at(points: Sequence[CurvePoint]) -> float | None:
    """When the oldest of these live points was measured (seconds since the epoch), if they say."""
    stamps = [float(p.measured_at) for p in points if not isinstance(p, StepPoint) and p.measured_at]
    return min(stamps) if stamps else None


def live_headline(
    live: Sequence[CurvePoint],
    gpu: Sequence[CurvePoint],
    view: View,
    live_label: str,
    gpu_label: str,
    *,
    grid: Collection[SettingValue] | None,
    now: float,
) -> Sentence:
    """'Measured live on this server 3 min ago: …' the crossover of the live CPU curve against the
    GPU's, read from the live curve's fixed grid (the same at every slider position: the crossover is
    the curves', not the selected point's); the slider's own point, when off that grid, is said
    where it disagrees."""
    if live and not any(timed(p, Clock.EPOCH) for p in live):  # every point refused or failed: nothing measured
        return say(
            "No point of this view could be measured live on this server (the notes on the live points say why)."
        )
    when = measured_at(live)
    age = age_words(now - when) if when is not None else "for this view"
    found = crossover_of(live, gpu, view.over, only=grid)
    said = say(f"Measured live on this server {age}: ") + crossover_sentence(
        found, view.axis.label, legend_side(Unit.CPU, live_label), legend_side(Unit.GPU, gpu_label), hollow=True
    )
    return said + _off_grid(found, live, gpu, view, grid)


def _off_grid(
    found: Crossover,
    live: Sequence[CurvePoint],
    gpu: Sequence[CurvePoint],
    view: View,
    grid: Collection[SettingValue] | None,
) -> str:
    """' At batch size 256, measured for this view only, the CPU is faster: …' where the slider's own
    live point (off the grid) clearly disagrees with the side of the crossover it lies on."""
    x = view.current
    if grid is None or x in grid:
        return ""
    c = next((p for p in live if at(p, view.over) == x and timed(p, Clock.EPOCH)), None)
    g = next((p for p in gpu if at(p, view.over) == x and timed(p, Clock.EPOCH)), None)
    if c is None or g is None:
        return ""
    if not noise.decides(
        c.epoch_s,
        g.epoch_s,
        spread_s(c, Clock.EPOCH),
        spread_s(g, Clock.EPOCH),
        x in doubt(live, view.over) | doubt(gpu, view.over),
    ):
        return ""
    here = Lead.GPU if g.epoch_s <= c.epoch_s else Lead.CPU
    expected = {CrossKind.GPU_WINS: Lead.GPU, CrossKind.CPU_WINS: Lead.CPU}.get(found.kind)
    if found.kind in (CrossKind.CROSSES, CrossKind.CROSSES_BACK) and found.sure:
        first, then = (Lead.CPU, Lead.GPU) if found.kind == CrossKind.CROSSES else (Lead.GPU, Lead.CPU)
        expected = first if x < found.sure[0] else then if x > found.sure[1] else None
    if expected is None or expected == here:
        return ""
    return (
        f" At {view.axis.label} {fmt_value(x)}, measured for this view between those points, the "
        f"{here.name} is faster instead: the curves lie closer there than the other points show."
    )


def headline(
    cpu: Sequence[CurvePoint],
    gpu: Sequence[CurvePoint],
    view: View,
    cpu_label: str,
    gpu_label: str,
    only: Collection[SettingValue] | None = None,
) -> tuple[Sentence, str]:
    """The one-sentence answer: where the GPU curve crosses the CPU curve on this chart (`only`: read
    from these x values alone, a live curve's fixed grid); and its notes, said under the chart: the
    points too close to call and why, and a range that rests on predicted points."""
    found = crossover_of(cpu, gpu, view.over, only=only)
    base, challenger = legend_side(Unit.CPU, cpu_label), legend_side(Unit.GPU, gpu_label)
    if cpu and not any(timed(p, Clock.EPOCH) for p in cpu) and any(timed(p, Clock.EPOCH) for p in gpu):
        refused = all(p.status == Status.SKIPPED and p.origin == Origin.LIVE for p in cpu)  # by the gate
        why = "every step is over this server's live limits" if refused else "none of its steps was measured"
        xs = [at(p, view.over) for p in gpu if timed(p, Clock.EPOCH)]
        return empty_side_sentence(base, why, challenger, xs, view.axis.label, found), ""
    text = crossover_sentence(found, view.axis.label, base, challenger, hollow=True, notes=False)
    notes = crossover_notes(found, view.axis.label, base, challenger, hollow=True)
    if found.bracket:
        near = [p for p in [*cpu, *gpu] if at(p, view.over) in found.bracket]
        if any(p.origin == Origin.PREDICTED for p in near):
            notes += " That range rests on predicted points (dashed): read it as an estimate."
    return text, notes.strip()


def days_sentence(cpu: Sequence[CurvePoint], gpu: Sequence[CurvePoint], view: View, gpu_label: str) -> Sentence | None:
    """Where the GPU catches up on each day it was recorded, as a range: 'On the 2 recorded days of
    GPU · H200 (recorded) it catches up between batch size ~900 and ~1,500.' None unless the GPU
    curve holds points recorded more than once and at least two days' curves cross the CPU's."""
    days = sorted({d.recording for p in gpu for d in p.by_recording})
    if len(days) < 2:
        return None
    xs, crossed, brackets = [], 0, False
    for day in days:
        # each day's point alone: that day's epoch, no days' band
        own = [
            replace(p, epoch_s=epoch_s, band=None, by_recording=())
            for p in gpu
            if isinstance(p, StepPoint)
            for recording, epoch_s in p.by_recording
            if recording == day
        ]
        found = crossover_of(cpu, own, view.over)
        if len(own) < 2:
            continue
        if found.kind == CrossKind.CROSSES and found.x is not None:
            # each day's value as its own sentence would print it (lib.core.fmt.crossing_about), or its bracket
            # where that is too wide to name one value: the range never claims more digits than a day does
            about = likely_about(found)
            xs += [float(about.replace(",", ""))] if about is not None else list(found.sure or found.bracket or ())
            brackets |= about is None
            crossed += 1
        elif found.crossings and found.crossings[-1][2] == Lead.GPU:  # a tie first, then the GPU takes the lead
            xs += [found.crossings[-1][0], found.crossings[-1][1]]  # between these two points, no closer
            crossed, brackets = crossed + 1, True
    if crossed < 2:
        return None
    about = "" if brackets else "~"  # a measured point bounding a day's bracket is no estimate
    return say(
        f"On the {len(days)} recorded days of ",
        legend_side(Unit.GPU, gpu_label).called,
        f", it catches up between {view.axis.label} {about}{fmt_value(min(xs))} and {about}{fmt_value(max(xs))} "
        "(each day's curve against the same CPU curve).",
    )


def at_point(
    cpu: CurvePoint | None,
    gpu: CurvePoint | None,
    view: View,
    cpu_label: str,
    gpu_label: str,
    doubted: tuple[bool, bool] = (False, False),
    lone: bool = False,
) -> Sentence:
    """Who is faster at the slider's point, by how much, or why it cannot be said (`.about`: the Versus),
    ending with the origin of each time named that is not what its curve's legend name says (a
    '(recorded + predicted)' curve's point the cost model predicted is said to be predicted).
    doubted: whether the CPU's and the GPU's point here is one the noise rule does not believe; lone: whether
    the lead here is one the curves' answer does not count (no neighbouring point shows it: Crossover.lone)."""
    said = _at_point(cpu, gpu, view, cpu_label, gpu_label, doubted, lone)
    named = [
        (point, side)
        for point, side in ((cpu, legend_side(Unit.CPU, cpu_label)), (gpu, legend_side(Unit.GPU, gpu_label)))
        if timed(point, Clock.EPOCH)
    ]
    for point, side in named:
        said = said + own_origin(point, side)
    return said


def own_origin(point: CurvePoint, side: Side) -> Sentence | str:
    """' The GPU · H200 time here is predicted by its cost model: nobody recorded this point.' for a
    predicted point ('' otherwise: recorded, derived and live points are what their legend says)."""
    if point.origin != Origin.PREDICTED:
        return ""
    return say(" The time of ", side.called, " here is predicted by its cost model: nobody recorded this point.")


def _at_point(
    cpu: CurvePoint | None,
    gpu: CurvePoint | None,
    view: View,
    cpu_label: str,
    gpu_label: str,
    doubted: tuple[bool, bool],
    lone: bool = False,
) -> Sentence:
    here = f"At {view.axis.label} {fmt_value(view.current)} ({plural(view.steps_per_epoch, 'step')} per epoch)"
    cpu_side, gpu_side = legend_side(Unit.CPU, cpu_label), legend_side(Unit.GPU, gpu_label)
    if not timed(cpu, Clock.EPOCH) and not timed(gpu, Clock.EPOCH):
        return say(f"{here} neither device has a time.")
    if not timed(gpu, Clock.EPOCH):
        return say(
            f"{here}: ", cpu_side.called, f" takes {fmt_s(cpu.epoch_s)} per epoch; there is no GPU time at this point."
        )
    if not timed(cpu, Clock.EPOCH):
        why = (cpu and cpu.message) or "not measured"
        return say(
            f"{here}: ", gpu_side.called, f" takes {fmt_s(gpu.epoch_s)} per epoch; the CPU has no time here ({why})."
        )
    c, g = float(cpu.epoch_s), float(gpu.epoch_s)
    # the one noise rule (lib.core.noise.decides): within the spread and under its ratio, or a noisy point
    # under NEVER_CLOSE
    v = versus(
        cpu_side,
        c,
        gpu_side,
        g,  # the CPU takes an exact tie: only a shorter epoch makes the GPU faster
        tie=not noise.decides(c, g, spread_s(cpu, Clock.EPOCH), spread_s(gpu, Clock.EPOCH), any(doubted)),
    )
    if any(doubted) and v.tie:
        whose = " and ".join(side.text for side, d in zip((cpu_side, gpu_side), doubted) if d)
        return say(
            f"{here}: ",
            cpu_side.called,
            f" takes {fmt_s(c)} per epoch and ",
            gpu_side.called,
            f" {fmt_s(g)}, but the point of {whose} here is noisy (hollow: its repeats spread over more than "
            f"half its time) and the gap is under {noise.NEVER_CLOSE:g}×, so too close to call.",
            about=v,
        )
    if lone and not v.tie:  # the answer above does not count this lead: the point must not claim it either
        return say(
            f"{here}: ",
            v.fast.called,
            f" takes {fmt_s(v.fast_s)} per epoch and ",
            v.slow.called,
            f" {fmt_s(v.slow_s)}: a lead of {fmt_ratio(v.ratio)} at this point alone, which no neighbouring "
            "point shows, so the answer above does not count it.",
            about=v,
        )
    return f"{here}: " + faster_sentence(v, "per epoch", at="")


def provenance(points: Sequence[CurvePoint], label: str) -> str | None:
    """'GPU (H200): 3 points recorded, 9 derived from recorded steps, 5 predicted (dashed, with a band).'"""
    drawn = [p for p in points if timed(p)]  # the chart draws these; a refused point is a gap, not a point
    counts = origins(drawn)
    if not counts and len(drawn) == len(points):
        return None
    words = {
        Origin.LIVE: "measured live",
        Origin.RECORDED: "recorded",
        Origin.DERIVED: "derived from a recorded step",
        Origin.PREDICTED: "predicted (dashed, with its band)",
    }
    untested = sum(
        1 for p in drawn if p.origin == Origin.PREDICTED and (p.epoch_band or EpochBand(None, None)).low is None
    )
    if untested:  # a prediction nobody could test is drawn without a band, and said so
        counts = {**counts, Origin.PREDICTED: counts[Origin.PREDICTED] - untested}
        counts = {k: n for k, n in counts.items() if n}
    parts = [f"{n} {words.get(k, k)}" for k, n in counts.items()]
    if untested:
        parts.append(f"{untested} predicted but untested (dashed, no band: see the notes)")
    refused = len(points) - len(drawn)
    said = f"{label}: {plural(len(drawn), 'point')} drawn" + (", " + ", ".join(parts) if parts else "")
    return said + (f"; {refused} not run (each says why in the table)." if refused else ".")


def mode_line(
    cpu: Sequence[CurvePoint], gpu: Sequence[CurvePoint], view: View, cpu_label: str, gpu_label: str
) -> Sentence:
    """Where one mode's GPU curve crosses the CPU curve, both named by their legend names on the modes'
    chart (lib.lessons.training.modes), the range flagged where it rests on predicted points."""
    found = crossover_of(cpu, gpu, view.over)
    said = crossover_sentence(
        found, view.axis.label, legend_side(Unit.CPU, cpu_label), legend_side(Unit.GPU, gpu_label), hollow=True
    )
    near = [p for p in [*cpu, *gpu] if found.bracket and at(p, view.over) in found.bracket]
    if any(p.origin == Origin.PREDICTED for p in near):
        said += " That range rests on predicted points (dashed): read it as an estimate."
    return said


def origin_words(step: CurvePoint) -> str:
    """'recorded', 'derived from a recorded step', 'predicted by the cost model': how a bar's time was had."""
    return {Origin.DERIVED: "derived from a recorded step", Origin.PREDICTED: "predicted by the cost model"}.get(
        step.origin, "recorded"
    )


def _same(a: CurvePoint, b: CurvePoint) -> bool:
    """Whether two steps' times are the same, each judged with its own spread (lib.core.same)."""
    return same_time(a.median_s, b.median_s, spread_s(a), spread_s(b))


def graph_saving(eager: CurvePoint | None, graphed: CurvePoint | None) -> str | None:
    """What capturing the step in one CUDA graph removed, from the two rows at the same point (the two
    bars of the modes' step chart), each time with where it came from."""
    if not (timed(eager) and timed(graphed)):
        return None
    e, g = float(eager.median_s), float(graphed.median_s)
    kernels = eager.kernels
    launches = (
        f"The eager step launches {int(kernels)} kernels one by one from Python; the graph launches them all at once"
        if kernels
        else "The graph launches all the step's kernels at once"
    )
    said = sameness(e, g, spread_s(eager), spread_s(graphed))  # the one rule, each step's own spread
    if g < e and said is Sameness.TOO_NOISY:
        return (
            f"One CUDA graph of the whole step takes {fmt_s(g)} ({origin_words(graphed)}) where eager PyTorch "
            f"takes {fmt_s(e)} ({origin_words(eager)}): the repeats are too noisy here to say what the graph saves."
        )
    if g >= e or said is Sameness.SAME:  # a saving within the spread is no saving
        return (
            f"One CUDA graph of the whole step takes {fmt_s(g)} ({origin_words(graphed)}) where eager PyTorch "
            f"takes {fmt_s(e)} ({origin_words(eager)}): no faster here. {launches}, but at this size the "
            "launches were not what the step waited on."
        )
    return (
        f"One CUDA graph of the whole step takes {fmt_s(g)} ({origin_words(graphed)}) where eager PyTorch "
        f"takes {fmt_s(e)} ({origin_words(eager)}): {fmt_ratio(e / g)} as fast. {launches}, so what it saves "
        f"({fmt_s(e - g)} a step) was launch overhead, not arithmetic."
    )


def compile_payback(eager: CurvePoint | None, compiled: CurvePoint | None) -> str | None:
    """How many steps torch.compile must run before its one-off compile time is earned back."""
    if not (timed(eager) and timed(compiled) and compiled.cold_s):
        return None
    e, c = float(eager.median_s), float(compiled.median_s)
    cost = max(0.0, float(compiled.cold_s) - c)
    if c >= e:
        return (
            f"Compiling took {fmt_s(cost)} and the compiled step ({fmt_s(c)}) is no faster than eager "
            f"({fmt_s(e)}): here it never pays off."
        )
    if _same(eager, compiled):  # the one rule: a saving within the spread counts no steps
        return (
            f"Compiling costs {fmt_s(cost)} once; the compiled step ({fmt_s(c)}) saves {fmt_s(e - c)} against "
            f"eager ({fmt_s(e)}), within the spread of the repeats: too small to count, so no number of steps "
            "can be said to pay it back."
        )
    saved = e - c
    # the count is known no better than the saving: its relative error is the two spreads' against it
    rel_err = (spread_s(eager) + spread_s(compiled)) / 2 / saved
    return (
        f"Compiling costs {fmt_s(cost)} once and saves {fmt_s(saved)} a step: it pays off after about "
        f"{plural(about_count(cost / saved, rel_err), 'step')}."
    )


OWN_MODEL = (
    "Your own model? On your own machine, `python -m lib predict path/to/model.py:factory --input 3x32x32` "
    "predicts its step on these GPUs and times your CPU (see the README)."
)
