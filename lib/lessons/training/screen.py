"""What the Training page shows for one view, put together: the curves with their legend names,
the answer, the point the slider picks, and where the numbers came from.

    screen = compose(view, Machines(Machine(...), small_cpu=Machine(...), host_cpu=...), live=points)

Recorded first, live on top: with no live points yet (a visitor waiting in the queue, or the first
paint), the CPU curve is the recording of a small server like this one; once this server's CPU
has been measured, its live curve takes that place and the answer says so.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from lib.core.crossover import Crossover
from lib.core.fmt import and_list, pct
from lib.core.point import SettingValue
from lib.core.rows import Origin
from lib.lessons.common.switch import switch_sentence
from lib.lessons.common.verdict import ROOF_SHARE, Regime, RooflinePoint, roofline_points, split_sentence
from lib.lessons.common.voice import Versus
from lib.lessons.training import step_tables
from lib.lessons.training import view as training_view
from lib.lessons.training import words as training_words
from lib.lessons.training.live_point import CurvePoint, LivePoint, curve_rows
from lib.lessons.training.reading import Clock, timed
from lib.lessons.training.two_cpus import cpu_disagreement
from lib.recorded.ceilings import Ceilings


@dataclass(frozen=True)
class Machine:
    """A recorded machine as the page names it: its step tables and its short legend name."""

    tables: Mapping[str, step_tables.StepTable]
    name: str  # 'H200', 'a 2-core server'
    words: str  # for notes: 'NVIDIA H200, 2026-11-21'
    ceilings: Ceilings | None = None  # its GPU's measured roofline (lib.recorded.ceilings), for the verdicts


@dataclass(frozen=True)
class Machines:
    """Whose curves a screen draws besides this server's live CPU: the recorded GPU (none: no GPU curve) or,
    with live_gpu, this server's GPU from the live rows; the recorded small server's CPU (drawn at one
    thread only, as it was recorded); with host_cpu, the GPU machine's own CPU."""

    gpu: Machine | None
    small_cpu: Machine | None = None
    host_cpu: bool = False
    live_gpu: bool = False
    threads: int = 1


class CrossingRange(NamedTuple):
    """The range the curves surely cross in, and the likeliest x in it (None: not said), as the chart shades it."""

    low: float | None
    high: float | None
    likely: float | None


class HerePoint(NamedTuple):
    """A curve's point at the slider's position, with the curve's legend name."""

    series: CurveName
    point: CurvePoint

    def to_row(self) -> dict[str, Any]:
        return {**self.point.to_row(), "series": self.series}


@dataclass
class Screen:
    curves: dict[CurveName, list[CurvePoint]] = field(default_factory=dict)  # legend name -> its points
    cpu_label: CurveName | None = None  # the curve the answer compares with the GPU
    gpu_label: CurveName | None = None
    headline: str = ""  # one sentence above the chart: the answer alone
    headline_notes: str = ""  # said under the chart: points too close to call, predicted ranges, other days
    answer: Crossover | None = None  # what the headline says, typed
    live_line: str | None = None  # the same answer read from this server's live CPU
    at_point: str = ""
    at_point_result: Versus | None = None  # what at_point says, typed (None when a side has no time)
    here: list[HerePoint] = field(default_factory=list)  # every curve's point at the slider's point
    provenance: list[str] = field(default_factory=list)
    crossover: CrossingRange | None = None  # where the curves surely cross, for the chart
    live_answer: Crossover | None = None  # what live_line says, typed
    over: str = "batch_size"
    doubtful: dict[str, frozenset] = field(default_factory=dict)  # legend name -> x values not believed
    ceilings: Ceilings | None = None  # the recorded GPU's roofline, where the GPU curve is that machine's

    def rows(self) -> list[dict[str, Any]]:
        """Every curve's rows as the chart draws them: `noisy` marks a point drawn hollow, one the noise
        rule does not believe (the words call it so) or one whose spread is over half its time."""
        return chart_rows(self.curves, self.doubtful, self.over)


def chart_rows(
    curves: Mapping[CurveName, Sequence[CurvePoint]], doubtful: Mapping[str, frozenset], over: str
) -> list[dict[str, Any]]:
    """Curves as a chart's data (lib.charts.provenance.curve_chart): each point's row with its legend name
    and whether it is drawn hollow."""
    return [
        {**p.to_row(), "series": name, "noisy": training_words.hollow(p, doubtful.get(name, ()), over)}
        for name, points in curves.items()
        for p in points
    ]


