"""The Training page's step timeline ("See the bubble") draws one row per lane, in real Chromium at a
desktop (1366 × 768), a phone (390 × 844) and embedded in course material (an 800 × 600 iframe).

It was unreadable: a relative bar height with a fixed chart height made Vega drop "fit-y" (a console
warning), the GPU's lanes shared one line and the CPU's bars were about 2 px tall. Here the rendered bars
(the chart is drawn as SVG) are measured: each is at least MIN_BAND_PX tall, lanes do not overlap, the lane
names are not cut and run past no edge, and opening the expander prints no Vega warning (the page's
other charts, drawn before, are not this test's).
Uses Debian's chromium like tests/test_browser_views.py (the server and browser of tests/conftest.py).
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from test_browser import SHOTS
from test_browser_views import CHART, TIMEOUT_MS, settle, settled_view

pytestmark = pytest.mark.browser
# a recorded H200 timeline exists at batch 64 / width 64, so both the CPU and the GPU chart are drawn
VIEW = "training?gpu=nvidia-h200&batch_size=64&hidden_width=64"
MIN_BAND_PX = 12
EXPANDER = "[data-testid='stExpander']"
# every bar (rect mark) of every chart in the expander, with its box and the lane labels beside it
MEASURE = """els => els.map(chart => ({
    bars: [...chart.querySelectorAll('svg g.mark-rect path')].map(p => {
        const b = p.getBoundingClientRect(); return {top: b.top, height: b.height}; }),
    labels: [...chart.querySelectorAll('svg g.role-axis-label text')].map(t => t.textContent),
    overflow: Math.max(0, ...[...chart.querySelectorAll('svg text')].map(
        t => t.getBoundingClientRect().right - chart.getBoundingClientRect().right)),
}))"""


def open_timeline(frame) -> list[dict]:
    """Opens the expander and waits for its charts (the CPU's live one and the recorded GPU one)."""
    expander = frame.locator(EXPANDER).filter(has_text="See the bubble")
    expander.locator("summary").click()
    frame.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=TIMEOUT_MS)
    charts = expander.locator(CHART)
    charts.nth(1).locator("svg g.mark-rect path").first.wait_for(timeout=TIMEOUT_MS)
    expander.scroll_into_view_if_needed()
    return charts.evaluate_all(MEASURE)


def quiet(frame, warnings: list[str]) -> int:
    """How many console lines there are once no new one came for a second (the page's charts drawn)."""
    seen = -1
    while seen != len(warnings):
        seen = len(warnings)
        frame.wait_for_timeout(1500)
    return seen


@contextmanager
def opened_expander(browser, app_url: str, view: str, size: str, title: str):
    """A fresh context at `size` ('desktop', 'phone') on `view`, the expander whose label holds `title` opened.
    Yields (page, expander, warnings, before): the console's warnings and errors, and how many there were
    before the expander opened (the page's other charts' warnings are not the caller's)."""
    width, height = {"desktop": (1366, 768), "phone": (390, 844)}[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    warnings: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda m: warnings.append(m.text) if m.type in ("warning", "error") else None)
        page.goto(f"{app_url}/{view}")
        settle(page)
        before = quiet(page, warnings)
        expander = page.locator(EXPANDER).filter(has_text=title)
        expander.locator("summary").click()
        yield page, expander, warnings, before
    finally:
        context.close()


def rows(bars: list[dict]) -> list[tuple[float, float]]:
    """The distinct vertical bands the bars sit in (top, bottom), top to bottom."""
    return sorted({(round(b["top"], 1), round(b["top"] + b["height"], 1)) for b in bars})


@pytest.mark.parametrize("size", ["desktop", "phone", "embedded"])
def test_the_step_timeline_draws_one_readable_row_per_lane(browser, app_url, size):
    viewport = {"desktop": (1366, 768), "phone": (390, 844), "embedded": (800, 600)}[size]
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    warnings: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda m: warnings.append(m.text) if m.type in ("warning", "error") else None)
        frame = settled_view(page, app_url, VIEW, embedded=size == "embedded")
        before = quiet(frame, warnings)  # the page's other charts' warnings are not this test's
        charts = open_timeline(frame)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"timeline_{size}.png"), full_page=False)
        assert len(charts) == 2, charts  # the CPU measured here and the H200 recorded
        for chart in charts:
            bands, lanes = rows(chart["bars"]), [t for t in chart["labels"] if t[:3] in ("CPU", "GPU")]
            assert len(bands) == len(lanes) >= 1, (bands, lanes)  # each lane its own row
            assert min(bottom - top for top, bottom in bands) >= MIN_BAND_PX, bands
            assert all(a[1] <= b[0] for a, b in zip(bands, bands[1:])), bands  # rows do not overlap
            assert not [t for t in chart["labels"] if t.endswith("…")], chart["labels"]  # names not cut
            assert chart["overflow"] <= 4, chart  # no label or legend entry runs past the chart's right edge
        assert len(rows(charts[1]["bars"])) >= 3, charts[1]  # the GPU's: CPU thread, CUDA runtime, GPU stream
        vega = [w for w in warnings[before:] if "Dropping" in w or "WARN" in w]
        assert not vega, vega
    finally:
        context.close()
