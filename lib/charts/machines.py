"""Altair chart of several machines' curves for one sweep (the Your results page).

    comparisons = lib.lessons.your_results.compare.compare_machines(merged_pack["rows"])
    machines_chart(comparisons[0], x_title="batch size")

One legend entry per curve ('GPU · NVIDIA H200'): its colour says what it is, the same on every page
(a GPU orange, then red; the CPU of a GPU machine purple; a machine with no GPU light blue), its dash
which machine it came from, its point shape the device (the CPU circles). IQR bars, both axes
logarithmic, and each machine's own CPU-vs-GPU crossover as a dashed rule in its GPU's colour.
Pure functions; no Streamlit.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

from lib.charts.curves import in_right_part
from lib.charts.theme import AXIS_TICK_FORMAT, kind_colors, legend, log_ticks, sized, time_unit
from lib.core.crossover import CrossKind
from lib.lessons.common.voice import likely_about
from lib.lessons.your_results.compare import Comparison, curve_name

DASHES = ([1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [4, 4], [1, 3])
SHAPES = ("circle", "triangle-up", "square", "diamond", "cross", "triangle-down")


def device_shape(device: str, devices: list[str]) -> str:
    """A CPU's points are circles; each GPU of the list its own shape."""
    return "circle" if device == "cpu" else SHAPES[1 + devices.index(device) % (len(SHAPES) - 1)]


def machines_frame(comparison: Comparison) -> pd.DataFrame:
    """Long form of the curves: machine, device, x, seconds, iqr (seconds or None)."""
    records = []
    for curve in comparison.curves:
        iqrs = curve.iqr_s or [None] * len(curve.xs)
        for x, t, iqr in zip(curve.xs, curve.times_s, iqrs):
            records.append(
                {
                    "machine": curve.machine,
                    "device": curve.device,
                    "x": float(x),
                    "seconds": float(t),
                    "iqr": float(iqr) if isinstance(iqr, (int, float)) and not isinstance(iqr, bool) else None,
                }
            )
    return pd.DataFrame(records, columns=["machine", "device", "x", "seconds", "iqr"])


def curve_styles(plot: pd.DataFrame) -> tuple[list[str], list[str], list[list[int]], list[str]]:
    """The curves in legend order (each machine's CPU first, then its GPUs), and per curve its colour
    (what it is), dash (which machine) and point shape (which device)."""
    machines = list(dict.fromkeys(plot["machine"]))
    curves, dashes, shapes, kinds = [], [], [], []
    for i, machine in enumerate(machines):
        seen = list(dict.fromkeys(plot.loc[plot["machine"] == machine, "device"]))
        devices = sorted(seen, key=lambda d: (d != "cpu", seen.index(d)))
        has_gpu = any(d != "cpu" for d in devices)
        for device in devices:
            curves.append(curve_name(machine, device))
            kinds.append("gpu" if device != "cpu" else "host" if has_gpu else "small")
            dashes.append(DASHES[i % len(DASHES)])
            shapes.append(device_shape(device, devices))
    colours = kind_colors(kinds)
    return curves, colours, dashes, shapes


