"""Seed case studies: each seed experiment one click away, "reported in the seed" beside "measured here".

Measured here: the GPU (and that machine's CPU) from a recorded seeds pack (scripts/seed_experiments.py
--out lib/recorded/…json), rows found by the preset's name; this server's CPU live, at the preset's
cut-down size. Loss curves: live on this server's CPU; the GPU's from the curves file that
`scripts/seed_experiments.py --curves` writes next to the pack. Layout and words only: the numbers
in the words are read from those rows and curves by lib/lessons/seed_cases/view.py; ui/scaffold.py lays
out the parts every lesson page shares. Answer first: the title, the seed's ratio beside the one
measured here in one sentence, the ratio bars; the experiment picker below; the rest behind closed
expanders.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.charts import loss_chart, ratio_chart, seed_times_chart
from lib.core.results import spreadsheet_csv
from lib.lessons.common import onscreen
from lib.lessons.common.live import DEFAULT_CPU_THREADS
from lib.lessons.seed_cases import screen, times
from lib.lessons.seed_cases import view as cases
from lib.lessons.seed_cases.curves import learn_sentence, same_start_sentence
from lib.lessons.seed_cases.view import CASES
from lib.workloads.presets import get_preset
from ui import scaffold
from ui.chart_cache import chart_spec
from ui.measure import cached_measurement, live_point_budget_s
from ui.sources import live_devices, load_recorded, unanswered
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


top = scaffold.answer_first("Seed case studies")

# -- the one control (below the answer and the chart) --------------------------------------------------------
notes_box = st.container()
url = UrlSettings(NS)
case = url.radio("case", "Experiment", list(CASES), CASES[0], format_func=cases.label, horizontal=False)
url.show_notes(container=notes_box)
url.sync_url()
preset = get_preset(case)

# -- recorded: the seeds pack, found by the preset's name; live: this server at the cut-down size ----------
# cannot: the sidebar's machine holds no seed experiment at all (then no other machine's rows either)
source, cannot = unanswered(lambda p: bool(p) and any(cases.find_seed_pack([p], c)[0] for c in CASES))
packs = [] if cannot else load_recorded()[0]
pack, rec_rows = cases.find_seed_pack(packs, case, prefer=source.pack_paths)
devices = live_devices(source)
threads = DEFAULT_CPU_THREADS
budget = live_point_budget_s()
live = cached_measurement(screen.live_request(preset, devices, threads=threads, budget_s=budget),
                          label=screen.measure_label(preset, devices)) or {"rows": [], "curves": {}}  # not measured now (a long queue): the recorded side alone
experiment = screen.Case(preset, live, pack, rec_rows)

# -- the first screen: reported beside measured, as one sentence and one bar per comparison --------------------
verdicts = screen.verdict_sentences(experiment)
top.answer.markdown(screen.headline(experiment))
table, bars = screen.comparison(experiment)
scaffold.chart_or_why(
    top.chart, chart_spec(ratio_chart, pd.DataFrame(bars)) if bars else None,
    "Neither the seed nor this app timed both devices for this experiment, so there is no GPU ÷ CPU ratio to draw.")
for sentence in verdicts:  # the seed's times, the date and the cut size: under the chart (issue 37)
    top.note.markdown(sentence)
top.note.caption("GPU time ÷ CPU time of the same work: above the 1× line the GPU took longer. Times per call "
                 "cancel out, so a ratio needs both devices at the same size, not the same number of calls.")
elsewhere = onscreen.elsewhere_sentence(source, pack, "a measured GPU time of this experiment")
if elsewhere:
    top.note.caption(elsewhere)
scaffold.notice(cannot or screen.missing_note(experiment), box=top.note)

with scaffold.why("What the seeds are") as opened:
    if opened:
        st.markdown(
            "This app grew from a handful of write-ups (the *seeds*) that timed PyTorch on a CPU and a GPU and were "
            "surprised. Each experiment is rebuilt with this project's workloads at the seed's sizes. Beside what "
            "the seed reported: what was measured on a recorded GPU machine with the same code, and this server's CPU, "
            "live. The ratio that matters is **GPU time ÷ CPU time**: above 1 the GPU was slower.")

# a fixed label (a lazy expander's identity includes it): the case goes inside
with scaffold.why("What this experiment teaches") as opened:
    if opened:
        st.markdown(f"**{cases.label(case)}**")
        st.markdown(screen.seed_line(preset))
        st.markdown(LESSONS.get(case, ""))

# -- reported beside measured ---------------------------------------------------------------------------------
with scaffold.why("Reported in the seed, measured here") as opened:
    if opened:
        st.dataframe(pd.DataFrame(table), hide_index=True)
        time_bars = times.time_bars(experiment)  # the times the sentences below quote, drawn
        scaffold.chart_or_why(
            st, chart_spec(seed_times_chart, pd.DataFrame([b.row() for b in time_bars]), title=times.times_title(
                experiment)) if time_bars else None, "Nobody timed this experiment at the seed's sizes, so there is no "
            "time to draw.")
        for sentence in (times.cold_sentence(experiment, time_bars),
                         times.live_cpu_sentence(experiment, time_bars, threads)):
            if sentence:
                st.markdown(sentence)
        data_notes = screen.data_notes(experiment)
        for note, where in data_notes.items():
            st.caption(f"Data ({where}): {note}")

# -- loss curves ---------------------------------------------------------------------------------------------
curves = screen.curves_view(experiment, packs)
curve_rows = screen.curve_rows(curves) if curves else []
with scaffold.why("Loss curves: does each model learn?") as opened:
    if opened:
        if curves is None:
            st.caption("This experiment trains nothing, so it has no loss curve.")
        else:
            for failure in curves.failures:
                st.markdown(failure)
            st.markdown(screen.epochs_sentence(curves, preset))
            scaffold.chart_or_why(st, chart_spec(loss_chart, pd.DataFrame(curve_rows)) if curve_rows else None,
                                  "No loss curve was measured or recorded for this experiment, so there is none to draw.")
            for name, losses in curves.losses.items():
                st.markdown(learn_sentence(losses, f"**{name}**"))
            start = same_start_sentence(curves.losses)
            if start:
                st.markdown(start)
            if curves.differing:
                st.caption(f"Recorded at other settings than this page's curve: {', '.join(curves.differing)}.")
            if not curves.recorded:
                scaffold.notice(cases.MISSING_CURVE)
            minibatch = screen.minibatch_sentence(curves, preset)
            if minibatch:
                st.markdown(minibatch)
            for note in screen.curve_data_notes(experiment, curves, data_notes):
                st.caption(note)

# -- rows, downloads, recording ---------------------------------------------------------------------------------
scaffold.results_on_screen(
    experiment.shown_rows(), ("series", "recorded_on", "variant", "median_s", "iqr_s", "repeats", "cold_s", "steps_per_epoch",
                              "dataset_size", "batch_size", "size", "val", "num_threads", "status", "message"),
    live["rows"], pack, rec_rows, file_stem=f"seed_{case}", key="seed_cases.results",
    more=(lambda: st.download_button("Download the loss curves (CSV)", spreadsheet_csv(curve_rows),
                                     file_name=f"seed_{case}_loss_curves.csv", mime="text/csv",
                                     icon=":material/show_chart:", on_click="ignore")) if curve_rows else None)
scaffold.record_view([screen.record_command(preset)],
                     "It writes the CPU and GPU rows at the seed's sizes, and next to them "
                     f"seeds_{case}_curves.json with both devices' loss curves; this page finds them by the "
                     "experiment's name.", title="Record this experiment on a GPU machine")
