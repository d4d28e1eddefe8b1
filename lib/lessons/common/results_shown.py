"""What a page's 'Results on screen' holds, as values: every point on screen in its series (the table), and
the points its downloads hold, the live ones (this machine's) and the recorded ones with the machine that
recorded them. ui.scaffold.shown_results makes their rows, at the screen's edge. No Streamlit.

    ResultsShown(shown, live=live_points, recorded=recorded_points, machine=recording.machine)
"""

from __future__ import annotations

from dataclasses import dataclass

from lib.core.point import Point
from lib.lessons.common.in_series import InSeries
from lib.recorded.pack import Fingerprint


@dataclass(frozen=True)
class ResultsShown:
    """The points a page's results table and downloads hold."""

    shown: tuple[InSeries, ...]  # every point on screen, in its series: the table
    live: tuple[Point, ...] = ()  # measured on this server: the download names this machine
    recorded: tuple[Point, ...] = ()  # the recording's points on screen: the download names `machine`
    machine: Fingerprint | None = None  # the machine that recorded them, None without a recording

    @property
    def recorded_by(self) -> Fingerprint | None:
        """The recording machine when recorded points are shown (a download of them names it), else None."""
        return self.machine if self.recorded else None
