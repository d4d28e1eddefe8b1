"""Every page that exists opens through the router without an exception; Home and the sidebar."""

from __future__ import annotations

import pytest
from app_support import ROOT, chart_specs, open_page, open_whys, page_text
from training_fixture import GPU_NAME, HOME_BATCHES, HOME_DATASET, crossover_by_hand, step_time, write_home_pack

from lib.core.fmt import crossing_about, fmt_ratio, fmt_value
from ui.pages import PAGES, existing_pages, lesson_pages


@pytest.fixture
def no_pack(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")


@pytest.fixture
def home_pack(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(write_home_pack(tmp_path / "recorded")))
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
def test_home_answers_with_one_chart_from_the_recorded_pack(home_pack):
    at = open_page()
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    assert len(specs) == 1
    assert f"cuda:0 (recorded on {GPU_NAME}" in specs[0] and f"cpu (recorded on {GPU_NAME}" in specs[0]
    # the pack's GPU and CPU rows follow two known formulas (tests/training_fixture.py): the one right
    # answer is the crossover worked out by hand, between the two batch sizes that bracket it
    lo, hi, x = crossover_by_hand(xs=HOME_BATCHES, dataset_size=HOME_DATASET)
    # issue 37: a most likely value only where the bracket is narrow enough to name one (256 to 4,096 is not)
    about = crossing_about(x, lo, hi)
    answer = (
        f"**The {GPU_NAME} GPU** catches up with **the {GPU_NAME} machine's CPU** between batch size "
        f"{fmt_value(lo)} and {fmt_value(hi)}" + (f"; most likely at about {about}." if about else ".")
    )
    assert [str(m.value) for m in at.markdown].count(answer) == 1
    # both ends of the curve, in numbers read from the pack: at batch size 1 the GPU is slower, at the end faster
    small, large = (
        step_time({"batch_size": b, "dataset_size": HOME_DATASET}, "gpu")
        / step_time({"batch_size": b, "dataset_size": HOME_DATASET}, "cpu")
        for b in (1, HOME_BATCHES[-1])
    )
    assert small > 1 > large
    assert f"At batch size 1, the GPU takes {fmt_ratio(small)} as long as the CPU" in page_text(
        at
    ) and f"at {fmt_value(HOME_BATCHES[-1])}, the GPU is {fmt_ratio(1 / large)} as fast as the CPU" in page_text(at)
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown).replace("\\", "")  # as read
    assert "recorded on" in sidebar and GPU_NAME in sidebar
