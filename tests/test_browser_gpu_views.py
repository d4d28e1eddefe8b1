"""Shared links to Training views nobody recorded, opened in a real browser on a server without a
GPU: the machine's cost model draws the GPU curve, and the page names it recorded or predicted.

A CUDA graph at depth 12 on the H100 (recorded there at depth 3 only) and torch.compile on the
H200 (until compile packs land, never recorded there: priced from eager's terms and the mode's
counted ones). Same server and browser fixtures as tests/test_browser_views.py.
"""

from __future__ import annotations

import re

import pytest
from test_browser_views import TIMEOUT_MS, app_url, browser, settle  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser
LABEL = re.compile(r"GPU · (H100|H200) \((recorded|predicted|recorded \+ predicted)\)")


@pytest.mark.parametrize("query, gpu", [
    ("gpu=nvidia-h100-80gb-hbm3&mode=cuda_graph&depth=12", "H100"),
    ("gpu=nvidia-h200&mode=compile", "H200"),
])
def test_a_shared_link_to_an_unrecorded_mode_draws_a_labelled_gpu_curve(browser, app_url, query, gpu):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{app_url}/training?{query}")
        settle(page)
        assert not page.query_selector("[data-testid='stException']")
        answer = page.locator(".st-key-answer").inner_text(timeout=TIMEOUT_MS)
        assert "There is no GPU curve" not in answer, answer
        found = LABEL.search(answer)
        assert found and found.group(1) == gpu, answer  # the answer names the GPU curve and what it is
        # where each point came from (written once the live CPU curve is in), and the chart's legend
        page.get_by_text(re.compile(rf"GPU · {gpu} \([^)]*\): \d+ points")).wait_for(timeout=TIMEOUT_MS)
        legend = page.locator("[data-testid='stVegaLiteChart']").first.inner_text(timeout=TIMEOUT_MS)
        assert LABEL.search(legend), legend
        # the link's mode was kept (not swapped for eager): the mode picker shows it
        mode = {"cuda_graph": "one CUDA graph", "compile": "torch.compile"}[re.search(r"mode=(\w+)", query).group(1)]
        checked = page.locator("[data-testid='stRadio'] input:checked").evaluate_all(
            "els => els.map(e => e.closest('label').innerText)")
        assert any(text.startswith(mode) for text in checked), checked
    finally:
        context.close()
