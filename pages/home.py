"""Home: the question, the one-chart answer from a recorded pack, and a link to each lesson."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.charts import time_chart
from lib.core.crossover import analyse_rows
from lib.core.fmt import fmt_ratio, fmt_s, fmt_value
from lib.core.rows import is_ok
from lib.lessons.explain import crossover_sentence
from lib.recorded.sources import best_recorded_sweep, machine_text, series_label
from lib.workloads import get_workload
from ui.pages import lesson_pages
from ui.sources import current_source, load_recorded, recorded_pack

WORKLOAD = get_workload("mlp")

st.title("When does the GPU win?")
st.markdown("### “Why is my model slower on the GPU?”")
st.markdown(
    "Because a GPU does not run your step: it runs the small kernels your step is made of, each launched "
    "from Python on the CPU. For a small model every kernel finishes almost at once, and the step's time is "
    "launch overhead and synchronisation, which the CPU does not pay. Give each kernel enough arithmetic and "
    "the GPU's throughput takes over. This app measures where that happens."
)

# The one chart: a recorded sweep with both devices from the same GPU machine.
source = current_source()
packs = load_recorded()[0]
chosen = recorded_pack(source)
candidates = ([chosen] if chosen else []) + packs
found = None
for pack in candidates:
    found = best_recorded_sweep(pack, WORKLOAD)
    if found:
        break

if found:
    over, rows = found
    machine = machine_text(pack["machine"])
    labelled = [{**r, "series": series_label(r["device"], "recorded", machine)} for r in rows]
    frame = pd.DataFrame(labelled)
    if {"iqr_s", "steps_per_epoch"} <= set(frame.columns):
        frame["epoch_iqr_s"] = frame["iqr_s"] * frame["steps_per_epoch"]
    y = "epoch_s" if "epoch_s" in frame.columns and frame["epoch_s"].notna().any() else "median_s"
    ok = [r for r in labelled if is_ok(r, y)]
    analysis = analyse_rows(ok, over, time_key=y)
    cross = analysis.measured.x if analysis.measured.kind == "crosses" else None
    name = over.replace("_", " ")
    st.altair_chart(
        time_chart(frame, over, y=y, iqr="epoch_iqr_s" if y == "epoch_s" else "iqr_s", crossover_x=cross,
                   x_title=name, y_title="time per epoch" if y == "epoch_s" else "time per step",
                   title=f"MLP training on {machine}"),
        width="stretch",
    )
    cpu_label = next(r["series"] for r in labelled if r["device"] == "cpu")
    gpu_label = next(r["series"] for r in labelled if r["device"] != "cpu")
    st.markdown(crossover_sentence(analysis, name, cpu_label, gpu_label))
    by_x: dict = {}
    for r in ok:
        by_x.setdefault(r[over], {})[r["device"]] = r[y]
    both = sorted(x for x, d in by_x.items() if "cpu" in d and len(d) == 2)
    if both:
        lo, hi = both[0], both[-1]
        gpu = analysis.gpu_device

        def verdict(x):
            c, g = by_x[x]["cpu"], by_x[x][gpu]
            if g > c:
                return f"the GPU takes {fmt_ratio(g / c)} as long as the CPU ({fmt_s(g)} against {fmt_s(c)})"
            if g < c:
                return f"the GPU is {fmt_ratio(c / g)} as fast as the CPU ({fmt_s(g)} against {fmt_s(c)})"
            return f"both take {fmt_s(g)}"

        st.markdown(f"At {name} {fmt_value(lo)}, {verdict(lo)}; at {fmt_value(hi)}, {verdict(hi)}.")
    st.caption(f"Recorded with this project's CLI on {machine} ({pack['path'].rsplit('/', 1)[-1]}); "
               "both curves come from that machine. The Training page puts this server's CPU beside it.")
else:
    st.info("No recorded GPU results shipped yet, so there is no GPU curve to show here. The Training page "
            "measures the CPU live on this server; a pack recorded on a GPU machine "
            "(`python -m lib sweep mlp ... --devices cpu,cuda --out lib/recorded/….json`) adds the GPU side.",
            icon=":material/info:")

st.markdown("### Lessons")
for page in lesson_pages():
    st.page_link(page.path, label=page.title, icon=page.icon)
    st.caption(page.blurb)
