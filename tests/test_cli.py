import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from lib.core.devices import DeviceUnavailable, available_devices, machine_fingerprint, resolve_devices

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, cwd=ROOT):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "lib", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_help_lists_every_command():
    out = cli("--help")
    assert out.returncode == 0
    for command in ("devices", "run", "sweep", "crossover", "merge"):
        assert command in out.stdout


@pytest.mark.slow
def test_devices_lists_the_cpu_and_says_when_cuda_is_absent():
    out = cli("devices", "--json")
    assert out.returncode == 0
    assert out.stdout.startswith("cpu")
    if not torch.cuda.is_available():
        assert "CUDA is not available" in out.stdout
    assert '"torch_threads"' in out.stdout


@pytest.mark.slow
def test_sweep_writes_a_pack_that_crossover_reads(tmp_path):
    pack = tmp_path / "p.json"
    out = cli(
        "sweep",
        "mlp",
        "--over",
        "batch_size=1,16,256",
        "--set",
        "hidden_width=64",
        "--devices",
        "cpu",
        "--out",
        str(pack),
        "--budget",
        "0.1",
    )
    assert out.returncode == 0, out.stderr
    rows = json.loads(pack.read_text())["rows"]
    assert [r["batch_size"] for r in rows] == [1, 16, 256]
    assert all(r["hidden_width"] == 64 and r["status"] == "ok" for r in rows)
    assert "100%" in out.stderr  # progress was shown
    out = cli("crossover", str(pack))
    assert out.returncode == 0, out.stderr
    assert "mlp over batch_size" in out.stdout
    assert "cost model cpu" in out.stdout


@pytest.mark.slow
def test_crossover_of_a_grid_pack_says_what_it_holds_instead_of_a_traceback(tmp_path):
    pack = tmp_path / "grid.json"
    out = cli(
        "sweep",
        "mlp",
        "--over",
        "batch_size=1,16",
        "--over",
        "hidden_width=8,64",
        "--set",
        "dataset_size=64",
        "--devices",
        "cpu",
        "--out",
        str(pack),
        "--budget",
        "0.02",
        "--no-phases",
    )
    assert out.returncode == 0, out.stderr
    out = cli("crossover", str(pack))
    assert out.returncode == 0, out.stderr
    assert "mlp: a grid over batch_size, hidden_width on cpu (4 rows, 4 ok)" in out.stdout


@pytest.mark.slow
def test_run_checks_the_result_and_prints_a_row():
    out = cli("run", "mlp", "--set", "batch_size=8", "--set", "dataset_size=64", "--budget", "0.05")
    assert out.returncode == 0, out.stderr
    assert "ok" in out.stdout and "cpu" in out.stdout


def test_bad_input_gets_a_message_not_a_traceback(tmp_path):
    for args, words in [
        (("run", "mlp", "--set", "batch_size=lots"), "batch_size: expected int"),
        (("run", "mlp", "--set", "batch_size=0"), "below the minimum"),
        (("run", "nosuch"), "unknown workload"),
        (("crossover", str(tmp_path / "missing.json")), "No such file"),
    ]:
        out = cli(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert words in out.stderr
        assert "Traceback" not in out.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "machine": {"cpu_model": "x", "torch": "y", "date": "z"}, "rows": [{}]}')
    out = cli("crossover", str(bad))
    assert out.returncode == 2 and "rows[0].workload: missing" in out.stderr


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only message")
@pytest.mark.slow
def test_asking_for_cuda_without_a_gpu_says_so():
    out = cli("run", "mlp", "--devices", "cpu,cuda")
    assert out.returncode == 2
    assert "CUDA is not available on this machine" in out.stderr
    with pytest.raises(DeviceUnavailable):
        resolve_devices("cuda")


def test_device_resolution_and_fingerprint():
    assert available_devices()[0] == "cpu"
    assert resolve_devices("cpu, cpu") == ["cpu"]
    with pytest.raises(DeviceUnavailable, match="unknown device"):
        resolve_devices("tpu")
    fp = machine_fingerprint()
    for key in (
        "cpu_model",
        "cpu_cores",
        "torch_threads",
        "gpus",
        "driver",
        "torch",
        "cuda",
        "python",
        "date",
        "app_version",
        "label",
    ):
        assert key in fp


@pytest.mark.cuda
def test_cuda_sweep_through_the_cli_finds_devices(tmp_path):
    pack = tmp_path / "p.json"
    out = cli(
        "sweep",
        "mlp",
        "--over",
        "batch_size=1,256,16384",
        "--devices",
        "cpu,cuda",
        "--out",
        str(pack),
        "--budget",
        "0.2",
    )
    assert out.returncode == 0, out.stderr
    rows = json.loads(pack.read_text())["rows"]
    assert {r["device"] for r in rows} == {"cpu", "cuda:0"}
    assert all(r["status"] == "ok" for r in rows)
    assert resolve_devices("cuda") == ["cuda:0"]
    assert machine_fingerprint()["gpus"]


@pytest.mark.slow
def test_a_profiled_grid_is_profiled_after_every_point_is_timed(tmp_path, timing_events):
    # the CLI times a grid one point at a time; a CUDA trace between two timings would slow the later ones
    import lib.__main__ as cli

    out = tmp_path / "grid.json"
    assert (
        cli.main(
            [
                "sweep",
                "matmul",
                "--over",
                "size=64,128",
                "--over",
                "dtype=fp32,bf16",
                "--devices",
                "cpu",
                "--budget",
                "0.02",
                "--no-phases",
                "--profile",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert timing_events == ["time"] * 4 + ["profile"] * 4
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 4 and all(r["status"] == "ok" and r["kernels"] > 0 for r in rows)