def gpu_name(words: str) -> str:
    """'NVIDIA H100 80GB HBM3, 2026-11-23' -> 'H100'."""
    name = words.split(",")[0].replace("NVIDIA ", "")
    return name.split(" ")[0] if name.startswith(("H1", "H2", "A1", "L4", "T4", "V1")) else name


class CurveName(str):
    """A Training curve's legend name ('CPU · this server (live)') that knows what it names: the
    device kind, whose it is and where its numbers came from (`also`: a recorded curve some of whose
    points are predicted, 'GPU · H200 (recorded + predicted)'). Code reads the fields, never the text."""

    kind: str
    where: str
    origin: Origin
    also: Origin | None

    def __new__(cls, kind: str, where: str, origin: Origin | str, also: Origin | str | None = None) -> CurveName:
        origin, also = Origin(origin), Origin(also) if also is not None else None
        self = super().__new__(cls, f"{kind} · {where} ({origin.value}{f' + {also.value}' if also else ''})")
        self.kind, self.where, self.origin, self.also = kind, where, origin, also
        return self

    def __reduce__(self) -> tuple:
        return CurveName, (self.kind, self.where, self.origin.value, self.also.value if self.also else None)


def label(kind: str, where: str, origin: Origin | str, also: Origin | str | None = None) -> CurveName:
    return CurveName(kind, where, origin, also)


def curve_origin(points: Sequence[CurvePoint]) -> tuple[Origin, Origin | None]:
    """What a recorded machine's curve is, for its legend name (origin, also): recorded (recorded
    steps, or epochs derived from them), predicted (every point from the cost model), or recorded
    with some points predicted."""
    predicted = [p.origin is Origin.PREDICTED for p in points]
    if predicted and all(predicted):
        return Origin.PREDICTED, None
    return Origin.RECORDED, Origin.PREDICTED if any(predicted) else None


def compose(
    view: training_view.View,
    machines: Machines,
    *,
    live: Sequence[LivePoint] = (),
    grid: Collection[Any] | None = None,
    now: float | None = None,
) -> Screen:
    """The curves of one view and the words read from them. live: this server's points; grid: the live
    curve's fixed points (its crossover is read from them alone, the same at every slider position);
    now: the time the live rows' age is counted to (default: the clock)."""
    gpu, small_cpu, live_gpu = machines.gpu, machines.small_cpu, machines.live_gpu
    screen = Screen(over=view.over)
    cpu_mode = view.cpu_side()
    live_cpu, live_gpu_points = live_sides(live)
    gpu_rows: Sequence[CurvePoint]
    if live_gpu:
        gpu_rows = live_gpu_points
        screen.gpu_label = label("GPU", "this server", Origin.LIVE)
    elif gpu is not None:
        gpu_rows = training_view.curve(view, gpu.tables.get("cuda"), "cuda:0", gpu.words)
        screen.ceilings = gpu.ceilings
        screen.gpu_label = label("GPU", gpu_name(gpu.words), *curve_origin(gpu_rows))
    else:
        gpu_rows = []
    small = (
        training_view.curve(cpu_mode, small_cpu.tables.get("cpu"), "cpu", small_cpu.words)
        if small_cpu is not None and machines.threads == 1
        else []
    )
    if small:
        screen.curves[label("CPU", small_cpu.name, *curve_origin(small))] = list(small)
    if live_cpu:
        screen.curves[label("CPU", "this server", Origin.LIVE)] = list(live_cpu)
    if machines.host_cpu and gpu is not None and not live_gpu:
        host = training_view.curve(cpu_mode, gpu.tables.get("cpu"), "cpu", gpu.words)
        if host:
            screen.curves[label("CPU", f"{gpu_name(gpu.words)} machine", *curve_origin(host))] = host
    if gpu_rows and screen.gpu_label:
        screen.curves[screen.gpu_label] = list(gpu_rows)
    screen.doubtful = {name: training_words.doubt(points, view.over) for name, points in screen.curves.items()}
    _answer(screen, view, small_cpu, grid, time.time() if now is None else now)
    if not gpu_rows and gpu is not None and not live_gpu:  # why, under the chart: the answer stays one sentence
        screen.headline_notes = (_where_recorded(view, gpu).strip() + " " + screen.headline_notes).strip()
    return screen


def live_sides(live: Sequence[LivePoint]) -> tuple[list[LivePoint], list[LivePoint]]:
    """This server's live points as the screen's curves read them, (CPU, GPU): the CPU's drawn as the live CPU."""
    cpu = [p.as_live_cpu() for p in live if p.device == "cpu"]
    return cpu, [p for p in live if p.device != "cpu"]


