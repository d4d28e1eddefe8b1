"""Training crossover: the same MLP training step timed on the CPU and the GPU.

Sliders pick batch size, hidden width, dataset size and depth; one of them is swept on the
x-axis (log-spaced points, always including the slider's value), the others stay fixed.
Every number in the words below the charts is read from the rows on screen.

To record a matching GPU curve for a hosted demo (no GPU there), run on a GPU machine the
command this page shows under "Record this view on a GPU machine", and put the pack in lib/recorded/.
"""

from __future__ import annotations

import os
import time

import pandas as pd
import streamlit as st

from lib.charts import phase_chart, speedup_chart, speedup_frame, time_chart
from lib.core.crossover import analyse_rows
from lib.core.fmt import fmt_num, fmt_ratio, fmt_s, fmt_value
from lib.core.rows import is_ok
from lib.lessons.explain import compare_sentence, crossover_sentence, regime_sentence, transfer_sentence
from lib.lessons.live import DEFAULT_CPU_THREADS, TORCH_DEFAULT_THREADS, log_grid, rows_at
from lib.recorded.sources import matching_rows, recorded_groups, series_label
from lib.workloads import get_workload
from ui.downloads import download_buttons
from ui.measure import measure_sweep
from ui.sources import current_source, live_devices, recorded_cpu_toggle, recorded_pack, recorded_rows
from ui.url_settings import UrlSettings, serialize

WORKLOAD = get_workload("mlp")
NS = "training"

# name -> (label, slider steps, sentence)
AXES = {
    "batch_size": ("batch size", [2**i for i in range(15)], "Rows per optimizer step (full batch when at least the dataset size)."),
    "hidden_width": ("hidden width", [2**i for i in range(2, 14)], "Units in each hidden layer."),
    "dataset_size": ("dataset size", [2**i for i in range(8, 21)], "Rows in one epoch: more rows, more steps per epoch."),
    "depth": ("depth", [1, 2, 3, 4, 6, 8, 12, 16], "Number of hidden layers: each adds kernels to every step."),
}
PITFALLS = {
    "data_resident": ("Data already on the device",
                      "On: the dataset is copied to the device once; off: every batch is copied from host memory "
                      "inside the step, as a DataLoader would feed it."),
    "item_every_step": ("loss.item() every step",
                        "On: each step copies the loss back to the host, so the CPU must wait for the GPU to finish "
                        "before it can queue the next step."),
    "pin_memory": ("Pinned host memory",
                   "On: batches copied per step come from page-locked memory with non_blocking copies, which lets "
                   "the copy overlap the GPU's work (no effect on the CPU, or when the data is resident)."),
}
THREADS_SENTENCE = ("How many threads PyTorch's CPU kernels may use: fewer threads make big steps slower on the CPU "
                    "and leave the GPU's time unchanged."
                    + (f" PyTorch's own default here is {TORCH_DEFAULT_THREADS}; this page starts at {DEFAULT_CPU_THREADS} "
                       "to leave a core to the web server, because busy threads that lose their core to it stall "
                       "and make the CPU look many times slower than it is." if DEFAULT_CPU_THREADS < TORCH_DEFAULT_THREADS else ""))
MAX_THREADS = max(os.cpu_count() or 1, TORCH_DEFAULT_THREADS, DEFAULT_CPU_THREADS)
POINTS = 6
REDRAW_S = 1.0  # while measuring, redraw the growing curve at most this often


def label_of(key: str) -> str:
    return AXES[key][0]


def use_settings(query: dict[str, str]) -> None:
    """Button callback: put a recorded sweep's settings into the widgets."""
    for key, text in query.items():
        wkey = f"{NS}.{key}"
        if key == "over":
            st.session_state[wkey] = text
        elif key in AXES:
            st.session_state[wkey] = int(text)
        elif key in PITFALLS:
            st.session_state[wkey] = text == "true"


