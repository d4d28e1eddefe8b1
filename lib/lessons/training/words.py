"""The Training page's sentences, each read from the curve rows the chart draws (lib.lessons.training.view).

Nothing here states a number that is not in the rows passed in, and the crossover words come from
lib.core.crossover over exactly the points on the chart, so a sentence cannot contradict its chart
(tests/test_lessons_training.py checks that over many views).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lib.core.crossover import CrossKind, Crossover, Lead, find_crossover, spread
from lib.core.fmt import Sentence, fmt_about, fmt_ratio, fmt_s, fmt_value, plural, say
from lib.core.rows import Origin, Status, is_ok
from lib.lessons.common.voice import Side, Unit, crossover_sentence, faster_sentence, legend_side, versus
from lib.lessons.training.view import View, mode_label, origins

NOISY = 0.5  # a point whose spread (IQR) exceeds half its median is drawn hollow and left out of the words

Row = Mapping[str, Any]


def trusted(rows: Sequence[Row], key: str = "epoch_s") -> list[Row]:
    """The rows the words may use: measured, recorded, derived or predicted, and not too noisy."""
    return [r for r in rows if is_ok(r, key) and not noisy(r)]


def noisy(row: Row) -> bool:
    t, iqr = row.get("median_s"), row.get("iqr_s")
    return bool(t) and row.get("origin") != Origin.PREDICTED and (iqr or 0.0) > NOISY * float(t)


def crossover_of(cpu: Sequence[Row], gpu: Sequence[Row], over: str, key: str = "epoch_s") -> Crossover:
    """The crossover of two curves over the points both have (noisy points left out)."""
    by_cpu = {r[over]: r for r in trusted(cpu, key)}
    by_gpu = {r[over]: r for r in trusted(gpu, key)}
    xs = sorted(set(by_cpu) & set(by_gpu))
    if not by_cpu or not by_gpu:
        return Crossover(CrossKind.ONE_DEVICE if by_cpu or by_gpu else CrossKind.TOO_FEW_POINTS, None)
    return find_crossover(xs, [by_cpu[x][key] for x in xs], [by_gpu[x][key] for x in xs],
                          [spread(by_cpu[x], key) for x in xs], [spread(by_gpu[x], key) for x in xs])


def headline(cpu: Sequence[Row], gpu: Sequence[Row], view: View, cpu_label: str, gpu_label: str) -> Sentence:
    """The one-sentence answer: where the GPU curve crosses the CPU curve on this chart."""
    found = crossover_of(cpu, gpu, view.over)
    text = crossover_sentence(found, view.axis.label, legend_side(Unit.CPU, cpu_label), legend_side(Unit.GPU, gpu_label))
    if found.bracket:
        near = [r for r in [*cpu, *gpu] if r.get(view.over) in found.bracket]
        if any(r.get("origin") == Origin.PREDICTED for r in near):
            text += " That range rests on predicted points (dashed): read it as an estimate."
    return text


def days_sentence(cpu: Sequence[Row], gpu: Sequence[Row], view: View, gpu_label: str) -> Sentence | None:
    """Where the GPU catches up on each day it was recorded, as a range: 'On the 2 recorded days of
    GPU · H200 (recorded) it catches up between batch size ~900 and ~1,500.' None unless the GPU
    curve holds points recorded more than once and at least two days' curves cross the CPU's."""
    days = sorted({d for r in gpu for d in (r.get("epoch_s_by_recording") or {})})
    if len(days) < 2:
        return None
    xs, crossed = [], 0
    for day in days:
        own = [{**r, "epoch_s": r["epoch_s_by_recording"][day], "epoch_s_low": None, "epoch_s_high": None}
               for r in gpu if day in (r.get("epoch_s_by_recording") or {})]
        found = crossover_of(cpu, own, view.over)
        if len(own) < 2:
            continue
        if found.kind == CrossKind.CROSSES and found.x is not None:
            xs.append(found.x)
            crossed += 1
        elif found.crossings and found.crossings[-1][2] == Lead.GPU:  # a tie first, then the GPU takes the lead
            xs += [found.crossings[-1][0], found.crossings[-1][1]]  # between these two points, no closer
            crossed += 1
    if crossed < 2:
        return None
    return say(f"On the {len(days)} recorded days of ", legend_side(Unit.GPU, gpu_label).called,
               f", it catches up between {view.axis.label} ~{fmt_about(min(xs))} and ~{fmt_about(max(xs))} (each "
               "day's curve against the same CPU curve).")


def at_point(cpu: Row | None, gpu: Row | None, view: View, cpu_label: str, gpu_label: str) -> Sentence:
    """Who is faster at the slider's point, by how much, or why it cannot be said (`.about`: the Versus),
    ending with the origin of each time named that is not what its curve's legend name says (a
    '(recorded + predicted)' curve's point the cost model predicted is said to be predicted)."""
    said = _at_point(cpu, gpu, view, cpu_label, gpu_label)
    named = [(row, side) for row, side in ((cpu, legend_side(Unit.CPU, cpu_label)), (gpu, legend_side(Unit.GPU, gpu_label)))
             if is_ok(row, "epoch_s")]
    for row, side in named:
        said = said + own_origin(row, side)
    return said


