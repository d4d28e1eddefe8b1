"""What one training step asks of a GPU, counted from the step itself: its ATen operators traced once
on the CPU under FakeTensorMode (no memory allocated, no arithmetic done), for any Training family.

    traced = trace_step(WORKLOAD, settings)   # TracedStep(ops=36, flops_matmul=..., by_op={...})
    step_terms, structural_kernels = family_terms(WORKLOAD)   # what TrainingFamily takes

The step traced is the workload's own: `build(settings, "cpu").run()` (forward, loss, backward,
optimizer and the epoch's loss sum), run once to create the optimizer's state, then traced. A CPU
trace issues what CUDA would, except where the optimizer picks another path on a GPU; a global
optimizer hook sets those flags as CUDA has them (lib.workloads.tracing.gpu_flags), and ops on the optimizer's step
counters are left out where CUDA keeps those counters on the host.

Kernels are counted as ATen operators, one kernel each (tracing.NO_KERNEL: those that launch none;
EXTRA_KERNELS: those that launch more; foreach_kernels: CUDA's multi-tensor launches). On the MLP,
plus the one event the profiler adds (PROFILED_EXTRA), that is exactly the least kernel count
torch.profiler recorded on the H100 and the H200 at every depth 1-16 (tests/test_traced.py). What a shape adds (cuBLAS splitting a
large matmul, a foreach op over more tensors than one launch takes) is calibrated by the caller
against the profiles (lib.lessons.training.model), as before.

The modes: eager's count is the trace; fused and CUDA-graph steps are traced with their optimizer
(Adam(fused=True), Adam(capturable=True)); Inductor's is derived from the eager trace (`inductor_kernels`).

The same trace gives the step's work (FLOPs, bytes, the forward's outputs and the parameters): the
model families' counts, as lines in the rows, are lib.workloads.counted's, made from two traces.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lib.core.cache import kept
from lib.core.point import Frozen
from lib.core.workload import Workload
from lib.workloads import execution
from lib.workloads.execution import DEFAULT, Kernels
from lib.workloads.tracing import OpCounter, flop_formulas, gpu_flags, inductor_kernels, modules_stay

# the settings a trace leaves at their defaults: switches are priced apart (StepTerms),
# the seed and learning rate change no operator
_PRICED_APART = ("data_resident", "item_every_step", "pin_memory", "seed", "lr")


@dataclass(frozen=True)
class TracedStep:
    """One training step as a GPU would run it eagerly: its kernels and their work."""

    ops: int  # kernels launched: ATen operators less NO_KERNEL, plus EXTRA_KERNELS
    flops_matmul: float  # matmul, convolution and attention (torch.utils.flop_counter)
    flops_other: float  # elementwise and reductions: one per element of each op's largest operand
    bytes_read: float  # every tensor operand of each kernel-launching op
    bytes_written: float  # its outputs and the operands it writes in place
    forward_bytes: float  # the outputs of the forward and the loss (what the backward may keep: peak memory)
    parameters: int  # elements the optimizer updates
    by_op: Mapping[str, int]  # operator name ('addmm') -> kernels, for tests and explanations
    inductor_kernels: int  # what Inductor would launch for the same step (see inductor_kernels)

    @property
    def flops(self) -> float:
        return self.flops_matmul + self.flops_other

    @property
    def bytes(self) -> float:
        return self.bytes_read + self.bytes_written


def trace_step(workload: Workload, settings: Mapping[str, Any]) -> TracedStep:
    """Trace one training step of `workload` at `settings` (a mode's optimizer included; a mode that
    runs only on CUDA is traced with its optimizer in eager). Cached by the settings that matter."""
    resolved = workload.resolve(
        {**settings, **{k: workload.defaults()[k] for k in _PRICED_APART if k in workload.defaults()}}
    )
    return _trace(workload, tuple(sorted((k, _hashable(v)) for k, v in resolved.items())))


def _hashable(value: Any) -> Any:
    return value if isinstance(value, int | float | str | bool | type(None)) else repr(value)


# One trace at a time in a process: a trace enters FakeTensorMode and a dispatch mode and swaps module
# hooks (modules_stay); two threads of the web server tracing at once (a live point's work check beside the
# warm-up's fit) crashed the process inside FakeTensorMode.__enter__
_TRACING = threading.Lock()


def _trace(workload: Workload, key: tuple[tuple[str, Any], ...]) -> TracedStep:
    with _TRACING:
        return _trace_once(workload, key)


@kept(512)
def _trace_once(workload: Workload, key: tuple[tuple[str, Any], ...]) -> TracedStep:
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils.flop_counter import FlopCounterMode

    settings = dict(key)
    how = execution.mode(settings.get("mode", DEFAULT))
    # Build and run the eager step: the mode's optimizer flags are set by the hook, as on CUDA
    cpu_settings = workload.resolve({**settings, "mode": DEFAULT})
    counter = OpCounter()
    with FakeTensorMode(allow_non_fake_inputs=True), counter, gpu_flags(how.kernels, counter), modules_stay():
        step = workload.build(cpu_settings, "cpu")
        step.run()  # the optimizer's state is made in the first step
        counter.start()
        with FlopCounterMode(display=False, custom_mapping=flop_formulas()) as flops:
            step.run()
        counter.stop()
    del step
    matmul = float(flops.get_total_flops())
    return TracedStep(
        ops=sum(counter.kernels.values()),
        flops_matmul=matmul,
        flops_other=counter.flops_other,
        bytes_read=counter.bytes_read,
        bytes_written=counter.bytes_written,
        forward_bytes=counter.forward_bytes,
        parameters=counter.parameters,
        by_op=dict(counter.kernels),
        inductor_kernels=inductor_kernels(counter.sequence),
    )


# -- a family's counted terms, for TrainingFamily ---------------------------------------------------

PROFILED_EXTRA = 1  # torch.profiler's count of one step holds one GPU event more than the step's kernels
# (the recorded timelines list 35 kernels at depth 3 where the profiles count 36, and 18 + 6 x depth at
# every depth 1-16): a structural count is compared with the profiles, so it counts as they do
COUNTS_FILE = Path(__file__).with_name("traced_counts.json")  # the traces the web server reads (no torch)
_SHAPE = ("batch_size", "dataset_size")  # size the tensors, never which operators run
_TRACE_DEPTHS = (1, 2)  # a family's kernels grow by the same count per layer: two depths give the line


def structure(workload: Workload, settings: Mapping[str, Any], depth: str | None, sizes: tuple[str, ...]) -> Frozen:
    """The settings that decide which operators one step issues (sorted by name): all but its sizes, the
    depth (a line in it), the switches (priced apart) and the mode (a kernels kind of its own)."""
    left_out = {depth, "mode", *sizes, *_SHAPE, *_PRICED_APART}
    return Frozen((k, v) for k, v in sorted({**workload.defaults(), **settings}.items()) if k not in left_out)


Line = tuple[float, float]  # kernels at depth 0, and per layer


@dataclass(frozen=True)
class KernelLines:
    """A family's kernels per step at one structure, as COUNTS_FILE keeps them: a line in the depth per
    kernels kind (its value: 'eager', 'inductor', ...)."""

    structure: Frozen
    lines: Frozen  # kernels kind's value -> Line

    def as_json(self) -> dict[str, object]:
        return {"structure": dict(self.structure), "kernels": {k: list(v) for k, v in self.lines.items()}}

    @classmethod
    def from_json(cls, entry: Mapping[str, Mapping]) -> KernelLines:
        return cls(Frozen(entry["structure"]), Frozen((k, tuple(v)) for k, v in entry["kernels"].items()))


def kernel_lines(
    workload: Workload, settings: Mapping[str, Any], depth: str | None = "depth", sizes: tuple[str, ...] = ()
) -> dict[str, tuple[float, float]]:
    """Kernels per step of each kernels kind as a line in the depth, (at depth 0, per layer), counted
    as torch.profiler counts them: from the shipped counts when they hold this structure, else traced."""
    shape = structure(workload, settings, depth, sizes)
    for entry in _shipped().get(workload.name, ()):
        if entry.structure == shape:
            return dict(entry.lines)
    return _traced_lines(workload, depth, tuple(shape.items()))


def _traced_lines(workload: Workload, depth: str | None, shape: tuple) -> dict[str, Line]:
    settings = dict(shape)
    lines = {}
    for kind in Kernels:
        value = next(m.value for m in execution.MODES if m.kernels is kind)
        counts = []
        for d in _TRACE_DEPTHS if depth else _TRACE_DEPTHS[:1]:  # no depth (a torchvision network): one trace
            traced = trace_step(workload, {**settings, **({depth: d} if depth else {}), "mode": value})
            counts.append((traced.inductor_kernels if kind is Kernels.INDUCTOR else traced.ops) + PROFILED_EXTRA)
        if not depth:
            lines[kind.value] = (counts[0], 0.0)
            continue
        per = (counts[1] - counts[0]) / (_TRACE_DEPTHS[1] - _TRACE_DEPTHS[0])
        lines[kind.value] = (counts[0] - per * _TRACE_DEPTHS[0], per)
    return lines


@kept(1)
def _shipped() -> dict[str, list[KernelLines]]:
    listed = json.loads(COUNTS_FILE.read_text()) if COUNTS_FILE.exists() else {}
    return {name: [KernelLines.from_json(e) for e in entries] for name, entries in listed.items()}


def write_counts(families: Any, retrace: Collection[str] | None = None) -> dict[str, list[KernelLines]]:
    """Trace each family at its page's structure, at every value of its choices (each torchvision network),
    and write COUNTS_FILE (scripts/trace_counts.py). `retrace`: the names of the families traced again, the
    others' shipped entries kept as they are (None: every family)."""
    again = [f for f in families if retrace is None or f.name in retrace]
    out = {f.name: _shipped()[f.name] for f in families if f not in again and f.name in _shipped()}
    for family in (picked for f in again for picked in f.every_pick()):
        terms = family.structural_kernels
        shape = structure(family.workload, family.page_defaults(), terms.depth, terms.sizes)
        if any(entry.structure == shape for entry in out.get(family.name, ())):
            continue  # a choice that only sizes tensors (a sequence length): the same operators
        lines = _traced_lines(family.workload, terms.depth, tuple(shape.items()))
        out.setdefault(family.name, []).append(KernelLines(shape, Frozen(lines)))
    as_json = {name: [e.as_json() for e in entries] for name, entries in out.items()}
    COUNTS_FILE.write_text(json.dumps(as_json, indent=1, sort_keys=True) + "\n")
    _shipped.clear()
    return out


