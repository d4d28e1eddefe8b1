#!/usr/bin/env python3
"""The host a hosted demo really gets: `streamlit run streamlit_app.py` woken cold on one CPU (issue 25).

    .venv/bin/python benchmarks/host_demo.py --out docs/host_demo.txt          # one CPU and 2 cores, 3 runs each
    .venv/bin/python benchmarks/host_demo.py --cpus 0 --repeats 1 --no-browser  # a quick look

Free hosts put an idle app to sleep and start it again for the next visitor, who pays the cold start.
Each run starts the server the way such a host does (`streamlit run`, `taskset -c 0` for one CPU) and
watches its memory (the server and its children, the measuring process included: peak RSS summed
from /proc every 0.2 s, against the 2.7 GB such a host gives). Printed per run, the median of the runs:

  cold start       server process started -> Home's first chart, from a Streamlit session (the
                   server's share), beside a bare one-chart Streamlit app (benchmarks/floor_app.py)
                   started the same way; with a browser also in headless chromium (chromium pinned to
                   the other core, as a visitor's own machine)
  per page         a new session on the warm server: first chart, complete; a second session: the
                   cached revisit (the server's share, scripts/st_session.py)
  browser          a new visitor's first chart in chromium (--browser-pages), beside the bare page's
  10 visitors      ten sessions open Training at once, each its own settings: worst first chart

Goals (issue 25): cold start <= 1.3x the bare app's (one CPU and 2 cores); per page first chart <= 1 s,
complete <= 2 s, cached revisit <= 0.3 s; browser first chart <= 1.3x the bare page's. Ratios are
taken within one run: the development box is shared, so absolute seconds move with its load.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "scripts"))

from classroom import _children, run_sessions  # noqa: E402
from page_speed import (  # noqa: E402
    CHART,
    CHROMIUM,
    CHROMIUM_ARGS,
    LINKS,
    TIMEOUT_MS,
    free_port,
    open_and_time,
    streamlit_command,
)
from st_session import open_session  # noqa: E402
from warm_server import wait_healthy  # noqa: E402

RATIO_GOAL, FIRST_GOAL_S, COMPLETE_GOAL_S, CACHED_GOAL_S, MEMORY_GB = 1.3, 1.0, 2.0, 0.3, 2.7
WARM_UP_WAIT_S = 10.0  # after Home's first visit: the measuring process starts and warms up in the background


def in_thread(fn, *args):
    """fn(*args) in a thread of its own: Playwright's sync API keeps an event loop running in this one,
    and the sessions need asyncio.run."""
    result: list = []

    def run() -> None:
        try:
            result.append((True, fn(*args)))
        except BaseException as err:  # handed back to the caller
            result.append((False, err))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    ok, value = result[0]
    if not ok:
        raise value
    return value


class RssWatch:
    """Peak RSS of a process and its children, summed, sampled every 0.2 s (no cgroup needed)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            total = 0
            for p in [str(self.pid), *_children(self.pid)]:
                with contextlib.suppress(OSError, ValueError, IndexError):
                    line = next(x for x in Path(f"/proc/{p}/status").read_text().splitlines() if x.startswith("VmRSS:"))
                    total += int(line.split()[1]) * 1024
            self.peak = max(self.peak, total)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join(1)
        return self.peak / 1e9


