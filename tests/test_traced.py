"""The traced step (lib.workloads.traced) against the MLP's former hand-written counts, its FLOPs and bytes
(lib.workloads.mlp_terms), and the kernels torch.profiler recorded on the H100 and the H200."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lib.recorded import RECORDED_DIR
from lib.workloads import FAMILIES, counted, mlp_fit, mlp_terms, traced, tracing
from lib.workloads.mlp import FAMILY, WORKLOAD

MLP = WORKLOAD
ROOT = Path(__file__).resolve().parents[1]


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
    assert fused.by_op.get("_fused_adam_") == 1 and not any(
        op.startswith("_foreach_") and op != "_foreach_add_" for op in fused.by_op
    )
    # capturable Adam keeps its step counts on the GPU: more kernels, two per parameter on CUDA's slow path
    assert graph.ops > eager.ops and graph.by_op["_foreach_div_"] >= 2 * 8


def former_flops(settings) -> float:
    """The MLP's hand-written FLOPs before issue 38: 3 x the forward's matmuls (the backward twice the forward)."""
    sizes = [settings.input_features] + [settings.hidden_width] * settings.depth + [settings.outputs]
    return 3.0 * 2 * settings.batch_size * sum(i * o for i, o in zip(sizes[:-1], sizes[1:]))


def former_bytes(settings) -> float:
    """The MLP's hand-written bytes before issue 38: the weights 8 times (forward and backward reads, the
    gradient, Adam's states), the activations 4 times."""
    sizes = [settings.input_features] + [settings.hidden_width] * settings.depth + [settings.outputs]
    weights = sum(i * o + o for i, o in zip(sizes[:-1], sizes[1:]))
    return 4.0 * (8 * weights + 4 * settings.batch_size * sum(sizes))


# the page's default, a wide one, a narrow one at a large batch, and the other forms at uneven sizes (a real
# data set's shape is counted on synthetic rows of that shape: a trace under fake tensors cannot read data)
CASES = (
    {},
    {"hidden_width": 1024, "batch_size": 512, "depth": 6},
    {"hidden_width": 8, "batch_size": 4096},
    {"hidden_layers": "48,7,300", "input_features": 13, "outputs": 3, "task": "regression", "optimizer": "sgd"},
    {"optimizer_impl": "fused", "depth": 1, "batch_size": 1},
    {"optimizer_impl": "for-loop", "hidden_width": 100},
    {"input_features": 4, "outputs": 3, "batch_size": 150},
)


@pytest.mark.parametrize("overrides", CASES)
def test_the_mlps_flops_and_bytes_equal_its_traced_steps(overrides):
    """flops() and bytes_moved() are its traced step's, number for number, without tracing (lib.workloads.mlp_terms:
    the linear forms fitted to small traces, here checked on settings they were not fitted to); a batch copied
    from host memory adds its bytes."""
    settings = MLP.resolve({**overrides, "dataset_size": overrides.get("batch_size", 64)})
    step = traced.trace_step(MLP, settings)
    assert MLP.flops(settings) == step.flops_matmul
    assert MLP.bytes_moved(settings) == step.bytes
    copied = settings.replace(data_resident=False)
    assert MLP.bytes_moved(copied) - MLP.bytes_moved(settings) == mlp_terms.copied_bytes(settings, settings.batch_size)


def test_the_traced_flops_are_the_former_formula_less_the_first_layers_input_gradient():
    """FlopCounterMode's matmul FLOPs against the formula they replace (3 x the forward): the first layer
    computes no input gradient, so the trace counts one input-sized matmul less, and nothing else differs."""
    for overrides in CASES[:3]:
        settings = MLP.resolve(overrides)
        step = traced.trace_step(MLP, settings)
        first_input_grad = 2 * settings.batch_size * settings.input_features * settings.hidden_width
        assert MLP.flops(settings) == step.flops_matmul == former_flops(settings) - first_input_grad
        assert 0 < step.flops_other < 0.1 * step.flops_matmul


