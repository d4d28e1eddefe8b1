"""Seed case studies on screen: one case's table beside the seed, its sentences and its loss curves, computed from the rows and curves found for it (lib.lessons.seed_cases.view). No Streamlit."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lib.core import noise
from lib.core.fmt import age_words, fmt_num, fmt_s, fmt_times, fmt_value, plural
from lib.core.point import Frozen, Point
from lib.core.request import LiveRequest
from lib.core.rows import Origin, Status
from lib.core.same import Sameness, sameness
from lib.lessons.common import onscreen
from lib.lessons.common.in_series import InSeries
from lib.lessons.common.results_shown import ResultsShown
from lib.lessons.seed_cases.curves import Curve, LossPoint, curve_setting, find_curves
from lib.lessons.seed_cases.view import (
    CASES,
    SEED_HARDWARE,
    SEED_SOURCE,
    Measured,
    SizeChange,
    agreement,
    compare_sentence,
    direction,
    label,
    live_params,
    measure_live,
    pick,
    ratio_words,
    same_settings,
    size_differences,
    size_words,
    total_s,
)
from lib.recorded.recording import Recording
from lib.recorded.sources import hardware_text, machine_text, series_label
from lib.workloads.presets import Preset, get_preset


def seed_line(preset: Preset) -> str:
    """'**Seed 000** (run on …): what the seed ran.'"""
    hardware = SEED_HARDWARE.get(preset.seed)
    return (
        f"**Seed {preset.seed}** ({'run on ' + hardware if hardware else 'hardware not stated in the seed'}): "
        f"{preset.description}."
    )


def live_request(preset: Preset, devices: Sequence[str], *, threads: int, budget_s: float) -> LiveRequest:
    """The page's live measurement of a case, which is also its cache key."""
    return LiveRequest.of(measure_live, preset, list(devices), budget_s=budget_s, num_threads=threads)


def measure_label(preset: Preset, devices: Sequence[str]) -> str:
    return f"seed case {label(preset.name)} on {', '.join(devices)}"


def default_requests(devices: Sequence[str], *, threads: int, budget_s: float) -> list[tuple[str, LiveRequest]]:
    """What the page measures at its default (the first case), with its label: the server's warm-up
    measures it before a visitor asks (ui.prefetch)."""
    preset = get_preset(CASES[0])
    return [(measure_label(preset, devices), live_request(preset, devices, threads=threads, budget_s=budget_s))]


def record_command(preset: Preset) -> str:
    """The seed script's command that records this case (and its loss curves) on a GPU machine."""
    slow = " --include-slow" if preset.slow else ""
    return f"python3 {SEED_SOURCE} --only {preset.name}{slow} --curves --out lib/recorded/seeds_{preset.name}.json"


def _status(point: Point | None) -> str:
    return onscreen.STATUS_WORDS.get(point.status.value, point.status.value) if point else "–"


def _spread(point: Point) -> float:
    """How uncertain a point's time is (lib.core.crossover.spread's rule): its prediction band, else its IQR."""
    low, high = point.counts.median_s_low, point.counts.median_s_high
    if isinstance(low, (int, float)) and isinstance(high, (int, float)):
        return float(high) - float(low)
    return float(point.iqr_s or 0.0)


