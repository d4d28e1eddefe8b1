"""Seed case studies: each seed experiment one click away, "reported in the seed" beside "measured here".

Measured here: the GPU (and that machine's CPU) from a recorded seeds pack (scripts/seed_experiments.py
--out lib/recorded/…json), rows found by the preset's name; this server's CPU live, at the preset's
cut-down size. Loss curves: live on this server's CPU; the GPU's from the curves file that
`scripts/seed_experiments.py --curves` writes next to the pack. Layout only: every sentence, table and
bar is lib.lessons.seed_cases.shown's. Answer first: the title, the seed's ratio beside the one measured
here in one sentence, the ratio bars; the experiment picker below; the rest behind closed expanders.
"""

from __future__ import annotations

import streamlit as st

from lib.charts import loss_chart, ratio_chart, seed_times_chart
from lib.lessons.common import onscreen
from lib.lessons.common.live import DEFAULT_CPU_THREADS
from lib.lessons.seed_cases import screen, shown
from lib.lessons.seed_cases import view as cases
from lib.lessons.seed_cases.view import CASES
from lib.workloads.presets import get_preset
from ui import scaffold
from ui.downloads import csv_download
from ui.measure import cached_measurement, live_point_budget_s, measured_at
from ui.sources import live_devices, load_recordings, unanswered
from ui.specs import chart_spec
from ui.url_settings import UrlSettings

NS = "seed_cases"
top = scaffold.answer_first("Seed case studies")

# -- the one control (below the answer and the chart) --------------------------------------------------------
notes_box = st.container()
url = UrlSettings(NS)
case = url.radio("case", "Experiment", list(CASES), CASES[0], format_func=cases.label, horizontal=False)
url.show_notes(container=notes_box)
url.sync_url()
preset = get_preset(case)

# -- recorded: the seeds pack, found by the preset's name; live: this server at the cut-down size ----------
# cannot: the sidebar's machine holds no seed experiment at all (then no other machine's rows either)
source, cannot = unanswered(shown.holds_a_case)
recordings = [] if cannot else load_recordings()
recording, recorded = cases.find_seed_recording(recordings, case, prefer=source.pack_paths)
devices, threads = live_devices(source), DEFAULT_CPU_THREADS
request = screen.live_request(preset, devices, threads=threads, budget_s=live_point_budget_s())
live = cached_measurement(request, label=screen.measure_label(preset, devices)) or shown.not_measured()
experiment = screen.Case(preset, live, recording, recorded, measured_at(request))

# -- the first screen: reported beside measured, as one sentence and one bar per comparison --------------------
first = shown.first_screen(experiment)
top.answer.markdown(first.answer)
scaffold.chart_or_why(top.chart, chart_spec(ratio_chart, first.bars) if len(first.bars) else None, shown.NO_RATIO)
for sentence in first.notes:  # the seed's times, the date and the cut size: under the chart
    top.note.markdown(sentence)
top.note.caption(shown.RATIO_CAPTION)
if elsewhere := onscreen.elsewhere_sentence(source, experiment.pack, shown.ELSEWHERE_WHAT):
    top.note.caption(elsewhere)
scaffold.notice(cannot or screen.missing_note(experiment), box=top.note)
scaffold.why_words("What the seeds are", [shown.WHAT_SEEDS_ARE])
# a fixed label (a lazy expander's identity includes it): the case goes inside
scaffold.why_words("What this experiment teaches", shown.teaches(case, preset))

# -- reported beside measured ---------------------------------------------------------------------------------
with scaffold.why("Reported in the seed, measured here") as opened:
    if opened:
        st.dataframe(first.table, hide_index=True)
        told = shown.times_told(experiment, threads)
        scaffold.chart_or_why(st, chart_spec(seed_times_chart, told.bars, title=told.title) if len(told.bars) else None,
                              shown.NO_TIMES)
        scaffold.paragraphs(told.sentences)
        scaffold.paragraphs(told.data, caption=True)

# -- loss curves ---------------------------------------------------------------------------------------------
curves = screen.curves_view(experiment, recordings)
with scaffold.why("Loss curves: does each model learn?") as opened:
    if opened and curves is None:
        st.caption(shown.NO_CURVE_TRAINED)
    elif opened:
        said = shown.curves_told(experiment, curves)
        scaffold.paragraphs(said.before)
        scaffold.chart_or_why(st, chart_spec(loss_chart, said.frame) if len(said.frame) else None, shown.NO_CURVE)
        scaffold.paragraphs(said.after)
        scaffold.paragraphs([said.differing], caption=True)
        scaffold.notice(cases.MISSING_CURVE if said.missing else None)
        scaffold.paragraphs([said.minibatch])
        scaffold.paragraphs(said.data, caption=True)

# -- rows, downloads, recording ---------------------------------------------------------------------------------
scaffold.shown_results(experiment.results(), shown.RESULT_COLUMNS, file_stem=f"seed_{case}", key="seed_cases.results",
                       more=csv_download("Download the loss curves (CSV)", shown.curve_rows(curves),
                                         f"seed_{case}_loss_curves.csv", ":material/show_chart:"))
scaffold.record_view([screen.record_command(preset)], shown.record_caption(case),
                     title="Record this experiment on a GPU machine")
