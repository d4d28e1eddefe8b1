"""The Training page's expanders about one step: "Where one step's time went" (the split of the step at the
slider's point as bars, what holds each curve's step back and what would move it, lib.lessons.common.verdict,
and the GPU curve's steps on its measured roofline, lib.charts.roofline), how each way of running the step
moves the crossover, the step's timeline, and the speed-up. Layout only: every number comes from the screen the page composed.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.charts import SpeedupAxis, speedup_chart, speedup_frame
from lib.charts.provenance import CurveAxes, curve_chart
from lib.charts.roofline import roofline_chart
from lib.charts.steps import mode_steps_chart, split_chart
from lib.charts.timeline import timeline_chart
from lib.core.request import LiveRequest
from lib.core.rows import Origin
from lib.lessons.common.explain import SPLIT_PARTS, time_split
from lib.lessons.common.live import live_timeline
from lib.lessons.training import screen as training_screen
from lib.lessons.training import timeline_words as TW
from lib.lessons.training import view as training_view
from lib.lessons.training.modes import has_modes, modes_view
from lib.recorded.sources import GpuSource
from lib.recorded.timelines import find_timeline, load_timelines
from ui import scaffold
from ui.measure import cached_measurement
from ui.specs import chart_spec

TIMELINE_TITLE = "See the bubble: one step on a timeline, the CPU thread against the GPU stream"
TIMELINE_KEY = "training.bubble"  # its open state (st.session_state): a test or a script opens it with True
# The other lazy expanders' open states. A lazy expander's label is part of its identity in Streamlit, so
# these labels stay the same when a slider moves (a label naming the point would close it on every move).
SPLIT_TITLE, SPLIT_KEY = "Where one step's time went at the slider's point", "training.split"
MODES_KEY = "training.modes"
SPEEDUP_KEY = "training.speedup"

PARTS = {f"part_{k}": v for k, v in SPLIT_PARTS.items()}


def where_time_went(
    screen: training_screen.Screen, view: training_view.View, gpu: training_screen.Machine | None
) -> None:
    """The expander: bars, one verdict per curve, the roofline (or why there is none). Run only while it
    is open: the page then measures the live point's profile it reads (scaffold.is_open(SPLIT_KEY))."""
    with scaffold.lazy_expander(SPLIT_TITLE, SPLIT_KEY) as open_:
        if not open_:
            return
        st.markdown(f"**At {view.axis.label} {view.current:,}**")
        splits = [(here.series, time_split(here.to_row())) for here in screen.here]
        # each bar with the count of kernels (operators) its sentence quotes, written under it
        bars = [
            {"series": name, **{f"part_{k}": seconds for k, seconds in s.parts().items()}, "kernels": s.kernels}
            for name, s in splits
            if s
        ]
        if bars:
            # a height in pixels, fitted in width only: a Step height under Streamlit's fit makes Vega drop the
            # fit with a console warning (lib.charts.theme.FIT_X); built once per distinct bars (ui.specs)
            st.vega_lite_chart(chart_spec(split_chart, pd.DataFrame(bars), PARTS), width="stretch")
        for line in training_screen.split_lines(screen, view, gpu):
            st.markdown(line)
        if not bars:
            st.caption("No curve at this point carries a profile of its step or a cost model to split it.")
        points = training_screen.roofline(screen, view)
        if points and screen.ceilings is not None:
            st.vega_lite_chart(
                chart_spec(roofline_chart, points, screen.ceilings, x_title=view.axis.label), width="stretch"
            )
            st.caption(training_screen.roofline_caption(points, screen.ceilings))
        elif gpu and screen.ceilings is None and screen.gpu_label:
            st.caption(f"No roofline: no fp32 matmul was recorded on the {gpu.name}, so its ceilings are unknown.")


def how_modes_move(
    screen: training_screen.Screen, view: training_view.View, gpu: training_screen.Machine | None, height: int
) -> None:
    """The expander: each recorded mode's GPU curve against the answer's CPU curve, the crossover of each,
    and each mode's step at the slider's point (bars), the words read from those two charts alone."""
    if not has_modes(gpu, screen):
        return
    with scaffold.lazy_expander(training_view.MODES_TITLE, MODES_KEY) as open_:
        modes = modes_view(view, gpu, screen) if open_ else None  # built only while open
        if modes is None:
            return
        chart = curve_chart(
            modes.rows(), CurveAxes(view.over, x_title=view.axis.label, ticks=view.axis.steps[::4]), height=height
        )
        st.vega_lite_chart(chart.to_arrow_spec(), width="stretch")
        for line in modes.lines:
            st.markdown(f"- {line}")
        if modes.steps:
            st.markdown(f"One step at {view.axis.label} {view.current:,}, each way of running it:")
            st.vega_lite_chart(chart_spec(mode_steps_chart, modes.bar_rows(), list(modes.curves)), width="stretch")
        for line in modes.step_lines:
            st.markdown(f"- {line}")


def step_timeline(
    screen: training_screen.Screen,
    view: training_view.View,
    gpu: training_screen.Machine | None,
    source: GpuSource,
    threads: int,
    mode: str,
) -> None:
    """The expander: one step of this server's CPU (measured live) and of the recorded GPU on a timeline.
    Run only while it is open (Streamlit's lazy expander): its live timeline costs the measuring process and
    the browser a step's timeline and two charts, worth paying only for the few visitors who open it."""
    with scaffold.lazy_expander(TIMELINE_TITLE, TIMELINE_KEY) as open_:
        if not open_:
            return
        family, work = view.family, view.family.workload
        step_settings = work.resolve({**view.settings(), "mode": mode})
        cpu_line = cached_measurement(  # behind the live gate, as the sweep: the same caps, budget and cancel
            LiveRequest.of(live_timeline, work, step_settings, "cpu", num_threads=threads), label="one step's timeline"
        )
        recorded_line = (
            find_timeline(
                load_timelines()[0],
                work.name,
                view.settings(),
                device_kind="cuda",
                hardware=gpu.name if gpu else None,
                refused=True,
                keys=("batch_size", family.width, *filter(None, [family.depth]), *family.choices, "mode"),
            )
            if not source.live
            else None
        )
        for entry, name, timed in (
            (cpu_line, "CPU · this server (live)", training_screen.here_row(screen, "CPU", Origin.LIVE)),
            (recorded_line, screen.gpu_label or "GPU", training_screen.here_row(screen, "GPU")),
        ):
            if entry and entry.middle:
                st.vega_lite_chart(
                    chart_spec(timeline_chart, entry.middle.events, title=TW.timeline_title(entry, name)),
                    width="stretch",
                )
                st.markdown(TW.timeline_sentence(entry, name, timed and timed.point))
            elif entry and entry.message:
                st.caption(TW.timeline_refused(entry, name))
        if recorded_line is None:
            st.caption(TW.no_timeline(family, view.settings()))


def speedup(screen: training_screen.Screen, view: training_view.View) -> None:
    """The expander: CPU time ÷ GPU time along the axis, where the screen has both curves of its answer."""
    if not (screen.gpu_label and screen.cpu_label):
        return
    with scaffold.lazy_expander("Speed-up: CPU time ÷ GPU time", SPEEDUP_KEY) as open_:
        if not open_:
            return
        frame = pd.DataFrame(screen.rows())
        speed = speedup_frame(frame, view.over, baseline=screen.cpu_label, other=screen.gpu_label, y="epoch_s")
        if not speed.empty:
            st.vega_lite_chart(
                chart_spec(speedup_chart, speed, SpeedupAxis(view.over, x_title=view.axis.label)), width="stretch"
            )
            st.caption("Above the 1× line the GPU is faster.")
