"""What the Training page times live on this server: the grid, the settings, the CPU threads. The page and the
server's warm-up (ui.prefetch, which measures the default view ahead) read them here, so both ask for the same
measurement. No Streamlit."""

from __future__ import annotations

import os

from lib.core.workload import SettingValue
from lib.lessons.common.live import DEFAULT_CPU_THREADS, log_grid
from lib.lessons.training.view import View

LIVE_POINTS = 6  # the live grid: the same six points at every slider position (its crossover is the curves')
# Threads a visitor may give the live CPU: they leave a core to the web server (more would fight it)
THREAD_CHOICES = tuple(range(1, max(1, (os.cpu_count() or 1) - 1) + 1))
DEFAULT_THREADS = min(DEFAULT_CPU_THREADS, THREAD_CHOICES[-1]) if len(THREAD_CHOICES) > 1 else 1


def live_grid(view: View) -> list[int]:
    """The points of the view's axis timed live."""
    return log_grid(view.axis.steps, n=LIVE_POINTS)


def live_settings(view: View, gpu_live: bool) -> dict[str, SettingValue]:
    """The live sweep's settings but the swept one: the view's mode on a live GPU, else its CPU side's."""
    fixed = {k: v for k, v in view.settings().items() if k != view.over}
    fixed["mode"] = view.mode if gpu_live else view.cpu_side().mode
    return fixed
