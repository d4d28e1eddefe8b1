"""Data pipeline (seeds 000 and 001): a DataLoader over images vs tensors already on the device.

One epoch of training, fed two ways: a DataLoader that turns every row into a PIL image and back
(ToTensor, Normalize), as torchvision's MNIST does, or the same numbers already in tensors on the
device. The CPU is timed live; the GPU side is live on a GPU server, else a recorded pack's
(recorded with scripts/record_packs.py, topic data_pipeline). Every number in the words is read
from the rows on screen (lib/pipeline.py computes the sentences).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from lib.charts import phase_chart, time_chart
from lib.core.fmt import fmt_ratio, fmt_s, fmt_value, pct
from lib.core.rows import is_ok
from lib.lessons.live import DEFAULT_CPU_THREADS, log_grid, rows_at
from lib.lessons.pipeline import (
    MOSTLY,
    PHASES,
    SAME_WITHIN,
    SOURCES,
    ceiling_sentence,
    device_sentence,
    live_rows,
    loading_share,
    phase_note,
    sweep_summary,
)
from lib.recorded.sources import machine_text, matching_rows, recorded_groups, series_label
from lib.workloads import get_workload
from ui.downloads import download_buttons
from ui.measure import DEFAULT_TOTAL_BUDGET_S, cached_measurement, live_point_budget_s
from ui.sources import current_source, live_devices, load_recorded
from ui.url_settings import UrlSettings, serialize

WORKLOAD = get_workload("dataloader")
NS = "data_pipeline"

# name -> (label, slider steps, default, sentence)
AXES = {
    "batch_size": ("batch size", [8, 16, 32, 64, 128, 256, 512], 64,
                   "Rows per optimizer step: fewer, larger batches mean fewer steps in an epoch."),
    "dataset_size": ("dataset size", [256, 512, 1024, 2048], 256,
                     "Rows in one epoch; every one of them is decoded once per epoch when the source is images."),
}
MODELS = {"linear": "Linear 784→10 (seed 001)", "mlp": "MLP 784-400-200-100-10 (seed 000)"}
WORKERS = [0, 1, 2, 4]
POINTS = 3
WORKERS_SENTENCE = ("DataLoader worker processes that decode images in parallel with training (0: the main "
                    "process decodes every batch itself, between steps). Workers need free CPU cores; this "
                    "server has few. Only the images source uses them.")
PIN_SENTENCE = ("Batches are copied into page-locked host memory so the copy to the GPU can run asynchronously "
                "(non_blocking). It only changes copies to a GPU: on the CPU, and for tensors already on the "
                "device, there is no copy.")


def label_of(key: str) -> str:
    return AXES[key][0]


def use_settings(query: dict[str, str]) -> None:
    """Button callback: put a recorded sweep's settings into the widgets."""
    for key, text in query.items():
        wkey = f"{NS}.{key}"
        if key in ("over", "model"):
            st.session_state[wkey] = text
        elif key in AXES or key == "num_workers":
            st.session_state[wkey] = int(text)
        elif key == "pin_memory":
            st.session_state[wkey] = text == "true"


# -- setup and controls -----------------------------------------------------------------------------
st.title("Data pipeline: when the device does not matter")
st.markdown(
    "Seed 001 trained a one-layer model on MNIST and found the CPU and the GPU equally fast: 14.5 s per epoch "
    "each. Seed 000 saw its MNIST minibatch run only 7% faster on the GPU. In both, every image went through "
    "the DataLoader one at a time (a PIL image, `ToTensor`, `Normalize`) on the CPU before either device saw "
    "it. Below, one epoch is timed two ways: fed by that **DataLoader over images**, and from the same numbers "
    "as **tensors already on the device**. Each epoch is split into **loading** (walking the batches and "
    "copying them to the device, without training) and **compute** (training on batches already there)."
)
notes_box = st.container()
url = UrlSettings(NS)
over = url.radio("over", "Swept on the x-axis", list(AXES), "batch_size", format_func=label_of)
left, right = st.columns(2)
settings: dict = {}
for i, (key, (label, steps, default, sentence)) in enumerate(AXES.items()):
    shown = label.capitalize() + (" — x-axis; the slider picks the point explained below" if key == over else "")
    settings[key] = url.select_slider(key, shown, steps, default, help=sentence,
                                      container=left if i == 0 else right)
settings["model"] = url.radio("model", "Model trained", list(MODELS), "linear", format_func=MODELS.get,
                              help="Seed 001 trained a single linear layer; seed 000 a four-layer MLP. More "
                                   "compute per batch gives the device more to do.")
