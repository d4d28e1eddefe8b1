"""The server's warm-up, once per process after its first page: the one-off costs paid before a visitor asks.

    start_warm_up()        # streamlit_app.py, after every page (it returns at once after the first)

Apart from ui.measure (the live measurements every page asks for) so that the warm-up may use both it
and ui.prefetch (each default view measured ahead), which itself uses ui.measure: no import circle.
"""

from __future__ import annotations

import functools
import os
import threading

from lib.core.measure_lock import MEASURE_LOCK
from lib.core.worker import MEASURE_WORKER
from lib.lessons.common.live import DEFAULT_CPU_THREADS, warm_up
from ui.router import wait_until_quiet
from ui.scaffold import PLOT_HEIGHT

WARM_UP_LABEL = "server warm-up after start (once)"
DATALOADER_WARM_UP = {"source": "images", "dataset_size": 64, "batch_size": 64, "model": "linear"}
_warm_up_started = threading.Event()


def start_warm_up() -> None:
    """Once per server process, in the background: start the measuring process and run a few MLP
    steps and one epoch of images through a DataLoader in it, parse the shipped packs, fit the
    Training page's cost models and compare the shipped packs' machines for Your results (under the
    measurement lock, so it never overlaps a measurement), so that the first visitors do not pay these
    one-off costs (the fits load from lib.core.cache's disk cache when the packs and the fitting code
    are unchanged). Then, unless $GPUWIN_NO_PREFETCH=1, it measures the default view of each page that
    measures live (ui.prefetch) and builds Your results' first charts of the shipped packs. The router
    calls this after every page, so the first chart never waits for it."""
    if _warm_up_started.is_set() or os.environ.get("GPUWIN_NO_WARM_UP") == "1":
        return
    _warm_up_started.set()
    prefetch = os.environ.get("GPUWIN_NO_PREFETCH") != "1"

    def run() -> None:
        import lib.recorded
        from lib.lessons.training import step_tables
        from lib.workloads import get_workload

        try:
            with MEASURE_LOCK.hold(WARM_UP_LABEL):
                MEASURE_WORKER.start()  # its imports (seconds) overlap the fitting below
                # the shipped packs parsed and the Training page's cost models fitted (seconds on 2 cores)
                shipped = lib.recorded.machine_recordings()[0]  # the machines Your results lists
                step_tables.prepare(lib.recorded.load_recordings()[0])
                MEASURE_WORKER.run(functools.partial(warm_up, get_workload("mlp"), num_threads=DEFAULT_CPU_THREADS))
                # the Data pipeline's images: torchvision's import and PIL's first decode, here in the background
                # rather than in its first visitor's sweep
                MEASURE_WORKER.run(
                    functools.partial(
                        warm_up,
                        get_workload("dataloader"),
                        DATALOADER_WARM_UP,
                        num_threads=DEFAULT_CPU_THREADS,
                        calls=1,
                    )
                )
                # Your results' comparisons of the shipped packs, kept per process (ui.compare_view), so its
                # first visitor does not wait for them. Under the lock: no live timing shares the CPU.
                from ui.compare_view import compared_view

                compared_view([], (), shipped)
            if prefetch:
                # each default view in a hold of its own: a visitor who comes meanwhile waits for one, not all
                # (imported here, in the background: it imports every live page's lesson)
                from ui.prefetch import QUIET_S, measure_default_views

                measure_default_views()
                # Your results' first charts of the shipped packs (the downloads are made when clicked), last: its
                # visitors come after the lessons'
                wait_until_quiet(QUIET_S)
                with MEASURE_LOCK.hold(WARM_UP_LABEL):
                    compared_view([], (), shipped).prebuild(PLOT_HEIGHT)
        except Exception:
            pass

    threading.Thread(target=run, name="gpuwin-warm-up", daemon=True).start()
