#!/usr/bin/env python3
"""What a live Data pipeline point's DataLoader workers cost in the measuring process, spawned or as a script's.

    .venv/bin/python benchmarks/dataloader_workers.py --out docs/dataloader_workers.txt

The app's measuring process (lib.core.worker) is spawned, and a spawned process spawns the processes it starts
too, unless told otherwise: each DataLoader worker then imports torch and torchvision afresh. A script on Linux,
the CLI that records the packs included, forks them. For 1, 2 and 4 workers, each in that measuring process:
the Data pipeline workload at its defaults, built, its first epoch (the workers start; persistent after it) and
its second timed, and the workers' own memory (USS: pages no other process shares) read after the first, once
with the workers spawned ('spawn') and once started as the worker now starts them (the platform's default). The
gate's estimate of the point (lib.workloads.dataloader's peak_memory_bytes) is printed beside them.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import multiprocessing
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]


def one_point(method: str | None, workers: int) -> dict:
    """A job for the measuring process: `method` None keeps the start method the worker set."""
    import psutil

    from lib.core.workload import built_step
    from lib.workloads import get_workload

    if method:
        multiprocessing.set_start_method(method, force=True)
    work = get_workload("dataloader")
    settings = work.resolve({"num_workers": workers})
    started = time.perf_counter()
    with built_step(work, settings, "cpu") as step:
        built = time.perf_counter()
        step.run()
        first = time.perf_counter()
        uss = sum(c.memory_full_info().uss for c in psutil.Process().children(recursive=True))
        step.run()
        second = time.perf_counter()
    return {
        "method": method or multiprocessing.get_start_method(),
        "build_s": built - started,
        "first_s": first - built,
        "second_s": second - first,
        "children_uss_mb": uss / 2**20,
        "estimate_mb": work.peak_memory_bytes(settings, "cpu") / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from dataloader_workers import one_point as job  # by module name: the measuring process imports it so

    from lib.core.worker import MeasureWorker

    lines = [
        f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.node()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; the Data pipeline workload at its defaults on "
        "the CPU, in lib.core.worker's measuring process",
        f"{'workers':>7} {'started by':>10} {'build':>7} {'1st epoch':>9} {'2nd epoch':>9} {'workers USS':>11} "
        f"{'estimate':>9}",
    ]
    print(lines[0])
    print(lines[1])
    for workers in (1, 2, 4):
        for method in ("spawn", None):
            measuring = MeasureWorker()
            try:
                r = measuring.run(functools.partial(job, method, workers))
            finally:
                measuring.stop()
            line = (
                f"{workers:>7} {r['method']:>10} {r['build_s']:>6.2f}s {r['first_s']:>8.2f}s {r['second_s']:>8.2f}s "
                f"{r['children_uss_mb']:>8.0f} MB {r['estimate_mb']:>6.0f} MB"
            )
            print(line, flush=True)
            lines.append(line)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
