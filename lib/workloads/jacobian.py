"""Jacobian of a small tanh network over a batch (seed 004): the method is the real cost.

The seed's network maps one number to 400: Linear(1, 20) - tanh - Linear(20, 20) - tanh -
Linear(20, 400) (`hidden`, `outputs`), applied to a batch of `val` scalars (val x 1). One call of
the step computes the Jacobian by `method`:

- loop: torch.autograd.functional.jacobian(net, t) -- what the seed ran. A Python loop of
  val*outputs backward passes, each through the whole batch; the result is the full
  (val, outputs, val, 1) Jacobian.
- vectorize: the same call with vectorize=True: one batched backward over a basis of
  (outputs*val)^2 numbers -- 6.4 GB at val=100, 640 GB at val=1000 (fp32), so it is refused
  before allocating beyond small val.
- vmap_jacrev / vmap_jacfwd: torch.func.vmap(torch.func.jacrev(f)) or vmap(jacfwd(f)) of the
  per-sample function: (val, outputs, 1).

The rows of the batch are independent, so the full Jacobian is block-diagonal: entry
[i, :, j, :] is zero for i != j. The per-sample methods compute only the diagonal blocks,
val times less work than the loop; check() verifies that they equal the diagonal blocks of
the full Jacobian and that its off-diagonal blocks are zero.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch
    from torch import nn

from lib.core.devices import is_cuda
from lib.core.workload import Extras, Setting, Settings, Step, Workload

METHODS = ("loop", "vectorize", "vmap_jacrev", "vmap_jacfwd")
BYTES_PER_FLOAT = 4
CHECK_ROWS = 3  # check() works on the first few rows: the full Jacobian there is small

# On the CPU, glibc 2.36's malloc strands the loop's per-pass temporaries (each backward pass
# allocates a zero-filled (val, outputs) gradient of the output; the kept gradient lands in the freed
# chunk and the next temporary no longer fits), so resident memory grows by up to one temporary a
# pass. The estimate takes that bound: fresh processes on torch 2.11 / glibc 2.36 stranded 0.42-0.85
# of one a pass at val = 30-100 (docs/jacobian_loop_memory.txt); processes the profiler had run in
# first stranded less, and the old fraction, 0.6, was fitted to them. glibc 2.39 (the GPU machines'
# hosts) reuses the chunk: 5 kB a pass at val = 1,000 over 60,000 passes, the kept gradient alone, so
# the seed's val = 1,000 needs a few GB there, not 640. CUDA's caching allocator reuses blocks.
CPU_LOOP_STRANDED_FRACTION = 1.0
REUSING_GLIBC = (2, 39)  # the oldest glibc measured not to strand them
KEPT_TENSOR_BYTES = 1000  # each pass's kept gradient: a tensor object beside its val floats
BASE_BYTES = 64e6  # autograd / functorch bookkeeping beyond the tensors counted below


def glibc_strands(version: str | None = None) -> bool:
    """Does this process's C library strand the loop's temporaries? Yes unless it is a glibc at least
    REUSING_GLIBC; other C libraries (musl) and an unknown version count as stranding: the estimate
    must bound the peak, and a refusal says how much it needs."""
    import os

    if version is None:
        try:
            version = os.confstr("CS_GNU_LIBC_VERSION")
        except (AttributeError, ValueError, OSError):
            version = None
    parts = (version or "").split()
    if len(parts) != 2 or parts[0] != "glibc":
        return True
    try:
        major, minor = (int(x) for x in parts[1].split(".")[:2])
    except ValueError:
        return True
    return (major, minor) < REUSING_GLIBC


def build_net(params: Settings) -> nn.Sequential:
    """The seed's 1-20-20-400 tanh network, seeded on the CPU so every device gets the same one."""
    import torch
    from torch import nn

    hidden, outputs = int(params["hidden"]), int(params["outputs"])
    state = torch.random.get_rng_state()
    torch.manual_seed(int(params["seed"]))
    net = nn.Sequential(
        nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, outputs)
    )
    torch.random.set_rng_state(state)
    return net.requires_grad_(False)  # the Jacobian is with respect to the input only


