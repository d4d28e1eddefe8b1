"""Home: the question, the one-chart answer from a recorded pack, and a link to each lesson.

Layout and words only: lib.lessons.home picks the sweep and words both ends of it.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.charts import time_chart
from lib.lessons.explain import crossover_sentence
from lib.lessons.home import ends_sentence, one_chart
from lib.workloads import get_workload
from ui import scaffold
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
chart = one_chart([recorded_pack(source), *load_recorded()[0]], WORKLOAD)
if chart:
    st.altair_chart(
        time_chart(pd.DataFrame(chart.rows), chart.over, y=chart.y, iqr=chart.iqr, crossover_x=chart.crossover_x,
                   x_title=chart.setting, y_title=chart.y_title, title=f"MLP training on {chart.machine}"),
        width="stretch",
    )
    st.markdown(crossover_sentence(chart.analysis, chart.setting, chart.cpu_label, chart.gpu_label))
    ends = ends_sentence(chart)
    if ends:
        st.markdown(ends)
    st.caption(f"Recorded with this project's CLI on {chart.machine}; both curves come from that machine. "
               "The Training page puts this server's CPU beside it.")
else:
    scaffold.notice("No recorded GPU results shipped yet, so there is no GPU curve to show here. The Training page "
                    "measures the CPU live on this server; a pack recorded on a GPU machine "
                    "(`python -m lib sweep mlp ... --devices cpu,cuda --out lib/recorded/….json`) adds the GPU side.")

st.markdown("### Lessons")
for page in lesson_pages():
    st.page_link(page.path, label=page.title, icon=page.icon)
    st.caption(page.blurb)
