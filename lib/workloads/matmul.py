"""Square matrix multiply (seed 003): big dense work, and the ways timing it can lie.

One call of the step is C = A @ B with A, B of `size` x `size`:

- dtype fp32 (TF32 off: full fp32 arithmetic), tf32 (fp32 storage, tensor-core TF32 arithmetic
  on NVIDIA GPUs, switched on only for the call and restored after; on the CPU it is plain fp32),
  bf16 (bfloat16 storage and arithmetic).
- sync=false reads the clock without waiting for the GPU (Step.synchronized=False): what a
  naive timer reports -- the launch, not the work. On the CPU the call is synchronous anyway.
- transfer=true counts the host-to-device copy of both inputs inside the step (from pinned
  host memory, non_blocking); on the CPU there is nothing to copy.
- the cold first call (CUDA context, cuBLAS handle, kernel selection) is reported by the
  harness separately as cold_s; seed 003 saw 0.55 s first, 0.46 s after.

Achieved FLOP/s = 2 size^3 / time (the sweep adds achieved_flops_per_s from flops()).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    import torch

from lib.core.devices import is_cuda
from lib.core.workload import RUNTIME_BYTES, Extras, Setting, Settings, Step, Workload

DTYPES = {
    "fp32": "float32",
    "tf32": "float32",
    "bf16": "bfloat16",
}  # names of torch dtypes: declaring the workload imports no torch
ITEMSIZE = {"fp32": 4, "tf32": 4, "bf16": 2}
# Largest relative (Frobenius) error of C against a float64 reference of the fp32 inputs.
TOLERANCE = {"fp32": 1e-4, "tf32": 1e-2, "bf16": 5e-2}
CHECK_BLOCK = 64  # check() compares a CHECK_BLOCK x CHECK_BLOCK corner of C


@contextlib.contextmanager
def cuda_fp32_matmul(tf32: bool) -> Iterator[None]:
    """TF32 on (or guaranteed off) for CUDA fp32 matmuls inside the block, restored after.

    torch >= 2.9 has torch.backends.cuda.matmul.fp32_precision ('tf32' / 'ieee' / 'none') and
    raises if it is mixed with the legacy allow_tf32 flag, so use the new one where it exists.
    For plain fp32 nothing is touched unless TF32 is currently on.
    """
    import torch

    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):
        previous = matmul.fp32_precision
        tf32_now = previous == "tf32" or (previous == "none" and torch.get_float32_matmul_precision() != "highest")
        if tf32 == tf32_now:
            yield
            return
        matmul.fp32_precision = "tf32" if tf32 else "ieee"
        try:
            yield
        finally:
            matmul.fp32_precision = previous
    else:  # older torch
        previous = matmul.allow_tf32
        if previous == tf32:
            yield
            return
        matmul.allow_tf32 = tf32
        try:
            yield
        finally:
            matmul.allow_tf32 = previous


def make_inputs(size: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A, B as float32 on the host, the same on every device."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    return torch.randn(size, size, generator=gen), torch.randn(size, size, generator=gen)


def relative_error(block: torch.Tensor, a_rows: torch.Tensor, b_cols: torch.Tensor) -> float:
    """||block - a_rows @ b_cols|| / ||a_rows @ b_cols||, the reference computed in float64 on the host."""
    reference = a_rows.double().cpu() @ b_cols.double().cpu()
    got = block.double().cpu()  # .cpu() waits for the device
    return ((got - reference).norm() / reference.norm().clamp_min(1e-30)).item()


class MatMul(Workload):
    name = "matmul"
    title = "Square matrix multiply"
    description = (
        "C = A @ B for square matrices: the workload GPUs are built for. Shows achieved FLOP/s, "
        "the cold first call, TF32 and bf16, what an unsynchronised timer reports, and what "
        "copying the inputs to the GPU costs."
    )
    settings = (
        Setting("size", 1024, "rows (= columns) of each matrix; seed 003 used 15360", 1, 65_536, log=True),
        Setting(
            "dtype",
            "fp32",
            "fp32: full fp32 (TF32 off); tf32: fp32 storage with tensor-core TF32 arithmetic (GPU only; the CPU runs fp32); bf16: bfloat16",
            choices=tuple(DTYPES),
        ),
        Setting(
            "sync",
            True,
            "wait for the GPU before reading the clock (false: the naive timer, which sees only the launch)",
        ),
        Setting("transfer", False, "copy both inputs host -> device inside every call (nothing to copy on the CPU)"),
        Setting("seed", 0, "random seed for the matrices", 0, 2**31 - 1),
    )

    # -- estimates -----------------------------------------------------------------------------
    def flops(self, params: Settings) -> float:
        n = int(params["size"])
        return 2.0 * n**3

    def bytes_moved(self, params: Settings) -> float:
        n, item = int(params["size"]), ITEMSIZE[params["dtype"]]
        copied = 2 * n * n * item if params["transfer"] else 0
        return float(3 * n * n * item + copied)

    def peak_memory_bytes(self, params: Settings, device: str) -> float:
        n, item = int(params["size"]), ITEMSIZE[params["dtype"]]
        if is_cuda(device):
            return float(3 * n * n * item + 32e6)  # A, B, C on the GPU (+ cuBLAS workspace)
        # On the host: the fp32 originals, their converted copies (bf16), and C.
        converted = 2 * n * n * item if params["dtype"] == "bf16" else 0
        return float(RUNTIME_BYTES + 2 * n * n * 4 + converted + n * n * item)

    # -- the step --------------------------------------------------------------------------------
    def build(self, params: Settings, device: str) -> Step:
        import torch

        n, seed, name = int(params["size"]), int(params["seed"]), params["dtype"]
        dtype = getattr(torch, DTYPES[name])
        dev = torch.device(device)
        cuda = is_cuda(device)
        transfer = bool(params["transfer"]) and cuda

        a_host, b_host = make_inputs(n, seed)
        if dtype != torch.float32:
            a_host, b_host = a_host.to(dtype), b_host.to(dtype)
        if transfer:
            a_host, b_host = a_host.pin_memory(), b_host.pin_memory()
        a = a_host.to(dev) if cuda else a_host
        b = b_host.to(dev) if cuda else b_host
        c = torch.empty(n, n, dtype=dtype, device=dev)
        tf32 = name == "tf32"

        def multiply() -> None:
            if cuda and dtype == torch.float32:
                with cuda_fp32_matmul(tf32):
                    torch.matmul(a, b, out=c)
            else:
                torch.matmul(a, b, out=c)

        def copy_in() -> None:
            a.copy_(a_host, non_blocking=True)
            b.copy_(b_host, non_blocking=True)

        if transfer:

            def run() -> None:
                copy_in()
                multiply()

            phases = {"transfer": copy_in, "compute": multiply}
        else:
            run = multiply
            phases = {}

        def check() -> None:
            multiply()  # a fresh result, whatever ran before
            k = min(n, CHECK_BLOCK)
            # the fp32 originals: the host inputs themselves, or made again from the seed for bf16
            a32, b32 = (a_host, b_host) if dtype == torch.float32 else make_inputs(n, seed)
            err = relative_error(c[:k, :k], a32[:k], b32[:, :k])
            bound = TOLERANCE[name]
            assert err <= bound, f"{name} result is off by {err:.3g} relative to a float64 reference (bound {bound:g})"

        remarks = []  # one `note` column in the row (reserved in lib.core.results)
        if tf32 and not cuda:
            remarks.append("TF32 is an NVIDIA tensor-core mode: on the CPU tf32 runs as plain fp32")
        if not params["sync"]:
            remarks.append(
                "the clock was read without waiting for the device: on a GPU this times the launch, not the work"
                if cuda
                else "the CPU computes before returning, so sync=false changes nothing here"
            )
        if params["transfer"] and not cuda:
            remarks.append("on the CPU the inputs are already where the work runs: nothing is copied")
        extras = Extras(note="; ".join(remarks) if remarks else None)

        return Step(run=run, phases=phases, check=check, extras=extras, synchronized=bool(params["sync"]))


WORKLOAD = MatMul()
