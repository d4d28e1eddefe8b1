"""Home as shipped (streamlit.testing's AppTest on the packs in lib/recorded) against the Training page at its
defaults: Home is Training's answer at its default view, not a second pipeline. It once drew its own sweep and
said "The NVIDIA H200 GPU catches up with the NVIDIA H200 machine's CPU between batch size 256 and 4,096" while
Training's default said the 2-core server's CPU caught up between 512 and 1,024. Here, for the default machine
and the H100 chosen in the sidebar, Home's headline is Training's, its chart draws Training's recorded rows and
crossover, and the claim checkers of the random views pass on it.
"""

from __future__ import annotations

import json

import pytest
from app_support import visit
from random_views import chart_of, read_view
from view_checks import check_all

from lib.lessons.home.words import EXPLORE
from lib.lessons.training import live

GPUS = ["nvidia-h200", "nvidia-h100-80gb-hbm3"]


@pytest.fixture(autouse=True)
def _shipped_packs_no_live(monkeypatch):
    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)
    # Training refuses every live CPU point: its page at its defaults draws what it draws before any live point
    monkeypatch.setenv("GPUWIN_LIVE_MAX_GFLOP_CPU", "0.000000001")


@pytest.fixture(scope="module")
def pages():
    """Home and Training opened from a link naming `gpu`, each once per GPU for the module: its tests only read."""
    opened = {}

    def at(page: str, gpu: str):
        if (page, gpu) not in opened:
            # a server with cores to spare offers Training's live threads: Home's recorded CPU is the one-thread one
            threads = {"threads": "1"} if page == "pages/training.py" and len(live.THREAD_CHOICES) > 1 else {}
            opened[page, gpu] = visit(page, {"gpu": gpu, **threads}, whys=False)
        return opened[page, gpu]

    return at


def recorded_rows(element) -> list[str]:
    """The chart's rows but this server's live ones (Training draws those on top), each as sorted JSON."""
    return sorted(
        json.dumps(r, sort_keys=True, default=str)
        for r in chart_of(element).rows
        if "(live)" not in str(r.get("series"))
    )


@pytest.mark.parametrize("gpu", GPUS)
def test_homes_answer_is_the_training_pages_at_its_defaults(pages, gpu):
    home, training = pages("pages/home.py", gpu), pages("pages/training.py", gpu)
    headline = str(home.main.markdown[0].value)
    assert headline == str(training.main.markdown[0].value)
    assert "**CPU · 2-core server (recorded)**" in headline and "(recorded)**" in headline.split(" catches up")[0]
    home_chart, training_chart = home.get("vega_lite_chart")[0], training.get("vega_lite_chart")[0]
    assert recorded_rows(home_chart) and recorded_rows(home_chart) == recorded_rows(training_chart)
    drawn = [s for s in chart_of(training_chart).series if "(live)" not in s]
    assert chart_of(home_chart).series == drawn  # the same curves, and no curve Training does not draw
    # the link to explore it, on the Training page
    assert [link.proto.page for link in home.get("page_link") if link.proto.label == EXPLORE] == ["training"]


@pytest.mark.parametrize("gpu", GPUS)
def test_the_claim_checkers_pass_on_home(pages, gpu):
    reading = read_view(pages("pages/home.py", gpu), "pages/home.py", {"gpu": gpu})
    assert reading.charts and all(not found for found in check_all(reading).values()), check_all(reading)


def test_a_machine_home_cannot_answer_with_is_refused_in_one_sentence(pages):
    at = pages("pages/home.py", "4-nvidia-h200")
    said = str(at.main.markdown[0].value)
    assert said.startswith("The sidebar's GPU results were recorded for the") and "Training" not in said
    assert said.endswith(".") and said.count(". ") == 0
    assert not at.get("vega_lite_chart")
