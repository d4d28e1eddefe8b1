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

Each mode is one `Mode` record in MODES, read by the workload's setting, the cost model's terms
(lib.workloads.traced), the Training page and scripts/record_packs.py: adding a mode is one
record here, plus its recording.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch
    from torch import nn


class Kernels(Enum):
    """Which kernels one step runs on the GPU (traced per family: lib.workloads.traced)."""

    EAGER = "eager"  # 6 per layer, the loss, foreach Adam
    FUSED_ADAM = "fused_adam"  # the same, with fused Adam's 2 update kernels for foreach Adam's 11
    CAPTURABLE = "capturable"  # eager's, plus the capturable optimizer's (its step count stays on the GPU)
    INDUCTOR = "inductor"  # Inductor's fused kernels: about 5 per layer and a few for the update


@dataclass(frozen=True)
class Issue:
    """How the CPU issues one step's kernels on a GPU: the cost model's counted terms (lib.core.costmodel)."""

    python_step: float = 0.0  # an eager step's Python: module calls, the optimizer's loop
    ops_per_kernel: float = 0.0  # eager dispatches, one per kernel
    compiled_launches_per_kernel: float = 0.0  # launches from Inductor's generated Python
    calls: float = 0.0  # compiled calls, each checking its guards
    replays: float = 0.0  # CUDA graph replays


@dataclass(frozen=True)
class Recording:
    """One grid scripts/record_packs.py records a mode on, into <machine>_training_<pack>.json.gz,
    at the page's defaults otherwise. None: every value of the page's slider (every `every`-th one)."""

    pack: str
    depths: tuple[int, ...] = (3,)
    widths: tuple[int, ...] | None = None
    batches: tuple[int, ...] | None = None
    every: int = 1
    profile: bool = False  # kernels per step from torch.profiler (the cost model's calibration)
    save_every: int = 50  # points between saves: 1 where each point compiles for long


@dataclass(frozen=True)
class Mode:
    """One way to run the training step, declared once: the setting's value and the words for it,
    how it is built, what the cost model counts for it, where it may run and what records it."""

    value: str  # the `mode` setting's value, in URLs, rows and the CLI
    label: str  # on the page: 'one CUDA graph'
    how: str  # the setting's help, one clause
    kernels: Kernels
    issue: Issue
    graphed: bool = False  # its kernels replay from a CUDA graph
    compile: str | None = None  # torch.compile's mode, when it compiles
    optimizer: tuple[tuple[str, bool], ...] = ()  # what it asks of the optimizer's implementation
    cpu_refusal: str | None = None  # why a CPU cannot run it (None: it can)
    cpu_curve: bool = False  # the page's CPU curve runs it too (it changes the CPU's work); else eager beside it
    live: bool = False  # offered for a live GPU: a compile at every point is too slow for a visitor's sweep
    recordings: tuple[Recording, ...] = ()  # eager: the Training grid itself (record_packs.py's training_* jobs)
    timelines: bool = False  # one step's timeline recorded at the page's main points

    def refusal(self, device: str) -> str | None:
        """Why this mode cannot run on `device`, or None."""
        return None if str(device).startswith("cuda") else self.cpu_refusal

    @property
    def on_cpu(self) -> str:
        """The mode of the CPU curve drawn beside this one."""
        return self.value if self.cpu_curve else DEFAULT


