"""Legends and sizes of the chart builders, read from their Vega-Lite specs (tests/test_browser_pictures.py
checks the same in Chromium): long names wrapped whole, no empty layer, no legend-less channel on a
legend's field, no band height, plots that keep the height they are given."""

from __future__ import annotations

import json

import pandas as pd

from lib.charts import Layout, TimeLines, loss_chart, phase_chart, ratio_chart, time_chart
from lib.charts.provenance import CurveAxes, curve_chart
from lib.charts.theme import HOLLOW_DIAMOND, LEGEND_LINE_CHARS, label_lines, wrap_expr
from lib.charts.variants import VariantLines, variant_chart

LONG = "cuda:0 (recorded on NVIDIA H200, 2026-11-21 and 2026-11-24)"


def test_a_long_name_is_wrapped_into_whole_lines_and_a_short_one_left_as_it_is():
    lines = label_lines(LONG)
    assert " ".join(lines) == LONG and all(len(line) <= LEGEND_LINE_CHARS for line in lines) and len(lines) == 2
    expr = wrap_expr(["cpu (live, this server)", LONG])
    assert json.dumps(lines, ensure_ascii=False) in expr and "cpu (live" not in expr
    assert wrap_expr(["GPU · H200 (recorded)"]) == "datum.label"


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"x": x, "median_s": t * x, "iqr_s": 0.0, "series": s, "status": "ok"}
            for s, t in (("cpu (live, this server)", 1e-3), (LONG, 1e-5))
            for x in (1, 8, 64)
        ]
    )


def test_a_chart_given_a_plot_height_keeps_it_and_wraps_its_long_legend_names():
    spec = time_chart(frame(), TimeLines("x"), layout=Layout(plot_height=220)).to_dict()
    assert spec["height"] == 220 and spec["autosize"]["type"] == "fit-x"  # the legend adds below the plot
    expr = spec["layer"][0]["encoding"]["color"]["legend"]["labelExpr"]
    assert json.dumps(label_lines(LONG), ensure_ascii=False) in expr


def training_rows(hollow: bool) -> list[dict]:
    return [
        {
            "series": s,
            "batch_size": b,
            "epoch_s": t * b,
            "iqr_s": 1e-5,
            "steps_per_epoch": 4,
            "origin": "live" if s.startswith("CPU") else "recorded",
            "noisy": hollow and b == 8,
        }
        for s, t in (("CPU · this server (live)", 1e-3), ("GPU · H200 (recorded)", 1e-5))
        for b in (1, 8, 64)
    ]


def test_the_training_chart_draws_no_empty_layer_and_keeps_its_plot_height():
    spec = curve_chart(training_rows(hollow=False), CurveAxes("batch_size"), height=280).to_dict()
    assert all(spec["datasets"][layer["data"]["name"]] for layer in spec["layer"])  # "Infinite extent" otherwise
    assert spec["height"] == 280 and spec["autosize"]["type"] == "fit-x"
    titled = [layer["encoding"]["x"].get("title") for layer in spec["layer"]]
    assert set(titled) == {"batch_size"}  # every layer names the axes: any one may be drawn alone
    beside = curve_chart(training_rows(hollow=True), CurveAxes("batch_size"), legend_beside=True).to_dict()
    assert "hollow" in beside["datasets"] and '"orient": "right"' in json.dumps(beside)


def test_bar_charts_have_pixel_heights_and_no_channel_disables_a_merged_legend():
    bars = pd.DataFrame([{"series": "cpu", "phase_compute_s": 1e-3}, {"series": "gpu", "phase_compute_s": 1e-4}])
    for chart in (phase_chart(bars), ratio_chart(pd.DataFrame({"comparison": ["a", "b"], "ratio": [0.5, 2.0]}))):
        spec = chart.to_dict()
        assert isinstance(spec["height"], int) and spec["autosize"]["type"] == "fit-x"  # 'Dropping "fit-y"' otherwise
    loss = loss_chart(
        pd.DataFrame(
            {
                "epoch": [1, 2, 1, 2],
                "loss": [1.0, 0.5, 1.0, 0.4],
                "series": ["cpu (live)"] * 2 + ["cuda (recorded on x)"] * 2,
            }
        )
    ).to_dict()
    assert loss["encoding"]["strokeDash"]["field"] != loss["encoding"]["color"]["field"]


def test_a_variant_chart_puts_both_legends_beside_its_plot_when_asked():
    """Embedded Timing pitfalls: a dash legend above and a colour legend below its plot ended under an
    800 × 600 frame; beside the plot, they take width, which the frame has."""
    lines = frame().assign(line=lambda f: ["synchronised, fp32", "first call (cold), synchronised, fp32"] * 3)

    def orients(**kwargs) -> tuple:
        spec = variant_chart(
            lines, VariantLines("x", "median_s", color="series", dash="line"), layout=Layout(plot_height=140, **kwargs)
        ).to_dict()
        layer = next(layer["encoding"] for layer in spec["layer"] if "strokeDash" in layer["encoding"])
        return layer["color"]["legend"]["orient"], layer["strokeDash"]["legend"]["orient"]

    assert orients() == ("bottom", "top")
    assert orients(legend_beside=True) == ("right", "right")


def test_another_days_series_is_a_hollow_diamond_in_the_legend_as_on_the_chart():
    """Timing's and the Jacobian's other-day points are hollow diamonds on the chart (lib.lessons.common.one_day);
    their legend entry was the filled dot of every colour legend. Read from the spec: the diamond layer's mark, and
    the colour legend's symbol, an expression of the entry's name, a hollow diamond for that series only."""
    other = "cuda:0 (recorded on NVIDIA H200, 2026-11-24)"
    rows = frame().assign(line="synchronised", recorded_on="2026-11-28", apart=False)
    rows = pd.concat([rows, pd.DataFrame([{**rows.iloc[-1].to_dict(), "series": other, "apart": True, "x": 32}])])
    lines = VariantLines("x", "median_s", color="series", dash="line", day="recorded_on", apart="apart")
    spec = variant_chart(rows, lines).to_dict()
    diamond = next(layer for layer in spec["layer"] if layer["encoding"].get("shape") == {"value": "diamond"})
    assert diamond["mark"]["filled"] is False
    legend = next(layer["encoding"]["color"]["legend"] for layer in spec["layer"] if "color" in layer["encoding"])
    symbol = legend["symbolType"]["expr"]
    assert symbol.startswith(f"indexof({json.dumps([other])}, datum.value) >= 0 ? '{HOLLOW_DIAMOND}' : 'circle'")
    assert legend["symbolStrokeWidth"]["expr"].endswith("? 0 : 1.5")  # the ring is its fill: no stroke fills its hole
    # the ring: one path round the outside and back round the hole the other way (the nonzero rule leaves it empty)
    assert HOLLOW_DIAMOND.count("M") == 1 and HOLLOW_DIAMOND.endswith("Z")
    # every layer's colour encoding shares the one legend (Vega-Lite merges them: one left plain would draw dots)
    legends = [layer["encoding"]["color"].get("legend") for layer in spec["layer"] if "color" in layer["encoding"]]
    assert all(found == legend for found in legends)
    plain = variant_chart(rows[~rows["apart"]], lines).to_dict()
    colour = [layer["encoding"]["color"]["legend"] for layer in plain["layer"] if "color" in layer["encoding"]]
    assert colour and all("symbolType" not in found for found in colour)  # no other day drawn: the legend as before
