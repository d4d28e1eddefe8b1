"""One gate for every live run (issue 26, item 3; probe findings 2, 3 and 10).

Every path that runs live work is driven with sizes above each limit (work per step, memory, time)
and must refuse every point with the gate's own sentence for it, and build nothing: each
workload's `build` is wrapped to count calls, and the count stays at zero.
"""

from __future__ import annotations

import functools

import pytest

from lib.core.gate import Gate, Limit, live_gate, recording_gate
from lib.core.point import rows_of
from lib.core.rows import Status
from lib.core.sweep import measure_point, run_sweep
from lib.lessons.common.live import LiveBudget, LiveSweep, live_sweep, live_timeline
from lib.lessons.data_pipeline import view as pipeline_lesson
from lib.lessons.jacobian import view as jacobian_lesson
from lib.lessons.seed_cases import view as seed_cases
from lib.lessons.timing import view as timing_lesson
from lib.workloads import WORKLOADS, get_workload
from lib.workloads.presets import get_preset
from tests.app_support import env

MLP = get_workload("mlp")
# the probe's point: about 831 GFLOP a step, refused by the sweep but run by the timeline before the gate
BIG = {"batch_size": 16384, "hidden_width": 4096, "depth": 2}

# each limit set so that every point of every path is above it
LIMITS = {
    Limit.WORK: {"GPUWIN_LIVE_MAX_GFLOP_CPU": "0.000000001"},
    Limit.MEMORY: {"GPUWIN_MEMORY_CAP_GB": "0.001"},  # below the process's own memory
    Limit.TIME: {"GPUWIN_LIVE_BUDGET_S": "0"},
}


@pytest.fixture
def builds(monkeypatch):
    """How many steps each path built: every registered workload's build, counted."""
    count = {"n": 0}
    for workload in WORKLOADS.values():

        def counted(*args, _build=workload.build, **kwargs):
            count["n"] += 1
            return _build(*args, **kwargs)

        monkeypatch.setattr(workload, "build", counted)
    return count


def _settings(workload_name: str, row: dict):
    workload = get_workload(workload_name)
    return workload, workload.resolve({s.name: row[s.name] for s in workload.settings if s.name in row})


def _expected(workload_name: str, row: dict) -> str:
    workload, settings = _settings(workload_name, row)
    return live_gate(budget_s=None).check(workload, settings, row["device"]).message


# Each path a page takes to run live work, as the page calls it (in the measuring process).
PATHS = {
    "training sweep": lambda: rows_of(
        live_sweep(LiveSweep(MLP, "batch_size", [BIG["batch_size"]], BIG, ["cpu"], current=16384), LiveBudget(0.01))
    ),
    "training timeline": lambda: [_flat(live_timeline(MLP, MLP.resolve(BIG), "cpu", num_threads=1).as_json())],
    "jacobian": lambda: jacobian_lesson.live_rows("loop", [100], ["cpu"], current=100, point_budget_s=0.01),
    "timing pitfalls": lambda: timing_lesson.live_rows(
        timing_lesson.variant_of(True, False, False), ["cpu"], current=None, point_budget_s=0.01
    ),
    "data pipeline": lambda: rows_of(
        pipeline_lesson.live_points(
            "batch_size",
            [128],
            [
                pipeline_lesson.FeedSettings(feed, pipeline_lesson.Settings(dataset_size=2048))
                for feed in ("images", "tensors")
            ],
            ["cpu"],
            current=128,
            budget=LiveBudget(0.01, 60, 1),
        )
    ),
    "seed case": lambda: _seed_entries("mnist_100rows"),
}


def _flat(entry: dict) -> dict:
    return {**entry, **entry["settings"]}


def _seed_entries(name: str) -> list[dict]:
    live = seed_cases.measure_live(get_preset(name), ["cpu"], budget_s=0.01, num_threads=1)
    return [{**p.to_row(), "workload": get_preset(name).workload} for p in live.points] + [
        {**_flat(c.entry()), "workload": get_preset(name).workload} for c in live.curves.values()
    ]


@pytest.mark.parametrize("limit", list(LIMITS), ids=str)
@pytest.mark.parametrize("path", list(PATHS))
def test_every_live_path_refuses_above_each_limit_with_the_gates_sentence_and_builds_nothing(path, limit, builds):
    with env(**LIMITS[limit]):
        rows = PATHS[path]()
        assert rows and builds["n"] == 0, f"{path} built {builds['n']} steps over the {limit} limit"
        for row in rows:
            assert row["status"] == "skipped", row
            assert row["message"] == _expected(row.get("workload", "mlp"), row), (path, row["message"])
        assert builds["n"] == 0


def test_the_timeline_is_refused_where_the_sweep_is_with_the_same_words(builds):
    """Probe: the sweep refused the 831 GFLOP step, the timeline expander ran it (120 s of CPU)."""
    sweep = live_sweep(LiveSweep(MLP, "batch_size", [16384], BIG, ["cpu"], current=16384), LiveBudget(0.01))[0]
    timeline = live_timeline(MLP, MLP.resolve(BIG), "cpu", num_threads=1)
    assert sweep.status == timeline.status == "skipped"
    assert timeline.message == sweep.message and "831 GFLOP per step" in sweep.message
    assert timeline.refused == Limit.WORK and builds["n"] == 0


