"""A step's timeline as lanes of bars over one time axis in microseconds (lib.core.timeline events).

    timeline_chart(events, title="GPU · H200 (recorded)")

One lane per row (the CPU thread's operators, its CUDA runtime calls, each GPU stream); one bar per
event, coloured by what it is; the GPU's idle gaps between kernels shaded, their total labelled;
tooltips name the operator or kernel.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from lib.charts.theme import FIT_X, NOTE_COLOR
from lib.core.fmt import fmt_s
from lib.core.step_timeline import EventKind, TimelineEvent

KINDS = {
    EventKind.OPERATOR: "#1f77b4",
    EventKind.LAUNCH: "#9467bd",
    EventKind.RUNTIME: "#bcbd22",
    EventKind.SYNC: "#d62728",
    EventKind.KERNEL: "#ff7f0e",
    EventKind.COPY: "#2ca02c",
    EventKind.MEMSET: "#17becf",
}
LABEL_LIMIT_PX = 160  # "CPU: autograd thread", "GPU: stream 7" at 11 px fit whole
# drawn as SVG (a few hundred bars at most): each bar is an element a browser test can measure
SVG = {"embedOptions": {"renderer": "svg"}}


def lane_order(lane: str) -> tuple[int, str]:
    """The CPU's Python thread on top, then its autograd thread and CUDA runtime calls, the GPU below."""
    ranks = ("CPU: Python", "CPU: autograd", "CPU: CUDA", "GPU")
    return next((i for i, r in enumerate(ranks) if lane.startswith(r)), len(ranks)), lane


def idle_gaps(events: Sequence[TimelineEvent]) -> list[tuple[float, float]]:
    """The stretches between the GPU's first and last event when no GPU event ran."""
    gpu = sorted((e.start_us, e.end_us) for e in events if e.on_gpu)
    gaps, reach = [], None
    for lo, hi in gpu:
        if reach is not None and lo > reach:
            gaps.append((reach, lo))
        reach = hi if reach is None else max(reach, hi)
    return gaps


def timeline_chart(
    events: Sequence[TimelineEvent], *, title: str | None = None, height_per_lane: int = 28
) -> alt.LayerChart:
    """One row of `height_per_lane` px per lane. The plot's height is set in pixels and only the width
    fits the page (FIT_X): under Streamlit's "fit" the title, axis and legend came out of a fixed
    height and left the lanes 2 px; an alt.Step height makes Vega drop the fit with a console warning."""
    # Altair's data: the kind as its word
    frame = pd.DataFrame([{**e._asdict(), "kind": e.kind.value, "duration_us": e.end_us - e.start_us} for e in events])
    lanes = sorted(set(frame["lane"]), key=lane_order) if not frame.empty else []
    kinds = [k.value for k in KINDS if not frame.empty and k.value in set(frame["kind"])]
    # bars fill their lane's band less its padding; long lane names keep their words on a phone too
    y = alt.Y(
        "lane:N",
        title=None,
        sort=lanes,
        scale=alt.Scale(paddingInner=0.25, paddingOuter=0.15),
        axis=alt.Axis(labelLimit=LABEL_LIMIT_PX),
    )
    # the end labels inside the plot, not past the chart's edge on a phone
    x = alt.X("start_us:Q", title="time within the step (µs)", axis=alt.Axis(labelFlush=True))
    bars = (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=x,
            x2="end_us:Q",
            y=y,
            color=alt.Color(
                "kind:N",
                title=None,
                scale=alt.Scale(domain=kinds, range=[KINDS[EventKind(k)] for k in kinds]),
                legend=alt.Legend(orient="bottom", columns=2),
            ),
            tooltip=[
                alt.Tooltip("name:N", title="what"),
                alt.Tooltip("kind:N"),
                alt.Tooltip("lane:N"),
                alt.Tooltip("start_us:Q", title="starts (µs)", format=",.1f"),
                alt.Tooltip("duration_us:Q", title="lasts (µs)", format=",.1f"),
            ],
        )
    )
    layers: list[alt.Chart] = []
    note = None
    if gaps := idle_gaps(events):
        total = sum(hi - lo for lo, hi in gaps)
        gap_frame = pd.DataFrame(
            {
                "start_us": [lo for lo, _ in gaps],
                "end_us": [hi for _, hi in gaps],
                "lane": [next(n for n in lanes if n.startswith("GPU"))] * len(gaps),
            }
        )
        gap_bars = alt.Chart(gap_frame).mark_bar(color="#999", opacity=0.25)
        layers.append(gap_bars.encode(x="start_us:Q", x2="end_us:Q", y=y))
        # under the title, not over the top lane's bars
        note = f"GPU idle between kernels: {fmt_s(total / 1e6)} in all (grey)"
    chart = alt.layer(*layers, bars).properties(
        height=max(1, len(lanes)) * height_per_lane, usermeta=SVG, autosize=FIT_X
    )
    if title or note:
        chart = chart.properties(
            title=alt.TitleParams(title or "", subtitle=note or "", subtitleColor=NOTE_COLOR, anchor="start")
        )
    return chart
