"""Three visitors ask for measurements at once with different settings: one measures at a time
(the lock's record shows no overlapping intervals), the others wait, all three get their results.

This drives ui.measure.measure_sweep -- the function the Training page calls -- from three threads
(Streamlit's AppTest cannot run in several threads at once: each run swaps a process-wide runtime).
tests/test_browser.py has the same scenario end to end: three browser tabs against one server.
"""

from __future__ import annotations

import threading
import time

from lib.core.measure_lock import MEASURE_LOCK, overlapping
from lib.workloads import get_workload
from ui.measure import WARM_UP_LABEL, measure_sweep

MLP = get_workload("mlp")
# settings no other test uses, so nothing is cached yet
VISITORS = [{"hidden_width": 16, "dataset_size": 512}, {"hidden_width": 8, "dataset_size": 512},
            {"depth": 2, "dataset_size": 1024}]


def test_three_visitors_measure_one_at_a_time():
    results: dict[int, list[dict]] = {}
    errors: dict[int, BaseException] = {}
    go = threading.Barrier(len(VISITORS))

    def visit(i: int, fixed: dict) -> None:
        try:
            go.wait()
            results[i] = measure_sweep(MLP, "batch_size", [8, 32], fixed, ["cpu"], current=32,
                                       point_budget_s=0.03, num_threads=1)
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
        rows = results[i]
        assert [r["status"] for r in rows] == ["ok", "ok"], rows
        assert all(r[k] == v for r in rows for k, v in fixed.items())
        assert rows[1]["kernels"] > 0  # the current point was profiled too

    everything = [h for h in MEASURE_LOCK.record() if h.start >= started and h.end is not None]
    assert not overlapping(everything), [(h.label, h.start, h.end) for h in everything]
    ours = [h for h in everything if h.label != WARM_UP_LABEL]
    assert len(ours) == 3, [h.label for h in ours]
    assert sorted(h.thread for h in ours) == ["visitor-0", "visitor-1", "visitor-2"]
    assert len([h for h in ours if h.waited_s > 0.01]) >= 2  # the two who found it taken waited

    # a fourth visitor with the same settings as the first gets the cached rows at once
    again = time.perf_counter()
    assert measure_sweep(MLP, "batch_size", [8, 32], VISITORS[0], ["cpu"], current=32,
                         point_budget_s=0.03, num_threads=1) == results[0]
    assert time.perf_counter() - again < 0.5
    assert len([h for h in MEASURE_LOCK.record() if h.start >= again]) == 0  # no measurement, no lock
