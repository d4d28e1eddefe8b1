"""How one training step runs: eager PyTorch, a fused optimizer, one CUDA graph, or torch.compile.

    train = make_trainer(mode, model, optimizer_for, loss_fn, example_batch, device)
    loss = train(xb, yb)        # one optimizer step; the loss stays valid until the next call

Every mode computes the same function from the same initial weights (tests compare the losses):
- eager: forward, backward and Adam (its default multi-tensor "foreach" kernels), each op
  launched from Python: a small step is bound by those launches, not by arithmetic.
- fused: the same, with Adam(fused=True): the whole update in a few kernels.
- cuda_graph: the whole step (forward, backward, update) captured once in a torch.cuda.CUDAGraph
  with static input buffers and a capturable optimizer, warmed up on a side stream as PyTorch's
  CUDA graphs guide shows, then replayed: one launch per step, plus copying the batch in.
- compile*: torch.compile of the forward+loss (its backward compiled with it) and of the optimizer
  step, in torch's modes default, reduce-overhead (which records CUDA graphs itself) and
  max-autotune-no-cudagraphs. Compiling happens in the first call: the harness reports it as the
  cold call, apart from the step time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch
    from torch import nn

MODES = ("eager", "fused", "cuda_graph", "compile", "compile_reduce_overhead", "compile_max_autotune")
TORCH_COMPILE_MODE = {
    "compile": "default",
    "compile_reduce_overhead": "reduce-overhead",
    "compile_max_autotune": "max-autotune-no-cudagraphs",
}
LABEL = {
    "eager": "eager PyTorch",
    "fused": "fused optimizer",
    "cuda_graph": "one CUDA graph",
    "compile": "torch.compile",
    "compile_reduce_overhead": "torch.compile (reduce-overhead)",
    "compile_max_autotune": "torch.compile (max-autotune)",
}
WARMUP_STEPS = 3  # before capture, on a side stream: lazy init and allocator state settle there

Train = Callable[["torch.Tensor", "torch.Tensor"], "torch.Tensor"]  # strings: torch is imported where it runs


def mode_refusal(mode: str, device: str) -> str | None:
    """Why `mode` cannot run on `device`, or None."""
    if mode == "cuda_graph" and not str(device).startswith("cuda"):
        return ("a CUDA graph records the GPU's kernel launches so they can be replayed at once; the CPU runs "
                "its operations directly and has no launches to record, so this mode runs on CUDA only")
    return None


def optimizer_options(mode: str) -> dict[str, bool]:
    """What the mode asks of the optimizer's implementation."""
    if mode == "fused":
        return {"fused": True}
    if mode == "cuda_graph":
        return {"capturable": True}  # its step counter stays on the GPU, so the update can be replayed
    return {}


def make_trainer(mode: str, model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: nn.Module,
                 example: tuple[torch.Tensor, torch.Tensor]) -> Train:
    """One optimizer step on a batch, run the way `mode` says. `example` is a batch of the shape
    every later batch has (the CUDA graph's static inputs are shaped from it)."""
    if mode in ("eager", "fused"):
        return eager_trainer(model, optimizer, loss_fn)
    if mode == "cuda_graph":
        return graph_trainer(model, optimizer, loss_fn, example)
    if mode in TORCH_COMPILE_MODE:
        return compiled_trainer(model, optimizer, loss_fn, TORCH_COMPILE_MODE[mode])
    raise ValueError(f"unknown mode {mode!r}")


def eager_trainer(model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: nn.Module) -> Train:
    def train(xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        return loss.detach()

    return train


def compiled_trainer(model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: nn.Module, torch_mode: str) -> Train:
    # A fresh compiler state per built step: each point pays (and reports) its own compile, and
    # many points in one process never reach Dynamo's recompile limit and fall back to eager.
    import torch
    torch._dynamo.reset()
    forward = torch.compile(lambda x, y: loss_fn(model(x), y), mode=torch_mode)
    update = torch.compile(optimizer.step, mode=torch_mode)
    graphs = torch_mode == "reduce-overhead"

    def train(xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
        if graphs:
            torch.compiler.cudagraph_mark_step_begin()  # a new iteration: earlier graph outputs may be reused
        optimizer.zero_grad(set_to_none=True)
        loss = forward(xb, yb)
        loss.backward()
        update()
        return loss.detach()

    return train


def graph_trainer(model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: nn.Module,
                  example: tuple[torch.Tensor, torch.Tensor]) -> Train:
    """Capture forward, backward and update once; each call copies the batch into the static
    inputs (nothing to copy when it already is them) and replays the graph."""
    import torch
    static_x, static_y = example
    initial = [p.detach().clone() for p in model.parameters()]
    side = torch.cuda.Stream(static_x.device)
    side.wait_stream(torch.cuda.current_stream(static_x.device))
    with torch.cuda.stream(side):
        for _ in range(WARMUP_STEPS):
            optimizer.zero_grad(set_to_none=True)
            loss_fn(model(static_x), static_y).backward()
            optimizer.step()
    torch.cuda.current_stream(static_x.device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    optimizer.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        static_loss = loss_fn(model(static_x), static_y)
        static_loss.backward()
        optimizer.step()
    restore_initial_state(model, optimizer, initial)

    def train(xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
        if xb.data_ptr() != static_x.data_ptr():
            static_x.copy_(xb, non_blocking=True)
            static_y.copy_(yb, non_blocking=True)
        graph.replay()
        return static_loss.detach()

    train.graph = graph  # type: ignore[attr-defined] - keeps the graph (and its memory pool) alive
    return train


def restore_initial_state(model: nn.Module, optimizer: torch.optim.Optimizer, initial: list[torch.Tensor]) -> None:
    """Undo the warm-up steps in place (the graph holds these very tensors): the initial weights
    and an empty optimizer state, so the first replay is the same step as eager's first."""
    import torch
    with torch.no_grad():
        for p, p0 in zip(model.parameters(), initial):
            p.copy_(p0)
        for state in optimizer.state.values():
            for value in state.values():
                if torch.is_tensor(value):
                    value.zero_()
