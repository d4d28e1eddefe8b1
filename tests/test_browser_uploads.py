"""Uploads past a visitor's caps, in a real browser against `streamlit run serve.py` (issue 40, item 1).

Streamlit stores every uploaded file for the session before any script runs; serve.py's upload guard
(ui/upload_guard.py) refuses files past a visitor's caps there, with 413, so a drag of many files
cannot fill the server's memory. The files it stores are read by the page, which says what it used.
Uses Debian's chromium, like tests/test_browser.py (skipped without it unless GPUWIN_REQUIRE_BROWSER=1).
"""

from __future__ import annotations

import json

import pytest
from gallery_support import H100_PACK
from test_browser import screenshot_on_failure, streamlit_server

from lib.recorded.upload_budget import LIMITS

pytestmark = pytest.mark.browser
IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
INPUT = "[data-testid='stFileUploaderDropzoneInput']"


def small_pack(i: int) -> bytes:
    """A valid pack of its own machine (so none is a duplicate of another)."""
    pack = json.loads(H100_PACK.read_text())
    label = f"TEST FIXTURE box {i}"
    pack["machine"]["label"] = label
    for row in pack["rows"]:
        row["machine"] = label
    return json.dumps(pack).encode()


def test_files_past_the_cap_are_refused_by_the_server_and_the_rest_are_used(browser):
    n = LIMITS.session_files + 2
    env = {"GPUWIN_NO_WARM_UP": "1", "GPUWIN_NO_PREFETCH": "1"}
    with streamlit_server(env, script="serve.py") as url:
        page = browser.new_page(viewport={"width": 1200, "height": 2400})
        page.set_default_timeout(90_000)
        answers: list[int] = []
        page.on(
            "response",
            lambda r: answers.append(r.status)
            if "/_stcore/upload_file/" in r.url and r.request.method == "PUT"
            else None,
        )
        page.goto(f"{url}/your_results")
        page.wait_for_selector(INPUT, state="attached")
        with screenshot_on_failure(page, "uploads_capped"):
            page.set_input_files(
                INPUT,
                files=[
                    {"name": f"p{i}.json", "mimeType": "application/json", "buffer": small_pack(i)} for i in range(n)
                ],
            )
            page.wait_for_function(
                f"() => performance.getEntriesByType('resource').filter(e => "
                f"e.name.includes('/_stcore/upload_file/')).length >= {n}"
            )
            page.wait_for_timeout(500)
            assert sorted(answers) == [204] * LIMITS.session_files + [413, 413], answers
            page.get_by_text("Using:", exact=False).wait_for()
            page.wait_for_function(IDLE)
            used = next(line for line in page.inner_text("body").splitlines() if line.startswith("Using:"))
            assert used.count(" rows)") == LIMITS.session_files
            assert not page.query_selector("[data-testid='stException']")
