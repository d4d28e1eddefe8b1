"""Jacobian (seed 004): the method, not the device, is the real cost.

The val slider picks the batch size explained below; the sweep always covers the decades 1 to
1000 plus that value. The GPU side is live when this server has CUDA, else recorded with the
project's CLI (scripts/record_packs.py, topic "jacobian"). Numbers in the words come from the rows
on screen (lib/jacobian_lesson.py computes the sentences).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.charts.variants import memory_chart, variant_chart
from lib.core.fmt import fmt_value
from lib.core.rows import is_ok
from lib.core.sweep import default_memory_cap_gb
from lib.lessons import jacobian as lesson
from lib.lessons.live import DEFAULT_CPU_THREADS, LIVE_MAX_FLOPS
from lib.recorded.sources import matching_rows, series_label
from lib.workloads.jacobian import METHODS
from ui.downloads import download_buttons
from ui.measure import cached_measurement, live_point_budget_s
from ui.sources import live_devices, recorded_cpu_toggle, recorded_pack, recorded_rows, source_for
from ui.url_settings import UrlSettings

NS = "jacobian"
WORKLOAD = lesson.WORKLOAD
POINT_BUDGET_S = 0.03  # seconds of timed repeats per point: most points take a millisecond or less

st.title("Jacobian: when the algorithm beats the hardware")
st.markdown(
    "Seed 004 computed the Jacobian of a small tanh network (1 input → 20 → 20 → 400 outputs) over a batch "
    "of `val` inputs with `torch.autograd.functional.jacobian`, on the CPU and on the GPU. It reported "
    f"{lesson.SEED_REPORTED}: the GPU won only at the larger batch. Here the same Jacobian is computed four "
    "ways and timed on both devices. Both axes of the time chart are logarithmic."
)
notes_box = st.container()
url = UrlSettings(NS)
val = url.select_slider("val", "val — inputs in the batch (the point explained below)", lesson.VALS,
                        lesson.DEFAULT_VAL, help="The seed ran 100 and 1000. The curves always cover 1, 10, 100 "
                                                 "and 1,000, plus this value.")
methods = url.multiselect("methods", "Methods", METHODS, list(METHODS), format_func=lesson.LONG.get,
                          help="All four give the same numbers on the diagonal blocks (the workload checks it).")
source, switched = source_for(WORKLOAD)
pack = recorded_pack(source)
show_recorded_cpu = recorded_cpu_toggle(url, pack, WORKLOAD)
url.show_notes(container=notes_box)
url.sync_url()
methods = [m for m in METHODS if m in methods]

# -- where the numbers come from -------------------------------------------------------------------
devices = live_devices(source)
grid = lesson.sweep_grid(val)
st.caption(
    f"CPU: measured live on this server with {DEFAULT_CPU_THREADS} thread{'s' if DEFAULT_CPU_THREADS != 1 else ''}. "
    + ("GPU: measured live on this server." if source.live else
       f"GPU: recorded on {source.label}." if source.recorded else
       "GPU: none here, and no recorded GPU results shipped yet, so only the CPU is shown.")
)
if switched:
    st.info(switched, icon=":material/swap_horiz:")

if not methods:
    st.info("Pick at least one method above to see its curve.", icon=":material/info:")

budget = min(live_point_budget_s(), POINT_BUDGET_S)
live: list[dict] = []
for method in methods:
    # no `current`: the jacobian has no phases to time at one point, so the slider's value matters only
    # through the grid, and the decades' views share one measurement
    parts = {"kind": "jacobian_lesson", "method": method, "values": grid, "devices": devices,
             "point_budget_s": budget, "threads": DEFAULT_CPU_THREADS, "caps": LIVE_MAX_FLOPS,
             "loop_cap": lesson.LIVE_MAX_LOOP_PASSES, "memory_cap_gb": default_memory_cap_gb()}
    live += cached_measurement(
        parts,
        lambda progress, method=method: lesson.live_rows(method, grid, devices, current=None, point_budget_s=budget,
                                                         num_threads=DEFAULT_CPU_THREADS, progress=progress),
        label=f"jacobian {lesson.LABEL[method]} over val={','.join(map(str, grid))} on {', '.join(devices)}",
    )

recorded: list[dict] = []
recorded_cpu: list[dict] = []
missing: list[str] = []
pack_note = None
for method in methods:
    found, note = recorded_rows(source, WORKLOAD, "val", {"method": method, "val": val})
    if found:
        first_gpu = found[0]["device"]
        recorded += [r for r in found if r["device"] == first_gpu]
    elif note:
        missing.append(method)
        pack_note = note
    if show_recorded_cpu:
        recorded_cpu += [r for r in matching_rows(pack["rows"], WORKLOAD, "val", {"method": method, "val": val},
                                                  device_prefix="cpu") if r["device"] == "cpu"]

cpu_series = series_label("cpu", "live")
recorded_cpu_series = series_label("cpu", "recorded", source.label)
rows = [{**r, "series": series_label(r["device"], "live")} for r in live]
rows += [{**r, "series": recorded_cpu_series} for r in recorded_cpu]
rows += [{**r, "series": series_label(r["device"], "recorded", source.label)} for r in recorded]
gpu_series = next((r["series"] for r in rows if r["device"] != "cpu"), None)
series_order = [cpu_series] + ([recorded_cpu_series] if recorded_cpu else []) + ([gpu_series] if gpu_series else [])

if source.recorded and missing:
    if not recorded and pack_note and "hold nothing for this lesson" in pack_note:
        st.info(pack_note, icon=":material/info:")
    else:
        st.info(f"The recorded pack ({source.label}) has no jacobian sweep over val for "
                f"{lesson.and_list([lesson.LABEL[m] for m in missing])} with the seed's network (20 hidden, 400 outputs), "
                "so there is no GPU curve for "
                f"{'it' if len(missing) == 1 else 'them'}: only the live CPU is shown there.", icon=":material/info:")
elif not source.live and not source.recorded:
    st.info("No GPU on this server and no recorded GPU results shipped yet: only the live CPU curves are shown. "
            "A crossover needs a GPU curve.", icon=":material/info:")

if methods:
    # -- words at the chosen val -----------------------------------------------------------------------
    st.subheader(f"What the measurements say at val = {fmt_value(val)}")
    for sentence in lesson.at_val_sentences(rows, val, series_order):
        st.markdown(sentence)

    frame = pd.DataFrame(rows)
    frame["method_label"] = frame["method"].map(lesson.LABEL)
    st.altair_chart(
        variant_chart(frame, "val", "median_s", color="method_label", dash="series", iqr="iqr_s",
                      x_title="val (inputs in the batch)", y_title="time per Jacobian", color_title="method",
                      dash_title="measured on", color_order=[lesson.LABEL[m] for m in METHODS],
                      dash_order=series_order),
        width="stretch",
    )
    timed = [r for r in rows if is_ok(r)]
    if timed:
        repeats = [int(r["repeats"]) for r in timed]
        st.caption(f"Each point: the median time of one full Jacobian over {min(repeats)}–{max(repeats)} timed "
                   "repeats (bars: interquartile range); the warm-up calls are not counted. Colour is the method, the "
                   "line style where it was measured. Points not timed are marked × on the memory chart below.")

    # -- where the GPU starts to win, per method ------------------------------------------------------
    st.subheader("Where the GPU starts to win, method by method")
    if gpu_series:
        for method in methods:
            st.markdown(lesson.crossover_sentence(rows, method, cpu_series, gpu_series))
        if recorded_cpu:
            st.markdown(f"On the recording machine itself ({pack['machine'].get('cpu_model', '?')}, "
                        f"{pack['machine'].get('torch_threads', '?')} threads), the comparison the seed made:")
            for method in methods:
                st.markdown("- " + lesson.crossover_sentence(rows, method, recorded_cpu_series, gpu_series))
    else:
        st.markdown("There is no GPU curve on screen, so there is no crossover to show.")

    # -- why -------------------------------------------------------------------------------------------
    st.subheader("Why the method matters more than the device")
    for sentence in lesson.why_sentences(rows, val, methods, series_order):
        st.markdown(sentence)

    # -- memory ----------------------------------------------------------------------------------------
    st.subheader("The memory each method needs")
    estimates = pd.DataFrame(lesson.memory_estimates(methods, lesson.VALS, gpu=bool(gpu_series)))
    marks = pd.DataFrame(lesson.memory_marks(rows))
    st.altair_chart(
        memory_chart(estimates, marks, x="val", x_title="val (inputs in the batch)",
                     caps=[(default_memory_cap_gb() * 1e9, f"memory cap for live runs here: {default_memory_cap_gb():g} GB")],
                     color_order=[lesson.LABEL[m] for m in METHODS]),
        width="stretch",
    )
    st.caption("Lines: the workload's own estimate of peak memory (lib/workloads/jacobian.py), checked before "
               "anything is allocated. Circles: points timed; crosses (×): points not timed. On the CPU the loop's "
               "estimate includes the per-pass temporaries the C allocator cannot reuse.")
    refused = lesson.not_measured(rows)
    if refused:
        st.markdown(f"**Points not measured** ({len(refused)}), each with the reason:")
        st.dataframe(pd.DataFrame(refused), hide_index=True, width="stretch",
                     column_config={"why": st.column_config.TextColumn("why", width="large")})
    else:
        st.caption("Every point on screen was timed.")

    # -- the rows themselves ---------------------------------------------------------------------------
    with st.expander("Results on screen", expanded=False):
        columns = [c for c in ("series", "method", "val", "median_s", "iqr_s", "repeats", "flops",
                               "peak_memory_estimate_bytes", "num_threads", "status", "message") if c in frame.columns]
        st.dataframe(frame[columns], hide_index=True)
        shown = recorded + recorded_cpu
        download_buttons(live, [(pack, shown)] if pack and shown else [], file_stem=f"jacobian_val{val}")

    with st.expander("Record this view on a GPU machine", expanded=False):
        st.code("\n".join(lesson.record_command(m, grid) for m in methods), language="bash")
        st.caption("One sweep per method; the app then shows those GPU curves beside the live CPU. "
                   "`python3 scripts/record_packs.py --topics jacobian` records the page's default view and more.")
