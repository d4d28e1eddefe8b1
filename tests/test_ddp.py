"""The multi-GPU lesson: DistributedDataParallel through torchrun, rows, scaling, the page.

Every measurement here is a real torchrun launch of real processes (gloo on the CPU); the
2-GPU test runs on the GPU machine only. Kept small: each launch costs a few seconds here.
"""

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from lib.core.crossover import CrossKind
from lib.core.gate import recording_gate
from lib.core.point import points_of
from lib.core.results import load_pack, setting_keys, validate_pack, validate_row
from lib.core.rows import Status
from lib.core.sweep import RunRequest, measure_point, resolve_points, run_points
from lib.core.workload import Launch
from lib.lessons.multi_gpu import scaling
from lib.workloads import get_workload
from lib.workloads.ddp import WORKLOAD
from lib.workloads.ddp.efficiency import with_scaling_efficiency
from lib.workloads.ddp.launch import available_cores, child_env, launch
from lib.workloads.ddp.messages import DDPResult, Timed
from lib.workloads.ddp.models import DDPSettings, build_model

ROOT = Path(__file__).resolve().parents[1]
SMALL_MLP = ["--set", "model=mlp", "--set", "hidden_width=32", "--set", "depth=2", "--set", "input_features=16"]
MEASURED = (
    "samples_per_s",
    "phase_compute_s",
    "phase_comm_s",
    "grad_bytes",
    "allreduce_s",
    "allreduce_gbps",
    "cold_s",
    "calls_per_repeat",
    "num_threads",
    "flops",
)


