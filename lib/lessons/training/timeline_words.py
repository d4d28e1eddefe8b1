"""The sentences under the Training page's timelines (one step on the CPU thread against the GPU stream),
each read from the timeline entry it is about and the timed point beside it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lib.core.fmt import and_list, fmt_ratio, fmt_s, pct, plural
from lib.core.rows import Origin, Status
from lib.core.step_timeline import Timeline
from lib.lessons.common.explain import time_split
from lib.lessons.training.live_point import CurvePoint
from lib.lessons.training.reading import timed as has_time
from lib.lessons.training.view import FAMILIES
from lib.workloads.execution import graphed
from lib.workloads.family import TrainingFamily


def timeline_title(entry: Timeline, label: str) -> str:
    """A timeline chart's title: the curve's legend name, and for a recorded timeline the day its own
    file was recorded, which need not be the day of the curve's pack ('GPU · H200 (recorded), this
    timeline recorded 2026-11-23'); a live one's label already says so."""
    day = entry.recorded_day
    return f"{label}, this timeline recorded {day}" if day else label


def timeline_refused(entry: Timeline, label: str) -> str:
    """Why a step has no timeline: a recorded one refused when it was recorded (its file holds it,
    skipped), or a live one that was not run, each with its reason."""
    if entry.recorded_day is not None and entry.status != Status.OK:
        return f"{label}: this step's timeline was refused when it was recorded ({entry.status}: {entry.message})."
    return f"{label}: {entry.message}"


def no_timeline(family: TrainingFamily, settings: Mapping[str, Any] | None = None) -> str:
    """Why no GPU timeline is drawn: where the family's recorded ones are, or that it has none; and where the
    dataset holds fewer samples than the batch asks for, that this step is smaller than the recorded ones."""
    if not (family.timeline_batches and family.timeline_widths):
        return f"No GPU timeline was recorded for the {family.named}."
    batches = and_list(f"{b:,}" for b in family.timeline_batches)
    widths = and_list(f"{w:,}" for w in family.timeline_widths)
    width = family.axes[family.width].label.split()[-1]  # 'width' of 'hidden width'
    said = (
        f"No GPU timeline was recorded at this point: the recorded ones are at batch sizes {batches}, {width}s {widths}"
    )
    batch, size = (settings or {}).get("batch_size"), (settings or {}).get("dataset_size")
    if isinstance(batch, int) and isinstance(size, int) and batch > size:
        return f"{said}, each over a dataset at least that large (here a step holds the dataset's {size:,} samples)."
    return f"{said}."


# the settings a timeline's step is matched by: every family's sliders but the dataset size, the mode, two switches
STEP_KEYS = (
    *dict.fromkeys(k for f in FAMILIES for k in (*f.axes, *f.choices) if k != "dataset_size"),
    "mode",
    "data_resident",
    "item_every_step",
)


def _same_step(entry: Timeline, timed: CurvePoint | None) -> bool:
    """Whether a timed point is the step the timeline profiled: timed (not predicted), same settings,
    and a batch that is the step's rows (a batch past the dataset size is a smaller step)."""
    if not has_time(timed) or timed.origin == Origin.PREDICTED:
        return False
    settings, own = entry.settings, timed.settings
    rows_ok = int(own.get("batch_size", 0)) <= int(own.get("dataset_size", 0) or 0)
    return rows_ok and all(own.get(k) == settings.get(k) for k in STEP_KEYS if k in settings)


def _timed_s(entry: Timeline, timed: CurvePoint) -> tuple[float, str]:
    """The timed step of the timeline's own recording day where the point holds it (a point recorded on
    several days keeps each day's time), else the point's time and ', on <recording>: another day'."""
    day = entry.recorded_day or ""
    steps = float(timed.steps_per_epoch or 1)
    same = [t / steps for name, t in timed.by_recording if day and day in str(name)]
    if same:
        return same[0], ""
    own = str(timed.machine or "")
    return float(timed.median_s), (f", on {own}: another day" if day and own and day not in own else "")


PROFILER_SLOWER = 1.3  # a profiled step this much slower than the timed one tells a different story: say so
QUEUED_US = 30.0  # kernels starting this long after their launch call waited behind earlier work (eager: ~10 µs)


def timeline_sentence(entry: Timeline | None, label: str, timed: CurvePoint | None = None) -> str | None:
    """One sentence read from a step's timeline figures: how busy the device was, and why not more.
    `timed`: the same step's point on the chart (its median timed without the profiler); where the
    profiled step is much slower, the sentence says by how much, and that the chart's times are the
    timed ones, so the split, the timeline and the headline tell one story of one step."""
    figures = entry.figures if entry else None
    if figures is None:
        return None
    profiled = figures.step_us / 1e6
    step = fmt_s(profiled)
    t, when = _timed_s(entry, timed) if _same_step(entry, timed) else (None, "")
    slower = profiled / t if t and profiled / t >= PROFILER_SLOWER else None
    lead = (
        f"**{label}**: the profiler made this step {fmt_ratio(slower)} slower ({step} against {fmt_s(t)} timed "
        f"without it{when}); the times above are the unprofiled ones. Profiled, "
        if slower
        else f"**{label}**: "
    )
    if (gpu := figures.gpu) is not None:
        kernels = int(gpu.kernels)
        idle = fmt_s(gpu.idle_between_us / 1e6)
        seen = (
            f" (the profiler saw only {plural(kernels, 'kernel')} of the {int(timed.kernels)} counted when "
            "this step was timed: the picture is incomplete)"
            if t and timed.kernels and kernels < 0.5 * float(timed.kernels)
            else ""
        )
        if graphed(entry.settings.get("mode")):  # its kernels replay from a CUDA graph
            return (
                f"{lead}the GPU was busy {gpu.busy_fraction:.0%} of this {step} step{seen}; its "
                f"{plural(kernels, 'kernel')} were replayed from one CUDA graph, launched by a single call, so "
                f"the CPU no longer paces them: the gaps between them add up to {idle}."
            )
        head = f"{lead}the GPU was busy {gpu.busy_fraction:.0%} of this {step} step{seen}"
        delay = fmt_s(gpu.launch_delay_us / 1e6)
        if gpu.launch_delay_us >= QUEUED_US:
            split = time_split(timed.to_row()) if slower else None
            after = (
                f"; the {idle} of gaps between them is the profiler slowing the CPU: timed without it, the GPU "
                f"is busy {pct(split.busy / split.step_s)} of the step"
                if split
                else f"; between them it sat idle for {idle} in all"
            )
            return (
                f"{head}. Its {plural(kernels, 'kernel')} started {delay} after their launch calls on average: "
                f"they waited in a queue behind earlier work, so the GPU, not the CPU, set the pace{after}."
            )
        return (
            f"{head}; between its {plural(kernels, 'kernel')} it sat idle for {idle} in all, waiting for the CPU "
            f"to launch the next one (each started {delay} after its launch call, on average: nothing was "
            "queued)."
        )
    cost = (
        ""
        if slower
        else " The profiler itself adds to every operator, so a profiled step runs slower than a timed one."
    )
    cpu_share = figures.cpu.busy_fraction if figures.cpu else 0.0
    return (
        f"{lead}the CPU ran operators for {cpu_share:.0%} of this {step} step "
        f"({plural(int(figures.operators), 'operator')}); the gaps between the bars are Python, autograd and "
        f"dispatch deciding what runs next.{cost}"
    )


# under the model choice: the page never runs a visitor's code, so a model of one's own is predicted on one's own machine
