"""Altair chart builders: pure functions from a DataFrame of result rows to a chart.

Generic over workloads: give the column of the swept setting, the time column and the column
that names each curve (`series`, e.g. 'cpu (live, this server)'). No Streamlit here; pages pass
the charts to st.altair_chart.

    time_chart(frame, TimeLines("batch_size", y="epoch_s", iqr="epoch_iqr_s"), crossover=Crossover(812.0))
    speedup_chart(speedup_frame(frame, "batch_size", y="epoch_s", baseline="cpu ...", other="cuda:0 ..."),
                  SpeedupAxis("batch_size"))
    phase_chart(frame_at_current_point)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt
import pandas as pd

from lib.charts.layout import NO_CROSSOVER, Crossover, Layout
from lib.charts.theme import (
    AXIS_TICK_FORMAT,
    CPU_LIVE,
    FIT_X,
    GPU_COLORS,
    LEGEND_COLUMNS,
    LEGEND_LABEL_LIMIT,
    NOTE_COLOR,
    PHASE_COLORS,
    SERIES_COLORS,
    legend,
    log_ticks,
    series_colors,
    sized,
    time_unit,
)
from lib.core.fmt import fmt_about
from lib.core.rows import Status

# Horizontal bars carry their names above them, inside the plot (not left of it): a phone keeps the
# plot's whole width for the bars and a name as long as 'cuda:0 (recorded on NVIDIA H200, …)'.
BAR_PX, BAR_STEP = 16, 46
TOTAL_COLOR = "#222222"  # the tick of a phase bar's whole time: darker than every phase


def bar_axis() -> alt.Axis:
    """A band axis whose labels sit above each bar, from the plot's left edge, instead of left of the plot."""
    return alt.Axis(
        labelAlign="left",
        labelBaseline="bottom",
        labelPadding=-4,
        labelOffset=-(BAR_PX // 2 + 2),
        labelLimit=2 * LEGEND_LABEL_LIMIT,
        domain=False,
        ticks=False,
        labelFontSize=12,
    )


PHASES = {
    "phase_transfer_s": "transfer (host → device)",
    "phase_compute_s": "compute (forward, backward, update)",
    "phase_overhead_s": "overhead & sync",
}


def ok_rows(frame: pd.DataFrame, y: str) -> pd.DataFrame:
    """Rows with status ok and a positive value in column y."""
    if frame is None or frame.empty or y not in frame:
        return pd.DataFrame(columns=list(frame.columns) if frame is not None else [])
    keep = frame[y].notna()
    if "status" in frame:
        keep &= frame["status"] == Status.OK.value
    out = frame[keep].copy()
    out[y] = out[y].astype(float)
    return out[out[y] > 0]


def _scale(log: bool, nice: bool = True) -> alt.Scale:
    if log:
        return alt.Scale(type="log") if nice else alt.Scale(type="log", nice=False, padding=12)
    return alt.Scale(zero=False) if nice else alt.Scale(zero=False, nice=False, padding=12)


def _series_sort(frame: pd.DataFrame, series: str) -> list[str]:
    """CPU curves first, then GPUs, each group in order of appearance."""
    names = list(dict.fromkeys(frame[series].astype(str)))
    return sorted(names, key=lambda n: (0 if n.lower().startswith("cpu") else 1, names.index(n)))


@dataclass(frozen=True)
class TimeLines:
    """What a time chart draws: column y (seconds) against column x, a line per `series`, IQR bars from
    column `iqr` (its width: the bars centre on the median), each axis logarithmic or not."""

    x: str
    y: str = "median_s"
    iqr: str | None = "iqr_s"
    series: str = "series"
    x_title: str | None = None
    y_title: str = "time"
    log_x: bool = True
    log_y: bool = True


def time_chart(
    frame: pd.DataFrame, lines: TimeLines, *, crossover: Crossover = NO_CROSSOVER, layout: Layout = Layout()
) -> alt.LayerChart:
    """Time against a setting, a line per series, IQR error bars, the crossover as a labelled rule.

    Heights include the legend (Streamlit fits the whole chart into them); layout.plot_height instead keeps
    the plot that tall and adds the axis and the legend below it."""
    x, y, iqr, series = lines.x, lines.y, lines.iqr, lines.series
    x_title, y_title, log_x, log_y = lines.x_title, lines.y_title, lines.log_x, lines.log_y
    data = ok_rows(frame, y)
    scale, unit = time_unit(data[y]) if not data.empty else (1.0, "s")
    plot = pd.DataFrame(
        {
            "x": data[x].astype(float) if not data.empty else [],
            "t": data[y] / scale if not data.empty else [],
            "series": data[series].astype(str) if not data.empty else [],
        }
    )
    half = (data[iqr].fillna(0).astype(float) / 2 / scale) if (iqr and iqr in data and not data.empty) else 0.0
    plot["lo"] = (plot["t"] - half).clip(lower=plot["t"] * 1e-3) if not plot.empty else []
    plot["hi"] = plot["t"] + half if not plot.empty else []
    order = _series_sort(plot, "series") if not plot.empty else []
    x_enc = alt.X("x:Q", title=x_title or x, scale=_scale(log_x, nice=False), axis=_x_axis(plot["x"], log_x))
    y_title_full = f"{y_title} ({unit}, log scale)" if log_y else f"{y_title} ({unit})"
    color = alt.Color(
        "series:N",
        title=None,
        sort=order,
        scale=alt.Scale(domain=order, range=series_colors(order) if order else [SERIES_COLORS[0]]),
        legend=legend(order),
    )
    tooltip = [
        alt.Tooltip("series:N", title="curve"),
        alt.Tooltip("x:Q", title=x_title or x, format=",.4~g"),
        alt.Tooltip("t:Q", title=f"{y_title} ({unit})", format=".4~g"),
        alt.Tooltip("lo:Q", title=f"IQR low ({unit})", format=".4~g"),
        alt.Tooltip("hi:Q", title=f"IQR high ({unit})", format=".4~g"),
    ]
    base = alt.Chart(plot)
    lines = base.mark_line(point=alt.OverlayMarkDef(size=50, filled=True)).encode(
        x=x_enc, y=alt.Y("t:Q", title=y_title_full, scale=_scale(log_y)), color=color, tooltip=tooltip
    )
    # Same colour encoding as the lines (one shared legend: legend=None here would hide it).
    bars = base.mark_rule(strokeWidth=2, opacity=0.6).encode(x="x:Q", y="lo:Q", y2="hi:Q", color=color)
    layers: list[alt.Chart] = [bars, lines]
    layers += crossover_layers(crossover.x, crossover.label, list(plot["x"]) if log_x else ())
    chart = sized(alt.layer(*layers), layout.height_or(380), layout.plot_height)
    return chart.properties(title=layout.title) if layout.title else chart


def _x_axis(xs: pd.Series, log: bool) -> alt.Axis:
    """Ticks at the values drawn (thinned), so a log axis reaches the last point; plain numbers."""
    return (
        alt.Axis(values=log_ticks(xs), format=AXIS_TICK_FORMAT)
        if log and len(xs)
        else alt.Axis(format=AXIS_TICK_FORMAT)
    )


def crossover_layers(crossover_x: float | None, label: str | None = None, xs: Sequence[float] = ()) -> list[alt.Chart]:
    """The crossover as a dashed red vertical rule with its label (nothing when there is none). With the
    x values drawn (`xs`, a log axis), the label goes left of a rule in the right part of the plot, so
    a narrow chart does not cut it off."""
    if crossover_x is None or not math.isfinite(crossover_x):
        return []
    label = label or f"crossover ≈ {fmt_about(crossover_x)}"  # callers with a bracket pass crossing_label's
    right = in_right_part(crossover_x, xs)
    mark = alt.Chart(pd.DataFrame({"x": [float(crossover_x)], "label": [label]}))
    return [
        mark.mark_rule(strokeDash=[6, 4], color="#d62728", strokeWidth=2).encode(x="x:Q"),
        mark.mark_text(
            align="right" if right else "left", dx=-6 if right else 6, dy=-6, color="#d62728", fontWeight="bold"
        ).encode(x="x:Q", y=alt.value(12), text="label:N"),
    ]


def in_right_part(x: float, xs: Sequence[float]) -> bool:
    """Whether x lies in the right 40 % of the drawn values on a log axis: a label there goes left of its
    rule, or a narrow chart cuts it off."""
    drawn = [float(v) for v in xs if v is not None and float(v) > 0]
    return (
        bool(drawn)
        and x > 0
        and max(drawn) > min(drawn)
        and (math.log(x / min(drawn)) / math.log(max(drawn) / min(drawn)) > 0.6)
    )


def speedup_frame(
    frame: pd.DataFrame, x: str, *, baseline: str, other: str, y: str = "median_s", series: str = "series"
) -> pd.DataFrame:
    """Speed-up of `other` over `baseline` (baseline time / other time) at every x both have."""
    data = ok_rows(frame, y)
    if data.empty:
        return pd.DataFrame(columns=[x, "speedup", "baseline_s", "other_s"])
    a = data[data[series] == baseline].groupby(x)[y].median()
    b = data[data[series] == other].groupby(x)[y].median()
    both = pd.concat([a.rename("baseline_s"), b.rename("other_s")], axis=1).dropna()
    both["speedup"] = both["baseline_s"] / both["other_s"]
    return both.reset_index().rename(columns={"index": x})


@dataclass(frozen=True)
class SpeedupAxis:
    """The setting a speed-up chart runs along (column x), its titles, and whether x is logarithmic."""

    x: str
    x_title: str | None = None
    y_title: str = "speed-up (CPU time / GPU time)"
    log_x: bool = True


def speedup_chart(
    frame: pd.DataFrame, axis: SpeedupAxis, *, crossover_x: float | None = None, layout: Layout = Layout()
) -> alt.LayerChart:
    """Speed-up against a setting on a log axis, with the 1x line (above it the GPU is faster)."""
    x, x_title, y_title, log_x = axis.x, axis.x_title, axis.y_title, axis.log_x
    plot = pd.DataFrame(
        {
            "x": frame[x].astype(float) if not frame.empty else [],
            "speedup": frame["speedup"].astype(float) if not frame.empty else [],
        }
    )
    plot["faster"] = ["GPU faster" if s >= 1 else "CPU faster" for s in plot["speedup"]]
    x_enc = alt.X("x:Q", title=x_title or x, scale=_scale(log_x, nice=False), axis=_x_axis(plot["x"], log_x))
    line = (
        alt.Chart(plot)
        .mark_line(color="#888")
        .encode(x=x_enc, y=alt.Y("speedup:Q", title=f"{y_title}, log scale", scale=alt.Scale(type="log")))
    )
    points = (
        alt.Chart(plot)
        .mark_point(size=70, filled=True)
        .encode(
            x="x:Q",
            y="speedup:Q",
            color=alt.Color(
                "faster:N",
                title=None,
                scale=alt.Scale(domain=["CPU faster", "GPU faster"], range=[CPU_LIVE, GPU_COLORS[0]]),
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=[
                alt.Tooltip("x:Q", title=x_title or x, format=",.4~g"),
                alt.Tooltip("speedup:Q", title="speed-up", format=".3~g"),
            ],
        )
    )
    one = pd.DataFrame({"speedup": [1.0], "label": ["1× : same speed"]})
    rule = alt.Chart(one).mark_rule(strokeDash=[4, 4], color=NOTE_COLOR).encode(y="speedup:Q")
    text = (
        alt.Chart(one)
        .mark_text(align="left", dx=4, dy=-6, color=NOTE_COLOR)
        .encode(x=alt.value(4), y="speedup:Q", text="label:N")
    )
    layers: list[alt.Chart] = [rule, text, line, points]
    if crossover_x is not None and math.isfinite(crossover_x):
        layers.append(
            alt.Chart(pd.DataFrame({"x": [float(crossover_x)]}))
            .mark_rule(strokeDash=[6, 4], color="#d62728")
            .encode(x="x:Q")
        )
    chart = alt.layer(*layers).properties(height=layout.height_or(300))
    return chart.properties(title=layout.title) if layout.title else chart


def phase_frame(frame: pd.DataFrame, *, series: str = "series", phases: dict[str, str] | None = None) -> pd.DataFrame:
    """Long form (series, phase, seconds) of the phase columns present in the rows."""
    phases = phases or PHASES
    present = [c for c in phases if c in frame]
    if frame.empty or not present:
        return pd.DataFrame(columns=[series, "phase", "seconds", "order"])
    long = frame[[series, *present]].melt(id_vars=[series], var_name="column", value_name="seconds").dropna()
    long["phase"] = long["column"].map(phases)
    long["order"] = long["column"].map({c: i for i, c in enumerate(phases)})
    return long[long["seconds"].astype(float) >= 0].drop(columns="column")


def phase_chart(
    frame: pd.DataFrame,
    *,
    series: str = "series",
    phases: dict[str, str] | None = None,
    title: str | None = None,
    x_title: str = "time of one step",
    total: str | None = None,
    total_label: str = "the whole, timed as one",
) -> alt.Chart | alt.LayerChart:
    """Where one step's time went, a stacked horizontal bar per series. With `total` (a column: the whole
    step's own time), a dark tick marks it on each bar: phases timed apart can overlap in the whole (workers
    loading the next batch while the main process trains), so a bar may end past the time its words quote,
    and the tick draws that time."""
    long = phase_frame(frame, series=series, phases=phases)
    totals = (
        frame[[series, total]].dropna().rename(columns={series: "series", total: "t"})
        if total and total in frame and not frame.empty
        else pd.DataFrame(columns=["series", "t"])
    )
    sums = long.groupby(series)["seconds"].sum() if not long.empty else pd.Series(dtype=float)
    scale, unit = time_unit(pd.concat([sums, totals["t"].astype(float)])) if len(sums) or len(totals) else (1.0, "s")
    plot = pd.DataFrame(
        {
            "series": long[series].astype(str) if not long.empty else [],
            "phase": long["phase"] if not long.empty else [],
            "t": long["seconds"].astype(float) / scale if not long.empty else [],
            "order": long["order"] if not long.empty else [],
        }
    )
    names = list((phases or PHASES).values())
    palette = (PHASE_COLORS + SERIES_COLORS)[: len(names)] if len(names) <= 11 else None
    present = set(plot["phase"]) if not plot.empty else set(names)
    domain = [n for n in names if n in present]
    colors = [palette[names.index(n)] for n in domain] if palette else None
    ticked = not totals.empty and not plot.empty
    if ticked:  # the tick's colour in the phases' legend, darker than every phase
        domain, colors = [*domain, total_label], ([*colors, TOTAL_COLOR] if colors else None)
    color = alt.Color(
        "phase:N",
        title=None,
        legend=legend(domain, columns=LEGEND_COLUMNS),  # two columns (one on a phone): stays in an 800 × 600 frame
        scale=alt.Scale(domain=domain, range=colors) if colors else alt.Scale(domain=domain),
    )
    tooltip = [
        alt.Tooltip("series:N", title="curve"),
        alt.Tooltip("phase:N"),
        alt.Tooltip("t:Q", title=unit, format=".4~g"),
    ]
    sort = _series_sort(plot, "series") if not plot.empty else None
    chart = (
        alt.Chart(plot)
        .mark_bar(size=BAR_PX)
        .encode(
            y=alt.Y("series:N", title=None, sort=sort, axis=bar_axis()),
            x=alt.X("t:Q", title=f"{x_title} ({unit})", stack="zero"),
            color=color,
            order=alt.Order("order:Q"),
            tooltip=tooltip,
        )
    )
    if ticked:
        ticks = pd.DataFrame(
            {"series": totals["series"].astype(str), "phase": total_label, "t": totals["t"].astype(float) / scale}
        )
        chart = alt.layer(
            chart,
            alt.Chart(ticks)
            .mark_tick(thickness=3, size=BAR_PX + 10)
            .encode(
                y=alt.Y("series:N", title=None, sort=sort), x=alt.X("t:Q", stack=None), color=color, tooltip=tooltip
            ),
        )
    # a band per bar: a fixed total height squeezed the bars under the legend, and an alt.Step one makes Vega
    # drop its fit-y
    chart = chart.properties(height=BAR_STEP * max(1, len(set(plot["series"]))), autosize=FIT_X)
    return chart.properties(title=title) if title else chart


def ratio_chart(
    frame: pd.DataFrame,
    *,
    label: str = "comparison",
    ratio: str = "ratio",
    x_title: str = "GPU time ÷ CPU time (log scale)",
    title: str | None = None,
) -> alt.LayerChart:
    """One horizontal bar per comparison (e.g. 'reported in the seed', 'recorded on …'): GPU time
    over CPU time on a log axis, with the 1× line; each bar says which device won."""
    plot = pd.DataFrame(
        {
            "label": frame[label].astype(str) if not frame.empty else [],
            "ratio": frame[ratio].astype(float) if not frame.empty else [],
        }
    )
    # the two times a bar divides (each side's seconds, spread, repeats and origin, where a row has them) ride along:
    # the tooltip shows them, and a check recomputes the bar from them
    sides = [c for c in frame.columns if c not in (label, ratio)] if not frame.empty else []
    for column in sides:
        plot[column] = frame[column].to_numpy()
    plot = plot[plot["ratio"] > 0] if not plot.empty else plot
    plot["winner"] = ["GPU faster" if r < 1 else "CPU faster" if r > 1 else "even" for r in plot["ratio"]]
    plot["text"] = [f"{r:.3g}×" for r in plot["ratio"]]
    order = list(plot["label"])
    low = min([*plot["ratio"], 1 / 3]) / 1.5
    high = max([*plot["ratio"], 3.0]) * 1.5
    x_enc = alt.X("ratio:Q", title=x_title, scale=alt.Scale(type="log", domain=[low, high], nice=False))
    y_enc = alt.Y("label:N", title=None, sort=order, axis=bar_axis())
    bars = (
        alt.Chart(plot)
        .mark_bar(height=BAR_PX)
        .encode(
            x=x_enc,
            x2=alt.datum(1.0),
            y=y_enc,
            color=alt.Color(
                "winner:N",
                title=None,
                scale=alt.Scale(
                    domain=["CPU faster", "GPU faster", "even"], range=[CPU_LIVE, GPU_COLORS[0], "#7f7f7f"]
                ),
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=[
                alt.Tooltip("label:N", title="what"),
                alt.Tooltip("ratio:Q", title="GPU ÷ CPU", format=".3~g"),
                *[
                    alt.Tooltip(f"{c}:Q", title=f"{c[:3].upper()} s a call", format=".3~g")
                    for c in ("gpu_s", "cpu_s")
                    if c in sides
                ],
            ],
        )
    )
    # the number right of the bar's right end (the 1× line for bars that go left), inside the plot
    plot["at"] = [max(r, 1.0) for r in plot["ratio"]]
    text = alt.Chart(plot).mark_text(align="left", dx=5, color=NOTE_COLOR).encode(x="at:Q", y=y_enc, text="text:N")
    one = alt.Chart(pd.DataFrame({"ratio": [1.0]})).mark_rule(strokeDash=[4, 4], color=NOTE_COLOR).encode(x="ratio:Q")
    chart = alt.layer(bars, one, text).properties(height=BAR_STEP * max(1, len(order)), autosize=FIT_X)  # as
    # phase_chart: a band per bar
    return chart.properties(title=title) if title else chart


def loss_chart(
    frame: pd.DataFrame,
    *,
    x: str = "epoch",
    y: str = "loss",
    series: str = "series",
    log_y: bool = True,
    title: str | None = None,
    height: int = 320,
) -> alt.Chart:
    """Training loss per epoch, a line per series (device and where it ran), dashed for recorded ones."""
    data = frame[frame[y].astype(float) > 0] if (log_y and not frame.empty) else frame
    plot = pd.DataFrame(
        {
            "x": data[x].astype(int) if not data.empty else [],
            "y": data[y].astype(float) if not data.empty else [],
            "series": data[series].astype(str) if not data.empty else [],
        }
    )
    order = _series_sort(plot, "series") if not plot.empty else []
    # dashed where recorded: on a field of its own (on the series, as the colour is, Vega-Lite would merge
    # this legend-less dash into the colour's legend and warn 'Conflicting legend property "disable"')
    plot["how"] = ["recorded" if "recorded" in n else "measured" for n in plot["series"]]
    chart = (
        alt.Chart(plot)
        .mark_line(strokeWidth=2)
        .encode(
            x=alt.X("x:Q", title=x, axis=alt.Axis(tickMinStep=1, format="d")),
            y=alt.Y(
                "y:Q",
                title=f"{y} (log scale)" if log_y else y,
                scale=alt.Scale(type="log") if log_y else alt.Scale(zero=False),
            ),
            color=alt.Color(
                "series:N",
                title=None,
                sort=order,
                scale=alt.Scale(domain=order, range=series_colors(order) if order else [SERIES_COLORS[0]]),
                legend=legend(order),
            ),
            strokeDash=alt.StrokeDash(
                "how:N", legend=None, scale=alt.Scale(domain=["measured", "recorded"], range=[[1, 0], [6, 3]])
            ),
            tooltip=[
                alt.Tooltip("series:N", title="curve"),
                alt.Tooltip("x:Q", title=x),
                alt.Tooltip("y:Q", title=y, format=".4~g"),
            ],
        )
        .properties(height=height)
    )
    return chart.properties(title=title) if title else chart
