"""One colour per device on every chart (lib.charts.theme), axes that reach the last point, legends that
fit a phone: the chart builders' specs, on hand-written frames."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from lib.charts import Crossover, TimeLines, loss_chart, time_chart
from lib.charts.gallery import speedups_chart
from lib.charts.machines import machines_chart
from lib.charts.provenance import CurveAxes, curve_chart
from lib.charts.scaling import throughput_chart
from lib.charts.theme import (
    CPU_HOST,
    CPU_LIVE,
    CPU_SMALL,
    GPU_COLORS,
    GRAPH_COLOR,
    LEGEND_LABEL_LIMIT,
    METHOD_COLORS,
    log_ticks,
    series_colors,
)
from lib.charts.variants import MemoryLines, VariantLines, memory_chart, variant_chart
from lib.core.point import points_of
from lib.lessons.multi_gpu import scaling
from lib.lessons.your_results.compare import compare_machines

CPU = "cpu (live, this server)"
HOST = "cpu (recorded on NVIDIA H200, 2026-11-21)"
GPU = "cuda:0 (recorded on NVIDIA H200, 2026-11-21)"
XS = [1, 8, 64, 512, 4096, 8192]


def frame(*series: str, **extra) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"series": s, "x": x, "median_s": 1e-3 * (i + 1) * x, "iqr_s": 1e-5, "status": "ok", **extra}
            for i, s in enumerate(series)
            for x in XS
        ]
    )


def scales(spec: dict) -> list[dict]:
    """Every colour scale in a chart spec (layers included)."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            color = node.get("encoding", {}).get("color", {})
            if isinstance(color, dict) and "scale" in color and "domain" in color["scale"]:
                found.append(color["scale"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return found


def colour_of(chart, name: str) -> str:
    scale = scales(chart.to_dict())[0]
    return dict(zip(scale["domain"], scale["range"]))[name]


def test_series_colors_read_what_a_curve_is_from_its_name():
    assert series_colors([CPU, HOST, GPU, "cuda:1 (recorded on X)"]) == [CPU_LIVE, CPU_HOST, *GPU_COLORS[:2]]
    assert series_colors(["CPU · 2-core server (recorded)", "GPU · NVIDIA H200 (recorded)"]) == [
        CPU_SMALL,
        GPU_COLORS[0],
    ]
    assert not set(METHOD_COLORS) & {CPU_LIVE, CPU_SMALL, CPU_HOST, GPU_COLORS[0], GPU_COLORS[1]}


def test_a_gpus_cuda_graph_curve_is_green_not_the_crossovers_red():
    """Home draws the GPU's steps in one CUDA graph beside the eager GPU: as the second GPU curve it took red,
    the colour of the crossover's rule and shaded range."""
    graph = "cuda:0, one CUDA graph (recorded on NVIDIA H200, 2026-11-23)"
    assert series_colors([HOST, GPU, graph]) == [CPU_HOST, GPU_COLORS[0], GRAPH_COLOR]
    assert GRAPH_COLOR not in (CPU_LIVE, CPU_SMALL, CPU_HOST, *GPU_COLORS)


@pytest.mark.parametrize("order", [[CPU, GPU], [GPU, CPU], [GPU, HOST, CPU]])
def test_the_gpu_is_orange_and_the_live_cpu_blue_whatever_the_order(order):
    data = frame(*order)
    for chart in (
        time_chart(data, TimeLines("x")),
        variant_chart(data.assign(line="synchronised"), VariantLines("x", "median_s", color="series", dash="line")),
        loss_chart(data.rename(columns={"x": "epoch", "median_s": "loss"})),
    ):
        assert colour_of(chart, GPU) == GPU_COLORS[0]
        assert colour_of(chart, CPU) == CPU_LIVE
        if HOST in order:
            assert colour_of(chart, HOST) == CPU_HOST


def test_machines_chart_colours_each_curve_by_what_it_is_and_dashes_by_machine():
    rows = [
        {
            "workload": "mlp",
            "batch_size": x,
            "device": d,
            "median_s": t * x,
            "iqr_s": 0.0,
            "repeats": 3,
            "status": "ok",
            "message": "",
            "swept": "batch_size",
            "machine": m,
        }
        for m, devices in (("laptop", ("cpu",)), ("box", ("cpu", "cuda:0")))
        for d, t in zip(devices, (1e-4, 1e-6))
        for x in XS
    ]
    [comp] = compare_machines(rows)
    spec = machines_chart(comp).to_dict()
    scale = scales(spec)[0]
    colours = dict(zip(scale["domain"], scale["range"]))
    assert colours == {"CPU · laptop": CPU_SMALL, "CPU · box": CPU_HOST, "GPU · box": GPU_COLORS[0]}
    text = json.dumps(spec)
    assert '"strokeDash"' in text and '"shape"' in text and f'"labelLimit": {LEGEND_LABEL_LIMIT}' in text


def test_gallery_and_multi_gpu_lines_take_the_gpu_colours():
    speed = pd.DataFrame(
        [{"machine": m, "x": x, "speedup": s * x} for m, s in (("H200", 1e-3), ("H100", 2e-3)) for x in XS]
    )
    chart = speedups_chart(speed, pd.DataFrame(columns=["machine", "x"]))
    assert colour_of(chart, "H200") == GPU_COLORS[0] and colour_of(chart, "H100") == GPU_COLORS[1]
    rows = [
        {
            "workload": "ddp",
            "model": "mlp",
            "gpus": n,
            "batch_size": b,
            "device": device,
            "median_s": 1e-3 * n,
            "iqr_s": 0.0,
            "repeats": 5,
            "status": "ok",
            "message": "",
        }
        for device, counts in (("cuda", (1, 2, 4)), ("cpu", (1, 2)))
        for n in counts
        for b in (16, 256)
    ]
    gpus = scaling.table(points_of([r for r in rows if r["device"] == "cuda"]), "mlp")
    colours = dict(
        zip(*(lambda s: (s["domain"], s["range"]))(throughput_chart(gpus).to_dict()["encoding"]["color"]["scale"]))
    )
    assert colours == {"1 GPU": GPU_COLORS[0], "2 GPUs": GPU_COLORS[1], "4 GPUs": GPU_COLORS[2]}
    cpu = scaling.table(points_of([r for r in rows if r["device"] == "cpu"]), "mlp")
    assert throughput_chart(cpu).to_dict()["encoding"]["color"]["scale"]["range"][0] == CPU_LIVE


def test_log_axes_tick_the_values_drawn_up_to_the_last_point():
    assert log_ticks([1, 8, 64, 512, 4096, 8192]) == [1, 8, 64, 512, 4096, 8192]
    many = log_ticks([2**k for k in range(17)])
    assert many[0] == 1 and many[-1] == 65536 and len(many) <= 7
    assert log_ticks([]) == [] and log_ticks([0, None, 5]) == [5]
    spec = time_chart(frame(CPU, GPU), TimeLines("x")).to_dict()
    axis = json.dumps(spec)
    assert "8192" in axis and '"format": ",.7~g"' in axis
    memory = memory_chart(
        pd.DataFrame({"val": XS, "bytes": [1e6 * x for x in XS], "color": "loop", "dash": "CPU"}),
        pd.DataFrame(columns=["val", "bytes", "color", "status", "detail"]),
        MemoryLines("val"),
    )
    assert "8192" in json.dumps(memory.to_dict())


def test_the_training_chart_ticks_plain_numbers_and_fits_its_legend_to_a_phone():
    rows = frame("CPU · this server (live)", "GPU · NVIDIA H200 (recorded)").rename(
        columns={"x": "batch_size", "median_s": "epoch_s"}
    )
    given = json.dumps(curve_chart(rows, CurveAxes("batch_size", ticks=[1, 64, 4096])).to_dict())
    assert '"format": ",.7~g"' in given and f'"labelLimit": {LEGEND_LABEL_LIMIT}' in given
    assert '"values": [1, 64, 4096]' in given
    drawn = json.dumps(curve_chart(rows, CurveAxes("batch_size")).to_dict())
    assert '"values": [1.0, 8.0, 64.0, 512.0, 4096.0, 8192.0]' in drawn and '"format": ",.7~g"' in drawn


def test_a_crossover_label_near_the_right_edge_goes_left_of_its_rule():
    def align(x: float) -> str:
        layers = time_chart(frame(CPU, GPU), TimeLines("x"), crossover=Crossover(x)).to_dict()["layer"]
        return next(layer["mark"]["align"] for layer in layers if layer["mark"].get("type") == "text")

    assert align(4000.0) == "right" and align(10.0) == "left"
