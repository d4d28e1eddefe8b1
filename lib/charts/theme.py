"""What every chart shares: colours, time units, axis ticks and legend widths."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

import altair as alt
import pandas as pd

SERIES_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f")
PHASE_COLORS = ("#9467bd", "#2ca02c", "#d62728")

_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def time_unit(seconds: Sequence[float]) -> tuple[float, str]:
    """(scale, name) of a unit that shows these times as numbers near 1-1000."""
    finite = [abs(float(s)) for s in seconds if s is not None and not pd.isna(s) and float(s) > 0]
    if not finite:
        return 1.0, "s"
    typical = sorted(finite)[len(finite) // 2]
    for scale, name in _UNITS:
        if typical >= scale:
            return scale, name
    return _UNITS[-1]


# One colour per kind of curve on every page: the CPU measured here is blue, a recorded CPU like
# this server's light blue, the CPU of a GPU machine purple, GPUs orange (then red, brown, pink).
CPU_LIVE, CPU_SMALL, CPU_HOST = "#1f77b4", "#6baed6", "#9467bd"
GPU_COLORS = ("#ff7f0e", "#d62728", "#8c564b", "#e377c2", "#bcbd22", "#8c6d31")  # six: one per execution mode
# a GPU's steps in one CUDA graph: green, not the second GPU's red, the colour of the crossover's rule and range
GRAPH_COLOR = "#2ca02c"


def series_kind(name: str) -> str:
    """What a curve is, read from its legend name: 'live' (a CPU measured here), 'small' (a recorded
    CPU of a small server), 'host' (the CPU of a GPU machine), 'graph' (a GPU's steps replayed from one
    CUDA graph: Home's third curve) or 'gpu'."""
    n = name.lower()
    if n.startswith("cpu"):
        return "live" if "live" in n else "small" if "server" in n else "host"
    return "graph" if "cuda graph" in n else "gpu"


def kind_colors(kinds: Sequence[str]) -> list[str]:
    """The colour of each curve by its kind (series_kind); GPUs take orange, red, brown, … in turn."""
    out, gpus = [], 0
    for kind in kinds:
        if kind == "gpu":
            out.append(GPU_COLORS[gpus % len(GPU_COLORS)])
            gpus += 1
        else:
            out.append({"live": CPU_LIVE, "small": CPU_SMALL, "graph": GRAPH_COLOR}.get(kind, CPU_HOST))
    return out


def series_colors(names: Sequence[str]) -> list[str]:
    """The colour of each curve, by what it is: read from its legend name ('CPU · this server (live)',
    'cpu (live, this server)', 'GPU · NVIDIA H200 (recorded)', 'cuda:0 (recorded on …)')."""
    return kind_colors([series_kind(n) for n in names])


# Notes drawn on a chart (the 1× line, a memory cap, a bar's value): a grey that reads on the light
# and on the dark theme alike (a dark grey vanishes on the dark background, black too).
NOTE_COLOR = "#8a8f98"

# Colours for what is not a device (the Jacobian's methods): none of them a device's colour.
METHOD_COLORS = ("#2ca02c", "#17becf", "#7f7f7f", "#e7ba52", "#393b79", "#ad494a")

# A legend's labels must fit a phone: a legend below the plot starts at the plot's left edge, and a
# phone's plot is about 260 px wide. A long name ('cuda:0 (recorded on NVIDIA H200, 2026-11-24)') is
# drawn whole on two lines of at most LEGEND_LINE_CHARS characters (about 6.7 px each at the legend's
# font), never cut mid-date; the limit only guards against a line of one unbroken word.
LEGEND_LABEL_LIMIT = 240
# Two columns of legend entries keep a legend in an 800 × 600 frame; on a phone (under NARROW_PX of plot) two
# columns of 34-character lines ran past the screen's edge, so one column there (the plot's own width signal).
NARROW_PX = 500
LEGEND_COLUMNS = alt.ExprRef(f"width < {NARROW_PX} ? 1 : 2")
LEGEND_LINE_CHARS = 34
AXIS_TICK_FORMAT = ",.7~g"  # 8,192 and 65,536 (not 8.192k), 0.01, 1,000,000


def cpu_colors(n: int) -> list[str]:
    """n CPU curves that are not the live one (processes on the CPU, several recorded CPUs)."""
    return [(CPU_LIVE, CPU_SMALL, CPU_HOST)[i % 3] for i in range(n)]


def _decade(x: float) -> bool:
    """Whether x is a power of ten (1, 10, 1,000, 0.01): the round numbers a reader looks for on a log axis."""
    return abs(math.log10(x) - round(math.log10(x))) < 1e-9


def log_ticks(values: Iterable[float], limit: int = 7) -> list[float]:
    """Tick values for a log axis: the distinct positive values drawn, thinned to at most `limit`, always
    keeping the first and the last, so the axis reaches the last point (8,192) instead of stopping at a round
    number below it (2k). Where three or more powers of ten are drawn, those are the ticks (with the ends): an
    even thinning of the Jacobian's 1, 3, 10, … 10,000 kept 3 and 3,000 and dropped 10 and 1,000."""
    xs = sorted({float(v) for v in values if v is not None and not pd.isna(v) and float(v) > 0})
    if len(xs) <= limit:
        return xs
    round_ones = sorted({xs[0], *(x for x in xs if _decade(x)), xs[-1]})
    if sum(map(_decade, round_ones)) >= 3:
        return round_ones if len(round_ones) <= limit else _thinned(round_ones, limit)
    return _thinned(xs, limit)


def _thinned(xs: Sequence[float], limit: int) -> list[float]:
    """xs (sorted, positive) thinned evenly in log space to at most `limit`, the first and the last kept."""
    lo, hi = math.log(xs[0]), math.log(xs[-1])
    picked: list[float] = []
    for i in range(limit):
        target = lo + (hi - lo) * i / (limit - 1)
        best = min(xs, key=lambda x: abs(math.log(x) - target))
        if best not in picked:
            picked.append(best)
    return sorted(picked)


# A chart that fits only its width: its height is the plot's own, title, axis and legend added around
# it (Streamlit's default "fit" takes them out of the height, and a legend of long names, wrapped on
# two lines, left the plot a few pixels). With an alt.Step height Vega still drops the fit with a
# console warning ('Dropping "fit-y"'), so give such a chart a height in pixels.
FIT_X = {"type": "fit-x", "contains": "padding"}


def sized(chart: Any, height: int, plot_height: int | None = None) -> Any:
    """The chart `height` pixels tall in all, or, given `plot_height`, its plot that tall and its axis,
    title and legends added below (however many lines the legend's names take)."""
    if plot_height is None:
        return chart.properties(height=height)
    return chart.properties(height=plot_height, autosize=FIT_X)


def label_lines(label: str, width: int = LEGEND_LINE_CHARS) -> list[str]:
    """The label's words in lines of at most `width` characters (a longer word keeps a line of its own)."""
    lines: list[str] = []
    for word in label.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def wrap_expr(names: Iterable[str], width: int = LEGEND_LINE_CHARS) -> str:
    """A Vega labelExpr that draws each name longer than `width` characters as lines (Vega draws an
    array of strings as one line each, and sizes the legend's rows to them); shorter names as they are."""
    expr = "datum.label"
    for name in reversed(list(dict.fromkeys(str(n) for n in names))):
        if len(name) > width:
            quoted = json.dumps(name, ensure_ascii=False)
            expr = f"datum.label === {quoted} ? {json.dumps(label_lines(name, width), ensure_ascii=False)} : {expr}"
    return expr


# A hollow diamond as a legend can draw it: one path round the outside and back round a diamond hole the other way
# (the nonzero rule leaves the hole empty). A colour legend fills every symbol with its colour, so a plain
# 'diamond' there is a solid one.
HOLLOW_DIAMOND = "M0,-1L1,0L0,1L-1,0L0,-1L0,-0.6L-0.6,0L0,0.6L0.6,0L0,-0.6Z"
LEGEND_STROKE_WIDTH = 1.5  # Vega-Lite's own width of a legend symbol's outline, kept for the filled entries
LEGEND_SYMBOL_SIZE = 100  # Vega-Lite's own area of a legend symbol (px²), kept for the filled entries
HOLLOW_SIZE = 160  # a thin ring reads as small as the dots beside it at their area: as the chart's diamonds do


def hollow_symbols(hollow: Iterable[str]) -> dict[str, dict[str, str]]:
    """A colour legend's options that draw the entries named in `hollow` as their marks are drawn, a hollow diamond
    (HOLLOW_DIAMOND), and every other entry as the filled dot of its line's points. {} when none is hollow."""
    names = list(dict.fromkeys(str(n) for n in hollow))
    if not names:
        return {}
    test = f"indexof({json.dumps(names, ensure_ascii=False)}, datum.value) >= 0"
    return {
        "symbolType": {"expr": f"{test} ? '{HOLLOW_DIAMOND}' : 'circle'"},
        # the ring is its fill: a stroke round its inner edge would fill the hole
        "symbolStrokeWidth": {"expr": f"{test} ? 0 : {LEGEND_STROKE_WIDTH}"},
        "symbolSize": {"expr": f"{test} ? {HOLLOW_SIZE} : {LEGEND_SYMBOL_SIZE}"},
    }


def legend(names: Iterable[str], **options: Any) -> alt.Legend:
    """The legend below a plot, one entry per row, each name whole (long ones on two lines), its symbols
    opaque (a shaded band's or an error bar's opacity made a curve's colour too pale to tell apart)."""
    return alt.Legend(
        **{
            "orient": "bottom",
            "direction": "vertical",
            "labelLimit": LEGEND_LABEL_LIMIT,
            "labelExpr": wrap_expr(names),
            "symbolOpacity": 1,
            **options,
        }
    )
