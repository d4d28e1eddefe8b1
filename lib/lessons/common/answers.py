"""What every page's one-sentence answer shares. The answers themselves live with their pages
(lib.lessons.<page>.answer: jacobian, timing, data_pipeline, multi_gpu, your_results, gallery; Training
and Home write theirs in lib.lessons.training.screen and lib.lessons.home.view), each read from what
that page's chart shows and laid out above it by ui.scaffold.answer_first. No Streamlit.

    who(series_label("cuda:0", Origin.RECORDED, "NVIDIA H200, 2026-11-21"))   'the NVIDIA H200 GPU'
"""

from __future__ import annotations

from lib.lessons.common.voice import series_side
from lib.recorded.sources import SeriesName


def who(series: SeriesName) -> str:
    """A curve as a sentence names it, read from its typed name (lib.lessons.common.voice.series_side):
    this server's CPU, the NVIDIA H200 GPU, the NVIDIA H200 machine's CPU."""
    return series_side(series).text
