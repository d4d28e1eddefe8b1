"""Multi-GPU lesson (seed 002): when do 2 or 4 GPUs beat one? DistributedDataParallel through torchrun.

Layout and words only: the numbers come from lib.lessons.scaling (tables, crossovers, sentences) and
lib.workloads.ddp.demo (the live demo).
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from lib.lessons import scaling
from ui.router import ensure_router

ensure_router()  # a first direct visit on a fresh server still gets the shared sidebar

LIVE_KEY = "multi_gpu_live_rows"

st.title("Multi-GPU: when do more GPUs pay off?")
st.markdown(
    "Seed 002 trained CNNs on CIFAR-10 with one and two GPUs and reported that two GPUs were about "
    "1.5× faster at large batches, with no gain at batch 128. This lesson measures the same question with "
    "PyTorch's **DistributedDataParallel**, launched by `torchrun`: one process per GPU, each computing "
    "gradients on its own batch, then one **all-reduce** per step that averages the gradients across GPUs.\n\n"
    "The gradient is as large as the model whatever the batch, so the all-reduce is a fixed cost per step. "
    "Below, that cost is measured and set against the compute time of a step."
)


def _line_chart(frame: pd.DataFrame, x: str, x_title: str, y: str, y_title: str, *, log_y: bool, rule: float | None = None):
    base = alt.Chart(frame).mark_line(point=True).encode(
        x=alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(type="log", base=2),
                axis=alt.Axis(values=sorted(int(v) for v in frame[x].unique()), format="d")),
        y=alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(type="log") if log_y else alt.Scale(zero=False)),
        color=alt.Color("GPUs:N", title="GPUs", sort=sorted(frame["GPUs"].unique(), key=lambda s: int(s.split()[0]))),
        tooltip=[alt.Tooltip("GPUs:N"), alt.Tooltip("batch_size:Q", title="per-GPU batch"),
                 alt.Tooltip("global_batch:Q", title="global batch"),
                 alt.Tooltip("samples_per_s:Q", title="samples/s", format=",.0f"),
                 alt.Tooltip("step_ms:Q", title="step (ms)", format=".3g"),
                 alt.Tooltip("scaling_efficiency:Q", title="scaling efficiency", format=".0%")],
    )
    if rule is None:
        return base
    ideal = alt.Chart(pd.DataFrame({y: [rule]})).mark_rule(strokeDash=[4, 4], color="gray").encode(y=f"{y}:Q")
    return base + ideal


def show_results(rows: list[dict], source: str, key: str) -> None:
    """Charts, crossovers, explanation and table for ddp rows from one machine."""
    models = scaling.models_in(rows)
    if not models:
        st.info("These results hold no multi-GPU (ddp) rows.")
        return
    model = st.radio("Model", models, horizontal=True, key=f"{key}_model",
                     format_func=lambda m: {"mlp": "MLP", "cnn": "CNN (3×32×32 images)"}.get(m, m))
    records = scaling.table(rows, model)
    ok = [d for d in records if d["status"] == "ok" and d["samples_per_s"]]
    counts = sorted({d["gpus"] for d in ok})
    cpu = scaling.on_cpu(records)
    if not ok:
        st.warning(f"No successful measurement of the {model} in these results ({source}); see the table below.")
    else:
        axis = st.radio("Compare at the same", list(scaling.X_AXES), horizontal=True, key=f"{key}_axis",
                        format_func=lambda a: {"per_gpu": "per-GPU batch (each GPU gets the batch)",
                                               "global": "global batch (the batch is split across the GPUs, as in seed 002)"}[a])
        x, x_title = scaling.X_AXES[axis]
        frame = pd.DataFrame(ok)
        st.subheader("Throughput")
        st.caption(f"Samples per second of the whole group, {source}. Both axes logarithmic.")
        st.altair_chart(_line_chart(frame, x, x_title, "samples_per_s", "samples per second", log_y=True),
                        width="stretch")
        eff = frame[frame["scaling_efficiency"].notna() & (frame["gpus"] > 1)] if "scaling_efficiency" in frame else frame.iloc[0:0]
        if len(eff):
            st.subheader("Scaling efficiency")
            st.caption("Throughput with N GPUs ÷ (N × throughput with 1 GPU at the same per-GPU batch); "
                       "the dashed line is perfect scaling.")
            st.altair_chart(_line_chart(eff, x, x_title, "scaling_efficiency", "scaling efficiency", log_y=False, rule=1.0),
                            width="stretch")

        st.subheader("Where more GPUs start to win")
        many = [n for n in counts if n > 1]
        if not many or 1 not in counts:
            st.write(f"These results do not hold both {scaling.gpu_label(1, cpu)} and more for this model, "
                     "so there is nothing to compare.")
        for n in many:
            if 1 in counts:
                st.write(scaling.crossover_sentence(scaling.crossover(records, n, axis), n, axis, cpu))

        st.subheader("Why: communication against compute")
        if many:
            for line in scaling.explanation(records, max(many), cpu):
                st.write(line)
        else:
            for line in scaling.single_process_sentences(records):
                st.write(line)

    st.subheader("All measurements")
    columns = {
        "GPUs": "GPUs", "batch_size": "per-GPU batch", "global_batch": "global batch", "status": "status",
        "step_ms": "step (ms)", "iqr_ms": "IQR (ms)", "samples_per_s": "samples/s",
        "scaling_efficiency": "scaling efficiency", "compute_ms": "compute, no exchange (ms)",
        "exposed_comm_ms": "exposed communication (ms)", "grad_mb": "gradient (MB)",
        "allreduce_ms": "all-reduce alone (ms)", "allreduce_gbps": "all-reduce (GB/s)",
        "peak_memory_gb": "peak GPU memory (GB)", "message": "message",
    }
    shown = pd.DataFrame(records, columns=list(columns)).rename(columns=columns)
    formats = {"step (ms)": "%.3g", "IQR (ms)": "%.2g", "samples/s": "%.4g", "scaling efficiency": "%.2f",
               "compute, no exchange (ms)": "%.3g", "exposed communication (ms)": "%.3g", "gradient (MB)": "%.3g",
               "all-reduce alone (ms)": "%.3g", "all-reduce (GB/s)": "%.3g", "peak GPU memory (GB)": "%.3g"}
    st.dataframe(shown, hide_index=True, width="stretch",
                 column_config={name: st.column_config.NumberColumn(format=f) for name, f in formats.items()})
    st.caption("Compute, no exchange: the same step under DDP's no_sync(). Exposed communication: step minus that "
               "(what the overlap of all-reduce and backward could not hide). All-reduce alone: one all-reduce of a "
               "buffer as big as the gradient, timed on its own. Data are random tensors already on the device.")


# -- recorded results -----------------------------------------------------------------------------
packs, problems = scaling.recorded_ddp_packs()
for problem in problems:
    st.warning(f"A recorded pack could not be read and is left out: {problem}")

st.header("Recorded on GPU machines")
if packs:
    index = st.selectbox("Machine", range(len(packs)), format_func=lambda i: scaling.pack_label(packs[i]),
                         key="multi_gpu_pack")
    pack = packs[index]
    label = str(pack["machine"].get("label", "unknown machine"))
    gpus = pack["machine"].get("gpus") or []
    st.caption(f"Recorded on {label}" + (f" ({len(gpus)} GPUs)" if gpus else "") + f"; file {scaling.pack_label(pack).split(' — ')[-1]}.")
    show_results(scaling.ddp_rows(pack), f"recorded on {label}", "recorded")
else:
    st.info("No multi-GPU results have been recorded yet: lib/recorded/ holds no pack with ddp rows. "
            "They are recorded on a machine with 2 or 4 GPUs with scripts/record_ddp.sh. "
            "Meanwhile, the live demo below runs the same code here.")

# -- live demo --------------------------------------------------------------------------------------
from lib.workloads.ddp import demo  # noqa: E402 - torch is imported only once the recorded part is on screen

st.header("Live demo on this server")
demo_model = st.selectbox("Model for the demo", ["mlp", "cnn"], key="multi_gpu_demo_model",
                          format_func=lambda m: {"mlp": "MLP", "cnn": "CNN (3×32×32 images)"}[m])
plan = demo.demo_plan(demo_model)
if plan["device"] == "cpu":
    st.write("This server has fewer than two GPUs, so the demo runs **one process on the CPU** with the gloo "
             f"backend, at batch sizes {', '.join(str(b) for b in plan['batch_sizes'])}: the same torchrun launch, "
             "DistributedDataParallel and timing as on the GPU machines, without anyone to exchange gradients with.")
else:
    st.write(f"This server has GPUs: the demo runs {', '.join(scaling.gpu_label(n) for n in plan['gpus'])} "
             f"at per-GPU batch sizes {', '.join(str(b) for b in plan['batch_sizes'])}.")
if st.button("Run the live demo", key="multi_gpu_run"):
    bar = st.progress(0.0, text="starting torchrun…")
    st.session_state[LIVE_KEY] = (demo_model, demo.run_demo(demo_model, progress=lambda f, m: bar.progress(min(1.0, f), text=m)))
    bar.empty()
live = st.session_state.get(LIVE_KEY)
if live:
    _, live_rows = live
    where = "live on this server, " + ("CPU, 1 process" if all(r.get("device") == "cpu" for r in live_rows) else "GPUs")
    show_results(live_rows, where, "live")
