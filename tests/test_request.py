"""A live request (lib.core.request.LiveRequest) is both the job the measuring process runs and the
key ui.measure caches its result under: the key is made from the job's own arguments."""

from __future__ import annotations

import pickle

import pytest

from lib.core.request import LiveRequest
from lib.core.worker import MeasureWorker
from lib.lessons.common.live import LiveBudget, LiveSweep, live_sweep
from lib.workloads import get_workload

MLP = get_workload("mlp")


def sweep(**budgets) -> LiveRequest:
    return LiveRequest.of(
        live_sweep,
        LiveSweep(MLP, "batch_size", [8, 32], {"hidden_width": 16}, ["cpu"], current=32),
        LiveBudget(num_threads=1, **budgets),
    )


def test_two_requests_differing_only_in_a_budget_are_two_keys():
    a, b = sweep(point_s=0.1, total_s=60.0), sweep(point_s=0.1, total_s=30.0)
    assert a != b and a.key != b.key and len({a, b}) == 2
    assert sweep(point_s=0.2, total_s=60.0).key != a.key
    same = sweep(total_s=60.0, point_s=0.1)  # keyword order does not matter
    assert same == a and hash(same) == hash(a) and same.key == a.key


def test_the_key_names_the_job_the_workload_and_every_argument():
    request = sweep(point_s=0.1)
    assert "lib.lessons.common.live.live_sweep" in request.key and '{"workload": "mlp"}' in request.key
    settings = MLP.resolve({"batch_size": 8})
    assert LiveRequest.of(live_sweep, settings).key != LiveRequest.of(live_sweep, MLP.resolve({"batch_size": 16})).key
    assert LiveRequest.of(live_sweep, settings) == LiveRequest.of(live_sweep, MLP.resolve({"batch_size": 8}))


def test_the_live_work_caps_the_job_reads_are_in_its_key(monkeypatch):
    before = sweep(point_s=0.1)
    monkeypatch.setenv("GPUWIN_LIVE_MAX_GFLOP_CPU", "1")
    assert sweep(point_s=0.1).key != before.key


def test_a_callers_dict_changed_later_changes_neither_the_job_nor_the_key():
    fixed = {"hidden_width": 16}
    request = LiveRequest.of(live_sweep, LiveSweep(MLP, "batch_size", [8], fixed, ["cpu"]))
    key = request.key
    fixed["hidden_width"] = 1024
    assert request.key == key and request.args[0].fixed == {"hidden_width": 16}


@pytest.mark.slow
def test_a_request_is_the_job_the_measuring_process_runs():
    request = sweep(point_s=0.01, total_s=20.0)
    again = pickle.loads(pickle.dumps(request))  # how it reaches the measuring process
    assert again == request and again.key == request.key
    worker = MeasureWorker()
    try:
        seen: list[float] = []
        points = worker.run(request, progress=lambda f, m: seen.append(f))
    finally:
        worker.stop()
    assert [p.settings["batch_size"] for p in points] == [8, 32] and all(p.status == "ok" for p in points) and seen
    assert {p.settings["hidden_width"] for p in points} == {16} and {p.counts.num_threads for p in points} == {1}