@dataclass
class Case:
    """One experiment: the preset, what was measured live here (and when: seconds since the epoch, None when
    not known), and the recording's points of it."""

    preset: Preset
    live: Measured
    recording: Recording | None
    recorded: Sequence[Point]
    measured_at: float | None = None

    @property
    def pack(self) -> Mapping[str, Any] | None:
        """The recording as its pack, for the edges that read one (the downloads, the other machine's sentence)."""
        return self.recording.pack if self.recording else None

    @property
    def machine(self) -> str | None:
        return machine_text(self.recording.machine) if self.recording else None

    @property
    def live_cpu(self) -> Point | None:
        return pick(self.live.points, gpu=False)

    @property
    def live_gpu(self) -> Point | None:
        return pick(self.live.points, gpu=True)

    @property
    def rec_cpu(self) -> Point | None:
        return pick(self.recorded, gpu=False)

    @property
    def rec_gpu(self) -> Point | None:
        return pick(self.recorded, gpu=True)

    @property
    def cut(self) -> dict[str, SizeChange]:
        """Where the live run's sizes differ from the seed's."""
        return size_differences(live_params(self.preset), self.preset)

    @property
    def rec_cut(self) -> dict[str, SizeChange]:
        """Where the recorded points' sizes differ from the seed's."""
        if not self.recording:
            return {}
        source = self.rec_cpu or self.rec_gpu
        settings = source.settings if source else Frozen()
        return size_differences({k: settings.get(k) for k in live_params(self.preset)}, self.preset)

    @property
    def covers(self) -> str:
        """What the seed's reported times cover: '10 000 epochs in total', or its number of calls."""
        p = self.preset
        return (
            p.reported_what
            if p.reported_cpu_s or p.reported_gpu_s
            else f"the seed's {plural(p.reported_calls, 'call')}"
        )

    @property
    def live_total(self) -> float | None:
        """The live CPU's time for what the seed's times cover (at the seed's sizes only)."""
        return total_s(self.live_cpu, self.preset) if not self.cut else None

    @property
    def rec_ratio(self) -> float | None:
        c, g = total_s(self.rec_cpu, self.preset), total_s(self.rec_gpu, self.preset)
        return g / c if c and g else None

    @property
    def rec_tie(self) -> Sameness | None:
        """Whether the recorded CPU and GPU times are the same by the one rule, each with its spread, too noisy
        to tell, or apart."""
        cpu, gpu = self.rec_cpu, self.rec_gpu
        if not (cpu and gpu and cpu.ok and gpu.ok):
            return None
        return sameness(cpu.median_s, gpu.median_s, _spread(cpu), _spread(gpu))

    def shown(self) -> tuple[InSeries, ...]:
        """Every point on screen in its series: the live ones, then the recording's."""
        return (
            *(InSeries(series_label(p.device, Origin.LIVE), p) for p in self.live.points),
            *(InSeries(series_label(p.device, Origin.RECORDED, self.machine), p) for p in self.recorded_points),
        )

    @property
    def recorded_points(self) -> Sequence[Point]:
        """The recording's points of this case (none without a recording)."""
        return self.recorded if self.recording else ()

    def results(self) -> ResultsShown:
        """Every point on screen (the table), the live points and the recording's (the downloads)."""
        machine = self.recording.machine if self.recording else None
        return ResultsShown(self.shown(), tuple(self.live.points), tuple(self.recorded_points), machine)


@dataclass(frozen=True)
class TableLine:
    """One line of the table 'reported in the seed, measured here', each cell in words."""

    where: str
    cpu: str
    gpu: str
    ratio: str  # GPU ÷ CPU
    covers: str

    def row(self) -> dict[str, str]:
        """The table's row under its column headings (the screen's edge)."""
        return {"where": self.where, "CPU": self.cpu, "GPU": self.gpu, "GPU ÷ CPU": self.ratio, "covers": self.covers}


@dataclass(frozen=True)
class Timed:
    """One side of a ratio bar: its point's time per call, spread (band, else IQR), timed repeats, and origin."""

    seconds: float
    spread_s: float
    repeats: int
    origin: Origin

    @classmethod
    def of(cls, point: Point, origin: Origin) -> Timed:
        return cls(float(point.median_s), _spread(point), int(point.repeats), origin)

    @property
    def believed(self) -> bool:
        """A live time carries a bar only when the noise rule believes it; a recorded one is the pack's."""
        return self.origin != Origin.LIVE or noise.believed(self.seconds, self.spread_s, self.repeats)


@dataclass(frozen=True)
class RatioBar:
    """One bar of the ratio chart: GPU time ÷ CPU time of one comparison, with the two times it divides
    (None for the seed's printed ratio, which has no spread)."""

    comparison: str
    ratio: float
    gpu: Timed | None = None
    cpu: Timed | None = None

    @property
    def believed(self) -> bool:
        return all(side.believed for side in (self.gpu, self.cpu) if side)

    def row(self) -> dict[str, object]:
        """The chart's row (lib.charts.ratio_chart): each side's time, spread, repeats and origin beside the ratio."""
        row: dict[str, object] = {"comparison": self.comparison, "ratio": self.ratio}
        for name, side in (("gpu", self.gpu), ("cpu", self.cpu)):
            if side:
                row |= {
                    f"{name}_s": side.seconds,
                    f"{name}_spread_s": side.spread_s,
                    f"{name}_repeats": side.repeats,
                    f"{name}_origin": side.origin.value,
                }
        return row