@contextlib.contextmanager
def host(script: str, cpus: str | None, root: Path = ROOT) -> Iterator[tuple[str, float, RssWatch]]:
    """`streamlit run script` (in `root`) as a host starts it (pinned to `cpus`); yields (url, the second it
    was started, its memory watch) once it answers its health check."""
    port = free_port()
    pin = ["taskset", "-c", cpus] if cpus else []
    started = time.perf_counter()
    proc = subprocess.Popen(
        [*pin, *streamlit_command(script, port)], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    watch = RssWatch(proc.pid)
    url = f"http://127.0.0.1:{port}"
    try:
        if not wait_healthy(url, 120, starting=lambda: proc.poll() is None):
            raise RuntimeError(f"{script} did not become healthy")
        yield url, started, watch
    finally:
        watch.stop()
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


async def _visit(url: str, path: str):
    page, _, query = LINKS.get(path, path).partition("?")
    async with open_session(url) as session:
        return await session.visit(page, query, timeout_s=TIMEOUT_MS / 1000)


def cold_start(url: str, started: float) -> float:
    """Seconds from the server process's start to Home's first chart, over a session."""

    async def first() -> float:
        async with open_session(url) as session:
            sent = time.perf_counter()
            visit = await session.visit("", "", timeout_s=TIMEOUT_MS / 1000)
            if visit.first_chart_s is None:
                raise RuntimeError(f"no chart on {url}: {visit.exceptions}")
            return sent - started + visit.first_chart_s

    return asyncio.run(first())


def _browser_first(browser, url: str, started: float) -> float:
    """Seconds from the server's start to Home's first chart in a new chromium context."""
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    page.goto(url)
    page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
    elapsed = time.perf_counter() - started
    page.context.close()
    return elapsed


def one_run(cpus: str | None, paths: list[str], browser, browser_paths: list[str]) -> dict:
    out: dict = {"pages": {}, "browser_pages": {}}
    with host("benchmarks/floor_app.py", cpus) as (url, started, _):
        out["floor_cold"] = in_thread(cold_start, url, started)
        # the floor under every page's server share: a new session on the warm bare app, start to end
        out["floor_session"] = statistics.median(
            in_thread(lambda: asyncio.run(_visit(url, "")).finished_s) for _ in range(3)
        )
        if browser is not None:
            out["floor_browser_first"] = statistics.median(open_and_time(browser, url)[0] for _ in range(3))
    with host("streamlit_app.py", cpus) as (url, started, watch):
        out["app_cold"] = in_thread(cold_start, url, started)
        time.sleep(WARM_UP_WAIT_S)
        for path in paths:
            new = in_thread(lambda: asyncio.run(_visit(url, path)))
            again = in_thread(lambda: asyncio.run(_visit(url, path)))
            out["pages"][path] = (new.first_chart_s, new.finished_s, again.finished_s)
            if browser is not None and path in browser_paths:
                out["browser_pages"][path] = open_and_time(browser, f"{url}/{LINKS.get(path, path)}")[0]
        crowd = in_thread(run_sessions, url, 10)
        out["crowd_worst"] = max(crowd["firsts"]) if crowd["firsts"] else float("nan")
        out["crowd_median"] = statistics.median(crowd["firsts"]) if crowd["firsts"] else float("nan")
        out["crowd_errors"] = len(crowd["errors"])
        time.sleep(0.5)
        out["peak_gb"] = watch.stop()
    if browser is not None:  # the browser's cold start: a fresh server of each kind, chromium opening Home
        with host("benchmarks/floor_app.py", cpus) as (url, started, _):
            out["floor_browser_cold"] = _browser_first(browser, url, started)
        with host("streamlit_app.py", cpus) as (url, started, _):
            out["app_browser_cold"] = _browser_first(browser, url, started)
    return out


def med(runs: list[dict], *keys) -> float:
    values = []
    for run in runs:
        value = run
        for key in keys:
            value = value[key]
        values.append(value if value is not None else float("nan"))
    return statistics.median(values)


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def report(label: str, runs: list[dict], paths: list[str]) -> list[str]:
    cold, floor = med(runs, "app_cold"), med(runs, "floor_cold")
    ratio = statistics.median(r["app_cold"] / r["floor_cold"] for r in runs)
    lines = [
        f"== {label}: median of {len(runs)} runs",
        f"cold start to Home's first chart (server share): app {cold:.2f} s, bare one-chart app {floor:.2f} s, "
        f"ratio {ratio:.2f} (goal <= {RATIO_GOAL:g}: {verdict(ratio <= RATIO_GOAL)})",
    ]
    if "app_browser_cold" in runs[0]:
        b_ratio = statistics.median(r["app_browser_cold"] / r["floor_browser_cold"] for r in runs)
        lines.append(
            f"cold start to Home's first chart in chromium: app {med(runs, 'app_browser_cold'):.2f} s, bare "
            f"{med(runs, 'floor_browser_cold'):.2f} s, ratio {b_ratio:.2f} (goal <= {RATIO_GOAL:g}: "
            f"{verdict(b_ratio <= RATIO_GOAL)})"
        )
    lines.append(
        f"{'page (server share)':22} {'first chart':>11} {'complete':>9} {'cached':>7}"
        f"  goals <= {FIRST_GOAL_S:g} / {COMPLETE_GOAL_S:g} / {CACHED_GOAL_S:g} s"
        + ("   browser first chart / bare page" if "app_browser_cold" in runs[0] else "")
    )
    for path in paths:
        first, complete, cached = (med(runs, "pages", path, i) for i in range(3))
        met = first <= FIRST_GOAL_S and complete <= COMPLETE_GOAL_S and cached <= CACHED_GOAL_S
        line = f"{path:22} {first:10.2f}s {complete:8.2f}s {cached:6.2f}s  {verdict(met):6}"
        if path in runs[0]["browser_pages"]:
            b = statistics.median(r["browser_pages"][path] / r["floor_browser_first"] for r in runs)
            line += f"   {med(runs, 'browser_pages', path):.2f} s = {b:.2f}x ({verdict(b <= RATIO_GOAL)})"
        lines.append(line)
    lines.append(
        f"bare one-chart app, a new session on the warm server, start to end: {med(runs, 'floor_session'):.2f} s "
        "(the floor under every page's server share)"
    )
    if runs[0]["browser_pages"]:
        lines.append(f"bare page, a new visitor's first chart in chromium: {med(runs, 'floor_browser_first'):.2f} s")
    lines.append(
        f"10 visitors at once on Training (sessions): first chart median {med(runs, 'crowd_median'):.2f} s, "
        f"worst {med(runs, 'crowd_worst'):.2f} s; visitors without a chart or with an error: "
        f"{max(r['crowd_errors'] for r in runs)}"
    )
    peak = max(r["peak_gb"] for r in runs)
    lines.append(
        f"peak memory (server + measuring process, RSS): {peak:.2f} GB (cap {MEMORY_GB:g} GB: "
        f"{verdict(peak <= MEMORY_GB)})"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help="url paths (default: every page)")
    parser.add_argument("--cpus", default="0,all", help="'0' pins to CPU 0 (taskset -c 0); 'all' leaves it free")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-browser", action="store_true", help="sessions only (no chromium)")
    parser.add_argument(
        "--browser-pages",
        default="home,training",
        help="pages also opened in chromium by a new visitor (each takes long on a loaded box)",
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    from ui.pages import PAGES

    paths = args.pages or [Path(p.path).stem for p in PAGES]
    load = os.getloadavg()
    lines = [
        f"host demo benchmark, {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {os.cpu_count()}-core box "
        f"shared with other work (load average {load[0]:.1f} at start); shipped packs; cost-model cache "
        f"{'warm' if any((ROOT / '.cache').glob('costmodel-*.pkl')) else 'empty'} at start"
    ]
    print(lines[0], flush=True)
    for cpus in args.cpus.split(","):
        pin = None if cpus == "all" else cpus
        with contextlib.ExitStack() as stack:
            browser = None
            if not args.no_browser:
                from playwright.sync_api import sync_playwright

                pw = stack.enter_context(sync_playwright())
                executable = CHROMIUM
                if pin is not None and os.cpu_count() and os.cpu_count() > 1:
                    # the visitor's browser is not on the host: keep chromium off the server's CPU
                    other = next(c for c in range(os.cpu_count()) if str(c) != pin)
                    wrapper = Path(tempfile.mkdtemp()) / "chromium"
                    wrapper.write_text(f'#!/bin/sh\nexec taskset -c {other} {CHROMIUM} "$@"\n')
                    wrapper.chmod(0o755)
                    executable = str(wrapper)
                browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            runs = []
            for i in range(args.repeats):
                runs.append(one_run(pin, paths, browser, args.browser_pages.split(",")))
                print(
                    f"  run {i + 1} on {'CPU ' + pin if pin else 'all cores'}: cold {runs[-1]['app_cold']:.2f} s "
                    f"vs bare {runs[-1]['floor_cold']:.2f} s",
                    flush=True,
                )
            label = f"one CPU (taskset -c {pin})" if pin else f"{os.cpu_count()} cores"
            lines += report(label, runs, paths)
            print("\n".join(report(label, runs, paths)), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
