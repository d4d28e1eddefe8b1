"""A GPU's roofline with a curve's steps on it, log-log: each step's arithmetic intensity (flop per
byte) against the arithmetic it achieved per second of the step, under the GPU's two measured
ceilings (lib.recorded.ceilings), each roof named on the chart with its rate (fp32, TF32 where recorded,
memory bandwidth) and labelled with where it came from.

    roofline_chart(points, ceilings, x_title="batch size")   # points: lib.lessons.common.verdict.roofline_points

A step far below the roof is held by something the ceilings do not count (launches, tiny kernels);
one near the slanted roof by memory; one near the flat roof by arithmetic (near: within the verdict's
ROOF_SHARE, lib.lessons.common.verdict).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from lib.charts.theme import FIT_X, LEGEND_LABEL_LIMIT, NOTE_COLOR
from lib.core.fmt import fmt_bytes, fmt_rate
from lib.lessons.common.verdict import UNDECIDED, Regime, RooflinePoint
from lib.recorded.ceilings import Ceilings

REGIME_COLORS = {
    Regime.LAUNCH_BOUND.value: "#d62728",
    Regime.KERNEL_LATENCY.value: "#9467bd",
    Regime.MEMORY_BOUND.value: "#2ca02c",
    Regime.COMPUTE_BOUND.value: "#ff7f0e",
    Regime.BELOW_ROOFS.value: "#8c564b",
    UNDECIDED: "#7f7f7f",
}
SVG = {"embedOptions": {"renderer": "svg"}}


def roof_frame(ceilings: Ceilings, lo: float, hi: float) -> pd.DataFrame:
    """The ceilings as line points over intensities lo..hi: the flat arithmetic roof, and the slanted
    bandwidth roof up to the ridge where it was recorded."""
    rows = []
    if ceilings.bytes_per_s and ceilings.ridge:
        ridge = ceilings.ridge
        start = min(lo, ridge / 10)
        when = f"{ceilings.machine}, {ceilings.bytes_date or ceilings.date}"
        rows += [
            {"intensity": start, "rate": ceilings.bytes_per_s * start, "roof": "memory bandwidth", "recorded": when},
            {"intensity": ridge, "rate": ceilings.flops_per_s, "roof": "memory bandwidth", "recorded": when},
        ]
        lo = min(lo, ridge)
    # each roof carries the recording it came from, so what the words say of a ceiling (its rate, its day)
    # is on the chart the reader sees, not only in its subtitle
    when = f"{ceilings.machine}, {ceilings.date}"
    rows += [
        {"intensity": lo, "rate": ceilings.flops_per_s, "roof": "fp32 arithmetic", "recorded": when},
        {"intensity": max(hi, lo * 10), "rate": ceilings.flops_per_s, "roof": "fp32 arithmetic", "recorded": when},
    ]
    if ceilings.tf32_flops_per_s:  # the lower-precision fix quotes it: drawn as the roof above fp32's
        tf32_when = f"{ceilings.machine}, {ceilings.tf32_date or ceilings.date}"
        rows += [
            {"intensity": x, "rate": ceilings.tf32_flops_per_s, "roof": "TF32 arithmetic", "recorded": tf32_when}
            for x in (lo, max(hi, lo * 10))
        ]
    return pd.DataFrame(rows)


def roof_labels(roofs: pd.DataFrame, ceilings: Ceilings) -> pd.DataFrame:
    """One label per drawn roof, ending where the roof ends on the right ('TF32 arithmetic 412 TFLOP/s'; the
    bandwidth roof's at the ridge): the same columns (and curve) as the roof it names."""
    rates = {
        "fp32 arithmetic": fmt_rate(ceilings.flops_per_s),
        "TF32 arithmetic": fmt_rate(ceilings.tf32_flops_per_s),
        "memory bandwidth": f"{fmt_bytes(ceilings.bytes_per_s or 0)}/s",
    }
    out = []
    for name, rows in roofs.groupby("roof", sort=False):
        end = rows.loc[rows["intensity"].idxmax()]
        out.append({**end.to_dict(), "label": f"{name} {rates[name]}"})
    return pd.DataFrame(out)


def ceilings_note(ceilings: Ceilings) -> list[str]:
    """The subtitle, a short line each (a phone's chart is about 340 px wide): the GPU, and each ceiling
    with its number and the day it was measured, or that it was not. The rows' files are in
    Ceilings.flops_from / bytes_from, which the page prints under the chart."""
    memory = (
        f"bandwidth {fmt_bytes(ceilings.bytes_per_s)}/s: stream, {ceilings.bytes_date}"
        if ceilings.bytes_per_s
        else "bandwidth: not recorded"
    )
    return [f"{ceilings.machine}, measured:", f"fp32 {fmt_rate(ceilings.flops_per_s)}: matmul, {ceilings.date}", memory]


def dot_row(point: RooflinePoint) -> dict[str, Any]:
    """A dot as Altair's data: its regime by name ('not decided' where none), its series only where it has one."""
    row = {
        "x": point.x,
        "intensity": point.intensity,
        "rate": point.rate,
        "regime": point.regime.value if point.regime else UNDECIDED,
        "current": point.current,
        "predicted": point.predicted,
    }
    return {**row, "series": point.series} if point.series else row


def roofline_chart(
    points: Sequence[RooflinePoint], ceilings: Ceilings, *, x_title: str, height: int = 260
) -> alt.LayerChart:
    """Log-log: x flop per byte, y FLOP/s achieved over the whole step; the point the slider picks
    drawn larger; colour = the step's regime; a predicted step hollow."""
    frame = pd.DataFrame([dot_row(p) for p in points if p.intensity and p.rate])
    if frame.empty:
        frame = pd.DataFrame(columns=["intensity", "rate", "regime", "x", "current"])
    lo = float(frame["intensity"].min()) / 2 if len(frame) else 0.1
    hi = float(frame["intensity"].max()) * 2 if len(frame) else 100.0
    roofs = roof_frame(ceilings, lo, hi)
    curves = {p.series for p in points if p.series}
    if len(curves) == 1:  # one curve's roofline: its ceilings are the ones its steps, and its words, are read under
        roofs["curve"] = curves.pop()
    x = alt.X(
        "intensity:Q",
        title="arithmetic intensity (flop per byte counted)",
        scale=alt.Scale(type="log"),
        axis=alt.Axis(format="~g"),
    )
    y = alt.Y("rate:Q", title="achieved FLOP/s (whole step)", scale=alt.Scale(type="log"), axis=alt.Axis(format="~s"))
    roof = (
        alt.Chart(roofs)
        .mark_line(color=NOTE_COLOR, strokeDash=[6, 3])
        .encode(
            x=x,
            y=y,
            detail="roof:N",
            tooltip=[
                alt.Tooltip("roof:N", title="ceiling"),
                alt.Tooltip("rate:Q", title="FLOP/s", format=".3~s"),
                alt.Tooltip("recorded:N", title="measured on"),
            ],
        )
    )
    # each roof named on the chart where it ends (a TF32 roof above fp32's read as a second fp32 line)
    labels = (
        alt.Chart(roof_labels(roofs, ceilings))
        .mark_text(align="right", baseline="bottom", dy=-2, fontSize=10, color=NOTE_COLOR)
        .encode(x=x, y=y, text="label:N")
    )
    regimes = [r for r in REGIME_COLORS if len(frame) and r in set(frame["regime"])]
    color = alt.Color(
        "regime:N",
        title=None,
        legend=alt.Legend(orient="bottom", columns=2, labelLimit=LEGEND_LABEL_LIMIT),
        scale=alt.Scale(domain=regimes, range=[REGIME_COLORS[r] for r in regimes]),
    )
    named = [alt.Tooltip("series:N", title="curve")] if "series" in frame else []
    tooltip = [
        *named,
        alt.Tooltip("x:Q", title=x_title, format=","),
        alt.Tooltip("regime:N"),
        alt.Tooltip("intensity:Q", title="flop per byte", format=".3~g"),
        alt.Tooltip("rate:Q", title="FLOP/s", format=".3~s"),
    ]
    # a step the cost model predicted is drawn hollow, as on the curve chart: nobody recorded it
    predicted = (
        frame["predicted"].fillna(False).astype(bool) if "predicted" in frame else pd.Series(False, index=frame.index)
    )
    dots = (
        alt.Chart(frame[~predicted])
        .mark_point(filled=True, opacity=0.9, size=40)
        .encode(x=x, y=y, color=color, tooltip=tooltip)
    )
    hollow = (
        alt.Chart(frame[predicted])
        .mark_point(filled=False, opacity=0.9, size=40, strokeWidth=1.5)
        .encode(x=x, y=y, color=color, tooltip=[*tooltip, alt.Tooltip("predicted:N", title="predicted")])
    )
    # the slider's point: the same dot, larger and ringed (a size channel on a yes/no field warns in Vega)
    here = (
        alt.Chart(frame[frame["current"].astype(bool)] if len(frame) else frame)
        .mark_point(filled=False, size=260, strokeWidth=2)
        .encode(x=x, y=y, color=color, tooltip=tooltip)
    )  # the dots' own colour
    # encoding: a legend-less copy would make Vega warn 'Conflicting legend property "disable"'
    title = alt.TitleParams(
        "Each step under the GPU's ceilings",
        subtitle=ceilings_note(ceilings),
        subtitleColor=NOTE_COLOR,
        anchor="start",
        subtitleFontSize=11,
    )
    # an empty layer makes Vega warn 'Infinite extent' on the console: only the kinds of dot there are
    shown = [layer for layer, n in ((dots, (~predicted).sum()), (hollow, predicted.sum())) if n] or [dots]
    return alt.layer(roof, labels, *shown, here).properties(height=height, title=title, usermeta=SVG, autosize=FIT_X)
