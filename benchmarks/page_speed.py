"""How fast the app's pages answer, in a real browser against `streamlit run`, on this machine.

    .venv/bin/python benchmarks/page_speed.py                      # the Training page
    .venv/bin/python benchmarks/page_speed.py training jacobian:"Jacobian of"
    .venv/bin/python benchmarks/page_speed.py --runs 3 --apptest

Each PAGE is a page's URL path (its file name without .py), optionally followed by
":TEXT", words that appear once its default run has finished (default: the chart alone).
For every page, on a fresh server (its own port, lib/recorded/ as shipped):

  cold server      opening the page as the server's very first visitor (imports included)
  first chart      opening it with default settings after Home has loaded once (imports warm,
                   measurement not cached), until a chart is drawn: goal <= 5 s. The Training page
                   draws a recorded GPU curve at once and the live CPU curve as it is measured, so
  complete         is also shown: until the run has finished (all points, words, charts)
  cached, nav      leaving for Home and coming back through the sidebar (same settings, cached)
  cached, widget   Training only: move the batch-size slider one step (measured), then back
                   (cached): time from the key press to the page showing the old setting again.
                   Goal for the cached re-renders: <= 0.5 s

With --apptest it also prints the server-side script time (AppTest, no browser) of a first and
of a cached run of each page. Needs Debian's chromium (/usr/bin/chromium) and playwright.
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
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CHART = "[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg"
FIRST_CHART_GOAL_S = 5.0
CACHED_GOAL_S = 0.5
TIMEOUT_MS = 120_000


@dataclass
class PageSpec:
    url_path: str
    done_text: str | None = None

    @property
    def file(self) -> Path:
        return ROOT / "pages" / f"{self.url_path}.py"


def parse_page(arg: str) -> PageSpec:
    path, _, text = arg.partition(":")
    if not text and path == "training":
        text = "Where one step's time went at"
    return PageSpec(path.strip().strip("/"), text or None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def server() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "streamlit_app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("streamlit did not become healthy")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_idle(page) -> None:
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=TIMEOUT_MS)


def wait_page(page, spec: PageSpec) -> float:
    """Wait for the first chart (and the done text); returns the time the chart appeared."""
    start = time.perf_counter()
    page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
    chart_at = time.perf_counter() - start
    if spec.done_text:
        page.get_by_text(spec.done_text, exact=False).first.wait_for(timeout=TIMEOUT_MS)
    wait_idle(page)
    return chart_at


def timed(action: Callable[[], None], wait: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    wait()
    return time.perf_counter() - start


def nav_click(page, title: str) -> None:
    page.locator("[data-testid='stSidebarNav'] a", has_text=title).first.click()


def training_widget_rerender(page) -> float:
    """Move the batch-size slider one step and back; time the step back (a cached view)."""
    slider = page.locator("[data-testid='stSlider'] input[type='range'][aria-label^='Batch size']").first
    before = slider.get_attribute("aria-valuetext")
    slider.focus()
    page.keyboard.press("ArrowRight")
    after = page.locator("[data-testid='stSlider'] input[type='range'][aria-label^='Batch size']").first
    page.get_by_text(f"Where one step's time went at batch size = {after.get_attribute('aria-valuetext')}").first.wait_for(timeout=TIMEOUT_MS)
    wait_idle(page)
    page.locator("[data-testid='stSlider'] input[type='range'][aria-label^='Batch size']").first.focus()
    return timed(lambda: page.keyboard.press("ArrowLeft"),
                 lambda: (page.get_by_text(f"Where one step's time went at batch size = {before}").first.wait_for(timeout=TIMEOUT_MS),
                          wait_idle(page)))


def browser_run(spec: PageSpec, title: str) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    out: dict[str, float] = {}
    # the server's very first visitor
    with server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1400})
            start = time.perf_counter()
            page.goto(f"{url}/{spec.url_path}")
            page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
            out["cold server"] = time.perf_counter() - start
            wait_page(page, spec)
            out["cold server, complete"] = time.perf_counter() - start
            page.close()
        finally:
            browser.close()
    with server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1400})
            page.goto(url)
            page.get_by_text("When does the GPU win?").first.wait_for(timeout=TIMEOUT_MS)
            wait_idle(page)
            start = time.perf_counter()
            page.goto(f"{url}/{spec.url_path}")
            page.wait_for_selector(CHART, timeout=TIMEOUT_MS)
            out["first chart"] = time.perf_counter() - start
            wait_page(page, spec)
            out["complete"] = time.perf_counter() - start
            # cached: away to Home and back through the sidebar
            nav_click(page, "Home")
            page.get_by_text("Lessons").first.wait_for(timeout=TIMEOUT_MS)
            wait_idle(page)
            marker = spec.done_text
            out["cached, nav"] = timed(
                lambda: nav_click(page, title),
                lambda: (page.get_by_text(marker).first.wait_for(timeout=TIMEOUT_MS) if marker
                         else page.wait_for_selector(CHART, timeout=TIMEOUT_MS), wait_idle(page)),
            )
            if spec.url_path == "training":
                out["cached, widget"] = training_widget_rerender(page)
        finally:
            browser.close()
    return out


def apptest_run(spec: PageSpec) -> dict[str, float]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300).run()
    start = time.perf_counter()
    at.switch_page(f"pages/{spec.url_path}.py").run()
    first = time.perf_counter() - start
    start = time.perf_counter()
    at.run()
    cached = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(f"{spec.url_path}: {[e.value for e in at.exception]}")
    return {"script, first run": first, "script, cached rerun": cached}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", default=["training"], help="url paths, optionally PATH:TEXT")
    parser.add_argument("--runs", type=int, default=1, help="repeat each browser measurement (medians shown)")
    parser.add_argument("--apptest", action="store_true", help="also time the scripts with AppTest")
    parser.add_argument("--no-browser", action="store_true", help="only the AppTest timings")
    args = parser.parse_args(argv)

    from ui.pages import PAGES

    titles = {Path(p.path).stem: p.title for p in PAGES}
    print(f"machine: {os.cpu_count()} cores; chromium: {CHROMIUM}")
    status = 0
    for spec in map(parse_page, args.pages):
        if not spec.file.exists():
            print(f"{spec.url_path}: no such page ({spec.file.relative_to(ROOT)})")
            status = 1
            continue
        results: dict[str, list[float]] = {}
        if not args.no_browser:
            for _ in range(args.runs):
                for key, value in browser_run(spec, titles.get(spec.url_path, spec.url_path)).items():
                    results.setdefault(key, []).append(value)
        if args.apptest or args.no_browser:
            for key, value in apptest_run(spec).items():
                results.setdefault(key, []).append(value)
        print(f"\n{spec.url_path}")
        for key, values in results.items():
            goal = (FIRST_CHART_GOAL_S if key in ("first chart", "complete") else
                    CACHED_GOAL_S if key.startswith("cached") else None)
            verdict = "" if goal is None else (f"  goal <= {goal:g} s: " + ("met" if statistics.median(values) <= goal else "MISSED"))
            spread = f" (runs: {', '.join(f'{v:.2f}' for v in values)})" if len(values) > 1 else ""
            print(f"  {key:22s} {statistics.median(values):6.2f} s{spread}{verdict}")
    return status


if __name__ == "__main__":
    sys.exit(main())
