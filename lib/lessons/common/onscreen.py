"""What every lesson page shows around its own charts, as data and sentences (no Streamlit).

    source_sentence(source, threads)           'CPU: measured live on this server with 1 thread. GPU: recorded on …'
    found = recorded_views(pack, source.label, workload, "size", {"honest": {...}}, with_cpu=True)
    shown = labelled_points(Timed, live, found, found.machine, "honest")   # the lines: one recording day (found.day)
    apart = apart_points(Timed, found, "honest")   # the other days' points, each in its own day's series
    rows = labelled(live, found.gpu_rows(), found.cpu_rows(), found.machine)   # the same as rows, every day's
    order = series_order(rows, found.machine)   # live CPU, the recording machine's CPU, the GPU
    notes_title(rows), point_notes(rows, describe)    the points not measured (or with a remark), one line each

ui.scaffold lays these out the same way on every page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from lib.core.crossover import CrossKind, Crossover, SweepAnalysis
from lib.core.fmt import and_list, fmt_value, plural
from lib.core.point import Point, points_of
from lib.core.rows import Origin, Status, is_ok
from lib.core.workload import Workload
from lib.lessons.common.in_series import InSeries
from lib.lessons.common.one_day import days_of, held_days, line_day, on_day
from lib.lessons.common.voice import likely_about
from lib.recorded.sources import (
    GpuSource,
    cpu_text,
    hardware_text,
    holds_workload,
    machine_text,
    matching_rows,
    rows_machine,
    series_label,
    view_rows,
    without_days,
)
from lib.recorded.uploads import plain

Shown = TypeVar("Shown", bound=InSeries)

LIVE_CPU = series_label("cpu", "live")
NO_GPU_YET = "none here, and no recorded GPU results shipped yet, so only the CPU is shown"
# The GPU side when the machine chosen in the sidebar was not recorded for this page (ui.sources.unanswered)
NONE_DRAWN = "none drawn, because the GPU chosen in the sidebar has no results for this page (see the note below)"

# A row's status as a visitor reads it.
STATUS_WORDS = {
    Status.OK.value: "measured",
    Status.OOM.value: "out of memory",
    Status.SKIPPED.value: "not run",
    Status.ERROR.value: "failed",
}


# -- where the numbers come from ----------------------------------------------------------------------
def source_sentence(
    source: GpuSource,
    threads: int,
    *,
    not_live: str | None = None,
    age: str | None = None,
    drawn: str | None = None,
    live_rows: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    """Where each device's numbers come from. `not_live`: the page's own words for a GPU side that
    is not measured here (default: the recorded machine chosen in the sidebar, or none). `age`: how long
    ago the live result on screen was measured ('3 min ago'), when it says. `drawn`: the recorded
    machine as the curves on screen name it (RecordedViews.machine: the days of their rows), rather
    than every day of the sidebar's machine. `live_rows`: the live rows on screen, when the page has them: if
    none of their CPU points was measured (each refused or failed), the CPU side says so instead."""
    if live_rows is not None and not live_rows:  # the measurement was skipped: the page's note says why
        cpu = "CPU: not measured live on this server for this view (a note on this page says why). "
    elif live_rows is not None and not live_cpu_measured(live_rows):
        cpu = "CPU: no point of this view could be measured live on this server (the points not measured say why). "
    else:
        cpu = (
            f"CPU: measured live on this server with {plural(threads, 'thread')}" + (f" ({age})" if age else "") + ". "
        )
    if source.live:
        return cpu + "GPU: measured live on this server."
    if not_live:
        return cpu + f"GPU: {not_live}."
    return cpu + (f"GPU: recorded on {plain(drawn or source.label)}." if source.recorded else f"GPU: {NO_GPU_YET}.")


def live_cpu_measured(rows: Iterable[Mapping[str, Any]]) -> int:
    """How many of the live rows are CPU points that were measured (not refused, not failed)."""
    return sum(1 for r in rows if str(r.get("device", "")).startswith("cpu") and r.get("status") == Status.OK.value)


def gpu_side_note(source: GpuSource, recorded_note: str | None, no_gpu: str) -> str | None:
    """The info a page shows about its GPU side: what the chosen recorded results lack for this view
    (`recorded_note`, None when nothing is missing), or `no_gpu` when there is no GPU side at all."""
    if source.recorded:
        return recorded_note
    return None if source.live else no_gpu


def elsewhere_sentence(source: GpuSource, pack: Mapping[str, Any] | None, what: str) -> str | None:
    """When the recorded side comes from another pack than those of the machine chosen in the sidebar,
    saying so: 'No recording of the GPU chosen in the sidebar holds {what}, so …'. None otherwise.
    It names only the machine drawn (as the legend names it, from the same pack), never the sidebar's
    machine or its dates: none of its rows is on the page."""
    if not pack or not source.recorded or pack.get("path") in source.pack_paths:
        return None
    return (
        f"No recording of the GPU chosen in the sidebar holds {what}, so the recorded side drawn comes from "
        f"another machine: {machine_text(pack['machine'])}."
    )


def same_machine_intro(machine: Mapping[str, Any]) -> str:
    """'On the recording machine itself (AMD EPYC 9454, 48 threads)': before its own CPU-GPU comparison."""
    return f"On the recording machine itself ({cpu_text(machine)})"


# -- recorded rows of a view -------------------------------------------------------------------------------
@dataclass
class RecordedViews:
    """A pack's rows for each view of a page (a view: one set of settings swept over one setting)."""

    gpu: dict[str, list[dict]] = field(default_factory=dict)  # view -> the first GPU's rows
    cpu: dict[str, list[dict]] = field(default_factory=dict)  # view -> the recording machine's CPU rows
    missing: list[str] = field(default_factory=list)  # views the pack has no sweep for
    note: str | None = None  # the plain note of the last view missing
    holds_workload: bool = False  # whether the pack has any row of the workload
    # The recorded curves' machine as their legends and captions name it: 'NVIDIA H200, 2026-11-28', the day
    # its lines are drawn from (`day`), not every day of the machine's packs; the source's label when nothing
    # was found.
    machine: str | None = None
    # The one recording day the lines are drawn from (lib.lessons.common.one_day), None where the rows found
    # hold one day only; the other days' points are drawn apart (apart_points), never on a line.
    day: str | None = None

    def gpu_rows(self, view: str | None = None) -> list[dict]:
        return list(self.gpu.get(view, [])) if view is not None else [r for rows in self.gpu.values() for r in rows]

    def cpu_rows(self, view: str | None = None) -> list[dict]:
        return list(self.cpu.get(view, [])) if view is not None else [r for rows in self.cpu.values() for r in rows]

    def all_rows(self) -> list[dict]:
        return self.gpu_rows() + self.cpu_rows()


