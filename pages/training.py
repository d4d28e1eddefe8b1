"""Training crossover: the same training step (an MLP's, or another model family of
lib.workloads.family) timed on the CPU and the GPU, answer first.

The chart and the one-sentence answer are drawn at once from recorded data (the GPU chosen in the
sidebar, and a recording of a small server's CPU); this server's CPU is then measured live and
drawn on top. Every point says where it came from (lib/lessons/training/view.py); every sentence is
read from the curves on the chart (lib/lessons/training/words.py).
"""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from lib.charts import speedup_chart, speedup_frame
from lib.charts.provenance import curve_chart
from lib.core.fmt import plural
from lib.core.rows import Origin, Status
from lib.lessons.training import live as L
from lib.lessons.training import screen as S
from lib.lessons.training import view as T
from lib.lessons.training import words as W
from lib.recorded.ceilings import ceilings_for
from lib.recorded.sources import hardware_text, machine_text, small_server_pack
from ui import scaffold
from ui.chart_cache import chart_spec
from ui.measure import measure_sweep
from ui.sources import load_recorded, recorded_pack, source_for
from ui.step_story import SPLIT_KEY, how_modes_move, step_timeline, where_time_went
from ui.url_settings import UrlSettings

NS = "training"
PITFALLS_KEY = f"{NS}.pitfalls"  # the Pitfalls expander's open state (tests open it)
REDRAW_S = 1.0  # while measuring, redraw the growing live curve at most this often
CHART_HEIGHT = 300  # the plot's own (its axis and legend add to it); 280 inside an 800 × 600 iframe (?embed=true)

st.title("Training: from what size does the GPU win?")
# the answer in the same slot as on the other pages (ui.scaffold.answer_first), which embed tests look for
headline_box = st.container(key="answer").empty()
# the other sentences go under the chart: above it they pushed it off an 800 × 600 iframe and a phone's first screen
answer_box, chart_box, words_box, live_box = st.container(), st.empty(), st.container(), st.container()

# -- controls (below the answer) -------------------------------------------------------------------
url = UrlSettings(NS)
notes_box = st.container()
family = T.BY_NAME[url.radio("model", "Model trained", list(T.BY_NAME), T.MLP.name,
                             format_func=lambda n: T.BY_NAME[n].label)] if len(T.FAMILIES) > 1 else T.MLP_FAMILY
# a choice picks another model of the family (torchvision's network, a sequence length): each is recorded apart
family = family.pick(**{k: url.radio(c.url, c.label.capitalize(), list(c.options), family.default(k), format_func=c.show,
                                     help=c.sentence) for k, c in family.choices.items()})
st.caption(W.OWN_MODEL)  # a visitor's own model: run on their machine, never here
work, axes = family.workload, family.axes  # the family's workload and sliders (lib.workloads.family)
over = url.radio("over", "On the x-axis", list(axes), "batch_size", format_func=lambda k: axes[k].label)
left, right = st.columns(2)
values = {}
for i, (key, axis) in enumerate(axes.items()):
    shown = axis.label.capitalize() + (" (the point explained below)" if key == over else "")
    values[key] = url.select_slider(key, shown, list(axis.steps), family.default(key), help=axis.sentence,
                                    container=left if i % 2 == 0 else right)
# cannot: the sidebar's machine holds no Training rows of any family (the 4-GPU one); one family's missing
source, cannot = source_for(*(f.workload for f in T.FAMILIES))  # recording is said by the lesson's headline
pack = None if cannot else recorded_pack(source)
scaffold.notice(cannot, box=answer_box)
machine = machine_text(pack["machine"]) if pack else ""
gpu_tables = T.tables(pack, machine, family) if pack else {}
# every mode the recorded GPU's cost model answers, recorded there or not (the legend says which)
modes = T.modes_answered(gpu_tables.get("cuda")) if not source.live else list(T.LIVE_MODES)
mode = url.radio("mode", "How the step runs", modes or [T.View.mode], T.View.mode,
                 format_func=lambda m: T.mode_label(m) + ("" if source.live or T.mode_origin(gpu_tables.get("cuda"), m)
                                                          is Origin.RECORDED else " (predicted)"),
                 help="Eager PyTorch launches every operation from Python; a fused optimizer, one CUDA graph of the "
                      "whole step, or torch.compile remove some of those launches.") if len(modes) > 1 else T.View.mode
# lazy: its switches are out of sight until opened, and drawing them cost a new visitor's browser before the chart
with scaffold.lazy_expander("Pitfalls: the habits of the seed experiments, one switch each", PITFALLS_KEY) as shown:
    for key, (label, sentence) in T.PITFALLS.items():
        values[key] = url.toggle(key, label, family.default(key), help=sentence, drawn=shown)
    if len(L.THREAD_CHOICES) > 1:
        threads = url.select_slider("threads", "CPU threads for the live measurement", list(L.THREAD_CHOICES),
                                    L.DEFAULT_THREADS, drawn=shown,
                                    help="Up to one fewer than this server's cores: the web server needs one.")
    else:
        threads = L.DEFAULT_THREADS
        if shown:
            st.caption("This server has 2 cores or fewer: the CPU is measured with 1 thread, so the web server keeps "
                       "a core (two busy threads sharing it with the server stall and make the CPU look many times "
                       "slower).")
