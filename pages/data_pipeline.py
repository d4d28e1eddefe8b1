"""Data pipeline (seeds 000 and 001): a DataLoader over images vs tensors already on the device.

One epoch of training, fed two ways: a DataLoader that turns every row into a PIL image and back
(ToTensor, Normalize), as torchvision's MNIST does, or the same numbers already in tensors on the
device. The CPU is timed live; the GPU side is live on a GPU server, else a recorded pack's
(recorded with scripts/record_packs.py, topic data_pipeline). Answer first: the title, one sentence
read from the rows, the bars of where one epoch's time went; the controls below; the longer words
and the sweep charts behind closed expanders. Layout and words only: every number
in the words is read from the rows on screen by lib/lessons/data_pipeline/view.py; ui/scaffold.py lays out
the parts every lesson page shares.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.charts import phase_chart, time_chart
from lib.core.devices import usable_cores
from lib.core.same import RULE_WORDS
from lib.lessons.common import onscreen
from lib.lessons.common.live import DEFAULT_CPU_THREADS
from lib.lessons.data_pipeline import screen as feeds
from lib.lessons.data_pipeline import view as lesson
from lib.lessons.data_pipeline.answer import pipeline_answer, pipeline_notes
from ui import scaffold
from ui.chart_cache import chart_spec
from ui.measure import DEFAULT_TOTAL_BUDGET_S, cached_measurement, is_cached, live_point_budget_s, oldest_measured_at
from ui.sources import live_devices, load_recorded, source_for
from ui.url_settings import UrlSettings

NS = "data_pipeline"
LOADING_KEY = f"{NS}.loading"  # the DataLoader settings expander's open state (tests open it)
AXES, MODELS = lesson.AXES, lesson.MODELS
WORKERS_SENTENCE = ("Helper processes (DataLoader workers) that decode images in parallel with training (0: the "
                    "main process decodes every batch itself, between steps). Workers need free CPU cores; this "
                    "server has few. Only the DataLoader over images uses them.")
PIN_SENTENCE = ("Batches are copied into page-locked host memory (pinned memory) so the copy to the GPU can run in "
                "the background (non_blocking). It only changes copies to a GPU: on the CPU, and for tensors already "
                "on the device, there is no copy.")

top = scaffold.answer_first("Data pipeline: does the device matter when data must be loaded?")

# -- controls (below the answer and the chart) ------------------------------------------------------------
notes_box = st.container()
url = UrlSettings(NS)
over = url.radio("over", "Swept on the x-axis", list(AXES), lesson.DEFAULT_OVER, format_func=feeds.axis_label)
left, right = st.columns(2)
settings: dict = {}
for i, (key, (label, steps, _, sentence)) in enumerate(AXES.items()):
    shown = label.capitalize() + (" — x-axis; the slider picks the point explained" if key == over else "")
    settings[key] = url.select_slider(key, shown, steps, lesson.DEFAULTS[key], help=sentence,
                                      container=left if i == 0 else right)
settings["model"] = url.radio("model", "Model trained", list(MODELS), lesson.DEFAULTS["model"], format_func=MODELS.get,
                              help="Seed 001 trained a single linear layer; seed 000 a four-layer MLP. More "
                                   "compute per batch gives the device more to do.")
source, cannot = source_for(lesson.WORKLOAD)  # cannot: the sidebar's machine holds nothing here
devices = live_devices(source)
packs = load_recorded()[0]
cores = usable_cores()
# No more workers than cores live; more only where a recording holds them (shown from it, never run here)
workers = lesson.worker_choices(cores, () if cannot or len(devices) > 1 else lesson.recorded_workers(packs))
# lazy: its settings are out of sight until opened, and drawing them cost a new visitor's browser before the chart
with scaffold.lazy_expander("How the images are loaded (DataLoader settings)", LOADING_KEY) as shown:
    c1, c2 = st.columns(2) if shown else (None, None)
    settings["num_workers"] = url.select_slider("num_workers", "Helper processes (num_workers)", workers,
                                                lesson.DEFAULTS["num_workers"],
                                                help=WORKERS_SENTENCE, container=c1, drawn=shown)
    settings["pin_memory"] = url.toggle("pin_memory", "Page-locked memory (pin_memory)",
                                        lesson.DEFAULTS["pin_memory"], help=PIN_SENTENCE,
                                        container=c2, drawn=shown)
    if shown:
        st.caption(WORKERS_SENTENCE + " " + lesson.workers_caption(cores, workers))
        st.caption(PIN_SENTENCE)
url.show_notes(container=notes_box)
url.sync_url()

# -- the first screen, recorded first: the answer and where one epoch's time went, redrawn once measured ------
view = feeds.View(settings, over, gpu_live=len(devices) > 1)
budget = live_point_budget_s()
too_many = lesson.workers_note(settings["num_workers"], cores)
pack, recorded = feeds.find_recorded([] if cannot else packs, source.pack_paths, view)
chart_box = top.chart.empty()


def first_screen(live: list[dict]) -> tuple[feeds.Screen, list[dict]]:
    on = feeds.screen(view, live, pack, recorded)
    top.answer.markdown(pipeline_answer(on))
    bars = feeds.phase_bars(on)
    box = chart_box.container()  # the chart and, where a bar runs past its epoch's tick, why
    scaffold.chart_or_why(
        box,
        chart_spec(phase_chart, pd.DataFrame(bars), phases=lesson.PHASES, x_title="time of one epoch",
                   total="median_s", total_label=lesson.WHOLE_EPOCH) if bars else None,
        f"No epoch was split into loading and compute at {view.at}, so there are no bars to draw; the notes below "
        "say why.")
    if notes := pipeline_notes(on):  # what the answer leaves out, under the chart (issue 37)
        box.caption(notes)
    if bars and (overlap := lesson.overlap_caption(bars)):
        box.caption(overlap)
    return on, bars


request = feeds.live_request(view, devices, point_budget_s=budget, total_budget_s=DEFAULT_TOTAL_BUDGET_S / 2,
                             threads=DEFAULT_CPU_THREADS)
if any(recorded.values()) and not is_cached(request) and not too_many:
    first_screen([])  # the recorded answer at once, while this server's CPU is measured below
live = [] if too_many else cached_measurement(request, label=feeds.measure_label(view, devices)) or []
on, bars = first_screen(live)
scaffold.source_caption(source, DEFAULT_CPU_THREADS, box=top.note,
                        not_live=onscreen.NONE_DRAWN if cannot else "from a pack recorded on a GPU machine (named in "
                                 "each legend), when one holds these settings",
                        measured_at=oldest_measured_at([request]) if live else None, live_rows=None if too_many else live)
elsewhere = feeds.elsewhere_sentence(source, pack)
if elsewhere:
    top.note.caption(elsewhere)
scaffold.notice(too_many, box=top.note)
scaffold.notice(cannot or feeds.missing_note(on, packs), box=top.note)
if on.missing:
    scaffold.sweep_offers(NS, feeds.recorded_offers(packs, view))

with scaffold.why("What this page measures (seeds 000 and 001)") as opened:
    if opened:
        st.markdown(
            "Seed 001 trained a one-layer model on MNIST and found the CPU and the GPU equally fast: 14.5 s per epoch "
            "each. Seed 000 saw its MNIST minibatch run only 7% faster on the GPU. In both, every image went through "
            "the DataLoader one at a time (a PIL image, `ToTensor`, `Normalize`) on the CPU before either device saw "
            "it. Here, one epoch is timed two ways: fed by that **DataLoader over images**, and from the same numbers "
            "as **tensors already on the device**. Each epoch is split into **loading** (walking the batches and "
            "copying them to the device, without training) and **compute** (training on batches already there).")

# -- words: does the device matter here? -----------------------------------------------------------
# the labels are fixed (a lazy expander's identity includes its label); the settings go inside
with scaffold.why("Does the device matter at these settings?") as opened:
    if opened:
        st.markdown(f"At {view.at}:")
        sentences, compared = feeds.device_words(on)
        for sentence in sentences:
            st.markdown(sentence)
        if compared:
            st.caption(f"{RULE_WORDS} Both devices of that "
                       "comparison come from one machine, because the images are decoded by the CPU that feeds the GPU.")
        for sentence in (feeds.feed_sentence(on), feeds.machines_sentence(on), *feeds.summaries(on)):
            if sentence:
                st.markdown(sentence)

# -- where an epoch's time went ------------------------------------------------------------------------
with scaffold.why("Where one epoch's time went") as opened:
    if opened:
        st.markdown(f"At {view.at}:")
        st.caption("Loading walks the epoch's batches and copies them to the device without training; compute trains "
                   "on the same number of batches already on the device. Each is timed on its own (median of repeats).")
        for note in feeds.phase_notes(bars):
            st.markdown(f"- {note}")

# -- the sweep, one chart per feed ----------------------------------------------------------------------
# drawn closed too: the notes on its points below quote them, and the sentences above name its curves
with scaffold.why(f"Time per epoch over {feeds.axis_label(over)}", drawn=True) as opened:
    if opened:
        for feed in lesson.SOURCES:
            scaffold.chart_or_why(
                st, chart_spec(time_chart, pd.DataFrame(on.rows_of[feed]), over, y="median_s", iqr="iqr_s",
                               x_title=feeds.axis_label(over), y_title="time per epoch", title=feeds.feed_title(feed),
                               height=400) if on.rows_of[feed] else None,
                f"{feeds.feed_title(feed)}: nothing was timed, so there is no curve to draw.")
        repeats = onscreen.repeats_span(live)
        if repeats:
            st.caption(f"Each point: the median of {repeats} timed epochs after warm-up; bars span the "
                       "interquartile range. Both axes logarithmic.")

# -- what was not measured, the rows, downloads, recording ------------------------------------------------
scaffold.point_notes(on.rows, feeds.point_where(over))
scaffold.results_on_screen(
    on.rows, ("series", "recorded_on", "source", over, "median_s", "iqr_s", "phase_loading_s", "phase_compute_s",
              "batches_per_epoch", "num_workers", "pin_memory", "repeats", "num_threads", "status", "message"),
    live, pack, on.recorded_rows(), file_stem=f"data_pipeline_{over}", key="data_pipeline.results")
scaffold.record_view(feeds.record_commands(view),
                     "Both sweeps record the CPU and the GPU of that machine; the app then shows them beside the live "
                     "CPU. scripts/record_packs.py records this page's default views (topic data_pipeline).")