def reported_entry(case: Case) -> tuple[TableLine, RatioBar | None]:
    """The table's line for what the seed reported, and its ratio bar (None when it reported no ratio)."""
    p, hardware = case.preset, SEED_HARDWARE.get(case.preset.seed)
    if not (p.reported_cpu_s or p.reported_gpu_s):
        return TableLine(f"reported in seed {p.seed}", "–", "–", "–", "the seed printed no times"), None
    line = TableLine(
        f"reported in seed {p.seed}" + (f" ({hardware})" if hardware else ""),
        fmt_s(p.reported_cpu_s),
        fmt_s(p.reported_gpu_s),
        fmt_times(p.reported_ratio) if p.reported_ratio else "–",
        case.covers,
    )
    bar = RatioBar(f"reported in seed {p.seed}", p.reported_ratio) if p.reported_ratio else None
    return line, bar


def recorded_entry(case: Case) -> tuple[TableLine | None, RatioBar | None]:
    """The table's line for the recorded pack (None without one), and its ratio bar."""
    if not case.recording:
        return None, None
    c, g, ratio = total_s(case.rec_cpu, case.preset), total_s(case.rec_gpu, case.preset), case.rec_ratio
    line = TableLine(
        f"recorded on {case.machine}" + (" (cut size)" if case.rec_cut else " (the seed's sizes)"),
        fmt_s(c) if c else _status(case.rec_cpu),
        fmt_s(g) if g else _status(case.rec_gpu),
        fmt_times(ratio) if ratio else "–",
        case.covers,
    )
    sides = (Timed.of(case.rec_gpu, Origin.RECORDED), Timed.of(case.rec_cpu, Origin.RECORDED)) if ratio else ()
    return line, (RatioBar(f"recorded on {case.machine}", ratio, *sides) if ratio else None)


def _cross_label(case: Case) -> str:
    return f"GPU recorded on {case.machine} ÷ CPU live here"


def _crosses(case: Case) -> bool:
    """Whether the recorded GPU may be set over this server's CPU: both at the seed's sizes, the GPU measured."""
    rec_gpu = case.rec_gpu
    return bool(rec_gpu and rec_gpu.ok and not case.cut and not case.rec_cut)


def live_bar(case: Case) -> RatioBar | None:
    """The ratio of a live CPU point, before the noise rule: both devices live, else the recorded GPU over
    this CPU when both ran the seed's sizes (None: no live CPU time, or nothing to set it beside)."""
    cpu, gpu = case.live_cpu, case.live_gpu
    if not (cpu and cpu.ok):
        return None
    live_cpu = Timed.of(cpu, Origin.LIVE)
    if gpu and gpu.ok:
        label = "live on this server" + (" (cut size)" if case.cut else "")
        return RatioBar(label, gpu.median_s / cpu.median_s, Timed.of(gpu, Origin.LIVE), live_cpu)
    if _crosses(case):
        rec_gpu = Timed.of(case.rec_gpu, Origin.RECORDED)
        return RatioBar(_cross_label(case), rec_gpu.seconds / live_cpu.seconds, rec_gpu, live_cpu)
    return None


def _side_words(device: str, side: Timed, age: str) -> str:
    where = f"measured live here {age}" if side.origin == Origin.LIVE else "recorded"
    return (
        f"the {device}'s {fmt_s(side.seconds)} a call ({where}, median of {plural(side.repeats, 'timed repeat')}, "
        f"spread {fmt_s(side.spread_s)})"
    )


def doubt_words(device: str, side: Timed) -> str:
    """Why the noise rule does not believe a live time: too few repeats to judge it, or their spread too wide."""
    if side.repeats < noise.MIN_REPEATS:
        return f"this server's {device} was timed over {plural(side.repeats, 'timed repeat')} only"
    return f"the {plural(side.repeats, 'timed repeat')} of this server's {device} spread too wide"


def live_ratio_note(case: Case, now: float) -> str | None:
    """The sentence under the chart for its live bar: its ratio with both times, saying which is live and how
    long ago; or why it is withheld (the noise rule does not believe a live time, or none is measured yet)."""
    bar = live_bar(case)
    if bar is None:
        if not case.live.points and _crosses(case):
            return f"{_cross_label(case)}: not drawn, still measuring this server's CPU."
        return None
    if not bar.believed:
        doubted = "; ".join(
            doubt_words(device, side)
            for device, side in (("GPU", bar.gpu), ("CPU", bar.cpu))
            if side and not side.believed
        )
        return f"{bar.comparison}: not drawn, too noisy here to say ({doubted})."
    age = age_words(now - case.measured_at) if case.measured_at is not None else "for this view"
    return (
        f"{bar.comparison}: {fmt_times(bar.ratio)}, {_side_words('GPU', bar.gpu, age)} over "
        f"{_side_words('CPU', bar.cpu, age)}."
    )


