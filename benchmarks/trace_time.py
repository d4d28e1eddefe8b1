#!/usr/bin/env python3
"""How long one traced training step takes (lib.workloads.traced.trace_step): the first trace in a
process (torch and FakeTensorMode warming up) and later ones, at the MLP's defaults and at larger
shapes (fake tensors: the time follows the operators issued, not the sizes), and what it counts.

    python3 benchmarks/trace_time.py [--out docs/trace_time.txt]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHAPES = (
    {},
    {"depth": 1},
    {"depth": 16},
    {"hidden_width": 8192, "batch_size": 65536, "depth": 16},
    {"mode": "cuda_graph"},
    {"mode": "fused"},
)
REPEATS = 5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="also write the lines here")
    args = parser.parse_args()
    lines = [
        f"trace_time: {platform.node() or 'this machine'}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
        f"load average {os.getloadavg()[0]:.1f} (other processes share the cores)"
    ]
    start = time.perf_counter()
    import torch  # noqa: F401 - imported apart from the first trace

    lines.append(f"import torch: {time.perf_counter() - start:.2f} s")
    from lib.workloads import traced
    from lib.workloads.mlp import WORKLOAD

    for i, overrides in enumerate(SHAPES):
        times = []
        for r in range(REPEATS):
            settings = WORKLOAD.resolve({**overrides, "seed": r + 1})  # a seed changes no operator: traced
            traced._trace.cache_clear()  # every repeat traces afresh
            t = time.perf_counter()
            step = traced.trace_step(WORKLOAD, settings)
            times.append(time.perf_counter() - t)
        first = f"first {times[0] * 1e3:.0f} ms, then " if i == 0 else ""
        rest = times[1:] if i == 0 else times
        lines.append(
            f"mlp {overrides or 'defaults'}: {first}median {statistics.median(rest) * 1e3:.0f} ms "
            f"(n={len(rest)}); kernels {step.ops}, matmul FLOPs {step.flops_matmul:.3g}, "
            f"other FLOPs {step.flops_other:.3g}, bytes {step.bytes:.3g}"
        )
    lines.append(
        "The width-8192 line: a full batch (batch_size >= dataset_size) ends an epoch every step (the epoch's "
        "loss read, its sum zeroed: one kernel more), and each foreach operator of Adam's update launches "
        "49 times over 16 weights of 8,192 x 8,192 (CUDA's multi_tensor_apply: 320 blocks a launch)."
    )
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