# -- controls ------------------------------------------------------------------------------------
st.title("Training crossover")
st.markdown(
    "The same MLP training step (forward, backward, Adam update), with the same initial weights and the "
    "same data, timed on the CPU and on the GPU. Pick the setting on the x-axis; the others stay at their "
    "slider values. Both axes are logarithmic."
)
notes_box = st.container()
url = UrlSettings(NS)
over = url.radio("over", "Swept on the x-axis", list(AXES), "batch_size", format_func=label_of)
left, right = st.columns(2)
settings: dict = {}
for i, (key, (label, steps, sentence)) in enumerate(AXES.items()):
    shown = label.capitalize() + (" — x-axis; the slider picks the point explained below" if key == over else "")
    settings[key] = url.select_slider(key, shown, steps, WORKLOAD.setting(key).default, help=sentence,
                                      container=left if i % 2 == 0 else right)
with st.expander("Pitfalls: the habits of the seed experiments, one switch each", expanded=True):
    for key, (label, sentence) in PITFALLS.items():
        settings[key] = url.toggle(key, label, WORKLOAD.setting(key).default, help=sentence)
        st.caption(sentence)
    threads = url.slider("threads", "CPU threads", 1, MAX_THREADS, DEFAULT_CPU_THREADS, help=THREADS_SENTENCE)
    st.caption(THREADS_SENTENCE)
source = current_source()
pack = recorded_pack(source)
show_recorded_cpu = recorded_cpu_toggle(url, pack, WORKLOAD)
url.show_notes(container=notes_box)
url.sync_url()

# -- measure -------------------------------------------------------------------------------------
devices = live_devices(source)
current = settings[over]
fixed = {k: v for k, v in settings.items() if k != over}
recorded, recorded_note = recorded_rows(source, WORKLOAD, over, settings)
recorded_cpu = []
if recorded:
    first_gpu = recorded[0]["device"]
    recorded = [r for r in recorded if r["device"] == first_gpu]
    if show_recorded_cpu:
        recorded_cpu = [r for r in matching_rows(pack["rows"], WORKLOAD, over, settings, device_prefix="cpu")
                        if r["device"] == "cpu"]
    # time the live CPU where the recorded GPU was timed, so the two curves share their points
    grid = sorted({r[over] for r in recorded if r[over] in AXES[over][1]} | {current})
else:
    grid = log_grid(AXES[over][1], n=POINTS, include=[current])
st.caption(
    f"CPU: measured live on this server with {threads} thread{'s' if threads != 1 else ''}. "
    + ("GPU: measured live on this server." if source.live else
       f"GPU: recorded on {source.label}." if source.recorded else
       "GPU: none here, and no recorded GPU results shipped yet, so only the CPU is shown.")
)

st.subheader("What the measurements say")
words = st.container()
status = st.container()
chart_box = st.empty()
recorded_cpu_series = series_label("cpu", "recorded", source.label)
rows_cpu_recorded = [{**r, "series": recorded_cpu_series} for r in recorded_cpu]
recorded_shown = [{**r, "series": series_label(r["device"], "recorded", source.label)} for r in recorded]