def machines_chart(
    comparison: Comparison,
    *,
    x_title: str | None = None,
    y_title: str = "time of one step",
    title: str | None = None,
    height: int = 400,
    plot_height: int | None = None,
    legend_columns: int = 1,
) -> alt.LayerChart:
    """The machines' curves of one sweep; `plot_height` keeps the plot that tall above the legend
    (`legend_columns` side by side: an embedded 800 x 600 frame has no room for one row per curve)."""
    frame = machines_frame(comparison)
    data = frame[frame["seconds"] > 0]
    scale, unit = time_unit(data["seconds"]) if not data.empty else (1.0, "s")
    plot = pd.DataFrame(
        {
            "machine": data["machine"].astype(str),
            "device": data["device"].astype(str),
            "curve": [curve_name(m, d) for m, d in zip(data["machine"].astype(str), data["device"].astype(str))],
            "x": data["x"],
            "t": data["seconds"] / scale,
        }
    )
    half = data["iqr"].fillna(0).astype(float) / 2 / scale
    plot["lo"] = (plot["t"] - half).clip(lower=plot["t"] * 1e-3)
    plot["hi"] = plot["t"] + half
    curves, colours, dashes, _ = curve_styles(plot)
    domain = curves or [""]
    key = legend(domain, symbolType="stroke", columns=legend_columns)
    color = alt.Color(
        "curve:N", title=None, sort=domain, scale=alt.Scale(domain=domain, range=colours or ["#888"]), legend=key
    )
    dash = alt.StrokeDash(
        "curve:N", title=None, sort=domain, legend=key, scale=alt.Scale(domain=domain, range=dashes or [[1, 0]])
    )
    # the point's shape says the device: a scale of its own (on the curve's name, as colour and dash are,
    # Vega-Lite would merge it into their legend and warn 'Conflicting legend property "disable"')
    devices = sorted(dict.fromkeys(plot["device"]), key=lambda d: d != "cpu") or ["cpu"]
    shape = alt.Shape(
        "device:N",
        title=None,
        legend=None,
        scale=alt.Scale(domain=devices, range=[device_shape(d, devices) for d in devices]),
    )
    x_enc = alt.X(
        "x:Q",
        title=f"{x_title or comparison.setting} (log scale)",
        scale=alt.Scale(type="log", nice=False, padding=12),
        axis=alt.Axis(values=log_ticks(plot["x"]), format=AXIS_TICK_FORMAT),
    )
    y_enc = alt.Y("t:Q", title=f"{y_title} ({unit}, log)", scale=alt.Scale(type="log"))  # short: a small plot cuts it
    tooltip = [
        alt.Tooltip("machine:N"),
        alt.Tooltip("device:N"),
        alt.Tooltip("x:Q", title=x_title or comparison.setting, format=",.4~g"),
        alt.Tooltip("t:Q", title=f"median ({unit})", format=".4~g"),
        alt.Tooltip("lo:Q", title=f"IQR low ({unit})", format=".4~g"),
        alt.Tooltip("hi:Q", title=f"IQR high ({unit})", format=".4~g"),
    ]
    base = alt.Chart(plot)
    lines = base.mark_line(strokeWidth=2).encode(x=x_enc, y=y_enc, color=color, strokeDash=dash)
    points = base.mark_point(size=60, filled=True).encode(x="x:Q", y="t:Q", color=color, shape=shape, tooltip=tooltip)
    bars = base.mark_rule(strokeWidth=2, opacity=0.5).encode(x="x:Q", y="lo:Q", y2="hi:Q", color=color)
    layers: list[alt.Chart] = [bars, lines, points]
    colour_of = dict(zip(curves, colours))
    machines = list(dict.fromkeys(plot["machine"]))
    for i, machine in enumerate(m for m in machines if m in comparison.crossovers):
        cross = comparison.crossovers[machine]
        about = likely_about(cross)  # the sentence's value, or no rule where the sentence names none
        if cross.kind != CrossKind.CROSSES or cross.x is None or not math.isfinite(cross.x) or about is None:
            continue
        gpu = next((c for c in curves if c.endswith(f" · {machine}") and not c.startswith("CPU")), None)
        hue = colour_of.get(gpu, "#d62728")
        label = f"crossover ≈ {about}"
        mark = alt.Chart(pd.DataFrame({"machine": [machine], "x": [float(cross.x)], "label": [label]}))
        layers.append(
            mark.mark_rule(strokeDash=[6, 4], strokeWidth=2, color=hue).encode(
                x="x:Q", tooltip=[alt.Tooltip("machine:N"), alt.Tooltip("label:N", title="its CPU vs GPU")]
            )
        )
        right = in_right_part(float(cross.x), list(plot["x"]))  # a phone cut the label at the chart's edge
        layers.append(
            mark.mark_text(
                align="right" if right else "left", dx=-5 if right else 5, fontWeight="bold", color=hue
            ).encode(x="x:Q", y=alt.value(12 + 15 * i), text="label:N")
        )
    chart = alt.layer(*layers)
    chart = sized(chart, height, plot_height)
    return chart.properties(title=title) if title else chart
