#!/usr/bin/env python3
"""Does the measuring process give memory back after a job? (issue 40, item 3)

    .venv/bin/python benchmarks/worker_memory.py --out docs/worker_memory.txt

The probe: after /training?batch_size=8&hidden_width=4096&depth=4&dataset_size=1048576&data_resident=false
the measuring process held 1.74-1.78 GB until the server restarted, so the next visitor's
/training?over=batch_size&batch_size=8&hidden_width=4096&depth=4&dataset_size=524288 was refused "on top of
the 1.8 GB this process already holds", and its timeline always was.

This replays it through the page's own jobs (ui.measure.sweep_request, the timeline request of
ui.step_story) in a lib.core.worker.MeasureWorker, after the server's warm-up jobs, twice: a worker
that keeps what its jobs leave (give_back=False: as before issue 40) and one that gives it back (the
app's). The first view's grid is measured; then its timeline, whose visitor closes the tab after the
first step (what left 1.6 GB held here: the cancelled step's tensors sit in reference cycles, and the
next job's gc.freeze (lib.core.gc_scope) put them where no collection looks); then a view at hidden
width 2,048, whose 16 MiB weights come from glibc's heap, which keeps them after they are freed. For
each job it prints the worker's resident memory read from /proc (as the probe did) and what the
worker reported: after the job's garbage was collected and after malloc_trim, and whether it was
recycled. Then which of the second view's points the memory gate admits, against a fresh worker's, and
what a recycle costs the next job. Goal: back within 0.2 GB of the idle size (after the warm-up).
"""

from __future__ import annotations

import argparse
import datetime
import functools
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOAL_GB = 0.2
FIRST = {"batch_size": 8, "hidden_width": 4096, "depth": 4, "dataset_size": 1_048_576, "data_resident": False}
WIDE = {"over": "depth", "batch_size": 8, "hidden_width": 2048, "depth": 8}
SECOND = {"batch_size": 8, "hidden_width": 4096, "depth": 4, "dataset_size": 524_288}


def rss_gb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        return next(float(line.split()[1]) * 1024 / 1e9 for line in f if line.startswith("VmRSS:"))


def page_jobs(settings: dict, *, point: bool = True, timeline: bool = True) -> list[tuple[str, object]]:
    """The jobs the Training page sends for a view (its grid; the point explained, profiled, as when 'Where one
    step's time went' is open; the step's timeline, as when its expander is open), as the page makes them."""
    from lib.core.request import LiveRequest
    from lib.lessons.common.live import live_timeline
    from lib.lessons.training import live as L
    from lib.lessons.training.view import View
    from ui.measure import sweep_request

    view = View(**settings)
    work, fixed = view.family.workload, L.live_settings(view, gpu_live=False)
    jobs = [
        ("grid", sweep_request(work, view.over, L.live_grid(view), fixed, ["cpu"], num_threads=L.DEFAULT_THREADS)[1])
    ]
    if point:
        jobs.append(
            (
                "point, profiled",
                sweep_request(
                    work, view.over, [view.current], fixed, ["cpu"], current=view.current, num_threads=L.DEFAULT_THREADS
                )[1],
            )
        )
    if timeline:
        step = work.resolve({**view.settings(), "mode": fixed["mode"]})
        jobs.append(("timeline", LiveRequest.of(live_timeline, work, step, "cpu", num_threads=L.DEFAULT_THREADS)))
    return jobs


def warm_up_jobs() -> list[tuple[str, object]]:
    """The server's warm-up in the measuring process (ui.warm_up.start_warm_up)."""
    from lib.lessons.common.live import DEFAULT_CPU_THREADS, warm_up
    from lib.workloads import get_workload
    from ui.warm_up import DATALOADER_WARM_UP

    return [
        ("warm-up: MLP steps", functools.partial(warm_up, get_workload("mlp"), num_threads=DEFAULT_CPU_THREADS)),
        (
            "warm-up: DataLoader",
            functools.partial(
                warm_up, get_workload("dataloader"), DATALOADER_WARM_UP, num_threads=DEFAULT_CPU_THREADS, calls=1
            ),
        ),
    ]


class VisitorLeft(Exception):
    """What Streamlit raises in the script of a visitor who closed the tab, at its next update."""


def run(worker, name: str, job, out: list[str], *, leave_after: int | None = None) -> object:
    """Run a job as the page does; leave_after: the visitor closes the tab at that progress report."""
    reports = []

    def progress(fraction: float, message: str) -> None:
        reports.append(message)
        if leave_after is not None and len(reports) > leave_after:
            raise VisitorLeft

    # the callbacks the page passes: progress to every live job, points to the sweeps (ui.measure); none to the warm-up
    callbacks = {} if name.startswith("warm-up") else {"progress": progress}
    if "timeline" not in name and callbacks:
        callbacks["on_point"] = lambda _: None
    started = time.perf_counter()
    try:
        result = worker.run(job, **callbacks)
    except VisitorLeft:
        result, name = None, f"{name}, left at report {leave_after}"
    took = time.perf_counter() - started
    held = worker.held
    time.sleep(0.5)  # a recycled worker's successor has started: read it as the probe would
    out.append(
        f"  {name:<46} {took:5.1f} s  rss {rss_gb(worker.pid()):5.2f} GB   after job {held.after_job / 1e9:5.2f}"
        f"  after trim {held.after_trim / 1e9:5.2f}" + ("  recycled" if held.recycled else "")
    )
    print(out[-1], flush=True)
    return result


