"""The machinery of lib.workloads.traced: a dispatch mode that counts one step's kernels, bytes and
elementwise FLOPs, and the optimizer flags CUDA would pick. torch is imported where it runs."""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

from lib.workloads.execution import Kernels

# ATen operators that launch no GPU kernel: views and metadata (a new tensor header over the same
# memory), allocations that write nothing, and reads of a value on the host (a synchronisation, priced
# as a switch: lib.workloads.traced.StepTerms / lib.lessons.common.switch, not as a kernel).
NO_KERNEL = frozenset(
    {
        # views: same storage, new sizes or strides
        "view",
        "_unsafe_view",
        "reshape",
        "_reshape_alias",
        "t",
        "transpose",
        "permute",
        "expand",
        "as_strided",
        "squeeze",
        "unsqueeze",
        "slice",
        "select",
        "alias",
        "unbind",
        "split",
        "split_with_sizes",
        "chunk",
        "narrow",
        "diagonal",
        "unfold",
        "view_as",
        "expand_as",
        "flatten",
        "unflatten",
        "movedim",
        "numpy_T",
        "view_as_real",
        "view_as_complex",
        "_neg_view",
        "_conj",
        # autograd bookkeeping: no data touched
        "detach",
        "detach_",
        "lift_fresh",
        "lift",
        "requires_grad_",
        "_version",
        "set_",
        "resize_",
        # allocations: memory handed out, nothing written
        "empty",
        "empty_like",
        "empty_strided",
        "new_empty",
        "new_empty_strided",
        "_empty_affine_quantized",
        # metadata queries
        "size",
        "stride",
        "numel",
        "dim",
        "is_same_size",
        "is_contiguous",
        "sym_size",
        "sym_stride",
        "sym_numel",
        "_has_compatible_shallow_copy_type",
        "is_nonzero",
        # a value read on the host: a device-to-host copy and a wait, priced as a synchronisation
        "_local_scalar_dense",
        "item",
    }
)
# ATen operators that launch more than one kernel on CUDA (checked against the recorded profiles)
EXTRA_KERNELS = {
    "nll_loss_backward": 1  # the CUDA kernel zero-fills grad_input before scattering into it
}
# Operator classes whose FLOPs torch.utils.flop_counter counts (matmul, convolution, attention): the
# rest is elementwise work and reductions, counted here as one FLOP per element of the largest operand
MATMUL_CLASS = frozenset(
    {
        "mm",
        "addmm",
        "bmm",
        "baddbmm",
        "matmul",
        "linear",
        "convolution",
        "_convolution",
        "convolution_backward",
        "cudnn_convolution",
        "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_flash_attention",
        "_scaled_dot_product_cudnn_attention",
        "_scaled_dot_product_efficient_attention_backward",
        "_scaled_dot_product_flash_attention_backward",
        "_scaled_dot_product_cudnn_attention_backward",
        "_flash_attention_forward",
        "_flash_attention_backward",
        "_efficient_attention_forward",
        "_efficient_attention_backward",
        # the CPU's fused attention, which the trace issues where a GPU runs flash or memory-efficient attention
        "_scaled_dot_product_flash_attention_for_cpu",
        "_scaled_dot_product_flash_attention_for_cpu_backward",
    }
)
HOST_READ = 1  # what a value read on the host returns while tracing: fake tensors hold no values (1, not
# 0: Adam divides by 1 - beta ** step)