def cli(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "lib", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


_RECORDED: dict[str, Path] = {}  # made once per test process: tests/test_app_multi_gpu.py reads it too


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A pack made the way scripts/record_ddp.sh makes one: a batch sweep per process count
    through the CLI, then `python -m lib merge` (1 and 2 processes where 2 cores exist)."""
    if "pack" not in _RECORDED:
        _RECORDED["pack"] = _record(tmp_path_factory.mktemp("ddp_record"))
    return _RECORDED["pack"]


def _record(folder: Path) -> Path:
    counts = [1, 2] if available_cores() >= 2 else [1]
    runs = []
    for n in counts:
        run = folder / f"run_g{n}.json"
        out = cli(
            "sweep",
            "ddp",
            "--over",
            "batch_size=8,64",
            *SMALL_MLP,
            "--set",
            f"gpus={n}",
            "--budget",
            "0.1",
            "--quiet",
            "--out",
            str(run),
        )
        assert out.returncode == 0, out.stderr
        runs.append(str(run))
    merged = folder / "cpux2_ddp.json"
    out = cli("merge", str(merged), *runs)
    assert out.returncode == 0, out.stderr
    rows = 2 * len(counts)
    assert out.stdout.startswith(f"wrote {merged}: {rows} rows ({rows} ok) from {len(counts)} run(s)")
    return merged


def test_ddp_is_registered_and_times_its_points_through_a_launch():
    assert get_workload("ddp") is WORKLOAD
    assert isinstance(WORKLOAD.launch, Launch)
    # one sweep engine: the workload keeps no loop of its own
    assert not any(hasattr(WORKLOAD, name) for name in ("run_sweep", "measure_points", "measure_point"))


@pytest.mark.slow
def test_the_workload_package_stays_on_its_floor_and_names_its_worker():
    # Run in a fresh interpreter: this one has the lessons loaded already.
    code = (
        "import importlib.util, sys\n"
        "from lib.workloads.ddp.launch import ROOT, WORKER_MODULE\n"
        "import lib.workloads.ddp.demo, lib.workloads.ddp.worker\n"
        "print(importlib.util.find_spec(WORKER_MODULE).origin, ROOT)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('lib.lessons', 'lib.charts', 'streamlit', 'altair'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    origin_and_root, above = out.stdout.splitlines()
    assert origin_and_root == f"{ROOT / 'lib' / 'workloads' / 'ddp' / 'worker.py'} {ROOT}"
    assert above == "[]"


@pytest.mark.slow
def test_cli_sweep_over_gpus_measures_one_process_and_skips_what_is_absent(tmp_path):
    too_many = available_cores() + 1
    pack_path = tmp_path / "gpus.json"
    out = cli(
        "sweep",
        "ddp",
        "--over",
        f"gpus=1,{too_many}",
        "--set",
        "model=cnn",
        "--set",
        "width=4",
        "--set",
        "batch_size=4",
        "--budget",
        "0.1",
        "--quiet",
        "--out",
        str(pack_path),
    )
    assert out.returncode == 0, out.stderr
    rows = load_pack(pack_path)["rows"]
    assert [r["gpus"] for r in rows] == [1, too_many]
    one, absent = rows
    assert one["status"] == "ok", one["message"]
    assert one["model"] == "cnn" and one["backend"] == "gloo" and one["device"] == "cpu" and one["swept"] == "gpus"
    for key in MEASURED:
        assert isinstance(one[key], (int, float)) and one[key] >= 0, key
    assert one["repeats"] >= 3 and one["median_s"] > 0
    assert one["samples_per_s"] == pytest.approx(4 / one["median_s"])
    assert one["scaling_efficiency"] == pytest.approx(1.0)
    assert one["phase_compute_s"] + one["phase_comm_s"] >= one["median_s"] * 0.999
    params = sum(
        p.numel() for p in build_model(DDPSettings.of(WORKLOAD.resolve({"model": "cnn", "width": 4}))).parameters()
    )
    assert one["grad_bytes"] == params * 4
    assert "peak_memory_bytes" not in one  # measured on GPUs only
    # Measured numbers are fields, not settings: the settings are exactly the workload's.
    assert set(setting_keys(one)) == {s.name for s in WORKLOAD.settings}
    assert absent["status"] == "skipped" and absent["median_s"] is None
    assert f"need {too_many} cores" in absent["message"]
    for row in rows:
        validate_row(row, "row")


@pytest.mark.slow
def test_cli_run_ddp_prints_a_row(tmp_path):
    out = cli("run", "ddp", *SMALL_MLP, "--set", "batch_size=4", "--budget", "0.05", "--out", str(tmp_path / "r.json"))
    assert out.returncode == 0, out.stderr
    row = load_pack(tmp_path / "r.json")["rows"][0]
    assert row["status"] == "ok" and row["workload"] == "ddp" and row["gpus"] == 1
    assert "ok" in out.stdout


def test_more_gpus_than_present_on_cuda_is_skipped_with_a_message():
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    point = measure_point(WORKLOAD, {"gpus": count + 1}, "cuda")
    validate_row(point.to_row(), "row")
    assert point.status == Status.SKIPPED and point.repeats == 0 and point.median_s is None
    expected = "CUDA is not available" if count == 0 else f"this machine has {count} GPU(s)"
    assert expected in point.message and "not run" in point.message


def test_children_always_run_with_nvlink_multicast_off(monkeypatch):
    monkeypatch.setenv("NCCL_NVLS_ENABLE", "1")
    env = child_env(threads=1)
    assert env["NCCL_NVLS_ENABLE"] == "0"
    assert env["TORCH_SYMM_MEM_DISABLE_MULTICAST"] == "1" and env["NVSHMEM_DISABLE_NVLS"] == "1"
    assert env["OMP_NUM_THREADS"] == "1" and str(ROOT) in env["PYTHONPATH"].split(os.pathsep)
    script = (ROOT / "scripts" / "record_ddp.sh").read_text()
    assert "export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1" in script


def test_bad_settings_become_points_without_a_launch():
    # NCCL on the CPU is a point this device cannot run: refused by the gate, like CUDA graphs on a CPU
    point = measure_point(WORKLOAD, {"backend": "nccl"}, "cpu")
    assert point.status == Status.SKIPPED and "nccl needs CUDA" in point.message and point.settings["backend"] == "nccl"
    validate_row(point.to_row(), "row")
    point = measure_point(WORKLOAD, {"model": "transformer"}, "cpu")
    assert point.status == Status.ERROR and "model" in point.message
    validate_row(point.to_row(), "row")


def test_points_sharing_a_process_count_share_one_launch(monkeypatch):
    """The engine hands the Launch one group per (device, processes, backend), in order; refused
    points never reach it, and the time budget is handed on as the launch's deadline."""
    import lib.workloads.ddp.launch as torchrun

    calls = []

    def fake_launch(points, kind, gpus, backend, **options):
        calls.append(([p.batch_size for p in points], kind, gpus, backend, options["deadline_s"]))
        return [DDPResult(Status.OK, step=Timed(0.5, 0.01, 3, 1, 0.5)) for _ in points]

    monkeypatch.setattr(torchrun, "launch", fake_launch)
    too_many = available_cores() + 1
    points = resolve_points(WORKLOAD, [{"gpus": g, "batch_size": b} for g in (1, too_many) for b in (8, 16)])
    done = run_points(
        RunRequest(WORKLOAD, points, ["cpu"], point_budget_s=0.1, gate=recording_gate(memory_cap_gb=None, budget_s=60))
    )
    assert [(c[0], c[1], c[2], c[3]) for c in calls] == [([8, 16], "cpu", 1, "gloo")]
    assert 0 < calls[0][4] <= 60
    assert [p.status for p in done] == [Status.OK, Status.OK, Status.SKIPPED, Status.SKIPPED]
    assert done[0].counts.samples_per_s == pytest.approx(8 / 0.5) and done[0].counts.scaling_efficiency == 1.0
    assert done[0].counts.achieved_flops_per_s == pytest.approx(done[0].counts.flops / 0.5)
    # a budget already used up launches nothing and says so in the gate's words
    calls.clear()
    spent = recording_gate(memory_cap_gb=None, budget_s=1e-9)
    done = run_points(RunRequest(WORKLOAD, points[:2], ["cpu"], gate=spent))
    assert calls == [] and all(p.status == Status.SKIPPED and "time budget" in p.message for p in done)


@pytest.mark.slow
def test_a_failing_child_gives_an_error_with_its_last_stderr_line():
    # No classes to draw labels from: every rank raises inside the worker, in torch.randint.
    point = DDPSettings.of(WORKLOAD.resolve({"model": "mlp", "hidden_width": 8, "depth": 1, "input_features": 4}))
    result = launch([replace(point, backend="gloo", classes=0)], "cpu", 1, "gloo", budget_s=0.05, threads=1)
    assert result == [
        DDPResult(Status.ERROR, "RuntimeError: random_ expects 'from' to be less than 'to', but got from=0 >= to=0")
    ]


def test_a_launch_that_runs_past_its_timeout_is_stopped():
    params = DDPSettings.of(WORKLOAD.resolve({"model": "mlp", "hidden_width": 8, "depth": 1, "input_features": 4}))
    params = replace(params, backend="gloo")
    result = launch([params, params], "cpu", 1, "gloo", budget_s=0.05, threads=1, timeout_s=1.0)
    assert [r.status for r in result] == [Status.ERROR, Status.ERROR]
    assert result[0].message == "timed out after 1 s"
    assert "timed out" in result[1].message


@pytest.mark.slow
def test_scaling_efficiency_from_measured_rows(recorded):
    rows = load_pack(recorded)["rows"]
    assert all(r["status"] == "ok" for r in rows), [r["message"] for r in rows]
    by = {(r["gpus"], r["batch_size"]): r for r in rows}
    for (gpus, batch), row in by.items():
        one = by[(1, batch)]
        expected = row["samples_per_s"] / (gpus * one["samples_per_s"])
        assert row["scaling_efficiency"] == pytest.approx(expected)
        if gpus == 1:
            assert row["scaling_efficiency"] == 1.0
    # Recomputing never mixes experiments: a changed setting has no gpus=1 twin, so no efficiency.
    changed = [{**r, "hidden_width": 99} if r["gpus"] > 1 else dict(r) for r in rows]
    for point in with_scaling_efficiency(points_of(changed)):
        assert (point.counts.scaling_efficiency is not None) == (point.settings["gpus"] == 1)
    validate_pack(load_pack(recorded))


@pytest.mark.slow
def test_crossover_and_explanation_read_the_rows(recorded):
    records = scaling.table(points_of(load_pack(recorded)["rows"]), "mlp")
    assert {d.gpus for d in records} >= {1}
    for n in sorted({d.gpus for d in records} - {1}):
        for axis in scaling.X_AXES:
            c = scaling.crossover(records, n, axis)
            # rows measured live on a loaded 2-core box may cross back or trade the lead: every kind is worded
            assert c.kind in tuple(CrossKind)
            assert "2 processes" in scaling.crossover_sentence(c, n, axis, cpu=True).plain()
        lines = scaling.explanation(records, n, cpu=True)
        grad_mb = records[0].grad_mb
        assert f"{grad_mb:.3g} MB" in lines[0]
        small = min((d for d in records if d.gpus == n), key=lambda d: d.batch_size)
        ratio = small.allreduce_ms / small.compute_ms
        assert f"the exchange is {ratio:.2g}× the compute" in lines[1]


@pytest.mark.cuda
def test_two_gpus_through_nccl():
    if torch.cuda.device_count() < 2:
        pytest.skip("needs 2 GPUs")
    points = [{"gpus": n, "batch_size": 256, "model": "mlp", "hidden_width": 1024, "depth": 4} for n in (1, 2)]
    done = run_points(RunRequest(WORKLOAD, resolve_points(WORKLOAD, points), ["cuda"], point_budget_s=0.3))
    for point in done:
        validate_row(point.to_row(), "row")
        assert point.status == Status.OK, point.message
        assert point.settings["backend"] == "nccl" and point.counts.peak_memory_bytes > 0
        assert point.counts.allreduce_gbps > 0
    assert done[0].counts.scaling_efficiency == 1.0
    assert 0.2 < done[1].counts.scaling_efficiency < 1.3
