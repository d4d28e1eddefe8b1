"""What the Data pipeline page shows, as values: the page lays them out and declares its widgets. Each
'Why?' section's words are made when it is opened (its function called then).

    first = first_screen(view, live, recording, recorded)   the points on screen, the answer, the bars
    device_words(on), epoch_words(first), sweep_charts(on)   the 'Why?' sections
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from lib.core.point import Point
from lib.core.same import RULE_WORDS
from lib.lessons.common import onscreen
from lib.lessons.common.said import Said, Style
from lib.lessons.data_pipeline import screen as feeds
from lib.lessons.data_pipeline import view as lesson
from lib.lessons.data_pipeline.answer import pipeline_answer, pipeline_notes
from lib.recorded.recording import Recording
from lib.recorded.sources import GpuSource

WORKERS_SENTENCE = (
    "Helper processes (DataLoader workers) that decode images in parallel with training (0: the "
    "main process decodes every batch itself, between steps). Workers need free CPU cores; this "
    "server has few. Only the DataLoader over images uses them."
)
PIN_SENTENCE = (
    "Batches are copied into page-locked host memory (pinned memory) so the copy to the GPU can run in "
    "the background (non_blocking). It only changes copies to a GPU: on the CPU, and for tensors already "
    "on the device, there is no copy."
)
MODEL_HELP = (
    "Seed 001 trained a single linear layer; seed 000 a four-layer MLP. More compute per batch gives the "
    "device more to do."
)
NOT_LIVE = "from a pack recorded on a GPU machine (named in each legend), when one holds these settings"
SEEDS = (
    "Seed 001 trained a one-layer model on MNIST and found the CPU and the GPU equally fast: 14.5 s per epoch "
    "each. Seed 000 saw its MNIST minibatch run only 7% faster on the GPU. In both, every image went through "
    "the DataLoader one at a time (a PIL image, `ToTensor`, `Normalize`) on the CPU before either device saw "
    "it. Here, one epoch is timed two ways: fed by that **DataLoader over images**, and from the same numbers "
    "as **tensors already on the device**. Each epoch is split into **loading** (walking the batches and "
    "copying them to the device, without training) and **compute** (training on batches already there)."
)
COMPARED = (
    f"{RULE_WORDS} Both devices of that comparison come from one machine, because the images are decoded by "
    "the CPU that feeds the GPU."
)
PHASES_CAPTION = (
    "Loading walks the epoch's batches and copies them to the device without training; compute trains "
    "on the same number of batches already on the device. Each is timed on its own (median of repeats)."
)
RECORD_CAPTION = (
    "Both sweeps record the CPU and the GPU of that machine; the app then shows them beside the live "
    "CPU. scripts/record_packs.py records this page's default views (topic data_pipeline)."
)


PHASE_CHART = {
    "phases": lesson.PHASES,
    "x_title": "time of one epoch",
    "total": "median_s",
    "total_label": lesson.WHOLE_EPOCH,
}  # how the phase chart draws its bars (lib.charts.phase_chart)


def loading_captions(cores: int, workers: Sequence[int]) -> tuple[str, str]:
    """Under the DataLoader settings: what workers are (and which this server offers), what pinned memory is."""
    return WORKERS_SENTENCE + " " + lesson.workers_caption(cores, workers), PIN_SENTENCE


def not_live(cannot: str | None) -> str:
    """Where the GPU's numbers come from when not measured here (`cannot`: the sidebar's machine holds nothing)."""
    return onscreen.NONE_DRAWN if cannot else NOT_LIVE


def under_chart(
    first: FirstScreen, source: GpuSource, recordings: Sequence[Recording], too_many: str | None, cannot: str | None
) -> tuple[Said, ...]:
    """Under the chart, after where the numbers come from: another machine's pack drawn, too many workers
    for this server, the sidebar's machine holding nothing here or what no recording holds."""
    return (
        *Said.texts([feeds.elsewhere_sentence(source, first.on.recording)], Style.CAPTION),
        *Said.texts([too_many, cannot or feeds.missing_note(first.on, recordings)], Style.NOTICE),
    )


