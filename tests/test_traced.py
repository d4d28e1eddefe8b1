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


def former_flops(settings) -> float:
    """The MLP's hand-written FLOPs before issue 38: 3 x the forward's matmuls (backward = 2 x forward)."""
    sizes = [settings.input_features] + [settings.hidden_width] * settings.depth + [settings.outputs]
    return 3.0 * 2 * settings.batch_size * sum(i * o for i, o in zip(sizes[:-1], sizes[1:]))


def former_bytes(settings) -> float:
    """The MLP's hand-written bytes before issue 38: the weights 8 times (forward and backward reads, the
    gradient, Adam's states), the activations 4 times."""
    sizes = [settings.input_features] + [settings.hidden_width] * settings.depth + [settings.outputs]
    weights = sum(i * o + o for i, o in zip(sizes[:-1], sizes[1:]))
    return 4.0 * (8 * weights + 4 * settings.batch_size * sum(sizes))


CASES = ({}, {"hidden_width": 1024, "batch_size": 512, "depth": 6}, {"hidden_width": 8, "batch_size": 4096})


def test_the_mlps_flops_and_bytes_are_its_traced_steps():
    """flops() and bytes_moved() are the trace's (lib.workloads.counted, as every family's), the copied batch added."""
    for overrides in CASES:
        settings = MLP.resolve({**overrides, "dataset_size": 8192})
        step = traced.trace_step(MLP, settings)
        assert MLP.flops(settings) == step.flops_matmul
        # the line is traced at full-batch epochs (counted.COUNT_BATCHES); a step of a longer epoch differs
        # by a scalar's bytes or so
        assert MLP.bytes_moved(settings) == pytest.approx(step.bytes, rel=1e-4)
        copied = settings.replace(data_resident=False)
        assert MLP.bytes_moved(copied) - MLP.bytes_moved(settings) == settings.batch_size * (4 * 32 + 8)


def test_traced_flops_are_the_former_formula_less_the_first_layers_input_gradient():
    """FlopCounterMode's matmul FLOPs against the formula they replace (3 x the forward): the first layer
    computes no input gradient, so the trace counts one input-sized matmul less, and nothing else differs."""
    for overrides in CASES:
        settings = MLP.resolve(overrides)
        step = traced.trace_step(MLP, settings)
        first_input_grad = 2 * settings.batch_size * settings.input_features * settings.hidden_width
        assert step.flops_matmul == former_flops(settings) - first_input_grad
        assert 0 < step.flops_other < 0.1 * step.flops_matmul


def test_traced_bytes_count_every_operand_where_the_former_formula_counted_each_tensor_a_few_times():
    """Where the two differ: the former formula read the weights 8 times and the activations 4; the trace
    counts every operand of every kernel (foreach Adam reads and writes its moments and temporaries several
    times, each matmul its inputs and output): 2.6-2.9 times the formula at the page's widths, 1.8 on narrow
    layers at a large batch (activations, read fewer times than the weights), 2.5 on a tiny step. The other families are counted the same way, so
    the price per byte fitted to one holds for the others (benchmarks/cost_model_holdout.py, family out)."""
    for overrides, low, high in zip(CASES, (2.5, 2.5, 1.5), (3.0, 3.0, 2.0)):
        settings = MLP.resolve(overrides)
        ratio = traced.trace_step(MLP, settings).bytes / former_bytes(settings)
        assert low < ratio < high, (overrides, ratio)
    tiny = MLP.resolve({"hidden_width": 4, "depth": 1, "batch_size": 1})
    assert 2.0 < traced.trace_step(MLP, tiny).bytes / former_bytes(tiny) < 3.0


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


def test_a_convolutions_backward_launches_one_kernel_per_gradient_and_a_batch_norm_counts_its_batches():
    """cuDNN computes a convolution's input and weight gradients in two calls (the first layer's input needs
    none), and each BatchNorm adds 1 to its num_batches_tracked buffer on the GPU every step: a kernel, though
    the buffer was made from a Python number (only numbers made inside the step stay on the host)."""
    from lib.workloads import get_workload
    cnn = get_workload("cnn")
    by_op = traced.trace_step(cnn, cnn.resolve({"depth": 1, "batch_size": 2})).by_op
    convs = 3  # one per stage
    assert by_op["convolution"] == convs and by_op["convolution_backward"] == 2 * convs - 1
    assert by_op["add_"] == by_op["_native_batch_norm_legit"] + 1  # and the epoch's loss sum


def test_a_foreach_operator_launches_as_cudas_multi_tensor_apply_does():
    chunk = tracing.CHUNK
    assert tracing.multi_tensor_launches([100] * 34, 48) == 1
    assert tracing.multi_tensor_launches([100] * 62, 36) == 2  # a resnet18's 62 tensors fill one launch's 36
    assert tracing.multi_tensor_launches([chunk * tracing.MAX_BLOCKS], 110) == 1
    assert tracing.multi_tensor_launches([chunk * tracing.MAX_BLOCKS + 1], 110) == 2  # the blocks fill up
    # two 4,096 x 4,096 weights are 512 chunks: each foreach operator of the update launches twice
    wide = traced.trace_step(MLP, MLP.resolve({"depth": 3, "hidden_width": 4096})).by_op
    assert {n for op, n in wide.items() if op.startswith("_foreach_")} == {2}
