"""The Timing pitfalls lesson (seed 003): a matmul size sweep timed honestly and naively, cold and
warm, with and without TF32 and the host-to-device copy. No Streamlit here; pages/timing_pitfalls.py
lays it out.

The live measurement and the packs give the matmul workload's result rows (lib/workloads/matmul.py);
screen() turns each into a Timed (lib.lessons.timing.timed): the point and its series (the device and
where its numbers came from), read by name (median_s, cold_s, rate, copy_s). A Variant is how the
matmul is timed (sync, TF32, the copy counted; the workload's settings dtype, sync, transfer); the honest
BASELINE is synchronised fp32 with the inputs already on the device. Every number in a sentence is read
from the points passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, NamedTuple

from lib.core.crossover import CrossKind, Crossover, SweepAnalysis, analyse_rows
from lib.core.fmt import Sentence, fmt_value, say
from lib.core.point import Point, points_of, rows_of
from lib.core.request import LiveRequest
from lib.core.rows import Origin
from lib.lessons.common import onscreen
from lib.lessons.common.in_series import ChartRow
from lib.lessons.common.live import LiveBudget, LiveSweep, live_sweep
from lib.lessons.common.one_day import APART
from lib.lessons.common.voice import Unit, crossover_sentence, legend_side
from lib.lessons.timing.timed import Timed
from lib.recorded.sources import series_label
from lib.recorded.uploads import plain
from lib.workloads import get_workload

WORKLOAD = get_workload("matmul")
SIZES = (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
DEFAULT_SIZE = 1024


class Switch(Enum):
    """A switch under the chart that changes how the matmul is timed (the cold call is only drawn or not)."""

    SYNC = "sync"
    TF32 = "tf32"
    TRANSFER = "transfer"


@dataclass(frozen=True)
class Variant:
    """How the matmul is timed: synchronised or not, fp32 or TF32, the host-to-device copy counted or not."""

    sync: bool = True
    tf32: bool = False
    transfer: bool = False

    @classmethod
    def of_settings(cls, settings: Mapping[str, Any]) -> Variant:
        """The timing a matmul point was measured with, from its settings (or its row)."""
        return cls(bool(settings["sync"]), settings["dtype"] == "tf32", bool(settings["transfer"]))

    @property
    def dtype(self) -> str:
        return "tf32" if self.tf32 else "fp32"

    def settings(self) -> dict[str, str | bool]:
        """The matmul workload's settings for this timing (its sweep, its pack rows, its CLI command)."""
        return {"dtype": self.dtype, "sync": self.sync, "transfer": self.transfer}

    def is_on(self, switch: Switch) -> bool:
        """Whether `switch` is set away from the honest baseline (each switch is named as its field)."""
        return getattr(self, switch.value) != getattr(BASELINE, switch.value)

    def set_back(self, switch: Switch) -> Variant:
        """This timing with `switch` set back to the honest baseline."""
        return replace(self, **{switch.value: getattr(BASELINE, switch.value)})


BASELINE = Variant()
SEED_REPORTED = (
    "a 15,360 × 15,360 fp32 matmul: CPU 296.9 s; GPU 0.55 s for the first call, 0.46 s after, "
    "once torch.cuda.synchronize() was called before reading the clock"
)


def variant_of(sync: bool, tf32: bool, transfer: bool) -> Variant:
    return Variant(bool(sync), bool(tf32), bool(transfer))


def changes(variant: Variant) -> list[Switch]:
    """Which switches differ from the honest baseline, in the order sync, tf32, transfer."""
    return [s for s in Switch if variant.is_on(s)]


def variant_label(variant: Variant) -> str:
    """'synchronised, fp32' / 'naive timer (no synchronise), TF32, copy counted'."""
    parts = ["synchronised" if variant.sync else "naive timer (no synchronise)", "TF32" if variant.tf32 else "fp32"]
    if variant.transfer:
        parts.append("copy counted")
    return ", ".join(parts)


def cold_label(variant: Variant) -> str:
    return f"first call (cold), {variant_label(variant)}"


def baseline_line() -> str:
    """The chart's name for the honest baseline drawn beside a view that differs from it."""
    return f"honest baseline: {variant_label(BASELINE)}"


def partner(variant: Variant, switch: Switch) -> Variant:
    """The variant with only `switch` set back to the baseline: what one switch does is read against it, so
    that each comparison changes one thing (TF32 with the copy against fp32 with the copy, not against fp32
    without it)."""
    return variant.set_back(switch)