def with_point(grid: Sequence[LivePoint], point: Sequence[LivePoint], over: str) -> list[LivePoint]:
    """A live curve: its grid's points (measured once for every slider position) with the slider's own
    point, measured apart with its profile, in place of the grid's point at that x (one point per
    x and device: the chart, the split and the words read the same one)."""
    mine = {(p.settings.get(over), p.device) for p in point}
    return sorted(
        [*(p for p in grid if (p.settings.get(over), p.device) not in mine), *point],
        key=lambda p: (str(p.device), p.settings.get(over) or 0),
    )


def _where_recorded(view: training_view.View, gpu: Machine) -> str:
    """Why this GPU has no curve for this view, and what to move: ' The H200 was recorded at depth 3 only: …'."""
    table = gpu.tables.get("cuda")
    name = gpu_name(gpu.words)
    family = view.family
    if table is None or not len(table):
        return f" The {name} has no recordings of this page's {family.named} training step."
    depths = sorted({d for steps in table.steps.values() for _, _, d in steps})
    depth = family.axes[family.depth].label if family.depth else ""  # 'depth' for the MLP
    if depth and len(depths) == 1 and getattr(view, family.depth) not in depths:
        return (
            f" The {name} was recorded at {depth} {depths[0]} only: set {depth.capitalize()} to {depths[0]} "
            "to see its curve."
        )
    widths = sorted({w for steps in table.steps.values() for _, w, _ in steps})
    width = family.axes[family.width].label
    at = f" with {depth} {and_list(depths, 'or')}" if depth else ""
    return (
        f" The {name} recorded this step only at {width} {and_list(widths, 'or')}{at}: move the sliders there to "
        "see its curve."
    )


def _answer(
    screen: Screen,
    view: training_view.View,
    small_cpu: Machine | None,
    grid: Collection[SettingValue] | None,
    now: float,
) -> None:
    """The recorded answer first (the same recorded data always reads the same); the live one on top."""
    cpu_names = [n for n in screen.curves if n.kind == "CPU"]
    live_name = next((n for n in cpu_names if n.origin == Origin.LIVE), None)
    recorded_cpu = next(
        (n for n in cpu_names if n.origin != Origin.LIVE and small_cpu and n.where == small_cpu.name), None
    )
    primary = recorded_cpu or live_name or (cpu_names[0] if cpu_names else None)
    screen.cpu_label = primary
    curves = screen.curves
    gpu = curves.get(screen.gpu_label or "", [])
    cpu = curves.get(primary or "", [])
    if primary and gpu:
        # a live curve's answer is read from its fixed grid, the same at every slider position
        said, notes = training_words.headline(
            cpu,
            gpu,
            view,
            primary,
            screen.gpu_label,
            only=grid if Origin.LIVE in (primary.origin, screen.gpu_label.origin) else None,
        )
        if days := training_words.days_sentence(cpu, gpu, view, screen.gpu_label):
            notes = f"{notes} {days.markdown()}".strip()
        screen.headline, screen.headline_notes, screen.answer = said.markdown(), notes, said.about
        found = said.about
        screen.crossover = CrossingRange(*found.sure, found.x) if found.sure else None
        if live_name and live_name != primary:
            live_said = training_words.live_headline(
                curves[live_name], gpu, view, live_name, screen.gpu_label, grid=grid, now=now
            )
            screen.live_line, screen.live_answer = live_said.markdown(), live_said.about
            if apart := cpu_disagreement(cpu, curves[live_name], view, primary, grid=grid):
                screen.live_line += apart.markdown()  # why the two answers differ: two CPUs, not two readings
    elif not gpu:
        screen.headline = "There is no GPU curve for this view, so there is no crossover to show."
    else:
        screen.headline = "There is no CPU curve for this view yet, so there is no crossover to show."
    at_index = {
        name: next((i for i, p in enumerate(curve) if p.settings.get(view.over) == view.current), None)
        for name, curve in curves.items()
    }
    at = {name: curves[name][i] if i is not None else None for name, i in at_index.items()}
    screen.here = [HerePoint(name, curves[name][i]) for name, i in at_index.items() if i is not None]
    # the live CPU's time here when it has one; a live run refused here (too big for this server) leaves the
    # recorded CPU's time, which the chart draws at this point, rather than 'the CPU has no time here'
    cpu_here = next(
        (n for n in (live_name, primary) if n and timed(at.get(n), Clock.EPOCH)),
        live_name if at.get(live_name or "") else primary,
    )
    # the answer that speaks of this point's pair: the live line's for the live CPU, else the headline's
    pair_answer = screen.live_answer if cpu_here == live_name and live_name != primary else screen.answer
    said = training_words.at_point(
        at.get(cpu_here or ""),
        at.get(screen.gpu_label or ""),
        view,
        cpu_here or "the CPU",
        screen.gpu_label or "the GPU",
        doubted=tuple(view.current in screen.doubtful.get(n or "", ()) for n in (cpu_here, screen.gpu_label)),
        lone=pair_answer is not None and view.current in pair_answer.lone,
    )
    screen.at_point, screen.at_point_result = said.markdown(), said.about
    screen.provenance = [p for name, curve in curves.items() if (p := training_words.provenance(curve, name))]


