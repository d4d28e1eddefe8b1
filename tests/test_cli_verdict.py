"""`python -m lib crossover` says what holds each step back in the pages' own words (issue 23, items 3
and 7): four regimes from lib.lessons.common.verdict, the one change that would move each, never the
cost model's old two ('overhead-bound' / 'throughput-bound').

The CPU pack is made here with the CLI (`sweep --profile`); the GPU packs are sweeps cut from the shipped
recordings (made with the same CLI on the H100 and the H200), written as packs of their own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lib.core.fmt import fmt_value
from lib.core.results import build_pack, load_pack, save_pack
from lib.lessons.common.verdict import Regime, verdict, verdict_sentence, verdict_words
from lib.recorded import RECORDED_DIR, load_recordings
from lib.recorded.ceilings import ceilings_for

ROOT = Path(__file__).resolve().parents[1]
H200, H100 = "NVIDIA H200", "NVIDIA H100 80GB HBM3"


def cli(*args, **env):
    return subprocess.run(
        [sys.executable, "-m", "lib", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )


@pytest.fixture(scope="module")
def packs():
    return [r.pack for r in load_recordings(RECORDED_DIR)[0]]  # the verdict and the ceilings read pack dicts


def sweep_of(packs, file: str, mode: str, width: int) -> list[dict]:
    """The profiled steps of one shipped grid at depth 3 and one width, as a sweep over batch_size."""
    pack = next(p for p in packs if Path(p["path"]).name == file)
    return [
        {**r, "swept": "batch_size"}
        for r in pack["rows"]
        if r.get("workload") == "mlp"
        and r.get("mode") == mode
        and r.get("hidden_width") == width
        and r.get("depth") == 3
        and r.get("kernels")
        and r.get("status") == "ok"
        and r.get("data_resident", True)
        and not r.get("item_every_step")
    ]


def expected_lines(rows: list[dict], ceilings) -> list[str]:
    """The verdict module's words for each row, as the CLI must print them (in order of x)."""
    rows = sorted(rows, key=lambda r: float(r["batch_size"]))
    return [
        verdict_words(verdict(r, ceilings), f"{r['device']} at batch_size {fmt_value(r['batch_size'])}").plain()
        for r in rows
    ]


def test_the_verdicts_words_for_the_cli_are_the_pages_words_without_the_markdown(packs):
    row = sweep_of(packs, "h200_training_gpu.json.gz", "eager", 4096)[0]
    v = verdict(row, ceilings_for(H200, packs))
    words = verdict_words(v, "cuda:0 at batch_size 1")
    assert words.markdown() == verdict_sentence(v, "cuda:0 at batch_size 1")
    assert words.about is v and "**" not in words.plain() and words.plain().startswith("cuda:0 at batch_size 1: ")


@pytest.mark.parametrize(
    "file, mode, width, machine, regimes",
    [
        # at batch 65,536 the GPU is busy 0.84 ms of the 1.41 ms step (2026-11-28), more than it waits: below both roofs
        ("h200_training_gpu.json.gz", "eager", 64, H200, {Regime.LAUNCH_BOUND, Regime.BELOW_ROOFS}),
        ("h100_training_graph.json.gz", "cuda_graph", 64, H100, {Regime.KERNEL_LATENCY}),
        # issue 37: batch 1-128 at width 4,096 move their counted bytes at 12-16 % of the H200's 4.19 TB/s, below both
        # roofs (they were called memory-bound for their flop per byte alone); from 256 on, 42-92 % of its fp32 peak
        ("h200_training_gpu.json.gz", "eager", 4096, H200, {Regime.BELOW_ROOFS, Regime.COMPUTE_BOUND}),
    ],
)
def test_crossover_prints_each_recorded_gpu_steps_verdict_and_its_fix(
    tmp_path, packs, file, mode, width, machine, regimes
):
    rows = sweep_of(packs, file, mode, width)
    assert len(rows) >= 10
    pack = tmp_path / "sweep.json"
    save_pack(build_pack(rows), pack)
    out = cli("crossover", str(pack))
    assert out.returncode == 0, out.stderr
    ceilings = ceilings_for(machine, packs)
    assert f"ceilings of {ceilings.label()}\n" in out.stdout and ceilings.label().startswith(f"{machine}: ")
    for line in expected_lines(load_pack(pack)["rows"], ceilings):
        assert f"  {line}\n" in out.stdout
    said = {verdict(r, ceilings).regime for r in rows}
    assert said == regimes  # the cases the issue names: launch, tiny kernels, memory, arithmetic
    for regime in said:
        assert f"This step is {regime.value}" in out.stdout
    assert out.stdout.count("What would move it:") + out.stdout.count("No switch on this page moves it") == len(rows)
    assert "throughput-bound" not in out.stdout and "regimes on" not in out.stdout