def first_device(rows: Sequence[dict]) -> list[dict]:
    """The rows of the first device among `rows` (a pack may hold several GPUs of one machine)."""
    return [r for r in rows if r["device"] == rows[0]["device"]] if rows else []


def recorded_views(
    pack: Mapping[str, Any] | None,
    label: str,
    workload: Workload,
    over: str,
    views: Mapping[str, Mapping[str, Any]],
    *,
    with_cpu: bool = False,
) -> RecordedViews:
    """For each view {name: settings}: the pack's GPU rows of the sweep over `over` through those
    settings (the first GPU only), and with_cpu the recording machine's own CPU rows of it."""
    found = RecordedViews(holds_workload=holds_workload(pack, workload))
    for name, params in views.items():
        rows, note = view_rows(pack, label, workload, over, params)
        if rows:
            found.gpu[name] = first_device(rows)
        elif note:
            found.missing.append(name)
            found.note = note
        if with_cpu and pack is not None:
            found.cpu[name] = [
                r
                for r in matching_rows(pack["rows"], workload, over, params, device_prefix="cpu")
                if r["device"] == "cpu"
            ]
    rows = found.all_rows()
    # one day for the page's recorded side: the GPU's (the machine's own CPU drawn on that day, or apart)
    held = held_days(points_of(found.gpu_rows() or rows))
    if pack is not None and held and len(days_of(points_of(rows))) > 1:
        found.day = line_day(held)
        found.machine = f"{hardware_text(pack['machine'])}, {found.day}"
    else:
        found.machine = rows_machine(rows, pack) if rows and pack is not None else label
    return found


# -- series ---------------------------------------------------------------------------------------------
def labelled(
    live: Iterable[dict],
    recorded_gpu: Iterable[dict] = (),
    recorded_cpu: Iterable[dict] = (),
    machine: str | None = None,
) -> list[dict]:
    """The rows on screen, each with its `series`: live ones, the recording machine's CPU, the recorded GPU."""
    rows = [{**r, "series": series_label(r["device"], "live")} for r in live]
    rows += [{**r, "series": series_label("cpu", "recorded", machine)} for r in recorded_cpu]
    return rows + [{**r, "series": series_label(r["device"], "recorded", machine)} for r in recorded_gpu]


def labelled_points(
    kind: type[Shown], live: Iterable[Point], found: RecordedViews, machine: str | None, view: str | None = None
) -> tuple[Shown, ...]:
    """labelled's points and order, typed: each live point and each of the view's recorded rows (typed here,
    where they come in) as `kind` (an InSeries) in its series, the recorded ones named by `machine`: of the
    line's day only (found.day; the other days' points are apart_points)."""
    return (
        *(kind(series_label(p.device, Origin.LIVE), p) for p in live),
        *(kind(series_label("cpu", Origin.RECORDED, machine), p) for p in _on_line(found.cpu_rows(view), found)),
        *(kind(series_label(p.device, Origin.RECORDED, machine), p) for p in _on_line(found.gpu_rows(view), found)),
    )


def _on_line(rows: list[dict], found: RecordedViews) -> tuple[Point, ...]:
    return on_day(points_of(rows), found.day).line


