#!/usr/bin/env python3
"""What a live Data pipeline point's DataLoader workers cost in the measuring process, spawned or as a script's.

    .venv/bin/python benchmarks/dataloader_workers.py --out docs/dataloader_workers.txt

The app's measuring process (lib.core.worker) is spawned, and a spawned process spawns the processes it starts
too, unless told otherwise: each DataLoader worker then imports torch and torchvision afresh. A script on Linux,
the CLI that records the packs included, forks them. For 1, 2 and 4 workers, each in that measuring process:
the Data pipeline workload at its defaults (on the CPU, or --device cuda), built, its first epoch (the workers start; persistent after it) and
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


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found += [int(child), *_children(int(child))]
    return found


def _uss_bytes(pid: int) -> float:
    """The pages only this process holds (Private_Clean + Private_Dirty of /proc/PID/smaps_rollup)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:])
    return sum(float(fields[k].split()[0]) * 1024 for k in ("Private_Clean", "Private_Dirty"))


def one_point(method: str | None, workers: int, device: str) -> dict:
    """A job for the measuring process: `method` None keeps the start method the worker set."""
    from lib.core.workload import built_step
    from lib.workloads import get_workload

    if method:
        multiprocessing.set_start_method(method, force=True)
    work = get_workload("dataloader")
    settings = work.resolve({"num_workers": workers})
    started = time.perf_counter()
    with built_step(work, settings, device) as step:
        built = time.perf_counter()
        step.run()
        first = time.perf_counter()
        uss = sum(_uss_bytes(pid) for pid in _children(os.getpid()))
        step.run()
        second = time.perf_counter()
    return {
        "method": method or multiprocessing.get_start_method(),
        "build_s": built - started,
        "first_s": first - built,
        "second_s": second - first,
        "children_uss_mb": uss / 2**20,
        "estimate_mb": work.peak_memory_bytes(settings, device) / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--device", default="cpu", help="cpu, or cuda: the measuring process has CUDA started")
    args = parser.parse_args()
    from dataloader_workers import one_point as job  # by module name: the measuring process imports it so

    from lib.core.worker import MeasureWorker

    lines = [
        f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.node()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; the Data pipeline workload at its defaults on "
        f"{args.device}, in lib.core.worker's measuring process",
        f"{'workers':>7} {'started by':>10} {'build':>7} {'1st epoch':>9} {'2nd epoch':>9} {'workers USS':>11} "
        f"{'estimate':>9}",
    ]
    print(lines[0])
    print(lines[1])
    for workers in (1, 2, 4):
        for method in ("spawn", None):
            measuring = MeasureWorker()
            try:
                r = measuring.run(functools.partial(job, method, workers, args.device))
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
