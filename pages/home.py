"""Home: the question, the one-chart answer from a recorded pack, and a link to each lesson.

Answer first: the title, the one sentence read from the chart, the chart; the explanation behind
'Why?', the lessons below. Layout and words only: lib.lessons.home.view picks the sweep and words both
ends of it.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import streamlit as st

from lib.charts.provenance import curve_chart
from lib.core.memo import DiskMemo
from lib.lessons.common.voice import crossover_notes, crossover_sentence, series_side
from lib.lessons.home.view import WHY, caption, crossover_range, drawn, ends_sentence, modes_sentence, one_chart
from lib.workloads import get_workload
from ui import scaffold
from ui.pages import lesson_pages
from ui.sources import current_source, load_recorded, recorded_pack, unanswered
from ui.specs import frozen_spec

WORKLOAD = get_workload("mlp")

top = scaffold.answer_first("When does the GPU win?")



# Home's answer kept on disk as well, keyed by the packs, every line of lib/, ui/ and this page, and the
# libraries that draw it: a host woken from sleep draws Home's chart without building it (issue 25)
_KEPT = DiskMemo("home-answer", code=[Path(__file__).resolve().parents[1] / "lib",
                                      Path(__file__).resolve().parents[1] / "ui", Path(__file__).resolve()])


@st.cache_resource(max_entries=16, show_spinner=False)
def home_answer(key: tuple, plot_height: int, beside: bool, _packs: tuple) -> tuple:
    """The answer, the chart's spec and the words under it: the same for every visitor of these packs,
    so built once per process (a revisit is a lookup). `key` names the packs by the identity of their
    parsed objects, which the cached value keeps alive (lib.recorded parses each file version once)."""
    libraries = tuple(version(name) for name in ("streamlit", "altair", "pandas", "pyarrow"))
    return (*_KEPT.get((plot_height, beside, _packs, libraries), lambda: built(plot_height, beside, _packs)), _packs)


def built(plot_height: int, beside: bool, packs: tuple) -> tuple:
    chart = one_chart(packs, WORKLOAD)
    if not chart:
        return None, None, None, None, None
    sides = series_side(chart.cpu_label), series_side(chart.gpu_label)
    answer = crossover_sentence(chart.analysis, chart.setting, *sides, hollow=True, notes=False).capitalised().markdown()
    notes = crossover_notes(chart.analysis.measured, chart.setting, *sides, hollow=True)  # said under the chart
    # the chart draws drawn(chart), the rows every sentence below reads (each curve one recording, its band the others)
    spec = frozen_spec(curve_chart(drawn(chart), chart.over, y=chart.y, x_title=chart.setting, y_title=chart.y_title,
                                   crossover=crossover_range(chart), height=plot_height, legend_beside=beside))
    modes = modes_sentence(chart)
    ends = " ".join(t for t in (notes, ends_sentence(chart)) if t)
    return chart, answer, spec, ends, modes and modes.markdown()


# The one chart: a recorded sweep with both devices from the same GPU machine.
# The sidebar's recorded machine only: another machine's chart is never drawn under its name.
source = current_source()
packs = (recorded_pack(source),) if source.recorded else tuple(load_recorded()[0])
chart, answer, spec, ends, modes, _ = home_answer(
    (source.key, *((p["path"], id(p["rows"])) if p else None for p in packs)), scaffold.plot_height(), scaffold.embedded(),
    packs)
cannot = None if chart else unanswered(lambda pack: one_chart([pack], WORKLOAD) is not None)[1]
if cannot:  # what is not drawn up top, which machine to pick instead under it (issue 37: one sentence)
    said, _, instead = cannot.partition(". ")
    top.answer.markdown(f"{said}." if instead else cannot)
    if instead:
        top.note.markdown(instead)
elif chart:
    top.answer.markdown(answer)
    top.chart.vega_lite_chart(spec, width="stretch")
    top.note.caption(caption(chart))
    if ends:
        st.markdown(ends)
    if modes:
        st.markdown(modes)
else:
    top.answer.markdown("This copy of the app has no GPU results yet, so there is no GPU curve to answer with here.")
    scaffold.notice("No recorded GPU results shipped yet. The Training page measures the CPU live on this server; "
                    "a pack recorded on a GPU machine adds the GPU side (the Your results page says how to record "
                    "one).", box=top.chart)

with scaffold.why("Why is my model slower on the GPU?") as opened:
    if opened:
        st.markdown(WHY)

st.markdown("### Lessons")
for page in lesson_pages():
    st.page_link(page.path, label=page.title, icon=page.icon)
    st.caption(page.blurb)