class OpCounter:
    """A TorchDispatchMode (made on first use: torch is imported where it runs) that counts each
    kernel-launching operator, its bytes and its elementwise FLOPs, and answers host reads with HOST_READ."""

    def __init__(self) -> None:
        self.kernels: Counter[str] = Counter()
        self.sequence: list[str] = []  # operator names in issue order, kernel-launching ones only
        self.flops_other = self.bytes_read = self.bytes_written = 0.0
        self.forward_bytes = 0.0  # outputs made before the backward began: the forward's and the loss's
        self.parameters = 0  # elements of the tensors the optimizer updates (gpu_flags reads them)
        self.in_backward = False
        # tensors CUDA keeps on the host (step counters), by id; held, so that no other tensor takes the id
        self.host_tensors: dict[int, Any] = {}
        self.counting = False
        self._mode: Any = None

    def start(self) -> None:
        self.counting, self.in_backward = True, False

    def stop(self) -> None:
        self.counting = False

    def __enter__(self) -> OpCounter:
        from torch.utils._python_dispatch import TorchDispatchMode

        outer = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return outer.dispatch(func, args, kwargs or {})

        self._mode = Mode()
        self._mode.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._mode.__exit__(*exc)

    def dispatch(self, func: Any, args: tuple, kwargs: dict) -> Any:
        import torch
        from torch.utils._pytree import tree_leaves

        name = func.overloadpacket.__name__
        if name in ("_local_scalar_dense", "item"):
            return HOST_READ  # fake tensors hold no value; a host read launches no kernel either
        out = func(*args, **kwargs)
        if (
            self.counting
            and name in ("lift_fresh", "lift_fresh_copy")
            and isinstance(out, torch.Tensor)
            and out.dim() == 0
        ):
            # a Python number made a tensor inside the step (foreach Adam's `torch.tensor(1.0)`): on the host.
            # Not one made while building the model: BatchNorm's num_batches_tracked is a buffer, moved to
            # the GPU with the module, and its `add_(1)` every step is a kernel (one per batch norm)
            self.host_tensors[id(out)] = out
        if not self.counting or func.namespace != "aten" or name in NO_KERNEL:
            return out
        inputs = [t for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)]
        if inputs and all(id(t) in self.host_tensors for t in inputs):
            return out  # the optimizer's step counters, kept on the host by CUDA's foreach and for-loop Adam
        outputs = [t for t in tree_leaves(out) if isinstance(t, torch.Tensor)]
        written = outputs + [
            t
            for t, arg in zip(args, func._schema.arguments)
            if arg.alias_info is not None and arg.alias_info.is_write
            for t in (t if isinstance(t, list | tuple) else [t])
            if isinstance(t, torch.Tensor)
        ]
        kernels = foreach_kernels(name, args) or gradient_kernels(name, args) or 1 + EXTRA_KERNELS.get(name, 0)
        self.kernels[name] += kernels
        self.sequence.append(name)
        self.bytes_read += sum(_nbytes(t) for t in inputs)
        # autograd's engine runs the backward on this thread (CPU tensors): a graph task is open from then on
        self.in_backward = self.in_backward or torch._C._current_graph_task_id() != -1
        if not self.in_backward:
            self.forward_bytes += sum(_nbytes(t) for t in outputs)
        self.bytes_written += sum(_nbytes(t) for t in {id(t): t for t in written}.values())
        if name not in MATMUL_CLASS:
            self.flops_other += max((t.numel() for t in inputs + outputs), default=0)
        return out


def gradient_kernels(name: str, args: tuple) -> int:
    """Kernels of a convolution's backward on CUDA, 0 for any other operator: one per gradient it is
    asked for (its output_mask: the input's, the weight's, the bias's), each its own cuDNN call (the bias's
    a reduction); the first layer's input needs none."""
    if name != "convolution_backward":
        return 0
    return max(1, sum(bool(m) for m in args[-1]))


def flop_formulas() -> dict[Any, Any]:
    """FlopCounterMode's formulas for the CPU's fused attention, which it has none for (it counts the GPU's):
    the attention's matmuls as its math has them, two forward and four backward (the gradients; a GPU kernel
    that recomputes the scores in the backward does one more), as autograd counts the decomposed step."""
    import torch
    from torch.utils.flop_counter import sdpa_flop_count

    aten = torch.ops.aten

    def forward(query: Any, key: Any, value: Any, *args: Any, out_shape: Any = None, **kwargs: Any) -> int:
        return sdpa_flop_count(query, key, value)

    def backward(
        grad_out: Any, query: Any, key: Any, value: Any, *args: Any, out_shape: Any = None, **kwargs: Any
    ) -> int:
        return 2 * sdpa_flop_count(query, key, value)

    return {
        aten._scaled_dot_product_flash_attention_for_cpu: forward,
        aten._scaled_dot_product_flash_attention_for_cpu_backward: backward,
    }


def _nbytes(t: Any) -> float:
    return float(t.numel() * t.element_size())


@contextlib.contextmanager
def gpu_flags(kind: Kernels, counter: OpCounter) -> Iterator[None]:
    """Each optimizer step of the trace runs the implementation CUDA would: foreach where neither
    is asked (CUDA's default; a CPU's is the for-loop), fused for Kernels.FUSED_ADAM, capturable
    for Kernels.CAPTURABLE (its step counters on the device). Where the counters stay on the
    host (neither fused nor capturable), their ops are left out of the count."""
    import torch.optim.optimizer as optim

    def before_step(optimizer: Any, args: Any, kwargs: Any) -> None:
        counter.parameters = sum(p.numel() for group in optimizer.param_groups for p in group["params"])
        for group in optimizer.param_groups:
            if kind is Kernels.FUSED_ADAM and "fused" in group:
                group.update(fused=True, foreach=False)
            elif kind is Kernels.CAPTURABLE and "capturable" in group:
                group.update(capturable=True)
            if not group.get("fused") and group.get("foreach") is None and "foreach" in group:
                group["foreach"] = True
            on_device = group.get("fused") or group.get("capturable")
            for p in group["params"]:
                step = optimizer.state.get(p, {}).get("step")
                if step is not None and not on_device:
                    counter.host_tensors[id(step)] = step

    hook = optim.register_optimizer_step_pre_hook(before_step)
    # capturable optimizers check that their parameters are on a GPU; the trace's are fake CPU tensors
    # (each optimizer module imported the check by name: patched where it is looked up)
    supported = optim._get_capturable_supported_devices
    checks = [
        m
        for name, m in list(sys.modules.items())
        if name.startswith("torch.optim") and getattr(m, "_get_capturable_supported_devices", None) is supported
    ]
    for module in checks:
        module._get_capturable_supported_devices = lambda supports_xla=True: [*supported(supports_xla), "cpu"]
    try:
        yield
    finally:
        hook.remove()
        for module in checks:
            module._get_capturable_supported_devices = supported