def make_input(params: Settings, rows: int | None = None) -> torch.Tensor:
    import torch

    gen = torch.Generator().manual_seed(int(params["seed"]) + 1)
    t = torch.rand(int(params["val"]), 1, generator=gen)
    return t if rows is None else t[:rows]


def jacobian_fn(method: str, net: nn.Module) -> Callable[[torch.Tensor], torch.Tensor]:
    """t (val, 1) -> the Jacobian by `method`: full (val, outputs, val, 1) for loop / vectorize,
    per-sample (val, outputs, 1) for the vmap methods."""
    import torch

    if method == "loop":
        return lambda t: torch.autograd.functional.jacobian(net, t)
    if method == "vectorize":
        return lambda t: torch.autograd.functional.jacobian(net, t, vectorize=True)

    def one(x: torch.Tensor) -> torch.Tensor:  # one sample: (1,) -> (outputs,)
        return net(x)

    transform = torch.func.jacrev if method == "vmap_jacrev" else torch.func.jacfwd
    return torch.func.vmap(transform(one))


def diagonal_blocks(full: torch.Tensor) -> torch.Tensor:
    """(val, outputs, val, 1) -> (val, outputs, 1): the blocks d out[i] / d t[i]."""
    import torch

    rows = full.shape[0]
    index = torch.arange(rows, device=full.device)
    return full[index, :, index, :]