with st.expander("DataLoader settings (the images source)", expanded=True):
    c1, c2 = st.columns(2)
    settings["num_workers"] = url.select_slider("num_workers", "Worker processes (num_workers)", WORKERS, 0,
                                                help=WORKERS_SENTENCE, container=c1)
    settings["pin_memory"] = url.toggle("pin_memory", "Pinned memory (pin_memory)", False, help=PIN_SENTENCE,
                                        container=c2)
    st.caption(WORKERS_SENTENCE)
    st.caption(PIN_SENTENCE)
url.show_notes(container=notes_box)
url.sync_url()

# -- measure ------------------------------------------------------------------------------------------
source = current_source()
devices = live_devices(source)
gpu_live = len(devices) > 1
current = settings[over]
grid = log_grid(AXES[over][1], n=POINTS, include=[current])
common = {"batch_size": settings["batch_size"], "dataset_size": settings["dataset_size"], "model": settings["model"]}
params_of = {
    # pinned memory changes nothing without a GPU to copy to: the CPU is measured without it
    "images": {**common, "source": "images", "num_workers": settings["num_workers"],
               "pin_memory": settings["pin_memory"] if gpu_live else False},
    # tensors never go through the DataLoader: workers and pinning do not apply
    "tensors": {**common, "source": "tensors", "num_workers": 0, "pin_memory": False},
}
fixed_of = {src: {k: v for k, v in p.items() if k != over} for src, p in params_of.items()}
threads = DEFAULT_CPU_THREADS
budget = live_point_budget_s()


st.caption(
    f"CPU: measured live on this server with {threads} thread{'s' if threads != 1 else ''}. "
    + ("GPU: measured live on this server." if gpu_live else
       "GPU: from a pack recorded on a GPU machine (named in each legend), when one holds these settings.")
)
live = cached_measurement(
    {"kind": "data_pipeline", "over": over, "values": grid, "fixed": fixed_of, "devices": devices,
     "current": current, "point_budget_s": budget, "threads": threads},
    lambda progress: live_rows(over, grid, fixed_of, devices, current=current, point_budget_s=budget,
                               total_budget_s=DEFAULT_TOTAL_BUDGET_S / 2, num_threads=threads, progress=progress),
    label=f"data pipeline over {over} on {', '.join(devices)}; "
          + ", ".join(f"{k}={v}" for k, v in params_of["images"].items() if k not in (over, "source")),
)

# Recorded rows, CPU and GPU of one machine: the sidebar's pack first, then any pack that has them.
recorded: dict[str, list[dict]] = {src: [] for src in SOURCES}
pack = None
preferred = set(source.pack_paths)
if not gpu_live:
    for candidate in sorted(load_recorded()[0], key=lambda p: 0 if p["path"] in preferred else 1):
        found = {src: matching_rows(candidate["rows"], WORKLOAD, over, params_of[src], device_prefix="c")
                 for src in SOURCES}
        if any(str(r["device"]).startswith("cuda") for rows in found.values() for r in rows):
            pack, recorded = candidate, found
            break
machine = machine_text(pack["machine"]) if pack else None
if pack and source.recorded and pack["path"] not in preferred:
    st.caption(f"The GPU results chosen in the sidebar ({source.label}) hold no data-pipeline rows for this view, "
               f"so the recorded side comes from {machine} ({Path(pack['path']).name}).")
for src in SOURCES:
    gpus = sorted({r["device"] for r in recorded[src] if str(r["device"]).startswith("cuda")})
    recorded[src] = [r for r in recorded[src] if r["device"] == "cpu" or (gpus and r["device"] == gpus[0])]

rows_of: dict[str, list[dict]] = {}
for src in SOURCES:
    rows_of[src] = ([{**r, "series": series_label(r["device"], "live")} for r in live if r.get("source") == src]
                    + [{**r, "series": series_label(r["device"], "recorded", machine)} for r in recorded[src]])
all_rows = [r for src in SOURCES for r in rows_of[src]]
live_cpu = series_label("cpu", "live")


def at_point(src: str, series: str) -> dict | None:
    return next((r for r in rows_at(rows_of[src], over, current) if r["series"] == series), None)


def pair(src: str) -> tuple[dict | None, dict | None, str | None, str | None]:
    """CPU and GPU rows of ONE machine at the current point (the same host CPU feeds both devices)."""
    here = rows_at(rows_of[src], over, current)
    if gpu_live:
        cpu = next((r for r in here if r["device"] == "cpu"), None)
        gpu = next((r for r in here if r["device"] != "cpu"), None)
    else:
        cpu = next((r for r in here if r["device"] == "cpu" and "recorded" in r["series"]), None)
        gpu = next((r for r in here if r["device"] != "cpu" and "recorded" in r["series"]), None)
    return cpu, gpu, cpu["series"] if cpu else None, gpu["series"] if gpu else None


