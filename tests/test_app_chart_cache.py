"""Every revisit from cache (issue 25): a second visitor of the same view gets each chart from
ui.specs.chart_spec, built by the first; counted through its BUILDS seam, not timed.

The pages run on the shipped packs (lib/recorded/, as a host serves them) with this server's CPU
measured live on a short budget; the second visitor's live rows come from ui.measure's cache.
"""

from __future__ import annotations

import json
import time

import pytest
from app_support import chart_specs, open_page

from lib.recorded import RECORDED_DIR, RESCAN_S
from ui import specs as chart_specs_kept

# page -> its link's query (the view); each draws at least one chart from the shipped packs
VIEWS = {
    "training": {},  # its main chart is lib.charts.compiled's; those in its expanders (opened below) ui.specs.chart_spec's
    "jacobian": {},
    "data_pipeline": {},
    "timing_pitfalls": {},
    "seed_cases": {},
    "multi_gpu": {},
    "gallery": {},
}
# the lazy expanders a visitor opened (their charts are built only then)
OPENED = {"training": ("training.split", "training.modes", "training.speedup")}


@pytest.fixture
def shipped(monkeypatch):
    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.02")
    monkeypatch.setenv("GPUWIN_NO_WARM_UP", "1")


@pytest.mark.parametrize("page", list(VIEWS))
def test_a_second_visit_of_the_same_view_builds_no_chart(shipped, page):
    chart_specs_kept._kept.clear()  # an earlier test may have drawn this view already: this one is the first visitor
    before = sum(chart_specs_kept.BUILDS.values())
    first = open_page(f"pages/{page}.py", VIEWS[page], OPENED.get(page, ()))
    assert not first.exception, [e.value for e in first.exception]
    built = sum(chart_specs_kept.BUILDS.values())
    assert built > before, "the page's charts are not built through ui.specs.chart_spec"
    second = open_page(f"pages/{page}.py", VIEWS[page], OPENED.get(page, ()))
    assert not second.exception, [e.value for e in second.exception]
    assert sum(chart_specs_kept.BUILDS.values()) == built, dict(chart_specs_kept.BUILDS)
    assert chart_specs(second) == chart_specs(first)


def test_a_pack_changed_while_the_server_runs_gives_a_new_chart(tmp_path, monkeypatch):
    """The cache is keyed by what the chart draws, so a pack replaced under a running server is drawn
    anew (lib.recorded notices the file within RESCAN_S), never served from the old chart."""
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    monkeypatch.setenv("GPUWIN_NO_WARM_UP", "1")
    pack = json.loads((RECORDED_DIR / "h200x4_ddp.json").read_text())
    path = tmp_path / "ddp.json"
    path.write_text(json.dumps(pack))
    first = open_page("pages/multi_gpu.py")
    assert not first.exception, [e.value for e in first.exception]
    built = sum(chart_specs_kept.BUILDS.values())
    # the same machine recorded again without its largest batch: fewer points on the same chart
    largest = max(r["batch_size"] for r in pack["rows"])
    pack["rows"] = [r for r in pack["rows"] if r["batch_size"] != largest]
    path.write_text(json.dumps(pack))
    time.sleep(RESCAN_S + 0.1)
    second = open_page("pages/multi_gpu.py")
    assert not second.exception, [e.value for e in second.exception]
    assert sum(chart_specs_kept.BUILDS.values()) > built
    assert chart_specs(second)[0] != chart_specs(first)[0]
