"""Three visitors ask for measurements at once with different settings: one measures at a time
(the lock's record shows no overlapping intervals), the others wait, all three get their results.

This drives ui.measure.measure_sweep -- the function the Training page calls -- from three threads
(Streamlit's AppTest cannot run in several threads at once: each run swaps a process-wide runtime).
tests/test_browser.py has the same scenario end to end: three browser tabs against one server.
"""

from __future__ import annotations

import threading
import time

import pytest

from lib.core.measure_lock import MEASURE_LOCK, overlapping
from lib.lessons.common.live import LiveCurve
from lib.workloads import get_workload
from ui.measure import measure_sweep
from ui.warm_up import WARM_UP_LABEL

MLP = get_workload("mlp")
# settings no other test uses, so nothing is cached yet
VISITORS = [
    {"hidden_width": 16, "dataset_size": 512},
    {"hidden_width": 8, "dataset_size": 512},
    {"depth": 2, "dataset_size": 1024},
]


def test_three_visitors_measure_one_at_a_time():
    results: dict[int, LiveCurve] = {}
    errors: dict[int, BaseException] = {}
    go = threading.Barrier(len(VISITORS))

    def visit(i: int, fixed: dict) -> None:
        try:
            go.wait()
            results[i] = measure_sweep(
                MLP, "batch_size", [8, 32], fixed, ["cpu"], current=32, point_budget_s=0.03, num_threads=1
            )
        except BaseException as err:
            errors[i] = err

    started = time.perf_counter()
    threads = [threading.Thread(target=visit, args=(i, f), name=f"visitor-{i}") for i, f in enumerate(VISITORS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert not errors, errors
    assert sorted(results) == [0, 1, 2]
    for i, fixed in enumerate(VISITORS):
        points = results[i].points
        assert [p.status for p in points] == ["ok", "ok"], points
        assert all(p.settings[k] == v for p in points for k, v in fixed.items())
        assert points[1].counts.kernels > 0  # the current point was profiled too

    everything = [h for h in MEASURE_LOCK.record() if h.start >= started and h.end is not None]
    assert not overlapping(everything), [(h.label, h.start, h.end) for h in everything]
    ours = [h for h in everything if h.label != WARM_UP_LABEL]
    assert len(ours) == 3, [h.label for h in ours]
    assert sorted(h.thread for h in ours) == ["visitor-0", "visitor-1", "visitor-2"]
    assert len([h for h in ours if h.waited_s > 0.01]) >= 2  # the two who found it taken waited

    # a fourth visitor with the same settings as the first gets the cached points at once
    again = time.perf_counter()
    assert (
        measure_sweep(MLP, "batch_size", [8, 32], VISITORS[0], ["cpu"], current=32, point_budget_s=0.03, num_threads=1)
        == results[0]
    )
    assert time.perf_counter() - again < 0.5
    assert len([h for h in MEASURE_LOCK.record() if h.start >= again]) == 0  # no measurement, no lock


@pytest.mark.cpu_view
@pytest.mark.parametrize(
    "page",
    [
        "pages/training.py",
        "pages/jacobian.py",
        "pages/timing_pitfalls.py",
        "pages/data_pipeline.py",
        "pages/seed_cases.py",
    ],
)
def test_a_page_behind_a_long_queue_keeps_its_recorded_answer_and_says_so(page):
    # another visitor's measurement holds the line; this one may not wait at all ($GPUWIN_MAX_WAIT_S=0)
    from app_support import env, open_page, page_text

    held, release = threading.Event(), threading.Event()

    def other_visitor():
        with MEASURE_LOCK.hold("another visitor's view"):
            held.set()
            release.wait(120)

    threading.Thread(target=other_visitor, daemon=True).start()
    assert held.wait(30)
    try:
        with env(GPUWIN_MAX_WAIT_S="0", GPUWIN_NO_WARM_UP="1"):
            at = open_page(page, {"over": "hidden_width", "val": "300"})  # settings nobody measured yet
    finally:
        release.set()
    assert not at.exception, [e.value for e in at.exception]
    assert "not measured live now" in page_text(at)
    assert at.get("vega_lite_chart"), "the recorded chart is drawn"
