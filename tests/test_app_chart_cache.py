"""Every revisit from cache (issue 25): a second visitor of the same view gets each chart from
ui.chart_cache, built by the first; counted through its BUILDS seam, not timed.

The pages run on the shipped packs (lib/recorded/, as a host serves them) with this server's CPU
measured live on a short budget; the second visitor's live rows come from ui.measure's cache.
"""

from __future__ import annotations

import pytest
from app_support import chart_specs, open_page

from ui import chart_cache

# page -> its link's query (the view); each draws at least one chart from the shipped packs
VIEWS = {
    "training": {},  # its main chart is lib.charts.compiled's; the charts behind 'Why?' come from ui.chart_cache
    "jacobian": {},
    "data_pipeline": {},
    "timing_pitfalls": {},
    "seed_cases": {},
    "multi_gpu": {},
    "gallery": {},
}


@pytest.fixture
def shipped(monkeypatch):
    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.02")
    monkeypatch.setenv("GPUWIN_NO_WARM_UP", "1")


@pytest.mark.parametrize("page", list(VIEWS))
def test_a_second_visit_of_the_same_view_builds_no_chart(shipped, page):
    before = sum(chart_cache.BUILDS.values())
    first = open_page(f"pages/{page}.py", VIEWS[page])
    assert not first.exception, [e.value for e in first.exception]
    built = sum(chart_cache.BUILDS.values())
    assert built > before, "the page's charts are not built through ui.chart_cache"
    second = open_page(f"pages/{page}.py", VIEWS[page])
    assert not second.exception, [e.value for e in second.exception]
    assert sum(chart_cache.BUILDS.values()) == built, dict(chart_cache.BUILDS)
    assert chart_specs(second) == chart_specs(first)
