#!/usr/bin/env python3
"""Does each workload's memory estimate bound what a live point really adds? (issue 26, probe finding 3)

    .venv/bin/python benchmarks/memory_estimates.py --out docs/memory_estimates.txt

For several points, each in a fresh process (lib.core.peak): the workload's estimate, and the peak
resident memory the point added above the process's own while it was timed with its phases (and,
for the Training and Timing pages' workloads, profiled and its timeline recorded, as those pages
do). The gate (lib.core.gate) refuses a point when the process's memory plus the estimate is over
the cap, so the estimate must be at least the measured growth.

The growth is not the same from one process to the next (glibc's heap keeps a different number of
freed weight-sized blocks, in steps of one block): --repeat N measures each point N times and prints
the smallest, median and largest growth; the estimate must bound the largest.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.core.peak import peak_growth  # noqa: E402

POINTS = [  # (workload, settings, profiled as its page does)
    ("mlp", {"hidden_width": 2048}, True),
    ("mlp", {"hidden_width": 2800}, True),
    ("mlp", {"hidden_width": 4096}, True),
    ("mlp", {"hidden_width": 4096, "optimizer": "sgd"}, True),
    ("mlp", {"hidden_width": 2048, "batch_size": 8192}, True),
    ("mlp", {"hidden_width": 1024, "dataset_size": 1_048_576}, True),
    ("mlp", {"hidden_width": 8192}, True),  # the probe's /training?hidden_width=8192
    ("mlp", {"hidden_width": 8192, "dataset_size": 1_048_576}, True),  # and with dataset_size=1048576
    ("matmul", {"size": 2048}, True),
    ("dataloader", {"dataset_size": 16384}, False),
    ("jacobian", {"val": 30}, False),
    ("jacobian", {"val": 50}, False),  # the loop strands its temporaries on glibc 2.36: up to one a pass
    ("jacobian", {"val": 100}, False),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="also write the table here")
    parser.add_argument("--quick", action="store_true", help="only the points under 1 GB")
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes per point (default 1)")
    parser.add_argument("--only", help="only the points whose workload and settings contain this text")
    args = parser.parse_args()
    lines = [
        f"# memory estimates against measured peaks, {datetime.date.today()} on {platform.node() or 'this machine'}"
        f" ({os.cpu_count()} cores), one torch thread; growth = peak RSS (VmHWM) above RSS before the point,"
        f" {args.repeat} fresh process(es) per point: smallest / median / largest",
        f"{'workload':<11}{'settings':<48}{'estimate':>10}{'smallest':>10}{'median':>10}{'largest':>10}"
        f"{'est/largest':>12}  bound?",
    ]
    print("\n".join(lines), flush=True)
    for workload, params, profiled in POINTS:
        if args.quick and params.get("hidden_width") == 8192:
            continue
        if args.only and args.only not in f"{workload} {params}":
            continue
        runs = [peak_growth(workload, params, profiled=profiled, timeout_s=1200) for _ in range(args.repeat)]
        est, grown = runs[0].estimate_bytes, sorted(r.growth_bytes for r in runs)
        failed = next((r for r in runs if r.status != "ok"), None)
        line = (
            f"{workload:<11}{str(params):<48}{est / 1e9:>8.3f}GB{grown[0] / 1e9:>8.3f}GB"
            f"{statistics.median(grown) / 1e9:>8.3f}GB{grown[-1] / 1e9:>8.3f}GB"
            f"{est / max(grown[-1], 1):>12.2f}  {'yes' if est >= grown[-1] else 'NO'}"
            + ("" if failed is None else f"  ({failed.status}: {failed.message})")
        )
        print(line, flush=True)
        lines.append(line)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
