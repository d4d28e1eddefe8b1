"""The Data pipeline page's view and what it shows: the feeds it measures, the recorded side, the rows on screen and the words read from them (sentences of one point are lib.lessons.data_pipeline.view). No Streamlit."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from lib.core.devices import is_cuda
from lib.core.fmt import fmt_ratio, fmt_s, fmt_value, pct, plural
from lib.core.point import Point
from lib.core.request import LiveRequest
from lib.core.rows import Origin
from lib.core.same import Sameness, rows_sameness
from lib.core.workload import SettingValue
from lib.lessons.common import onscreen
from lib.lessons.common.in_series import InSeries
from lib.lessons.common.live import LiveBudget, log_grid
from lib.lessons.common.results_shown import ResultsShown
from lib.lessons.data_pipeline.view import (
    AXES,
    DEFAULT_OVER,
    DEFAULTS,
    MODELS,
    MOSTLY,
    NOT_ON_PAGE,
    POINTS,
    SOURCES,
    WORKERS,
    WORKLOAD,
    FeedSettings,
    PhaseBar,
    Settings,
    ceiling_sentence,
    device_sentence,
    live_points,
    loading_share,
    phase_note,
    sweep_summary,
)
from lib.recorded.recording import Recording
from lib.recorded.sources import GpuSource, RecordedSweep, machine_text, matching_points, recorded_sweeps, series_label


def axis_label(key: str) -> str:
    return AXES[key].label


def feed_title(feed: str) -> str:
    """A feed's chart title: 'DataLoader over images', 'Tensors already on the device'."""
    words = SOURCES[feed]
    return words[0].upper() + words[1:]


@dataclass(frozen=True)
class View:
    """The page's settings, `over` the one swept."""

    settings: Settings
    over: str
    gpu_live: bool  # both devices are timed live here

    @property
    def current(self) -> Any:
        return self.settings.value(self.over)

    @property
    def at(self) -> str:
        """'batch size = 64': the point explained."""
        return f"{axis_label(self.over)} = {fmt_value(self.current)}"

    @property
    def grid(self) -> list[Any]:
        """The live points: a few spread over the axis, always with the slider's value."""
        return log_grid(AXES[self.over].steps, n=POINTS, include=[self.current])

    def feed_settings(self, feed: str, *, recorded: bool = False) -> Settings:
        """A feed's settings. Pinned memory changes nothing without a GPU to copy to, so the live CPU is measured
        without it, while a recording (a GPU machine copied to its GPU) keeps what the page's switch sets: the
        switch drew the unpinned recording whatever it said. Tensors never go through the DataLoader, so workers
        and pinning do not apply."""
        if feed == "tensors":
            return replace(self.settings, num_workers=0, pin_memory=False)
        return self.settings if self.gpu_live or recorded else replace(self.settings, pin_memory=False)

    def feeds(self, *, recorded: bool = False) -> tuple[FeedSettings, ...]:
        """Each feed's settings, measured live (or in a recording)."""
        return tuple(FeedSettings(feed, self.feed_settings(feed, recorded=recorded)) for feed in SOURCES)


def settings_words(settings: Settings, skip: Iterable[str] = ()) -> str:
    """'Linear 784→10 (seed 001), dataset size 256, 2 workers, pinned memory off' (those not in `skip`)."""
    words = [MODELS.get(settings.model, str(settings.model))] if "model" not in skip else []
    words += [f"{axis_label(k)} {fmt_value(settings.value(k))}" for k in AXES if k not in skip]
    if "num_workers" not in skip:
        words.append(plural(settings.num_workers, "worker"))
    if "pin_memory" not in skip:
        words.append(f"pinned memory {fmt_value(bool(settings.pin_memory))}")
    return ", ".join(words)


def live_request(view: View, devices: Sequence[str], budget: LiveBudget) -> LiveRequest:
    """The page's live measurement, which is also its cache key (the total budget with the rest)."""
    return LiveRequest.of(
        live_points, view.over, view.grid, view.feeds(), list(devices), current=view.current, budget=budget
    )


