"""dataloader workload: images through PIL vs tensors on the device, workers, phases, fallbacks."""

import json
import multiprocessing
import time

import pytest

from lib.__main__ import main
from lib.core.rows import Status
from lib.core.sweep import measure_point
from lib.core.timing import cpu_threads
from lib.core.workload import RUNTIME_BYTES
from lib.workloads import datasets, get_workload

LOADER = get_workload("dataloader")


@pytest.fixture(autouse=True)
def one_cpu_thread():
    """Tiny ops gain nothing from a second thread, and on a shared 2-core box they can lose a lot."""
    with cpu_threads(1):
        yield


@pytest.mark.slow
def test_cli_runs_one_epoch_with_loading_and_compute_phases(tmp_path, capsys):
    out = tmp_path / "p.json"
    rc = main(
        [
            "run",
            "dataloader",
            "--set",
            "dataset_size=256",
            "--set",
            "batch_size=64",
            "--budget",
            "0.05",
            "--threads",
            "1",
            "--out",
            str(out),
        ]
    )
    assert rc == 0, capsys.readouterr()
    (row,) = json.loads(out.read_text())["rows"]
    assert row["status"] == "ok", row["message"]
    assert row["batches_per_epoch"] == 4 and row["dataset_size"] == 256
    assert row["phase_loading_s"] > 0 and row["phase_compute_s"] > 0


@pytest.mark.serial  # a wall-clock bound on one epoch
def test_default_epoch_is_well_under_a_second_on_the_cpu():
    step = LOADER.build(LOADER.resolve({}), "cpu")
    step.run()  # warm
    started = time.perf_counter()
    step.run()
    assert time.perf_counter() - started < 1.5
    assert LOADER.defaults()["dataset_size"] == 2048


def test_images_and_tensors_give_the_same_training_without_shuffling():
    """The PIL pipeline and the preload hold the same numbers, so the epochs' losses agree."""
    common = {"dataset_size": 192, "batch_size": 64, "shuffle": False}
    curves = {}
    for source in ("images", "tensors"):
        step = LOADER.build(LOADER.resolve({**common, "source": source}), "cpu")
        step.check()
        for _ in range(3):
            step.run()
        curves[source] = step.extras.epoch_losses
    assert curves["images"] == pytest.approx(curves["tensors"], rel=1e-5)
    assert curves["images"][-1] < curves["images"][0]


def test_workers_run_on_two_cores_and_are_stopped_by_close():
    before = set(multiprocessing.active_children())
    point = measure_point(
        LOADER,
        {"dataset_size": 256, "batch_size": 32, "num_workers": 2},
        "cpu",
        budget_s=0.05,
        num_threads=1,
        check=True,
    )
    assert point.status == Status.OK, point.message
    left = [p for p in multiprocessing.active_children() if p not in before]
    assert left == [], f"worker processes still running: {left}"


def test_workers_started_every_epoch_when_not_persistent():
    step = LOADER.build(
        LOADER.resolve({"dataset_size": 128, "batch_size": 64, "num_workers": 1, "persistent_workers": False}), "cpu"
    )
    try:
        step.run()
        step.run()
        assert len(step.extras.epoch_losses) == 2
    finally:
        step.close()


@pytest.mark.slow
def test_fakedata_source_checks_out():
    point = measure_point(
        LOADER,
        {"data": "fakedata", "dataset_size": 128, "batch_size": 64},
        "cpu",
        budget_s=0.05,
        num_threads=1,
        check=True,
    )
    assert point.status == Status.OK, point.message


def test_mnist_offline_falls_back_with_a_note(monkeypatch, tmp_path):
    monkeypatch.setattr(datasets, "_IMAGE_CACHE", {})
    monkeypatch.setenv("GPUWIN_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GPUWIN_OFFLINE", "1")
    point = measure_point(
        LOADER,
        {"data": "mnist", "model": "mlp", "optimizer": "adam", "lr": 0.001, "dataset_size": 128, "batch_size": 64},
        "cpu",
        budget_s=0.05,
        num_threads=1,
        check=True,
    )
    assert point.status == Status.OK, point.message
    assert "synthetic" in point.notes.data_note and "mnist" in point.notes.data_note


def test_pin_memory_on_the_cpu_is_a_noted_no_op():
    step = LOADER.build(LOADER.resolve({"dataset_size": 64, "batch_size": 32, "pin_memory": True}), "cpu")
    step.run()
    assert "CPU" in step.extras.note


def test_estimates_grow_with_the_data():
    small, big = LOADER.resolve({"dataset_size": 1000}), LOADER.resolve({"dataset_size": 100_000})
    assert LOADER.flops(big) == pytest.approx(100 * LOADER.flops(small))
    data = [LOADER.peak_memory_bytes(s, "cpu") - RUNTIME_BYTES for s in (small, big)]  # the fixed runtime share apart
    assert data[1] > 50 * data[0]
    assert LOADER.peak_memory_bytes(big, "cpu") > 100_000 * 784 * 4


@pytest.mark.cuda
@pytest.mark.parametrize("source", ["images", "tensors"])
def test_cuda_epoch_with_pinned_memory_and_workers(source):
    point = measure_point(
        LOADER,
        {"source": source, "dataset_size": 1024, "batch_size": 128, "num_workers": 2, "pin_memory": True},
        "cuda",
        budget_s=0.2,
        check=True,
    )
    assert point.status == Status.OK, point.message
    assert point.phases["loading"] > 0
