"""A model family's counted step (lib.workloads.counted): FLOPs, bytes, forward bytes and parameters from the
one tracer (lib.workloads.traced.trace_step), held against an independent count on the meta device (what
lib.workloads.counted did before issue 38's unification: the model's forward, loss and backward, no step
builder, no optimizer flags), and shipped for every setting the Training page reaches."""

from __future__ import annotations

import pytest

from lib.workloads import FAMILIES, counted, get_workload


def meta_count(work, settings, rows: int) -> tuple[float, float, float, int]:
    """(matmul FLOPs, bytes, forward bytes, parameters) of one step at `rows` on the meta device: FlopCounterMode
    over forward, loss and backward; the bytes every non-view operator of forward, loss, backward and a
    for-loop Adam reads and writes; the outputs of the forward and the loss."""
    import torch
    from torch.nn import functional as F
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves
    from torch.utils.flop_counter import FlopCounterMode

    def nbytes(tree) -> int:
        return sum(t.numel() * t.element_size() for t in tree_leaves(tree) if isinstance(t, torch.Tensor))

    class Bytes(TorchDispatchMode):
        moved = made = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if not func.is_view:
                self.made += nbytes(out)
                self.moved += nbytes(out) + nbytes((args, kwargs))
            return out

    with torch.device("meta"):
        model = work.model_factory(settings)()
    optimizer = torch.optim.Adam(model.parameters(), foreach=False)
    dtype = getattr(torch, work.sample_dtype)
    x = torch.zeros((rows, *work.sample_shape(settings)), dtype=dtype, device="meta")
    y = torch.zeros((rows,), dtype=torch.long, device="meta")
    F.cross_entropy(model(x), y).backward()
    optimizer.step()  # Adam's state made
    forward, whole = Bytes(), Bytes()
    with FlopCounterMode(display=False) as flops, whole:
        optimizer.zero_grad(set_to_none=True)
        with forward:
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    return (
        float(flops.get_total_flops()),
        float(whole.moved),
        float(forward.made),
        sum(p.numel() for p in model.parameters()),
    )


CASES = [
    ("cnn", {"channels": 4, "depth": 1}),
    ("cnn", {"channels": 16, "depth": 3, "classes": 100}),
    ("transformer", {"d_model": 16, "layers": 1, "seq_len": 16}),
    ("transformer", {"d_model": 64, "layers": 2, "heads": 8}),
    pytest.param("torchvision", {"model": "resnet18", "image_size": 32}, marks=pytest.mark.slow),
    pytest.param("torchvision", {"model": "vit_tiny", "image_size": 32}, marks=pytest.mark.slow),
]
ATTENTION = {"transformer", "vit_tiny"}


@pytest.mark.parametrize("name,given", CASES)
def test_the_traced_count_equals_a_meta_device_count(name, given):
    """FLOPs and parameters equal at every batch. Bytes: the same per row, and the fixed part within 0.1 % (the
    trace runs CUDA's foreach Adam and leaves out its step counters, kept on the host), except where attention
    runs: the meta device ran it as its math (the scores' seq x seq matrix written, read and kept), the trace as
    the fused kernel a GPU runs (and the CPU: neither materialises the scores), so its bytes are fewer."""
    work = get_workload(name)
    settings = work.resolve({**given, "dataset_size": 4096})
    counts = counted._traced(work, tuple(counted.counted_settings(work, settings).items()))
    attention = {name, given.get("model")} & ATTENTION
    meta = {rows: meta_count(work, settings, rows) for rows in (2, 5, 64)}
    for rows, (flops, moved, made, parameters) in meta.items():
        assert counts.flops(rows) == flops and counts.parameters == parameters, rows
        if attention:
            assert 0.5 * moved < counts.bytes(rows) < moved and 0.4 * made < counts.forward_bytes(rows) < made, rows
        else:
            assert counts.bytes(rows) == pytest.approx(moved, rel=1e-3)
            assert counts.forward_bytes(rows) == pytest.approx(made, rel=1e-3, abs=4096)
    if not attention:  # the line's slope is the meta device's, exactly, between two of the batches above
        assert counts.bytes_line.per_row == (meta[5][1] - meta[2][1]) / 3
        assert counts.forward_line.per_row == (meta[5][2] - meta[2][2]) / 3


def test_the_counts_are_the_workloads_estimates():
    work = get_workload("cnn")
    settings = work.resolve({"batch_size": 100, "dataset_size": 64, "data_resident": False})
    counts = work.counts(settings)
    assert work.flops(settings) == counts.flops(64)  # one full-batch step of the 64 samples
    assert work.bytes_moved(settings) == counts.bytes(64) + 64 * work.sample_bytes(settings)  # plus the copied batch
    assert work.parameter_count(settings) == counts.parameters


def test_every_setting_the_page_reaches_is_shipped():
    """The web server draws a recorded view of any slider position without torch: its counts are in the file."""
    for family in FAMILIES:
        if not hasattr(family.workload, "counts"):
            continue  # the MLP's are its own formulas
        shipped = counted._shipped()[family.name]
        reached = counted.page_settings(family)
        assert len(reached) == len(shipped) and all(counted._key_text(s) in shipped for s in reached), family.name


@pytest.mark.parametrize(
    "name,given",
    [
        ("cnn", {}),
        ("transformer", {"seq_len": 16, "layers": 3}),
        pytest.param("torchvision", {"model": "mobilenet_v3_small", "image_size": 96}, marks=pytest.mark.slow),
    ],
)
def test_the_shipped_counts_are_what_a_trace_gives_now(name, given):
    """Run scripts/trace_counts.py after changing a family's step (a few settings checked here: all take minutes)."""
    work = get_workload(name)
    key = counted.counted_settings(work, work.resolve(given))
    assert counted._shipped()[name][counted._key_text(key)] == counted._traced(work, tuple(key.items()))


def test_a_setting_off_the_shipped_table_is_traced_once_for_every_batch():
    work = get_workload("cnn")
    off = work.resolve({"channels": 5, "depth": 1, "batch_size": 8})
    assert counted._key_text(counted.counted_settings(work, off)) not in counted._shipped()["cnn"]
    assert work.counts(off) is work.counts(off.replace(batch_size=512, mode="cuda_graph", data_resident=False))
    assert work.counts(off).parameters == 3 * 5 * 9 + 2 * 5 + 5 * 10 * 9 + 2 * 10 + 10 * 20 * 9 + 2 * 20 + 20 * 10 + 10
