"""Multi-GPU lesson (seed 002): when do 2 or 4 GPUs beat one? DistributedDataParallel through torchrun.

Answer first: one sentence (where more GPUs start to pay off), the throughput chart of the recorded machine (or
of the live demo); the pickers below; the rest behind closed expanders. Layout only: words, points and table
lib.lessons.multi_gpu.screen's, charts lib.charts.scaling's, the live demo lib.workloads.ddp.demo's.
"""

from __future__ import annotations

import streamlit as st

from lib.charts import scaling as scaling_charts
from lib.lessons.multi_gpu import scaling
from lib.lessons.multi_gpu import screen as lesson
from lib.workloads.ddp import demo
from ui import scaffold
from ui.measure import progress_to
from ui.router import ensure_router
from ui.specs import chart_spec
from ui.url_settings import UrlSettings

ensure_router()  # a first direct visit on a fresh server still gets the shared sidebar

LIVE_KEY = "multi_gpu_live_rows"
top = scaffold.answer_first("Multi-GPU: when do more GPUs pay off?")
notes_box = st.container()
# The recorded view's machine, model and axis and the demo's model live in the URL (a link to the CNN at
# the same global batch opens that view); the live demo's own pickers do not: its rows live in one session.
url = UrlSettings("multi_gpu")
LINKED = "recorded"  # the widget key of the view whose pickers live in the URL


def _pick(key: str, label: str, options: list, linked: bool, **kw):
    """A horizontal radio: URL-bound for the recorded view ('model', 'axis'), plain for the live demo's rows."""
    return url.radio(key, label, options, options[0], **kw) if linked else st.radio(
        label, options, horizontal=True, key=f"live_{key}", **kw)


def show_results(found: scaling.Results, key: str, slots: scaffold.AnswerFirst | None = None) -> None:
    """The answer and the throughput chart (in `slots` when given, else here), then the efficiency chart,
    crossovers, explanation and table for ddp points from one machine (key 'recorded': its pickers in the URL)."""
    answer_box, chart_box = (slots.answer, slots.chart) if slots else (st.container(), st.container())
    if not (models := scaling.models_in(found.points)):
        answer_box.info(lesson.NO_DDP_ROWS)
        return
    picked = lesson.points(found.points, _pick("model", "Model", models, key == LINKED, format_func=lesson.model_name))
    if not picked.ok:
        answer_box.warning(lesson.failed(picked, found.source))
    else:
        axis = _pick("axis", "Compare at the same", list(scaling.X_AXES), key == LINKED,
                     format_func=lesson.AXIS_NAMES.get)
        on = lesson.screen(picked, axis, found.source)
        answer_box.markdown(on.answer)
        chart_box.vega_lite_chart(chart_spec(scaling_charts.sized_throughput_chart, picked.ok, axis,
                                             scaffold.chart_height(340, first=slots is not None)), width="stretch")
        if on.notes:  # what the answer leaves out, under the chart
            chart_box.markdown(on.notes)
        chart_box.caption(on.caption)
        if on.efficiency:
            with scaffold.why("Scaling efficiency: how close to N times one GPU") as opened:
                if opened:
                    st.caption(lesson.EFFICIENCY_CAPTION)
                    st.vega_lite_chart(chart_spec(scaling_charts.efficiency_chart, on.efficiency, axis),
                                       width="stretch")
        scaffold.why_words("Where more GPUs start to win", on.crossovers)
        scaffold.why_words("Why: communication against compute", on.why)
    with st.expander("All measurements", expanded=False):
        formats = {name: st.column_config.NumberColumn(format=f) for name, f in lesson.FORMATS.items()}
        st.dataframe(picked.table, hide_index=True, width="stretch", column_config=formats)
        st.caption(lesson.TABLE_CAPTION)


# -- recorded results -----------------------------------------------------------------------------
recorded = lesson.recorded()
for problem in recorded.problems:
    st.warning(problem)
live = st.session_state.get(LIVE_KEY)
if recorded.by_name:
    name = url.selectbox("machine", "Recorded on", list(recorded.by_name), next(iter(recorded.by_name)),
                         format_func=recorded.labels.get)
    show_results(recorded.by_name[name], LINKED, slots=top)
elif not live:
    top.answer.markdown(lesson.NOTHING_RECORDED)
    top.note.caption(lesson.HOW_RECORDED)

scaffold.why_words("What this page measures (seed 002)", [lesson.SEED_002])

# -- live demo --------------------------------------------------------------------------------------
st.subheader("Live demo on this server")
demo_model = url.selectbox("demo_model", "Model for the demo", ["mlp", "cnn"], "mlp", format_func=lesson.model_name)
url.show_notes(container=notes_box)
url.sync_url()
st.write(scaling.demo_sentence(demo.demo_plan(demo_model)))
if st.button("Run the live demo", key="multi_gpu_run"):
    bar = st.progress(0.0, text="starting torchrun…")
    live = st.session_state[LIVE_KEY] = (demo_model, demo.run_demo(demo_model, progress=progress_to(bar)))
    bar.empty()
if live:  # (model, points): the points of the last demo this session ran
    show_results(scaling.Results.live(live[1]), "live", slots=None if recorded.by_name else top)
