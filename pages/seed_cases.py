"""Seed case studies: each seed experiment one click away, "reported in the seed" beside "measured here".

Measured here: the GPU (and that machine's CPU) from a recorded seeds pack (scripts/seed_experiments.py
--out lib/recorded/…json), rows found by the preset's name; this server's CPU live, at the preset's
cut-down size. Loss curves: live on this server's CPU; the GPU's from the curves file that
`scripts/seed_experiments.py --curves` writes next to the pack. The numbers in the words are read
from those rows and curves (lib/seed_cases.py computes the sentences).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from lib.charts import loss_chart, ratio_chart
from lib.core.fmt import fmt_num, fmt_ratio, fmt_s, fmt_times
from lib.core.rows import Status, is_ok
from lib.lessons.live import DEFAULT_CPU_THREADS
from lib.lessons.seed_cases import (
    CASES,
    SEED_HARDWARE,
    compare_sentence,
    curve_setting,
    find_curves,
    find_seed_pack,
    label,
    learn_sentence,
    live_params,
    measure_live,
    pick,
    same_settings,
    same_start_sentence,
    size_differences,
    size_words,
    total_s,
)
from lib.recorded.sources import machine_text, series_label
from lib.workloads.presets import get_preset
from ui.downloads import download_buttons
from ui.measure import cached_measurement, live_point_budget_s
from ui.sources import current_source, live_devices, load_recorded
from ui.url_settings import UrlSettings

NS = "seed_cases"

# What each experiment teaches beyond its numbers (facts from the seeds, DESIGN.md section 1).
LESSONS = {
    "boston_like": "Tiny work per step: 13 inputs, a few hundred rows. Every epoch is a dozen small kernels, each "
                   "launched from Python and finished almost at once, so the GPU pays its launch and synchronise "
                   "costs and gains nothing. (scikit-learn removed the Boston data in 1.2: these are synthetic rows "
                   "of its exact shape.)",
    "iris": "Even smaller: 112 rows of 4 measurements. The seed's guess that regression and classification "
            "behave differently does not hold: the size of the work decides.",
    "mnist_minibatch": "In the seed, the CPU run's loss stayed at 2.3036 for all 15 epochs: its optimizer had been "
                       "built on the GPU model's parameters, so the CPU model was never updated. Its time was still "
                       "mostly the DataLoader's. A fair comparison trains identical models, each with its own "
                       "optimizer.",
    "mnist_fullbatch": "All 52 500 rows in one step: every kernel has enough arithmetic to keep the GPU busy, and "
                       "the GPU wins by a wide margin.",
    "mnist_100rows": "The same network on 100 rows (75 after the split): the seed printed no times for it.",
    "linear_mnist_dataloader": "A single linear layer fed by a DataLoader that decodes every image on the CPU: "
                               "seed 001 found the CPU and GPU epochs equal. The input pipeline sets the pace "
                               "(see the Data pipeline lesson).",
    "big_matmul": "One huge matrix multiply: 7 TFLOP of dense arithmetic, where GPUs shine. The seed also saw the "
                  "GPU's first call slower than the next ones (warm-up) and needed torch.cuda.synchronize() to time "
                  "it at all (see Timing pitfalls).",
    "jacobian_val100": "autograd.functional.jacobian runs a Python loop of one backward pass per output: 40 000 "
                       "tiny passes, each a handful of kernels. The method, not the device, is the cost (see the "
                       "Jacobian lesson).",
    "jacobian_val1000": "Ten times the inputs: now each backward pass carries enough work that the GPU wins.",
}


def case_label(name: str) -> str:
    return label(name)


# -- setup and the one control ------------------------------------------------------------------------
st.title("Seed case studies")
st.markdown(
    "This app grew from a handful of write-ups (the *seeds*) that timed PyTorch on a CPU and a GPU and were "
    "surprised. Each experiment below is rebuilt with this project's workloads at the seed's sizes. Beside what "
    "the seed reported: what was measured on a recorded GPU machine with the same code, and this server's CPU, "
    "live. The ratio that matters is **GPU time ÷ CPU time**: above 1 the GPU was slower."
)
notes_box = st.container()
url = UrlSettings(NS)
case = url.radio("case", "Experiment", list(CASES), CASES[0], format_func=case_label, horizontal=False)
url.show_notes(container=notes_box)
url.sync_url()

preset = get_preset(case)
hardware = SEED_HARDWARE.get(preset.seed)
st.subheader(case_label(case))
st.markdown(f"**Seed {preset.seed}** ({'run on ' + hardware if hardware else 'hardware not stated in the seed'}): "
            f"{preset.description}.")
st.markdown(LESSONS.get(case, ""))

# -- recorded: the seeds pack, found by the preset's name --------------------------------------------------
source = current_source()
packs = load_recorded()[0]
preferred = source.pack_paths
pack, rec_rows = find_seed_pack(packs, case, prefer=preferred)
machine = machine_text(pack["machine"]) if pack else None
rec_cpu, rec_gpu = pick(rec_rows, gpu=False), pick(rec_rows, gpu=True)
if pack and source.recorded and pack.get("path") not in preferred:
    st.caption(f"The GPU results chosen in the sidebar ({source.label}) hold no row of this experiment, so the "
               f"recorded side comes from {machine} ({Path(pack['path']).name}).")

# -- live: this server's CPU (and its GPU, when it has one) at the cut-down size ---------------------------
devices = live_devices(source)
threads = DEFAULT_CPU_THREADS
budget = live_point_budget_s()
params = live_params(preset)
curve = curve_setting(preset)
live = cached_measurement(
    {"kind": "seed_case", "case": case, "params": params, "devices": devices, "threads": threads,
     "budget": budget, "curve": curve},
    lambda progress: measure_live(preset, devices, budget_s=budget, num_threads=threads, progress=progress),
    label=f"seed case {case} on {', '.join(devices)}",
)
live_rows = live["rows"]
live_cpu = next((r for r in live_rows if r["device"] == "cpu"), None)
live_gpu = next((r for r in live_rows if r["device"] != "cpu"), None)
cut = size_differences(params, preset)
cut_words = size_words(cut)


def ok(row: dict | None) -> bool:
    return bool(row) and is_ok(row)


# -- reported beside measured ---------------------------------------------------------------------------------
st.subheader("Reported in the seed, measured here")
table = []
bars = []
covers = (preset.reported_what if preset.reported_cpu_s or preset.reported_gpu_s
          else f"the seed's {preset.reported_calls:,} calls")
if preset.reported_cpu_s or preset.reported_gpu_s:
    table.append({"where": f"reported in seed {preset.seed}" + (f" ({hardware})" if hardware else ""),
                  "CPU": fmt_s(preset.reported_cpu_s), "GPU": fmt_s(preset.reported_gpu_s),
                  "GPU ÷ CPU": fmt_times(preset.reported_ratio) if preset.reported_ratio else "–", "covers": covers})
    if preset.reported_ratio:
        bars.append({"comparison": f"reported in seed {preset.seed}", "ratio": preset.reported_ratio})
else:
    table.append({"where": f"reported in seed {preset.seed}", "CPU": "–", "GPU": "–", "GPU ÷ CPU": "–",
                  "covers": "the seed printed no times"})

rec_ratio = None
rec_cut = {}
if pack:
    rec_params = {k: rec_cpu.get(k) if rec_cpu else rec_gpu.get(k) for k in params}
    rec_cut = size_differences(rec_params, preset)
    c, g = total_s(rec_cpu, preset), total_s(rec_gpu, preset)
    rec_ratio = g / c if c and g else None
    table.append({"where": f"recorded on {machine}" + (" (cut size)" if rec_cut else " (the seed's sizes)"),
                  "CPU": fmt_s(c) if c else (rec_cpu or {}).get("status", "–"),
                  "GPU": fmt_s(g) if g else (rec_gpu or {}).get("status", "–"),
                  "GPU ÷ CPU": fmt_times(rec_ratio) if rec_ratio else "–", "covers": covers})
    if rec_ratio:
        bars.append({"comparison": f"recorded on {machine}", "ratio": rec_ratio})

live_total = total_s(live_cpu, preset) if not cut else None
if ok(live_cpu):
    live_gpu_total = total_s(live_gpu, preset) if ok(live_gpu) and not cut else None
    per_call = live_cpu["median_s"]
    table.append({
        "where": "live on this server" + (f" ({cut_words})" if cut else " (the seed's sizes)"),
        "CPU": fmt_s(live_total) if live_total else f"{fmt_s(per_call)} per call",
        "GPU": (fmt_s(live_gpu_total) if live_gpu_total else f"{fmt_s(live_gpu['median_s'])} per call") if ok(live_gpu) else "–",
        "GPU ÷ CPU": fmt_times(live_gpu["median_s"] / per_call) if ok(live_gpu) else "–",
        "covers": covers if live_total else "one call, at the cut size",
    })
    if ok(live_gpu):
        bars.append({"comparison": "live on this server" + (" (cut size)" if cut else ""),
                     "ratio": live_gpu["median_s"] / per_call})
    elif ok(rec_gpu) and not cut and not rec_cut:
        bars.append({"comparison": f"GPU recorded on {machine} ÷ CPU live here",
                     "ratio": rec_gpu["median_s"] / per_call})
st.dataframe(pd.DataFrame(table), hide_index=True)

if bars:
    st.altair_chart(ratio_chart(pd.DataFrame(bars)), width="stretch")
    st.caption("GPU time ÷ CPU time of the same work: above the 1× line the GPU took longer. Times per call "
               "cancel out, so a ratio needs both devices at the same size, not the same number of calls.")

# words, every number read from the rows above
st.markdown(compare_sentence(preset, rec_ratio, f"on {machine}") if pack
            else compare_sentence(preset, None, "here"))
if pack and rec_cut:
    st.markdown(f"The recorded rows ran at a cut size ({size_words(rec_cut)}), so their ratio is for that size.")
if not pack:
    st.info("No recorded seeds pack holds this experiment's GPU row, so there is no GPU time measured here to set "
            "beside the seed's: only this server's CPU, live"
            + (" at a cut size." if cut else "."), icon=":material/info:")
elif not ok(rec_gpu) and rec_gpu is not None:
    st.info(f"The recorded pack ({machine}) did not measure this experiment on the GPU: "
            f"{rec_gpu.get('status')} — {rec_gpu.get('message') or 'no message'}.", icon=":material/info:")
if ok(rec_gpu) and rec_gpu.get("cold_s") and case == "big_matmul":
    first = rec_gpu["cold_s"] / rec_gpu["median_s"]
    st.markdown(f"On {machine} the GPU's first call of this experiment in the recording run took {fmt_s(rec_gpu['cold_s'])}, a warm one "
                f"{fmt_s(rec_gpu['median_s'])}"
                + (f", {fmt_ratio(first)} as long" if first >= 1.1 else "")
                + " (the seed saw 0.55 s against 0.46 s). Only warm calls count in the ratio.")
if ok(live_cpu):
    who = f"This server's CPU ({threads} thread{'s' if threads != 1 else ''})"
    if live_total:
        seed_cpu = f" (the seed's CPU: {fmt_s(preset.reported_cpu_s)})" if preset.reported_cpu_s else ""
        st.markdown(f"{who} takes {fmt_s(live_cpu['median_s'])} per call, so {fmt_s(live_total)} for "
                    f"{covers}{seed_cpu}.")
    else:
        st.markdown(f"{who} takes {fmt_s(live_cpu['median_s'])} per call at a cut size ({cut_words}): "
                    "not comparable with times for the seed's size.")
elif live_cpu:
    st.markdown(f"This server's CPU was not timed: {live_cpu.get('status')} — {live_cpu.get('message')}.")
notes = {}
for where, rows in (("live", live_rows), (f"recorded on {machine}", rec_rows)):
    for note in dict.fromkeys(r["data_note"] for r in rows if r.get("data_note")):
        notes.setdefault(note, where)
for note, where in notes.items():
    st.caption(f"Data ({where}): {note}")

# -- loss curves ---------------------------------------------------------------------------------------------
st.subheader("Loss curves")
curve_rows: list[dict] = []
curves_for_words: dict[str, list[float]] = {}
if curve is None:
    st.caption("This experiment trains nothing, so it has no loss curve.")
else:
    curve_params, curve_epochs = curve
    live_curves = live["curves"]
    for device, entry in live_curves.items():
        name = series_label(device, "live")
        if entry["status"] == Status.OK:
            curves_for_words[name] = entry["losses"]
        else:
            st.markdown(f"{name}: no curve ({entry['status']}: {entry['message']}).")
    side, recorded_curves = find_curves(packs, case, prefer_stem=Path(pack["path"]).stem if pack else None)
    side_machine = machine_text(side["machine"]) if side else None
    differing = []
    for entry in recorded_curves:
        name = series_label(entry["device"], "recorded", side_machine)
        curves_for_words[name] = entry["losses"]
        if not same_settings(entry.get("settings") or {}, curve_params) or entry.get("epochs") != curve_epochs:
            differing.append(name)
    for name, losses in curves_for_words.items():
        curve_rows += [{"series": name, "epoch": i + 1, "loss": v} for i, v in enumerate(losses)]
    cut_curve = size_differences(curve_params, preset)
    st.markdown(
        f"{curve_epochs:,} epoch{'s' if curve_epochs != 1 else ''}"
        + (f" at a cut size ({size_words(cut_curve)})" if cut_curve else " at the seed's sizes")
        + f" (the seed trained {preset.epochs:,}), from the seeded initial weights on every device."
    )
    if curve_rows:
        st.altair_chart(loss_chart(pd.DataFrame(curve_rows)), width="stretch")
    for name, losses in curves_for_words.items():
        st.markdown(learn_sentence(losses, f"**{name}**"))
    start = same_start_sentence(curves_for_words)
    if start:
        st.markdown(start)
    if differing:
        st.caption(f"Recorded at other settings than this page's curve: {', '.join(differing)}.")
    if not recorded_curves:
        st.info("No recorded GPU loss curve ships for this experiment (the curves file that "
                "`scripts/seed_experiments.py --curves` writes next to its pack), so only this server's CPU "
                "curve is shown.", icon=":material/info:")
    if case == "mnist_minibatch":
        cpu_curve = next((c for n, c in curves_for_words.items() if n.startswith("cpu")), None)
        if cpu_curve:
            learned = cpu_curve[-1] < cpu_curve[0] * 0.9
            st.markdown(
                "Seed 000's CPU run stayed at a loss of 2.3036 from its first epoch to its last. "
                + (f"Here the CPU model has its own optimizer and learns: {fmt_num(cpu_curve[0], 4)} → "
                   f"{fmt_num(cpu_curve[-1], 4)} in {len(cpu_curve)} epochs." if learned else
                   "Here the CPU curve did not fall by a tenth either; see the numbers above.")
            )
    for where, entries in (("live curve", live["curves"].values()), (f"curve recorded on {side_machine}", recorded_curves)):
        for note in dict.fromkeys(c["data_note"] for c in entries if c.get("data_note")):
            if note not in notes:
                st.caption(f"Data ({where}): {note}")

# -- rows, downloads, recording ---------------------------------------------------------------------------------
with st.expander("Results on screen", expanded=False):
    shown = [{**r, "series": series_label(r["device"], "live")} for r in live_rows]
    shown += [{**r, "series": series_label(r["device"], "recorded", machine)} for r in rec_rows]
    frame = pd.DataFrame(shown)
    columns = [c for c in ("series", "variant", "median_s", "iqr_s", "repeats", "cold_s", "steps_per_epoch",
                           "dataset_size", "batch_size", "size", "val", "num_threads", "status", "message")
               if c in frame.columns]
    st.dataframe(frame[columns], hide_index=True)
    download_buttons(live_rows, [(pack, rec_rows)] if pack and rec_rows else [], file_stem=f"seed_{case}")
    if curve_rows:
        st.download_button("Download the loss curves (CSV)", pd.DataFrame(curve_rows).to_csv(index=False),
                           file_name=f"seed_{case}_loss_curves.csv", mime="text/csv", icon=":material/show_chart:",
                           on_click="ignore")

with st.expander("Record this experiment on a GPU machine", expanded=False):
    slow = " --include-slow" if preset.slow else ""
    st.code(f"python3 scripts/seed_experiments.py --only {case}{slow} --curves --out lib/recorded/seeds_{case}.json",
            language="bash")
    st.caption("It writes the CPU and GPU rows at the seed's sizes, and next to them "
               f"seeds_{case}_curves.json with both devices' loss curves; this page finds them by the experiment's name.")