def epoch_frame(labelled: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(labelled)
    if {"iqr_s", "steps_per_epoch"} <= set(frame.columns):
        frame["epoch_iqr_s"] = frame["iqr_s"] * frame["steps_per_epoch"]
    return frame


def draw(labelled: list[dict], crossover_x: float | None = None) -> None:
    chart_box.altair_chart(
        time_chart(epoch_frame(labelled), over, y="epoch_s", iqr="epoch_iqr_s", crossover_x=crossover_x,
                   crossover_label=f"crossover ≈ {fmt_num(crossover_x)}" if crossover_x else None,
                   x_title=label_of(over), y_title="time per epoch"),
        width="stretch",
    )


last_draw = [time.perf_counter()]


def grow(so_far: list[dict]) -> None:
    """Redraw with the live points measured so far, at most about once a second (each redraw costs
    the server and the browser some CPU, which a small server would rather spend measuring)."""
    if time.perf_counter() - last_draw[0] >= REDRAW_S:
        draw([{**r, "series": series_label(r["device"], "live")} for r in so_far] + recorded_shown + rows_cpu_recorded)
        last_draw[0] = time.perf_counter()


if recorded_shown:  # the recorded curve at once; the live one grows beside it while it is measured
    draw(recorded_shown + rows_cpu_recorded)
with status:
    live = measure_sweep(WORKLOAD, over, grid, fixed, devices, current=current, num_threads=threads, on_rows=grow)

rows = [{**r, "series": series_label(r["device"], "live")} for r in live] + recorded_shown
frame = epoch_frame(rows + rows_cpu_recorded)

cpu_series = series_label("cpu", "live")
gpu_rows = [r for r in rows if r["device"] != "cpu"]
gpu_series = gpu_rows[0]["series"] if gpu_rows else None
ok = [r for r in rows if is_ok(r, "epoch_s")]
analysis = analyse_rows(ok, over) if ok else None
crossover_x = analysis.measured.x if analysis and analysis.measured.kind == "crosses" else None
same_machine = None
if rows_cpu_recorded:
    same_ok = [r for r in rows_cpu_recorded + gpu_rows if is_ok(r, "epoch_s")]
    same_machine = analyse_rows(same_ok, over) if same_ok else None

# -- words: who wins here, and where the curves cross --------------------------------------------
here = rows_at(rows + rows_cpu_recorded, over, current)
cpu_here = next((r for r in here if r["device"] == "cpu"), None)
gpu_here = next((r for r in here if r["device"] != "cpu"), None)
at = f"{label_of(over)} = {fmt_value(current)}"
with words:  # the sentences go above the chart, in the container placed there
    if cpu_here and gpu_here and is_ok(cpu_here) and is_ok(gpu_here):
        steps = cpu_here.get("steps_per_epoch")
        cpu_iqr = (cpu_here.get("iqr_s") or 0) * (cpu_here.get("steps_per_epoch") or 1)
        gpu_iqr = (gpu_here.get("iqr_s") or 0) * (gpu_here.get("steps_per_epoch") or 1)
        st.markdown(f"At {at} ({int(steps):,} step{'s' if steps != 1 else ''} per epoch): "
                    + compare_sentence(cpu_series, cpu_here["epoch_s"], gpu_series, gpu_here["epoch_s"],
                                       what="per epoch", a_iqr=cpu_iqr, b_iqr=gpu_iqr))
    elif cpu_here and is_ok(cpu_here):
        st.markdown(f"At {at}: **{cpu_series}** takes {fmt_s(cpu_here['epoch_s'])} per epoch "
                    f"({int(cpu_here['steps_per_epoch']):,} steps of {fmt_s(cpu_here['median_s'])}). "
                    + (f"There is no GPU measurement at this point to compare with: the GPU was timed at {label_of(over)} "
                       + ", ".join(fmt_value(x) for x in sorted({r[over] for r in gpu_rows})) + "." if gpu_series else
                       "There is no GPU curve on screen to compare with."))
    elif cpu_here:
        st.markdown(f"At {at} the CPU was not measured: {cpu_here.get('message') or cpu_here.get('status')}.")
    if gpu_series:
        st.markdown(crossover_sentence(analysis, label_of(over), cpu_series, gpu_series))
    if same_machine is not None:
        machine = pack["machine"]
        st.markdown(f"On the recording machine itself ({machine.get('cpu_model', '?')}, {machine.get('torch_threads', '?')} "
                    "threads), the comparison the GPU's owner would see: "
                    + crossover_sentence(same_machine, label_of(over), recorded_cpu_series, gpu_series))
    if settings["batch_size"] >= settings["dataset_size"] and over != "batch_size":
        st.caption("The batch size is at least the dataset size, so every step is the whole dataset (one step per epoch).")
    if source.recorded and recorded_note:
        st.info(recorded_note, icon=":material/info:")
    elif not source.live and not source.recorded:
        st.info("No GPU on this server and no recorded GPU results shipped yet: only the live CPU curve is shown. "
                "A crossover needs a GPU curve.", icon=":material/info:")


# -- charts ----------------------------------------------------------------------------------------
draw(rows + rows_cpu_recorded, crossover_x)
if ok:
    repeats = [int(r["repeats"]) for r in ok]
    st.caption(f"Each point: the median time of one step over {min(repeats)}–{max(repeats)} timed repeats, times the "
               "steps in an epoch; bars span the interquartile range (IQR). Warm-up calls are not counted.")

if gpu_series:
    speed = speedup_frame(frame, over, baseline=cpu_series, other=gpu_series, y="epoch_s")
    if not speed.empty:
        st.altair_chart(speedup_chart(speed, over, x_title=label_of(over), crossover_x=crossover_x), width="stretch")
        best = speed.loc[speed["speedup"].idxmax()]
        worst = speed.loc[speed["speedup"].idxmin()]
        st.caption(f"Speed-up = CPU time / GPU time; above the 1× line the GPU is faster. On screen it ranges from "
                   f"{fmt_ratio(worst['speedup'])} at {label_of(over)} {fmt_value(worst[over])} to "
                   f"{fmt_ratio(best['speedup'])} at {fmt_value(best[over])}.")

# -- where the time went at the current point ------------------------------------------------------
st.subheader(f"Where one step's time went at {at}")
here_frame = pd.DataFrame([r for r in here if is_ok(r)])
if not here_frame.empty and any(c.startswith("phase_") for c in here_frame.columns):
    st.altair_chart(phase_chart(here_frame), width="stretch")
    st.caption("Transfer and compute are timed on their own; overhead & sync is what the whole step took beyond them.")
else:
    st.caption("No phase timings at this point.")
for row in here:
    if not is_ok(row):
        continue
    model = None
    if row["series"] == recorded_cpu_series and same_machine is not None:
        model = same_machine.cpu_model
    elif analysis is not None:
        model = analysis.cpu_model if row["device"] == analysis.cpu_device else analysis.gpu_model
    st.markdown(regime_sentence(row, row["series"], model=model, work=row.get("flops")))
    copy = transfer_sentence(row, row["series"])
    if copy:
        st.markdown(copy)

# -- what was not measured, and the rows themselves ------------------------------------------------
problems = [r for r in rows + rows_cpu_recorded if not is_ok(r) or r.get("message")]
if problems:
    with st.expander(f"Notes on {len(problems)} point{'s' if len(problems) != 1 else ''}", expanded=False):
        for r in problems:
            st.markdown(f"- {r['series']}, {label_of(over)} {fmt_value(r.get(over))}: "
                        f"{r.get('status')}{' — ' + r['message'] if r.get('message') else ''}")

with st.expander("Results on screen", expanded=False):
    columns = [c for c in ("series", over, "epoch_s", "median_s", "iqr_s", "steps_per_epoch", "repeats",
                           "num_threads", "flops", "kernels", "device_busy_s", "phase_transfer_s", "phase_compute_s",
                           "phase_overhead_s", "status", "message") if c in frame.columns]
    st.dataframe(frame[columns], hide_index=True)
    download_buttons(live, [(pack, recorded + recorded_cpu)] if pack and recorded else [], file_stem=f"training_{over}")

if source.recorded and not recorded and pack:
    groups = [g for g in recorded_groups(pack["rows"], WORKLOAD) if g["over"] in AXES]
    usable = []
    for g in groups:
        p = g["params"]
        page_keys = [*AXES, *PITFALLS]
        off_page = {k: v for k, v in p.items() if k not in page_keys and v != WORKLOAD.setting(k).default}
        if off_page or any(p[k] not in AXES[k][1] for k in AXES):
            continue
        usable.append(g)
    if usable:
        st.markdown("Recorded sweeps this page can show:")
        for n, g in enumerate(usable[:8]):
            p = g["params"]
            query = {"over": g["over"], **{k: serialize(p[k]) for k in [*AXES, *PITFALLS]}}
            text = ", ".join(f"{label_of(k)} {fmt_value(p[k])}" for k in AXES if k != g["over"])
            flags = ", ".join(f"{PITFALLS[k][0].lower()} {fmt_value(p[k])}" for k in PITFALLS
                              if p[k] != WORKLOAD.setting(k).default)
            st.button(f"Show the sweep over {label_of(g['over'])} ({text}{'; ' + flags if flags else ''})",
                      key=f"{NS}.use.{n}", on_click=use_settings, args=(query,))

with st.expander("Record this view on a GPU machine", expanded=False):
    sets = " ".join(f"--set {k}={serialize(v)}" for k, v in fixed.items())
    st.code(f"python -m lib sweep mlp --over {over}={','.join(str(v) for v in grid)} {sets} "
            f"--devices cpu,cuda --out lib/recorded/mlp_{over}.json", language="bash")
    st.caption("The app then shows that GPU curve beside the live CPU for these settings.")
