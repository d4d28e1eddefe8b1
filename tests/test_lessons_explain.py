"""Sentences shared by the lessons (lib.lessons.explain): counts and shares through lib.core.fmt. No Streamlit."""

from __future__ import annotations

from lib.lessons.explain import regime_sentence, transfer_sentence


def test_one_kernel_is_singular_and_shares_are_percentages():
    text = regime_sentence({"device": "cuda:0", "median_s": 1e-3, "kernels": 1, "device_busy_s": 1e-6}, "gpu")
    assert "issues 1 kernel;" in text and "1 kernel × ≈999 µs each" in text and "(under 1% of the step)" in text
    text = regime_sentence({"device": "cpu", "median_s": 1e-3, "kernels": 1200, "device_busy_s": 5e-4}, "cpu")
    assert "issues 1,200 operator calls" in text and "(50% of the step)" in text
    assert transfer_sentence({"median_s": 1e-3, "phase_transfer_s": 2.5e-4}, "gpu") == (
        "gpu: copying one batch from host memory took 250 µs, 25% of a 1 ms step.")