def test_the_timeline_stops_at_its_time_budget_and_when_its_visitor_left():
    small = MLP.resolve({"hidden_width": 256})
    with env(GPUWIN_LIVE_BUDGET_S="0.05"):
        slow = live_timeline(MLP, small, "cpu", num_threads=1, steps=200)
    assert slow.status == "skipped" and "time budget of 0.05 s used up before step" in slow.message
    assert not slow.steps

    class Left(Exception):
        pass

    calls = []

    def progress(fraction, message):
        calls.append(message)
        if len(calls) == 2:
            raise Left  # what the measuring process raises for a visitor who left (lib.core.worker.Cancelled)

    with pytest.raises(Left):
        live_timeline(MLP, small, "cpu", num_threads=1, progress=progress)
    assert len(calls) == 2  # stopped at its next report, not after its steps


@pytest.mark.slow
def test_the_timeline_is_cancelled_in_the_measuring_process_at_its_next_report():
    from lib.core.worker import Cancelled, MeasureWorker

    worker = MeasureWorker()
    seen = []

    def leave(fraction, message):
        seen.append(message)
        raise RuntimeError("the visitor left")  # Streamlit stops the script: the callback raises

    try:
        job = functools.partial(live_timeline, MLP, MLP.resolve({"hidden_width": 512}), "cpu", num_threads=1, steps=50)
        with pytest.raises(RuntimeError, match="visitor left"):
            worker.run(job, progress=leave)
        assert len(seen) == 1
        # the worker is free for the next job at once (the timeline stopped at its next report)
        assert worker.run(functools.partial(sum, [1, 2])) == 3
    finally:
        worker.stop()
    assert Cancelled


def test_refusal_numbers_never_read_the_same():
    """Probe finding 10: 'needs about 2.7 GB, more than the 2.7 GB memory cap'."""

    class Sized:
        name = "sized"

        def __init__(self, nbytes: float) -> None:
            self.nbytes = nbytes

        def refusal(self, settings, device):
            return None

        def peak_memory_bytes(self, settings, device):
            return self.nbytes

        def flops(self, settings):
            return 0.0

    gate = Gate(memory_cap_gb=2.7)
    assert (
        gate.check(Sized(2.74e9), {}, "cpu").message == "needs about 2.74 GB, more than the 2.70 GB memory cap; not run"
    )
    assert gate.check(Sized(3.4e9), {}, "cpu").message == "needs about 3.4 GB, more than the 2.7 GB memory cap; not run"
    assert gate.check(Sized(2.7000001e9), {}, "cpu").message == "needs just over the 2.700000 GB memory cap; not run"
    held = Gate(memory_cap_gb=2.7, baseline_bytes=0.8e9).check(Sized(1.92e9), {}, "cpu").message
    assert held == (
        "needs about 2.72 GB, more than the 2.70 GB memory cap (1.92 GB for this point on top of the "
        "0.8 GB this process already holds); not run"
    )


def test_the_memory_cap_counts_what_the_process_already_holds():
    """Probe finding 3: a 2.16 GB estimate took the measuring process from 0.8 to 3.43 GB under a 2.7 GB cap."""
    point = MLP.resolve({"hidden_width": 4096})
    estimate = MLP.peak_memory_bytes(point, "cpu")
    cap_gb = (estimate + 0.5e9) / 1e9
    assert Gate(memory_cap_gb=cap_gb, baseline_bytes=0).check(MLP, point, "cpu") is None
    refusal = Gate(memory_cap_gb=cap_gb, baseline_bytes=0.8e9).check(MLP, point, "cpu")
    assert refusal.limit is Limit.MEMORY and "0.8 GB this process already holds" in refusal.message
    assert live_gate().baseline_bytes > 100e6  # the live gate reads this process's own memory


def test_the_cli_asks_the_same_gate_with_its_own_limits(builds, capsys):
    from lib.__main__ import main

    assert (
        main(
            [
                "run",
                "mlp",
                *sum((["--set", f"{k}={v}"] for k, v in BIG.items()), []),
                "--max-gflop",
                "cpu=3",
                "--no-check",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    expected = recording_gate(memory_cap_gb=None, max_flops={"cpu": 3e9}).check(MLP, MLP.resolve(BIG), "cpu")
    assert expected.message in printed and "this recording allows on cpu" in printed
    points = run_sweep(MLP, "batch_size", [16384], BIG, ["cpu"], gate=recording_gate(memory_cap_gb=None, budget_s=0))
    assert points[0].message.startswith("time budget of 0 s used up") and builds["n"] == 0
    point = measure_point(MLP, BIG, "cpu", memory_cap_gb=0.001)
    assert point.status == Status.SKIPPED and "memory cap" in point.message and builds["n"] == 0


def test_the_data_pipelines_work_is_per_epoch_not_per_step():
    """Issue 23: `/data_pipeline?over=dataset_size&model=mlp&batch_size=256&dataset_size=2048` refused the live
    CPU with "about 5.09 GFLOP per step": one call of that workload is a whole epoch (2,048 rows, 8 steps)."""
    workload = get_workload("dataloader")
    settings = workload.resolve({"model": "mlp", "batch_size": 256, "dataset_size": 2048})
    refusal = Gate(max_flops={"cpu": 3e9}).check(workload, settings, "cpu")
    assert refusal is not None and refusal.limit == Limit.WORK
    assert "about 5.09 GFLOP per epoch, more than the 3 GFLOP" in refusal.message, refusal.message
    matmul = timing_lesson.WORKLOAD
    assert "GFLOP per step" in Gate(max_flops={"cpu": 3e9}).check(matmul, matmul.resolve({"size": 4096}), "cpu").message
