"""The Timing pitfalls page's two charts as it lays them out: the time chart (or why there is none) and the
FLOP/s expander with its sentences. Layout only: every row and word comes from the page's screen object
(lib.lessons.timing.screen)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from lib.charts.layout import Crossover, Layout
from lib.charts.variants import Quantity, VariantLegends, VariantLines, variant_chart
from lib.lessons.common.one_day import APART
from lib.lessons.timing import screen
from ui import scaffold
from ui.specs import chart_spec


def time_chart(box: Any, shown: screen.TimingScreen) -> None:
    """Time per matmul along the size: colour where it was measured, line style how it was timed."""
    crossover_x, crossover_label = shown.crossing  # no rule where the sentence names no value
    lines = shown.time_rows
    scaffold.chart_or_why(
        box,
        chart_spec(
            variant_chart,
            pd.DataFrame(lines),
            VariantLines(
                "size",
                "median_s",
                color="series",
                dash="line",
                iqr="iqr_s",
                x_title=screen.X_TITLE,
                y_title="time per matmul",
                day="recorded_on",
                apart=APART,
            ),
            legends=VariantLegends(color_order=shown.order, dash_order=shown.line_names),
            crossover=Crossover(crossover_x, crossover_label),
            # an 800 × 600 frame has width to spare, not height
            layout=Layout(plot_height=scaffold.plot_height(), legend_beside=scaffold.embedded()),
        )
        if shown.timed
        else None,
        screen.NOTHING_TIMED,
    )


def rates_expander(shown: screen.TimingScreen) -> None:
    """Operations per second against the best measured here. Drawn closed, its contents always sent: the
    answer above quotes its rates."""
    with scaffold.why("Operations per second (FLOP/s) against the best measured here", drawn=True):
        bests = pd.DataFrame(shown.rate_rules())
        st.vega_lite_chart(
            chart_spec(
                variant_chart,
                pd.DataFrame(shown.rate_rows()),
                VariantLines(
                    "size",
                    "achieved_flops_per_s",
                    color="series",
                    dash="line",
                    kind=Quantity.FLOPS,
                    x_title=screen.X_TITLE,
                    y_title="achieved rate",
                ),
                legends=VariantLegends(
                    color_title="measured on",
                    dash_title="timing",
                    color_order=shown.order,
                    dash_order=shown.rate_dashes(),
                ),
                rules=bests if not bests.empty else None,
            ),
            width="stretch",
        )
        for sentence in shown.rate_lines():
            st.markdown(sentence)
        st.caption(screen.RATE_CAPTION)
