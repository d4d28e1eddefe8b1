"""How fast every page answers, in a real browser against `streamlit run`, on this machine.

    .venv/bin/python benchmarks/page_speed.py                 # every page
    .venv/bin/python benchmarks/page_speed.py training home --out docs/page_speed.txt
    .venv/bin/python benchmarks/page_speed.py --against /tmp/before   # cached revisits: that checkout vs this

For every page (its URL path), on a server started for the measurement (lib/recorded/ as shipped):

  cold server      the server's very first visitor opens Home: until its chart is drawn
  first chart      a new visitor opens the page (server warm, this view not measured yet): until
                   the first chart is drawn (recorded answers are drawn before any live measurement)
  complete         ... until the page has finished running (live measurements included)
  cached revisit   another new visitor opens the same link: until complete (measurements cached)
  same browser     that visitor opens the link once more (Streamlit's frontend now in its browser cache)

Goals (issue 14, 2 cores, no GPU): first chart <= 1 s, complete <= 2 s, cached revisit <= 0.3 s,
cold server to the Home page drawn <= 3 s. Needs Debian's chromium and playwright.

Every visitor is a new browser context (no cache): it loads and starts Streamlit's frontend before any
page can draw, so the floor line first times a bare Streamlit page with one small chart the same way.

Then the server's share alone (--server-only for just that): on a fresh server, after its first visit,
a Streamlit session (scripts/st_session.py, the messages a browser would get) opens each page: seconds
to the first chart and to the end of the run, then again from a new session (measurements cached).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from warm_server import wait_healthy  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CHART = "[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg"
FIRST_CHART_GOAL_S, COMPLETE_GOAL_S, CACHED_GOAL_S, COLD_GOAL_S = 1.0, 2.0, 0.3, 3.0
TIMEOUT_MS = 120_000
CACHED_VISITS = 3  # new sessions per cached revisit, their median: one run moves with the box's load
# with nothing uploaded, Your results draws no chart (it asks for a pack): its chart view is the shipped packs
LINKS = {"home": "", "your_results": "your_results?shipped=true"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def streamlit_command(script: str, port: int) -> list[str]:
    """`streamlit run script` headless on 127.0.0.1:port, as the benchmarks start the app."""
    flags = {"--server.headless": "true", "--server.port": str(port), "--server.address": "127.0.0.1"}
    return [sys.executable, "-m", "streamlit", "run", script, *(part for flag in flags.items() for part in flag)]


@contextlib.contextmanager
def server(
    env: dict[str, str] | None = None, script: str = "streamlit_app.py", root: Path = ROOT
) -> Iterator[tuple[str, int]]:
    """A fresh `streamlit run` on a free port; yields (url, pid) once it answers its health check."""
    port = free_port()
    proc = subprocess.Popen(
        streamlit_command(script, port),
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        if not wait_healthy(url, 90, starting=lambda: proc.poll() is None):
            raise RuntimeError("streamlit did not become healthy")
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_idle(page) -> None:
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=TIMEOUT_MS)


def open_and_time(browser, url: str, again: bool = False) -> tuple[float, float] | tuple[float, float, float]:
    """A new visitor (its own browser context) opens `url`: (seconds to the first chart, to complete);
    with `again`, the same visitor then opens it once more (the frontend now in its browser's cache):
    (first, complete, seconds to complete the second time)."""
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    times = []
    for _ in range(2 if again else 1):
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
        first = time.perf_counter() - start
        page.wait_for_timeout(100)  # let the script's status appear before waiting for it to go
        wait_idle(page)
        times += [first, time.perf_counter() - start] if not times else [time.perf_counter() - start]
    page.context.close()
    return tuple(times)


def measure(paths: list[str]) -> list[str]:
    from playwright.sync_api import sync_playwright

    lines = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        with server(script="benchmarks/floor_app.py") as (url, _):
            open_and_time(browser, url)  # the server's first run imports Altair and pandas
            floor = [open_and_time(browser, url) for _ in range(3)]
            floor_first, floor_complete = (sorted(f[i] for f in floor)[1] for i in (0, 1))
            lines.append(
                f"floor (a bare Streamlit page with one small chart, median of 3 new visitors): first chart "
                f"{floor_first:.2f} s, complete {floor_complete:.2f} s"
            )
            print(lines[-1], flush=True)
        started = time.perf_counter()
        with server() as (url, _):
            boot = time.perf_counter() - started
            home_first, _ = open_and_time(browser, url)
            lines.append(
                f"cold server: {boot:.2f} s to start, then {home_first:.2f} s to the Home page's chart = "
                f"{boot + home_first:.2f} s  goal <= {COLD_GOAL_S:g} s: "
                f"{'met' if boot + home_first <= COLD_GOAL_S else 'MISSED'}"
            )
            lines.append(
                f"{'page':16} {'first chart':>12} {'complete':>9} {'cached revisit':>15} {'same browser':>13}"
                f"  goals <= {FIRST_CHART_GOAL_S:g} / {COMPLETE_GOAL_S:g} / {CACHED_GOAL_S:g} s;"
                f" first chart above the floor"
            )
            for path in paths:
                link = f"{url}/{LINKS.get(path, path)}"
                first, complete = open_and_time(browser, link)
                _, cached, same_browser = open_and_time(browser, link, again=True)
                met = first <= FIRST_CHART_GOAL_S and complete <= COMPLETE_GOAL_S and cached <= CACHED_GOAL_S
                lines.append(
                    f"{path:16} {first:11.2f}s {complete:8.2f}s {cached:14.2f}s {same_browser:12.2f}s  "
                    f"{'met' if met else 'MISSED'}; +{first - floor_first:.2f} s"
                )
                print(lines[-1], flush=True)
        browser.close()
    return lines


def server_share(paths: list[str]) -> list[str]:
    """Per page, what the server takes for a new view and for a cached one, timed from a session."""
    import asyncio

    from st_session import open_session

    async def visit(url: str, path: str):
        page, _, query = LINKS.get(path, path).partition("?")
        async with open_session(url) as session:
            return await session.visit(page, query, timeout_s=TIMEOUT_MS / 1000)

    lines = [
        f"{'server share':16} {'first chart':>12} {'complete':>9} {'cached revisit':>15}"
        f"  (a session, no browser; the same goals; cached: median of {CACHED_VISITS} new sessions)"
    ]
    with server(script="benchmarks/floor_app.py") as (url, _):
        asyncio.run(visit(url, "home"))
        floor = statistics.median(asyncio.run(visit(url, "home")).finished_s for _ in range(CACHED_VISITS))
    with server() as (url, _):
        asyncio.run(visit(url, "home"))  # the server's first visit: imports, packs, warm-up
        time.sleep(5)  # the warm-up (measuring process, cost models) finishes in the background
        for path in paths:
            new = asyncio.run(visit(url, path))
            cached = statistics.median(
                asyncio.run(visit(url, path)).finished_s or float("nan") for _ in range(CACHED_VISITS)
            )
            first = f"{new.first_chart_s:11.2f}s" if new.first_chart_s is not None else f"{'no chart':>12}"
            lines.append(f"{path:16} {first} {new.finished_s or float('nan'):8.2f}s {cached:14.2f}s")
            print(lines[-1], flush=True)
    # a new session costs the server this much before any page script runs: no cached page goes below it
    lines.append(
        f"{'bare app':16} {'':>12} {'':>9} {floor:14.2f}s  (benchmarks/floor_app.py, a new session, "
        "the same way: the floor)"
    )
    return lines


def against(paths: list[str], other: Path, visits: int = 5) -> list[str]:
    """The cached revisit per page on `other` (another checkout, e.g. the commit before a change) and on
    this one, both servers running side by side and their sessions taken in turn, so that both see the
    same load: on a shared box two runs one after the other differ by more than most changes do."""
    import asyncio

    from st_session import open_session

    async def visit(url: str, path: str):
        page, _, query = LINKS.get(path, path).partition("?")
        async with open_session(url) as session:
            return await session.visit(page, query, timeout_s=TIMEOUT_MS / 1000)

    lines = [
        f"cached revisit, server share, median of {visits} new sessions taken in turn on two servers side by side",
        f"{'page':16} {'before':>8} {'after':>8}  (before: {other})",
    ]
    with (
        server(root=other) as (before, _),
        server() as (after, _),
        server(script="benchmarks/floor_app.py") as (floor, _),
    ):
        for url in (before, after, floor):
            asyncio.run(visit(url, "home"))  # each server's first visit: imports, packs, warm-up
        time.sleep(10)  # both warm-ups (measuring process, cost models) finish in the background
        for path in [*paths, "floor"]:
            urls = (floor, floor) if path == "floor" else (before, after)
            for url in urls:
                asyncio.run(visit(url, "home" if path == "floor" else path))  # a new view: measured live, once
            times: dict[int, list[float]] = {0: [], 1: []}
            for _ in range(visits):
                for i, url in enumerate(urls):
                    times[i].append(
                        asyncio.run(visit(url, "home" if path == "floor" else path)).finished_s or float("nan")
                    )
            b, a = (statistics.median(times[i]) for i in (0, 1))
            name = "bare app" if path == "floor" else path
            lines.append(
                f"{name:16} {b:7.2f}s {a:7.2f}s" + ("  (benchmarks/floor_app.py: the floor)" if path == "floor" else "")
            )
            print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help="url paths (default: every page)")
    parser.add_argument("--out", default=None, help="also write the table here")
    parser.add_argument("--server-only", action="store_true", help="only the server's share, no browser")
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        help="another checkout (e.g. `git worktree add /tmp/before HEAD~1`): only the cached revisit, "
        "before and after side by side",
    )
    args = parser.parse_args(argv)
    from ui.pages import PAGES

    paths = args.pages or [Path(p.path).stem for p in PAGES]
    if args.against:
        lines = [
            f"page speed on {len(os.sched_getaffinity(0))} of this box's {os.cpu_count()} cores (the servers and the "
            f"sessions), load average {os.getloadavg()[0]:.1f} at start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
            *against(paths, args.against.resolve()),
        ]
        if args.out:
            Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
        return 0
    lines = [
        f"page speed on {os.cpu_count()} cores, chromium {CHROMIUM}",
        *([] if args.server_only else measure(paths)),
        *server_share(paths),
    ]
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