def own_origin(row: Row, side: Side) -> Sentence | str:
    """' The GPU · H200 time here is predicted by its cost model: nobody recorded this point.' for a
    predicted point ('' otherwise: recorded, derived and live points are what their legend says)."""
    if row.get("origin") != Origin.PREDICTED:
        return ""
    return say(" The time of ", side.called, " here is predicted by its cost model: nobody recorded this point.")


def _at_point(cpu: Row | None, gpu: Row | None, view: View, cpu_label: str, gpu_label: str) -> Sentence:
    at = f"At {view.axis.label} {fmt_value(view.current)} ({plural(view.steps_per_epoch, 'step')} per epoch)"
    cpu_side, gpu_side = legend_side(Unit.CPU, cpu_label), legend_side(Unit.GPU, gpu_label)
    if not is_ok(cpu, "epoch_s") and not is_ok(gpu, "epoch_s"):
        return say(f"{at} neither device has a time.")
    if not is_ok(gpu, "epoch_s"):
        return say(f"{at}: ", cpu_side.called, f" takes {fmt_s(cpu['epoch_s'])} per epoch; there is no GPU time at "
                   "this point.")
    if not is_ok(cpu, "epoch_s"):
        why = (cpu or {}).get("message") or "not measured"
        return say(f"{at}: ", gpu_side.called, f" takes {fmt_s(gpu['epoch_s'])} per epoch; the CPU has no time here "
                   f"({why}).")
    c, g = float(cpu["epoch_s"]), float(gpu["epoch_s"])
    tie = noisy(cpu) or noisy(gpu) or spread(cpu, "epoch_s") + spread(gpu, "epoch_s") > 2 * abs(c - g)
    # the CPU takes an exact tie: only a strictly shorter epoch makes the GPU the faster
    v = versus(cpu_side, c, gpu_side, g, tie=tie)
    return f"{at}: " + faster_sentence(v, "per epoch", at="")


def provenance(rows: Sequence[Row], label: str) -> str | None:
    """'GPU (H200): 3 points recorded, 9 derived from recorded steps, 5 predicted (dashed, with a band).'"""
    counts = origins(rows)
    if not counts:
        return None
    words = {Origin.LIVE: "measured live", Origin.RECORDED: "recorded", Origin.DERIVED: "derived from a recorded step",
             Origin.PREDICTED: "predicted (dashed, with its band)"}
    parts = [f"{n} {words.get(k, k)}" for k, n in counts.items()]
    return f"{label}: {plural(len(rows), 'point')}, " + ", ".join(parts) + "."


