"""Say less up top (issue 37): every lesson answers its question in one sentence of at most 30 words above
its chart; caveats, days and spreads go under it. Each page at its defaults here (the random views check
the same at 300 more views: view_checks.headline_short); the words are printed (`pytest -s`)."""

from __future__ import annotations

import pytest
from app_support import visit
from view_checks import HEADLINE_WORDS, headline_sentences, headline_words

from ui.pages import PAGES


@pytest.fixture(autouse=True)
def _shipped_packs_no_live(monkeypatch):
    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)  # the packs shipped in lib/recorded
    monkeypatch.setenv("GPUWIN_LIVE_MAX_GFLOP_CPU", "0.000000001")  # the recorded answer, the same on every machine


def test_the_counter_counts_what_a_reader_reads():
    said = (
        "**GPU · H200 (recorded)** catches up with **CPU · 2-core server (recorded)** between batch size 64 and "
        "512; most likely at about 300."
    )
    assert headline_words(said) == 21 and headline_sentences(said) == 1  # the lone "·" is no word
    assert headline_sentences("The GPU is 1.5× as fast. The CPU is not.") == 2
    assert headline_sentences("It runs 2.19 ms (vmap, e.g. jacrev) at val = 1,000.") == 1


@pytest.mark.parametrize("page", [p.path for p in PAGES])
def test_every_lesson_answers_in_one_short_sentence_at_its_defaults(page):
    at = visit(page, {}, whys=False)
    assert not at.exception, [e.value for e in at.exception]
    headline = at.markdown[0].value
    print(f"{page}: {headline_words(headline)} words: {headline}")
    assert headline_words(headline) <= HEADLINE_WORDS, headline
    assert headline_sentences(headline) == 1, headline
