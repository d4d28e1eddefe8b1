"""Altair chart of several machines' curves for one sweep (the Your results page).

    comparisons = lib.lessons.compare.compare_machines(merged_pack["rows"])
    machines_chart(comparisons[0], x_title="batch size")

Colour = machine, dash and point shape = device (the CPU solid with circles), IQR bars, both axes
logarithmic, and each machine's own CPU-vs-GPU crossover as a dashed rule in that machine's colour.
Pure functions; no Streamlit.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

from lib.charts.theme import SERIES_COLORS, time_unit
from lib.core.fmt import fmt_num
from lib.lessons.compare import Comparison

DASHES = ([1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [4, 4], [1, 3])
SHAPES = ("circle", "triangle-up", "square", "diamond", "cross", "triangle-down")


def machines_frame(comparison: Comparison) -> pd.DataFrame:
    """Long form of the curves: machine, device, x, seconds, iqr (seconds or None)."""
    records = []
    for curve in comparison.curves:
        iqrs = curve.iqr_s or [None] * len(curve.xs)
        for x, t, iqr in zip(curve.xs, curve.times_s, iqrs):
            records.append({"machine": curve.machine, "device": curve.device, "x": float(x), "seconds": float(t),
                            "iqr": float(iqr) if isinstance(iqr, (int, float)) and not isinstance(iqr, bool) else None})
    return pd.DataFrame(records, columns=["machine", "device", "x", "seconds", "iqr"])


def _devices(frame: pd.DataFrame) -> list[str]:
    names = list(dict.fromkeys(frame["device"].astype(str)))
    return sorted(names, key=lambda d: (d != "cpu", names.index(d)))


def machines_chart(comparison: Comparison, *, x_title: str | None = None, y_title: str = "median time of one step",
                   title: str | None = None, height: int = 400) -> alt.LayerChart:
    frame = machines_frame(comparison)
    data = frame[frame["seconds"] > 0]
    scale, unit = time_unit(data["seconds"]) if not data.empty else (1.0, "s")
    plot = pd.DataFrame({
        "machine": data["machine"].astype(str),
        "device": data["device"].astype(str),
        "curve": data["machine"].astype(str) + " | " + data["device"].astype(str),
        "x": data["x"],
        "t": data["seconds"] / scale,
    })
    half = data["iqr"].fillna(0).astype(float) / 2 / scale
    plot["lo"] = (plot["t"] - half).clip(lower=plot["t"] * 1e-3)
    plot["hi"] = plot["t"] + half
    machines = list(dict.fromkeys(plot["machine"])) or [""]
    devices = _devices(plot) or ["cpu"]
    colors = [SERIES_COLORS[i % len(SERIES_COLORS)] for i in range(len(machines))]
    color = alt.Color("machine:N", title="machine", sort=machines, scale=alt.Scale(domain=machines, range=colors),
                      legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=480))
    dash = alt.StrokeDash("device:N", title="device", sort=devices,
                          scale=alt.Scale(domain=devices, range=[DASHES[i % len(DASHES)] for i in range(len(devices))]),
                          legend=alt.Legend(orient="bottom", direction="horizontal"))
    shape = alt.Shape("device:N", title="device", sort=devices,
                      scale=alt.Scale(domain=devices, range=[SHAPES[i % len(SHAPES)] for i in range(len(devices))]),
                      legend=alt.Legend(orient="bottom", direction="horizontal"))
    x_enc = alt.X("x:Q", title=f"{x_title or comparison.setting} (log scale)",
                  scale=alt.Scale(type="log", nice=False, padding=12), axis=alt.Axis(format="~s"))
    y_enc = alt.Y("t:Q", title=f"{y_title} ({unit}, log scale)", scale=alt.Scale(type="log"))
    tooltip = [
        alt.Tooltip("machine:N"), alt.Tooltip("device:N"),
        alt.Tooltip("x:Q", title=x_title or comparison.setting, format=",.4~g"),
        alt.Tooltip("t:Q", title=f"median ({unit})", format=".4~g"),
        alt.Tooltip("lo:Q", title=f"IQR low ({unit})", format=".4~g"),
        alt.Tooltip("hi:Q", title=f"IQR high ({unit})", format=".4~g"),
    ]
    base = alt.Chart(plot)
    lines = base.mark_line(strokeWidth=2).encode(x=x_enc, y=y_enc, color=color, strokeDash=dash, detail="curve:N")
    points = base.mark_point(size=60, filled=True).encode(x="x:Q", y="t:Q", color=color, shape=shape, tooltip=tooltip)
    bars = base.mark_rule(strokeWidth=2, opacity=0.5).encode(x="x:Q", y="lo:Q", y2="hi:Q", color=color)
    layers: list[alt.Chart] = [bars, lines, points]
    for i, machine in enumerate(m for m in machines if m in comparison.crossovers):
        cross = comparison.crossovers[machine]
        if cross.kind != "crosses" or cross.x is None or not math.isfinite(cross.x):
            continue
        label = f"crossover ≈ {fmt_num(cross.x)}"
        mark = alt.Chart(pd.DataFrame({"machine": [machine], "x": [float(cross.x)], "label": [label]}))
        layers.append(mark.mark_rule(strokeDash=[6, 4], strokeWidth=2).encode(
            x="x:Q", color=color, tooltip=[alt.Tooltip("machine:N"), alt.Tooltip("label:N", title="its CPU vs GPU")]))
        layers.append(mark.mark_text(align="left", dx=5, fontWeight="bold").encode(
            x="x:Q", y=alt.value(12 + 15 * i), text="label:N", color=color))
    chart = alt.layer(*layers)
    chart = chart.properties(height=height)
    return chart.properties(title=title) if title else chart
