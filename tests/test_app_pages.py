"""Every page that exists opens through the router without an exception; Home and the sidebar."""

from __future__ import annotations

import pytest
from app_support import ROOT, chart_specs, open_page, open_whys, page_text, visit
from random_views import chart_of
from training_fixture import GPU_NAME, crossover_by_hand, write_packs

from lib.core.fmt import crossing_about, fmt_value
from lib.lessons.home.words import EXPLORE
from ui.pages import PAGES, existing_pages, lesson_pages


@pytest.fixture
def no_pack(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")


@pytest.fixture
def home_pack(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(write_packs(tmp_path / "recorded")))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")


def test_registry_matches_the_page_contract():
    names = [p.path for p in PAGES]
    assert names == [
        "pages/home.py",
        "pages/training.py",
        "pages/jacobian.py",
        "pages/timing_pitfalls.py",
        "pages/data_pipeline.py",
        "pages/seed_cases.py",
        "pages/multi_gpu.py",
        "pages/your_results.py",
        "pages/gallery.py",
    ]
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


@pytest.mark.parametrize("page", [p.path for p in existing_pages()])
@pytest.mark.cpu_view
def test_every_page_opens_on_the_shipped_packs_when_the_gate_refuses_every_live_cpu_point(monkeypatch, page):
    """Found 2026-11-29: with the live gate refusing the CPU (a small server set to 0 GFLOP live, or a point over its
    cap), Seed cases raised a TypeError (a refused point's time, None, read as a float for its bar)."""
    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)  # the shipped packs
    monkeypatch.setenv("GPUWIN_LIVE_MAX_GFLOP_CPU", "0.000000001")
    at = visit(page, {})  # its "Why?" sections opened too: Seed cases' times are drawn in one
    assert not at.exception, [e.value for e in at.exception]


def test_home_without_a_recorded_pack_says_so_and_links_every_lesson(no_pack):
    at = open_page()
    assert not at.exception
    text = page_text(open_whys(at))
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
def test_home_answers_with_the_training_pages_answer_at_its_defaults(home_pack):
    at = open_page()
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    assert len(specs) == 1
    gpu, cpu = f"GPU · {GPU_NAME} (recorded)", "CPU · 2-core server (recorded)"
    drawn = {r.get("series") for r in chart_of(at.get("vega_lite_chart")[0]).rows} - {None}
    assert drawn == {gpu, cpu}  # Training's two default curves; nothing live: Home measures nothing
    # the packs' GPU and small-server rows follow two known formulas (tests/training_fixture.py): the one right
    # answer is the crossover worked out by hand, in the Training page's words for its two default curves
    lo, hi, x = crossover_by_hand()
    answer = (
        f"**{gpu}** catches up with **{cpu}** between batch size {fmt_value(lo)} and {fmt_value(hi)}; "
        f"most likely at about {crossing_about(x, lo, hi)}."
    )
    assert [str(m.value) for m in at.markdown].count(answer) == 1 and at.markdown[0].value == answer
    assert EXPLORE in [link.proto.label for link in at.get("page_link")]
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown).replace("\\", "")  # as read
    assert "recorded on" in sidebar and GPU_NAME in sidebar