# -- words: does the device matter here? -----------------------------------------------------------
at = f"{label_of(over)} = {fmt_value(current)}"
st.subheader(f"Does the device matter at {at}?")
said_pair = False
for src, words in SOURCES.items():
    cpu, gpu, cpu_label, gpu_label = pair(src)
    sentence = device_sentence(cpu, gpu, cpu_label or "", gpu_label or "", words)
    if sentence:
        st.markdown(sentence)
        said_pair = True
    else:
        ceiling = ceiling_sentence(at_point(src, live_cpu), live_cpu, words)
        if ceiling:
            st.markdown(ceiling)
        else:
            row = at_point(src, live_cpu)
            why = (row.get("message") or row.get("status")) if row else "no row"
            st.markdown(f"With the {words}, the CPU was not measured at {at}: {why}.")
if said_pair:
    st.caption(f"Epochs within {pct(SAME_WITHIN)} of each other count as the same. Both devices of that comparison "
               "come from one machine, because the images are decoded by the CPU that feeds the GPU.")

images_cpu, tensors_cpu = at_point("images", live_cpu), at_point("tensors", live_cpu)
if is_ok(images_cpu) and is_ok(tensors_cpu):
    ratio = images_cpu["median_s"] / tensors_cpu["median_s"]
    if ratio >= 1:
        st.markdown(f"On **{live_cpu}**, an epoch over images takes {fmt_ratio(ratio)} as long as one over tensors "
                    f"already in memory ({fmt_s(images_cpu['median_s'])} against {fmt_s(tensors_cpu['median_s'])}): "
                    "same model, same numbers, only the feed differs.")
    else:
        st.markdown(f"On **{live_cpu}**, an epoch over images ({fmt_s(images_cpu['median_s'])}) is no slower than one "
                    f"over tensors ({fmt_s(tensors_cpu['median_s'])}) at these settings.")
if pack and not gpu_live:
    rec_cpu = pair("images")[0]
    if is_ok(images_cpu) and is_ok(rec_cpu):
        ratio = images_cpu["median_s"] / rec_cpu["median_s"]
        how = f"{fmt_ratio(ratio)} as long" if ratio >= 1 else f"{fmt_ratio(1 / ratio)} as fast"
        rec_gpu = pair("images")[1]
        gpu_share = loading_share(rec_gpu)
        paced = (f" Loading is {pct(gpu_share)} of the timed phases on the recorded GPU too: with images, the CPU "
                 "that decodes them sets the GPU's pace." if gpu_share is not None and gpu_share >= MOSTLY else "")
        st.markdown(f"This server's CPU takes {fmt_s(images_cpu['median_s'])} for the same epoch over images that "
                    f"the recording machine's CPU took {fmt_s(rec_cpu['median_s'])} for ({how}).{paced}")
for src, words in SOURCES.items():
    cpu, gpu, _, _ = pair(src)
    if cpu and gpu:
        summary = sweep_summary([r for r in rows_of[src] if r["series"] in (cpu["series"], gpu["series"])],
                                over, label_of(over), words, cpu["device"], gpu["device"])
        if summary:
            st.markdown(summary)

has_recorded = any(r.get("workload") == WORKLOAD.name and r.get("swept") for p in load_recorded()[0] for r in p["rows"])
missing = [src for src in SOURCES if not recorded[src]]
if not gpu_live and not has_recorded:
    st.info("No GPU on this server and no recorded data-pipeline results shipped, so only the live CPU is "
            "shown. What the CPU's own numbers already say: the loading part of an epoch is a floor that "
            "no faster device can lower.", icon=":material/info:")
elif not gpu_live and missing:
    what = " or ".join(f"the {SOURCES[src]}" for src in missing)
    shown = (f"{MODELS[settings['model']]}, " + ", ".join(f"{label_of(k)} {fmt_value(settings[k])}" for k in AXES if k != over)
             + (f", {settings['num_workers']} workers, pinned memory {'on' if settings['pin_memory'] else 'off'}"
                if "images" in missing else ""))
    st.info(f"The recorded packs have no sweep over {label_of(over)} for {what} with these settings ({shown}), so "
            f"{'that part shows' if len(missing) < len(SOURCES) else 'this view shows'} only the live CPU.",
            icon=":material/info:")

