"""The Gallery's chart: every machine's GPU speed-up over its own CPU on the gallery sweep, one line
per machine, the break-even line at 1x, and where each line crosses it.

    frame = lib.lessons.gallery.view.speedup_frame(comparison)
    speedups_chart(frame, lib.lessons.gallery.view.crossover_points(comparison), x_title="batch size")

Pure function; no Streamlit. Names come from visitors: Vega draws them as text, never as markup.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from lib.charts.theme import AXIS_TICK_FORMAT, GPU_COLORS, NOTE_COLOR, kind_colors, legend, log_ticks, sized


def speedups_chart(
    frame: pd.DataFrame, crossings: pd.DataFrame, *, x_title: str = "batch size", plot_height: int = 260
) -> alt.LayerChart:
    """One speed-up line per machine; plot_height is the plot's own (the legend below adds its rows)."""
    machines = list(dict.fromkeys(frame["machine"].astype(str))) or [""]
    # every line is a GPU's speed-up: the GPUs' colours (orange first, as on every page), then more
    scheme = (
        alt.Scale(domain=machines, range=kind_colors(["gpu"] * len(machines)))
        if len(machines) <= len(GPU_COLORS)
        else alt.Scale(domain=machines, scheme="tableau20")
    )
    color = alt.Color("machine:N", title="machine", sort=machines, scale=scheme, legend=legend(machines))
    x_enc = alt.X(
        "x:Q",
        title=f"{x_title} (log scale)",
        scale=alt.Scale(type="log", nice=False, padding=12),
        axis=alt.Axis(values=log_ticks(frame["x"]), format=AXIS_TICK_FORMAT)
        if len(frame)
        else alt.Axis(format=AXIS_TICK_FORMAT),
    )
    y_enc = alt.Y(
        "speedup:Q",
        title="CPU ÷ GPU time (log)",  # short: a long title is cut in a small plot
        scale=alt.Scale(type="log", nice=False, padding=12),
    )
    tooltip = [
        alt.Tooltip("machine:N"),
        alt.Tooltip("x:Q", title=x_title, format=",.4~g"),
        alt.Tooltip("speedup:Q", title="speed-up", format=".3~g"),
    ]
    base = alt.Chart(frame)
    lines = base.mark_line(strokeWidth=2).encode(x=x_enc, y=y_enc, color=color)
    points = base.mark_point(size=40, filled=True).encode(x="x:Q", y="speedup:Q", color=color, tooltip=tooltip)
    one = pd.DataFrame({"speedup": [1.0], "label": ["1×: GPU as fast as its own CPU"]})
    rule = alt.Chart(one).mark_rule(strokeDash=[4, 4], color=NOTE_COLOR).encode(y="speedup:Q")
    text = (
        alt.Chart(one)
        .mark_text(align="left", dx=4, dy=-6, color=NOTE_COLOR)
        .encode(x=alt.value(4), y="speedup:Q", text="label:N")
    )
    marks = (
        alt.Chart(crossings.assign(speedup=1.0, label="crossover"))
        .mark_point(size=160, shape="diamond", filled=False, strokeWidth=2)
        .encode(
            x="x:Q",
            y="speedup:Q",
            color=color,
            tooltip=[
                alt.Tooltip("machine:N"),
                alt.Tooltip("x:Q", title=f"GPU catches up at {x_title}", format=",.4~g"),
            ],
        )
    )
    # The legend lists every machine below the plot: grow the chart with it, or a class of thirty
    # machines would squeeze the plot to nothing (Streamlit fits the whole chart into its height).
    # No crossing placed: no diamond layer (an empty one makes Vega warn of an infinite extent).
    layers = (rule, text, lines, points, marks) if len(crossings) else (rule, text, lines, points)
    return sized(alt.layer(*layers), plot_height, plot_height)
