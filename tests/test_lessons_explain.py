"""Sentences shared by the lessons (lib.lessons.common.verdict, the words for explain's split): counts and
shares through lib.core.fmt. No Streamlit."""

from __future__ import annotations

from lib.lessons.common.verdict import split_sentence


def test_one_kernel_is_singular_and_shares_are_percentages():
    text = split_sentence({"device": "cuda:0", "median_s": 1e-3, "kernels": 1, "device_busy_s": 1e-6}, "gpu")
    assert "issues 1 kernel;" in text and "(under 1%)" in text and "999 µs per kernel launched" in text
    text = split_sentence({"device": "cpu", "median_s": 1e-3, "kernels": 1200, "device_busy_s": 5e-4}, "cpu")
    assert "issues 1,200 operators" in text and "(50%)" in text
    copied = split_sentence(
        {"device": "cuda:0", "median_s": 1e-3, "kernels": 4, "device_busy_s": 5e-4, "phase_transfer_s": 2.5e-4}, "gpu"
    )
    assert "Copying the batch in took 250 µs of the step." in copied