class Jacobian(Workload):
    name = "jacobian"
    title = "Jacobian of a small network over a batch"
    description = (
        "The Jacobian of the seed's 1-20-20-400 tanh network over a batch of val inputs, by four methods: "
        "a Python loop of backward passes (the seed), the same vectorized, and torch.func's vmap of "
        "jacrev or jacfwd per sample. The algorithm changes the cost far more than the device does."
    )
    settings = (
        Setting("val", 10, "inputs in the batch (the seed ran 100 and 1000)", 1, 100_000, log=True),
        Setting(
            "method",
            "loop",
            "loop: autograd.functional.jacobian (the seed); vectorize: the same with vectorize=True; vmap_jacrev / vmap_jacfwd: torch.func per sample",
            choices=METHODS,
        ),
        Setting("hidden", 20, "units in each of the two hidden tanh layers", 1, 4096, log=True),
        Setting("outputs", 400, "network outputs", 1, 65_536, log=True),
        Setting("seed", 0, "random seed for weights and inputs", 0, 2**31 - 1),
    )

    # -- estimates -----------------------------------------------------------------------------
    def forward_flops_per_sample(self, params: Settings) -> float:
        h, o = int(params["hidden"]), int(params["outputs"])
        return 2.0 * (h + h * h + h * o) + 4.0 * h  # three matmuls, two tanh

    def flops(self, params: Settings) -> float:
        val, o = int(params["val"]), int(params["outputs"])
        fwd = self.forward_flops_per_sample(params)
        method = params["method"]
        if method in ("loop", "vectorize"):
            return val * fwd + val * o * 2.0 * val * fwd  # val*outputs backward passes over the whole batch
        if method == "vmap_jacrev":
            return val * fwd + val * o * 2.0 * fwd  # outputs backward passes per sample
        return 3.0 * val * fwd  # one forward-mode pass per sample (the input is one number)

    def bytes_moved(self, params: Settings) -> float:
        val, h, o = int(params["val"]), int(params["hidden"]), int(params["outputs"])
        weights = (2 * h + h * h + h + h * o + o) * BYTES_PER_FLOAT
        acts = val * (2 * h + o) * BYTES_PER_FLOAT
        method = params["method"]
        if method in ("loop", "vectorize"):
            passes = val * o
            return float(passes * (weights + acts + val * o * BYTES_PER_FLOAT) + val * o * val * BYTES_PER_FLOAT)
        if method == "vmap_jacrev":
            return float(weights + val * o * (2 * h + o) * BYTES_PER_FLOAT)
        return float(weights + 3 * acts)

    def peak_memory_bytes(self, params: Settings, device: str) -> float:
        val, h, o = int(params["val"]), int(params["hidden"]), int(params["outputs"])
        method = params["method"]
        graph = val * (4 * h + 2 * o) * BYTES_PER_FLOAT
        full = float(val) * o * val * BYTES_PER_FLOAT  # the (val, outputs, val, 1) result
        if method == "loop":
            # per-pass gradients kept in a list, then stacked into the result: twice the result
            peak = graph + 2 * full + val * o * (BYTES_PER_FLOAT + KEPT_TENSOR_BYTES)
            if not is_cuda(device) and glibc_strands():
                peak += CPU_LOOP_STRANDED_FRACTION * val * o * (val * o * BYTES_PER_FLOAT)
            return float(BASE_BYTES + peak)
        if method == "vectorize":
            n = float(val) * o
            basis = n * n * BYTES_PER_FLOAT  # one grad_output per output element: an (n x n) identity
            batched = n * val * (3 * h + 2) * BYTES_PER_FLOAT  # the basis pushed back through the layers
            return float(BASE_BYTES + basis + batched + full + graph)
        if method == "vmap_jacrev":
            basis = o * o * BYTES_PER_FLOAT
            batched = float(val) * o * (3 * h + 2) * BYTES_PER_FLOAT
            return float(BASE_BYTES + basis + batched + graph)
        return float(BASE_BYTES + 4 * graph)

    # -- the step --------------------------------------------------------------------------------
    def build(self, params: Settings, device: str) -> Step:
        import torch

        dev = torch.device(device)
        net = build_net(params).to(dev)
        t = make_input(params).to(dev)
        method = params["method"]
        fn = jacobian_fn(method, net)
        val, o = int(params["val"]), int(params["outputs"])
        full = method in ("loop", "vectorize")

        def run() -> torch.Tensor:
            return fn(t)

        def check() -> None:
            rows = min(val, CHECK_ROWS)
            small = t[:rows]
            reference = torch.autograd.functional.jacobian(net, small)  # full (rows, o, rows, 1)
            assert reference.shape == (rows, o, rows, 1), f"full Jacobian has shape {tuple(reference.shape)}"
            off_diagonal = ~torch.eye(rows, dtype=torch.bool, device=reference.device)
            if rows > 1:
                worst = reference.permute(0, 2, 1, 3)[off_diagonal].abs().max().item()
                assert worst == 0.0, f"off-diagonal blocks of the full Jacobian are not zero (max {worst:.3g})"
            ours = reference if method == "loop" else jacobian_fn(method, net)(small)
            if full and rows > 1:
                worst = ours.permute(0, 2, 1, 3)[off_diagonal].abs().max().item()
                assert worst == 0.0, f"{method}: off-diagonal blocks are not zero (max {worst:.3g})"
            blocks = diagonal_blocks(ours) if full else ours
            expected = diagonal_blocks(reference)
            assert blocks.shape == expected.shape, (
                f"{method} gave shape {tuple(blocks.shape)}, expected {tuple(expected.shape)}"
            )
            err = (blocks - expected).abs().max().item()
            scale = expected.abs().max().item() or 1.0
            assert err <= 1e-4 * scale + 1e-6, f"{method} differs from the loop's diagonal blocks by {err:.3g}"

        # Only `note` reaches the result row (a reserved column); the counts, which change with
        # val, stay with the step so that rows of one sweep still share their settings.
        counts = JacobianCounts(
            shape=(val, o, val, 1) if full else (val, o, 1),
            entries_computed=val * o * val if full else val * o,
            entries_needed=val * o,
            backward_passes={"loop": val * o, "vectorize": 1, "vmap_jacrev": 1, "vmap_jacfwd": 0}[method],
        )
        strands = method == "loop" and not is_cuda(device) and glibc_strands()
        note = (
            "on the CPU the loop's resident memory grows with every backward pass: the C allocator "
            "cannot reuse the freed per-pass temporaries"
        )
        return Step(run=run, check=check, extras=Extras(note=note if strands else None, detail=counts))


class JacobianCounts(NamedTuple):
    """What one call of a method computes: the Jacobian's shape, the entries it computes and needs, and
    its backward passes."""

    shape: tuple[int, ...]
    entries_computed: int
    entries_needed: int
    backward_passes: int


WORKLOAD = Jacobian()