def views(variant: Variant) -> dict[str, Variant]:
    """The timings a view needs, by name: its own, the honest baseline when it differs, and for each
    switch that differs the variant with only that switch set back (partner())."""
    out = {variant_label(variant): variant}
    if variant != BASELINE:
        out[variant_label(BASELINE)] = BASELINE
    for switch in changes(variant):
        other = partner(variant, switch)
        out.setdefault(variant_label(other), other)
    return out


def recorded(
    pack: Mapping[str, Any] | None, label: str, variant: Variant, size: int, *, with_cpu: bool
) -> onscreen.RecordedViews:
    """The pack's size sweeps through `size` for each timing the view needs (views())."""
    through = {name: {**v.settings(), "size": size} for name, v in views(variant).items()}
    return onscreen.recorded_views(pack, label, WORKLOAD, "size", through, with_cpu=with_cpu)


def file_stem(variant: Variant) -> str:
    """Download name of a view: matmul_honest, matmul_sync_tf32, ..."""
    return f"matmul_{'_'.join(s.value for s in changes(variant)) or 'honest'}"


def point_where(row: Mapping[str, Any]) -> str:
    """Where a point of the page sits, for its note: 'cpu (live, this server), size 16,384, synchronised, fp32'."""
    return f"{row['series']}, size {fmt_value(row.get('size'))}, {variant_label(Variant.of_settings(row))}"


def by_size(points: Sequence[Timed], series: str) -> dict[int, Timed]:
    """The measured points of one series, by size."""
    return {t.size: t for t in points if t.series == series and t.ok}


def nearest(sizes: Sequence[int], size: int) -> int | None:
    """`size` if it is there, else the largest one below it, else the smallest."""
    sizes = sorted(sizes)
    if not sizes:
        return None
    if size in sizes:
        return size
    below = [s for s in sizes if s < size]
    return below[-1] if below else sizes[0]


def _at(size: int, chosen: int) -> str:
    return (
        f"at size {fmt_value(chosen)}"
        if chosen == size
        else f"at size {fmt_value(chosen)} (the nearest measured to {fmt_value(size)})"
    )


def live_current(variant: Variant, size: int) -> int | None:
    """Where phases are timed live: the copy is timed on its own at the slider's size only. Without it
    the size only picks the point explained, so moving the slider reuses the measurement."""
    return size if variant.transfer else None


def live_request(
    variant: Variant, devices: Sequence[str], *, size: int, point_budget_s: float, threads: int
) -> LiveRequest:
    """The live measurement of one variant, which is also its cache key."""
    return LiveRequest.of(
        live_rows,
        variant,
        list(devices),
        current=live_current(variant, size),
        point_budget_s=point_budget_s,
        num_threads=threads,
    )


def measure_label(variant: Variant, devices: Sequence[str]) -> str:
    return f"matmul over size ({variant_label(variant)}) on {', '.join(devices)}"


def default_requests(devices: Sequence[str], *, point_budget_s: float, threads: int) -> list[tuple[str, LiveRequest]]:
    """What the page measures at its defaults (the honest baseline at DEFAULT_SIZE), each with its label: the
    server's warm-up measures them before a visitor asks (ui.prefetch)."""
    return [
        (
            measure_label(v, devices),
            live_request(v, devices, size=DEFAULT_SIZE, point_budget_s=point_budget_s, threads=threads),
        )
        for v in views(BASELINE).values()
    ]


