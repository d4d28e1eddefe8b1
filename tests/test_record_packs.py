"""scripts/record_packs.py: the jobs a GPU machine records and the one memory cap they share."""

from __future__ import annotations

import importlib.util
import sys

import pytest
import torch
from conftest import ROOT

from lib.workloads.execution import MODES


@pytest.fixture
def record_packs(monkeypatch):
    spec = importlib.util.spec_from_file_location("record_packs", ROOT / "scripts" / "record_packs.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "record_packs", module)  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def listed(record_packs, monkeypatch, capsys, *argv) -> list[str]:
    """The commands --list prints as on a GPU machine (CUDA faked: only the listing runs)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(record_packs, "machine_prefix", lambda cuda: "h200")
    assert record_packs.main(["--list", "--out", "unused_out", *argv]) == 0
    return capsys.readouterr().out.splitlines()


def test_one_memory_cap_replaces_each_jobs_own_and_reaches_every_job(record_packs, monkeypatch, capsys):
    lines = listed(record_packs, monkeypatch, capsys, "--memory-cap-gb", "60")
    assert lines and all(line.count("--memory-cap-gb") == 1 and line.endswith("--memory-cap-gb 60") for line in lines)
    timing = next(line for line in lines if "h200_timing.json.gz" in line)
    assert "size=64,128,256,512,1024,2048,4096,8192,16384" in timing  # the H200's 16,384 is no longer refused
    assert record_packs.with_memory_cap(["x", "--memory-cap-gb", "2.7", "y"], None) == [
        "x",
        "--memory-cap-gb",
        "2.7",
        "y",
    ]


def test_the_default_sweeps_are_the_shipped_packs_one_dimensional_sweeps(record_packs, monkeypatch, capsys):
    import json

    lines = [line for line in listed(record_packs, monkeypatch, capsys) if "_defaults_" in line]
    assert len(lines) == 4
    shipped = json.loads((ROOT / "lib" / "recorded" / "h200_training.json").read_text())["rows"]
    for line in lines:
        swept = line.split("--over ")[1].split("=")[0]
        values = sorted({r[swept] for r in shipped if r["swept"] == swept})
        assert f"--over {swept}={','.join(map(str, values))}" in line and "--devices cpu,cuda" in line
        # every other setting at the value the shipped sweeps hold fixed
        for key, value in record_packs.DEFAULTS.items():
            if key != swept:
                assert f"--set {key}={value}" in line and {r[key] for r in shipped if r["swept"] == swept} == {value}


def test_a_compile_job_saves_every_point(record_packs, monkeypatch, capsys):
    # each compile mode's records (depth 3; the default and reduce-overhead also at depths 1 and 12), saved every point
    compiled = [m.value for m in MODES if m.compile for _ in m.recordings]
    lines = listed(record_packs, monkeypatch, capsys, "--jobs", "training_compile")
    assert len(lines) == len(compiled) >= 5 and all("--save-every 1 " in line for line in lines)
    assert sum("--over depth=1,12 " in line for line in lines) == 2
    lines = listed(record_packs, monkeypatch, capsys, "--jobs", "training_compile", "--exclude", "training_compile_max")
    assert [line.split("mode=")[1].split()[0] for line in lines] == [m for m in compiled if "max" not in m]
    assert all(
        "--save-every 50 " in line for line in listed(record_packs, monkeypatch, capsys, "--jobs", "training_gpu")
    )


def test_the_data_pipeline_jobs_save_often_so_a_cut_off_call_keeps_its_rows(record_packs, monkeypatch, capsys):
    lines = listed(record_packs, monkeypatch, capsys, "--jobs", "pipeline_")
    assert len(lines) == 3 and all(f"--save-every {record_packs.PIPELINE_SAVE_EVERY} " in line for line in lines)
    assert record_packs.PIPELINE_SAVE_EVERY <= 10


def test_the_stream_job_reaches_the_bandwidth_plateau_on_both_devices(record_packs, monkeypatch, capsys):
    (line,) = listed(record_packs, monkeypatch, capsys, "--jobs", "stream", "--memory-cap-gb", "60")
    sizes = [int(s) for s in line.split("--over size=")[1].split()[0].split(",")]
    assert min(sizes) * 4 <= 1 << 20 and max(sizes) * 4 >= 4 << 30  # tensors of 1 MB to 4 GB
    assert "sweep stream" in line and "--devices cpu,cuda" in line and line.endswith("--memory-cap-gb 60")
    workload = __import__("lib.workloads", fromlist=["get_workload"]).get_workload("stream")
    assert workload.peak_memory_bytes(workload.resolve({"size": max(sizes)}), "cuda:0") < 60e9  # under that cap


def test_the_large_matmuls_are_synced_only(record_packs, monkeypatch, capsys):
    (line,) = listed(record_packs, monkeypatch, capsys, "--jobs", "timing_large")
    assert "--set sync=true" in line and "size=8192,16384" in line and "dtype=fp32,tf32" in line


SMALL_SERVER_CAP_GB = 2.7  # the small server's default cap (lib.core.gate), which no GPU recording should run under


def test_no_gpu_point_on_screen_was_refused_under_the_small_servers_memory_cap():
    """Issue 23: 'GPU machines were recorded under the small server's 2.7 GB cap': /timing_pitfalls said an
    H200 did not run a 3.3 GB matmul. A GPU recording's cap fits the GPU (record_packs passes one); read
    from the merged packs the pages draw, where a later measured row replaces a refusal."""
    import re

    from lib.core.devices import is_cuda
    from lib.core.rows import Status
    from lib.recorded import load_recordings
    from lib.recorded.sources import recorded_sources, source_recording

    recordings = load_recordings()[0]
    refused = []
    for source in recorded_sources(recordings):
        for row in source_recording(source, recordings).pack["rows"]:
            cap = re.search(r"more than the ([\d.]+) GB memory cap", str(row.get("message", "")))
            if (
                is_cuda(str(row.get("device", "")))
                and row.get("status") == Status.SKIPPED
                and cap
                and float(cap.group(1)) <= SMALL_SERVER_CAP_GB
            ):
                refused.append(
                    (
                        source.label,
                        row.get("workload"),
                        row.get("size"),
                        row.get("dtype"),
                        row.get("sync"),
                        row.get("transfer"),
                    )
                )
    assert not refused, refused


def test_each_new_family_has_its_coarse_grid_in_three_modes_profiled_and_the_small_servers_cpu(
    record_packs, monkeypatch, capsys
):
    """Issue 38: the CNN and the Transformer over 5 batches x 2 widths x 2 depths, each torchvision network at
    3 batch sizes (two image sizes), in eager, one CUDA graph and torch.compile (every point saved), profiled
    after timing; and the same points on a small server's CPU, at 1 thread within the live page's limits."""
    lines = listed(record_packs, monkeypatch, capsys, "--jobs", "cnn_,transformer_,torchvision_")
    gpu = [line for line in lines if "--devices cuda " in line]
    families = (
        "sweep cnn ",
        "sweep transformer ",
        *(f"--set model={n} " for n in ("resnet18", "mobilenet_v3_small", "vit_tiny")),
    )
    for family in families:
        mine = [line for line in gpu if family in line]
        assert sorted(line.split("--set mode=")[1].split()[0] for line in mine) == ["compile", "cuda_graph", "eager"]
        assert all("--profile" in line for line in mine), family
        assert all("--save-every 1 " in line for line in mine if "mode=compile" in line)
    assert "--over channels=16,64 --over depth=1,3 --over batch_size=1,8,64,512,4096" in lines[0]
    assert all("--over batch_size=16,64,256" in line for line in lines if "sweep torchvision" in line)
    small = listed(record_packs, monkeypatch, capsys, "--small-server", "--jobs", "cnn_,transformer_,torchvision_")
    assert len(small) == len(families) and all("--threads 1" in line and "cpu=3" in line for line in small)
