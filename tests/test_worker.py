"""The measuring process (lib.core.worker): jobs run there, their progress, points, results and errors
come back, a caller that gives up cancels its job, and a worker that dies is replaced."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import pytest

from lib.core.point import Point
from lib.core.worker import MeasureWorker, WorkerStopped
from lib.lessons.common.live import LiveBudget, LiveSweep, live_sweep
from lib.workloads import get_workload

MLP = get_workload("mlp")
SMALL = {"hidden_width": 16, "depth": 1, "dataset_size": 256}


def tiny_sweep(**budget) -> functools.partial:
    return functools.partial(
        live_sweep,
        LiveSweep(MLP, "batch_size", [1, 8, 64], SMALL, ["cpu"], current=8),
        LiveBudget(0.02, num_threads=1, **budget),
    )


@pytest.fixture(scope="module")
def worker():
    started = MeasureWorker()
    yield started
    started.stop()


@pytest.mark.slow
def test_a_sweep_runs_in_another_process_and_reports_as_it_goes(worker):
    progress, points = [], []
    result = worker.run(tiny_sweep(), progress=lambda f, m: progress.append((f, m)), on_point=points.append)
    assert worker.pid() not in (None, os.getpid())
    assert [p.settings["batch_size"] for p in result] == [1, 8, 64] and all(p.status == "ok" for p in result)
    # every point came back as soon as it was timed, in order (the point explained is profiled after every timing)
    assert all(isinstance(p, Point) for p in points) and [p.settings["batch_size"] for p in points] == [1, 8, 64]
    assert all(relayed.to_row().items() <= final.to_row().items() for relayed, final in zip(points, result))
    fractions = [f for f, _ in progress]
    assert fractions == sorted(fractions) and any("batch size 64" in m for _, m in progress)
    assert worker.run(functools.partial(sum, [1, 2, 3])) == 6  # no callbacks asked, none passed


def test_a_jobs_exception_is_raised_here_with_its_type(worker):
    with pytest.raises(Exception) as here:
        get_workload("no such workload")
    with pytest.raises(type(here.value), match="no such workload"):
        worker.run(functools.partial(get_workload, "no such workload"))
    assert worker.run(functools.partial(sum, [4, 5])) == 9  # still serving


class VisitorLeft(Exception):
    """What Streamlit raises in a script whose visitor left, at its next update."""


def test_a_caller_that_gives_up_cancels_its_job_and_the_next_answer_is_its_own(worker):
    calls = []

    def leave(fraction, message):
        calls.append(message)
        raise VisitorLeft

    with pytest.raises(VisitorLeft):
        worker.run(tiny_sweep(), progress=leave)
    assert len(calls) == 1  # cancelled at its next report, not run to the end
    points = worker.run(
        functools.partial(
            live_sweep, LiveSweep(MLP, "batch_size", [4], SMALL, ["cpu"]), LiveBudget(0.02, num_threads=1)
        )
    )
    assert [p.settings["batch_size"] for p in points] == [4]


def test_a_worker_that_dies_is_reported_and_replaced(worker):
    worker.start()
    pid = worker.pid()
    threading.Timer(0.5, lambda: os.kill(pid, signal.SIGKILL)).start()
    started = time.perf_counter()
    with pytest.raises(WorkerStopped, match="lack of memory"):
        worker.run(functools.partial(time.sleep, 30))
    assert time.perf_counter() - started < 10
    assert worker.run(functools.partial(sum, [1, 1])) == 2 and worker.pid() not in (None, pid)


def test_a_job_runs_under_the_callers_settings_of_the_moment(worker, monkeypatch):
    from lib.core.sweep import default_memory_cap_gb

    monkeypatch.setenv("GPUWIN_MEMORY_CAP_GB", "1.25")
    assert worker.run(functools.partial(default_memory_cap_gb)) == 1.25
    monkeypatch.delenv("GPUWIN_MEMORY_CAP_GB")
    assert worker.run(functools.partial(default_memory_cap_gb)) == default_memory_cap_gb() != 1.25


def test_a_main_script_without_a_guard_runs_once_and_gets_its_answer(tmp_path):
    """Spawn re-runs the parent's main script in a child; the worker is spawned without it, so a script
    without `if __name__ == '__main__'` runs once (it was: re-run in the worker, which refused to start a
    worker of its own, and the caller heard 'stopped')."""
    script = tmp_path / "no_guard.py"
    script.write_text(
        "import functools, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})\n"
        "from lib.core.worker import MeasureWorker\n"
        "print('the script ran')\n"
        "print('answer', MeasureWorker().run(functools.partial(sum, [1, 2])))\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines() == ["the script ran", "answer 3"], (done.stdout, done.stderr[-2000:])


def loaded(name: str) -> bool:
    """A job: whether the worker has imported `name`."""
    return name in sys.modules


def test_a_worker_started_after_a_page_ran_does_not_import_the_app(monkeypatch):
    """Streamlit's script runner leaves the page script installed as __main__ (the server's warm-up starts
    the worker from a page's run): the worker re-ran streamlit_app.py, importing Streamlit and the app."""
    page = types.ModuleType("__main__")
    page.__file__ = str(Path(__file__).resolve().parents[1] / "streamlit_app.py")
    monkeypatch.setitem(sys.modules, "__main__", page)
    fresh = MeasureWorker()
    try:
        assert fresh.run(functools.partial(loaded, "lib.core.worker")) is True  # the job ran there
        assert fresh.run(functools.partial(loaded, "streamlit")) is False
    finally:
        fresh.stop()
    assert sys.modules["__main__"] is page  # the parent's own left as it was


def start_method() -> str:
    """A job: how the processes it starts (DataLoader workers) are started."""
    import multiprocessing

    return multiprocessing.get_start_method()


def test_a_jobs_own_processes_start_as_a_scripts_do_on_this_platform(worker):
    """The worker is spawned, and a spawned process spawns its own children too: each DataLoader worker of a live
    point imported torch and torchvision again (5.9 s against 0.6 s for the first epoch of 2 workers on the 2-core
    box, 350 MB a worker the gate never counted), unlike the CLI's, which a recorded pack's points come from."""
    script = subprocess.run(
        [sys.executable, "-c", "import multiprocessing; print(multiprocessing.get_start_method())"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert worker.run(functools.partial(start_method)) == script.stdout.strip()


@pytest.mark.cuda
def test_a_live_gpu_sweep_runs_in_the_measuring_process(worker):
    # a server with a GPU times both devices live through the worker (spawned, so CUDA starts there)
    points = worker.run(
        functools.partial(
            live_sweep,
            LiveSweep(MLP, "batch_size", [1, 64], SMALL, ["cpu", "cuda:0"], current=64),
            LiveBudget(0.05, num_threads=1),
        )
    )
    run = {(p.settings["batch_size"], p.device) for p in points}
    assert run == {(1, "cpu"), (1, "cuda:0"), (64, "cpu"), (64, "cuda:0")}
    assert all(p.status == "ok" and p.median_s > 0 for p in points)
