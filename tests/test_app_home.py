"""Home as shipped (streamlit.testing's AppTest on the packs in lib/recorded), read back against its own chart.

Issue 23: Home's "That is eager PyTorch …" said "the chart's step at batch 64 (width 64, depth 3) takes 1.48 ms
(recorded 2026-11-24; recorded 2 times, from 1 ms to 1.48 ms: also 1 ms on NVIDIA H200 (2026-11-21)). Captured in
one CUDA graph, a step of the same settings takes 167 µs (recorded 2026-11-23)" while its chart drew time per
epoch, one day, and no CUDA graph. Here every time and day that paragraph names is read off the chart the page
sent (its datasets, as the browser gets them), for each recorded GPU in the sidebar.
"""

from __future__ import annotations

import json
import re

import pytest
from app_support import visit
from random_views import chart_of

from lib.core.fmt import fmt_s

UNIT = {"µs": 1e-6, "ms": 1e-3, "s": 1.0}


@pytest.fixture(autouse=True)
def _shipped_packs(monkeypatch):
    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)


@pytest.fixture(scope="module")
def home():
    """Home opened from a link naming `gpu`, once per GPU for the module: its tests only read the page."""
    opened = {}

    def at(gpu: str):
        if gpu not in opened:  # the link's GPU on the first run, also where a live GPU is first
            opened[gpu] = visit("pages/home.py", {"gpu": gpu})
        return opened[gpu]

    return at


@pytest.mark.parametrize("gpu", ["nvidia-h200", "nvidia-h100-80gb-hbm3"])
def test_homes_cuda_graph_words_quote_only_what_its_chart_draws(home, gpu):
    at = home(gpu)
    assert not at.exception, [e.value for e in at.exception]
    element = at.get("vega_lite_chart")[0]
    chart = chart_of(element)
    unit = re.search(r"time per (?:epoch|step) \((µs|ms|s)\b", element.proto.spec).group(1)
    text = next(str(m.value) for m in at.markdown if str(m.value).startswith("That is eager PyTorch"))
    at_64 = [r for r in chart.rows if r.get("x") == 64 and "t" in r]
    drawn_times = {fmt_s(r["t"] * UNIT[unit]) for r in at_64}
    said = [f"{n} {u}" for n, u in re.findall(r"(\d[\d,.]*) (µs|ms|s)\b", text)]
    assert said and set(said) <= drawn_times, (said, drawn_times)
    graph = [s for s in chart.series if "CUDA graph" in s]
    assert len(graph) == 1, chart.series  # the graphed steps are a curve of the chart, named with their origin
    strings = json.dumps([r for r in chart.rows], default=str) + " ".join(chart.series)
    assert all(day in strings for day in re.findall(r"\d{4}-\d{2}-\d{2}", text)), text
    # the band of a step recorded on several days is drawn, and the caption names what it spans
    assert any(r.get("band_lo") is not None for r in chart.rows)
    caption = " ".join(str(c.value) for c in at.caption)
    assert all(day in strings for day in re.findall(r"\d{4}-\d{2}-\d{2}", caption)), caption


def test_homes_pointer_to_the_training_page_names_an_expander_that_is_there(home):
    """Home said "The Training page's “How the step runs” compares every mode": that is the mode radio's label,
    and the comparison is in an expander of another name. The name Home quotes must be one the page shows."""
    at = home("nvidia-h200")
    text = next(str(m.value) for m in at.markdown if "The Training page's “" in str(m.value))
    named = re.search(r"The Training page's “([^”]+)”", text).group(1)
    training = visit("pages/training.py", {"gpu": "nvidia-h200"})
    assert not training.exception, [e.value for e in training.exception]
    assert named in [str(e.label) for e in training.expander], (named, [str(e.label) for e in training.expander])
