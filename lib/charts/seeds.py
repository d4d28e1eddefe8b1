"""The Seed cases' times: one horizontal bar per time (the seed's, the recording's, this server's), on a log
axis, since a seed's CPU can take minutes where its GPU takes a fraction of a second."""

from __future__ import annotations

import textwrap

import altair as alt
import pandas as pd

from lib.charts.curves import BAR_PX, BAR_STEP, bar_axis
from lib.charts.theme import AXIS_TICK_FORMAT, CPU_LIVE, FIT_X, GPU_COLORS, NOTE_COLOR, legend
from lib.core.fmt import fmt_s
from lib.lessons.seed_cases.times import Call

# What a bar times, and its colour: the CPU blue, the GPU orange, its slower first call red.
TITLE_LINE_CHARS = 38
CALLS = {str(Call.CPU): CPU_LIVE, str(Call.GPU): GPU_COLORS[0], str(Call.FIRST): GPU_COLORS[1]}


def seed_times_chart(frame: pd.DataFrame, *, title: str | None = None) -> alt.LayerChart:
    """frame: one row per bar (lib.lessons.seed_cases.times.TimeBar.row): 'label' (whose time, of what), 'call'
    (a Call's name), 's' (seconds)."""
    plot = (
        pd.DataFrame(
            {"label": frame["label"].astype(str), "call": frame["call"].astype(str), "s": frame["s"].astype(float)}
        )
        if not frame.empty
        else pd.DataFrame({"label": [], "call": [], "s": []})
    )
    plot = plot[plot["s"] > 0]
    plot["text"] = [fmt_s(s) for s in plot["s"]]
    low, high = (min(plot["s"]) / 3, max(plot["s"]) * 3) if not plot.empty else (0.1, 10.0)
    plot["base"] = low
    domain = [c for c in CALLS if c in set(plot["call"])]
    y = alt.Y("label:N", title=None, sort=list(plot["label"]), axis=bar_axis())
    x = alt.X(
        "s:Q",
        title="seconds (log scale)",
        scale=alt.Scale(type="log", domain=[low, high], nice=False),
        axis=alt.Axis(format=AXIS_TICK_FORMAT),
    )
    bars = (
        alt.Chart(plot)
        .mark_bar(height=BAR_PX)
        .encode(
            x=x,
            x2="base:Q",
            y=y,
            color=alt.Color(
                "call:N",
                title=None,
                scale=alt.Scale(domain=domain, range=[CALLS[c] for c in domain]),
                legend=legend(domain),
            ),
            tooltip=[alt.Tooltip("label:N", title="what"), alt.Tooltip("text:N", title="time")],
        )
    )
    text = alt.Chart(plot).mark_text(align="left", dx=5, color=NOTE_COLOR).encode(x="s:Q", y=y, text="text:N")
    chart = alt.layer(bars, text).properties(height=BAR_STEP * max(1, len(plot)), autosize=FIT_X)  # a band per
    # bar, as phase_chart: an alt.Step height makes Vega drop its fit
    # a long title ('Time for one call (CPU: its only call; GPU: warm), …') in lines a phone shows whole
    return chart.properties(title=alt.Title(textwrap.wrap(title, TITLE_LINE_CHARS))) if title else chart