def test_the_ceilings_come_from_the_packs_given_when_none_are_shipped(tmp_path, packs):
    """A new GPU: its matmul and stream rows recorded with the CLI and passed with --ceilings; without
    them the verdict says which ceiling is missing instead of guessing memory or arithmetic."""
    rows = [r for r in sweep_of(packs, "h200_training_gpu.json.gz", "eager", 4096) if r["batch_size"] in (2, 4096)]
    sweep, roof = tmp_path / "sweep.json", tmp_path / "roof.json"
    save_pack(build_pack(rows), sweep)
    measured = [
        r
        for p in packs
        for r in p["rows"]
        if r.get("device_name") == H200 and r.get("status") == "ok" and r.get("workload") in ("matmul", "stream")
    ]
    save_pack(build_pack(measured), roof)
    empty = tmp_path / "nothing_shipped"
    empty.mkdir()
    alone = cli("crossover", str(sweep), GPUWIN_RECORDED_DIR=str(empty))
    assert alone.returncode == 0, alone.stderr
    assert f"ceilings of {H200}: not recorded" in alone.stdout
    assert "cannot say whether memory or arithmetic holds it" in alone.stdout
    given = cli("crossover", str(sweep), "--ceilings", str(roof), GPUWIN_RECORDED_DIR=str(empty))
    assert given.returncode == 0, given.stderr
    ceilings = ceilings_for(H200, [{**load_pack(roof), "path": str(roof)}])
    assert ceilings.bytes_per_s and f"ceilings of {ceilings.label()}\n" in given.stdout
    lines = expected_lines(load_pack(sweep)["rows"], ceilings)
    assert all(f"  {line}\n" in given.stdout for line in lines)
    assert "This step is below both roofs" in lines[0] and "This step is compute-bound" in lines[1]  # issue 37


@pytest.mark.slow
def test_a_cpu_sweep_made_with_the_cli_gets_the_verdict_with_a_profile_and_says_why_not_without(tmp_path):
    profiled, plain = tmp_path / "profiled.json", tmp_path / "plain.json"
    for pack, extra in ((profiled, ["--profile"]), (plain, [])):
        made = cli(
            "sweep",
            "mlp",
            "--over",
            "batch_size=1,256",
            "--set",
            "hidden_width=32",
            "--devices",
            "cpu",
            "--out",
            str(pack),
            "--budget",
            "0.05",
            "--quiet",
            *extra,
        )
        assert made.returncode == 0, made.stderr
    out = cli("crossover", str(profiled))
    assert out.returncode == 0, out.stderr
    rows = load_pack(profiled)["rows"]
    assert all(r.get("kernels") for r in rows)
    for line in expected_lines(rows, None):
        assert f"  {line}\n" in out.stdout
    assert "ceilings of" not in out.stdout  # a CPU step is never read against a GPU's roofline
    out = cli("crossover", str(plain))
    assert out.returncode == 0, out.stderr
    assert "what holds a step back is not said on cpu: its rows carry no profile (sweep with --profile" in out.stdout
    assert " at batch_size " not in out.stdout


@pytest.mark.cuda
def test_a_cuda_sweep_through_the_cli_gets_a_verdict_on_each_device(tmp_path):
    pack = tmp_path / "both.json"
    made = cli(
        "sweep",
        "mlp",
        "--over",
        "batch_size=1,1024",
        "--set",
        "hidden_width=256",
        "--devices",
        "cpu,cuda",
        "--out",
        str(pack),
        "--budget",
        "0.1",
        "--quiet",
        "--profile",
    )
    assert made.returncode == 0, made.stderr
    out = cli("crossover", str(pack))
    assert out.returncode == 0, out.stderr
    rows = load_pack(pack)["rows"]
    gpu = next(r for r in rows if r["device"] != "cpu")
    ceilings = ceilings_for(
        gpu["device_name"], [{**load_pack(pack), "path": str(pack)}, *(r.pack for r in load_recordings()[0])]
    )
    for device in ("cpu", gpu["device"]):
        for line in expected_lines([r for r in rows if r["device"] == device], ceilings if device != "cpu" else None):
            assert f"  {line}\n" in out.stdout
