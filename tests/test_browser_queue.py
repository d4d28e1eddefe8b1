"""The queue in a real browser: while one visitor's view is being measured, a second visitor sees
the recorded answer at once and their place in line, then their own live measurement."""

from __future__ import annotations

import pytest
from test_browser import CHART, streamlit_server, wait_for_run
from training_fixture import write_packs

pytestmark = pytest.mark.browser


def test_a_second_visitor_sees_the_recorded_answer_and_their_place_in_line(browser, tmp_path):
    # each live point takes about a second here, so the first visitor's measurement lasts several
    env = {
        "GPUWIN_RECORDED_DIR": str(write_packs(tmp_path / "packs")),
        "GPUWIN_LIVE_POINT_BUDGET_S": "1.0",
        "GPUWIN_NO_WARM_UP": "1",
        "GPUWIN_MAX_WAIT_S": "300",
    }
    with streamlit_server(env) as url:
        first = browser.new_context().new_page()
        first.goto(f"{url}/training?hidden_width=64&depth=3")
        first.get_by_text("Measuring", exact=False).first.wait_for(timeout=90_000)  # its measurement runs
        second = browser.new_context().new_page()
        second.goto(f"{url}/training?hidden_width=64&depth=2")
        second.wait_for_selector(CHART, timeout=60_000)  # the recorded chart, at once
        second.get_by_text("is number 1 in line", exact=False).first.wait_for(timeout=60_000)
        assert "catches up with" in second.inner_text("body")  # the recorded answer is there meanwhile
        wait_for_run(second, "Measured live on this server", timeout_ms=240_000)
        assert "in line (number 1 when it arrived)" in second.inner_text("body")
        assert not second.query_selector("[data-testid='stException']")