@dataclass(frozen=True)
class StructuralKernels:
    """Kernels per step a mode runs on the GPU, from the family's traced step: structural_kernels(settings)."""

    workload: Workload
    depth: str | None = "depth"  # None: a structure with no layers to repeat (a torchvision network)
    sizes: tuple[str, ...] = ()

    def __call__(self, settings: Mapping[str, Any]) -> float:
        kind = execution.mode(settings.get("mode", DEFAULT)).kernels
        base, per = kernel_lines(self.workload, settings, self.depth, self.sizes)[kind.value]
        return float(base + (per * int({**self.workload.defaults(), **settings}[self.depth]) if self.depth else 0))


@dataclass(frozen=True)
class StepTerms:
    """The terms lib.core.costmodel prices for one step on a 'cpu' or 'cuda' device, with the signature
    of TrainingFamily.step_terms: how the CPU issues the kernels is the mode's record (execution.Mode.issue);
    a batch copied from host memory and item() every step are the switches' terms."""

    kernels_of: StructuralKernels
    copied_bytes: Callable[[Mapping[str, Any], int], float]

    def __call__(
        self,
        settings: Mapping[str, Any],
        device_kind: str,
        *,
        flops: float,
        bytes_moved: float,
        rows: int,
        kernels: float | None = None,
    ) -> dict[str, float]:
        how = execution.mode(settings.get("mode", DEFAULT))
        terms = {"fixed": 1.0, "flops": float(flops), "bytes": float(bytes_moved)}
        if device_kind == "cpu":
            # no launches, copies or synchronisations on the CPU: every operation runs where it is issued
            terms["ops"] = self.kernels_of({**settings, "mode": how.on_cpu})
            return terms
        kernels = self.kernels_of(settings) if kernels is None else float(kernels)
        terms["kernels"] = kernels  # a graph's kernels cost the GPU what eager's do (lib.core.costmodel)
        issue = how.issue
        for name, count in (
            ("python_step", issue.python_step),
            ("ops", issue.ops_per_kernel * kernels),
            ("compiled_launches", issue.compiled_launches_per_kernel * kernels),
            ("calls", issue.calls),
            ("replays", issue.replays),
        ):
            if count:
                terms[name] = count
        syncs = 0.0
        if not settings.get("data_resident", True):
            terms["copies"] = 2.0  # the batch's inputs and its targets
            terms["copy_bytes"] = self.copied_bytes(settings, rows)
            if not settings.get("pin_memory", False):
                terms["staged_bytes"] = terms["copy_bytes"]  # the CPU copies pageable memory to a staging buffer
                syncs += 1.0  # and the copy from pageable memory synchronises the stream first (CUDA's rule)
        if settings.get("item_every_step", False):
            terms["copies"] = terms.get("copies", 0.0) + 1.0
            syncs += 1.0
        if syncs:
            terms["syncs"] = syncs
        return terms


def family_terms(
    workload: Workload,
    *,
    depth: str | None = "depth",
    sizes: tuple[str, ...] = (),
    copied_bytes: Callable[[Mapping[str, Any], int], float] | None = None,
) -> tuple[StepTerms, StructuralKernels]:
    """(step_terms, structural_kernels) for TrainingFamily, from the workload's traced step. `depth`
    names the setting that repeats layers; `sizes` the settings that only size tensors (left at their
    defaults when counting kernels); `copied_bytes(settings, rows)`, one batch's bytes from host memory
    (default: the workload's own `copied_bytes`)."""
    kernels = StructuralKernels(workload, depth, tuple(sizes))
    copied = copied_bytes or workload.copied_bytes  # type: ignore[attr-defined]
    return StepTerms(kernels, copied), kernels
