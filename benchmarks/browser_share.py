#!/usr/bin/env python3
"""A new visitor's first chart in chromium, page by page, against a bare one-chart page (issue 25's
browser goal: within 1.3x), with another checkout beside it in the same run.

    .venv/bin/python benchmarks/browser_share.py --out docs/browser_share.txt
    .venv/bin/python benchmarks/browser_share.py home jacobian --before /tmp/old_checkout --visits 8

The servers (the bare app benchmarks/floor_app.py, this checkout, and --before's) run at once, pinned to
CPU 0 as a one-CPU host gives; chromium runs on the other core, as a visitor's own machine. Each page is
first opened once per server and left to finish (its live measurements are then cached: this times the
browser's share, benchmarks/host_demo.py the server's). Then --visits rounds, each opening every
(server, page) once in a shuffled order, each visit a new browser context (a new visitor: no session,
the frontend's code loaded again). Printed per page: the median seconds from navigation to the first
chart's canvas (the quartiles beside it), its ratio to the bare page's, and the browser's main-thread
busy time until then (Chrome's TaskDuration: less moved by the box's other work than the wall clock).
The work done ahead (ui.prefetch) is left off (GPUWIN_NO_PREFETCH=1), so no visit meets it.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from page_speed import CHART, CHROMIUM, CHROMIUM_ARGS, LINKS, TIMEOUT_MS, server, wait_idle  # noqa: E402

GOAL = 1.3
DEFAULT_PAGES = ["home", "training", "jacobian", "timing_pitfalls", "data_pipeline", "seed_cases"]


def visit(browser, url: str, *, settle: bool = False) -> tuple[float, float]:
    """A new visitor opens `url`: (seconds to the first chart, the main thread's busy seconds until then)."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
    first = time.perf_counter() - start
    busy = next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "TaskDuration")
    if settle:  # the first visit: let the page's live measurements finish, so later visits find them cached
        page.wait_for_timeout(300)
        wait_idle(page)
    context.close()
    return first, busy


def pin_servers(pids) -> None:
    """Every thread of these servers onto CPU 0, as a one-CPU host runs them."""
    for pid in pids:
        subprocess.run(["taskset", "-acp", "0", str(pid)], stdout=subprocess.DEVNULL, check=False)


def pinned_chromium(pw):
    """Chromium on CPU 1 alone: the visitor's own machine, not sharing the servers' core."""
    wrapper = Path(tempfile.mkdtemp()) / "chromium"
    wrapper.write_text(f'#!/bin/sh\nexec taskset -c 1 {CHROMIUM} "$@"\n')
    wrapper.chmod(0o755)
    return pw.chromium.launch(executable_path=str(wrapper), args=CHROMIUM_ARGS)


def visit_rounds(browser, urls: dict, visits: int) -> dict:
    """Each url opened once and left to finish (its live work then cached), then `visits` rounds, each
    opening every url once in a shuffled order as a new visitor: {key: [(first chart s, busy s), ...]}."""
    for url in urls.values():
        visit(browser, url, settle=True)
    times: dict = {key: [] for key in urls}
    keys = list(urls)
    for _ in range(visits):
        random.shuffle(keys)
        for key in keys:
            times[key].append(visit(browser, urls[key]))
    return times


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return q[0], statistics.median(xs), q[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help=f"url paths (default: {' '.join(DEFAULT_PAGES)})")
    parser.add_argument("--before", type=Path, help="another checkout, served beside this one")
    parser.add_argument("--visits", type=int, default=6, help="new visitors per (server, page)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    pages = args.pages or DEFAULT_PAGES
    from playwright.sync_api import sync_playwright

    load = os.getloadavg()[0]
    head = (
        f"browser share benchmark, {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {os.cpu_count()}-core box "
        f"(load average {load:.1f} at start), servers on CPU 0, chromium on CPU 1, {args.visits} new visitors per "
        "page and server, shuffled"
    )
    print(head, flush=True)
    apps = ([("before", args.before)] if args.before else []) + [("this checkout", ROOT)]
    env = {"GPUWIN_NO_PREFETCH": "1"}
    with sync_playwright() as pw, server(env, script="benchmarks/floor_app.py") as (floor_url, floor_pid):
        servers = {"bare page": (floor_url, floor_pid)}
        stack = [server(env, root=root) for _, root in apps]
        try:
            for (name, _), ctx in zip(apps, stack):
                servers[name] = ctx.__enter__()
            pin_servers(pid for _, pid in servers.values())
            urls = {("bare page", ""): floor_url} | {
                (name, page): f"{servers[name][0]}/{LINKS.get(page, page)}" for name, _ in apps for page in pages
            }
            times = visit_rounds(pinned_chromium(pw), urls, args.visits)
        finally:
            for ctx in reversed(stack):
                ctx.__exit__(None, None, None)
    bare_first, bare_busy = (statistics.median(t[i] for t in times[("bare page", "")]) for i in (0, 1))
    lines = [
        head,
        f"bare page (benchmarks/floor_app.py): first chart {bare_first:.2f} s, main thread busy "
        f"{bare_busy:.2f} s (medians)",
        f"{'page':16s} {'server':14s} {'first chart: q1  median  q3':>28s}  x bare  goal <= {GOAL}x  busy  x bare",
    ]
    for page in pages:
        for name, _ in apps:
            q1, med, q3 = quartiles([t[0] for t in times[(name, page)]])
            busy = statistics.median(t[1] for t in times[(name, page)])
            ratio = med / bare_first
            lines.append(
                f"{page:16s} {name:14s} {q1:10.2f} {med:7.2f} {q3:5.2f} s  {ratio:5.2f}x  "
                f"{'met' if ratio <= GOAL else 'MISSED':>12s}  {busy:4.2f}  {busy / bare_busy:4.2f}x"
            )
    print("\n".join(lines[1:]), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
