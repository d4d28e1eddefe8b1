"""Checkers of the physics the pages claim, each recomputing a claim's precondition from the row it is
said of and the GPU's measured ceilings, without the code that made the claim (issue 37).

    regime_is_physical(row, ceilings, "memory-bound")   # may this regime be said of this step?

A regime is a physics claim (docs: shared/DESIGN.md §2): memory-bound only where the step, over its whole
timed step, moves its counted bytes at a real share of the measured bandwidth; compute-bound likewise
against the FLOP/s roof (TF32's for a TF32 matmul row); below both roofs the step is held by overhead or
by its kernels' latency, never by memory or arithmetic. The share is the app's one named threshold
(lib.lessons.common.verdict.ROOF_SHARE); everything else is recomputed here from the row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lib.lessons.common.verdict import LATENCY_FLOOR_S, LATENCY_GAP, ROOF_SHARE
from lib.recorded.ceilings import Ceilings


def roof_shares(row: Mapping[str, Any], ceilings: Ceilings) -> tuple[float | None, float | None]:
    """(compute, memory): the step's flops and counted bytes per second of its whole timed step, each as a
    share of its measured roof (None where the row or the ceilings do not carry it)."""
    step = float(row.get("median_s") or 0.0)
    if step <= 0:
        return None, None
    flops, nbytes = float(row.get("flops") or 0.0), float(row.get("bytes") or 0.0)
    peak = ceilings.flops_per_s
    if row.get("dtype") == "tf32" and ceilings.tf32_flops_per_s:
        peak = ceilings.tf32_flops_per_s
    compute = flops / step / peak if flops and peak else None
    memory = nbytes / step / ceilings.bytes_per_s if nbytes and ceilings.bytes_per_s else None
    return compute, memory


def busy_s(row: Mapping[str, Any]) -> float | None:
    """How long the GPU ran the step's kernels: its profile (device_busy_s), else its cost model's share."""
    step = float(row.get("median_s") or 0.0)
    if row.get("device_busy_s") is not None and row.get("kernels"):
        return min(float(row["device_busy_s"]), step)
    if row.get("launch_share") is not None:
        return step * (1.0 - float(row["launch_share"]))
    return None


def held_by_host(row: Mapping[str, Any]) -> bool | None:
    """Whether the step's time outside its kernels (overhead and copying) is more than its kernels' busy time;
    None where the row carries neither a profile nor a cost model's split."""
    busy = busy_s(row)
    return None if busy is None else float(row["median_s"]) - busy > busy


def at_latency(row: Mapping[str, Any], ceilings: Ceilings) -> bool:
    """Tiny kernels: profiled ones LATENCY_FLOOR_S or less each on average; kernels not counted, a step whose
    counted work the ceilings would do in under 1/LATENCY_GAP of its busy time."""
    busy = busy_s(row) or 0.0
    if row.get("kernels"):
        return busy / float(row["kernels"]) <= LATENCY_FLOOR_S
    flops, nbytes = float(row.get("flops") or 0.0), float(row.get("bytes") or 0.0)
    roof = max(flops / ceilings.flops_per_s, nbytes / ceilings.bytes_per_s if ceilings.bytes_per_s else 0.0)
    return roof * LATENCY_GAP < busy


def regime_is_physical(row: Mapping[str, Any], ceilings: Ceilings, regime: str) -> bool:
    """Whether `regime` (a regime's words: 'memory-bound', 'compute-bound', 'kernel-latency-bound',
    'below both roofs', 'launch-bound') may be said of the GPU step in `row` under `ceilings`:
    - memory-bound: its counted bytes move at ROOF_SHARE of the measured bandwidth or more, and its flop per
      byte is below the ridge (the bandwidth, not the arithmetic, is the nearer roof);
    - compute-bound: its flops run at ROOF_SHARE of the arithmetic roof or more, and no nearer to the
      bandwidth roof;
    - kernel-latency-bound: the kernels are busy more than the host, the step is below both roofs it has, and
      its kernels are at their latency (at_latency);
    - below both roofs: busy more than the host, below both roofs (the bandwidth one recorded);
    - launch-bound: the host (overhead, copies) takes more of the step than the kernels do."""
    compute, memory = roof_shares(row, ceilings)
    if regime == "memory-bound":
        return (
            memory is not None and memory >= ROOF_SHARE and compute is not None and compute < memory
        )  # below the ridge: flops/bytes < F/B is compute share < memory share
    if regime == "compute-bound":
        return compute is not None and compute >= ROOF_SHARE and (memory is None or compute >= memory)
    host = held_by_host(row)
    below = all(s is None or s < ROOF_SHARE for s in (compute, memory))
    if regime == "kernel-latency-bound":
        return host is False and below and at_latency(row, ceilings)
    if regime == "below both roofs":
        return host is False and below and memory is not None
    if regime == "launch-bound":
        return host is True
    raise ValueError(f"no such regime: {regime!r}")