def split_lines(screen: Screen, view: training_view.View | None = None, gpu: Machine | None = None) -> list[str]:
    """Where one step's time went at the slider's point, per curve that can say: what holds it back and
    what would move it (the GPU's against its recorded ceilings). A recorded GPU step with item() every
    step or copied batches carries no profile: its line compares it with the same step without them (and a
    pageable copy with the same step copying from pinned memory)."""
    lines = []
    for here in screen.here:
        r = here.to_row()
        said = split_sentence(r, here.series, screen.ceilings if here.series == screen.gpu_label else None)
        if said is None and here.series == screen.gpu_label and view is not None and gpu is not None:
            table = gpu.tables.get("cuda")
            plain = training_view.View(
                **{**view.__dict__, "item_every_step": False, "data_resident": True, "pin_memory": False}
            )
            pinned = (
                training_view.point(
                    training_view.View(**{**view.__dict__, "pin_memory": True}), table, "cuda:0", gpu.words
                )
                if view.data_resident is False and not view.pin_memory and not view.item_every_step
                else None
            )
            without = training_view.point(plain, table, "cuda:0", gpu.words)
            said = switch_sentence(
                r, without and without.to_row(), here.series, screen.ceilings, pinned and pinned.to_row()
            )
        if said:
            lines.append(said)
    return lines


def here_row(screen: Screen, kind: str, origin: Origin | None = None) -> HerePoint | None:
    """The point at the slider's position of the answer's curve of `kind` ('GPU', 'CPU'), or of the curve of
    that kind and origin: the timed step a profiled one of the same point is compared with."""
    name = screen.gpu_label if kind == "GPU" else screen.cpu_label
    if origin is not None:
        name = next((n for n in screen.curves if n.kind == kind and n.origin == origin), None)
    return next((h for h in screen.here if name and h.series == name), None)


def roofline(screen: Screen, view: training_view.View) -> list[RooflinePoint]:
    """The GPU curve's steps on its roofline (empty without a recorded GPU's ceilings)."""
    if screen.ceilings is None or not screen.gpu_label:
        return []
    return roofline_points(
        curve_rows(screen.curves.get(screen.gpu_label, [])),
        screen.ceilings,
        view.over,
        view.current,
        series=screen.gpu_label,
    )


def roofline_caption(points: Sequence[RooflinePoint], c: Ceilings) -> str:
    """The words under the roofline of `points` (roofline_points), true of what it draws: the roofs it draws
    (and a bandwidth one it cannot), and the reason for a kind of dot only where that kind is drawn."""
    drawn = {p.regime for p in points}  # None: a dot whose regime the ceilings cannot tell
    tf32 = f"; TF32: {c.tf32_from}" if c.tf32_flops_per_s and c.tf32_from else ""
    text = (
        "Each dot is one step of the GPU curve (ringed: this point; hollow: predicted by the cost model, nobody "
        "recorded it). A dot is called memory- or compute-bound only where, over its whole step, it reaches "
        f"{pct(ROOF_SHARE)} of that dashed roof. "
        f"Ceilings: {c.flops_from}{tf32}; bandwidth: {c.bytes_from or 'not recorded'}."
    )
    if Regime.LAUNCH_BOUND in drawn:
        text += " Launch-bound: the GPU waits on the host (issuing the work, copies) longer than its kernels run."
    if Regime.KERNEL_LATENCY in drawn:
        text += (
            " Kernel-latency-bound: busy with kernels too small to come near either roof, each held by its fixed cost."
        )
    if Regime.BELOW_ROOFS in drawn:
        text += (
            " Below both roofs: busy steps whose kernels are not tiny, where this page cannot tell kernels that "
            "leave the GPU partly idle from memory traffic beyond the bytes it counts."
        )
    if None in drawn:
        text += (
            " Grey: the GPU was busy, but far from its arithmetic peak, and without a bandwidth ceiling the page "
            "cannot tell whether memory holds it."
            if not c.bytes_per_s
            else " Grey: steps recorded without a profile of their time (and not split by the cost model), so no "
            "regime is said of them."
        )
    return text