def default_requests(
    devices: Sequence[str], *, point_budget_s: float, total_budget_s: float | None, threads: int
) -> list[tuple[str, LiveRequest]]:
    """What the page measures at its defaults (DEFAULTS, swept over DEFAULT_OVER), with its label: the server's
    warm-up measures it before a visitor asks (ui.prefetch)."""
    view = View(DEFAULTS, DEFAULT_OVER, gpu_live=len(devices) > 1)
    return [
        (measure_label(view, devices), live_request(view, devices, LiveBudget(point_budget_s, total_budget_s, threads)))
    ]


def measure_label(view: View, devices: Sequence[str]) -> str:
    """What is being measured, for the progress bar and for visitors who wait for it."""
    return f"data pipeline over {axis_label(view.over)} on {', '.join(devices)}; " + settings_words(
        view.feed_settings("images"), skip=(view.over,)
    )


@dataclass(frozen=True)
class FeedPoints:
    """The recorded points per feed ('images', 'tensors'), and the recording each feed's points came from. The
    two feeds may come from two packs of the same machine (a grid over images recorded on another day than the
    tensors), so each feed's curves carry their own pack's machine and date."""

    points: Mapping[str, tuple[Point, ...]]
    recordings: Mapping[str, Recording | None]

    @classmethod
    def empty(cls) -> FeedPoints:
        return cls({feed: () for feed in SOURCES}, {feed: None for feed in SOURCES})

    def __getitem__(self, feed: str) -> tuple[Point, ...]:
        return self.points[feed]

    @property
    def any(self) -> bool:
        """Whether any feed has recorded points."""
        return any(self.points.values())


def find_recorded(
    recordings: Sequence[Recording], preferred: Iterable[str], view: View
) -> tuple[Recording | None, FeedPoints]:
    """The recorded side of this view, and its points per feed (each recording's matching points): the CPU
    and the first GPU of one machine. The sidebar's machine first, feed by feed over its packs (the first pack holding GPU points of that feed:
    the images grid of one day and the tensors sweep of another both count); where none of its packs holds
    the view, the first other pack that does (one pack). The recording returned is the images feed's, else the
    tensors'. Nothing when the GPU is live."""
    if view.gpu_live:
        return None, FeedPoints.empty()
    preferred = set(preferred)
    wanted = {fed.feed: fed.workload_settings() for fed in view.feeds(recorded=True)}

    def match(recording: Recording, feed: str) -> list[Point]:
        return matching_points(recording.points, WORKLOAD, view.over, wanted[feed], device_prefix="c")

    def has_gpu(points: Iterable[Point]) -> bool:
        return any(is_cuda(p.device) for p in points)

    mine = {
        feed: next(
            ((r, found) for r in recordings if r.path in preferred for found in [match(r, feed)] if has_gpu(found)),
            (None, []),
        )
        for feed in SOURCES
    }
    if not any(recording for recording, _ in mine.values()):
        other = next(
            (
                (r, found)
                for r in recordings
                if r.path not in preferred
                for found in [{feed: match(r, feed) for feed in SOURCES}]
                if any(has_gpu(points) for points in found.values())
            ),
            None,
        )
        if other is None:
            return None, FeedPoints.empty()
        mine = {feed: (other[0], points) for feed, points in other[1].items()}
    found = FeedPoints(
        {feed: cpu_and_first_gpu(points) for feed, (_, points) in mine.items()},
        {feed: recording for feed, (recording, _) in mine.items()},
    )
    return found.recordings["images"] or found.recordings["tensors"], found


def cpu_and_first_gpu(points: Sequence[Point]) -> tuple[Point, ...]:
    gpus = sorted({p.device for p in points if is_cuda(p.device)})
    return tuple(p for p in points if p.device == "cpu" or (gpus and p.device == gpus[0]))


def elsewhere_sentence(source: GpuSource, recording: Recording | None) -> str | None:
    """When the recorded side comes from another machine than the one chosen in the sidebar, saying so."""
    return onscreen.elsewhere_sentence(source, recording and recording.pack, "this view of the data pipeline")


def has_recorded_sweeps(recordings: Iterable[Recording]) -> bool:
    """Whether any recording holds a data-pipeline sweep (a seeds pack's single points do not count)."""
    return any(p.workload == WORKLOAD.name and p.swept for r in recordings for p in r.points)


def _same_value(a: Any, b: Any) -> bool:
    """Two values of the swept setting: equal as numbers (to rounding), else as they are."""
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9)
    except (TypeError, ValueError):
        return a == b


