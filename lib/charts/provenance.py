"""A time chart whose every point shows where it came from.

    curve_chart(frame, CurveAxes("batch_size", ticks=(1, 16, 256, 4096, 65536)), crossover=(512, 1024, 700))

Rows carry `series` (the curve), `origin` ('live', 'recorded', 'derived', 'predicted') and, for
predicted points, `<y>_low` / `<y>_high` (the band). Drawn: a solid line where both ends were
measured, recorded or derived, dashed where either end is predicted; the band shaded; filled
points for what was measured or recorded, hollow ones for noisy points (spread over half the
median, `noisy` column) and predicted ones; IQR bars on measured points; the crossover as a shaded
range with its most likely value. Colours come from the shared device scale (charts.theme).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt
import pandas as pd

from lib.charts.compiled import FilledChart, VegaRecords, blank, compiled, drawn_layers
from lib.charts.theme import AXIS_TICK_FORMAT, FIT_X, legend, log_ticks, series_colors, time_unit, wrap_expr
from lib.core.fmt import crossing_about
from lib.core.rows import Origin
from lib.lessons.common.one_day import day_in

DASH = {"measured": [1, 0], "predicted": [6, 4]}
# the named datasets of a curve chart, in drawing order (the last two layers both read 'crossover')
LAYERS = ("band", "measured", "segments", "solid", "hollow", "crossover_range", "crossover")


def _present(value: Any) -> Any:
    """The value, or None where a row has none (missing, None, or NaN as a DataFrame gives it)."""
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _number(value: Any, default: float | None = None) -> float | None:
    value = _present(value)
    return default if value is None else float(value)


def _plot_rows(rows: Iterable[dict[str, Any]], x: str, y: str) -> VegaRecords:
    """One row per drawable point: x, time t (seconds), its IQR bar (lo, hi) and band, how it was
    drawn; sorted by curve and x. Plain Python: a few dozen rows, drawn for every visitor."""
    plot = []
    for row in rows:
        t = _number(row.get(y))
        if t is None or t <= 0:
            continue
        iqr = _number(row.get("iqr_s"), 0.0) * (_number(row.get("steps_per_epoch"), 0.0) if y == "epoch_s" else 1.0)
        origin, note = _present(row.get("origin")), _present(row.get("origin_note"))
        plot.append(
            {
                "x": float(row[x]),
                "t": t,
                "series": str(row["series"]),
                "origin": "recorded" if origin is None else str(origin),
                "note": "" if note is None else str(note),
                # the recording day of a recorded point (its machine 'NVIDIA H200 (2026-11-23)'): one line, one day
                "day": None if origin in (Origin.PREDICTED, Origin.LIVE) else day_in(row.get("machine")) or None,
                "noisy": bool(_present(row.get("noisy"))),
                "lo": max(t - iqr / 2, t * 1e-3),
                "hi": t + iqr / 2,
                "band_lo": _number(row.get(f"{y}_low")),
                "band_hi": _number(row.get(f"{y}_high")),
            }
        )
    return sorted(plot, key=lambda p: (p["series"], p["x"]))


def _segments(plot: VegaRecords) -> VegaRecords:
    """One two-point segment per neighbouring pair of a curve: dashed where either end is predicted."""
    rows = []
    by_series: dict[str, VegaRecords] = {}
    for p in plot:
        by_series.setdefault(p["series"], []).append(p)
    for name, pts in by_series.items():
        for i, (a, b) in enumerate(zip(pts, pts[1:])):
            style = "predicted" if "predicted" in (a["origin"], b["origin"]) else "measured"
            rows += [
                {"seg": f"{name}#{i}", "series": name, "x": p["x"], "t": p["t"], "style": style, "day": p["day"]}
                for p in (a, b)
            ]
    return rows


@dataclass(frozen=True)
class CurveAxes:
    """What a curve chart draws: column y (seconds) against column x, both logarithmic, with their titles;
    ticks: the x values labelled (None: some of those drawn)."""

    x: str
    y: str = "epoch_s"
    x_title: str | None = None
    y_title: str = "time per epoch"
    ticks: Sequence[float] | None = None


def curve_chart(
    rows: Iterable[dict[str, Any]] | pd.DataFrame,
    axes: CurveAxes,
    *,
    crossover: tuple[float | None, float | None, float | None] | None = None,
    height: int = 300,
    legend_beside: bool = False,
) -> FilledChart:
    """Time (log) against a setting (log), a curve per series, every point drawn by its origin.
    crossover: (low, high, likely) of the range where the curves cross, any of them None.
    height: the plot's own; the axis and the legend below it add to the chart (an 800 × 600 iframe
    kept a 75 px plot when they came out of one fixed height). legend_beside: the legends right of the
    plot, level with its top (an 800 × 600 iframe, whose first screen ends inside the plot).
    The Altair chart is compiled once per shape (lib.charts.compiled); this call adds the rows."""
    x, y, x_title, y_title, ticks = axes.x, axes.y, axes.x_title, axes.y_title, axes.ticks
    if isinstance(rows, pd.DataFrame):
        rows = rows.to_dict("records")
    plot = _plot_rows(rows, x, y)
    scale, unit = time_unit([p["t"] for p in plot])
    for p in plot:
        for key in ("t", "lo", "hi", "band_lo", "band_hi"):
            p[key] = p[key] / scale if p[key] is not None else None
    names = tuple(sorted(dict.fromkeys(p["series"] for p in plot), key=lambda n: (not n.upper().startswith("CPU"), n)))
    segments = _segments(plot)
    low, high, x_likely = crossover or (None, None, None)
    data = {
        "band": [p for p in plot if p["band_lo"] is not None],
        "measured": [p for p in plot if p["origin"] != Origin.PREDICTED and p["hi"] > p["lo"]],
        "segments": segments,
        "solid": [p for p in plot if p["origin"] != Origin.PREDICTED and not p["noisy"]],
        "hollow": [p for p in plot if p["origin"] == Origin.PREDICTED or p["noisy"]],
    }
    if low is not None and high is not None and high > low:
        data["crossover_range"] = [{"a": float(low), "b": float(high)}]
    # the rule and its label print the sentence's value (crossing_about), and only where the sentence names one
    if (about := crossing_about(x_likely, low, high)) is not None:
        data["crossover"] = [{"x": float(x_likely), "label": f"crossover ≈ {about}"}]
    shape = _CurveShape(
        x_title=x_title or x,
        curves=len(names),
        ticks=tuple(ticks) if ticks else tuple(log_ticks(p["x"] for p in plot)),
        styles=tuple(s for s in DASH if s in {seg["style"] for seg in segments}) or ("measured",),
        height=height,
        legend="right" if legend_beside else "bottom",
    )
    drawn = [name for name in LAYERS if data.get(name)] or ["solid"]
    return FilledChart(
        drawn_layers(_curve_spec(shape), drawn),
        {name: data.get(name, []) for name in drawn},
        _curve_words(f"{y_title} ({unit})", names),
    )


@dataclass(frozen=True)
class _CurveShape:
    """Everything a curve chart's spec depends on besides its rows and its words (the curves' names and
    colours, the y-axis title with its unit: blanks that each chart fills, see _curve_words)."""

    x_title: str
    curves: int  # how many curves
    ticks: tuple[float, ...]
    styles: tuple[str, ...]
    height: int
    legend: str  # where the legends go: "bottom" or "right"


Y_TITLE, LABELS = blank("y title"), blank("legend labels")


def _curve_words(y_title: str, names: Sequence[str]) -> dict[str, str]:
    """What fills a compiled curve chart's blanks: its y title, each curve's name and colour, and the
    legend's labelExpr (which wraps the long names)."""
    return {
        Y_TITLE: y_title,
        LABELS: wrap_expr(names),
        **{blank(f"curve {i}"): n for i, n in enumerate(names)},
        **{blank(f"colour {i}"): c for i, c in enumerate(series_colors(names))},
    }