host_cpu = bool(pack) and url.toggle("recorded_cpu", "Also show the GPU machine's own CPU", False,
                                     help="The CPU of the machine the GPU results come from: the comparison its owner sees.")
url.show_notes(container=notes_box)
url.sync_url()
url.forget(T.FAMILY_KEYS)  # another model's sliders, left in the link when the model changed
view = T.View(over=over, family=family, mode=mode, **values)

packs = load_recorded()[0]
small_pack = small_server_pack(packs, work)
small = (S.Machine(T.tables(small_pack, machine_text(small_pack["machine"]), family),
                   f"{small_pack['machine'].get('cpu_cores', '?')}-core server", machine_text(small_pack["machine"]))
         if small_pack else None)
gpu = (S.Machine(gpu_tables, hardware_text(pack["machine"]), machine, ceilings_for(hardware_text(pack["machine"]), packs))
       if pack else None)


def draw(screen: S.Screen) -> None:
    rows = screen.rows()
    if not rows:
        chart_box.info("Nothing to draw yet: no recording covers this view, and this server's CPU has not been "
                       "measured for it.", icon=":material/info:")
        return
    chart = curve_chart(rows, over, x_title=view.axis.label, ticks=view.axis.steps[::4],
                        crossover=screen.crossover, height=scaffold.chart_height(CHART_HEIGHT, first=False),
                        legend_beside=scaffold.embedded())
    chart_box.vega_lite_chart(chart.to_arrow_spec(), width="stretch")  # an Altair chart compiled once per shape


recorded = S.compose(view, gpu=gpu, small_cpu=small, host_cpu=host_cpu, threads=threads)
headline_box.markdown(recorded.headline or "Measuring this server's CPU …")
if recorded.curves:
    draw(recorded)

# -- live on top -------------------------------------------------------------------------------------
devices = ["cpu", source.device] if source.live else ["cpu"]
# the live grid is measured once for every slider position (its crossover is the curves'); a point off it, apart
fixed_grid = L.live_grid(view)
fixed = L.live_settings(view, gpu_live=source.live)
last = [time.perf_counter()]


def grow(rows: list[dict]) -> None:
    if time.perf_counter() - last[0] >= REDRAW_S:
        draw(S.compose(view, gpu=gpu, small_cpu=small, host_cpu=host_cpu, live=rows, live_gpu=source.live,
                       threads=threads, grid=fixed_grid))
        last[0] = time.perf_counter()


# The grid is timed without the profiler: profiling its six points doubled a first visit's wait (4.7 s against
# 2.6 s on one CPU) for an expander few open. The slider's point is measured apart, with its profile, while
# "Where one step's time went" is open, and off the grid; the chart, the split and the words read that row.
split_open = scaffold.is_open(SPLIT_KEY)
with live_box:
    live = measure_sweep(work, over, fixed_grid, fixed, devices, num_threads=threads, on_rows=grow)
    if view.current not in fixed_grid or split_open:
        live = S.with_point(live, measure_sweep(work, over, [view.current], fixed, devices,
                                                current=view.current if split_open else None, num_threads=threads,
                                                on_rows=lambda r: grow(S.with_point(live, r, over))), over)
screen = S.compose(view, gpu=gpu, small_cpu=small, host_cpu=host_cpu, live=live, live_gpu=source.live, threads=threads,
                   grid=fixed_grid)
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

step_timeline(screen, view, gpu, source, threads, fixed["mode"])

how_modes_move(screen, view, gpu, scaffold.chart_height(CHART_HEIGHT, first=False))

if screen.gpu_label and screen.cpu_label:
    with scaffold.lazy_expander("Speed-up: CPU time ÷ GPU time", f"{NS}.speedup") as speedup_open:
        if speedup_open:
            frame = pd.DataFrame(screen.rows())
            speed = speedup_frame(frame, over, baseline=screen.cpu_label, other=screen.gpu_label, y="epoch_s")
            if not speed.empty:
                st.vega_lite_chart(chart_spec(speedup_chart, speed, over, x_title=view.axis.label), width="stretch")
                st.caption("Above the 1× line the GPU is faster.")

problems = [r for r in live if r.get("status") != Status.OK or r.get("message")]
if problems:
    with st.expander(f"Notes on {plural(len(problems), 'live point')}", expanded=False):
        for r in problems:
            st.markdown(f"- {view.axis.label} {r.get(over):,}: {r.get('message') or r.get('status')}")

measured = [r for rows in screen.curves.values() for r in rows if r.get("origin") == Origin.RECORDED]
scaffold.results_on_screen(screen.rows(), ("series", "recorded_on", over, "epoch_s", "epoch_s_low", "epoch_s_high", "median_s", "iqr_s",
                                           "steps_per_epoch", "repeats", "origin", "origin_note"),
                           live, pack, [r for r in measured if r.get("device") != "cpu"], file_stem=f"training_{over}",
                           key=f"{NS}.results")