# CUDA's multi-tensor kernels (ATen/native/cuda/MultiTensorApply.cuh): one launch takes at most this many
# tensors (by the number of tensor lists it reads and writes; ops with a list of scalars take fewer), and at
# most MAX_BLOCKS chunks of CHUNK elements
MAX_TENSORS = (110, 64, 48, 36, 30)
MAX_TENSORS_SCALARLIST = (96, 64, 48, 36, 30)
MAX_BLOCKS, CHUNK = 320, 65536
FUSED_OPTIMIZER_LISTS = 4  # fused Adam's parameters, gradients and two moments


def foreach_kernels(name: str, args: tuple) -> int:
    """Kernels of a foreach (or fused optimizer) operator on CUDA, 0 for any other operator. The fast
    path launches a multi-tensor kernel each time its tensors or its blocks fill up (multi_tensor_apply);
    the slow path, where its tensor lists differ in shape, launches one kernel per tensor: capturable
    Adam divides each moment by a list of 0-dimensional step sizes."""
    if not name.startswith(("_foreach_", "_fused_")):
        return 0
    lists = [a for a in args if isinstance(a, list | tuple) and a and all(hasattr(t, "shape") for t in a)]
    if not lists:
        return 1
    shapes = [tuple(t.shape) for t in lists[0]]
    if name.startswith("_fused_"):
        pass  # its step counters ride along as scalars, whatever their shape
    elif any([tuple(t.shape) for t in other] != shapes for other in lists[1:]):
        return len(lists[0])
    scalar_list = any(isinstance(a, list | tuple) and a and isinstance(a[0], int | float) for a in args)
    if name.startswith("_fused_"):
        depth = FUSED_OPTIMIZER_LISTS
    else:
        depth = min(len(lists) + (not name.endswith("_")), len(MAX_TENSORS))  # an out-of-place op writes a list too
    most = (MAX_TENSORS_SCALARLIST if scalar_list else MAX_TENSORS)[depth - 1]
    return multi_tensor_launches([t.numel() for t in lists[0]], most)


def multi_tensor_launches(numels: list[int], max_tensors: int) -> int:
    """Launches of one multi_tensor_apply over tensors of these sizes (its loop, replayed)."""
    launches = tensors = blocks = 0
    for numel in numels:
        if numel == 0:
            continue
        tensors += 1
        chunks = -(-numel // CHUNK)
        for chunk in range(chunks):
            blocks += 1
            if (tensors == max_tensors and chunk == chunks - 1) or blocks == MAX_BLOCKS:
                launches += 1
                blocks = 0
                tensors = 0 if chunk == chunks - 1 else 1
    return launches + (blocks > 0)


def inductor_kernels(sequence: list[str]) -> int:
    """What torch.compile's Inductor launches for an eager step's operators: each matmul-class operator
    stays its own (library) kernel, the elementwise work and reductions between two of them fuse into
    one kernel, and each foreach operator of the update is one kernel over all the tensors. (No
    compiled step was profiled: on the MLP this is 6 + 5 per layer, the count the model was fitted with.)"""
    kernels, run = 0, False
    for name in sequence:
        if name in MATMUL_CLASS or name.startswith(("_foreach_", "_fused_")):
            kernels += 1
            run = False
        elif not run:
            kernels += 1
            run = True
    return kernels


@contextlib.contextmanager
def modules_stay() -> Iterator[None]:
    """module.to("cpu") while tracing: the fake parameters are on the CPU already, and nn.Module
    cannot swap a fake parameter for itself (it holds a weak reference), so the call keeps the module."""
    from torch import nn

    original = nn.Module.to

    def to(self: Any, *args: Any, **kwargs: Any) -> Any:
        wanted = [*args, *kwargs.values()]
        if all(str(a) == "cpu" or isinstance(a, bool) for a in wanted):
            return self
        return original(self, *args, **kwargs)

    nn.Module.to = to
    try:
        yield
    finally:
        nn.Module.to = original