def test_the_traced_bytes_count_every_operand_where_the_former_formula_counted_each_tensor_a_few_times():
    """What bytes mean for every family: every operand of every kernel, read and written (DRAM traffic if no
    cache kept anything). The former formula read the weights 8 times and the activations 4; the trace counts
    a weight 22 times with Adam (each matmul's operands, the gradient, foreach Adam's reads and writes of its
    moments and temporaries), a hidden activation 12 times a row and an input feature 2 (the first layer's
    forward and weight gradient read it): 2.6-2.9 times the formula at the page's widths, where the weights and
    hidden activations dominate; 1.8 on narrow layers at a large batch, where the 32 input features do."""
    for overrides, low, high in zip(CASES[:3], (2.6, 2.6, 1.7), (2.9, 2.9, 1.9)):
        settings = MLP.resolve(overrides)
        ratio = traced.trace_step(MLP, settings).bytes / former_bytes(settings)
        assert low < ratio < high, (overrides, ratio)
    adam = dict(zip(mlp_terms.FEATURES, mlp_terms.forms()["adam/default/classification"]["bytes"]))
    assert (adam["weights"], adam["rows_x_hidden"], adam["rows_x_input"]) == (22 * 4, 12 * 4, 2 * 4)


def test_a_server_counts_the_mlp_without_torch():
    """A slider's or a live point's FLOPs and bytes come from the fitted forms: no trace (it patches process-wide
    state: lib.workloads.traced) and no torch in the web server's process for them."""
    code = (
        "import sys; from lib.workloads.mlp import WORKLOAD as M\n"
        "for s in ({}, {'hidden_layers': '5,77', 'batch_size': 3}, {'data': 'iris', 'optimizer': 'sgd'}):\n"
        "    r = M.resolve(s); assert M.flops(r) > 0 and M.bytes_moved(r) > 0\n"
        "assert 'torch' not in sys.modules, 'torch was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


@pytest.mark.parametrize(
    "form",
    [pytest.param(f, marks=() if f == mlp_terms.FORMS[0] else pytest.mark.slow) for f in mlp_terms.FORMS],
    ids="/".join,
)
def test_the_shipped_mlp_forms_are_what_its_traces_give_now(form):
    """lib/workloads/mlp_counts.json: run scripts/trace_counts.py after changing the MLP's step."""
    assert mlp_fit.fit_form(form) == mlp_terms.forms()[mlp_terms.form_key(dict(zip(mlp_terms.FORM_KEYS, form)))]


def _least_profiled(name: str) -> dict[tuple[str, int], float]:
    with gzip.open(RECORDED_DIR / name) as f:
        rows = json.load(f)["rows"]
    least: dict[tuple[str, int], float] = {}
    for row in rows:
        if row.get("kernels") is not None and row["device"].startswith("cuda"):
            key = (row["mode"], int(row["depth"]))
            least[key] = min(least.get(key, float("inf")), float(row["kernels"]))
    return least


@pytest.mark.parametrize(
    "pack",
    [
        "h200_training_gpu.json.gz",
        "h100_training_gpu.json.gz",
        "h200_training_graph_d1_12.json.gz",
        "h100_training_graph.json.gz",
    ],
)
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


def test_tracing_one_family_again_keeps_every_other_familys_shipped_counts(tmp_path, monkeypatch):
    """scripts/trace_counts.py <family>: the family named is traced again (here: its entry gone from the file),
    every other family's entries are kept as the file has them (here: planted counts no trace gives)."""
    counts = json.loads(traced.COUNTS_FILE.read_text())
    work = json.loads(counted.WORK_FILE.read_text())
    planted = {k: v for k, v in counts.items() if k != "mlp"}
    planted["cnn"][0]["kernels"]["eager"] = [1.0, 2.0]
    work["cnn"][0]["parameters"] = 1
    monkeypatch.setattr(traced, "COUNTS_FILE", tmp_path / "traced_counts.json")
    monkeypatch.setattr(counted, "WORK_FILE", tmp_path / "traced_work.json")
    traced.COUNTS_FILE.write_text(json.dumps(planted))
    counted.WORK_FILE.write_text(json.dumps(work))
    try:
        traced._shipped.clear()
        counted._shipped.clear()
        traced.write_counts(FAMILIES, retrace=("mlp",))
        counted.write_work(FAMILIES, retrace=())
        written = json.loads(traced.COUNTS_FILE.read_text())
        assert {k: v for k, v in written.items() if k != "mlp"} == planted
        assert [e["structure"] for e in written["mlp"]] == [e["structure"] for e in counts["mlp"]]
        assert json.loads(counted.WORK_FILE.read_text()) == work
    finally:
        monkeypatch.undo()
        traced._shipped.clear()
        counted._shipped.clear()


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
