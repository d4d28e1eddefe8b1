"""Altair charts for lessons that compare variants of one workload: the Jacobian's methods, the
timing pitfalls' timers. Pure functions from a DataFrame to a chart; no Streamlit.

    variant_chart(frame, VariantLines("val", "median_s", color="series", dash="method_label"))   # time, log-log
    variant_chart(frame, VariantLines("size", "achieved_flops_per_s", color="series", dash="line", kind=Quantity.FLOPS),
                  rules=best)   # FLOP/s with "best" rules
    memory_chart(estimates, marks, MemoryLines("val"), caps=[(2.7e9, "live memory cap here")])

Colour is where the numbers came from (the device, the same colour on every page: CPU blue, GPU
orange; legend below the plot), dash another column (a method, or which timer; legend above it):
every line says both. The memory chart colours methods, with colours no device uses. Both axes are
logarithmic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import altair as alt
import pandas as pd

from lib.charts.curves import crossover_layers, ok_rows
from lib.charts.layout import NO_CROSSOVER, Crossover, Layout
from lib.charts.theme import (
    AXIS_TICK_FORMAT,
    METHOD_COLORS,
    NOTE_COLOR,
    hollow_symbols,
    legend,
    log_ticks,
    series_colors,
    sized,
    time_unit,
)

DASHES = ([1, 0], [7, 4], [2, 3], [10, 3, 2, 3], [4, 4], [1, 5])
SHAPES = {"measured": "circle", "not measured": "M-1,-1L1,1M-1,1L1,-1"}  # a circle, an ×

_FLOPS = ((1e15, "PFLOP/s"), (1e12, "TFLOP/s"), (1e9, "GFLOP/s"), (1e6, "MFLOP/s"), (1.0, "FLOP/s"))
_BYTES = ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B"))


class Quantity(Enum):
    """What a variant chart's y column holds, and so the units its axis reads in."""

    TIME = "time"  # seconds
    FLOPS = "flops"  # FLOP/s
    BYTES = "bytes"


