"""Execution modes of the mlp step (lib/workloads/execution.py): every mode trains the same model
the same way, so its losses match eager's within float rounding; the CUDA graph is refused on the
CPU with its reason. CUDA tests run on the GPU machine (python3 -m pytest -m cuda)."""

import pytest
import torch

from lib.core.rows import Status
from lib.core.sweep import measure_point
from lib.workloads import get_workload
from lib.workloads.execution import DEFAULT, MODES
from lib.workloads.mlp import loss_curve

MLP = get_workload("mlp")
# two batches per epoch: the CUDA graph then copies each batch into its static input
SMALL = {"dataset_size": 256, "batch_size": 128, "hidden_width": 32, "depth": 2}


def losses(mode: str, device: str, epochs: int = 6, **extra) -> list[float]:
    return loss_curve({**SMALL, "mode": mode, **extra}, device, epochs)


def test_the_fused_optimizer_trains_like_eager_on_the_cpu():
    eager, fused = losses("eager", "cpu"), losses("fused", "cpu")
    assert fused == pytest.approx(eager, rel=1e-5) and eager[-1] < eager[0]


@pytest.mark.slow
@pytest.mark.serial  # the cold call against the median step: a loaded box slowed the median past a fifth
def test_compiled_step_trains_like_eager_on_the_cpu_and_reports_its_compile_time():
    eager, compiled = losses("eager", "cpu", epochs=3), losses("compile", "cpu", epochs=3)
    assert compiled == pytest.approx(eager, rel=1e-4)
    point = measure_point(MLP, {**SMALL, "mode": "compile"}, "cpu", budget_s=0.05, num_threads=1, with_phases=False)
    assert point.status == Status.OK, point.message
    # the first call compiled, or loaded the compiled code from Inductor's cache (shared by every clone on a
    # machine: then 0.8 s against a 0.16 s step here); the median never includes it
    assert point.cold_s > 2 * point.median_s


def test_a_cuda_graph_on_the_cpu_is_refused_with_its_reason():
    point = measure_point(MLP, {**SMALL, "mode": "cuda_graph"}, "cpu")
    assert point.status == Status.SKIPPED and "runs on CUDA only" in point.message
    assert MLP.refusal(MLP.resolve({"mode": "cuda_graph"}), "cuda:0") is None


def test_a_mode_and_a_hand_picked_optimizer_implementation_do_not_mix():
    with pytest.raises(ValueError, match="leave optimizer_impl at default"):
        MLP.resolve({"mode": "fused", "optimizer_impl": "foreach"})


@pytest.mark.cuda
# every mode's record but max-autotune's, which tunes each kernel for minutes and runs what compile's runs
@pytest.mark.parametrize("mode", [m.value for m in MODES if m.value != DEFAULT and "autotune" not in (m.compile or "")])
def test_every_mode_trains_like_eager_on_cuda(mode):
    eager = losses("eager", "cuda")
    assert losses(mode, "cuda") == pytest.approx(eager, rel=1e-4)


@pytest.mark.cuda
@pytest.mark.parametrize(
    "extra", [{"data_resident": False, "pin_memory": True}, {"item_every_step": True}, {"batch_size": 256}]
)
def test_the_cuda_graph_with_copied_batches_item_and_one_full_batch_trains_like_eager(extra):
    assert losses("cuda_graph", "cuda", **extra) == pytest.approx(losses("eager", "cuda", **extra), rel=1e-4)


@pytest.mark.cuda
def test_one_cuda_graph_removes_most_of_a_small_steps_launch_overhead():
    point = {"batch_size": 64, "hidden_width": 64, "depth": 3}
    eager = measure_point(MLP, {**point, "mode": "eager"}, "cuda", budget_s=0.3, with_profile=True, check=True)
    graph = measure_point(MLP, {**point, "mode": "cuda_graph"}, "cuda", budget_s=0.3, with_profile=True, check=True)
    assert eager.status == graph.status == Status.OK, (eager.message, graph.message)
    assert graph.median_s < eager.median_s / 3  # about 7-15x on an H100/H200: a loose floor here
    assert torch.cuda.is_available()
