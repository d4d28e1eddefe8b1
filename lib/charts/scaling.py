"""Altair charts of the multi-GPU lesson: one line per GPU count against the per-GPU or the global batch.

    records = lib.lessons.multi_gpu.scaling.table(points, "mlp")
    throughput_chart(scaling.ok_points(records), "per_gpu")                samples/s, log-log
    efficiency_chart(scaling.efficiency_points(records), "global")         1.0 dashed

`points` are lib.lessons.multi_gpu.scaling.ScalingPoint (or a DataFrame of their chart_records); `axis` is a key of
lib.lessons.multi_gpu.scaling.X_AXES. The x axis is logarithmic (base 2) with a tick at every batch measured;
colour = the GPU count ('1 GPU', '2 GPUs', or processes on the CPU), in numeric order, each count its
own colour on both charts: GPUs in the GPU colours of every page (1 GPU orange, 2 red, 4 brown, …),
CPU processes in the CPU's blues. Pure functions; no Streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import altair as alt
import pandas as pd

from lib.charts.theme import GPU_COLORS, cpu_colors
from lib.lessons.multi_gpu.scaling import X_AXES, ScalingPoint, chart_records


def count_color(label: str) -> str:
    """'1 GPU' orange, '2 GPUs' red, '4 GPUs' brown, …; '1 process' the live CPU's blue, then lighter."""
    n = int(str(label).split()[0])
    index = max(0, round(math.log2(max(n, 1))))
    if "process" in str(label):
        return cpu_colors(index + 1)[index]  # 1 process the live CPU's blue, 2 light blue, 4 purple
    return GPU_COLORS[index % len(GPU_COLORS)]


def points_frame(points: Sequence[ScalingPoint] | pd.DataFrame) -> pd.DataFrame:
    """The points as a DataFrame (Altair's edge), with every column the charts read (empty ones added if missing)."""
    frame = points if isinstance(points, pd.DataFrame) else pd.DataFrame(chart_records(points))
    for column in ("GPUs", "gpus", "batch_size", "global_batch", "samples_per_s", "step_ms", "scaling_efficiency"):
        if column not in frame:
            frame = frame.assign(**{column: pd.Series(dtype=object if column == "GPUs" else float)})
    return frame


def gpu_line_chart(
    points: Sequence[ScalingPoint] | pd.DataFrame,
    axis: str,
    y: str,
    y_title: str,
    *,
    log_y: bool,
    rule: float | None = None,
) -> alt.Chart | alt.LayerChart:
    """`y` against the batch of `axis`, one line (with points) per GPU count; a dashed grey
    horizontal rule at `rule` when given."""
    frame = points_frame(points)
    x, x_title = X_AXES[axis]
    counts = sorted(frame["GPUs"].dropna().unique(), key=lambda s: int(str(s).split()[0]))
    base = (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X(
                f"{x}:Q",
                title=x_title,
                scale=alt.Scale(type="log", base=2),
                axis=alt.Axis(values=sorted(int(v) for v in frame[x].dropna().unique()), format="d"),
            ),
            y=alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(type="log") if log_y else alt.Scale(zero=False)),
            color=alt.Color(
                "GPUs:N",
                title="GPUs",
                sort=counts,
                scale=alt.Scale(domain=counts, range=[count_color(c) for c in counts]) if counts else alt.Undefined,
            ),
            tooltip=[
                alt.Tooltip("GPUs:N"),
                alt.Tooltip("batch_size:Q", title="per-GPU batch"),
                alt.Tooltip("global_batch:Q", title="global batch"),
                alt.Tooltip("samples_per_s:Q", title="samples/s", format=",.0f"),
                alt.Tooltip("step_ms:Q", title="step (ms)", format=".3g"),
                alt.Tooltip("scaling_efficiency:Q", title="scaling efficiency", format=".0%"),
            ],
        )
    )
    if rule is None:
        return base
    ideal = alt.Chart(pd.DataFrame({y: [rule]})).mark_rule(strokeDash=[4, 4], color="gray").encode(y=f"{y}:Q")
    return base + ideal


def throughput_chart(points: Sequence[ScalingPoint] | pd.DataFrame, axis: str = "per_gpu") -> alt.Chart:
    """Samples per second of the whole group; both axes logarithmic."""
    return gpu_line_chart(points, axis, "samples_per_s", "samples per second", log_y=True)


def efficiency_chart(points: Sequence[ScalingPoint] | pd.DataFrame, axis: str = "per_gpu") -> alt.LayerChart:
    """Scaling efficiency (linear axis, not from zero), with perfect scaling (1.0) dashed."""
    return gpu_line_chart(points, axis, "scaling_efficiency", "scaling efficiency", log_y=False, rule=1.0)


def sized_throughput_chart(points: Sequence[ScalingPoint] | pd.DataFrame, axis: str, height: int) -> alt.Chart:
    """throughput_chart at a plot height (the page's first chart fits a phone's first screen)."""
    return throughput_chart(points, axis).properties(height=height)
