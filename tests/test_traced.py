"""The traced step (lib.workloads.traced) against the MLP's hand-written counts, its own FLOPs and
bytes estimates, and the kernels torch.profiler recorded on the H100 and the H200."""

from __future__ import annotations

import gzip
import json

import pytest

from lib.recorded import RECORDED_DIR
from lib.workloads import FAMILIES, traced, tracing
from lib.workloads.mlp import FAMILY, WORKLOAD

MLP = WORKLOAD


def hand_written_eager_kernels(depth: int) -> int:
    """The count the MLP's cost terms were written with before the trace (lib.workloads.mlp_terms until
    issue 38): 6 kernels per Linear layer (depth + 1 of them) and 12 for the loss and foreach Adam."""
    return 12 + 6 * (depth + 1)


@pytest.mark.slow
def test_traced_eager_kernels_equal_the_hand_written_count_at_every_depth_and_width():
    for depth in range(1, 17):
        for width in (8, 64, 1024) if depth == 3 else (8 if depth % 2 else 64,):
            settings = MLP.resolve({"depth": depth, "hidden_width": width})
            step = traced.trace_step(MLP, settings)
            assert step.ops + traced.PROFILED_EXTRA == hand_written_eager_kernels(depth), (depth, width)
            assert FAMILY.structural_kernels(settings) == hand_written_eager_kernels(depth)


def test_a_step_is_the_operators_a_gpu_runs():
    """Forward (addmm, relu), loss, backward (two matmuls, the bias sum, relu's backward per layer; the
    first layer has no input gradient) and foreach Adam's seven kernels, and the epoch's loss sum."""
    by_op = traced.trace_step(MLP, MLP.resolve({"depth": 3})).by_op
    layers = 4
    assert by_op["addmm"] == layers and by_op["mm"] == 2 * layers - 1 and by_op["sum"] == layers
    assert by_op["relu"] == by_op["threshold_backward"] == layers - 1
    assert sum(n for op, n in by_op.items() if op.startswith("_foreach_")) == 7  # the step counters stay on the host
    assert by_op["nll_loss_backward"] == 2 and by_op["add_"] == 1
    assert not set(by_op) & tracing.NO_KERNEL


def test_each_mode_counts_its_own_optimizer():
    eager, fused, graph = (traced.trace_step(MLP, MLP.resolve({"mode": m})) for m in ("eager", "fused", "cuda_graph"))
    assert fused.by_op.get("_fused_adam_") == 1 and not any(op.startswith("_foreach_") and op != "_foreach_add_"
                                                            for op in fused.by_op)
    # capturable Adam keeps its step counts on the GPU: more kernels, two per parameter on CUDA's slow path
    assert graph.ops > eager.ops and graph.by_op["_foreach_div_"] >= 2 * 8


def test_traced_flops_agree_with_the_workloads_own():
    """FlopCounterMode's matmul FLOPs against flops() (3 x the forward): the first layer computes no
    input gradient, so the trace counts one input-sized matmul less."""
    for settings in (MLP.resolve({}), MLP.resolve({"hidden_width": 1024, "batch_size": 512, "depth": 6})):
        step = traced.trace_step(MLP, settings)
        sizes = [settings.input_features] + [settings.hidden_width] * settings.depth + [settings.outputs]
        first_input_grad = 2 * settings.batch_size * sizes[0] * sizes[1]
        assert step.flops_matmul == MLP.flops(settings) - first_input_grad
        assert 0.9 < step.flops_matmul / MLP.flops(settings) <= 1.0
        assert 0 < step.flops_other < 0.1 * step.flops_matmul


def test_traced_bytes_are_within_a_factor_of_three_of_the_estimate():
    """bytes_moved() is a rough sum (weights read 8 times, activations 4); the trace sums every kernel's
    operands and outputs, each read counted again."""
    for overrides in ({}, {"hidden_width": 1024, "batch_size": 512}, {"hidden_width": 8, "batch_size": 4096}):
        settings = MLP.resolve(overrides)
        ratio = traced.trace_step(MLP, settings).bytes / MLP.bytes_moved(settings)
        assert 1 / 3 < ratio < 3, (overrides, ratio)


def _least_profiled(name: str) -> dict[tuple[str, int], float]:
    with gzip.open(RECORDED_DIR / name) as f:
        rows = json.load(f)["rows"]
    least: dict[tuple[str, int], float] = {}
    for row in rows:
        if row.get("kernels") is not None and row["device"].startswith("cuda"):
            key = (row["mode"], int(row["depth"]))
            least[key] = min(least.get(key, float("inf")), float(row["kernels"]))
    return least


@pytest.mark.parametrize("pack", ["h200_training_gpu.json.gz", "h100_training_gpu.json.gz",
                                  "h200_training_graph_d1_12.json.gz", "h100_training_graph.json.gz"])
def test_traced_kernels_against_the_recorded_profiles(pack):
    """Each profiled depth's least kernel count (a shape where no matmul is split) within x1.2 of the
    structural count: eager exactly; the CUDA graph's capturable optimizer one kernel short."""
    for (mode, depth), least in _least_profiled(pack).items():
        counted = FAMILY.structural_kernels(MLP.resolve({"depth": depth, "mode": mode}))
        assert 1 / 1.2 <= counted / least <= 1.2, (mode, depth, counted, least)
        if mode == "eager":
            assert counted == least


@pytest.mark.slow
def test_the_shipped_counts_are_what_a_trace_gives_now():
    """The web server reads lib/workloads/traced_counts.json (no torch there): run
    scripts/trace_counts.py after changing a family's step."""
    shipped = json.loads(traced.COUNTS_FILE.read_text())
    for family in FAMILIES:
        terms = family.structural_kernels
        shape = traced.structure(family.workload, family.page_defaults(), terms.depth, terms.sizes)
        entry = next(e for e in shipped[family.name] if e["structure"] == shape)
        fresh = traced._traced_lines(family.workload, terms.depth, tuple(shape.items()))
        assert {k: tuple(v) for k, v in entry["kernels"].items()} == fresh, family.name


def test_a_structure_the_shipped_counts_lack_is_traced():
    regression = MLP.resolve({"task": "regression", "outputs": 1, "depth": 2})
    assert FAMILY.structural_kernels(regression) == traced.trace_step(MLP, regression).ops + traced.PROFILED_EXTRA


def test_a_foreach_operator_launches_as_cudas_multi_tensor_apply_does():
    chunk = tracing.CHUNK
    assert tracing.multi_tensor_launches([100] * 34, 48) == 1
    assert tracing.multi_tensor_launches([100] * 62, 36) == 2  # a resnet18's 62 tensors fill one launch's 36
    assert tracing.multi_tensor_launches([chunk * tracing.MAX_BLOCKS], 110) == 1
    assert tracing.multi_tensor_launches([chunk * tracing.MAX_BLOCKS + 1], 110) == 2  # the blocks fill up
    # two 4,096 x 4,096 weights are 512 chunks: each foreach operator of the update launches twice
    wide = traced.trace_step(MLP, MLP.resolve({"depth": 3, "hidden_width": 4096})).by_op
    assert {n for op, n in wide.items() if op.startswith("_foreach_")} == {2}
