"""lib.charts.variants: what a variant chart carries beside its lines."""

from __future__ import annotations

import json

import pandas as pd

from lib.charts.variants import VariantLines, variant_chart


def _rows(phase: float | None) -> list[dict]:
    return [
        {
            "size": 512,
            "median_s": 65.4e-6,
            "iqr_s": 1e-6,
            "series": "cuda:0 (recorded)",
            "line": "copy counted",
            "phase_transfer_s": phase,
            "status": "ok",
        },
        {
            "size": 1024,
            "median_s": 150e-6,
            "iqr_s": 1e-6,
            "series": "cuda:0 (recorded)",
            "line": "copy counted",
            "phase_transfer_s": phase and phase * 3,
            "status": "ok",
        },
    ]


def _data(chart) -> list[dict]:
    spec = chart.to_dict()
    return [row for rows in spec.get("datasets", {}).values() for row in rows]


def test_the_copy_timed_on_its_own_is_on_the_chart_the_timing_words_quote_it():
    """Regression (issue 23, found by tests/test_random_views.py): Timing pitfalls said 'Timed on its own, the copy
    took 43.7 µs', a number on no chart; the chart's points now carry it (their tooltip)."""
    chart = variant_chart(
        pd.DataFrame(_rows(43.7e-6)), VariantLines("size", "median_s", color="series", dash="line", iqr="iqr_s")
    )
    copies = sorted(row["copy"] for row in _data(chart) if "copy" in row)
    assert [round(c, 1) for c in copies] == [43.7, 131.1]  # in the chart's unit, µs
    assert "the copy alone (µs)" in json.dumps(chart.to_dict(), ensure_ascii=False)


def test_no_copy_column_where_no_copy_was_timed():
    chart = variant_chart(
        pd.DataFrame(_rows(None)), VariantLines("size", "median_s", color="series", dash="line", iqr="iqr_s")
    )
    assert not any("copy" in row for row in _data(chart))
