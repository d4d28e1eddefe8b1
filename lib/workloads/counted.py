"""What one training step of a model asks of the machine, counted by PyTorch itself on the meta device
(shapes only: no memory is allocated and nothing is computed), for the model families that have no
formula of their own (lib.workloads.cnn, .transformer, .vision).

    counts = step_counts(make_model, sample_shape, sample_dtype, classes)   # once per model shape
    counts.flops(rows), counts.bytes(rows), counts.parameters

- FLOPs: torch.utils.flop_counter.FlopCounterMode over the forward, the loss and the backward (it
  counts the matrix work: matmuls, convolutions, attention; elementwise work and reductions are not
  FLOPs to it, as they are not to the MLP's count).
- bytes: every ATen operator the step dispatches (forward, loss, backward and Adam's update), the bytes
  of the tensors it reads and writes; views move nothing and are left out.
- forward bytes: the tensors the forward pass makes, which the backward keeps (the peak memory estimate).

Counted at two batch sizes: every count here grows linearly with the batch (no operator of these models
mixes samples but BatchNorm's statistics, per row too), so a step at any batch is fixed + per row x rows.
The batches are 2 and 4, not 1: at batch 1 a few operators take another path (a count there is off the line).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    from torch import nn

COUNT_BATCHES = (2, 4)


@dataclass(frozen=True)
class Line:
    """fixed + per_row x rows."""

    fixed: float
    per_row: float

    def at(self, rows: int) -> float:
        return self.fixed + self.per_row * rows

    @classmethod
    def through(cls, a: tuple[int, float], b: tuple[int, float]) -> Line:
        per_row = (b[1] - a[1]) / (b[0] - a[0])
        return cls(max(0.0, a[1] - per_row * a[0]), per_row)


@dataclass(frozen=True)
class StepCounts:
    """One model shape's counted step: FLOPs, bytes moved and forward activations as lines in the rows."""

    flops_line: Line
    bytes_line: Line
    forward_line: Line
    parameters: int

    def flops(self, rows: int) -> float:
        return self.flops_line.at(rows)

    def bytes(self, rows: int) -> float:
        return self.bytes_line.at(rows)

    def forward_bytes(self, rows: int) -> float:
        return self.forward_line.at(rows)


def _dispatch_counter():
    """A dispatch mode that adds up the bytes each non-view operator reads and writes."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    class Bytes(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.bytes = 0
            self.outputs = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if not func.is_view:  # a view shares its input's memory: nothing is read or written
                made = _nbytes(out)
                self.outputs += made
                self.bytes += made + _nbytes((args, kwargs))
            return out

    def _nbytes(tree) -> int:
        return sum(t.numel() * t.element_size() for t in tree_flatten(tree)[0] if isinstance(t, torch.Tensor))

    return Bytes()


def _count_at(model: nn.Module, optimizer, rows: int, sample_shape: tuple[int, ...], sample_dtype: str,
              classes: int) -> tuple[float, float, float]:
    """(FLOPs, bytes, forward bytes) of one step at `rows` on the meta device."""
    import torch
    from torch.nn import functional as F
    from torch.utils.flop_counter import FlopCounterMode

    x = torch.zeros((rows, *sample_shape), dtype=getattr(torch, sample_dtype), device="meta")
    y = torch.zeros((rows,), dtype=torch.long, device="meta")
    forward, whole = _dispatch_counter(), _dispatch_counter()
    with FlopCounterMode(display=False) as flops, whole:
        optimizer.zero_grad(set_to_none=True)
        with forward:
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    return float(flops.get_total_flops()), float(whole.bytes), float(forward.outputs)


def step_counts(make_model: functools.partial, sample_shape: tuple[int, ...], sample_dtype: str,
                classes: int) -> StepCounts:
    """The counted step of the model `make_model` builds (called on the meta device), on samples of
    `sample_shape` ('float32' images, 'int64' tokens) with `classes` classes. Cached per shape: make_model is a
    functools.partial of a module-level function, keyed by its function and arguments (two partials of the same
    call are not equal to each other, so keyed by themselves every call missed: seconds per recorded row)."""
    key = (make_model.func, make_model.args, tuple(sorted(make_model.keywords.items())))
    return _step_counts(key, sample_shape, sample_dtype, classes)


@functools.lru_cache(maxsize=64)
def _step_counts(key: tuple, sample_shape: tuple[int, ...], sample_dtype: str, classes: int) -> StepCounts:
    import torch

    func, args, keywords = key
    make_model = functools.partial(func, *args, **dict(keywords))

    with torch.device("meta"):
        model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    _count_at(model, optimizer, COUNT_BATCHES[0], sample_shape, sample_dtype, classes)  # Adam makes its state
    at = {b: _count_at(model, optimizer, b, sample_shape, sample_dtype, classes) for b in COUNT_BATCHES}
    lines = [Line.through(*((b, at[b][i]) for b in COUNT_BATCHES)) for i in range(3)]
    return StepCounts(*lines, parameters=sum(p.numel() for p in model.parameters()))
