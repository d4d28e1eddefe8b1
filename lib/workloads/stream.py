"""Memory bandwidth (a STREAM-like copy-and-add): the work a GPU wins by its memory, not its arithmetic.

One call of the step is y = x + 1 over `size` float32 elements (torch.add(x, 1.0, out=y)): it reads
x once and writes y once, 8 bytes per element, and does one addition per element. Far too little
arithmetic per byte for the arithmetic units to matter: once the tensor outgrows the caches, the
time is the bytes over the memory's bandwidth, so bytes / median_s of the largest sizes is the
device's achieved memory bandwidth (the roofline's sloped roof, lib/recorded/ceilings.py). Small
sizes time the launch (GPU) or the call's overhead (CPU) instead, and mid sizes the caches.
"""

from __future__ import annotations

from lib.core.devices import is_cuda
from lib.core.workload import RUNTIME_BYTES, Setting, Settings, Step, Workload

ITEMSIZE = 4  # float32


class Stream(Workload):
    name = "stream"
    title = "Memory bandwidth (x + 1)"
    description = (
        "y = x + 1 over a float32 tensor: one read and one write per element and one addition, so "
        "large sizes time the memory's bandwidth, small ones the launch."
    )
    settings = (
        Setting(
            "size",
            1 << 20,
            "float32 elements of the tensor (4 bytes each; read once, written once)",
            1,
            1 << 31,
            log=True,
        ),
    )

    def flops(self, params: Settings) -> float:
        return float(params["size"])  # one addition per element

    def bytes_moved(self, params: Settings) -> float:
        return float(2 * ITEMSIZE * int(params["size"]))  # x read, y written

    def peak_memory_bytes(self, params: Settings, device: str) -> float:
        tensors = 2 * ITEMSIZE * int(params["size"])  # x and y
        return float(tensors if is_cuda(device) else RUNTIME_BYTES + tensors)

    def build(self, params: Settings, device: str) -> Step:
        import torch

        n = int(params["size"])
        x = torch.arange(n, dtype=torch.float32, device=device)  # distinct values: a misplaced element fails check()
        y = torch.empty_like(x)

        def run() -> None:
            torch.add(x, 1.0, out=y)

        def check() -> None:
            run()
            k = min(n, 1024)
            assert torch.equal(y[:k], x[:k] + 1), "y = x + 1 is wrong"  # exact in float32 for these values

        return Step(run=run, check=check)


WORKLOAD = Stream()