DEFAULT = "eager"
COMPILED_CALLS = 3.0  # forward, backward and update each enter compiled code through their guards
_COMPILE_RECORDING = {"widths": (64, 1024), "batches": (1, 64, 4096, 65536), "save_every": 1}
# ... and at depths 1 and 12 on the same points: Inductor's kernels per layer are the cost model's guess
# at other depths until a second depth is recorded (docs/cost_model_holdout.txt: depth-out missed ×3-7)
_COMPILE_DEPTHS = {**_COMPILE_RECORDING, "depths": (1, 12)}
MODES = (
    Mode(
        "eager",
        "eager PyTorch",
        "eager PyTorch",
        Kernels.EAGER,
        Issue(python_step=1.0, ops_per_kernel=1.0),
        cpu_curve=True,
        live=True,
        timelines=True,
    ),
    Mode(
        "fused",
        "fused optimizer",
        "Adam(fused=True)",
        Kernels.FUSED_ADAM,
        Issue(python_step=1.0, ops_per_kernel=1.0),
        optimizer=(("fused", True),),
        cpu_curve=True,
        live=True,
        recordings=(Recording("fused"), Recording("fused_d1_12", depths=(1, 12), every=2)),
    ),
    Mode(
        "cuda_graph",
        "one CUDA graph",
        "the whole step captured once in a CUDA graph and replayed; CUDA only",
        Kernels.CAPTURABLE,
        Issue(replays=1.0),
        graphed=True,
        optimizer=(("capturable", True),),  # its step counter stays on the GPU, so the update can be replayed
        cpu_refusal=(
            "a CUDA graph records the GPU's kernel launches so they can be replayed at once; the CPU runs "
            "its operations directly and has no launches to record, so this mode runs on CUDA only"
        ),
        live=True,
        timelines=True,
        recordings=(Recording("graph", profile=True), Recording("graph_d1_12", depths=(1, 12), every=2, profile=True)),
    ),
    Mode(
        "compile",
        "torch.compile",
        "torch.compile in its default mode; the compile is paid in the first call",
        Kernels.INDUCTOR,
        Issue(compiled_launches_per_kernel=1.0, calls=COMPILED_CALLS),
        compile="default",
        recordings=(Recording("compile", **_COMPILE_RECORDING), Recording("compile_d1_12", **_COMPILE_DEPTHS)),
    ),
    Mode(
        "compile_reduce_overhead",
        "torch.compile (reduce-overhead)",
        "torch.compile's reduce-overhead mode, which replays its kernels from CUDA graphs",
        Kernels.INDUCTOR,
        Issue(calls=COMPILED_CALLS, replays=COMPILED_CALLS),
        graphed=True,
        compile="reduce-overhead",
        recordings=(
            Recording("compile_reduce_overhead", **_COMPILE_RECORDING),
            Recording("compile_reduce_overhead_d1_12", **_COMPILE_DEPTHS),
        ),
    ),
    Mode(
        "compile_max_autotune",
        "torch.compile (max-autotune)",
        "torch.compile's max-autotune-no-cudagraphs mode",
        Kernels.INDUCTOR,
        Issue(compiled_launches_per_kernel=1.0, calls=COMPILED_CALLS),
        compile="max-autotune-no-cudagraphs",
        recordings=(Recording("compile_max_autotune", widths=(64, 1024), batches=(64, 4096), save_every=1),),
    ),
)
BY_VALUE = {m.value: m for m in MODES}
VALUES = tuple(BY_VALUE)
WARMUP_STEPS = 3  # before capture, on a side stream: lazy init and allocator state settle there

Train = Callable[["torch.Tensor", "torch.Tensor"], "torch.Tensor"]  # strings: torch is imported where it runs


def mode(value: Any) -> Mode:
    """The record of a mode's value ('cuda_graph'); KeyError names the known ones."""
    try:
        return BY_VALUE[str(value)]
    except KeyError:
        raise KeyError(f"unknown mode {value!r} (known: {', '.join(VALUES)})") from None


def label(value: Any) -> str:
    """A mode's words on the page; an unknown value (an uploaded row's) as it is."""
    found = BY_VALUE.get(str(value))
    return found.label if found else str(value)


def graphed(value: Any) -> bool:
    """Whether a mode's kernels replay from a CUDA graph (False for a value no record names)."""
    found = BY_VALUE.get(str(value))
    return bool(found and found.graphed)


def on_cpu(value: Any) -> str:
    """The mode the CPU curve beside `value` runs (eager beside a mode that only changes the GPU's side)."""
    found = BY_VALUE.get(str(value))
    return found.on_cpu if found else DEFAULT


def setting_help() -> str:
    """The `mode` setting's help, from the records."""
    return "how the step runs: " + "; ".join(f"{m.value} ({m.how})" for m in MODES)


def mode_refusal(value: str, device: str) -> str | None:
    """Why `value` cannot run on `device`, or None."""
    return mode(value).refusal(device)


def optimizer_options(value: str) -> dict[str, bool]:
    """What the mode asks of the optimizer's implementation."""
    return dict(mode(value).optimizer)


def make_trainer(
    mode: str,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    loss_fn: nn.Module,
    example: tuple[torch.Tensor, torch.Tensor],
) -> Train:
    """One optimizer step on a batch, run the way `mode` says. `example` is a batch of the shape
    every later batch has (the CUDA graph's static inputs are shaped from it)."""
    how = BY_VALUE.get(mode)
    if how is None:
        raise ValueError(f"unknown mode {mode!r}")
    if how.compile:
        return compiled_trainer(model, optimizer, loss_fn, how.compile, graphs=how.graphed)
    if how.graphed:
        return graph_trainer(model, optimizer, loss_fn, example)
    return eager_trainer(model, optimizer, loss_fn)


def eager_trainer(model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: nn.Module) -> Train:
    def train(xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        return loss.detach()

    return train


def compiled_trainer(
    model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: nn.Module, torch_mode: str, *, graphs: bool = False
) -> Train:
    # A fresh compiler state per built step: each point pays (and reports) its own compile, and
    # many points in one process never reach Dynamo's recompile limit and fall back to eager.
    import torch

    torch._dynamo.reset()
    forward = torch.compile(lambda x, y: loss_fn(model(x), y), mode=torch_mode)
    update = torch.compile(optimizer.step, mode=torch_mode)

    def train(xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
        if graphs:
            torch.compiler.cudagraph_mark_step_begin()  # a new iteration: earlier graph outputs may be reused
        optimizer.zero_grad(set_to_none=True)
        loss = forward(xb, yb)
        loss.backward()
        update()
        return loss.detach()

    return train


def graph_trainer(
    model: nn.Module, optimizer: torch.optim.Optimizer, loss_fn: nn.Module, example: tuple[torch.Tensor, torch.Tensor]
) -> Train:
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
