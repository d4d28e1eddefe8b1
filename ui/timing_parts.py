"""The Timing pitfalls page's two charts as it lays them out: the time chart (or why there is none) and the
FLOP/s expander with its sentences. Layout only: every row and word comes from the page's screen object
(lib.lessons.timing.screen)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from lib.charts.variants import variant_chart
from lib.lessons.timing import screen as S
from ui import scaffold
from ui.specs import chart_spec


def time_chart(box: Any, shown: S.TimingScreen) -> None:
    """Time per matmul along the size: colour where it was measured, line style how it was timed."""
    crossover_x, crossover_label = shown.crossing  # no rule where the sentence names no value
    lines = shown.time_rows
    scaffold.chart_or_why(
        box,
        chart_spec(variant_chart, pd.DataFrame(lines), "size", "median_s", color="series", dash="line", iqr="iqr_s",
                   x_title=S.X_TITLE, y_title="time per matmul", color_order=shown.order,
                   dash_order=shown.line_names,
                   legend_beside=scaffold.embedded(),  # an 800 × 600 frame has width to spare, not height
                   crossover_x=crossover_x, crossover_label=crossover_label,
                   plot_height=scaffold.plot_height()) if shown.timed else None,
        S.NOTHING_TIMED)


def rates_expander(shown: S.TimingScreen) -> None:
    """Operations per second against the best measured here. Drawn closed, its contents always sent: the
    answer above quotes its rates."""
    with scaffold.why("Operations per second (FLOP/s) against the best measured here", drawn=True):
        bests = pd.DataFrame(shown.best_rates())
        st.vega_lite_chart(
            chart_spec(variant_chart, pd.DataFrame(shown.rate_rows()), "size", "achieved_flops_per_s", kind="flops",
                       color="series", dash="line", x_title=S.X_TITLE, y_title="achieved rate",
                       color_title="measured on", dash_title="timing", color_order=shown.order,
                       dash_order=shown.rate_dashes(), rules=bests if not bests.empty else None),
            width="stretch",
        )
        for sentence in shown.rate_lines():
            st.markdown(sentence)
        st.caption(S.RATE_CAPTION)
