"""How much memory one live point really takes: its peak resident memory above the process's own.

    measured = peak_growth("mlp", {"hidden_width": 4096})   # a PeakGrowth: .estimate_bytes, .growth_bytes, ...

The gate (lib.core.gate) refuses a point when the process's memory plus the workload's estimate is
over the cap, so the estimate must bound what the point really adds. This measures that in a fresh
process, the way the measuring process runs a live point: a small point first (the one-off costs a
warm server has already paid), then the peak resident memory (Linux VmHWM, reset just before)
above the resident memory just before, while the point is timed with its phases, profiled, and
its timeline recorded. Linux only (it reads /proc); used by a test and benchmarks/memory_estimates.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lib.core.rows import Status

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import json, sys
import torch
from lib.core.gate import process_rss_bytes
from lib.core.rows import Status
from lib.core.sweep import measure_point
from lib.core.timeline import timeline_point
from lib.workloads import get_workload

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return float(line.split()[1]) * 1024

name, params, device, threads, profiled = json.loads(sys.argv[1])
torch.set_num_threads(threads)
workload = get_workload(name)
settings = workload.resolve(params)
# warmed up as the point runs: a profiler's freed events leave heap that an unprofiled point then reuses,
# hiding what it grows in a process that never profiled (the Jacobian page's, a fresh CLI sweep's)
measure_point(workload, workload.resolve({}), device, budget_s=0.02, memory_cap_gb=None, with_profile=profiled)
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) starts again from the memory held now
before = process_rss_bytes()
point = measure_point(workload, settings, device, budget_s=0.05, memory_cap_gb=None, with_phases=True,
                      with_profile=profiled)
timeline = timeline_point(workload, settings, device, steps=2, gate=None) if profiled and point.status == Status.OK else None
print(json.dumps({"status": str(point.status), "message": point.message, "baseline_bytes": before,
                  "growth_bytes": hwm() - before, "estimate_bytes": workload.peak_memory_bytes(settings, device),
                  "timeline": str(timeline.status) if timeline else ""}))
"""


@dataclass(frozen=True)
class PeakGrowth:
    """One point measured in a fresh process: how it ended, the resident memory before it, the peak it
    added, the workload's estimate, and how its timeline ended (None where not profiled or not run)."""

    status: Status
    message: str
    baseline_bytes: float
    growth_bytes: float
    estimate_bytes: float
    timeline: Status | None


def peak_growth(
    workload: str,
    params: Mapping[str, str | int | float | bool],
    device: str = "cpu",
    *,
    threads: int = 1,
    profiled: bool = True,
    timeout_s: float = 600,
) -> PeakGrowth:
    """The estimate of one point and the peak memory it really added, measured in a fresh process.
    profiled: also its kernel profile and timeline, as the Training page does (the Jacobian and
    Data pipeline pages do neither, and a profiled Jacobian loop takes minutes)."""
    env_memory = {"GPUWIN_MEMORY_CAP_GB": "1000"}  # the timeline's own gate must not refuse what is measured
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps([workload, params, device, threads, profiled])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=True,
        env={**os.environ, **env_memory, "PYTHONPATH": str(ROOT)},
    )
    line = json.loads(out.stdout.strip().splitlines()[-1])  # the child's one JSON line
    return PeakGrowth(
        status=Status(line["status"]),
        message=line["message"],
        baseline_bytes=float(line["baseline_bytes"]),
        growth_bytes=float(line["growth_bytes"]),
        estimate_bytes=float(line["estimate_bytes"]),
        timeline=Status(line["timeline"]) if line["timeline"] else None,
    )
