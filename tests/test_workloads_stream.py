"""stream workload: y = x + 1, the bytes and flops its rows carry (the roofline's bandwidth reads them)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lib.core.rows import Status
from lib.core.sweep import measure_point
from lib.workloads import get_workload

STREAM = get_workload("stream")
ROOT = Path(__file__).resolve().parents[1]


def test_bytes_are_one_read_and_one_write_of_float32_and_flops_one_add_each():
    params = STREAM.resolve({"size": 1000})
    assert STREAM.bytes_moved(params) == 8000 and STREAM.flops(params) == 1000
    # x and y on the GPU; the host adds the runtime's own
    assert STREAM.peak_memory_bytes(params, "cuda:0") == 8000
    assert STREAM.peak_memory_bytes(params, "cpu") > 8000


def test_the_step_computes_x_plus_one_and_check_catches_a_wrong_result(monkeypatch):
    import torch

    step = STREAM.build(STREAM.resolve({"size": 4096}), "cpu")
    step.check()
    real_add = torch.add
    monkeypatch.setattr(torch, "add", lambda x, v, out: real_add(x, 2 * v, out=out))  # a wrong kernel
    with pytest.raises(AssertionError, match="x \\+ 1"):
        step.check()


def test_a_measured_row_keeps_bytes_and_flops_so_bandwidth_is_bytes_over_median():
    point = measure_point(STREAM, {"size": 1 << 16}, "cpu", budget_s=0.05, num_threads=1, check=True)
    assert point.status == Status.OK, point.message
    assert point.workload == "stream" and point.counts.bytes == 8 * (1 << 16) and point.counts.flops == 1 << 16
    assert 1e8 < point.counts.bytes / point.median_s < 1e13  # between 0.1 GB/s and 10 TB/s: a time, not a launch


@pytest.mark.slow
def test_the_cli_sweeps_stream_over_size(tmp_path):
    out = tmp_path / "s.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "lib",
            "sweep",
            "stream",
            "--over",
            "size=1024,65536",
            "--devices",
            "cpu",
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
    rows = json.loads(out.read_text())["rows"]
    assert [r["size"] for r in rows] == [1024, 65536]
    assert all(r["status"] == "ok" and r["bytes"] == 8 * r["size"] for r in rows)