@compiled
def _curve_spec(shape: _CurveShape) -> alt.LayerChart:
    """The curve chart of `shape`, its words left blank: views whose curves are named differently (live,
    recorded, predicted) or whose times read in another unit share it."""
    return curve_layers(
        shape,
        Y_TITLE,
        [blank(f"curve {i}") for i in range(shape.curves)],
        [blank(f"colour {i}") for i in range(shape.curves)],
        LABELS,
    )


def curve_layers(shape: _CurveShape, y_title: str, names: list[str], colors: list[str], labels: str) -> alt.LayerChart:
    """Every layer of a curve chart as Altair builds it, on named datasets (curve_chart keeps those with
    rows). _curve_spec calls it with blanks; tests with the words themselves."""
    color = alt.Color(
        "series:N",
        title=None,
        sort=names,
        scale=alt.Scale(domain=names, range=colors),
        legend=legend(names, orient=shape.legend, labelExpr=labels),
    )
    # plain numbers (4,096 and 65,536, not 4.096k), at the values given or at those drawn up to the last point
    axis = alt.Axis(format=AXIS_TICK_FORMAT, values=list(shape.ticks))

    # Only layers with rows are drawn (an empty one makes Vega warn "Infinite extent"), so each one
    # carries the axes' titles and scales: any of them may be the only one.
    def x_enc(field: str = "x") -> alt.X:
        return alt.X(f"{field}:Q", title=shape.x_title, scale=alt.Scale(type="log", nice=False, padding=12), axis=axis)

    def y_enc(field: str = "t") -> alt.Y:
        return alt.Y(f"{field}:Q", title=y_title, scale=alt.Scale(type="log"))

    tooltip = [
        alt.Tooltip("series:N", title="curve"),
        alt.Tooltip("x:Q", title=shape.x_title, format=",.4~g"),
        alt.Tooltip("t:Q", title=y_title, format=".3~g"),
        alt.Tooltip("origin:N", title="where it came from"),
        alt.Tooltip("note:N", title="how"),
    ]
    styles = list(shape.styles)
    # Vega sets two legends below a plot side by side, past a phone's edge: the line styles go above it
    dash_orient = "top" if shape.legend == "bottom" else shape.legend
    # A legend of one line style tells nothing (Home's curves are all recorded): only a mix of styles gets one
    dash_legend = (
        alt.Legend(
            orient=dash_orient,
            direction="vertical",
            labelExpr="datum.label == 'predicted' ? 'predicted (band: its error)' : 'measured or recorded'",
        )
        if len(styles) > 1
        else None
    )

    def chart(name: str) -> alt.Chart:
        return alt.Chart(alt.NamedData(name=name))

    build = {
        "band": lambda: chart("band")
        .mark_area(opacity=0.15)
        .encode(x=x_enc(), y=y_enc("band_lo"), y2="band_hi:Q", color=color, detail="series:N"),
        "measured": lambda: chart("measured")
        .mark_rule(strokeWidth=2, opacity=0.5)
        .encode(x=x_enc(), y=y_enc("lo"), y2="hi:Q", color=color),
        "segments": lambda: chart("segments")
        .mark_line(strokeWidth=2)
        .encode(
            x=x_enc(),
            y=y_enc(),
            color=color,
            detail="seg:N",
            strokeDash=alt.StrokeDash(
                "style:N",
                title=None,
                scale=alt.Scale(domain=styles, range=[DASH[s] for s in styles]),
                legend=dash_legend,
            ),
        ),
        "solid": lambda: chart("solid")
        .mark_point(size=55, filled=True, opacity=1)
        .encode(x=x_enc(), y=y_enc(), color=color, tooltip=tooltip),
        "hollow": lambda: chart("hollow")
        .mark_point(size=55, filled=False, strokeWidth=2)
        .encode(x=x_enc(), y=y_enc(), color=color, tooltip=tooltip),
        "crossover_range": lambda: _range_layer(chart("crossover_range")),
    }
    # every layer, each on its own named dataset: curve_chart keeps those with rows (compiled.drawn_layers)
    layers = [build[name]() for name in LAYERS if name in build] + _likely_layers(chart("crossover"))
    return alt.layer(*layers).properties(height=shape.height, autosize=FIT_X)


def _range_layer(chart: alt.Chart) -> alt.Chart:
    return chart.mark_rect(opacity=0.12, color="#d62728").encode(x="a:Q", x2="b:Q")


def _likely_layers(chart: alt.Chart) -> list[alt.Chart]:
    return [
        chart.mark_rule(strokeDash=[6, 4], color="#d62728", strokeWidth=2).encode(x="x:Q"),
        chart.mark_text(align="left", dx=6, dy=-6, color="#d62728", fontWeight="bold").encode(
            x="x:Q", y=alt.value(12), text="label:N"
        ),
    ]
