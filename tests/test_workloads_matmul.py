"""matmul workload: precision modes, the naive (unsynchronised) timer, transfer, the float64 check."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from lib.core.rows import Status
from lib.core.sweep import measure_point
from lib.workloads import get_workload
from lib.workloads.matmul import TOLERANCE, cuda_fp32_matmul, make_inputs, relative_error

MM = get_workload("matmul")
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_cli_subprocess_runs_matmul_and_reports_flops(tmp_path):
    out = tmp_path / "p.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "lib",
            "run",
            "matmul",
            "--set",
            "size=256",
            "--set",
            "dtype=bf16",
            "--budget",
            "0.05",
            "--threads",
            "1",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (row,) = json.loads(out.read_text())["rows"]
    assert row["status"] == "ok" and row["flops"] == 2 * 256**3
    assert row["achieved_flops_per_s"] == pytest.approx(row["flops"] / row["median_s"])
    assert row["cold_s"] > 0


@pytest.mark.parametrize("dtype", ["fp32", "tf32", "bf16"])
def test_each_precision_passes_the_float64_check(dtype):
    point = measure_point(MM, {"size": 192, "dtype": dtype}, "cpu", budget_s=0.05, num_threads=1, check=True)
    assert point.status == Status.OK, point.message
    assert ("TF32" in (point.notes.note or "")) == (dtype == "tf32")  # on the CPU, tf32 is plain fp32


def test_the_error_bounds_tell_the_precisions_apart():
    """bf16 arithmetic must fail the fp32 bound and pass its own; a wrong product fails every bound."""
    a, b = make_inputs(512, 0)
    fp32 = relative_error(a @ b, a, b)
    bf16 = relative_error(a.bfloat16() @ b.bfloat16(), a, b)
    wrong = relative_error(a @ b.t(), a, b)
    assert fp32 < TOLERANCE["fp32"] < bf16 < TOLERANCE["bf16"]
    assert wrong > max(TOLERANCE.values())


def test_sync_false_gives_an_unsynchronized_step():
    assert MM.build(MM.resolve({"size": 32, "sync": False}), "cpu").synchronized is False
    assert MM.build(MM.resolve({"size": 32}), "cpu").synchronized is True
    point = measure_point(MM, {"size": 64, "sync": False}, "cpu", budget_s=0.05, num_threads=1)
    assert point.status == Status.OK and "sync=false changes nothing" in point.notes.note


def test_transfer_on_the_cpu_copies_nothing_and_says_so():
    step = MM.build(MM.resolve({"size": 32, "transfer": True}), "cpu")
    assert step.phases == {} and "nothing is copied" in step.extras.note
    params = MM.resolve({"size": 1000, "transfer": True})
    assert MM.bytes_moved(params) == pytest.approx(5 * 1000 * 1000 * 4)


def test_memory_estimate_of_the_seed_size():
    params = MM.resolve({"size": 15360})
    assert 2.8e9 < MM.peak_memory_bytes(params, "cuda:0") < 3.0e9  # A, B, C in fp32
    assert MM.peak_memory_bytes(MM.resolve({"size": 15360, "dtype": "bf16"}), "cuda:0") < 1.5e9


def test_tf32_switch_is_restored_after_the_call():
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):
        before = matmul.fp32_precision
        with cuda_fp32_matmul(True):
            assert matmul.fp32_precision == "tf32"
        assert matmul.fp32_precision == before
        with cuda_fp32_matmul(False):
            assert matmul.fp32_precision in ("ieee", before)
        assert matmul.fp32_precision == before
    else:
        before = matmul.allow_tf32
        with cuda_fp32_matmul(True):
            assert matmul.allow_tf32 is True
        assert matmul.allow_tf32 == before


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", ["fp32", "tf32", "bf16"])
def test_cuda_precisions_check_and_transfer_phase(dtype):
    point = measure_point(MM, {"size": 2048, "dtype": dtype, "transfer": True}, "cuda", budget_s=0.2, check=True)
    assert point.status == Status.OK, point.message
    assert point.phases["transfer"] > 0 and point.phases["compute"] > 0


@pytest.mark.cuda
def test_cuda_naive_timer_reports_less_than_the_synchronised_one():
    synced = measure_point(MM, {"size": 4096}, "cuda", budget_s=0.3)
    naive = measure_point(MM, {"size": 4096, "sync": False}, "cuda", budget_s=0.3)
    assert synced.status == naive.status == Status.OK
    assert naive.median_s < 0.5 * synced.median_s
