"""Training crossover: the same training step (an MLP's, or another model family of
lib.workloads.family) timed on the CPU and the GPU, answer first.

The chart and the one-sentence answer are drawn at once from recorded data (the GPU chosen in the
sidebar, and a recording of a small server's CPU); this server's CPU is then measured live and
drawn on top. Layout only: lib.lessons.training.scene composes each screen (its curves, words and
where each point came from); ui.training_controls declares the sets of widgets, ui.training_live measures.
"""

from __future__ import annotations

import streamlit as st

from lib.lessons.training import scene as lesson
from lib.lessons.training import view as training_view
from lib.lessons.training import words
from ui import scaffold
from ui.sources import load_recordings, recorded_recording, source_for
from ui.step_story import how_modes_move, speedup, step_timeline, where_time_went
from ui.training_controls import axis_sliders, model_choice, pitfalls
from ui.training_live import ChartBox, live_point_notes, measure_live
from ui.url_settings import UrlSettings

NS = "training"
CHART_HEIGHT = 300  # the plot's own (its axis and legend add to it); 280 inside an 800 × 600 iframe (?embed=true)

st.title("Training: from what size does the GPU win?")
# the answer in the same slot as on the other pages (ui.scaffold.answer_first), which embed tests look for
headline_box = st.container(key="answer").empty()
# the other sentences go under the chart: above it they pushed it off an 800 × 600 iframe and a phone's first screen
answer_box, chart_box, words_box, live_box = st.container(), st.empty(), st.container(), st.container()

# -- controls (below the answer) -------------------------------------------------------------------
url = UrlSettings(NS)
notes_box = st.container()
family = model_choice(url)
st.caption(words.OWN_MODEL)  # a visitor's own model: run on their machine, never here
over = url.radio("over", "On the x-axis", list(family.axes), "batch_size", format_func=lesson.axis_labels(family).get)
sizes = axis_sliders(url, family, over)
# cannot: the sidebar's machine holds no Training rows of any family (the 4-GPU one); one family's missing
source, cannot = source_for(*(f.workload for f in training_view.FAMILIES))  # recording is said by the lesson's headline
recording = None if cannot else recorded_recording(source)
scaffold.notice(cannot, box=answer_box)
gpu, small = lesson.machines(recording, load_recordings(), family)
modes = lesson.mode_choice(gpu, source.live)
mode = url.radio("mode", "How the step runs", modes.options, training_view.View.mode, format_func=modes.labels.get,
                 help=lesson.MODE_HELP) if len(modes.options) > 1 else training_view.View.mode
switches, threads = pitfalls(url, family)
host_cpu = bool(recording) and url.toggle("recorded_cpu", "Also show the GPU machine's own CPU", False,
                                     help="The CPU of the machine the GPU results come from: the comparison its owner sees.")
url.show_notes(container=notes_box)
url.sync_url()
url.forget(training_view.FAMILY_KEYS)  # another model's sliders, left in the link when the model changed
scene = lesson.Scene(training_view.View(over=over, family=family, mode=mode, **sizes, **switches), gpu, small, host_cpu, threads,
                live_gpu=source.live)
view = scene.view
draw = ChartBox(chart_box, view, scaffold.chart_height(CHART_HEIGHT, first=False))

recorded = scene.recorded()
headline_box.markdown(recorded.headline or "Measuring this server's CPU …")
if recorded.curves:
    draw(recorded)

# -- live on top -------------------------------------------------------------------------------------
with live_box:
    live = measure_live(scene, source, draw)
screen = scene.with_live(live)
draw(screen)
headline_box.markdown(screen.headline)
with words_box:
    if screen.headline_notes:
        st.markdown(screen.headline_notes)
    if screen.live_line:
        st.markdown(screen.live_line)
    st.markdown(screen.at_point)
    st.caption(" ".join(screen.provenance))

# -- why ----------------------------------------------------------------------------------------------
where_time_went(screen, view, gpu)
step_timeline(screen, view, gpu, source, threads, scene.fixed["mode"])
how_modes_move(screen, view, gpu, scaffold.chart_height(CHART_HEIGHT, first=False))
speedup(screen, view)
live_point_notes(live, view)
scaffold.results_on_screen(screen.rows(), lesson.result_columns(over), lesson.live_rows(live), recording and recording.pack,
                           lesson.recorded_gpu_rows(screen), file_stem=f"training_{over}", key=f"{NS}.results")