def live_rows(
    variant: Variant,
    devices: Sequence[str],
    *,
    current: int | None,
    point_budget_s: float,
    num_threads: int | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> list[dict[str, Any]]:
    """The size sweep of one variant, timed live (lib.lessons.common.live.live_sweep: its work and memory caps
    apply; phases only at `current`, no kernel profile)."""
    return rows_of(
        live_sweep(
            LiveSweep(WORKLOAD, "size", SIZES, variant.settings(), devices, current=current, profile_current=False),
            LiveBudget(point_budget_s, num_threads=num_threads),
            progress=progress,
        )
    )


# -- the rows on screen ------------------------------------------------------------------------------
NO_GPU = (
    "No GPU on this server and no recorded GPU results shipped yet: only the live CPU is shown, and the "
    "GPU's pitfalls (asynchronous calls, tensor cores, copies) cannot be shown."
)


@dataclass(frozen=True)
class Screen:
    """The view's points and the honest baseline's, each in its series."""

    variant: Variant
    current: tuple[Timed, ...]
    baseline: tuple[Timed, ...]  # the same points as `current` when the view is the baseline
    machine: str | None  # the recorded machine's label
    by_view: Mapping[str, tuple[Timed, ...]] = field(default_factory=dict)  # every view's points (views())
    # every view's recorded points of another day than the lines' (onscreen.apart_points): drawn apart, never said
    apart: Mapping[str, tuple[Timed, ...]] = field(default_factory=dict)

    def partner_points(self, switch: Switch) -> tuple[Timed, ...]:
        """The points of the variant with only `switch` set back (partner()): what that switch is read against."""
        return self.by_view.get(variant_label(partner(self.variant, switch)), ())

    @property
    def differs(self) -> bool:
        return self.variant != BASELINE

    @property
    def points(self) -> list[Timed]:
        return list(self.current + (self.baseline if self.differs else ()))

    def table_rows(self) -> list[dict[str, Any]]:
        """The points on screen as rows, for the table, the downloads and the notes (ui.scaffold reads rows)."""
        return [t.row() for t in self.points]

    @property
    def order(self) -> list[str]:
        return onscreen.series_order(self.table_rows(), self.machine)

    @property
    def gpu_series(self) -> str | None:
        return onscreen.gpu_series(self.table_rows())

    @property
    def recorded_cpu_series(self) -> str:
        return series_label("cpu", Origin.RECORDED, self.machine)


def screen(
    variant: Variant, live: Mapping[str, Sequence[Point]], found: onscreen.RecordedViews, machine: str | None
) -> Screen:
    """The points on screen from the live points per view (views()) and the recorded ones, each in its series."""

    def points(name: str) -> tuple[Timed, ...]:
        return onscreen.labelled_points(Timed, live.get(name, ()), found, machine, name)

    by_view = {name: points(name) for name in views(variant)}
    current = by_view[variant_label(variant)]
    apart = {name: onscreen.apart_points(Timed, found, name) for name in views(variant)}
    return Screen(variant, current, by_view[variant_label(BASELINE)], machine, by_view, apart)


def live_points(measured: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, list[Point]]:
    """The adapter to the live path's results (each timing's rows: live_rows): each timing's points."""
    return {name: points_of(rows) for name, rows in measured.items()}


def missing_note(found: onscreen.RecordedViews, label: str) -> str | None:
    """What the recorded pack lacks for this view (None when it lacks nothing)."""
    if not found.missing:
        return None
    if not found.holds_workload:
        return found.note
    return (
        f"The recorded pack ({plain(label)}) has no matmul sweep over size for "
        + " or ".join(f"“{n}”" for n in found.missing)
        + ", so there is no GPU curve for it: only the live CPU is shown there. The pack holds the honest "
        "baseline and one toggle at a time; combinations are not recorded."
    )


def partner_lines(variant: Variant) -> list[str]:
    """The partners (partner()) drawn beside the view: those that are not the baseline, which is drawn
    anyway. A view that changes two switches draws what each is read against, so the words' numbers are
    on the chart."""
    return [variant_label(partner(variant, s)) for s in changes(variant) if partner(variant, s) != BASELINE]


def line_names(variant: Variant) -> list[str]:
    """The line styles of the time chart, in legend order."""
    return [variant_label(variant), cold_label(variant), *partner_lines(variant), baseline_line()]


def _line(point: Timed, line: str) -> ChartRow:
    """A point as a row of the chart's data, with the line it is drawn in."""
    return {**point.row(), "line": line}


def _apart(view: Screen, line: str) -> list[ChartRow]:
    """A drawn timing's points of another recording day, marked to be drawn apart from its line."""
    return [{**_line(t, line), APART: True} for t in view.apart.get(line, ())]


def time_lines(view: Screen, show_cold: bool) -> list[ChartRow]:
    """The time chart's data, each row with its `line`: the view's warm medians, its cold first calls
    (show_cold), and the honest baseline when the view differs from it."""
    name = variant_label(view.variant)
    lines = _apart(view, name)
    for t in view.current:
        lines.append(_line(t, name))
        if show_cold and t.cold_ok:
            # the copy was timed warm, not in the first call
            cold = {"median_s": t.cold_s, "iqr_s": None, "phase_transfer_s": None}
            lines.append({**_line(t, cold_label(view.variant)), **cold})
    lines += _partner_points(view)
    lines += [row for partner in partner_lines(view.variant) for row in _apart(view, partner)]
    if view.differs:
        lines += [_line(t, baseline_line()) for t in view.baseline]
        lines += [{**row, "line": baseline_line()} for row in _apart(view, variant_label(BASELINE))]
    return lines


def _partner_points(view: Screen) -> list[ChartRow]:
    return [_line(t, name) for name in partner_lines(view.variant) for t in view.by_view.get(name, ())]


def rate_lines(view: Screen) -> list[ChartRow]:
    """The FLOP/s chart's data: the view's points, and the honest baseline's when it differs."""
    lines = [_line(t, variant_label(view.variant)) for t in view.current] + _partner_points(view)
    return lines + ([_line(t, baseline_line()) for t in view.baseline] if view.differs else [])


class Crossovers(NamedTuple):
    """The crossovers of the synchronised timings on screen (None where a curve is missing)."""

    live: SweepAnalysis | None  # this server's CPU against the GPU
    same_machine: SweepAnalysis | None  # the recording machine's CPU against its GPU


def crossovers(view: Screen) -> Crossovers:
    """The crossover of the synchronised timings on screen: live CPU against the GPU, and the recording
    machine's CPU against its GPU (None where a curve is missing)."""
    honest = [t for t in (view.current if view.variant.sync else view.baseline) if t.ok]
    gpu, same = view.gpu_series, view.recorded_cpu_series
    if not gpu:
        return Crossovers(None, None)

    def analysed(cpu: str) -> SweepAnalysis:
        return analyse_rows([t.row() for t in honest if t.series in (cpu, gpu)], "size")  # it reads rows

    analysis = analysed(onscreen.LIVE_CPU) if honest else None
    same_machine = analysed(same) if any(t.series == same for t in view.points) else None
    return Crossovers(analysis, same_machine)


NO_CPU_CURVE = "There is no curve for this server's CPU on screen, so there is no crossover to show."


def live_cpu_timed(points: Sequence[Timed]) -> bool:
    """Whether this server's CPU has a measured point among `points` (else there is no crossover to show)."""
    return any(t.series == onscreen.LIVE_CPU and t.ok for t in points)


def crossover_sentences(view: Screen, same_machine_intro: str | None) -> list[Sentence]:
    """Where the GPU catches up, from the synchronised timings; and on the recording machine itself (its
    words: lib.lessons.common.onscreen.same_machine_intro of the pack's machine, None without a pack)."""
    gpu = view.gpu_series
    if not gpu:
        return []
    analysis, same_machine = crossovers(view)
    which = "" if view.variant.sync else "From the synchronised timings: "
    honest = view.current if view.variant.sync else view.baseline
    if not live_cpu_timed(honest):  # the CPU's curve is the one missing
        out = [say(NO_CPU_CURVE, about=Crossover(CrossKind.ONE_DEVICE, None))]
    else:
        out = [
            which
            + crossover_sentence(analysis, "size", legend_side(Unit.CPU, onscreen.LIVE_CPU), legend_side(Unit.GPU, gpu))
        ]
    if same_machine is not None and same_machine_intro is not None:
        out.append(
            f"{same_machine_intro}: "
            + crossover_sentence(
                same_machine, "size", legend_side(Unit.CPU, view.recorded_cpu_series), legend_side(Unit.GPU, gpu)
            )
        )
    return out


# -- synchronise -------------------------------------------------------------------------------------


# -- cold first call ---------------------------------------------------------------------------------


# -- TF32 --------------------------------------------------------------------------------------------


# -- transfer ----------------------------------------------------------------------------------------


# -- achieved FLOP/s ---------------------------------------------------------------------------------


def record_command(variant: Variant, sizes: Sequence[int] = SIZES) -> str:
    sets = " ".join(f"--set {k}={str(v).lower()}" for k, v in variant.settings().items())
    name = "_".join(
        ["matmul", variant.dtype, "sync" if variant.sync else "nosync"] + (["transfer"] if variant.transfer else [])
    )
    return (
        f"python -m lib sweep matmul --over size={','.join(str(s) for s in sizes)} {sets} "
        f"--devices cpu,cuda --out lib/recorded/{name}.json"
    )
