"""Charts compiled once per shape (lib.charts.compiled) draw what Altair itself would write."""

from __future__ import annotations

import json
from dataclasses import dataclass

import altair as alt
import pandas as pd
import pyarrow as pa
import pytest

from lib.charts.compiled import FilledChart, compiled
from lib.charts.provenance import CurveAxes, _curve_spec, _CurveShape, curve_chart


@dataclass(frozen=True)
class Shape:
    title: str


@compiled
def line_spec(shape: Shape) -> alt.Chart:
    return alt.Chart(alt.NamedData(name="points")).mark_line().encode(x="x:Q", y=alt.Y("t:Q", title=shape.title))


def without_data(spec: dict) -> dict:
    """The spec with its data references and datasets left out."""
    spec = {k: v for k, v in spec.items() if k != "datasets"}
    spec.pop("data", None)
    return spec


def test_a_compiled_chart_is_the_spec_altair_writes_for_the_same_chart_and_rows():
    rows = [{"x": 1.0, "t": 2.0}, {"x": 4.0, "t": 3.5}]
    inline = alt.Chart(pd.DataFrame(rows)).mark_line().encode(x="x:Q", y=alt.Y("t:Q", title="time (ms)")).to_dict()
    filled = FilledChart(line_spec(Shape("time (ms)")), {"points": rows}).to_dict()
    assert without_data(filled) == without_data(inline)
    assert filled["datasets"]["points"] == next(iter(inline["datasets"].values()))
    alt.Chart.from_dict(filled, validate=True)  # a valid Vega-Lite spec


def test_a_shape_is_built_once_and_each_call_gets_its_own_copy():
    before = line_spec.info()
    first = FilledChart(line_spec(Shape("s")), {"points": [{"x": 1, "t": 1}]})
    second = FilledChart(line_spec(Shape("s")), {"points": [{"x": 2, "t": 5}]})
    after = line_spec.info()
    assert after.misses - before.misses <= 1 and after.hits - before.hits >= 1
    drawn = first.to_dict()
    drawn["encoding"]["y"]["title"] = "changed by a caller"
    assert second.to_dict()["encoding"]["y"]["title"] == "s" and second.to_dict()["datasets"]["points"][0]["x"] == 2


def test_the_arrow_spec_carries_the_same_rows_as_tables():
    rows = [{"x": 1.0, "t": 2.0, "band": None}, {"x": 4.0, "t": 3.5, "band": 1.5}]
    chart = FilledChart(line_spec(Shape("t")), {"points": rows})
    arrow = chart.to_arrow_spec()["datasets"]["points"]
    assert isinstance(arrow, pa.Table) and arrow.to_pylist() == rows


def curve_rows() -> list[dict]:
    cpu = [
        {
            "series": "CPU · this server (live)",
            "batch_size": b,
            "epoch_s": 0.001 * b,
            "iqr_s": 1e-5,
            "steps_per_epoch": 4,
            "origin": "live",
        }
        for b in (1, 8, 64)
    ]
    gpu = [
        {
            "series": "GPU · H200 (recorded)",
            "batch_size": b,
            "epoch_s": 0.02 + 0.0001 * b,
            "iqr_s": float("nan"),
            "steps_per_epoch": 4,
            "origin": origin,
            "epoch_s_low": 0.01,
            "epoch_s_high": 0.05,
        }
        for b, origin in ((1, "recorded"), (8, "predicted"), (64, "predicted"))
    ]
    return cpu + gpu


