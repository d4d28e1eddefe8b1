"""What freeing a measured step costs, with the heap frozen around the step (lib.core.workload.built_step now)
and without (built_step before 2026-11-29: a full gc.collect over every object the process holds).

    python benchmarks/step_free_cost.py [--device cpu|cuda] [--steps 8] [--with-app] [--out FILE]

Builds and frees the same small Training step `--steps` times each way, alternating, in one process, and prints
the seconds the collection took per step and the process CPU per step. `--with-app` first imports what a test
process or the web server holds too (Streamlit, Altair, pandas, the pages' lessons): more objects to walk.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lib.core import workload as workload_module
from lib.workloads import get_workload


@contextlib.contextmanager
def unfrozen_step(work, settings, device):
    """built_step as it was: the same code with its heap left unfrozen (a full collection over the whole heap)."""
    real = workload_module.frozen_heap
    workload_module.frozen_heap = contextlib.nullcontext
    try:
        with workload_module.built_step(work, settings, device) as step:
            yield step
    finally:
        workload_module.frozen_heap = real


def one(kind, work, settings, device) -> tuple[float, float]:
    """(seconds in gc.collect, process CPU seconds) of one build-run-free."""
    spent = []
    real = gc.collect

    def timed_collect(*args):
        start = time.perf_counter()
        try:
            return real(*args)
        finally:
            spent.append(time.perf_counter() - start)

    cpu = time.process_time()
    gc.collect = timed_collect
    try:
        with kind(work, settings, device) as step:
            step.run()
    finally:
        gc.collect = real
    return sum(spent), time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--with-app", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.with_app:
        import altair  # noqa: F401
        import pandas  # noqa: F401
        import streamlit  # noqa: F401

        import lib.lessons.training.screen  # noqa: F401
    work = get_workload("mlp")
    settings = work.resolve({"batch_size": 64, "dataset_size": 256})
    one(workload_module.built_step, work, settings, args.device)  # first step: imports (torch._dynamo) done here
    kinds = {"frozen (built_step)": workload_module.built_step, "unfrozen (before)": unfrozen_step}
    seen: dict[str, list[tuple[float, float]]] = {k: [] for k in kinds}
    for _ in range(args.steps):
        for name, kind in kinds.items():
            seen[name].append(one(kind, work, settings, args.device))
    lines = [
        f"step_free_cost: {work.name} batch 64 on {args.device}, {args.steps} steps each way, alternating; "
        f"{len(gc.get_objects()):,} objects tracked{' (with the app imported)' if args.with_app else ''}"
    ]
    for name, rows in seen.items():
        collect = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        lines.append(f"  {name:20s} collection {collect * 1e3:8.1f} ms a step (median), process CPU {cpu:.3f} s a step")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
