"""The Training page's roofline ("Where one step's time went") in real Chromium: opening the expander
draws the GPU curve's steps (one dot each) under its ceilings, with the ceilings' origin in the
subtitle, and prints no Vega warning (a log scale fed a zero, or a fit dropped, says so in the console).
Desktop and phone; uses the server and browser of tests/conftest.py, shared by the browser modules.
"""

from __future__ import annotations

import pytest
from test_browser import SHOTS
from test_browser_timeline import opened_expander, quiet
from test_browser_views import CHART, TIMEOUT_MS

pytestmark = pytest.mark.browser
VIEW = "training?gpu=nvidia-h200&batch_size=4096&hidden_width=1024"
# the roofline's dots (SVG symbols) and its subtitle's lines
MEASURE = """el => ({
    dots: el.querySelectorAll('svg g.mark-symbol path').length,
    texts: [...el.querySelectorAll('svg text')].map(t => t.textContent),
    overflow: Math.max(0, ...[...el.querySelectorAll('svg text')].map(
        t => t.getBoundingClientRect().right - el.getBoundingClientRect().right)),
})"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_roofline_draws_its_points_under_labelled_ceilings_without_a_vega_warning(browser, app_url, size):
    with opened_expander(browser, app_url, VIEW, size, "Where one step's time went") as (
        page,
        expander,
        warnings,
        before,
    ):
        roofline = expander.locator(CHART).filter(has_text="Each step under the GPU")
        roofline.locator("svg g.mark-symbol path").first.wait_for(timeout=TIMEOUT_MS)
        quiet(page, warnings)
        drawn = roofline.evaluate(MEASURE)
        SHOTS.mkdir(parents=True, exist_ok=True)
        roofline.screenshot(path=str(SHOTS / f"roofline_{size}.png"))
        assert drawn["dots"] >= 10, drawn  # the H200's curve over the batch sizes
        assert any("NVIDIA H200" in t for t in drawn["texts"]) and any("matmul" in t for t in drawn["texts"])
        assert drawn["overflow"] <= 4, drawn  # the subtitle's lines fit a phone
        assert not [t for t in drawn["texts"] if t.endswith("…")], drawn["texts"]  # nor is the title cut
        vega = [w for w in warnings[before:] if "Dropping" in w or "WARN" in w or "Infinite" in w]
        assert not vega, vega
