"""The Training page's 'How each way of running the step moves the crossover' in real Chromium: opening the
expander draws each mode's curve and, at the slider's point, one bar per mode whose words under it (its time
and where it came from) are whole lines inside the chart, the plot keeping its width on a phone (one long
line of words once shrank a phone's plot to a few pixels), with no Vega warning on the console.
Desktop and phone; uses the server and browser of tests/conftest.py, shared by the browser modules.
"""

from __future__ import annotations

import pytest
from test_browser import SHOTS
from test_browser_roofline import VIEW
from test_browser_timeline import opened_expander, quiet
from test_browser_views import CHART, TIMEOUT_MS

pytestmark = pytest.mark.browser
# the bars chart: its plot's width, its bars, the words under them, how far any text runs past the chart
MEASURE = """el => ({
    plot: (p => p ? p.getBoundingClientRect().width : 0)(el.querySelector('svg g.role-frame.root path.background')),
    chart: el.getBoundingClientRect().width,
    bars: el.querySelectorAll('svg g.mark-rect path').length,
    texts: [...el.querySelectorAll('svg g.mark-text text')].map(t => t.querySelector('tspan')
        ? [...t.querySelectorAll('tspan')].map(l => l.textContent).join(' ') : t.textContent),  // a line each
    overflow: Math.max(0, ...[...el.querySelectorAll('svg text')].map(
        t => t.getBoundingClientRect().right - el.getBoundingClientRect().right)),
})"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_each_modes_bar_says_where_its_time_came_from_in_whole_lines(browser, app_url, size):
    with opened_expander(browser, app_url, VIEW, size, "How each way of running the step") as (
        page,
        expander,
        warnings,
        before,
    ):
        bars = expander.locator(CHART).nth(1)
        bars.scroll_into_view_if_needed()
        bars.locator("svg g.mark-rect path").first.wait_for(timeout=TIMEOUT_MS)
        quiet(page, warnings)
        drawn = bars.evaluate(MEASURE)
        SHOTS.mkdir(parents=True, exist_ok=True)
        bars.screenshot(path=str(SHOTS / f"modes_bars_{size}.png"))
        assert drawn["bars"] >= 2, drawn  # the H200 recorded several modes at this point
        assert drawn["plot"] >= 0.6 * drawn["chart"], drawn  # the words under the bars never squeeze the plot
        assert drawn["overflow"] <= 4, drawn
        assert any("recorded on NVIDIA H200 (20" in t for t in drawn["texts"]), drawn["texts"][-8:]
        assert not [t for t in drawn["texts"] if t.endswith("…")], drawn["texts"]  # no line cut
        vega = [w for w in warnings[before:] if "Dropping" in w or "WARN" in w or "Infinite" in w]
        assert not vega, vega
