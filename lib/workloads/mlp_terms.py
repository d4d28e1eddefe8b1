"""What one MLP training step asks of the machine, counted from its structure, per execution mode
and switch: the terms lib.core.costmodel prices.

    terms = step_terms(settings, "cuda")   # {'fixed': 1, 'ops': 36, 'kernels': 36, 'flops': ..., ...}

Counts come from how the step is built (lib.workloads.mlp and .execution), checked against the
recorded profiles (torch.profiler's kernels per step on the H100 and the H200). Which kernels a mode
runs and how the CPU issues them is its record's (execution.Mode: `kernels`, `issue`, `graphed`):

- eager: every operation is dispatched from Python and launches its kernels. Each Linear layer
  costs 6 kernels (forward: addmm, ReLU; backward: two matmuls, the bias reduction, ReLU's
  backward), and the loss and foreach Adam about 12 more: 18 + 6 × depth, exactly the least count
  profiled at every depth 1-16. The CPU issues about one operation per kernel.
- fused: Adam(fused=True) does the update in about 2 kernels instead of foreach Adam's 11.
- cuda_graph: the CPU issues one replay; the GPU still runs every kernel, plus the capturable
  optimizer's (its step counts stay on the GPU): 9 + 4 per layer, the difference profiled at depth 1
  (17), 3 (25) and 12 (61) on the H200 and the H100 at most shapes: 61 at depth 3, against 36. They
  run back to back: no launch term, so lib.core.costmodel takes their recorded busy time as it is,
  where eager's, launched one at a time onto an idle GPU, is stretched (costmodel.stretched_busy).
- compile, compile_max_autotune: Inductor fuses the pointwise work (about 5 kernels per layer and
  a few for the update), launched from generated Python (a 'compiled launch', cheaper than an
  eager dispatch); each of the three compiled calls (forward, backward, update) checks its guards.
- compile_reduce_overhead: the same kernels, replayed from three CUDA graphs.
- data copied per batch: two copies (features, labels) and their bytes over the host link; from
  pageable memory the copy first synchronises the stream (CUDA's documented behaviour), so the
  CPU waits for the GPU once per step. item() every step is one synchronisation too.

What the structure cannot know (a shape where cuBLAS splits a matmul into more kernels) is
calibrated against the profiles by the caller (lib.lessons.training.model).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lib.workloads.execution import DEFAULT, Kernels, mode

BYTES_PER_FLOAT = 4
KERNELS_PER_LAYER = 6
EAGER_BASE_KERNELS = 12  # loss forward/backward, foreach Adam, less the first layer's missing input grad
FOREACH_ADAM_KERNELS = 11
FUSED_ADAM_KERNELS = 2
CAPTURABLE_BASE_KERNELS = 9  # the capturable optimizer's work on its step counts: 9 + 4 per layer
CAPTURABLE_KERNELS_PER_LAYER = 4
COMPILED_KERNELS_PER_LAYER = 5
COMPILED_BASE_KERNELS = 6


def layers(settings: Mapping[str, Any]) -> int:
    """Linear layers: the hidden ones and the output layer."""
    spec = str(settings.get("hidden_layers", "") or "").strip()
    return (len([w for w in spec.split(",") if w.strip()]) if spec else int(settings["depth"])) + 1


def eager_kernels(settings: Mapping[str, Any]) -> float:
    """Kernels of one eager step with foreach Adam, from the structure alone: 18 + 6 × depth."""
    return float(EAGER_BASE_KERNELS + KERNELS_PER_LAYER * layers(settings))


def structural_kernels(settings: Mapping[str, Any]) -> float:
    """Kernels per step the mode runs on the GPU, from the structure alone."""
    kind = mode(settings.get("mode", DEFAULT)).kernels
    eager = eager_kernels(settings)
    if kind is Kernels.FUSED_ADAM:
        return eager - FOREACH_ADAM_KERNELS + FUSED_ADAM_KERNELS
    if kind is Kernels.CAPTURABLE:
        return eager + CAPTURABLE_BASE_KERNELS + CAPTURABLE_KERNELS_PER_LAYER * layers(settings)
    if kind is Kernels.INDUCTOR:
        return float(COMPILED_BASE_KERNELS + COMPILED_KERNELS_PER_LAYER * layers(settings))
    return eager


def copied_bytes(settings: Mapping[str, Any], rows: int) -> float:
    """Bytes of one batch copied from host memory: float features and int64 labels (or float targets)."""
    target = 8 if settings.get("task", "classification") == "classification" else BYTES_PER_FLOAT * int(settings["outputs"])
    return float(rows * (int(settings["input_features"]) * BYTES_PER_FLOAT + target))


def step_terms(settings: Mapping[str, Any], device_kind: str, *, flops: float, bytes_moved: float, rows: int,
               kernels: float | None = None) -> dict[str, float]:
    """The terms of one step on a 'cpu' or 'cuda' device. `bytes_moved` is the step's memory
    traffic without host copies; `kernels` the calibrated count when the caller has one."""
    how = mode(settings.get("mode", DEFAULT))
    kernels = structural_kernels(settings) if kernels is None else float(kernels)
    terms = {"fixed": 1.0, "flops": float(flops), "bytes": float(bytes_moved)}
    if device_kind == "cpu":
        # no launches, copies or synchronisations on the CPU: every operation runs where it is issued
        terms["ops"] = structural_kernels({**settings, "mode": how.on_cpu})
        return terms
    terms["kernels"] = kernels  # a graph's kernels cost the GPU what eager's do (lib.core.costmodel)
    issue = how.issue  # what the mode's record says the CPU does to issue the kernels
    for name, count in (("python_step", issue.python_step), ("ops", issue.ops_per_kernel * kernels),
                        ("compiled_launches", issue.compiled_launches_per_kernel * kernels),
                        ("calls", issue.calls), ("replays", issue.replays)):
        if count:
            terms[name] = count
    syncs = 0.0
    if not settings.get("data_resident", True):
        pinned = bool(settings.get("pin_memory", False))
        terms["copies"] = 2.0
        terms["copy_bytes"] = copied_bytes(settings, rows)
        if not pinned:
            terms["staged_bytes"] = terms["copy_bytes"]  # the CPU copies pageable memory to a staging buffer
            syncs += 1.0
    if settings.get("item_every_step", False):
        terms["copies"] = terms.get("copies", 0.0) + 1.0
        syncs += 1.0
    if syncs:
        terms["syncs"] = syncs
    return terms