@dataclass
class Screen:
    """The points on screen per feed ('images', 'tensors'), each under its series."""

    view: View
    shown: dict[str, tuple[InSeries, ...]]  # the chart's points per feed
    recording: Recording | None  # the recorded pack shown, if any
    recorded: FeedPoints  # its points per feed, unlabelled (for downloads)

    def rows(self, feed: str | None = None) -> list[dict[str, Any]]:
        """The points on screen, of one feed or of every feed, as rows under their series: the edge of the sweep
        chart (Altair's data) and of the point notes."""
        return [s.row() for fed in ([feed] if feed else SOURCES) for s in self.shown[fed]]

    @property
    def missing(self) -> list[str]:
        """The feeds with no recorded GPU side (none when the GPU is live here)."""
        return [] if self.view.gpu_live else [feed for feed in SOURCES if not self.recorded[feed]]

    def results(self, live: Sequence[Point]) -> ResultsShown:
        """Every point on screen (the table), the live points and the recorded ones as their pack holds them,
        unlabelled (the downloads)."""
        recorded = tuple(p for feed in SOURCES for p in self.recorded[feed])
        machine = self.recording.machine if self.recording else None
        return ResultsShown(tuple(s for feed in SOURCES for s in self.shown[feed]), tuple(live), recorded, machine)

    def here(self, feed: str) -> list[InSeries]:
        """The feed's points at the point explained."""
        over, current = self.view.over, self.view.current
        return [
            s for s in self.shown[feed] if over in s.point.settings and _same_value(s.point.settings[over], current)
        ]

    def at_point(self, feed: str, series: str = onscreen.LIVE_CPU) -> Point | None:
        return next((s.point for s in self.here(feed) if s.series == series), None)

    def pair(self, feed: str) -> tuple[InSeries | None, InSeries | None]:
        """CPU and GPU points of ONE machine at the point explained (the same host CPU feeds both devices):
        both live on a GPU server, else both recorded."""
        here = [s for s in self.here(feed) if self.view.gpu_live or "recorded" in s.series]
        return (
            next((s for s in here if s.point.device == "cpu"), None),
            next((s for s in here if s.point.device != "cpu"), None),
        )


def _shown(live: Iterable[Point], recorded: Iterable[Point], machine: str | None) -> tuple[InSeries, ...]:
    """The points on screen, each under its series: the live ones, then the recording machine's."""
    return (
        *(InSeries(series_label(p.device, Origin.LIVE), p) for p in live),
        *(InSeries(series_label(p.device, Origin.RECORDED, machine), p) for p in recorded),
    )


def screen(view: View, live: Sequence[Point], recording: Recording | None, recorded: FeedPoints) -> Screen:
    """The screen of a view: the live points (the measurement's) and the recorded ones (the recordings')."""
    machine = machine_text(recording.machine) if recording else None
    mine = recorded.recordings  # each feed labelled with its own pack's machine and date
    shown = {
        feed: _shown(
            [p for p in live if p.settings.get("source") == feed],
            recorded[feed],
            machine_text(mine[feed].machine) if mine.get(feed) else machine,
        )
        for feed in SOURCES
    }
    return Screen(view, shown, recording, recorded)


class DeviceWords(NamedTuple):
    sentences: list[str]  # per feed, does the device matter at the point explained
    compared: bool  # whether a sentence compared two devices (the one rule's caption goes under them)


def device_words(on: Screen) -> DeviceWords:
    """Per feed, does the device matter at the point explained: from both devices of one machine, else
    what any device could save of the live CPU's epoch."""
    out, compared = [], False
    for feed, words in SOURCES.items():
        cpu, gpu = on.pair(feed)
        sentence = device_sentence(
            cpu.point if cpu else None,
            gpu.point if gpu else None,
            cpu.series if cpu else "",
            gpu.series if gpu else "",
            words,
        )
        compared = compared or sentence is not None
        point = on.at_point(feed)
        sentence = sentence or ceiling_sentence(point, onscreen.LIVE_CPU, words)
        if not sentence:
            why = (
                point.message or onscreen.STATUS_WORDS.get(point.status.value, point.status.value)
                if point
                else "nothing was measured there"
            )
            sentence = f"With the {words}, the CPU was not measured at {on.view.at}: {why}."
        out.append(sentence)
    return DeviceWords(out, compared)


