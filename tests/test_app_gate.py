"""The Training page behind the one live gate (issue 26, item 3 and probe finding 2), through AppTest.

/training?batch_size=16384&hidden_width=4096&depth=2 used to refuse the sweep's point and then run
the very same 831 GFLOP step live in the timeline expander (120 s of CPU on a 2-core server). Here
the measuring process runs each job in this test's process (so its builds can be counted), and the
page must show the same refusal in both places with no step built.
"""

from __future__ import annotations

import pytest
from app_support import open_page, page_text

from lib.core.gate import FALLBACK_MEMORY_CAP_GB
from lib.core.heap import process_rss_bytes
from lib.workloads import WORKLOADS

PAGE = "pages/training.py"
BIG = {"batch_size": "16384", "hidden_width": "4096", "depth": "2"}


@pytest.fixture
def in_process(tmp_path, monkeypatch):
    """Jobs run here, not in the measuring process, and every step built is counted."""
    from ui import measure
    from ui.measure import MEASURE_WORKER

    measure._store.clear()  # no live result kept by an earlier test in this process, measured under other limits
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    # The gate's memory question counts what the process running the job holds: here this test process, with what
    # earlier tests left in it (2 GB in a parallel run's worker, so the 1.5 GB step broke the memory cap before the
    # work cap). The cap grows by what this process holds now, so which tests ran here before does not decide it.
    held_gb = process_rss_bytes() / 1e9
    monkeypatch.setenv("GPUWIN_MEMORY_CAP_GB", f"{FALLBACK_MEMORY_CAP_GB + held_gb:.2f}")
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")
    jobs, built = [], {"n": 0, "settings": []}

    def run(job, *, progress=None, on_point=None):
        jobs.append(getattr(job, "job", getattr(job, "func", job)).__name__)  # a LiveRequest, or a partial
        callbacks = {k: v for k, v in (("progress", progress), ("on_point", on_point)) if v is not None}
        return job(**callbacks)

    monkeypatch.setattr(MEASURE_WORKER, "run", run)
    for workload in WORKLOADS.values():

        def counted(settings, device, _build=workload.build):
            built["n"] += 1
            built["settings"].append(dict(settings))
            return _build(settings, device)

        monkeypatch.setattr(workload, "build", counted)
    return jobs, built


@pytest.mark.slow
def test_the_timeline_expander_refuses_what_the_sweep_refuses_and_builds_nothing_there(in_process):
    from ui.step_story import TIMELINE_KEY

    jobs, built = in_process
    at = open_page(PAGE, BIG)
    assert not at.exception, [e.value for e in at.exception]
    # closed, the expander runs nothing (issue 25: its live timeline was measured on every visit, for the few who open it)
    assert "live_timeline" not in jobs, jobs
    at.session_state[TIMELINE_KEY] = True  # the visitor opens it
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "live_timeline" in jobs  # the page asked for it: the gate, not the page, said no
    big = [s for s in built["settings"] if s["batch_size"] == 16384 and s["hidden_width"] == 4096]
    assert big == []  # neither the sweep nor the timeline built the 831 GFLOP step
    text = page_text(at)
    refusal = (
        "about 831 GFLOP per step, more than the 3 GFLOP a live run on cpu may take here; not run "
        "(see the recorded results, or run it with the CLI)"
    )
    assert f"CPU · this server (live): {refusal}" in text  # the timeline's note
    assert f"batch size 16,384: {refusal}" in text  # the sweep's note, word for word the same
