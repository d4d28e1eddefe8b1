"""Every page that exists opens through the router without an exception; Home and the sidebar."""

from __future__ import annotations

import json

import pytest
from app_support import FIXTURE_GPU_NAME, ROOT, chart_specs, fixture_pack_dir, open_page, page_text

from lib.core.fmt import fmt_value
from lib.core.rows import is_ok
from lib.lessons.home.view import one_chart
from lib.workloads import get_workload
from ui.pages import PAGES, existing_pages, lesson_pages


@pytest.fixture
def no_pack(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")


@pytest.fixture
def with_pack(monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(fixture_pack_dir()))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")


def test_registry_matches_the_page_contract():
    names = [p.path for p in PAGES]
    assert names == ["pages/home.py", "pages/training.py", "pages/jacobian.py", "pages/timing_pitfalls.py",
                     "pages/data_pipeline.py", "pages/seed_cases.py", "pages/multi_gpu.py", "pages/your_results.py",
                     "pages/gallery.py"]
    assert [p.path for p in existing_pages()][:2] == ["pages/home.py", "pages/training.py"]
    assert all((ROOT / p.path).is_file() for p in existing_pages())


@pytest.mark.parametrize("page", [p.path for p in existing_pages()])
@pytest.mark.cpu_view
def test_every_existing_page_opens_through_the_router(no_pack, page):
    at = open_page(page)
    assert not at.exception, [e.value for e in at.exception]
    # The shared sidebar says plainly that CUDA is absent. A page is run through the router (and so
    # gets the sidebar) when it calls ui.router.ensure_router(), directly or through UrlSettings or
    # current_source(); see ui/router.py for why the pages/ folder needs that.
    source = (ROOT / page).read_text(encoding="utf-8")
    if any(hook in source for hook in ("ensure_router", "UrlSettings", "current_source")):
        sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown).replace("\\", "")  # as read
        assert "No GPU on this server" in sidebar
        assert "no recorded GPU results shipped yet" in sidebar


@pytest.mark.parametrize("page", [p.path for p in existing_pages()])
@pytest.mark.cuda
def test_every_existing_page_opens_with_both_devices_live(no_pack, page):
    at = open_page(page)
    assert not at.exception, [e.value for e in at.exception]
    source = (ROOT / page).read_text(encoding="utf-8")
    if any(hook in source for hook in ("ensure_router", "UrlSettings", "current_source")):
        sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown).replace("\\", "")  # as read
        assert "measured live on this server (cuda:0)" in sidebar


def test_home_without_a_recorded_pack_says_so_and_links_every_lesson(no_pack):
    at = open_page()
    assert not at.exception
    text = page_text(at)
    assert "Why is my model slower on the GPU?" in text
    # issue 23: the CPU pays per-operator overhead too (the Training page shows it); only the launch over
    # the bus and the wait for the device are the GPU's own
    assert "which the CPU does not pay" not in text
    assert "Both devices pay the same per-operator cost on the CPU" in text and "no device to wait for" in text
    assert "No recorded GPU results shipped yet" in text
    assert not chart_specs(at)
    links = at.get("page_link")
    assert len(links) == len(lesson_pages())
    for page in lesson_pages():
        assert page.blurb in text


@pytest.mark.cpu_view
def test_home_answers_with_one_chart_from_the_recorded_pack(with_pack):
    at = open_page()
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    assert len(specs) == 1
    assert f"cuda:0 (recorded on {FIXTURE_GPU_NAME}" in specs[0] and f"cpu (recorded on {FIXTURE_GPU_NAME}" in specs[0]
    text = page_text(at)
    # the fixture's "GPU" rows are its CPU rows renamed: the same time at every point, so the one right
    # answer is that neither is surely faster (never that one device wins or catches up)
    pack = json.loads(next(fixture_pack_dir().glob("*.json")).read_text())
    chart = one_chart([pack], get_workload("mlp"))
    xs = sorted({r[chart.over] for r in chart.rows if r["device"] == "cpu" and is_ok(r, chart.y)})
    assert len(xs) > 1
    answer = (f"**The {FIXTURE_GPU_NAME} GPU** and **the {FIXTURE_GPU_NAME} machine's CPU** take the same time "
              f"within the spread of the repeats at every {chart.setting} on the chart, from {fmt_value(xs[0])} to "
              f"{fmt_value(xs[-1])}: neither is surely faster, so there is no crossover to place.")
    assert answer in [str(m.value) for m in at.markdown]
    assert "At batch size 1," in text  # both ends of the curve, in numbers read from the pack
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown).replace("\\", "")  # as read
    assert "recorded on" in sidebar and FIXTURE_GPU_NAME in sidebar
