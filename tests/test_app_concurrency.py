"""Three visitors open the Training page at once with different settings: one measures at a time
(the lock's record shows no overlapping intervals), the others are told they wait, all three get
their results, none errors."""

from __future__ import annotations

import threading
import time

from app_support import chart_specs, open_page, page_text
from lib.measure_lock import MEASURE_LOCK, overlapping
from ui.measure import WARM_UP_LABEL

VISITORS = [{"hidden_width": "16", "dataset_size": "512"}, {"hidden_width": "8", "dataset_size": "512"},
            {"depth": "2", "dataset_size": "1024"}]  # settings no other test uses: nothing cached yet


def test_three_visitors_measure_one_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")
    results: dict[int, object] = {}
    errors: dict[int, BaseException] = {}
    go = threading.Barrier(len(VISITORS))

    def visit(i: int, query: dict[str, str]) -> None:
        try:
            go.wait()
            results[i] = open_page("pages/training.py", query)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors[i] = err

    started = time.perf_counter()
    threads = [threading.Thread(target=visit, args=(i, q), name=f"visitor-{i}") for i, q in enumerate(VISITORS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    assert not errors, errors
    assert sorted(results) == [0, 1, 2]

    for i, query in enumerate(VISITORS):
        at = results[i]
        assert not at.exception, [e.value for e in at.exception]
        assert len(chart_specs(at)) >= 2
        assert "per epoch" in page_text(at)
        for key, value in query.items():
            assert at.query_params[key] == value

    ours = [h for h in MEASURE_LOCK.record() if h.start >= started and h.end is not None and h.label != WARM_UP_LABEL]
    assert len(ours) == 3, [h.label for h in ours]
    assert not overlapping(ours), [(h.label, h.start, h.end) for h in ours]
    labels = " | ".join(h.label for h in ours)
    assert "hidden_width=16" in labels and "hidden_width=8" in labels and "depth=2" in labels
    # the two who found the lock taken waited, and their pages said so
    assert not overlapping([h for h in MEASURE_LOCK.record() if h.end is not None and h.start >= started])
    waited = [h for h in ours if h.waited_s > 0.05]
    assert len(waited) >= 2
    told = [i for i in results if "waited" in page_text(results[i]) and "another measurement" in page_text(results[i])]
    assert len(told) >= 2
