"""Timing pitfalls (seed 003): a matmul size sweep, timed honestly and the ways timing it can lie.

Answer first: the title, one sentence read from the rows (what the timer reports, or where the GPU
catches up), the time chart; the size slider and the switches below; the longer words and the
FLOP/s chart behind closed expanders. Each switch's timings are drawn beside the honest baseline
(synchronised fp32, inputs already on the device). The GPU side is live when this server has CUDA, else
recorded with the project's CLI (scripts/record_packs.py, topic "timing"). Layout only:
lib.lessons.timing.screen reads every number and sentence from the rows on screen.
"""

from __future__ import annotations

import streamlit as st

from lib.lessons.common import onscreen
from lib.lessons.common.live import DEFAULT_CPU_THREADS
from lib.lessons.timing import screen
from lib.lessons.timing import view as lesson
from ui import scaffold
from ui.live_views import measured, measured_at
from ui.measure import live_point_budget_s
from ui.sources import live_devices, recorded_cpu_toggle, recorded_pack, source_for
from ui.timing_parts import rates_expander, time_chart
from ui.url_settings import UrlSettings

NS = "timing"
WORKLOAD = lesson.WORKLOAD

top = scaffold.answer_first("Timing pitfalls: how a naive timer lies about a matmul")

# -- controls (below the answer and the chart) ------------------------------------------------------
notes_box = st.container()
url = UrlSettings(NS)
size = url.select_slider("size", screen.SIZE_LABEL, lesson.SIZES, lesson.DEFAULT_SIZE, help=screen.SIZE_HELP)
left, right = st.columns(2)
flags = {key: url.toggle(key, label, default, help=sentence, container=left if i < screen.LEFT_COLUMN else right)
         for i, (key, (label, default, sentence)) in enumerate(screen.TOGGLES.items())}
source, cannot = source_for(WORKLOAD)  # cannot: the sidebar's machine holds nothing here
pack = recorded_pack(source)
show_recorded_cpu = recorded_cpu_toggle(url, pack, WORKLOAD)
url.show_notes(container=notes_box)
url.sync_url()

# -- measure (not now, with a long queue: the recorded side alone) ------------------------------------
requests = screen.live_requests(flags, live_devices(source), size=size, point_budget_s=live_point_budget_s(),
                           threads=DEFAULT_CPU_THREADS)
live = measured(requests)
shown = screen.timing_screen(flags, size, lesson.live_points(live), pack, source.label, with_cpu=show_recorded_cpu)
live_rows = [r for rows in live.values() for r in rows]

# -- the first screen: the answer and the time chart -------------------------------------------------------
top.answer.markdown(shown.answer)
time_chart(top.chart, shown)
if shown.notes:  # what the answer leaves out, under the chart
    top.note.markdown(shown.notes)
scaffold.source_caption(source, DEFAULT_CPU_THREADS, box=top.note, not_live=onscreen.NONE_DRAWN if cannot else None,
                        measured_at=measured_at(requests) if live_rows else None, drawn=shown.found.machine,
                        live_rows=live_rows)
scaffold.notice(cannot or onscreen.gpu_side_note(source, shown.missing, lesson.NO_GPU), box=top.note)

scaffold.why_lines("What this page measures (seed 003)", [screen.SEED_WHY])
with scaffold.why("What the timer reports") as opened:
    if opened:
        for sentence in shown.sync_lines():
            st.markdown(sentence)
        if caption := shown.repeats_caption():
            st.caption(caption)
        for sentence in shown.crossover_lines():
            st.markdown(sentence)
scaffold.why_lines("Cold first call against warm", shown.cold_lines, caption=shown.cold_caption)
if shown.tf32:
    scaffold.why_lines("TF32", shown.tf32_lines)
if shown.transfer:
    scaffold.why_lines("Counting the copy", shown.transfer_lines)
rates_expander(shown)

# -- what was not measured, the rows themselves, recording ---------------------------------------------
scaffold.point_notes(shown.view.table_rows(), lesson.point_where, remarks=False)
scaffold.results_on_screen(shown.view.table_rows(), screen.RESULT_COLUMNS, live_rows, pack, shown.found.all_rows(),
                           file_stem=shown.file_stem, key="timing.results")
scaffold.record_view(["\n".join(lesson.record_command(v) for v in lesson.views(shown.variant).values())],
                     screen.RECORD_CAPTION)
