"""Jacobian (seed 004): the method, not the device, is the real cost.

Answer first: the title, one sentence read from the rows at the chosen val, the time chart; the
controls below it; the longer words, the memory chart and the rows behind closed expanders. The
val slider picks the batch size explained; the sweep always covers the decades 1 to 1000 plus that
value. The GPU side is live when this server has CUDA, else recorded with the project's CLI
(scripts/record_packs.py, topic "jacobian"). Layout only: lib.lessons.jacobian.screen reads every number
and sentence from the rows on screen.
"""

from __future__ import annotations

import streamlit as st

from lib.core.point import Point, rows_of
from lib.core.sweep import default_memory_cap_gb
from lib.lessons.common import onscreen
from lib.lessons.common.live import DEFAULT_CPU_THREADS
from lib.lessons.jacobian import screen
from lib.lessons.jacobian import view as lesson
from lib.workloads.jacobian import METHODS
from ui import scaffold
from ui.jacobian_parts import memory_expander, time_chart
from ui.live_views import all_cached, measured, measured_at
from ui.measure import live_point_budget_s
from ui.sources import live_devices, recorded_cpu_toggle, recorded_pack, source_for
from ui.url_settings import UrlSettings

NS = "jacobian"
WORKLOAD = lesson.WORKLOAD

top = scaffold.answer_first("Jacobian: when the algorithm beats the hardware")

# -- controls (below the answer and the chart) ------------------------------------------------------
notes_box = st.container()
url = UrlSettings(NS)
val = url.select_slider("val", "Inputs in the batch (val; the point explained)", lesson.VALS, lesson.DEFAULT_VAL,
                        help=screen.VAL_HELP)
# short names on the pills, what each does in their help
methods = url.pills("methods", "Ways to compute it", METHODS, list(lesson.DEFAULT_METHODS), format_func=lesson.LABEL.get,
                    help=screen.METHODS_HELP)
source, cannot = source_for(WORKLOAD)  # cannot: the sidebar's machine holds nothing here
pack = recorded_pack(source)
show_recorded_cpu = recorded_cpu_toggle(url, pack, WORKLOAD)
url.show_notes(container=notes_box)
url.sync_url()
methods = lesson.ordered(methods)

# -- the first screen, recorded first: the answer and the chart, redrawn once this server is measured -----
devices, grid, cap_gb = live_devices(source), lesson.sweep_grid(val), default_memory_cap_gb()
found = onscreen.recorded_views(pack, source.label, WORKLOAD, "val", lesson.views(methods, val),
                                with_cpu=show_recorded_cpu)
chart_box = top.chart.empty()
notes_under = top.note.empty()  # what the answer leaves out, under the chart


def first_screen(live: list[Point]) -> screen.JacobianScreen:
    shown = screen.jacobian_screen(live, found, val, methods, pack)
    top.answer.markdown(shown.answer)
    scaffold.markdown_or_empty(notes_under, shown.notes)
    time_chart(chart_box, shown)
    return shown


requests = screen.live_requests(methods, grid, devices, live_budget_s=live_point_budget_s(), threads=DEFAULT_CPU_THREADS,
                           memory_cap_gb=cap_gb)
if found.gpu_rows() and not all_cached(requests):
    first_screen([])  # the recorded curves at once, while this server's CPU is measured below
live = screen.live_points(measured(requests))
shown = first_screen(live)
scaffold.source_caption(source, DEFAULT_CPU_THREADS, box=top.note, not_live=onscreen.NONE_DRAWN if cannot else None,
                        measured_at=measured_at(requests) if live else None, drawn=found.machine,
                        live_rows=rows_of(live))
scaffold.notice(cannot or onscreen.gpu_side_note(source, lesson.missing_note(found, source.label), lesson.NO_GPU), box=top.note)

scaffold.why_lines("What this page measures (seed 004)", [screen.SEED_WHY])

if methods:
    # fixed labels (a lazy expander's identity includes it): the value goes inside
    scaffold.why_lines("What the measurements say at the chosen val", shown.at_val, caption=shown.repeats_caption)
    scaffold.why_lines("Where the GPU starts to win, method by method", shown.crossover_lines)
    scaffold.why_lines("Why the method matters more than the device", shown.why)

    memory_expander(shown, cap_gb)

    # -- the rows themselves, recording ------------------------------------------------------------------
    scaffold.results_on_screen(shown.table_rows(), screen.RESULT_COLUMNS, rows_of(live), pack, found.all_rows(), file_stem=f"jacobian_val{val}",
                               key="jacobian.results")
    scaffold.record_view(["\n".join(lesson.record_command(m, grid) for m in methods)], screen.RECORD_CAPTION)
