"""Data pipeline (seeds 000 and 001): a DataLoader over images (PIL, ToTensor, Normalize, as torchvision's MNIST)
vs the same numbers already in tensors on the device, one epoch of training each. The CPU is timed live; the
GPU side is live on a GPU server, else a recorded pack's (scripts/record_packs.py, topic data_pipeline). Answer
first: one sentence, the bars of where an epoch's time went; the controls below; the rest behind closed
expanders. Layout only: every word and number is lib.lessons.data_pipeline's.
"""

from __future__ import annotations

import streamlit as st

from lib.charts import Layout, TimeLines, phase_chart, time_chart
from lib.core.devices import usable_cores
from lib.core.point import Point, rows_of
from lib.lessons.common.live import DEFAULT_CPU_THREADS, LiveBudget
from lib.lessons.data_pipeline import screen as feeds
from lib.lessons.data_pipeline import shown
from lib.lessons.data_pipeline import view as lesson
from ui import scaffold
from ui.measure import DEFAULT_TOTAL_BUDGET_S, cached_measurement, is_cached, live_point_budget_s, oldest_measured_at
from ui.sources import live_devices, load_recordings, source_for
from ui.specs import chart_spec
from ui.url_settings import UrlSettings

NS = "data_pipeline"
LOADING_KEY = f"{NS}.loading"  # the DataLoader settings expander's open state (tests open it)
top = scaffold.answer_first("Data pipeline: does the device matter when data must be loaded?")

# -- controls (below the answer and the chart) ------------------------------------------------------------
notes_box = st.container()
url = UrlSettings(NS)
over = url.radio("over", "Swept on the x-axis", list(lesson.AXES), lesson.DEFAULT_OVER, format_func=feeds.axis_label)
columns = st.columns(2)
settings = {key: url.select_slider(key, shown.slider_label(key, over), axis.steps, lesson.DEFAULTS.value(key),
                                   help=axis.sentence, container=columns[min(i, 1)])
            for i, (key, axis) in enumerate(lesson.AXES.items())}
settings["model"] = url.radio("model", "Model trained", list(lesson.MODELS), lesson.DEFAULTS.model,
                              format_func=lesson.MODELS.get, help=shown.MODEL_HELP)
source, cannot = source_for(lesson.WORKLOAD)  # cannot: the sidebar's machine holds nothing here
devices, recordings, cores = live_devices(source), load_recordings(), usable_cores()
# No more workers than cores live; more only where a recording holds them (shown from it, never run here)
workers = lesson.worker_choices(cores, () if cannot or len(devices) > 1 else lesson.recorded_workers(recordings))
# lazy: its settings are out of sight until opened, and drawing them cost a new visitor's browser before the chart
with scaffold.lazy_expander("How the images are loaded (DataLoader settings)", LOADING_KEY) as opened:
    c1, c2 = st.columns(2) if opened else (None, None)
    settings["num_workers"] = url.select_slider("num_workers", "Helper processes (num_workers)", workers,
                                                lesson.DEFAULTS.num_workers, help=shown.WORKERS_SENTENCE,
                                                container=c1, drawn=opened)
    settings["pin_memory"] = url.toggle("pin_memory", "Page-locked memory (pin_memory)", lesson.DEFAULTS.pin_memory,
                                        help=shown.PIN_SENTENCE, container=c2, drawn=opened)
    scaffold.paragraphs(shown.loading_captions(cores, workers) if opened else [], caption=True)
url.show_notes(container=notes_box)
url.sync_url()

# -- the first screen, recorded first: the answer and where one epoch's time went, redrawn once measured ------
view = feeds.View(lesson.Settings(**settings), over, gpu_live=len(devices) > 1)
too_many = lesson.workers_note(view.settings.num_workers, cores)
recording, recorded = feeds.find_recorded([] if cannot else recordings, source.pack_paths, view)
chart_box = top.chart.empty()


def first_screen(live: list[Point]) -> shown.FirstScreen:
    first = shown.first_screen(view, live, recording, recorded)
    top.answer.markdown(first.answer)
    box = chart_box.container()  # the chart and, where a bar runs past its epoch's tick, why
    scaffold.chart_or_why(box, chart_spec(phase_chart, first.bars, **shown.PHASE_CHART) if first.bar_rows else None,
                          first.no_bars)
    scaffold.paragraphs(first.notes, caption=True, box=box)  # what the answer leaves out, under the chart
    return first


request = feeds.live_request(view, devices, LiveBudget(live_point_budget_s(), DEFAULT_TOTAL_BUDGET_S / 2, DEFAULT_CPU_THREADS))
if recorded.any and not is_cached(request) and not too_many:
    first_screen([])  # the recorded answer at once, while this server's CPU is measured below
live = [] if too_many else cached_measurement(request, label=feeds.measure_label(view, devices)) or []
first = first_screen(live)
scaffold.source_caption(source, DEFAULT_CPU_THREADS, box=top.note, not_live=shown.not_live(cannot),
                        measured_at=oldest_measured_at([request]) if live else None, live_rows=rows_of(live))
scaffold.say(shown.under_chart(first, source, recordings, too_many, cannot), box=top.note)
if first.on.missing:
    scaffold.sweep_offers(NS, feeds.recorded_offers(recordings, view))
scaffold.why_words("What this page measures (seeds 000 and 001)", [shown.SEEDS])

# -- words: does the device matter here? where did the time go? (fixed labels: a lazy expander's identity includes it)
scaffold.why_said("Does the device matter at these settings?", shown.device_words, first.on)
scaffold.why_said("Where one epoch's time went", shown.epoch_words, first)

# -- the sweep, one chart per feed: drawn closed too (the point notes below quote it, the words above name its curves)
with scaffold.why(f"Time per epoch over {feeds.axis_label(over)}", drawn=True):
    for chart in shown.sweep_charts(first.on):
        lines, layout = TimeLines(over, x_title=chart.x_title, y_title=chart.y_title), Layout(chart.height, title=chart.title)
        scaffold.chart_or_why(st, chart_spec(time_chart, chart.rows, lines, layout=layout) if len(chart.rows) else None,
                              chart.why_none)
    scaffold.paragraphs([shown.repeats_caption(live)], caption=True)

# -- what was not measured, the rows, downloads, recording ------------------------------------------------
scaffold.point_notes(first.on.rows(), feeds.point_where(over))
scaffold.shown_results(first.on.results(live), shown.result_columns(over), file_stem=f"data_pipeline_{over}",
                       key="data_pipeline.results")
scaffold.record_view(feeds.record_commands(view), shown.RECORD_CAPTION)
