"""What one warm step launches, read from torch.profiler: kernels (CUDA) or operator calls (CPU),
and how long the device was busy running them."""

from __future__ import annotations

import time
from collections.abc import Callable

from lib.core.devices import synchronize


def count_kernels(step: Callable[[], object], device: str) -> dict[str, float]:
    """Profile one warm call with torch.profiler: how many kernels (or CPU ops) it launches,
    how long the device was busy running them, and what fraction of the call that was.
    Used to explain launch overhead: on CUDA, wall time minus busy time is launch, Python and
    synchronisation overhead."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU]
    if str(device).startswith("cuda"):
        activities.append(ProfilerActivity.CUDA)
    step()
    synchronize(device)
    for _ in range(2):  # the first profiled call pays the profiler's own start-up: keep the second
        with profile(activities=activities) as prof:
            start = time.perf_counter()
            step()
            synchronize(device)
            wall = time.perf_counter() - start
    events = prof.events()
    if str(device).startswith("cuda"):
        # Kernel durations come from the GPU's own clock (CUPTI): valid despite profiler overhead.
        kernels = [e for e in events if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA]
        busy_us = sum(e.device_time for e in kernels) if kernels else 0.0
        launches = sum(1 for e in events if e.name in ("cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchKernelExC"))
        return {
            "kernels": float(len(kernels)),
            "launches": float(launches),
            "device_busy_s": busy_us / 1e6,
            "busy_fraction": min(1.0, busy_us / 1e6 / wall) if wall > 0 else 0.0,
        }
    # Outermost aten ops only (an op's inner ops are part of it), even under record_function scopes.
    ops = [
        e
        for e in events
        if e.name.startswith("aten::") and not (e.cpu_parent is not None and e.cpu_parent.name.startswith("aten::"))
    ]
    # On the CPU the profiler slows every op, so only the busy *fraction* of the profiled call is
    # meaningful; callers scale it by the unprofiled median.
    busy_us = sum(e.cpu_time_total for e in ops)
    return {
        "kernels": float(len(ops)),
        "launches": float(len(ops)),
        "device_busy_s": busy_us / 1e6,
        "busy_fraction": min(1.0, busy_us / 1e6 / wall) if wall > 0 else 0.0,
    }
