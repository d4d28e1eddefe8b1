"""Timing a host's reference figures (lib.core.host.HostSpeed) in about 2 s; torch is imported here, when called.

    speed = time_host(["cpu", "cuda:0"])    # the CUDA figures only where a CUDA device is recorded

Each figure is one tiny call timed by the project's harness (lib.core.timing.time_step: warm-up, then blocks of
calls synchronised at both ends, median and interquartile range) within the figure's budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from lib.core.devices import is_cuda
from lib.core.host import HostFigure, HostSpeed, Reading
from lib.core.timing import time_step

# The first calls build kernels, fault pages in and wake threads: this long of calls is thrown away
WARMUP_S = 0.1
MIN_REPEATS = 5
MAX_REPEATS = 50
# fp32 matmuls at this size keep every thread of a 16-core host busy for a few ms, and run in ~20 ms on 2 cores
MATMUL_SIZE = 1024
# Each of the copy's source and destination: well over any host's last-level cache (32 MB on the 2-core
# server, up to ~100 MB per socket on the Xeons of GPU hosts), so the copy reads and writes memory
COPY_BYTES = 256 * 2**20
# The copy to the GPU: small, as a batch of a launch-bound step is, so the host's side of it dominates
H2D_BYTES = 256 * 2**10
# Seconds of repeats per figure: the whole check stays near 2 s, timed at a recording's start and end
BUDGET_S = {
    HostFigure.MATMUL: 0.5,
    HostFigure.COPY: 0.5,
    HostFigure.DISPATCH: 0.3,
    HostFigure.LAUNCH: 0.3,
    HostFigure.H2D: 0.3,
}


def _per_call(call: Callable[[], object], device: str, budget_s: float) -> Reading:
    """Seconds per call (the median block's) and the blocks' spread."""
    timed = time_step(
        call,
        device,
        budget_s=budget_s,
        warmup_s=WARMUP_S,
        min_repeats=MIN_REPEATS,
        max_repeats=MAX_REPEATS,
        measure_cold=False,
    )
    return Reading(timed.median_s, timed.spread_ratio)


def _rate(seconds: Reading, work: float) -> Reading:
    """Work per second (GFLOP/s, GB/s) of a time per call; the spread is the time's."""
    return Reading(work / seconds.value / 1e9, seconds.spread)


def _us(seconds: Reading) -> Reading:
    return Reading(seconds.value * 1e6, seconds.spread)


def time_host(devices: Sequence[str] = ("cpu",)) -> HostSpeed:
    """This host's reference figures; the CUDA ones on the first CUDA device among `devices`, if any."""
    import torch

    size = MATMUL_SIZE
    left, right = torch.randn(size, size), torch.randn(size, size)
    matmul = _per_call(partial(torch.mm, left, right), "cpu", BUDGET_S[HostFigure.MATMUL])
    del left, right
    source, target = torch.ones(COPY_BYTES // 4), torch.empty(COPY_BYTES // 4)
    copy = _per_call(partial(target.copy_, source), "cpu", BUDGET_S[HostFigure.COPY])
    del source, target
    # a one-element op never leaves the calling thread: one core's dispatch, whatever torch's thread count
    dispatch = _per_call(partial(torch.zeros(1).add_, 1.0), "cpu", BUDGET_S[HostFigure.DISPATCH])
    cuda = next((d for d in devices if is_cuda(d)), None)
    launch = h2d = None
    if cuda is not None:
        launch = _us(_per_call(partial(torch.zeros(1, device=cuda).add_, 1.0), cuda, BUDGET_S[HostFigure.LAUNCH]))
        small, on_gpu = torch.ones(H2D_BYTES // 4), torch.empty(H2D_BYTES // 4, device=cuda)
        h2d = _us(_per_call(partial(on_gpu.copy_, small), cuda, BUDGET_S[HostFigure.H2D]))
    return HostSpeed(
        matmul=_rate(matmul, 2 * size**3),
        copy=_rate(copy, 2 * COPY_BYTES),
        dispatch=_us(dispatch),
        launch=launch,
        h2d=h2d,
        threads=torch.get_num_threads(),
    )
