#!/usr/bin/env python3
"""Why live measurements run in their own process: a timing taken inside the web server while other
visitors' scripts run Python waits for the interpreter lock (GIL) behind them.

    .venv/bin/python benchmarks/gil_contention.py --out docs/gil_contention.txt

Times the same launch-bound CPU step (the Training page's MLP at batch 1 and at batch 64, width 64,
depth 2, one thread) three ways: in this process with nothing else running; in this process while
`--busy` threads run Python (as visitors' scripts drawing charts do); and in the measuring process
(lib.core.worker) while the same threads keep running here. Prints each median and its ratio to the
quiet one: in-process timings under load come out slower than the step is; the worker's should not.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.core.worker import MeasureWorker  # noqa: E402
from lib.lessons.common.live import LiveBudget, LiveSweep, live_sweep  # noqa: E402
from lib.workloads import get_workload  # noqa: E402

FIXED = {"hidden_width": 64, "depth": 2, "dataset_size": 4096}
BATCHES = [1, 64]


def sweep(**kwargs):
    return functools.partial(
        live_sweep,
        LiveSweep(get_workload("mlp"), "batch_size", BATCHES, FIXED, ["cpu"], profile_current=False),
        LiveBudget(1.0, num_threads=1),
        **kwargs,
    )


def busy_python(stop: threading.Event) -> None:
    """What a visitor's script does between its torch calls: pure Python, holding the GIL."""
    while not stop.is_set():
        sum(i * i for i in range(2_000))


def medians(points) -> dict[int, float]:
    return {p.settings["batch_size"]: p.median_s for p in points}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=4, help="threads running Python meanwhile")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    worker = MeasureWorker()
    worker.start()
    worker.run(sweep())  # its imports and first steps paid before anything is compared

    quiet = medians(sweep()())
    stop = threading.Event()
    threads = [threading.Thread(target=busy_python, args=(stop,), daemon=True) for _ in range(args.busy)]
    for t in threads:
        t.start()
    try:
        loaded_here = medians(sweep()())
        loaded_worker = medians(worker.run(sweep()))
    finally:
        stop.set()
        for t in threads:
            t.join()
    worker_quiet = medians(worker.run(sweep()))
    worker.stop()

    lines = [
        f"GIL contention on {os.cpu_count()} cores: MLP step, width 64, depth 2, 1 thread; "
        f"{args.busy} threads running Python in the server meanwhile",
        f"{'batch':>6} {'here, quiet':>12} {'here, loaded':>13} {'worker, quiet':>14} {'worker, loaded':>15}"
        f"  loaded / quiet: here, worker",
    ]
    for b in BATCHES:
        lines.append(
            f"{b:6d} {quiet[b] * 1e3:10.3f}ms {loaded_here[b] * 1e3:11.3f}ms {worker_quiet[b] * 1e3:12.3f}ms "
            f"{loaded_worker[b] * 1e3:13.3f}ms  x{loaded_here[b] / quiet[b]:.2f}, "
            f"x{loaded_worker[b] / worker_quiet[b]:.2f}"
        )
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
