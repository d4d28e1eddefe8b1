"""Multi-GPU lesson (seed 002): when do 2 or 4 GPUs beat one? DistributedDataParallel through torchrun.

Answer first: the title, one sentence (where more GPUs start to pay off), the throughput chart of the
recorded machine (or of the live demo when nothing is recorded); the pickers below; the efficiency
chart, the explanations and the table behind closed expanders. Layout and words only: the numbers
and sentences come from lib.lessons.multi_gpu.scaling and lib.lessons.multi_gpu.answer, the charts from
lib.charts.scaling, the live demo from lib.workloads.ddp.demo.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.charts import scaling as scaling_charts
from lib.lessons.multi_gpu import scaling
from lib.lessons.multi_gpu.answer import scaling_answer, scaling_notes
from lib.workloads.ddp import demo
from ui import scaffold
from ui.chart_cache import chart_spec
from ui.router import ensure_router
from ui.url_settings import UrlSettings

ensure_router()  # a first direct visit on a fresh server still gets the shared sidebar

LIVE_KEY = "multi_gpu_live_rows"
MODEL_NAMES = {"mlp": "MLP", "cnn": "CNN (3×32×32 images)"}
AXIS_NAMES = {"per_gpu": "per-GPU batch (each GPU gets the batch)",
              "global": "global batch (the batch is split across the GPUs, as in seed 002)"}
COLUMNS = {
    "GPUs": "GPUs", "batch_size": "per-GPU batch", "global_batch": "global batch", "status": "status",
    "step_ms": "step (ms)", "iqr_ms": "IQR (ms)", "samples_per_s": "samples/s",
    "scaling_efficiency": "scaling efficiency", "compute_ms": "compute, no exchange (ms)",
    "exposed_comm_ms": "not hidden: step − compute (ms)", "grad_mb": "gradient (MB)",
    "allreduce_ms": "all-reduce alone (ms)", "ddp_overhead_ms": "DDP's own overhead, at least (ms)",
    "allreduce_gbps": "all-reduce (GB/s)",
    "peak_memory_gb": "peak GPU memory (GB)", "message": "message",
}
FORMATS = {"step (ms)": "%.3g", "IQR (ms)": "%.2g", "samples/s": "%.4g", "scaling efficiency": "%.2f",
           "compute, no exchange (ms)": "%.3g", "not hidden: step − compute (ms)": "%.3g", "gradient (MB)": "%.3g",
           "all-reduce alone (ms)": "%.3g", "DDP's own overhead, at least (ms)": "%.3g", "all-reduce (GB/s)": "%.3g", "peak GPU memory (GB)": "%.3g"}

top = scaffold.answer_first("Multi-GPU: when do more GPUs pay off?")
notes_box = st.container()
# The recorded view's machine, model and axis and the demo's model live in the URL (a link to the CNN at
# the same global batch opens that view); the live demo's own pickers do not: its rows live in one session.
url = UrlSettings("multi_gpu")
LINKED = "recorded"  # the widget key of the view whose pickers live in the URL


def _pick(key: str, label: str, options: list, linked: bool, **kw):
    """A horizontal radio: URL-bound for the recorded view ('model', 'axis'), plain for the live demo's rows."""
    if linked:
        return url.radio(key, label, options, options[0], **kw)
    return st.radio(label, options, horizontal=True, key=f"live_{key}", **kw)


def _throughput_chart(ok: list[dict], axis: str, height: int):
    return scaling_charts.throughput_chart(ok, axis).properties(height=height)