def _scaled(kind: Quantity, values: Sequence[float]) -> tuple[float, str]:
    """(scale, unit) that shows these values as numbers near 1-1000."""
    if kind is Quantity.TIME:
        return time_unit(values)
    table = _FLOPS if kind is Quantity.FLOPS else _BYTES
    finite = sorted(abs(float(v)) for v in values if v is not None and not pd.isna(v) and float(v) > 0)
    if not finite:
        return table[-1]
    typical = finite[len(finite) // 2]
    return next(((s, u) for s, u in table if typical >= s), table[-1])


def _order(values: Sequence[str], given: Sequence[str] | None) -> list[str]:
    present = list(dict.fromkeys(str(v) for v in values))
    if given:
        return [g for g in given if g in present] + [p for p in present if p not in given]
    return present


@dataclass(frozen=True)
class VariantLines:
    """What a variant chart draws: a line per (colour, dash) pair of column y against column x.

    color: the column that says where the numbers came from (series labels such as
    'cpu (live, this server)'), coloured by lib.charts.theme.series_colors. dash: another column (a
    method, or which timer). kind: what y holds (time, FLOP/s or bytes). iqr: the column of IQR bars,
    if any. day: the column of a recorded point's day (in its tooltip and the chart's data). apart: the column
    marking points of another recording day than their line's: drawn as hollow diamonds, never joined into it."""

    x: str
    y: str
    color: str
    dash: str
    kind: Quantity = Quantity.TIME
    iqr: str | None = None
    x_title: str | None = None
    y_title: str = "time"
    day: str | None = None
    apart: str | None = None


@dataclass(frozen=True)
class VariantLegends:
    """How the two legends read: their titles, their entries' order (the rest after, as they come), and
    the dash legend in that many columns (short names) instead of one per row."""

    color_title: str | None = None
    dash_title: str | None = None
    color_order: Sequence[str] | None = None
    dash_order: Sequence[str] | None = None
    dash_columns: int | None = None


def variant_chart(
    frame: pd.DataFrame,
    lines: VariantLines,
    *,
    legends: VariantLegends = VariantLegends(),
    rules: pd.DataFrame | None = None,
    crossover: Crossover = NO_CROSSOVER,
    layout: Layout = Layout(),
) -> alt.LayerChart:
    """The `lines` of `frame`, log-log, with IQR bars where lines.iqr is given.

    rules: optional horizontal lines, a frame with columns value (in y's units), label and the colour
    column (e.g. 'best measured here')."""
    x, y, color, dash, kind, iqr = lines.x, lines.y, lines.color, lines.dash, lines.kind, lines.iqr
    x_title, y_title = lines.x_title, lines.y_title
    color_title, dash_title = legends.color_title, legends.dash_title
    legend_beside = layout.legend_beside
    data = ok_rows(frame, y)
    apart_rows = data.iloc[0:0]
    if lines.apart and not data.empty and lines.apart in data:
        marked = data[lines.apart].fillna(False).astype(bool)
        data, apart_rows = data[~marked], data[marked]
    values = (list(data[y]) if not data.empty else []) + (list(apart_rows[y]) if not apart_rows.empty else [])
    if rules is not None and not rules.empty:
        values += list(rules["value"])
    scale, unit = _scaled(kind, values)
    plot = pd.DataFrame(
        {
            "x": data[x].astype(float) if not data.empty else [],
            "v": data[y] / scale if not data.empty else [],
            "c": data[color].astype(str) if not data.empty else [],
            "d": data[dash].astype(str) if not data.empty else [],
        }
    )
    if lines.day and lines.day in data:  # a recorded point's day: one line holds one day's (issue 37)
        plot["day"] = data[lines.day].astype(object).where(data[lines.day].notna(), None).to_numpy()
    apart = _apart_plot(apart_rows, lines, scale)
    tooltip_extra = []
    if (
        kind is Quantity.TIME
        and not data.empty
        and "phase_transfer_s" in data
        and data["phase_transfer_s"].notna().any()
    ):
        # the copy timed on its own, which the words quote beside the line's time (lib.lessons.timing.words)
        plot["copy"] = data["phase_transfer_s"].astype(float) / scale
        tooltip_extra = [alt.Tooltip("copy:Q", title=f"the copy alone ({unit})", format=".4~g")]
    if iqr and not data.empty and iqr in data:
        half = data[iqr].fillna(0).astype(float) / 2 / scale
        plot["lo"] = (plot["v"] - half).clip(lower=plot["v"] * 1e-3)
        plot["hi"] = plot["v"] + half
    colors = _order([*plot["c"], *apart["c"]], legends.color_order)
    dashes = _order(plot["d"], legends.dash_order)
    if rules is not None and not rules.empty:
        colors += [c for c in _order(rules[color].astype(str), None) if c not in colors]
    # a series drawn only as another day's hollow diamonds has a hollow diamond in the legend too
    hollow = hollow_symbols(sorted(set(apart["c"]) - set(plot["c"])))
    color_enc = alt.Color(
        "c:N",
        title=color_title,
        sort=colors,
        scale=alt.Scale(domain=colors or [""], range=series_colors(colors or [""])),
        legend=legend(colors, orient="right", **hollow) if legend_beside else legend(colors, **hollow),
    )
    dash_enc = alt.StrokeDash(
        "d:N",
        title=dash_title,
        sort=dashes,
        scale=alt.Scale(domain=dashes, range=list((DASHES * 2)[: max(1, len(dashes))])),
        legend=legend(
            dashes,
            orient="right" if legend_beside else "top",
            symbolType="stroke",
            symbolStrokeWidth=2,
            symbolSize=400,
            symbolStrokeColor=NOTE_COLOR,
            columns=legends.dash_columns or alt.Undefined,
        ),
    )
    x_enc = alt.X(
        "x:Q",
        title=x_title or x,
        scale=alt.Scale(type="log", nice=False, padding=12),
        axis=alt.Axis(values=log_ticks([*plot["x"], *apart["x"]]), format=AXIS_TICK_FORMAT),
    )
    y_full = f"{y_title} ({unit}, log scale)"
    tooltip = [
        alt.Tooltip("c:N", title=color_title or color),
        alt.Tooltip("d:N", title=dash_title or dash),
        alt.Tooltip("x:Q", title=x_title or x, format=",.4~g"),
        alt.Tooltip("v:Q", title=f"{y_title} ({unit})", format=".4~g"),
        *tooltip_extra,
    ]
    base = alt.Chart(plot)
    layers: list[alt.Chart] = []
    if "lo" in plot:
        layers.append(base.mark_rule(strokeWidth=2, opacity=0.5).encode(x="x:Q", y="lo:Q", y2="hi:Q", color=color_enc))
    # points in a layer of their own: a point overlay on the line would hide the dash legend's symbols
    layers.append(
        base.mark_line(strokeWidth=2).encode(
            x=x_enc, y=alt.Y("v:Q", title=y_full, scale=alt.Scale(type="log")), color=color_enc, strokeDash=dash_enc
        )
    )
    layers.append(
        base.mark_point(size=45, filled=True, opacity=1).encode(x="x:Q", y="v:Q", color=color_enc, tooltip=tooltip)
    )
    if not apart.empty:
        day_tip = alt.Tooltip("day:N", title="recorded on (another day: not on the line)")
        layers.append(
            alt.Chart(apart)
            .mark_point(size=70, filled=False, strokeWidth=1.5, opacity=1)
            .encode(x="x:Q", y="v:Q", color=color_enc, shape=alt.value("diamond"), tooltip=[*tooltip[:4], day_tip])
        )
    if rules is not None and not rules.empty:
        marks = pd.DataFrame(
            {
                "v": rules["value"].astype(float) / scale,
                "label": rules["label"].astype(str),
                "c": rules[color].astype(str),
            }
        )
        rule_base = alt.Chart(marks)
        layers.append(rule_base.mark_rule(strokeDash=[3, 3], strokeWidth=1.5).encode(y="v:Q", color=color_enc))
        layers.append(
            rule_base.mark_text(align="left", dx=4, dy=-6, fontSize=11).encode(
                x=alt.value(4), y="v:Q", text="label:N", color=color_enc
            )
        )
    if crossover.x is not None and math.isfinite(crossover.x):
        layers += crossover_layers(crossover.x, crossover.label, list(plot["x"]))
    chart = sized(alt.layer(*layers), layout.height_or(480), layout.plot_height)
    return chart.properties(title=layout.title) if layout.title else chart


def _apart_plot(rows: pd.DataFrame, lines: VariantLines, scale: float) -> pd.DataFrame:
    """The points of another recording day than their line's, as the chart draws them (x, v, c, d, day)."""
    return pd.DataFrame(
        {
            "x": rows[lines.x].astype(float) if not rows.empty else [],
            "v": rows[lines.y] / scale if not rows.empty else [],
            "c": rows[lines.color].astype(str) if not rows.empty else [],
            "d": rows[lines.dash].astype(str) if not rows.empty else [],
            "day": rows[lines.day].astype(str) if not rows.empty and lines.day in rows else [None] * len(rows),
        }
    )


@dataclass(frozen=True)
class MemoryLines:
    """What a memory chart draws against column x: its axis and legend titles, the methods' order."""

    x: str
    x_title: str | None = None
    color_title: str = "method"
    dash_title: str = "estimate for"
    color_order: Sequence[str] | None = None


def memory_chart(
    estimates: pd.DataFrame,
    marks: pd.DataFrame,
    lines: MemoryLines,
    *,
    caps: Sequence[tuple[float, str]] = (),
    layout: Layout = Layout(),
) -> alt.LayerChart:
    """Estimated peak memory against x: a line per (colour, dash) of `estimates` (columns x, bytes,
    color, dash), the points swept (`marks`: x, bytes, color, status 'measured' / 'not measured',
    detail) on top -- refused points as crosses -- and a labelled horizontal rule per cap."""
    x, x_title, color_title, dash_title = lines.x, lines.x_title, lines.color_title, lines.dash_title
    scale = 1.0  # bytes, the axis in SI prefixes (1G = 10⁹ bytes): the estimates span many decades
    est = pd.DataFrame(
        {
            "x": estimates[x].astype(float) if not estimates.empty else [],
            "v": estimates["bytes"].astype(float) / scale if not estimates.empty else [],
            "c": estimates["color"].astype(str) if not estimates.empty else [],
            "d": estimates["dash"].astype(str) if not estimates.empty else [],
        }
    )
    pts = pd.DataFrame(
        {
            "x": marks[x].astype(float) if not marks.empty else [],
            "v": marks["bytes"].astype(float) / scale if not marks.empty else [],
            "c": marks["color"].astype(str) if not marks.empty else [],
            "s": marks["status"].astype(str) if not marks.empty else [],
            "detail": marks["detail"].astype(str) if not marks.empty else [],
        }
    )
    colors = _order(list(est["c"]) + list(pts["c"]), lines.color_order)
    dashes = _order(est["d"], None)
    color_enc = alt.Color(
        "c:N",
        title=color_title,
        sort=colors,
        scale=alt.Scale(domain=colors, range=list((METHOD_COLORS * 2)[: max(1, len(colors))])),
        legend=legend(colors),
    )
    x_enc = alt.X(
        "x:Q",
        title=x_title or x,
        scale=alt.Scale(type="log", nice=False, padding=12),
        axis=alt.Axis(values=log_ticks(list(est["x"]) + list(pts["x"])), format=AXIS_TICK_FORMAT),
    )
    y_enc = alt.Y(
        "v:Q", title="estimated peak memory (bytes, log scale)", scale=alt.Scale(type="log"), axis=alt.Axis(format="~s")
    )
    layers: list[alt.Chart] = [
        alt.Chart(est)
        .mark_line(strokeWidth=2, opacity=0.8)
        .encode(
            x=x_enc,
            y=y_enc,
            color=color_enc,
            strokeDash=alt.StrokeDash(
                "d:N",
                title=dash_title,
                sort=dashes,
                scale=alt.Scale(domain=dashes, range=list((DASHES * 2)[: max(1, len(dashes))])),
                legend=legend(
                    dashes,
                    orient="top",
                    symbolType="stroke",
                    symbolStrokeWidth=2,
                    symbolSize=400,
                    symbolStrokeColor=NOTE_COLOR,
                ),
            ),
            tooltip=[
                alt.Tooltip("c:N", title=color_title),
                alt.Tooltip("d:N", title=dash_title),
                alt.Tooltip("x:Q", title=x_title or x, format=",.4~g"),
                alt.Tooltip("v:Q", title="estimate (bytes)", format=".3~s"),
            ],
        )
    ]
    if not pts.empty:
        statuses = [s for s in SHAPES if s in set(pts["s"])]
        layers.append(
            alt.Chart(pts)
            .mark_point(size=110, strokeWidth=2.5, filled=False)
            .encode(
                x="x:Q",
                y="v:Q",
                color=color_enc,
                shape=alt.Shape(
                    "s:N",
                    title="points on the time chart",
                    sort=statuses,
                    scale=alt.Scale(domain=statuses, range=[SHAPES[s] for s in statuses]),
                    legend=alt.Legend(orient="bottom", direction="vertical"),
                ),
                tooltip=[
                    alt.Tooltip("c:N", title=color_title),
                    alt.Tooltip("x:Q", title=x_title or x, format=",.4~g"),
                    alt.Tooltip("s:N", title="status"),
                    alt.Tooltip("detail:N", title="why"),
                ],
            )
        )
    if caps:
        cap_frame = pd.DataFrame({"v": [c / scale for c, _ in caps], "label": [label for _, label in caps]})
        cap_base = alt.Chart(cap_frame)
        layers.append(cap_base.mark_rule(strokeDash=[4, 3], color=NOTE_COLOR, strokeWidth=1.5).encode(y="v:Q"))
        layers.append(
            cap_base.mark_text(align="left", dx=4, dy=-6, color=NOTE_COLOR).encode(
                x=alt.value(4), y="v:Q", text="label:N"
            )
        )
    chart = alt.layer(*layers).properties(height=layout.height_or(540))
    return chart.properties(title=layout.title) if layout.title else chart