def feed_sentence(on: Screen) -> str | None:
    """On the live CPU: an epoch over images against one over tensors, same model, same numbers."""
    images, tensors = on.at_point("images"), on.at_point("tensors")
    if not (images and images.ok and tensors and tensors.ok):
        return None
    a, b, who = images.median_s, tensors.median_s, onscreen.LIVE_CPU
    if a >= b:
        return (
            f"On **{who}**, an epoch over images takes {fmt_ratio(a / b)} as long as one over tensors "
            f"already in memory ({fmt_s(a)} against {fmt_s(b)}): same model, same numbers, only the feed differs."
        )
    return (
        f"On **{who}**, an epoch over images ({fmt_s(a)}) is no slower than one over tensors ({fmt_s(b)}) at "
        "these settings."
    )


def machines_sentence(on: Screen) -> str | None:
    """This server's CPU against the recording machine's, over images; and whether loading paces the GPU there."""
    if not on.recording or on.view.gpu_live:
        return None
    here, (cpu_shown, gpu_shown) = on.at_point("images"), on.pair("images")
    cpu, gpu = cpu_shown.point if cpu_shown else None, gpu_shown.point if gpu_shown else None
    if not (here and here.ok and cpu and cpu.ok):
        return None
    ratio = here.median_s / cpu.median_s
    sameness = rows_sameness(here.to_row(), cpu.to_row())  # the one rule (lib.core.same)
    how = (
        "the same within the spread"
        if sameness is Sameness.SAME
        else "too noisy to compare"
        if sameness is Sameness.TOO_NOISY
        else f"{fmt_ratio(ratio)} as long"
        if ratio >= 1
        else f"{fmt_ratio(1 / ratio)} as fast"
    )
    share = loading_share(gpu)
    paced = (
        f" Loading is {pct(share)} of the timed phases on the recorded GPU too: with images, the CPU that "
        "decodes them sets the GPU's pace." + _loading_fix(int(gpu.settings.get("num_workers") or 0))
        if share is not None and share >= MOSTLY
        else ""
    )
    return (
        f"This server's CPU takes {fmt_s(here.median_s)} for the same epoch over images that the recording "
        f"machine's CPU took {fmt_s(cpu.median_s)} for ({how}).{paced}"
    )


def _loading_fix(workers: int) -> str:
    """The one change that moves a GPU paced by its loading (its DataLoader's `workers`), never one already on."""
    if not workers:
        return (
            " What would move it: DataLoader workers (num_workers above 0), which decode the next batches "
            "while the GPU trains on this one."
        )
    return (
        " What would move it: decode once and keep the images as tensors in memory (the tensors curve), "
        f"since {plural(workers, 'worker')} already decode in parallel."
    )


def summaries(on: Screen) -> list[str]:
    """Per feed, across the points on screen: where the two devices of one machine count as the same (lib.core.same)."""
    out = []
    for feed, words in SOURCES.items():
        cpu, gpu = on.pair(feed)
        if cpu and gpu:
            points = [s.point for s in on.shown[feed] if s.series in (cpu.series, gpu.series)]
            text = sweep_summary(
                points, on.view.over, axis_label(on.view.over), words, cpu.point.device, gpu.point.device
            )
            if text:
                out.append(text)
    return out


def missing_note(on: Screen, recordings: Sequence[Recording]) -> str | None:
    """Why part of the view shows only the live CPU: no recorded sweeps at all, or none for these settings."""
    if on.view.gpu_live:
        return None
    if not has_recorded_sweeps(recordings):
        return (
            "No GPU on this server and no recorded data-pipeline results shipped, so only the live CPU is "
            "shown. What the CPU's own numbers already say: the loading part of an epoch is a floor that "
            "no faster device can lower."
        )
    missing = on.missing
    if not missing:
        return None
    settings, over = on.view.settings, on.view.over
    skip = (over,) if "images" in missing else (over, "num_workers", "pin_memory")
    what = " or ".join(f"the {SOURCES[feed]}" for feed in missing)
    part = "that part" if len(missing) < len(SOURCES) else "this view"
    live = any(s.series == onscreen.LIVE_CPU for feed in missing for s in on.shown[feed])
    shows = f"{part} shows only the live CPU" if live else f"nothing is drawn for {part}"  # none live: workers > cores
    return (
        f"The recorded packs have no sweep over {axis_label(over)} for {what} with these settings "
        f"({settings_words(settings, skip=skip)}), so {shows}."
    )


