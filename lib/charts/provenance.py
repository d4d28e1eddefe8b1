"""A time chart whose every point shows where it came from.

    curve_chart(frame, "batch_size", y="epoch_s", ticks=[1, 16, 256, 4096, 65536], crossover=(512, 1024, 700))

Rows carry `series` (the curve), `origin` ('live', 'recorded', 'derived', 'predicted') and, for
predicted points, `<y>_low` / `<y>_high` (the band). Drawn: a solid line where both ends were
measured, recorded or derived, dashed where either end is predicted; the band shaded; filled
points for what was measured or recorded, hollow ones for noisy points (spread over half the
median, `noisy` column) and predicted ones; IQR bars on measured points; the crossover as a shaded
range with its most likely value. Colours come from the shared device scale (charts.theme).
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from lib.charts.theme import AXIS_TICK_FORMAT, LEGEND_LABEL_LIMIT, log_ticks, series_colors, time_unit
from lib.lessons.explain import likely

DASH = {"measured": [1, 0], "predicted": [6, 4]}


def _plot_frame(frame: pd.DataFrame, x: str, y: str, scale: float) -> pd.DataFrame:
    data = frame[frame[y].notna() & (frame[y].astype(float) > 0)].copy()
    plot = pd.DataFrame({
        "x": data[x].astype(float),
        "t": data[y].astype(float) / scale,
        "series": data["series"].astype(str),
        "origin": data.get("origin", pd.Series("recorded", index=data.index)).fillna("recorded").astype(str),
        "note": data.get("origin_note", pd.Series("", index=data.index)).fillna("").astype(str),
        "noisy": data.get("noisy", pd.Series(False, index=data.index)).fillna(False).astype(bool),
    })
    iqr = data["iqr_s"].fillna(0).astype(float) * data.get("steps_per_epoch", 1) if y == "epoch_s" else data.get(
        "iqr_s", pd.Series(0.0, index=data.index)).fillna(0).astype(float)
    half = iqr / 2 / scale
    plot["lo"] = (plot["t"] - half).clip(lower=plot["t"] * 1e-3)
    plot["hi"] = plot["t"] + half
    plot["band_lo"] = data.get(f"{y}_low", pd.Series(float("nan"), index=data.index)).astype(float) / scale
    plot["band_hi"] = data.get(f"{y}_high", pd.Series(float("nan"), index=data.index)).astype(float) / scale
    return plot.sort_values(["series", "x"]).reset_index(drop=True)


def _segments(plot: pd.DataFrame) -> pd.DataFrame:
    """One two-point segment per neighbouring pair of a curve: dashed where either end is predicted."""
    rows = []
    for name, group in plot.groupby("series", sort=False):
        pts = group.to_dict("records")
        for i, (a, b) in enumerate(zip(pts, pts[1:])):
            style = "predicted" if "predicted" in (a["origin"], b["origin"]) else "measured"
            for p in (a, b):
                rows.append({"seg": f"{name}#{i}", "series": name, "x": p["x"], "t": p["t"], "style": style})
    return pd.DataFrame(rows, columns=["seg", "series", "x", "t", "style"])


def curve_chart(
    frame: pd.DataFrame,
    x: str,
    *,
    y: str = "epoch_s",
    x_title: str | None = None,
    y_title: str = "time per epoch",
    ticks: Sequence[float] | None = None,
    crossover: tuple[float | None, float | None, float | None] | None = None,
    height: int = 360,
) -> alt.LayerChart:
    """Time (log) against a setting (log), a curve per series, every point drawn by its origin.
    crossover: (low, high, likely) of the range where the curves cross, any of them None."""
    plot = _plot_frame(frame, x, y, 1.0) if not frame.empty else pd.DataFrame()
    scale, unit = time_unit(plot["t"]) if not plot.empty else (1.0, "s")
    plot = _plot_frame(frame, x, y, scale) if not frame.empty else pd.DataFrame(
        columns=["x", "t", "series", "origin", "note", "noisy", "lo", "hi", "band_lo", "band_hi"])
    names = sorted(dict.fromkeys(plot["series"]), key=lambda n: (not n.upper().startswith("CPU"), n))
    color = alt.Color("series:N", title=None, sort=names, scale=alt.Scale(domain=names, range=series_colors(names)),
                      legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=LEGEND_LABEL_LIMIT))
    # plain numbers (4,096 and 65,536, not 4.096k), at the values given or at those drawn up to the last point
    axis = alt.Axis(format=AXIS_TICK_FORMAT, values=list(ticks) if ticks else log_ticks(plot["x"]))
    x_enc = alt.X("x:Q", title=x_title or x, scale=alt.Scale(type="log", nice=False, padding=12), axis=axis)
    y_enc = alt.Y("t:Q", title=f"{y_title} ({unit})", scale=alt.Scale(type="log"))
    tooltip = [alt.Tooltip("series:N", title="curve"), alt.Tooltip("x:Q", title=x_title or x, format=",.4~g"),
               alt.Tooltip("t:Q", title=f"{y_title} ({unit})", format=".3~g"),
               alt.Tooltip("origin:N", title="where it came from"), alt.Tooltip("note:N", title="how")]
    layers: list[alt.Chart] = []
    band = plot[plot["band_lo"].notna()]
    if not band.empty:
        layers.append(alt.Chart(band).mark_area(opacity=0.15).encode(x="x:Q", y="band_lo:Q", y2="band_hi:Q",
                                                                     color=color, detail="series:N"))
    measured = plot[(plot["origin"] != "predicted") & (plot["hi"] > plot["lo"])]
    if not measured.empty:
        layers.append(alt.Chart(measured).mark_rule(strokeWidth=2, opacity=0.5).encode(
            x="x:Q", y="lo:Q", y2="hi:Q", color=color))
    segments = _segments(plot)
    styles = [s for s in DASH if s in set(segments["style"])] or ["measured"]
    layers.append(alt.Chart(segments).mark_line(strokeWidth=2).encode(
        x=x_enc, y=y_enc, color=color, detail="seg:N",
        strokeDash=alt.StrokeDash("style:N", title=None,
                                  scale=alt.Scale(domain=styles, range=[DASH[s] for s in styles]),
                                  legend=alt.Legend(orient="bottom", labelExpr="datum.label == 'predicted' ? "
                                                    "'predicted (band: its error)' : 'measured or recorded'"))))
    solid = plot[(plot["origin"] != "predicted") & ~plot["noisy"]]
    hollow = plot[(plot["origin"] == "predicted") | plot["noisy"]]
    layers.append(alt.Chart(solid).mark_point(size=55, filled=True, opacity=1).encode(
        x="x:Q", y="t:Q", color=color, tooltip=tooltip))
    layers.append(alt.Chart(hollow).mark_point(size=55, filled=False, strokeWidth=2).encode(
        x="x:Q", y="t:Q", color=color, tooltip=tooltip))
    layers += crossover_layers(crossover)
    return alt.layer(*layers).properties(height=height)


def crossover_layers(crossover: tuple[float | None, float | None, float | None] | None) -> list[alt.Chart]:
    """The crossover as a shaded range (where neither device is surely faster) and a dashed rule at
    its most likely value, labelled with the same two significant digits as the words."""
    if not crossover:
        return []
    low, high, x_likely = crossover
    layers: list[alt.Chart] = []
    if low is not None and high is not None and high > low:
        layers.append(alt.Chart(pd.DataFrame({"a": [float(low)], "b": [float(high)]})).mark_rect(
            opacity=0.12, color="#d62728").encode(x="a:Q", x2="b:Q"))
    if x_likely is not None:
        label = f"crossover ≈ {likely(x_likely)}"
        mark = alt.Chart(pd.DataFrame({"x": [float(x_likely)], "label": [label]}))
        layers.append(mark.mark_rule(strokeDash=[6, 4], color="#d62728", strokeWidth=2).encode(x="x:Q"))
        layers.append(mark.mark_text(align="left", dx=6, dy=-6, color="#d62728", fontWeight="bold").encode(
            x="x:Q", y=alt.value(12), text="label:N"))
    return layers
