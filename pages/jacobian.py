"""Jacobian (seed 004): the method, not the device, is the real cost.

Answer first: the title, one sentence read from the rows at the chosen val, the time chart; the
controls below it; the longer words, the memory chart and the rows behind closed expanders. The
val slider picks the batch size explained; the sweep always covers the decades 1 to 1000 plus that
value. The GPU side is live when this server has CUDA, else recorded with the project's CLI
(scripts/record_packs.py, topic "jacobian"). Numbers in the words come from the rows on screen
(lib/lessons/jacobian/view.py and lib/lessons/jacobian/answer.py compute them; ui/scaffold.py lays out the parts
every lesson page shares).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.charts.variants import memory_chart, variant_chart
from lib.core.fmt import fmt_value
from lib.core.rows import is_ok
from lib.core.sweep import default_memory_cap_gb
from lib.lessons.common import onscreen
from lib.lessons.common.live import DEFAULT_CPU_THREADS
from lib.lessons.jacobian import view as lesson
from lib.lessons.jacobian.answer import jacobian_answer, jacobian_notes
from lib.workloads.jacobian import METHODS
from ui import scaffold
from ui.chart_cache import chart_spec
from ui.measure import cached_measurement, is_cached, live_point_budget_s, oldest_measured_at
from ui.sources import live_devices, recorded_cpu_toggle, recorded_pack, source_for
from ui.url_settings import UrlSettings

NS = "jacobian"
WORKLOAD = lesson.WORKLOAD
X_TITLE = "inputs in the batch (val)"

top = scaffold.answer_first("Jacobian: when the algorithm beats the hardware")

# -- controls (below the answer and the chart) ------------------------------------------------------
notes_box = st.container()
url = UrlSettings(NS)
val = url.select_slider("val", "Inputs in the batch (val; the point explained)", lesson.VALS, lesson.DEFAULT_VAL,
                        help="The seed ran 100 and 1000. The curves always cover 1, 10, 100 and 1,000, plus this "
                             "value.")
# short names on the pills, what each does in their help
methods = url.pills("methods", "Ways to compute it", METHODS, list(lesson.DEFAULT_METHODS), format_func=lesson.LABEL.get,
                    help="\n".join(f"- {lesson.LONG[m]}" for m in METHODS)
                         + "\n\nAll four give the same numbers on the diagonal blocks (the workload checks it).")
source, cannot = source_for(WORKLOAD)  # cannot: the sidebar's machine holds nothing here
pack = recorded_pack(source)
show_recorded_cpu = recorded_cpu_toggle(url, pack, WORKLOAD)
url.show_notes(container=notes_box)
url.sync_url()
methods = lesson.ordered(methods)

# -- the first screen, recorded first: the answer and the chart, redrawn once this server is measured -----
devices = live_devices(source)
grid = lesson.sweep_grid(val)
budget = lesson.point_budget(live_point_budget_s())
cap_gb = default_memory_cap_gb()
found = onscreen.recorded_views(pack, source.label, WORKLOAD, "val", lesson.views(methods, val),
                                with_cpu=show_recorded_cpu)
chart_box = top.chart.empty()
notes_under = top.note.empty()  # what the answer leaves out, under the chart (issue 37)


def first_screen(live: list[dict]) -> tuple[list[dict], list[str]]:
    rows = onscreen.labelled(live, found.gpu_rows(), found.cpu_rows(), found.machine)
    order = onscreen.series_order(rows, found.machine)
    top.answer.markdown(jacobian_answer(rows, val, methods))
    notes = jacobian_notes(rows, val, methods)
    if notes:
        notes_under.markdown(notes)
    else:
        notes_under.empty()
    timed = [r for r in rows if is_ok(r)]
    scaffold.chart_or_why(
        chart_box,
        chart_spec(variant_chart, pd.DataFrame(lesson.time_rows(timed)), "val", "median_s", color="series",
                   dash="method_label", iqr="iqr_s", x_title=X_TITLE, y_title="time per Jacobian", color_order=order,
                   dash_order=[lesson.LABEL[m] for m in METHODS], dash_columns=2,
                   plot_height=scaffold.plot_height()) if timed else None,
        "No method is chosen, so there is no curve to draw." if not methods else
        "Nothing was timed at these settings, so there is no curve to draw; the points not measured (below) say why.")
    return rows, order


requests = {m: lesson.live_request(m, grid, devices, point_budget_s=budget, threads=DEFAULT_CPU_THREADS,
                                   memory_cap_gb=cap_gb) for m in methods}
if found.gpu_rows() and not all(is_cached(r) for r in requests.values()):
    first_screen([])  # the recorded curves at once, while this server's CPU is measured below
live: list[dict] = []
for method in methods:
    live += cached_measurement(requests[method], label=lesson.measure_label(method, grid, devices)) or []
rows, order = first_screen(live)
scaffold.source_caption(source, DEFAULT_CPU_THREADS, box=top.note, not_live=onscreen.NONE_DRAWN if cannot else None,
                        measured_at=oldest_measured_at(requests.values()) if live else None, drawn=found.machine,
                        live_rows=live)
scaffold.notice(cannot or onscreen.gpu_side_note(source, lesson.missing_note(found, source.label), lesson.NO_GPU), box=top.note)

with scaffold.why("What this page measures (seed 004)") as opened:
    if opened:
        st.markdown(
            "Seed 004 computed the Jacobian (every output's derivative with respect to every input) of a small tanh "
            "network (1 input → 20 → 20 → 400 outputs) over a batch of `val` inputs with "
            f"`torch.autograd.functional.jacobian`, on the CPU and on the GPU. It reported {lesson.SEED_REPORTED}: the "
            "GPU won only at the larger batch. Here the same Jacobian is computed four ways (the chart opens on the seed's "
            "loop and vmap(jacrev); the pills add the other two) and timed on both devices. "
            "Both axes of the time chart are logarithmic.")

if methods:
    # a fixed label (a lazy expander's identity includes it): the value goes inside
    with scaffold.why("What the measurements say at the chosen val") as opened:
        if opened:
            st.markdown(f"At val = {fmt_value(val)}:")
            for sentence in lesson.at_val_sentences(rows, val, order):
                st.markdown(sentence)
            repeats = onscreen.repeats_span(rows)
            if repeats:
                st.caption(f"Each point: the median time of one full Jacobian over {repeats} timed repeats (bars: "
                           "interquartile range); the warm-up calls are not counted. Colour is where it was measured, "
                           "the line style the method. Points not timed are marked × on the memory chart.")

    with scaffold.why("Where the GPU starts to win, method by method") as opened:
        if opened:
            for line in lesson.crossover_lines(rows, methods, found.machine, pack["machine"] if pack else None):
                st.markdown(line.markdown())

    with scaffold.why("Why the method matters more than the device") as opened:
        if opened:
            for sentence in lesson.why_sentences(rows, val, methods, order):
                st.markdown(sentence)

    # lazy: its chart and its table of refused points (1.2 MB of a new visitor's browser code) only when opened
    with scaffold.lazy_expander("Why? The memory each method needs", f"{NS}.memory") as memory_open:
        if memory_open:
            gpu_on_screen = onscreen.gpu_series(rows) is not None
            st.vega_lite_chart(
                chart_spec(memory_chart, pd.DataFrame(lesson.memory_estimates(methods, lesson.VALS, gpu=gpu_on_screen)),
                           pd.DataFrame(lesson.memory_marks(rows)), x="val", x_title=X_TITLE,
                           caps=[lesson.memory_cap_rule(cap_gb)], color_order=[lesson.LABEL[m] for m in METHODS]),
                width="stretch",
            )
            st.caption("Lines: the workload's own estimate of peak memory, checked before anything is allocated. "
                       "Circles: points timed; crosses (×): points not timed. On the CPU the loop's estimate includes the "
                       "per-pass temporaries the C allocator cannot reuse.")
            refused = lesson.not_measured(rows)
            if refused:
                st.markdown(f"**Points not measured** ({fmt_value(len(refused))}), each with the reason:")
                st.dataframe(pd.DataFrame(refused), hide_index=True, width="stretch",
                             column_config={"why": st.column_config.TextColumn("why", width="large")})
            else:
                st.caption("Every point on screen was timed.")

    # -- the rows themselves, recording ------------------------------------------------------------------
    scaffold.results_on_screen(
        rows, ("series", "recorded_on", "method", "val", "median_s", "iqr_s", "repeats", "flops", "peak_memory_estimate_bytes",
               "num_threads", "status", "message"),
        live, pack, found.all_rows(), file_stem=f"jacobian_val{val}", key="jacobian.results")
    scaffold.record_view(["\n".join(lesson.record_command(m, grid) for m in methods)],
                         "One sweep per method; the app then shows those GPU curves beside the live CPU. `python3 "
                         "scripts/record_packs.py --topics jacobian` records the page's default view and more.")
