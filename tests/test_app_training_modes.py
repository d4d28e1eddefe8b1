"""Issue 23 on the Training page as a visitor opens it (AppTest, shipped packs, the live CPU gated off): the
'How each way of running the step' bullets and the split sentence quote only what the page's charts draw.

tests/test_random_views.py found 34 Training views whose bullets quoted a CUDA graph's step against eager
('takes 600 µs where eager PyTorch takes 1.32 ms: 2.21× as fast') and each mode's crossover, none of which a
chart drew, and split sentences quoting an operator count on no chart.
"""

from __future__ import annotations

import re

import pytest
from app_support import visit
from random_views import chart_of

from lib.core.fmt import fmt_s
from ui.step_story import MODES_KEY, SPLIT_KEY

# The recorded modes and the recorded profiled step: on a server with CUDA the sidebar's first GPU is the live one,
# which records neither (run on an H200 on 2026-11-27, both failed there: no modes expander, no recorded split)
pytestmark = pytest.mark.cpu_view


@pytest.fixture(autouse=True)
def _shipped_packs_no_live(monkeypatch):
    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)
    monkeypatch.setenv("GPUWIN_LIVE_MAX_GFLOP_CPU", "0.000000001")


def _charts(at) -> list[list[dict]]:
    """Every chart's rows (its inline and its Arrow datasets), one list per chart."""
    return [chart_of(element).rows for element in at.get("vega_lite_chart")]


def test_the_modes_bullets_quote_the_modes_charts_at_the_defaults():
    at = visit("pages/training.py", {}, opened=(MODES_KEY,))
    texts = [str(m.value) for m in at.markdown]
    saving = next(t for t in texts if "One CUDA graph of the whole step takes" in t)
    charts = _charts(at)
    bars = next(rows for rows in charts if any("step_s" in r for r in rows))
    said = re.findall(r"takes (\S+ (?:ns|µs|ms|s)) \(", saving)
    assert len(said) == 2 and set(said) <= {fmt_s(r["step_s"]) for r in bars if "step_s" in r}, (said, saving)
    # each crossover bullet names curves the modes' curve chart draws (the CPU curve and one per mode)
    curves = next(
        rows
        for rows in charts
        if any(
            str(r.get("series", "")).startswith("GPU · one CUDA graph") for r in rows if "t" in r and "step_s" not in r
        )
    )
    drawn = {r["series"] for r in curves if "series" in r}
    bullets = [t for t in texts if t.startswith("- **GPU · ")]
    assert len(bullets) >= 2
    for bullet in bullets:
        assert set(re.findall(r"\*\*([^*]+)\*\*", bullet)) <= drawn, (bullet, drawn)


def test_the_split_sentences_count_of_kernels_is_written_under_its_bar():
    at = visit(
        "pages/training.py",
        {"batch_size": "4096", "hidden_width": "1024"},  # a recorded, profiled step
        opened=(SPLIT_KEY,),
    )
    texts = [str(m.value) for m in at.markdown]
    counts = [
        (m.group(1), int(m.group(2).replace(",", "")))
        for t in texts
        for m in re.finditer(r"\*\*([^*]+)\*\*: one step takes [^;]*? and issues ([\d,]+) (?:kernels|operators)", t)
    ]
    assert counts, texts
    written = {(r["series"], r["kernels"]) for rows in _charts(at) for r in rows if "under" in r and "kernels" in r}
    for series, n in counts:
        assert (series, float(n)) in written, (series, n, written)
