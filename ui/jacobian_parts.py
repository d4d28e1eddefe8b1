"""The Jacobian page's two charts as it lays them out: the time chart (or why there is none) and the lazy
'memory each method needs' expander with its table of the points not measured. Layout only: every row and
word comes from the page's screen object (lib.lessons.jacobian.screen)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from lib.charts.layout import Layout
from lib.charts.variants import MemoryLines, VariantLegends, VariantLines, memory_chart, variant_chart
from lib.lessons.common.one_day import APART
from lib.lessons.jacobian import memory, screen
from ui import scaffold
from ui.specs import chart_spec

MEMORY_KEY = "jacobian.memory"  # the memory expander's open state


# time per Jacobian along val: colour where it was measured, line style the method, other days' points apart
TIME_LINES = VariantLines(
    "val",
    "median_s",
    color="series",
    dash="method_label",
    iqr="iqr_s",
    x_title=screen.X_TITLE,
    y_title="time per Jacobian",
    day="recorded_on",
    apart=APART,
)


def time_chart(box: Any, shown: screen.JacobianScreen) -> None:
    """Time per Jacobian along val: colour where it was measured, line style the method."""
    scaffold.chart_or_why(
        box,
        chart_spec(
            variant_chart,
            pd.DataFrame(shown.time_rows),
            TIME_LINES,
            legends=VariantLegends(color_order=shown.order, dash_order=screen.DASH_ORDER, dash_columns=2),
            layout=Layout(plot_height=scaffold.plot_height()),
        )
        if shown.time_rows
        else None,
        shown.why_none,
    )


def memory_expander(shown: screen.JacobianScreen, cap_gb: float) -> None:
    """Lazy: its chart and its table of refused points (1.2 MB of a new visitor's browser code) only when opened."""
    with scaffold.lazy_expander("Why? The memory each method needs", MEMORY_KEY) as memory_open:
        if not memory_open:
            return
        st.vega_lite_chart(
            chart_spec(
                memory_chart,
                pd.DataFrame(shown.memory_estimates()),
                pd.DataFrame(shown.memory_marks()),
                MemoryLines("val", x_title=screen.X_TITLE, color_order=screen.DASH_ORDER),
                caps=[memory.memory_cap_rule(cap_gb)],
            ),
            width="stretch",
        )
        st.caption(screen.MEMORY_CAPTION)
        scaffold.refused_table(shown.not_measured())