def slider_label(key: str, over: str) -> str:
    """A setting's slider label: the one swept on the x-axis says so."""
    label = lesson.AXES[key].label.capitalize()
    return label + (" — x-axis; the slider picks the point explained" if key == over else "")


def result_columns(over: str) -> tuple[str, ...]:
    return (
        "series",
        "recorded_on",
        "source",
        over,
        "median_s",
        "iqr_s",
        "phase_loading_s",
        "phase_compute_s",
        "batches_per_epoch",
        "num_workers",
        "pin_memory",
        "repeats",
        "num_threads",
        "status",
        "message",
    )


@dataclass(frozen=True, eq=False)
class FirstScreen:
    """The answer and where one epoch's time went at the point explained."""

    on: feeds.Screen  # the rows on screen per feed
    answer: str
    bar_rows: tuple[lesson.PhaseBar, ...]  # the phase chart's bars (none: no epoch split into loading and compute)
    no_bars: str  # why there are no bars
    notes: tuple[str, ...]  # captions under the chart: what the answer leaves out, where a bar runs past its tick

    @property
    def bars(self) -> pd.DataFrame:
        return pd.DataFrame([bar.chart_row() for bar in self.bar_rows])


def first_screen(
    view: feeds.View, live: Sequence[Point], recording: Recording | None, recorded: feeds.FeedPoints
) -> FirstScreen:
    on = feeds.screen(view, live, recording, recorded)
    bars = feeds.phase_bars(on)
    notes = (pipeline_notes(on), lesson.overlap_caption(bars) if bars else None)
    return FirstScreen(
        on,
        pipeline_answer(on),
        tuple(bars),
        f"No epoch was split into loading and compute at {view.at}, so there are no bars to draw; the "
        "notes below say why.",
        tuple(n for n in notes if n),
    )


def device_words(on: feeds.Screen) -> tuple[Said, ...]:
    """'Does the device matter at these settings?': per feed, its sentence; the rule's caption when two devices
    were compared; then what feeds the epoch, which machines, and each sweep's summary."""
    sentences, compared = feeds.device_words(on)
    return (
        Said.text(f"At {on.view.at}:"),
        *Said.texts(sentences),
        *([Said.caption(COMPARED)] if compared else []),
        *Said.texts([feeds.feed_sentence(on), feeds.machines_sentence(on), *feeds.summaries(on)]),
    )


def epoch_words(first: FirstScreen) -> tuple[Said, ...]:
    """'Where one epoch's time went': what each phase is, then a note per bar, as a list."""
    return (
        Said.text(f"At {first.on.view.at}:"),
        Said.caption(PHASES_CAPTION),
        *Said.texts(f"- {note}" for note in feeds.phase_notes(first.bar_rows)),
    )


@dataclass(frozen=True, eq=False)
class SweepChart:
    rows: pd.DataFrame  # empty: nothing was timed
    x_title: str  # lib.charts.time_chart's: time per epoch (median, IQR) against the swept setting
    y_title: str
    title: str
    height: int
    why_none: str


def sweep_charts(on: feeds.Screen) -> tuple[SweepChart, ...]:
    """One chart per feed of the time per epoch over the swept setting."""
    over = on.view.over
    return tuple(
        SweepChart(
            pd.DataFrame(on.rows(feed)),
            feeds.axis_label(over),
            "time per epoch",
            feeds.feed_title(feed),
            400,
            f"{feeds.feed_title(feed)}: nothing was timed, so there is no curve to draw.",
        )
        for feed in lesson.SOURCES
    )


def repeats_caption(live: Sequence[Point]) -> str | None:
    repeats = onscreen.points_repeats_span(live)
    return (
        (
            f"Each point: the median of {repeats} timed epochs after warm-up; bars span the interquartile range. Both "
            "axes logarithmic."
        )
        if repeats
        else None
    )