def live_entry(case: Case) -> tuple[TableLine | None, RatioBar | None]:
    """The table's line for this server (None when its CPU was not timed), and its ratio bar when the noise
    rule believes its live times (live_bar)."""
    cpu, gpu, cut, total = case.live_cpu, case.live_gpu, case.cut, case.live_total
    if not (cpu and cpu.ok):
        return None, None
    per_call, gpu_ok = cpu.median_s, bool(gpu and gpu.ok)
    gpu_total = total_s(gpu, case.preset) if gpu_ok and not cut else None
    line = TableLine(
        "live on this server" + (f" ({size_words(cut)})" if cut else " (the seed's sizes)"),
        fmt_s(total) if total else f"{fmt_s(per_call)} per call",
        (fmt_s(gpu_total) if gpu_total else f"{fmt_s(gpu.median_s)} per call") if gpu_ok else "–",
        fmt_times(gpu.median_s / per_call) if gpu_ok else "–",
        case.covers if total else "one call, at the cut size",
    )
    bar = live_bar(case)
    return line, (bar if bar and bar.believed else None)


def comparison(case: Case) -> tuple[list[TableLine], list[RatioBar]]:
    """The table 'reported in the seed, measured here' and the ratio chart's bars."""
    entries = [reported_entry(case), recorded_entry(case), live_entry(case)]
    return [line for line, _ in entries if line], [bar for _, bar in entries if bar]


def verdict_sentences(case: Case, now: float | None = None) -> list[str]:
    """The seed's ratio beside the one measured, the cut size the recording ran at, and the live bar's
    sentence (live_ratio_note; `now`: the time its age is counted to, default the clock): numbers from the rows."""
    out = [
        compare_sentence(case.preset, case.rec_ratio, f"on {case.machine}", case.rec_tie)
        if case.recording
        else compare_sentence(case.preset, None, "here")
    ]
    if case.recording and case.rec_cut:
        out.append(
            f"The recorded rows ran at a cut size ({size_words(case.rec_cut)}), so their ratio is for that size."
        )
    live = live_ratio_note(case, time.time() if now is None else now)
    return [*out, live] if live else out


def headline(case: Case) -> str:
    """The one sentence above the chart: the GPU ÷ CPU ratios the chart draws, the seed's beside the
    recorded machine's, and whether they agree. The seed's times, the date and the cut size are
    verdict_sentences', said under the chart."""
    seed, measured = case.preset.reported_ratio, case.rec_ratio if case.recording else None
    name = f"**{label(case.preset.name)}:**"
    where = f"on {hardware_text(case.recording.machine)}" if case.recording else "here"
    if seed is None and measured is None:
        return f"{name} the seed printed no times for this run, and nothing was measured here on both devices."
    if seed is None:
        return f"{name} the seed printed no times; {where} {ratio_words(measured)}."
    if measured is None:
        return (
            f"{name} GPU time ÷ CPU time was {fmt_times(seed)} in the seed; nothing was measured here on both "
            "devices to set beside it."
        )
    way = direction(seed)
    if way == direction(measured) and way != "even":  # one verb for both: plain words
        took, as_ = ("took", "long") if way == "gpu_slower" else ("was", "fast")
        seed_x, measured_x = (seed, measured) if way == "gpu_slower" else (1 / seed, 1 / measured)
        return (
            f"{name} the GPU {took} {fmt_times(seed_x)} as {as_} as the CPU in the seed and {fmt_times(measured_x)} "
            f"as {as_} {where}: {agreement(seed, measured)}."
        )
    return (
        f"{name} GPU time ÷ CPU time was {fmt_times(seed)} in the seed, {fmt_times(measured)} {where}: "
        f"{agreement(seed, measured)}."
    )


