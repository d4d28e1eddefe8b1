"""The Training page's chart slot and its live measurement of this server: the fixed grid (measured once for every slider
position), then the slider's own point where it is off the grid or its profile is wanted, the chart redrawn
at most once a second while the curve grows."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from lib.charts.provenance import CurveAxes, curve_chart
from lib.lessons.common.live import LiveCurve
from lib.lessons.training.live_point import LivePoint, live_points
from lib.lessons.training.scene import Scene, live_notes
from lib.lessons.training.screen import Screen, with_point
from lib.lessons.training.view import View
from lib.recorded.sources import GpuSource
from ui import scaffold
from ui.measure import measure_sweep
from ui.step_story import SPLIT_KEY

REDRAW_S = 1.0  # while measuring, redraw the growing live curve at most this often


class ChartBox:
    """The page's chart slot, each screen drawn in its place: the recorded one, each redraw while this server
    is measured, the last."""

    def __init__(self, box: Any, view: View, height: int) -> None:
        self.box, self.view, self.height = box, view, height

    def __call__(self, screen: Screen) -> None:
        rows = screen.rows()
        if not rows:
            self.box.info(
                "Nothing to draw yet: no recording covers this view, and this server's CPU has not been "
                "measured for it.",
                icon=":material/info:",
            )
            return
        axes = CurveAxes(self.view.over, x_title=self.view.axis.label, ticks=self.view.axis.steps[::4])
        chart = curve_chart(
            rows, axes, crossover=screen.crossover, height=self.height, legend_beside=scaffold.embedded()
        )
        self.box.vega_lite_chart(chart.to_arrow_spec(), width="stretch")  # an Altair chart compiled once per shape


class Redraw:
    """Draws the scene with the points measured so far, at most once every REDRAW_S seconds."""

    def __init__(self, scene: Scene, draw: Callable[[Screen], None]) -> None:
        self.scene, self.draw, self.last = scene, draw, time.perf_counter()
        self.grid: list[LivePoint] | None = None  # the grid once measured: the slider's point is drawn among it

    def __call__(self, curve: LiveCurve) -> None:
        if time.perf_counter() - self.last >= REDRAW_S:
            points = live_points(curve)
            if self.grid is not None:
                points = with_point(self.grid, points, self.scene.view.over)
            self.draw(self.scene.with_live(points))
            self.last = time.perf_counter()


def measure_live(scene: Scene, source: GpuSource, draw: Callable[[Screen], None]) -> list[LivePoint]:
    """This server's live points for the scene's view (a live GPU's too when the sidebar chose it).

    The grid is timed without the profiler: profiling its six points would nearly double a first visit's
    wait, for an expander few open. The slider's point is measured apart, with its profile, while
    "Where one step's time went" is open, and off the grid; the chart, the split and the words read that point."""
    view, work, over = scene.view, scene.view.family.workload, scene.view.over
    devices = ["cpu", source.device] if source.live else ["cpu"]
    grow = Redraw(scene, draw)
    split_open = scaffold.is_open(SPLIT_KEY)
    live = measure_sweep(work, over, scene.grid, scene.fixed, devices, num_threads=scene.threads, on_points=grow)
    points = live_points(live)
    if view.current not in scene.grid or split_open:
        grow.grid = points
        point = measure_sweep(
            work,
            over,
            [view.current],
            scene.fixed,
            devices,
            current=view.current if split_open else None,
            num_threads=scene.threads,
            on_points=grow,
        )
        points = with_point(points, live_points(point), over)
    return points


def live_point_notes(live: list[LivePoint], view: View) -> None:
    """A closed expander listing the live points not timed or timed with a message; nothing when all are clean."""
    notes = live_notes(live, view)
    if notes is None:
        return
    title, lines = notes
    with st.expander(title, expanded=False):
        for line in lines:
            st.markdown(line)
