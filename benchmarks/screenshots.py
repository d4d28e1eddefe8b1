"""Every page's first screen in a real browser: are the chart and the one-sentence answer on it?

    .venv/bin/python benchmarks/screenshots.py                           # every page, three screens
    .venv/bin/python benchmarks/screenshots.py jacobian home --out out/shots --table docs/screenshots.txt

A server is started for the measurement (lib/recorded/ as shipped; benchmarks/page_speed.server).
Each page is opened on three screens:

  desktop   1366 × 768, a laptop
  phone     390 × 844, a phone held upright (mobile, touch)
  embedded  800 × 600, the page inside an <iframe src="…/<page>?embed=true"> of an HTML page, as
            course material embeds it (no sidebar, no page menu)

and once the script has finished, a PNG of what is on screen is saved (OUT/<page>_<screen>.png) and
the page is checked by the bounds of its elements:

  chart     the page's first chart lies entirely within the first screen (nothing to scroll)
  answer    the one-sentence answer (the .st-key-answer slot of ui.scaffold.answer_first, else the
            first paragraph after the title) lies entirely within the first screen
  fits      no chart on the page is wider than the screen

The table (page × screen) is printed and written to docs/screenshots.txt. Pages open with a view
that has a chart where their default has none (Your results: the shipped packs switched on).
Needs Debian's chromium and playwright.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from page_speed import CHROMIUM, CHROMIUM_ARGS, server  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402

CHART = "[data-testid='stVegaLiteChart']"
MAIN = "[data-testid='stMain']"
IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
SETTLED = "() => !document.querySelector('[data-testid=\"stSkeleton\"]') && document.fonts.status === 'loaded'"
CHART_WAIT_MS = 15_000
TIMEOUT_MS = 180_000
SCREENS = {"desktop": (1366, 768), "phone": (390, 844), "embedded": (800, 600)}
QUERIES = {"your_results": "shipped=true"}  # a view with a chart (the default shows none before an upload)

# The answer: ui.scaffold.answer_first's slot, or (a page laid out by hand) the first paragraph after the title.
ANSWER_JS = """() => {
  const slot = document.querySelector(
    '.st-key-answer [data-testid="stMarkdown"], .st-key-answer [data-testid="stAlert"]');
  if (slot) { const r = slot.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }
  const main = document.querySelector('[data-testid="stMain"]') || document.body;
  const title = main.querySelector('h1');
  for (const el of main.querySelectorAll('[data-testid="stMarkdown"]')) {
    if (title && !(title.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
    const r = el.getBoundingClientRect();
    if (r.height > 0) return [r.x, r.y, r.width, r.height];
  }
  return null;
}"""
# Every chart drawn (a chart in a closed expander has no size), as [x, y, width, height].
CHARTS_JS = """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
  .map(el => el.getBoundingClientRect()).filter(r => r.width > 0 && r.height > 0)
  .map(r => [r.x, r.y, r.width, r.height])"""
IFRAME_HTML = """<!doctype html><html><body style="margin:0">
<iframe src="{src}" width="800" height="600" style="border:0;display:block"></iframe></body></html>"""


@dataclass
class Shot:
    page: str
    screen: str
    chart: bool | None  # None: the page drew no chart
    answer: bool | None  # None: no answer found
    fits: bool
    seconds: float
    png: Path

    def cells(self) -> list[str]:
        def yes(v: bool | None, none: str) -> str:
            return none if v is None else "yes" if v else "NO"

        return [yes(self.chart, "no chart"), yes(self.answer, "no answer"), "yes" if self.fits else "NO"]


def within(box: list[float] | None, width: int, height: int) -> bool | None:
    """Whether a box [x, y, w, h] (the frame's viewport coordinates) lies entirely within width × height."""
    if box is None:
        return None
    x, y, w, h = box
    return x >= -1 and y >= -1 and x + w <= width + 1 and y + h <= height + 1


def shoot(browser, url: str, page_path: str, screen: str, out: Path) -> Shot:
    width, height = SCREENS[screen]
    query = QUERIES.get(page_path, "")
    link = f"{url}/{'' if page_path == 'home' else page_path}"
    options = {"viewport": {"width": width, "height": height}}
    if screen == "phone":
        options.update(is_mobile=True, has_touch=True, device_scale_factor=2)
    context = browser.new_context(**options)
    page = context.new_page()
    start = time.perf_counter()
    if screen == "embedded":
        src = f"{link}?{query + '&' if query else ''}embed=true"
        page.set_content(IFRAME_HTML.format(src=src))
        page.wait_for_selector("iframe", timeout=TIMEOUT_MS)
        frame = page.frame_locator("iframe")
        frame.locator(MAIN).wait_for(timeout=TIMEOUT_MS)
        target = next(f for f in page.frames if f is not page.main_frame)
    else:
        page.goto(f"{link}?{query}" if query else link)
        page.wait_for_selector(MAIN, timeout=TIMEOUT_MS)
        target = page.main_frame
    target.wait_for_selector("h1", timeout=TIMEOUT_MS)
    page.wait_for_timeout(300)  # let the script's status appear before waiting for it to go
    target.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    # the chart library and the icon font load on first use: placeholders (skeletons) until then
    target.wait_for_function(SETTLED, timeout=TIMEOUT_MS)
    with contextlib.suppress(PlaywrightTimeout):  # a page may have no chart at all
        target.wait_for_selector(f"{CHART} canvas, {CHART} svg", timeout=CHART_WAIT_MS)
    page.wait_for_timeout(500)  # Vega draws after the element is placed
    seconds = time.perf_counter() - start
    charts = target.evaluate(CHARTS_JS)
    answer = target.evaluate(ANSWER_JS)
    png = out / f"{page_path}_{screen}.png"
    page.screenshot(path=str(png))
    context.close()
    return Shot(
        page_path,
        screen,
        within(charts[0], width, height) if charts else None,
        within(answer, width, height),
        all(c[0] >= -1 and c[0] + c[2] <= width + 1 for c in charts),
        seconds,
        png,
    )


def table(shots: list[Shot]) -> list[str]:
    lines = [
        f"{'page':16} {'screen':9} {'chart in first screen':>22} {'answer in first screen':>23} "
        f"{'no chart wider':>15} {'s':>6}"
    ]
    for s in shots:
        chart, answer, fits = s.cells()
        lines.append(f"{s.page:16} {s.screen:9} {chart:>22} {answer:>23} {fits:>15} {s.seconds:6.1f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help="url paths (default: every page)")
    parser.add_argument("--out", default=str(ROOT / "out" / "screenshots"), help="folder for the PNGs")
    parser.add_argument("--table", default=str(ROOT / "docs" / "screenshots.txt"), help="write the table here")
    parser.add_argument("--screens", default=",".join(SCREENS), help="comma-separated: desktop,phone,embedded")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from ui.pages import PAGES

    paths = args.pages or [Path(p.path).stem for p in PAGES]
    screens = [s for s in args.screens.split(",") if s]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    shots: list[Shot] = []
    with sync_playwright() as pw, server() as (url, _):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for path in paths:
                for screen in screens:
                    shots.append(shoot(browser, url, path, screen, out))
                    print(table(shots)[-1], flush=True)
        finally:
            browser.close()
    where = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    lines = [
        f"first screens on {os.cpu_count()} cores, chromium {CHROMIUM}; PNGs in {where}",
        "desktop 1366×768, phone 390×844, embedded: an 800×600 iframe of /<page>?embed=true",
        *table(shots),
    ]
    print("\n".join(lines))
    if args.table:
        Path(args.table).write_text("\n".join(lines) + "\n", encoding="utf-8")
    misses = [s for s in shots if s.chart is False or s.answer is False or not s.fits]
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
