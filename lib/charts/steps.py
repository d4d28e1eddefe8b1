"""Bars of one training step, each with a line of words under it that says what the sentences beside
the chart quote: how many kernels (on a CPU: operators) the step issued, where its time came from.

    split_chart(frame, phases)        # where one step's time went, a stacked bar per curve
    mode_steps_chart(bars, names)     # each way of running the step, its step at the slider's point

Pure functions from rows to an Altair chart; no Streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import pandas as pd

from lib.charts.compiled import VegaRecords
from lib.charts.curves import BAR_PX, BAR_STEP, bar_axis, phase_frame
from lib.charts.theme import FIT_X, NOTE_COLOR, PHASE_COLORS, label_lines, legend, series_colors, time_unit
from lib.core.fmt import fmt_s, plural

# the words under a bar: below it, inside its band (its name is above it: lib.charts.curves.bar_axis)
UNDER = {"align": "left", "baseline": "top", "dy": BAR_PX // 2 + 3, "fontSize": 11, "color": NOTE_COLOR}
LINE_PX = 14  # one line of those words


def _under(rows: VegaRecords, names: Sequence[str]) -> alt.Chart:
    """A text mark under each bar, at the plot's left edge, carrying the numbers it names (kept as numbers
    in its rows, so what the words quote is on the chart)."""
    return (
        alt.Chart(pd.DataFrame(rows))
        .mark_text(**UNDER, lineBreak="\n")
        .encode(y=alt.Y("series:N", sort=list(names), title=None, axis=bar_axis()), x=alt.value(0), text="under:N")
    )


def split_chart(frame: pd.DataFrame, phases: Mapping[str, str]) -> alt.LayerChart:
    """Where one step's time went: a stacked bar per curve (phases: column -> name), and under each bar
    how many kernels (on a CPU: operators) the step issued, where the row counts them ('kernels')."""
    long = phase_frame(frame, phases=dict(phases))
    totals = long.groupby("series")["seconds"].sum() if not long.empty else pd.Series(dtype=float)
    scale, unit = time_unit(list(totals)) if len(totals) else (1.0, "s")
    names = [str(n) for n in dict.fromkeys(frame["series"])] if len(frame) else []
    names = sorted(names, key=lambda n: (0 if n.lower().startswith("cpu") else 1, names.index(n)))
    plot = (
        pd.DataFrame(
            {
                "series": long["series"].astype(str),
                "phase": long["phase"],
                "t": long["seconds"].astype(float) / scale,
                "order": long["order"],
            }
        )
        if not long.empty
        else pd.DataFrame(columns=["series", "phase", "t", "order"])
    )
    domain = [n for n in phases.values() if n in set(plot["phase"])]
    colors = [PHASE_COLORS[list(phases.values()).index(n) % len(PHASE_COLORS)] for n in domain]
    bars = (
        alt.Chart(plot)
        .mark_bar(size=BAR_PX)
        .encode(
            y=alt.Y("series:N", sort=names, title=None, axis=bar_axis()),
            x=alt.X("t:Q", title=f"time of one step ({unit})", stack="zero"),
            color=alt.Color("phase:N", title=None, scale=alt.Scale(domain=domain, range=colors), legend=legend(domain)),
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("series:N", title="curve"),
                alt.Tooltip("phase:N"),
                alt.Tooltip("t:Q", title=unit, format=".4~g"),
            ],
        )
    )
    counted = []
    for _, row in frame.iterrows():
        kernels = row.get("kernels")
        if kernels is not None and pd.notna(kernels) and kernels > 0:
            what = "operator" if str(row["series"]).lower().startswith("cpu") else "kernel"
            counted.append(
                {
                    "series": str(row["series"]),
                    "kernels": float(kernels),
                    "under": f"{plural(int(kernels), what)} a step",
                }
            )
    if not counted:
        return alt.layer(bars).properties(height=BAR_STEP * max(1, len(names)), autosize=FIT_X)
    # a line more per band for the count, so it never meets the next bar's name
    return alt.layer(bars, _under(counted, names)).properties(
        height=(BAR_STEP + LINE_PX) * max(1, len(names)), autosize=FIT_X
    )


def _kept(seconds: float) -> str:
    """A time whose number and unit stay on one line when the words are wrapped ('2.17 s', never '2.17' / 's')."""
    return fmt_s(seconds).replace(" ", "\u00a0")


UNDER_CHARS = 44  # a line of the words under a bar: about 250 px at 11 px, inside a phone's plot


def mode_steps_chart(bars: Sequence[Mapping[str, Any]], names: Sequence[str]) -> alt.LayerChart:
    """One bar per way of running the step: its step's time at the slider's point, a predicted one (its
    'predicted' field) pale with a dashed outline, and under it, in whole lines, where that time came
    from (and a compiled mode's first, compiling step where it was recorded). names: every curve of the
    modes' curve chart, so each bar takes its curve's colour there."""
    rows = []
    for bar in bars:
        kernels = f" of {plural(int(bar['kernels']), 'kernel')}" if bar.get("kernels") else ""  # the saving quotes it
        under = f"{_kept(bar['step_s'])} a step{kernels}, {bar['from']}"
        if bar.get("cold_s"):
            under += f"; first step {_kept(bar['cold_s'])} (compiling)"
        # whole lines (the text mark breaks at each newline): one long line would shrink the plot to fit it
        rows.append(
            {**bar, "under": "\n".join(label_lines(under, UNDER_CHARS)), "predicted": bool(bar.get("predicted"))}
        )
    scale, unit = time_unit([r["step_s"] for r in rows]) if rows else (1.0, "s")
    for r in rows:
        r["t"] = r["step_s"] / scale
    order = sorted(names, key=lambda n: (not n.upper().startswith("CPU"), n))  # curve_chart's colour order
    colors = dict(zip(order, series_colors(order)))
    shown = [str(r["series"]) for r in rows]
    frame = pd.DataFrame(rows)
    palette = alt.Scale(domain=shown, range=[colors.get(n, NOTE_COLOR) for n in shown])
    color = alt.Color("series:N", legend=None, scale=palette)
    y = alt.Y("series:N", sort=shown, title=None, axis=bar_axis())
    tooltip = [
        alt.Tooltip("series:N", title="curve"),
        alt.Tooltip("t:Q", title=unit, format=".4~g"),
        alt.Tooltip("note:N", title="from"),
    ]
    drawn = (
        alt.Chart(frame)
        .mark_bar(size=BAR_PX, strokeWidth=1.5)
        .encode(
            y=y,
            x=alt.X("t:Q", title=f"time of one step ({unit})"),
            color=color,
            tooltip=tooltip,
            opacity=alt.condition("datum.predicted", alt.value(0.35), alt.value(1.0)),
            strokeDash=alt.condition("datum.predicted", alt.value([4, 2]), alt.value([1, 0])),
            stroke=alt.Stroke("series:N", legend=None, scale=palette),
        )
    )
    # each band holds the name above its bar (bar_axis), the bar, and the lines under it, the bar in the middle
    lines = max((r["under"].count("\n") + 1 for r in rows), default=1)
    band = max(BAR_STEP, 2 * (BAR_PX // 2 + 3 + LINE_PX * lines))
    return alt.layer(drawn, _under(rows, shown)).properties(height=band * max(1, len(rows)), autosize=FIT_X)