if not gpu_live and missing:
    offers = []
    for candidate in load_recorded()[0]:
        for g in recorded_groups(candidate["rows"], WORKLOAD):
            p = g["params"]
            if (g["over"] in AXES and p.get("source") == "images" and p.get("model") in MODELS
                    and p.get("num_workers") in WORKERS and all(p.get(k) in AXES[k][1] for k in AXES)
                    and all(p.get(k) == WORKLOAD.setting(k).default for k in ("data", "normalize", "optimizer", "lr",
                                                                              "shuffle", "seed", "persistent_workers"))):
                query = {"over": g["over"], "model": p["model"], "num_workers": str(p["num_workers"]),
                         "pin_memory": serialize(p["pin_memory"]),
                         **{k: str(settings[k] if k == g["over"] else p[k]) for k in AXES}}
                now = {"over": over, "model": settings["model"], "num_workers": str(settings["num_workers"]),
                       "pin_memory": serialize(settings["pin_memory"]), **{k: str(settings[k]) for k in AXES}}
                if query not in offers and query != now:
                    offers.append(query)
    if offers:
        st.markdown("Recorded sweeps this page can show:")
        for n, q in enumerate(offers[:8]):
            text = ", ".join(f"{label_of(k)} {fmt_value(int(q[k]))}" for k in AXES if k != q["over"])
            st.button(f"Show the sweep over {label_of(q['over'])} ({text}; {MODELS[q['model']]}; "
                      f"{q['num_workers']} workers; pinned memory {'on' if q['pin_memory'] == 'true' else 'off'})",
                      key=f"{NS}.use.{n}", on_click=use_settings, args=(q,))

# -- where an epoch's time went ------------------------------------------------------------------------
st.subheader(f"Where one epoch's time went at {at}")
bars = []
for src in SOURCES:
    for r in rows_at(rows_of[src], over, current):
        if is_ok(r) and r.get("phase_loading_s") is not None:
            bars.append({**r, "series": f"{src} · {r['series']}"})
if bars:
    st.altair_chart(phase_chart(pd.DataFrame(bars), phases=PHASES, x_title="time of one epoch"), width="stretch")
    st.caption("Loading walks the epoch's batches and copies them to the device without training; compute trains "
               "on the same number of batches already on the device. Each is timed on its own (median of repeats).")
    notes = [n for n in (phase_note(r, r["series"]) for r in bars) if n]
    if notes:
        with st.expander("The whole epoch against its two phases", expanded=False):
            for n in notes:
                st.markdown(f"- {n}")
else:
    st.caption("No phase timings at this point.")

# -- the sweep, one chart per feed ----------------------------------------------------------------------
st.subheader(f"Time per epoch over {label_of(over)}")
for src, words in SOURCES.items():
    frame = pd.DataFrame(rows_of[src])
    if frame.empty:
        continue
    st.altair_chart(time_chart(frame, over, y="median_s", iqr="iqr_s", x_title=label_of(over),
                               y_title="time per epoch", title=words[0].upper() + words[1:], height=460),
                    width="stretch")
ok_live = [r for r in live if is_ok(r)]
if ok_live:
    repeats = [int(r["repeats"]) for r in ok_live]
    st.caption(f"Each point: the median of {min(repeats)}–{max(repeats)} timed epochs after warm-up; bars span the "
               "interquartile range. Both axes logarithmic.")

# -- what was not measured, the rows, downloads, recording ------------------------------------------------
problems = [r for r in all_rows if not is_ok(r) or r.get("message")]
if problems:
    with st.expander(f"Notes on {len(problems)} point{'s' if len(problems) != 1 else ''}", expanded=False):
        for r in problems:
            st.markdown(f"- {r['series']}, {r.get('source')}, {label_of(over)} {fmt_value(r.get(over))}: "
                        f"{r.get('status')}{' — ' + r['message'] if r.get('message') else ''}")

with st.expander("Results on screen", expanded=False):
    frame = pd.DataFrame(all_rows)
    columns = [c for c in ("series", "source", over, "median_s", "iqr_s", "phase_loading_s", "phase_compute_s",
                           "batches_per_epoch", "num_workers", "pin_memory", "repeats", "num_threads", "status",
                           "message") if c in frame.columns]
    st.dataframe(frame[columns], hide_index=True)
    shown_recorded = [r for src in SOURCES for r in recorded[src]]
    download_buttons(live, [(pack, shown_recorded)] if pack and shown_recorded else [],
                     file_stem=f"data_pipeline_{over}")

with st.expander("Record this view on a GPU machine", expanded=False):
    for src in SOURCES:
        fixed = {**params_of[src], "pin_memory": settings["pin_memory"] and src == "images"}
        sets = " ".join(f"--set {k}={serialize(v)}" for k, v in fixed.items() if k != over)
        values = ",".join(str(v) for v in AXES[over][1])
        st.code(f"python -m lib sweep dataloader --over {over}={values} {sets} --devices cpu,cuda "
                f"--out lib/recorded/dataloader_{src}_{over}.json", language="bash")
    st.caption("Both sweeps record the CPU and the GPU of that machine; the app then shows them beside the live CPU. "
               "scripts/record_packs.py records this page's default views (topic data_pipeline).")
