"""Timing pitfalls (seed 003): a matmul size sweep, timed honestly and the ways timing it can lie.

Answer first: the title, one sentence read from the rows (what the timer reports, or where the GPU
catches up), the time chart; the size slider and the switches below; the longer words and the
FLOP/s chart behind closed expanders.
Toggles: synchronise or not, the cold first call, TF32, the host-to-device copy. The view's
timings are drawn beside the honest baseline (synchronised fp32, inputs already on the device)
whenever a toggle differs from it. The GPU side is live when this server has CUDA, else recorded
with the project's CLI (scripts/record_packs.py, topic "timing"). Numbers in the words come from
the rows on screen (lib/lessons/timing/view.py computes them; ui/scaffold.py lays out the parts
every lesson page shares).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.charts.variants import variant_chart
from lib.core.rows import is_ok
from lib.lessons.common import onscreen
from lib.lessons.common.live import DEFAULT_CPU_THREADS
from lib.lessons.timing import view as lesson
from lib.lessons.timing import words
from lib.lessons.timing.answer import timing_answer, timing_notes
from ui import scaffold
from ui.chart_cache import chart_spec
from ui.measure import cached_measurement, live_point_budget_s, oldest_measured_at
from ui.sources import live_devices, recorded_cpu_toggle, recorded_pack, source_for
from ui.url_settings import UrlSettings

NS = "timing"
WORKLOAD = lesson.WORKLOAD
TOGGLES = {
    "sync": ("Synchronise before reading the clock", True,
             "On: the harness waits for the device (torch.cuda.synchronize()) before every clock read. Off: a naive "
             "timer, which on a GPU measures only how long it takes to queue the work."),
    "cold": ("Show the cold first call", True,
             "The very first call of each point, timed on its own and never part of the median."),
    "tf32": ("Faster, less precise arithmetic (TF32)", False,
             "fp32 matmuls computed in TF32 on NVIDIA tensor cores (fp32 range, 10-bit mantissa); the CPU runs fp32."),
    "transfer": ("Count the host → device copy", False,
                 "Copy both inputs from (pinned) host memory inside every timed call, as if they came from the CPU "
                 "each time. Nothing to copy on the CPU."),
}

top = scaffold.answer_first("Timing pitfalls: how a naive timer lies about a matmul")

# -- controls (below the answer and the chart) ------------------------------------------------------
notes_box = st.container()
url = UrlSettings(NS)
size = url.select_slider("size", "Matrix size (rows = columns; the point explained)", lesson.SIZES,
                         lesson.DEFAULT_SIZE, help="The curves always cover every size; seed 003 used 15,360.")
left, right = st.columns(2)
flags = {key: url.toggle(key, label, default, help=sentence, container=left if i < 2 else right)
         for i, (key, (label, default, sentence)) in enumerate(TOGGLES.items())}
source, cannot = source_for(WORKLOAD)  # cannot: the sidebar's machine holds nothing here
pack = recorded_pack(source)
show_recorded_cpu = recorded_cpu_toggle(url, pack, WORKLOAD)
url.show_notes(container=notes_box)
url.sync_url()
variant = lesson.variant_of(flags["sync"], flags["tf32"], flags["transfer"])

# -- measure ---------------------------------------------------------------------------------------
devices = live_devices(source)
budget = live_point_budget_s()


views = lesson.views(variant)
requests = {name: lesson.live_request(v, devices, size=size, point_budget_s=budget, threads=DEFAULT_CPU_THREADS)
            for name, v in views.items()}
# not measured now (a long queue): the recorded side alone
live = {name: cached_measurement(requests[name], label=lesson.measure_label(v, devices)) or []
        for name, v in views.items()}
found = lesson.recorded(pack, source.label, variant, size, with_cpu=show_recorded_cpu)
view = lesson.screen(variant, live, found, found.machine)
order = view.order

# -- the first screen: the answer and the time chart -------------------------------------------------------
top.answer.markdown(timing_answer(view, size))
analysis = lesson.crossovers(view)[0]
crossover_x = onscreen.crossing_x(analysis)  # None where the sentence names no value: no rule either
lines = lesson.time_lines(view, flags["cold"])
scaffold.chart_or_why(
    top.chart,
    chart_spec(variant_chart, pd.DataFrame(lines), "size", "median_s", color="series", dash="line", iqr="iqr_s",
               x_title="matrix size (rows = columns)", y_title="time per matmul", color_order=order,
               dash_order=lesson.line_names(variant),
               legend_beside=scaffold.embedded(),  # an 800 × 600 frame has width to spare, not height
               crossover_x=crossover_x, crossover_label=onscreen.crossing_label(analysis),
               plot_height=scaffold.plot_height()) if any(is_ok(r) for r in lines) else None,
    "Nothing was timed at these settings, so there is no curve to draw; the notes below say why.")
notes = timing_notes(view, size)  # what the answer leaves out, under the chart (issue 37)
if notes:
    top.note.markdown(notes)
scaffold.source_caption(source, DEFAULT_CPU_THREADS, box=top.note, not_live=onscreen.NONE_DRAWN if cannot else None,
                        measured_at=oldest_measured_at(requests.values()) if any(live.values()) else None,
                        drawn=found.machine, live_rows=[r for rows in live.values() for r in rows])
scaffold.notice(cannot or onscreen.gpu_side_note(source, lesson.missing_note(found, source.label), lesson.NO_GPU), box=top.note)

with scaffold.why("What this page measures (seed 003)") as opened:
    if opened:
        st.markdown(
            f"Seed 003 timed {lesson.SEED_REPORTED}. Work on a GPU is queued, not waited for (CUDA calls are "
            "asynchronous): `a @ b` on the GPU returns as soon as the work is queued, so a clock read right after it "
            "measures the queueing, not the arithmetic. Here the same square matmul is timed over a range of sizes on "
            "both devices; each switch shows one way the numbers can mislead. Both axes are logarithmic.")

# -- what the timer reports ----------------------------------------------------------------------------
with scaffold.why("What the timer reports") as opened:
    if opened:
        for sentence in words.sync_sentences(view.current, view.partner_rows("sync"), variant, size, order):
            st.markdown(sentence)
        repeats = onscreen.repeats_span(view.rows)
        if repeats:
            st.caption(f"Warm points: the median of {repeats} timed repeats after warm-up (bars: "
                       "interquartile range). Colour is where it was measured, the line style how it was timed.")
        for sentence in lesson.crossover_sentences(view, pack["machine"] if pack else None):
            st.markdown(sentence.markdown())

with scaffold.why("Cold first call against warm") as opened:
    if opened:
        if flags["cold"]:
            for sentence in words.cold_sentences(view.current, size, order):
                st.markdown(sentence)
            st.caption("The first call pays one-off costs that later calls do not (on a GPU, for example creating the "
                       "cuBLAS handle and choosing a kernel for the shape; the first call of a run also starts the CUDA "
                       "context). The warm median leaves it out; report it separately when it matters.")
        else:
            st.caption("Switch on **Show the cold first call** to draw each point's first call beside the warm median.")

if variant["dtype"] == "tf32":
    with scaffold.why("TF32") as opened:
        if opened:
            for sentence in words.tf32_sentences(view.current, view.partner_rows("tf32"), variant, size, order):
                st.markdown(sentence)
if variant["transfer"]:
    with scaffold.why("Counting the copy") as opened:
        if opened:
            for sentence in words.transfer_sentences(view.current, view.partner_rows("transfer"), variant, size, order):
                st.markdown(sentence)

# -- achieved FLOP/s -----------------------------------------------------------------------------------
# drawn closed too: the answer above quotes its rates
with scaffold.why("Operations per second (FLOP/s) against the best measured here", drawn=True) as opened:
    if opened:
        bests = pd.DataFrame(words.best_rates(view.rows, order))
        st.vega_lite_chart(
            chart_spec(variant_chart, pd.DataFrame(lesson.rate_lines(view)), "size", "achieved_flops_per_s", kind="flops",
                       color="series", dash="line", x_title="matrix size (rows = columns)", y_title="achieved rate",
                       color_title="measured on", dash_title="timing", color_order=order,
                       dash_order=[lesson.variant_label(variant), *lesson.partner_lines(variant), lesson.baseline_line()],
                       rules=bests if not bests.empty else None),
            width="stretch",
        )
        for sentence in words.flops_sentences(view.current, view.rows, variant, size, order):
            st.markdown(sentence)
        st.caption("Achieved floating-point operations per second (FLOP/s) = 2·size³ operations ÷ the time of one "
                   "call. “Best measured here” (dotted lines) is the highest among the synchronised points on screen "
                   "for that device and number format: a measurement from this sweep, not a datasheet number.")

# -- what was not measured, the rows themselves, recording ---------------------------------------------
scaffold.point_notes(view.rows, lesson.point_where, remarks=False)
scaffold.results_on_screen(
    view.rows, ("series", "recorded_on", "size", "dtype", "sync", "transfer", "median_s", "iqr_s", "cold_s", "achieved_flops_per_s",
                "phase_transfer_s", "repeats", "num_threads", "status", "message", "note"),
    [r for rows in live.values() for r in rows], pack, found.all_rows(), file_stem=lesson.file_stem(variant),
    key="timing.results")
scaffold.record_view(["\n".join(lesson.record_command(v) for v in views.values())],
                     "The app then shows that GPU curve beside the live CPU. `python3 scripts/record_packs.py "
                     "--topics timing` records the baseline and each toggle on its own.")