def show_results(rows: list[dict], source: str, key: str, slots: scaffold.AnswerFirst | None = None) -> None:
    """The answer and the throughput chart (in `slots` when given, else here), then the efficiency chart,
    crossovers, explanation and table for ddp rows from one machine (key 'recorded': its pickers in the URL)."""
    answer_box, chart_box = (slots.answer, slots.chart) if slots else (st.container(), st.container())
    models = scaling.models_in(rows)
    if not models:
        answer_box.info("These results hold no multi-GPU (ddp) rows.")
        return
    model = _pick("model", "Model", models, key == LINKED, format_func=lambda m: MODEL_NAMES.get(m, m))
    records = scaling.table(rows, model)
    ok = scaling.ok_points(records)
    cpu = scaling.on_cpu(records)
    if not ok:
        answer_box.warning(f"No successful measurement of the {model} in these results ({source}); see the table.")
    else:
        axis = _pick("axis", "Compare at the same", list(scaling.X_AXES), key == LINKED, format_func=AXIS_NAMES.get)
        answer_box.markdown(scaling_answer(records, axis, cpu))
        chart_box.vega_lite_chart(chart_spec(_throughput_chart, ok, axis, scaffold.chart_height(340, first=slots is not None)),
                                  width="stretch")
        if notes := scaling_notes(records, axis, cpu):  # what the answer leaves out, under the chart (issue 37)
            chart_box.markdown(notes)
        chart_box.caption(f"Samples per second of the whole group, {source}. Both axes logarithmic.")
        efficiency = scaling.efficiency_points(records)
        if efficiency:
            with scaffold.why("Scaling efficiency: how close to N times one GPU") as opened:
                if opened:
                    st.caption("Throughput with N GPUs ÷ (N × throughput with 1 GPU at the same per-GPU batch); "
                               "the dashed line is perfect scaling.")
                    st.vega_lite_chart(chart_spec(scaling_charts.efficiency_chart, efficiency, axis), width="stretch")
        with scaffold.why("Where more GPUs start to win") as opened:
            if opened:
                for line in scaling.crossover_lines(records, axis, cpu):
                    st.markdown(line.markdown())
        with scaffold.why("Why: communication against compute") as opened:
            if opened:
                for line in scaling.why_lines(records, cpu):
                    st.write(line)

    with st.expander("All measurements", expanded=False):
        shown = pd.DataFrame(records, columns=list(COLUMNS)).rename(columns=COLUMNS)
        st.dataframe(shown, hide_index=True, width="stretch",
                     column_config={name: st.column_config.NumberColumn(format=f) for name, f in FORMATS.items()})
        st.caption("Compute, no exchange: the same step under DDP's no_sync(). Exposed communication: step minus "
                   "that (what the overlap of all-reduce and backward could not hide). All-reduce alone: one "
                   "all-reduce of a buffer as big as the gradient, timed on its own. Data are random tensors already "
                   "on the device.")


# -- recorded results -----------------------------------------------------------------------------
packs, problems = scaling.recorded_ddp_packs()
for problem in problems:
    st.warning(f"A recorded pack could not be read and is left out: {problem}")
live = st.session_state.get(LIVE_KEY)
if packs:
    by_name = {scaling.pack_name(p): p for p in packs}
    name = url.selectbox("machine", "Recorded on", list(by_name), next(iter(by_name)),
                         format_func=lambda n: scaling.pack_label(by_name[n]))
    pack = by_name[name]
    show_results(scaling.ddp_rows(pack), scaling.recorded_source(pack), "recorded", slots=top)
elif not live:
    top.answer.markdown("No multi-GPU results have been recorded yet, so there is no answer to draw here: the live "
                        "demo below runs the same code on this server.")
    top.note.caption("They are recorded on a machine with 2 or 4 GPUs (the project's record_ddp script).")

with scaffold.why("What this page measures (seed 002)") as opened:
    if opened:
        st.markdown(
            "Seed 002 trained CNNs on CIFAR-10 with one and two GPUs and reported that two GPUs were about 1.5× faster "
            "at large batches, with no gain at batch 128. This lesson measures the same question with PyTorch's "
            "**DistributedDataParallel**, launched by `torchrun`: one process per GPU, each computing gradients on its "
            "own batch, then one exchange per step that averages the gradients across GPUs (an **all-reduce**).\n\n"
            "The gradient is as large as the model whatever the batch, so the exchange is a fixed cost per step. The "
            "charts set that cost against the compute time of a step.")

# -- live demo --------------------------------------------------------------------------------------
st.subheader("Live demo on this server")
demo_model = url.selectbox("demo_model", "Model for the demo", ["mlp", "cnn"], "mlp", format_func=lambda m: MODEL_NAMES[m])
url.show_notes(container=notes_box)
url.sync_url()
st.write(scaling.demo_sentence(demo.demo_plan(demo_model)))
if st.button("Run the live demo", key="multi_gpu_run"):
    bar = st.progress(0.0, text="starting torchrun…")
    demo_rows = demo.run_demo(demo_model, progress=lambda f, m: bar.progress(min(1.0, f), text=m))
    st.session_state[LIVE_KEY] = (demo_model, demo_rows)
    bar.empty()
    live = st.session_state[LIVE_KEY]
if live:
    _, live_rows = live
    show_results(live_rows, scaling.live_source(live_rows), "live", slots=None if packs else top)