def admitted(rows_or_timeline, out: list[str], what: str) -> None:
    rows = rows_or_timeline if isinstance(rows_or_timeline, list) else [rows_or_timeline.as_json()]
    for r in rows:
        status = str(r.get("status"))
        words = "admitted" if status == "ok" else f"refused: {r.get('message')}"
        out.append(f"    {what} batch {r.get('batch_size', SECOND['batch_size']):>6}: {words}")
        print(out[-1], flush=True)


def second_view(worker, out: list[str]) -> None:
    """Item 3's second view (its grid's points up to batch 8, and its timeline): admitted or refused."""
    second = page_jobs({"over": "batch_size", **SECOND}, point=False)
    rows = run(worker, "item 3's second view: grid", second[0][1], out)
    admitted([r for r in rows if r["batch_size"] <= 8], out, "grid")
    admitted(run(worker, "item 3's second view: timeline", second[1][1], out), out, "timeline")


def replay(give_back: bool, out: list[str]) -> None:
    from lib.core.worker import MeasureWorker

    worker = MeasureWorker(give_back=give_back)
    out.append(
        f"\n## a worker that {'gives memory back after each job (the app)' if give_back else 'keeps what its jobs leave (before issue 40)'}"
    )
    print(out[-1], flush=True)
    try:
        for name, job in warm_up_jobs():
            run(worker, name, job, out)
        idle = rss_gb(worker.pid())
        out.append(f"  idle after the warm-up: {idle:.2f} GB")
        grid, _, timeline = page_jobs(FIRST)
        run(worker, f"item 3's first view: {grid[0]}", grid[1], out)
        run(worker, f"item 3's first view: {timeline[0]}", timeline[1], out, leave_after=1)
        run(worker, "a view at width 2,048: grid", page_jobs(WIDE, point=False, timeline=False)[0][1], out)
        held = rss_gb(worker.pid())
        out.append(
            f"  held before the second view: {held:.2f} GB, {held - idle:+.2f} GB over the idle size "
            f"({'within' if held - idle <= GOAL_GB else 'over'} the {GOAL_GB} GB goal); "
            f"recycled {worker.recycled} time(s)"
        )
        print(out[-1], flush=True)
        second_view(worker, out)
    finally:
        worker.stop()


def fresh(out: list[str]) -> None:
    from lib.core.worker import MeasureWorker

    worker = MeasureWorker()
    out.append("\n## a fresh worker, its warm-up, then only the second view (the probe's reference)")
    print(out[-1], flush=True)
    try:
        for name, job in warm_up_jobs():
            run(worker, name, job, out)
        second_view(worker, out)
    finally:
        worker.stop()


def recycle_cost(out: list[str]) -> None:
    """What a recycle costs the next job: a fresh process importing what the old one had."""
    from lib.core.heap import process_rss_bytes
    from lib.core.worker import MeasureWorker

    worker = MeasureWorker()
    out.append("\n## recycling (what a job that keeps memory alive triggers), after the MLP warm-up")
    print(out[-1], flush=True)
    try:
        for name, job in warm_up_jobs()[:1]:
            run(worker, name, job, out)
        started = time.perf_counter()
        worker.recycle(("torch", "lib.lessons.common.live", "lib.workloads"))  # as after a job that kept memory
        worker.run(functools.partial(process_rss_bytes))
        out.append(
            f"  a fresh process importing torch and the app's modules answers its first job after "
            f"{time.perf_counter() - started:.1f} s, holding {rss_gb(worker.pid()):.2f} GB"
        )
        print(out[-1], flush=True)
    finally:
        worker.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    from lib.lessons.training.live import DEFAULT_THREADS

    out = [
        f"# worker memory (issue 40, item 3), {datetime.date.today()} on {platform.node()} ({os.cpu_count()} cores), "
        f"commit {commit}, {DEFAULT_THREADS} torch thread(s), memory cap {os.environ.get('GPUWIN_MEMORY_CAP_GB', '2.7')} GB",
        "# rss: the worker's VmRSS read from /proc by the server half a second after the job; after job / after "
        "trim: what the worker reported (GB)",
    ]
    print(out[0], flush=True)
    out.append(
        f"# load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (other sessions share "
        "these cores: the seconds vary with them, the memory does not)"
    )
    replay(False, out)
    replay(True, out)
    fresh(out)
    recycle_cost(out)
    out.append(f"\n# load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.out:
        args.out.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
