"""Each live page's default view, measured by the server's warm-up before a visitor asks.

A hosted demo is mostly opened cold, and its first visitors open each page at its defaults: Timing
pitfalls and Seed cases drew nothing until their live CPU was timed (a second on one CPU), Training,
the Jacobian and the Data pipeline redrew one to three seconds later. Measured here once, in the background after
the first page, each default view is a stored live result like a visitor's (same request, same key,
same 30-minute life), shown with the time it was measured.

    measure_default_views()        # ui.warm_up.start_warm_up calls it after its one-off costs

The requests come from each lesson's default_requests(), built from the same constants its page
gives its widgets (tests/test_app_prefetch.py checks the page stores under the same key).
"""

from __future__ import annotations

from lib.core.request import LiveRequest
from lib.core.sweep import default_memory_cap_gb
from lib.core.worker import WorkerStopped
from lib.lessons.common.live import DEFAULT_CPU_THREADS
from lib.lessons.data_pipeline import screen as data_pipeline
from lib.lessons.jacobian import view as jacobian
from lib.lessons.seed_cases import screen as seed_cases
from lib.lessons.timing import view as timing
from lib.lessons.training import live as training_live
from lib.lessons.training import view as training
from ui.measure import DEFAULT_TOTAL_BUDGET_S, live_point_budget_s, measure_ahead, sweep_request
from ui.router import wait_until_quiet
from ui.sources import gpu_sources, live_devices, load_recordings

# Measured ahead only once no page has run for this long: on a one-CPU host a visitor's page (and the
# timings measured ahead) would otherwise share the core; a visitor reading a page leaves it idle
QUIET_S = 1.0


def default_devices() -> list[str]:
    """What a page at its defaults times live: the sidebar's first source (a live GPU when there is one)."""
    sources = gpu_sources(load_recordings())
    return live_devices(sources[0]) if sources else ["cpu"]


def default_requests() -> list[tuple[str, LiveRequest]]:
    """(label, request) of every default view: Training first (the page most visitors open after Home),
    then those whose first chart waits for them (Timing pitfalls, Seed cases), then those that draw their
    recorded side first (Jacobian, Data pipeline)."""
    devices, budget, threads = default_devices(), live_point_budget_s(), DEFAULT_CPU_THREADS
    view = training.View()
    return [
        sweep_request(
            view.family.workload,
            view.over,
            training_live.live_grid(view),
            training_live.live_settings(view, gpu_live=len(devices) > 1),
            devices,
            point_budget_s=budget,
            num_threads=training_live.DEFAULT_THREADS,
        ),
        *timing.default_requests(devices, point_budget_s=budget, threads=threads),
        *seed_cases.default_requests(devices, threads=threads, budget_s=budget),
        *jacobian.default_requests(
            devices, live_budget_s=budget, threads=threads, memory_cap_gb=default_memory_cap_gb()
        ),
        *data_pipeline.default_requests(
            devices, point_budget_s=budget, total_budget_s=DEFAULT_TOTAL_BUDGET_S / 2, threads=threads
        ),
    ]


def measure_default_views(quiet_s: float = QUIET_S) -> int:
    """Measure every default view not stored yet, one hold of the measurement lock each, each once no page
    has run for quiet_s seconds; how many were measured. A view the measuring process could not finish (out
    of memory) is left to its visitor."""
    measured = 0
    for label, request in default_requests():
        wait_until_quiet(quiet_s)
        try:
            measured += measure_ahead(request, label=f"{label} (measured ahead for visitors)")
        except (WorkerStopped, MemoryError, RuntimeError):  # left to the view's visitor, who is told why
            continue
    return measured
