"""The warm-up measures each live page's default view ahead, under the key its page asks for (issue 25).

ui.prefetch builds the default views' requests from the lessons' constants, away from the pages: a
request that differs in any argument from the page's would be measured for nobody. Each page is opened
at its defaults here and must have stored its live result under the key ui.prefetch would measure; a
result measured ahead is then what the page shows, with the time it was measured.
"""

from __future__ import annotations

import re
import time

import pytest

from tests.app_support import env, open_page, page_text
from ui import measure, prefetch

BUDGET = "0.01"
PAGES = {  # page -> the start of its default views' labels in ui.prefetch.default_requests()
    "pages/training.py": "mlp over batch_size",
    "pages/timing_pitfalls.py": "matmul over size",
    "pages/seed_cases.py": "seed case",
    "pages/jacobian.py": "jacobian",
    "pages/data_pipeline.py": "data pipeline",
}


def requests_of(start: str):
    return [request for label, request in prefetch.default_requests() if label.startswith(start)]


@pytest.mark.parametrize("page", PAGES)
def test_a_page_at_its_defaults_stores_what_the_warm_up_measures_ahead(page):
    with env(GPUWIN_LIVE_POINT_BUDGET_S=BUDGET):
        measure._store.clear()  # no live result kept by an earlier test
        ahead = requests_of(PAGES[page])
        assert ahead, f"ui.prefetch measures nothing for {page}"
        assert not any(measure.is_cached(r) for r in ahead)
        at = open_page(page)
        assert not at.exception, [e.value for e in at.exception]
        missed = [r.key for r in ahead if not measure.is_cached(r)]
        assert not missed, f"{page} at its defaults did not ask for what ui.prefetch measures: {missed}"


def test_a_view_measured_ahead_is_what_its_page_shows_without_measuring_again():
    with env(GPUWIN_LIVE_POINT_BUDGET_S=BUDGET):
        measure._store.clear()  # no live result kept by an earlier test
        label, request = next(r for r in prefetch.default_requests() if r[0].startswith("matmul"))
        assert measure.measure_ahead(request, label=label) is True
        assert measure.measure_ahead(request, label=label) is False  # stored: not measured twice
        stored_at = measure.measured_at(request)
        time.sleep(0.05)
        at = open_page("pages/timing_pitfalls.py")
        assert not at.exception, [e.value for e in at.exception]
        assert measure.measured_at(request) == stored_at, "the page measured its default view again"
        # the caption says how old the live side is: measured ahead, not on this visit
        assert re.search(
            r"CPU: measured live on this server with \d+ threads? \(less than a minute ago\)\.", page_text(at)
        ), page_text(at)


def test_your_results_first_visit_after_the_prebuild_builds_no_chart():
    import lib.recorded
    from ui.compare_view import MORE_CHARTS, _shipped_view, compared_view
    from ui.scaffold import PLOT_HEIGHT

    # a server's first visit: no earlier test of this process (which ones ran before differs under pytest-xdist)
    # left charts built on the shipped view, which the server keeps in lib.core.cache
    _shipped_view.clear()
    view = compared_view([], (), lib.recorded.machine_recordings()[0])  # the page's: each machine once
    view.prebuild(PLOT_HEIGHT)
    built = dict(view._charts)
    assert len(built) == min(len(view.drawn), 1 + MORE_CHARTS) > 1
    at = open_page("pages/your_results.py", {"shipped": "true"})
    assert not at.exception, [e.value for e in at.exception]
    assert view._charts == built, "the page built a chart the warm-up had not"
    assert len(at.get("vega_lite_chart")) == len(built)


def test_work_ahead_waits_while_a_page_runs_and_until_the_server_is_quiet():
    import threading

    from ui.router import quiet_for, routed, wait_until_quiet

    page_running, page_may_end = threading.Event(), threading.Event()

    def page() -> None:
        with routed():
            page_running.set()
            page_may_end.wait(5)

    visitor = threading.Thread(target=page)
    visitor.start()
    page_running.wait(5)
    assert quiet_for() == 0.0
    waited = threading.Thread(target=wait_until_quiet, args=(0.3,))
    started = time.monotonic()
    waited.start()
    time.sleep(0.4)
    assert waited.is_alive(), "work ahead started while a page ran"
    page_may_end.set()
    visitor.join(5)
    waited.join(5)
    took = time.monotonic() - started
    assert not waited.is_alive() and took + 0.05 >= 0.4 + 0.3, took
    assert quiet_for() > 0.0
