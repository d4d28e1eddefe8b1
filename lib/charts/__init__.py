"""Altair chart builders: pure functions from a DataFrame of result rows (or a lesson's frame) to a chart.

No Streamlit: pages pass the charts to st.altair_chart. The one part of lib/ that imports Altair.
May import lib.core and lib.lessons (to draw what a lesson computed); nothing imports charts but ui/ and pages/.

    curves    time against a setting, speed-up, phases, seed ratios, loss curves
    variants  several timing variants or methods of one sweep; memory estimates
    layout    how any chart is laid out (its size, legends, title) and the crossover rule over it
    machines  several machines' curves of one sweep (Your results)
    scaling   throughput and scaling efficiency per GPU count (Multi-GPU)
    seeds     the Seed cases' times behind their ratios
    theme     colours and time units every chart shares
"""

from lib.charts.curves import (
    SpeedupAxis,
    TimeLines,
    crossover_layers,
    loss_chart,
    ok_rows,
    phase_chart,
    phase_frame,
    ratio_chart,
    speedup_chart,
    speedup_frame,
    time_chart,
)
from lib.charts.layout import Crossover, Layout
from lib.charts.seeds import seed_times_chart
from lib.charts.theme import SERIES_COLORS, time_unit

__all__ = [
    "Crossover",
    "Layout",
    "SpeedupAxis",
    "TimeLines",
    "crossover_layers",
    "loss_chart",
    "ok_rows",
    "phase_chart",
    "phase_frame",
    "ratio_chart",
    "seed_times_chart",
    "speedup_chart",
    "speedup_frame",
    "time_chart",
    "SERIES_COLORS",
    "time_unit",
]