def showable(sweep: RecordedSweep) -> bool:
    """Whether the page's widgets can show a recorded sweep (an images sweep at settings they offer)."""
    p = sweep.params
    return (
        sweep.over in AXES
        and p.get("source") == "images"
        and p.get("model") in MODELS
        and p.get("num_workers") in WORKERS
        and all(p.get(k) in AXES[k].steps for k in AXES)
        and all(p.get(k) == WORKLOAD.setting(k).default for k in NOT_ON_PAGE)
    )


class Offer(NamedTuple):
    """A button for a recorded sweep the page can show instead: its words, and the widgets' values by their URL
    keys (url_values)."""

    label: str
    values: dict[str, SettingValue]  # by URL key


def recorded_offers(recordings: Iterable[Recording], view: View) -> list[Offer]:
    """Buttons for recorded sweeps the page can show instead. The slider of the swept setting keeps its value;
    the view on screen is not offered."""
    seen = [(view.over, view.settings)]
    offers: list[Offer] = []
    for recording in recordings:
        for sweep in filter(showable, recorded_sweeps(recording.points, WORKLOAD)):
            p, over = sweep.params, sweep.over
            settings = Settings(
                model=p["model"],
                num_workers=p["num_workers"],
                pin_memory=p["pin_memory"],
                **{k: view.settings.value(k) if k == over else p[k] for k in AXES},
            )
            if (over, settings) not in seen:
                seen.append((over, settings))
                text = settings_words(settings, skip=(over, "model", "num_workers", "pin_memory"))
                offers.append(
                    Offer(
                        f"Show the sweep over {axis_label(over)} ({text}; {MODELS[settings.model]}; "
                        f"{plural(settings.num_workers, 'worker')}; pinned memory "
                        f"{fmt_value(bool(settings.pin_memory))})",
                        url_values(over, settings),
                    )
                )
    return offers


def url_values(over: str, settings: Settings) -> dict[str, SettingValue]:
    """The widgets' values of a view, by their URL keys."""
    return {
        "over": over,
        "model": settings.model,
        "num_workers": settings.num_workers,
        "pin_memory": settings.pin_memory,
        **{k: settings.value(k) for k in AXES},
    }


def phase_bars(on: Screen) -> list[PhaseBar]:
    """The phase chart's bars at the point explained: each timed row with phases, its series prefixed by its feed."""
    return [
        PhaseBar(f"{feed} · {s.series}", s.point)
        for feed in SOURCES
        for s in on.here(feed)
        if s.point.ok and s.point.phases.get("loading") is not None
    ]


def phase_notes(bars: Iterable[PhaseBar]) -> list[str]:
    return [n for n in (phase_note(b.point, b.series) for b in bars) if n]


def point_where(over: str) -> Callable[[Mapping[str, Any]], str]:
    """Where a point sits, for its note: 'cpu (live, this server), DataLoader over images, batch size 8'."""

    def where(row: Mapping[str, Any]) -> str:
        feed = SOURCES.get(str(row.get("source")), str(row.get("source")))
        return f"{row['series']}, {feed}, {axis_label(over)} {fmt_value(row.get(over))}"

    return where


def record_commands(view: View) -> list[str]:
    """The CLI sweeps that record this view on a GPU machine, one per feed, the CPU and the GPU each."""
    out = []
    values = ",".join(str(v) for v in AXES[view.over].steps)
    for fed in view.feeds(recorded=True):  # a GPU machine records the pinned memory the switch sets
        fixed = fed.workload_settings(skip=view.over)
        sets = " ".join(f"--set {k}={onscreen.cli_value(v)}" for k, v in fixed.items())
        out.append(
            f"python -m lib sweep dataloader --over {view.over}={values} {sets} --devices cpu,cuda "
            f"--out lib/recorded/dataloader_{fed.feed}_{view.over}.json"
        )
    return out
