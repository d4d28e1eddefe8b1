"""Step timelines (lib/core/timeline.py and `python -m lib timeline`): events that make sense, and
the figures read from them. The CUDA test runs on the GPU machine (python3 -m pytest -m cuda)."""

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lib.core.rows import Status
from lib.core.step_timeline import EventKind, Timeline, TimelineEvent, read_timelines, timelines_file
from lib.core.timeline import figures, median_step, reduce_trace, timeline_point, union_length
from lib.workloads import get_workload

ROOT = Path(__file__).resolve().parents[1]
MLP = get_workload("mlp")


def assert_sane(entry: Timeline) -> None:
    assert entry.status == Status.OK, entry.message
    for step in entry.steps:
        assert step.events, "a step with no events"
        for e in step.events:
            assert e.end_us >= e.start_us >= 0
            assert e.end_us <= step.figures.step_us + 1  # inside the step
        # the trace spans what the clock saw: the profiler's own first steps stretched a 2.5 ms step to 4.6 ms
        assert step.wall_us and abs(step.figures.step_us - step.wall_us) <= 0.25 * step.wall_us + 50, step.figures
    assert entry.figures == median_step(entry.steps).figures
    f = entry.figures
    fraction = f.gpu.busy_fraction if f.gpu else f.cpu.busy_fraction
    assert 0 < fraction <= 1


def test_a_cpu_step_timeline_has_its_operators_and_a_busy_share():
    entry = timeline_point(MLP, MLP.resolve({"batch_size": 64, "dataset_size": 256}), "cpu", num_threads=1)
    assert_sane(entry)
    assert len(entry.steps) == 3 and entry.figures.operators > 20
    assert {e.lane for s in entry.steps for e in s.events} == {"CPU: Python thread"}
    assert entry.figures.gpu is None  # no GPU lane on the CPU


def test_a_timelines_figures_are_its_median_step_not_its_middle_one():
    steps = [reduce_trace(_one_op_trace(us))[0] for us in (900.0, 300.0, 500.0)]
    assert median_step(steps).figures.step_us == 500.0  # the middle by order would be the 300 us step
    assert median_step(steps[:2]).figures.step_us == 300.0 and median_step([]) is None


def _one_op_trace(us: float) -> list[dict]:
    """A Chrome trace of one step holding one operator, `us` long."""
    step = {"ph": "X", "name": "gpuwin step 0", "ts": 0.0, "dur": us, "tid": 1, "cat": "user_annotation"}
    return [step, {"ph": "X", "name": "aten::mm", "ts": 1.0, "dur": us - 2, "tid": 1, "cat": "cpu_op"}]


@pytest.mark.slow
def test_the_cli_writes_a_timelines_file_the_app_reads(tmp_path):
    out = tmp_path / "t.json.gz"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "lib",
            "timeline",
            "mlp",
            "--set",
            "batch_size=16",
            "--set",
            "dataset_size=64",
            "--devices",
            "cpu",
            "--threads",
            "1",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "cpu: ok" in done.stdout and "cpu_busy_fraction" in done.stdout
    written = json.loads(gzip.decompress(out.read_bytes()))
    timelines = read_timelines(written)
    assert_sane(timelines.timelines[0])
    assert timelines.machine["cpu_model"]
    assert "load_quiet" in timelines.machine and timelines.machine["load_reference_best_s"] > 0  # how busy it was
    assert "cpu_busy_fraction" in written["timelines"][0]["figures"]  # the file keeps its figures by name


def test_a_trace_is_reduced_to_lanes_and_gpu_figures():
    """A hand-made Chrome trace: two kernels launched in one step, a gap between them."""
    trace = [
        {"ph": "X", "cat": "user_annotation", "name": "gpuwin step 0", "ts": 100, "dur": 100, "tid": 1},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 110, "dur": 20, "tid": 1},
        {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "ts": 112, "dur": 2, "tid": 1},  # inside aten::mm
        {
            "ph": "X",
            "cat": "cuda_runtime",
            "name": "cudaLaunchKernel",
            "ts": 120,
            "dur": 5,
            "tid": 1,
            "args": {"correlation": 1},
        },
        {
            "ph": "X",
            "cat": "cuda_runtime",
            "name": "cudaLaunchKernel",
            "ts": 160,
            "dur": 5,
            "tid": 1,
            "args": {"correlation": 2},
        },
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "ts": 170, "dur": 25, "tid": 1},
        {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 130, "dur": 10, "tid": 7, "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "relu", "ts": 170, "dur": 20, "tid": 7, "args": {"correlation": 2}},
    ]
    gpu_copy = {"ph": "X", "cat": "gpu_user_annotation", "name": "gpuwin step 0", "ts": 130, "dur": 60, "tid": 7}
    (step,) = reduce_trace([*trace, gpu_copy])  # the GPU's copy of the step's mark is not a step of its own
    lanes = {e.lane for e in step.events}
    assert lanes == {"CPU: Python thread", "CPU: CUDA runtime", "GPU: stream 7"}
    assert [e.name for e in step.events if e.lane == "CPU: Python thread"] == ["aten::mm"]
    f = step.figures
    assert f.gpu.kernels == 2 and f.launches == 2 and f.syncs == 1
    assert f.gpu.busy_us == 30 and f.gpu.idle_between_us == 30  # 130-140 and 170-190: 30 busy, 30 idle
    assert f.gpu.busy_fraction == pytest.approx(0.3) and f.gpu.launch_delay_us == pytest.approx(10)


def test_union_counts_overlaps_once_and_cpu_figures_have_no_gpu():
    assert union_length([(0, 10), (5, 15), (20, 25)]) == 20
    f = figures([TimelineEvent("CPU: Python thread", "aten::mm", EventKind.OPERATOR, 0, 40)], 100, [])
    assert f.cpu.busy_fraction == 0.4 and f.gpu is None and "kernels" not in f.as_json()


@pytest.mark.cuda
@pytest.mark.parametrize("mode", ["eager", "cuda_graph"])
def test_a_cuda_step_timeline_has_kernels_inside_the_step(mode):
    entry = timeline_point(MLP, MLP.resolve({"batch_size": 64, "mode": mode}), "cuda:0")
    assert_sane(entry)
    f = entry.figures
    assert f.gpu.kernels > 10 and 0 < f.gpu.busy_fraction < 1
    lanes = {e.lane for s in entry.steps for e in s.events}
    assert any(lane.startswith("GPU") for lane in lanes) and "CPU: CUDA runtime" in lanes


def test_every_shipped_timelines_file_reads_and_writes_back_as_it_was():
    """The typed entries keep every field of the file, in its order: written again, each file is the same JSON."""
    paths = sorted((ROOT / "lib" / "recorded" / "timelines").glob("*.json.gz"))
    assert paths
    for path in paths:
        written = json.loads(gzip.decompress(path.read_bytes()))
        read = read_timelines(written, str(path))
        assert json.dumps(timelines_file(read.timelines, read.machine)) == json.dumps(written), path.name
