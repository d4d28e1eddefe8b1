"""Timing pitfalls (seed 003): a matmul size sweep, timed honestly and the ways timing it can lie.

Toggles: synchronise or not, the cold first call, TF32, the host-to-device copy. The view's
timings are drawn beside the honest baseline (synchronised fp32, inputs already on the device)
whenever a toggle differs from it. The GPU side is live when this server has CUDA, else recorded
with the project's CLI (scripts/record_packs.py, topic "timing"). Numbers in the words come from
the rows on screen (lib/timing_lesson.py computes the sentences).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.charts.variants import variant_chart
from lib.core.crossover import analyse_rows
from lib.core.fmt import fmt_num, fmt_value
from lib.core.rows import is_ok
from lib.lessons import timing_pitfalls as lesson
from lib.lessons.explain import crossover_sentence
from lib.lessons.live import DEFAULT_CPU_THREADS, LIVE_MAX_FLOPS
from lib.recorded.sources import matching_rows, series_label
from ui.downloads import download_buttons
from ui.measure import cached_measurement, live_point_budget_s
from ui.sources import live_devices, recorded_cpu_toggle, recorded_pack, recorded_rows, source_for
from ui.url_settings import UrlSettings

NS = "timing"
WORKLOAD = lesson.WORKLOAD
TOGGLES = {
    "sync": ("Synchronise before reading the clock", True,
             "On: the harness waits for the device (torch.cuda.synchronize()) before every clock read. Off: a naive "
             "timer, which on a GPU measures only how long it takes to queue the work."),
    "cold": ("Show the cold first call", True,
             "The very first call of each point, timed on its own and never part of the median."),
    "tf32": ("TF32 tensor cores", False,
             "fp32 matmuls computed in TF32 on NVIDIA tensor cores (fp32 range, 10-bit mantissa); the CPU runs fp32."),
    "transfer": ("Count the host → device copy", False,
                 "Copy both inputs from (pinned) host memory inside every timed call, as if they came from the CPU "
                 "each time. Nothing to copy on the CPU."),
}

st.title("Timing pitfalls: how a naive timer lies about a matmul")
st.markdown(
    f"Seed 003 timed {lesson.SEED_REPORTED}. CUDA calls are asynchronous: `a @ b` on the GPU returns as soon as "
    "the work is queued, so a clock read right after it measures the queueing, not the arithmetic. Here the same "
    "square matmul is timed over a range of sizes on both devices; each switch below shows one way the numbers "
    "can mislead. Both axes are logarithmic."
)
notes_box = st.container()
url = UrlSettings(NS)
size = url.select_slider("size", "Matrix size (rows = columns; the point explained below)", lesson.SIZES,
                         lesson.DEFAULT_SIZE, help="The curves always cover every size; seed 003 used 15,360.")
left, right = st.columns(2)
flags = {key: url.toggle(key, label, default, help=sentence, container=left if i < 2 else right)
         for i, (key, (label, default, sentence)) in enumerate(TOGGLES.items())}
source, switched = source_for(WORKLOAD)
pack = recorded_pack(source)
show_recorded_cpu = recorded_cpu_toggle(url, pack, WORKLOAD)
url.show_notes(container=notes_box)
url.sync_url()
variant = lesson.variant_of(flags["sync"], flags["tf32"], flags["transfer"])
differs = variant != lesson.BASELINE

# -- measure ---------------------------------------------------------------------------------------
devices = live_devices(source)
st.caption(
    f"CPU: measured live on this server with {DEFAULT_CPU_THREADS} thread{'s' if DEFAULT_CPU_THREADS != 1 else ''}. "
    + ("GPU: measured live on this server." if source.live else
       f"GPU: recorded on {source.label}." if source.recorded else
       "GPU: none here, and no recorded GPU results shipped yet, so only the CPU is shown.")
)
if switched:
    st.info(switched, icon=":material/swap_horiz:")

budget = live_point_budget_s()


def measure(v: dict) -> list[dict]:
    # the copy is timed on its own at the slider's size only; without it the size only picks the point explained,
    # so moving the slider reuses the measurement
    current = size if v["transfer"] else None
    parts = {"kind": "timing_lesson", "variant": v, "values": list(lesson.SIZES), "devices": devices,
             "current": current, "point_budget_s": budget, "threads": DEFAULT_CPU_THREADS, "caps": LIVE_MAX_FLOPS}
    return cached_measurement(
        parts,
        lambda progress: lesson.live_rows(v, devices, current=current, point_budget_s=budget,
                                          num_threads=DEFAULT_CPU_THREADS, progress=progress),
        label=f"matmul over size ({lesson.variant_label(v)}) on {', '.join(devices)}",
    )


views = [variant] + ([lesson.BASELINE] if differs else [])
live: dict[str, list[dict]] = {}
recorded: dict[str, list[dict]] = {}
recorded_cpu: dict[str, list[dict]] = {}
no_match: list[str] = []
pack_note = None
for v in views:
    name = lesson.variant_label(v)
    live[name] = measure(v)
    found, note = recorded_rows(source, WORKLOAD, "size", {**v, "size": size})
    if found:
        first_gpu = found[0]["device"]
        recorded[name] = [r for r in found if r["device"] == first_gpu]
    elif note:
        no_match.append(name)
        pack_note = note
    if show_recorded_cpu:
        recorded_cpu[name] = [r for r in matching_rows(pack["rows"], WORKLOAD, "size", {**v, "size": size},
                                                       device_prefix="cpu") if r["device"] == "cpu"]

cpu_series = series_label("cpu", "live")
recorded_cpu_series = series_label("cpu", "recorded", source.label)


def labelled(name: str) -> list[dict]:
    rows = [{**r, "series": series_label(r["device"], "live")} for r in live.get(name, [])]
    rows += [{**r, "series": recorded_cpu_series} for r in recorded_cpu.get(name, [])]
    return rows + [{**r, "series": series_label(r["device"], "recorded", source.label)} for r in recorded.get(name, [])]


current_name = lesson.variant_label(variant)
baseline_name = lesson.variant_label(lesson.BASELINE)
current_rows = labelled(current_name)
baseline_rows = labelled(baseline_name) if differs else current_rows
all_rows = current_rows + (baseline_rows if differs else [])
gpu_series = next((r["series"] for r in all_rows if r["device"] != "cpu"), None)
has_recorded_cpu = any(r["series"] == recorded_cpu_series for r in all_rows)
series_order = [cpu_series] + ([recorded_cpu_series] if has_recorded_cpu else []) + ([gpu_series] if gpu_series else [])

if source.recorded and no_match:
    if pack_note and "hold nothing for this lesson" in pack_note:
        st.info(pack_note, icon=":material/info:")
    else:
        st.info(f"The recorded pack ({source.label}) has no matmul sweep over size for "
                + " or ".join(f"“{n}”" for n in no_match)
                + ", so there is no GPU curve for it: only the live CPU is shown there. The pack holds the honest "
                "baseline and one toggle at a time; combinations are not recorded.", icon=":material/info:")
elif not source.live and not source.recorded:
    st.info("No GPU on this server and no recorded GPU results shipped yet: only the live CPU is shown, and the "
            "GPU's pitfalls (asynchronous calls, tensor cores, copies) cannot be shown.", icon=":material/info:")

# -- what the timer reports ----------------------------------------------------------------------------
lines = []
for r in current_rows:
    lines.append({**r, "line": current_name})
    if flags["cold"] and is_ok(r, "cold_s"):
        lines.append({**r, "line": lesson.cold_label(variant), "median_s": r["cold_s"], "iqr_s": None})
if differs:
    lines += [{**r, "line": f"honest baseline: {baseline_name}"} for r in baseline_rows]
frame = pd.DataFrame(lines)

honest = current_rows if variant["sync"] else baseline_rows
honest_ok = [r for r in honest if is_ok(r)]
analysis = (analyse_rows([r for r in honest_ok if r["series"] in (cpu_series, gpu_series)], "size")
            if gpu_series and honest_ok else None)
same_machine = (analyse_rows([r for r in honest_ok if r["series"] in (recorded_cpu_series, gpu_series)], "size")
                if gpu_series and has_recorded_cpu else None)
crossover_x = analysis.measured.x if analysis and analysis.measured.kind == "crosses" else None

st.subheader("What the timer reports")
for sentence in lesson.sync_sentences(current_rows, baseline_rows, variant, size, series_order):
    st.markdown(sentence)
st.altair_chart(
    variant_chart(frame, "size", "median_s", color="series", dash="line", iqr="iqr_s",
                  x_title="matrix size (rows = columns)", y_title="time per matmul", color_title="measured on",
                  dash_title="timing", color_order=series_order,
                  dash_order=[current_name, lesson.cold_label(variant), f"honest baseline: {baseline_name}"],
                  crossover_x=crossover_x,
                  crossover_label=f"crossover ≈ {fmt_num(crossover_x)}" if crossover_x else None),
    width="stretch",
)
timed = [r for r in all_rows if is_ok(r)]
if timed:
    repeats = [int(r["repeats"]) for r in timed]
    st.caption(f"Warm points: the median of {min(repeats)}–{max(repeats)} timed repeats after warm-up (bars: "
               "interquartile range). Colour is where it was measured, the line style how it was timed.")
if gpu_series:
    which = "" if variant["sync"] else "From the synchronised timings: "
    st.markdown(which + crossover_sentence(analysis, "size", cpu_series, gpu_series))
    if same_machine is not None:
        st.markdown(f"On the recording machine itself ({pack['machine'].get('cpu_model', '?')}, "
                    f"{pack['machine'].get('torch_threads', '?')} threads): "
                    + crossover_sentence(same_machine, "size", recorded_cpu_series, gpu_series))

st.subheader("Cold first call against warm")
if flags["cold"]:
    for sentence in lesson.cold_sentences(current_rows, size, series_order):
        st.markdown(sentence)
    st.caption("The first call pays one-off costs that later calls do not (on a GPU, for example creating the "
               "cuBLAS handle and choosing a kernel for the shape; the first call of a run also starts the CUDA "
               "context). The warm median leaves it out; report it separately when it matters.")
else:
    st.caption("Switch on **Show the cold first call** to draw each point's first call beside the warm median.")

if variant["dtype"] == "tf32":
    st.subheader("TF32")
    for sentence in lesson.tf32_sentences(current_rows, baseline_rows, variant, size, series_order):
        st.markdown(sentence)
if variant["transfer"]:
    st.subheader("Counting the copy")
    for sentence in lesson.transfer_sentences(current_rows, baseline_rows, variant, size, series_order):
        st.markdown(sentence)

# -- achieved FLOP/s -----------------------------------------------------------------------------------
st.subheader("Achieved FLOP/s against the best measured here")
rate_lines = [{**r, "line": current_name} for r in current_rows]
if differs:
    rate_lines += [{**r, "line": f"honest baseline: {baseline_name}"} for r in baseline_rows]
bests = pd.DataFrame(lesson.best_rates(all_rows, series_order))
st.altair_chart(
    variant_chart(pd.DataFrame(rate_lines), "size", "achieved_flops_per_s", kind="flops", color="series", dash="line",
                  x_title="matrix size (rows = columns)", y_title="achieved rate",
                  color_title="measured on", dash_title="timing", color_order=series_order,
                  dash_order=[current_name, f"honest baseline: {baseline_name}"],
                  rules=bests if not bests.empty else None),
    width="stretch",
)
for sentence in lesson.flops_sentences(current_rows, all_rows, variant, size, series_order):
    st.markdown(sentence)
st.caption("Achieved FLOP/s = 2·size³ floating-point operations ÷ the time of one call. “Best measured here” "
           "(dotted lines) is the highest among the synchronised points on screen for that device and number format: "
           "a measurement from this sweep, not a datasheet number.")

# -- what was not measured, and the rows themselves ------------------------------------------------------
problems = [r for r in all_rows if not is_ok(r)]
if problems:
    with st.expander(f"Points not measured ({len(problems)})", expanded=False):
        for r in problems:
            st.markdown(f"- {r['series']}, size {fmt_value(r.get('size'))}, {lesson.variant_label(r)}: "
                        f"{r.get('status')}{' — ' + r['message'] if r.get('message') else ''}")

with st.expander("Results on screen", expanded=False):
    table = pd.DataFrame(all_rows)
    columns = [c for c in ("series", "size", "dtype", "sync", "transfer", "median_s", "iqr_s", "cold_s",
                           "achieved_flops_per_s", "phase_transfer_s", "repeats", "num_threads", "status", "message",
                           "note") if c in table.columns]
    st.dataframe(table[columns], hide_index=True)
    live_all = [r for rows in live.values() for r in rows]
    recorded_all = [r for rows in [*recorded.values(), *recorded_cpu.values()] for r in rows]
    download_buttons(live_all, [(pack, recorded_all)] if pack and recorded_all else [],
                     file_stem=f"matmul_{'_'.join(lesson.changes(variant)) or 'honest'}")

with st.expander("Record this view on a GPU machine", expanded=False):
    st.code("\n".join(lesson.record_command(v) for v in views), language="bash")
    st.caption("The app then shows that GPU curve beside the live CPU. "
               "`python3 scripts/record_packs.py --topics timing` records the baseline and each toggle on its own.")