def apart_points(kind: type[Shown], found: RecordedViews, view: str | None = None) -> tuple[Shown, ...]:
    """The view's recorded points of another day than the lines' (found.day), each as `kind` in its own day's
    series ('cuda:0 (recorded on NVIDIA H200, 2026-11-21)'): drawn apart, never joined into a line, and read by
    no sentence about the line."""
    hardware = without_days(found.machine or "")
    return tuple(
        kind(series_label(p.device, Origin.RECORDED, f"{hardware}, {p.recorded_on}"), p)
        for rows in (found.cpu_rows(view), found.gpu_rows(view))
        for p in on_day(points_of(rows), found.day).apart
    )


def apart_note(found: RecordedViews, apart: Iterable[InSeries]) -> str | None:
    """Under the chart, what the hollow diamonds are (apart_points), None where none is drawn."""
    days = sorted({p.point.recorded_on for p in apart if p.ok and p.point.recorded_on})
    if not days or not found.day:
        return None
    return (
        f"Hollow diamonds: points of the {without_days(found.machine or '')} recorded on {and_list(days)}, "
        f"{'another day' if len(days) == 1 else 'other days'} than its lines' ({found.day}): drawn apart, never "
        "joined into a line, and not read by the sentences here."
    )


def gpu_series(rows: Iterable[dict]) -> str | None:
    """The series of the first GPU row on screen, or None."""
    return next((r["series"] for r in rows if r["device"] != "cpu"), None)


def series_order(rows: Sequence[dict], machine: str | None) -> list[str]:
    """The series on screen in the order the pages draw and explain them: the live CPU, the recording
    machine's CPU (when shown), the GPU (when there is one)."""
    recorded_cpu = series_label("cpu", "recorded", machine)
    gpu = gpu_series(rows)
    return (
        [LIVE_CPU] + ([recorded_cpu] if any(r["series"] == recorded_cpu for r in rows) else []) + ([gpu] if gpu else [])
    )


class Shaded(NamedTuple):
    """A crossover as a chart shades it (lib.charts.provenance.curve_chart's `crossover`): the range outside
    which one side surely leads, and the likeliest value in it; any of them None."""

    low: float | None
    high: float | None
    likely: float | None


def shaded(found: Crossover) -> Shaded | None:
    """The crossover's shaded range, None where no side surely leads anywhere."""
    return Shaded(*found.sure, found.x) if found.sure else None


def crossing_x(analysis: SweepAnalysis | None) -> float | None:
    """Where the measured curves cross (for the chart's rule), or None when they do not, or where the
    sentence names no value there (a bracket too wide: lib.core.fmt.crossing_about)."""
    if analysis is None or analysis.measured.kind != CrossKind.CROSSES:
        return None
    return analysis.measured.x if crossing_label(analysis) is not None else None


def crossing_label(analysis: SweepAnalysis | None) -> str | None:
    """The rule's label, with the sentence's own digits (voice.likely_about): 'crossover ≈ 700'."""
    if analysis is None or analysis.measured.kind != CrossKind.CROSSES:
        return None
    about = likely_about(analysis.measured)
    return f"crossover ≈ {about}" if about is not None else None


def repeats_span(rows: Iterable[dict]) -> str | None:
    """The timed repeats behind the measured rows: '5', or '3–11' when they differ; None when none was."""
    return _span([int(r["repeats"]) for r in rows if is_ok(r)])


def points_repeats_span(points: Iterable[Point]) -> str | None:
    """The timed repeats behind the measured points, in repeats_span's words."""
    return _span([int(p.repeats) for p in points if p.ok])


def _span(repeats: list[int]) -> str | None:
    if not repeats:
        return None
    lo, hi = min(repeats), max(repeats)
    return fmt_value(lo) if lo == hi else f"{fmt_value(lo)}–{fmt_value(hi)}"


# -- the points not measured ------------------------------------------------------------------------------
def status_words(row: Mapping[str, Any]) -> str:
    """'not run — needs about 9 GB, …': a row's status in words, and its message."""
    status = str(row.get("status"))
    message = row.get("message")
    return STATUS_WORDS.get(status, status) + (f" — {message}" if message else "")


def needs_note(row: Mapping[str, Any], *, remarks: bool = True) -> bool:
    """A row not measured; with `remarks`, also a measured one that carries a message (noisy, timed once)."""
    return not is_ok(row) or (remarks and bool(row.get("message")))


def notes_title(count: int, *, remarks: bool = True) -> str:
    return f"Notes on {plural(count, 'point')}" if remarks else f"Points not measured ({fmt_value(count)})"


def point_notes(rows: Iterable[dict], describe: Callable[[dict], str], *, remarks: bool = True) -> list[str]:
    """One line per row that needs a note: where it is (`describe`), then its status and message."""
    return [f"{describe(r)}: {status_words(r)}" for r in rows if needs_note(r, remarks=remarks)]


def cli_value(value: Any) -> str:
    """A setting's value as the command line takes it: true / false / 64 / linear."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