def test_the_training_curve_chart_layers_read_their_rows_and_nan_is_null():
    chart = curve_chart(curve_rows(), CurveAxes("batch_size"), crossover=(8.0, 32.0, 20.0)).to_dict()  # a bracket of 4×
    names = {layer["data"]["name"] for layer in chart["layer"]}
    assert (
        names
        == set(chart["datasets"])
        == {"band", "measured", "segments", "solid", "hollow", "crossover_range", "crossover"}
    )
    assert len(chart["datasets"]["hollow"]) == 2 and len(chart["datasets"]["solid"]) == 4  # predicted are hollow
    assert len(chart["datasets"]["measured"]) == 3  # IQR bars only where a spread was measured
    assert chart["datasets"]["crossover"] == [{"x": 20.0, "label": "crossover ≈ 20"}]
    assert "NaN" not in json.dumps(chart)
    alt.LayerChart.from_dict(chart, validate=True)


def test_views_of_one_shape_share_a_spec_even_in_another_unit_or_with_other_names():
    before = _curve_spec.info()
    curve_chart(curve_rows(), CurveAxes("batch_size", ticks=[1, 8, 64]))
    slower = [{**r, "epoch_s": r["epoch_s"] * 1.5} for r in curve_rows()]  # same unit (ms), other numbers
    curve_chart(slower, CurveAxes("batch_size", ticks=[1, 8, 64]))
    mid = _curve_spec.info()
    assert mid.misses - before.misses <= 1 and mid.hits - before.hits >= 1
    in_seconds = [{**r, "epoch_s": r["epoch_s"] * 1000} for r in curve_rows()]
    renamed = [{**r, "series": r["series"].replace("(recorded)", "(recorded + predicted)")} for r in curve_rows()]
    seconds = curve_chart(in_seconds, CurveAxes("batch_size", ticks=[1, 8, 64])).to_dict()
    other_names = curve_chart(renamed, CurveAxes("batch_size", ticks=[1, 8, 64])).to_dict()
    assert _curve_spec.info().misses == mid.misses  # the words are filled in, not compiled
    assert any(layer["encoding"].get("y", {}).get("title") == "time per epoch (s)" for layer in seconds["layer"])
    domain = next(layer["encoding"]["color"]["scale"]["domain"] for layer in other_names["layer"])
    assert domain == ["CPU · this server (live)", "GPU · H200 (recorded + predicted)"]
    assert "\ue000" not in json.dumps(seconds) + json.dumps(other_names)  # no blank left


def test_a_filled_chart_is_the_spec_altair_writes_with_its_words():
    """The compiled curve chart's blanks (curve names, colours, the legend's wrapping, the y title and its
    unit) filled in give the spec Altair builds with those words written in, for views that name their
    curves differently, read in other units and wrap a long name in the legend."""
    from lib.charts.compiled import drawn_layers
    from lib.charts.provenance import curve_layers
    from lib.charts.theme import series_colors, wrap_expr

    long = "cuda:0, one CUDA graph (recorded on NVIDIA H200, 2026-11-21, 2026-11-23 and 2026-11-24)"
    views = [
        curve_rows(),
        [{**r, "epoch_s": r["epoch_s"] * 1000} for r in curve_rows()],
        [{**r, "series": long if r["series"].startswith("GPU") else r["series"]} for r in curve_rows()],
        [r for r in curve_rows() if r["origin"] != "predicted"],
    ]
    for rows in views:
        chart = curve_chart(rows, CurveAxes("batch_size", ticks=[1, 8, 64]), crossover=(8.0, 32.0, 20.0))
        names = list(dict.fromkeys(sorted((r["series"] for r in rows), key=lambda n: (not n.startswith("CPU"), n))))
        y_title = chart.words[next(k for k in chart.words if k.endswith("y title"))]
        written = curve_layers(
            _CurveShape(
                x_title="batch_size",
                curves=len(names),
                ticks=(1, 8, 64),
                styles=("measured", "predicted") if len(rows) == 6 else ("measured",),
                height=300,
                legend="bottom",
            ),
            y_title,
            names,
            series_colors(names),
            wrap_expr(names),
        ).to_dict()
        assert without_data(chart.to_dict()) == drawn_layers(written, set(chart.datasets)), rows[0]["series"]