def missing_note(case: Case) -> str | None:
    """Why there is no recorded GPU time to set beside the seed's: no pack holds the case, or its GPU row
    was not measured."""
    if not case.recording:
        return (
            "No recorded seeds pack holds this experiment's GPU row, so there is no GPU time measured here to "
            "set beside the seed's: only this server's CPU, live" + (" at a cut size." if case.cut else ".")
        )
    gpu = case.rec_gpu
    if gpu is not None and not gpu.ok:
        return (
            f"The recorded pack ({case.machine}) did not measure this experiment on the GPU: "
            f"{_status(gpu)} — {gpu.message or 'no message'}."
        )
    return None


def data_notes(case: Case) -> dict[str, str]:
    """What data the runs really used, when not what was asked: {note: where it was seen first}."""
    notes: dict[str, str] = {}
    for where, points in (("live", case.live.points), (f"recorded on {case.machine}", case.recorded)):
        for note in dict.fromkeys(p.notes.data_note for p in points if p.notes.data_note):
            notes.setdefault(note, where)
    return notes


@dataclass
class Curves:
    """The loss curves of one case: live here, and the recorded GPU's from a curves file."""

    params: Frozen  # the workload settings the curves were trained at
    epochs: int
    losses: dict[str, list[float]]  # series -> loss per epoch
    failures: list[str]  # a sentence per live curve that could not be trained
    differing: list[str]  # recorded series trained at other settings than the page's
    recorded: list[Curve]  # the recorded curves
    side_machine: str | None  # the machine of the curves file


def curves_view(case: Case, recordings: Sequence[Recording]) -> Curves | None:
    """The case's loss curves (None for one that trains nothing); the recorded ones from the curves file
    next to the case's pack first."""
    found = curve_setting(case.preset)
    if found is None:
        return None
    params, epochs = found
    losses, failures, differing = {}, [], []
    for device, curve in case.live.curves.items():
        name = series_label(device, "live")
        if curve.status == Status.OK:
            losses[name] = list(curve.losses)
        else:
            failures.append(f"{name}: no curve ({onscreen.status_words(curve.entry())}).")
    side, recorded = find_curves(  # a curves file is a pack's JSON with curves and no rows: read as it is
        [r.pack for r in recordings],
        case.preset.name,
        prefer_stem=Path(case.recording.path).stem if case.recording else None,
    )
    side_machine = machine_text(side["machine"]) if side else None
    for curve in recorded:
        name = series_label(curve.device, "recorded", side_machine)
        losses[name] = list(curve.losses)
        if not same_settings(curve.settings, params) or curve.epochs != epochs:
            differing.append(name)
    return Curves(params, epochs, losses, failures, differing, recorded, side_machine)


def loss_points(curves: Curves) -> list[LossPoint]:
    """The loss chart's points (and the loss curves' download): series, epoch, loss."""
    return [LossPoint(name, i + 1, v) for name, losses in curves.losses.items() for i, v in enumerate(losses)]


def epochs_sentence(curves: Curves, preset: Preset) -> str:
    cut = size_differences(curves.params, preset)
    return (
        plural(curves.epochs, "epoch")
        + (f" at a cut size ({size_words(cut)})" if cut else " at the seed's sizes")
        + f" (the seed trained {fmt_value(preset.epochs)}), from the seeded initial weights on every device."
    )


def minibatch_sentence(curves: Curves, preset: Preset) -> str | None:
    """Seed 000's MNIST minibatch CPU run never learned (its optimizer held the GPU model's parameters); here?"""
    if preset.name != "mnist_minibatch":
        return None
    cpu = next((c for n, c in curves.losses.items() if n.startswith("cpu")), None)
    if not cpu:
        return None
    learned = cpu[-1] < cpu[0] * 0.9
    return "Seed 000's CPU run stayed at a loss of 2.3036 from its first epoch to its last. " + (
        f"Here the CPU model has its own optimizer and learns: {fmt_num(cpu[0], 4)} → "
        f"{fmt_num(cpu[-1], 4)} in {plural(len(cpu), 'epoch')}."
        if learned
        else "Here the CPU curve did not fall by a tenth either; see the numbers above."
    )


def curve_data_notes(case: Case, curves: Curves, seen: Iterable[str]) -> list[str]:
    """Data notes of the curves not already said for the timed rows ('Data (live curve): …')."""
    seen, out = set(seen), []
    for where, entries in (
        ("live curve", case.live.curves.values()),
        (f"curve recorded on {curves.side_machine}", curves.recorded),
    ):
        for note in dict.fromkeys(c.data_note for c in entries if c.data_note):
            if note not in seen:
                out.append(f"Data ({where}): {note}")
    return out