def mode_lines(per_mode: Mapping[str, tuple[Sequence[Row], Sequence[Row]]], view: View) -> list[Sentence]:
    """For each recorded execution mode: where its GPU curve crosses the CPU's."""
    return [f"{mode_label(mode)}: " + crossover_sentence(crossover_of(cpu, gpu, view.over), view.axis.label,
                                                           Side(Unit.CPU), Side(Unit.GPU))
            for mode, (cpu, gpu) in per_mode.items()]


def graph_saving(eager: Row | None, graphed: Row | None) -> str | None:
    """What capturing the step in one CUDA graph removed, from the two rows at the same point."""
    if not (is_ok(eager) and is_ok(graphed)):
        return None
    e, g = float(eager["median_s"]), float(graphed["median_s"])
    kernels = eager.get("kernels")
    launches = (f"The eager step launches {int(kernels)} kernels one by one from Python; the graph launches them "
                "all at once" if kernels else "The graph launches all the step's kernels at once")
    return (f"One CUDA graph of the whole step takes {fmt_s(g)} where eager PyTorch takes {fmt_s(e)}: "
            f"{fmt_ratio(e / g)} as fast. {launches}, so what it saves ({fmt_s(max(0.0, e - g))} a step) was "
            "launch overhead, not arithmetic.")


def compile_payback(eager: Row | None, compiled: Row | None) -> str | None:
    """How many steps torch.compile must run before its one-off compile time is earned back."""
    if not (is_ok(eager) and is_ok(compiled) and compiled.get("cold_s")):
        return None
    e, c = float(eager["median_s"]), float(compiled["median_s"])
    cost = max(0.0, float(compiled["cold_s"]) - c)
    if c >= e:
        return (f"Compiling took {fmt_s(cost)} and the compiled step ({fmt_s(c)}) is no faster than eager "
                f"({fmt_s(e)}): here it never pays off.")
    steps = cost / (e - c)
    return (f"Compiling costs {fmt_s(cost)} once and saves {fmt_s(e - c)} a step: it pays off after about "
            f"{plural(round(steps), 'step')}.")


GRAPHED_MODES = ("cuda_graph", "compile_reduce_overhead")  # the step's kernels replay from a CUDA graph


def timeline_refused(entry: Mapping[str, Any], label: str) -> str:
    """Why a step has no timeline: a recorded one refused when it was recorded (its file holds it,
    skipped), or a live one that was not run, each with its reason."""
    if entry.get("machine") and entry.get("status") != Status.OK:
        return f"{label}: this step's timeline was refused when it was recorded ({entry['status']}: {entry['message']})."
    return f"{label}: {entry['message']}"


def timeline_sentence(entry: Mapping[str, Any] | None, label: str) -> str | None:
    """One sentence read from a step's timeline figures: how busy the device was, and why not more."""
    figures = (entry or {}).get("figures") or {}
    if not figures:
        return None
    step = fmt_s(figures["step_us"] / 1e6)
    if "gpu_busy_fraction" in figures:
        kernels = int(figures.get("kernels", 0))
        if (entry.get("settings") or {}).get("mode") in GRAPHED_MODES:
            return (f"**{label}**: the GPU was busy {figures['gpu_busy_fraction']:.0%} of this {step} step; its "
                    f"{plural(kernels, 'kernel')} were replayed from one CUDA graph, launched by a single call, so "
                    f"the CPU no longer paces them: the gaps between them add up to "
                    f"{fmt_s(figures['gpu_idle_between_us'] / 1e6)}.")
        return (f"**{label}**: the GPU was busy {figures['gpu_busy_fraction']:.0%} of this {step} step; between its "
                f"{plural(kernels, 'kernel')} it sat idle for {fmt_s(figures['gpu_idle_between_us'] / 1e6)} in all, "
                f"waiting for the CPU to launch the next one (each started {fmt_s(figures['launch_delay_us'] / 1e6)} "
                "after its launch call, on average).")
    return (f"**{label}**: the CPU ran operators for {figures['cpu_busy_fraction']:.0%} of this {step} step "
            f"({plural(int(figures['operators']), 'operator')}); the gaps between the bars are Python, autograd and "
            "dispatch deciding what runs next. The profiler itself adds a little to every operator.")