def test_the_line_style_legend_is_drawn_only_when_the_chart_mixes_styles():
    """Home drew a one-line legend, "measured or recorded", above a chart of recorded curves only: it told
    nothing. A chart with a predicted stretch keeps the legend that tells the dashed line apart."""

    def dash_legend(spec):
        return [
            layer["encoding"]["strokeDash"].get("legend")
            for layer in spec["layer"]
            if "strokeDash" in layer.get("encoding", {})
        ]

    mixed = curve_chart(curve_rows(), CurveAxes("batch_size")).to_dict()
    assert [
        legend is not None and "predicted (band: its error)" in legend["labelExpr"] for legend in dash_legend(mixed)
    ] == [True]
    recorded = [r for r in curve_rows() if r["origin"] != "predicted"]
    assert dash_legend(curve_chart(recorded, CurveAxes("batch_size")).to_dict()) == [None]


def data_in_layers(spec: dict) -> dict:
    """Altair moves a data reference every layer shares (one layer, or the crossover's two) to the top of
    the spec: the same chart with it written in each layer instead."""
    if "data" not in spec:
        return spec
    top = {k: v for k, v in spec.items() if k != "data"}
    return {**top, "layer": [{"data": spec["data"], **layer} for layer in spec["layer"]]}


@pytest.mark.slow
def test_a_chart_keeping_some_of_its_layers_is_the_spec_altair_writes_for_those_layers_alone():
    """compiled.drawn_layers: the curve chart is compiled once with every layer and keeps those with rows,
    so a classroom's views (a band here, no crossover there) share one compiled spec; for every set of
    layers kept, the spec is the one Altair builds from those layers alone."""
    from itertools import combinations

    from lib.charts.compiled import drawn_layers
    from lib.charts.provenance import LAYERS, curve_layers
    from lib.charts.theme import series_colors, wrap_expr

    chart = curve_chart(curve_rows(), CurveAxes("batch_size"), crossover=(8.0, 32.0, 20.0))
    names = list(dict.fromkeys(r["series"] for r in curve_rows()))
    built = curve_layers(
        _CurveShape(
            x_title="batch_size",
            curves=len(names),
            ticks=(1, 8, 64),  # every layer
            styles=("measured", "predicted"),
            height=300,
            legend="bottom",
        ),
        "time per epoch (ms)",
        names,
        series_colors(names),
        wrap_expr(names),
    )
    compiled_spec = built.to_dict()
    for n in range(1, len(LAYERS) + 1):
        for kept in combinations(LAYERS, n):
            alone = (
                alt.layer(*[layer for layer in built.layer if layer.data.name in kept])
                .properties(height=built.height, autosize=built.autosize)
                .to_dict()
            )
            assert drawn_layers(compiled_spec, kept) == data_in_layers(alone), kept
    assert {layer["data"]["name"] for layer in chart.spec["layer"]} == set(chart.datasets) == set(LAYERS)


def test_views_whose_drawn_layers_differ_share_one_compiled_spec():
    rows = curve_rows()
    curve_chart(rows, CurveAxes("batch_size", ticks=[1, 8, 64]), crossover=(8.0, 32.0, 20.0))
    before = _curve_spec.info()
    no_cross = curve_chart(rows, CurveAxes("batch_size", ticks=[1, 8, 64]))
    no_band = curve_chart(
        [{k: v for k, v in r.items() if not k.startswith("epoch_s_")} for r in rows],
        CurveAxes("batch_size", ticks=[1, 8, 64]),
    )
    assert _curve_spec.info().misses == before.misses  # the same shape: no new build
    assert "crossover" not in no_cross.datasets and "band" not in no_band.datasets
    for chart in (no_cross, no_band):  # and no layer without rows (Vega warns "Infinite extent" of an empty one)
        assert {layer["data"]["name"] for layer in chart.to_dict()["layer"]} == set(chart.datasets)
        assert all(chart.datasets.values())
