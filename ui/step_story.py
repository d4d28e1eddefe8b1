"""The Training page's "Where one step's time went": the split of the step at the slider's point (bars),
what holds each curve's step back and what would move it (lib.lessons.common.verdict), and the GPU
curve's steps on its measured roofline (lib.charts.roofline). Layout only: every number comes from
the screen the page composed.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from lib.charts import phase_chart
from lib.charts.curves import BAR_STEP
from lib.charts.roofline import roofline_chart
from lib.charts.theme import FIT_X
from lib.lessons.common.explain import SPLIT_PARTS, time_split
from lib.lessons.common.verdict import UNDECIDED
from lib.lessons.training import screen as S
from lib.lessons.training import view as T
from ui.chart_cache import chart_spec


def _split_bars(bars: pd.DataFrame) -> alt.LayerChart:
    chart = phase_chart(bars, phases={f"part_{k}": v for k, v in SPLIT_PARTS.items()})
    return chart.properties(height=BAR_STEP * len(bars), autosize=FIT_X)


def where_time_went(screen: S.Screen, view: T.View, gpu: S.Machine | None) -> None:
    """The expander: bars, one verdict per curve, the roofline (or why there is none)."""
    with st.expander(f"Where one step's time went at {view.axis.label} {view.current:,}", expanded=False):
        splits = [(r["series"], time_split(r)) for r in screen.here]
        bars = [{"series": name, **{f"part_{k}": s[k] for k in SPLIT_PARTS}} for name, s in splits if s]
        if bars:
            # a height in pixels, fitted in width only: a Step height under Streamlit's fit makes Vega drop the
            # fit with a console warning (lib.charts.theme.FIT_X); built once per distinct bars (ui.chart_cache)
            st.vega_lite_chart(chart_spec(_split_bars, pd.DataFrame(bars)), width="stretch")
        for line in S.split_lines(screen, view, gpu):
            st.markdown(line)
        if not bars:
            st.caption("No curve at this point carries a profile of its step or a cost model to split it.")
        points = S.roofline(screen, view)
        if points and screen.ceilings is not None:
            st.vega_lite_chart(chart_spec(roofline_chart, points, screen.ceilings, x_title=view.axis.label),
                               width="stretch")
            c = screen.ceilings
            st.caption("Each dot is one step of the GPU curve (ringed: this point). Below the dashed ceilings, "
                       "something other than arithmetic or memory holds the step: launches, or kernels too small to "
                       f"fill the GPU. Ceilings: {c.flops_from}; bandwidth: {c.bytes_from or 'not recorded'}."
                       + (" Grey: the GPU was busy, but far from its arithmetic peak, and without a bandwidth ceiling "
                          "the page cannot tell whether memory holds it." if any(p["regime"] == UNDECIDED
                                                                                 for p in points) else ""))
        elif gpu and screen.ceilings is None and screen.gpu_label:
            st.caption(f"No roofline: no fp32 matmul was recorded on the {gpu.name}, so its ceilings are unknown.")
