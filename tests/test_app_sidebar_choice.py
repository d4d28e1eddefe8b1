"""A sidebar choice a page cannot answer is said plainly on that page, never replaced by another
machine (issue 26 item 4): with the shipped packs, "4 × NVIDIA H200" (recorded for Multi-GPU only)
chosen in the sidebar, every lesson that draws a GPU curve says so, names the machines to pick
instead, and draws no recorded GPU curve at all."""

from __future__ import annotations

import pytest
from app_support import chart_specs, open_page, page_text, pick_gpu

from lib.recorded import load_recordings
from lib.recorded.sources import recorded_sources, slug

FOUR = slug("4 × NVIDIA H200")
PAGES = [
    "pages/home.py",
    "pages/training.py",
    "pages/jacobian.py",
    "pages/timing_pitfalls.py",
    "pages/data_pipeline.py",
    "pages/seed_cases.py",
]


@pytest.fixture
def shipped(monkeypatch):
    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)  # the packs that ship with the app
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")
    keys = [s.key for s in recorded_sources(load_recordings()[0])]
    assert FOUR in keys and "nvidia-h200" in keys, keys


@pytest.mark.cpu_view
@pytest.mark.parametrize("page", PAGES)
def test_the_four_gpu_machine_chosen_in_the_sidebar_is_said_plainly_on_every_page(shipped, page):
    at = open_page()
    pick_gpu(at, FOUR)  # picked in the sidebar, then the page opened
    if page != "pages/home.py":
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    text = page_text(at)
    # the note names no machine and no date: it is about what is NOT drawn (the sidebar's list names them)
    assert (
        "The sidebar's GPU results were recorded for the Multi-GPU lesson only, so this page shows no GPU curve" in text
    )
    assert "pick another machine under “GPU results from” for one" in text
    assert "not recorded with these switches" not in text
    for spec in chart_specs(at):  # only this server's CPU: no machine's recorded GPU curve
        assert "recorded on" not in spec and "H100" not in spec and "H200" not in spec, spec[:300]
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown)
    assert "recorded on 4 × NVIDIA H200" in sidebar


@pytest.mark.cpu_view
def test_the_choice_stays_once_the_picker_is_closed_and_another_page_opened(shipped):
    """The picker is a lazy expander (its radio is not drawn while closed): closing it, reopening the
    page and opening another keep the machine chosen, in the sidebar's line, the link and the page."""
    from ui.sidebar import PICK_KEY

    at = open_page()
    assert not [r for r in at.sidebar.radio], "the picker is closed on a first visit"
    h100 = slug("NVIDIA H100 80GB HBM3")
    pick_gpu(at, h100)
    at.session_state[PICK_KEY] = False
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [r for r in at.sidebar.radio] and at.query_params["gpu"] == h100
    at.switch_page("pages/timing_pitfalls.py").run()
    assert not at.exception, [e.value for e in at.exception]
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown)
    assert "recorded on NVIDIA H100 80GB HBM3" in sidebar and at.query_params["gpu"] == h100
    assert any("H100" in spec for spec in chart_specs(at)) and not any("H200" in spec for spec in chart_specs(at))
