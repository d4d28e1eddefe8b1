"""What a reader sees of the charts, in real Chromium at a desktop (1366 × 768), a phone (390 × 844) and
embedded in course material (an 800 × 600 iframe, ?embed=true): Training, Home, Your results and Timing.

It was: legend names cut mid-date ("cpu (recorded on NVIDIA H200, 2026-1…"), embedded Training with a
75 px plot and its legend below the frame, and the console full of Vega warnings ('Dropping "fit-y"'
from a band height, "Infinite extent" from an empty layer, 'Conflicting legend property "disable"' from
a legend-less channel merged into a legend). Here every chart on each page (the charts are drawn as SVG)
is read back: no Vega warning on the console, no legend name cut (Vega ends a cut one with "…") or run
past the chart's right edge, and embedded Training keeps a plot of at least MIN_PLOT_PX with its
legend beside it, inside the frame.
Uses Debian's chromium like tests/test_browser_views.py (the server and browser of tests/conftest.py).
"""

from __future__ import annotations

import re

import pytest
from test_browser import SHOTS
from test_browser_views import CHART, TIMEOUT_MS, settled_view

pytestmark = pytest.mark.browser
SIZES = {"desktop": (1366, 768), "phone": (390, 844), "embedded": (800, 600)}
PAGES = ("training", "", "your_results?shipped=true", "timing_pitfalls")
MIN_PLOT_PX = 250
VEGA_WARNING = re.compile(r"^(WARN|ERROR)\b|Vega", re.IGNORECASE)
# each chart: its plot (the root group's background), its legends' names and boxes, how far text runs past it
MEASURE = """els => els.map(chart => {
    const box = r => { const b = r.getBoundingClientRect(); return {top: b.top, bottom: b.bottom, left: b.left,
                                                                     right: b.right, height: b.height}; };
    const plot = chart.querySelector('svg g.role-frame.root path.background');
    return {
        plot: plot ? box(plot) : null,
        chart: box(chart),
        labels: [...chart.querySelectorAll('svg g.role-legend-label text')].map(t => t.textContent),
        legends: [...chart.querySelectorAll('svg g.role-legend')].map(box),
        overflow: Math.max(0, ...[...chart.querySelectorAll('svg g.role-legend text')].map(
            t => t.getBoundingClientRect().right - chart.getBoundingClientRect().right)),
    };
})"""


def open_page(page, app_url, path: str, size: str):
    """The page loaded, its script run and live sweep done, and its charts quiet; its frame."""
    frame = settled_view(page, app_url, path, embedded=size == "embedded")
    quiet(frame)
    return frame


def quiet(frame) -> None:
    """Waits until every chart has an SVG drawn and a second passed with no new one."""
    seen = -1
    while seen != (count := frame.locator(f"{CHART} svg").count()):
        seen = count
        frame.wait_for_timeout(1000)


@pytest.mark.parametrize("size", list(SIZES))
def test_charts_show_whole_legend_names_and_print_no_vega_warning(browser, app_url, size):
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    console: list[str] = []
    problems: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda m: console.append(m.text) if m.type in ("warning", "error") else None)
        for path in PAGES:
            before = len(console)
            frame = open_page(page, app_url, path, size)
            name = path.split("?")[0] or "home"
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"pictures_{name}_{size}.png"))
            problems += [f"{name}: {w}" for w in console[before:] if VEGA_WARNING.search(w)]
            charts = frame.locator(CHART).evaluate_all(MEASURE)
            assert charts, f"{name}: no chart drawn"
            for chart in charts:
                problems += [f"{name}: legend name cut: {t!r}" for t in chart["labels"] if "…" in t]
                if chart["overflow"] > 4:
                    problems.append(
                        f"{name}: a legend runs {chart['overflow']:.0f} px past the chart's right edge: "
                        f"{chart['labels']}"
                    )
            if name == "training" and size == "embedded":
                problems += embedded_training(frame)
        assert not problems, "\n".join(problems)
    finally:
        context.close()


def embedded_training(frame) -> list[str]:
    """The first chart in an 800 × 600 frame: a plot a reader can read, its legend in the frame beside it."""
    chart = frame.locator(CHART).first
    chart.scroll_into_view_if_needed()
    drawn = chart.evaluate_all(MEASURE)[0]
    plot, legends = drawn["plot"], drawn["legends"]
    found = []
    if plot is None or plot["height"] < MIN_PLOT_PX:
        found.append(f"training: embedded plot {plot and round(plot['height'])} px tall, under {MIN_PLOT_PX}")
    if not legends:
        found.append("training: embedded chart without a legend")
    for legend in legends:
        if not (legend["top"] >= 0 and legend["bottom"] <= 600 and legend["right"] <= 800):
            found.append(f"training: embedded legend outside the 800 × 600 frame: {legend}")
    if plot and legends and min(g["top"] for g in legends) > plot["top"] + 10:
        found.append("training: embedded legend below the plot's top (off the first screen when the plot starts low)")
    return found


POINT_LINE = re.compile(
    r"^At batch size [\d,]+ \("
)  # Training's point sentence (its headline says "at batch size" too)
# as the frame opens (unscrolled): the answer slot, and the first chart's drawn parts (plot, axes, legends;
# not the SVG's empty padding)
FIRST_SCREEN = """() => {
    const chart = document.querySelector("[data-testid='stVegaLiteChart']");
    const drawn = [...chart.querySelectorAll(
        'svg g.role-frame.root path.background, svg g.role-axis, svg g.role-legend')].map(e => e.getBoundingClientRect());
    const answer = document.querySelector('.st-key-answer').getBoundingClientRect();
    return {scrolled: window.scrollY, answer: {top: answer.top, bottom: answer.bottom}, parts: drawn.length,
            top: Math.min(...drawn.map(b => b.top)), bottom: Math.max(...drawn.map(b => b.bottom))};
}"""


@pytest.mark.parametrize("path", ["training", "", "timing_pitfalls"])
def test_embedded_first_screen_shows_the_answer_and_the_whole_first_chart(browser, app_url, path):
    """It was: on embedded Training the headline, the live line, the point line and the provenance above
    the chart pushed it to 441 px of an 800 × 600 iframe, so a reader saw only its top; Timing pitfalls'
    colour legend ended under the frame. Now the answer and the whole first chart (plot, axes and
    legends) are in the frame as it opens, the other sentences below the chart."""
    name = path or "home"
    context = browser.new_context(viewport={"width": 800, "height": 600})
    try:
        page = context.new_page()
        frame = open_page(page, app_url, path, "embedded")
        point_line = frame.get_by_text(POINT_LINE).first
        if name == "training":  # its live words are written last, after the live sweep: measure once they are in
            point_line.wait_for(timeout=TIMEOUT_MS)
            quiet(frame)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"first_screen_{name}_embedded.png"))
        seen = frame.evaluate(FIRST_SCREEN)
        assert seen["scrolled"] == 0 and seen["parts"] >= 3, seen
        assert seen["answer"]["bottom"] > seen["answer"]["top"] >= 0, f"{name}: no answer drawn: {seen}"
        assert seen["answer"]["bottom"] <= seen["top"], f"{name}: the answer is not above the chart: {seen}"
        assert seen["bottom"] <= 600, f"{name}: the chart ends {seen['bottom']:.0f} px down an 800 × 600 frame: {seen}"
        if name == "training":
            assert point_line.bounding_box()["y"] >= seen["bottom"], "the point's sentence goes under the chart"
    finally:
        context.close()
