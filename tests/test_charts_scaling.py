"""The multi-GPU lesson's charts (lib.charts.scaling): what they encode and which points they draw."""

import pandas as pd
import pytest

from lib.charts.scaling import efficiency_chart, points_frame, throughput_chart
from lib.core.point import points_of
from lib.lessons.multi_gpu import scaling


def record(gpus, batch, median_s):
    return {
        "workload": "ddp",
        "model": "mlp",
        "gpus": gpus,
        "batch_size": batch,
        "device": "cuda",
        "median_s": median_s,
        "iqr_s": 0.0,
        "repeats": 5,
        "status": "ok",
        "message": "",
    }


@pytest.fixture
def records():
    # 16 GPUs sorts after 2 GPUs: the colour order is numeric, not alphabetical.
    rows = [record(n, b, 1e-3 * (1 + n / 8) + 1e-6 * b) for n in (1, 2, 16) for b in (16, 256, 4096)]
    rows.append(record(2, 64, None) | {"status": "oom"})
    return scaling.table(points_of(rows), "mlp")


def spec(chart):
    return chart.to_dict()


def data_of(d, layer):
    return d["datasets"][layer["data"]["name"]]


def test_throughput_chart_draws_every_measured_point_log_log(records):
    points = scaling.ok_points(records)
    d = spec(throughput_chart(points, "per_gpu"))
    assert d["mark"] == {"type": "line", "point": True}
    enc = d["encoding"]
    assert enc["x"]["field"] == "batch_size" and enc["x"]["title"] == "per-GPU batch size"
    assert enc["x"]["scale"] == {"type": "log", "base": 2}
    assert enc["x"]["axis"] == {"values": [16, 256, 4096], "format": "d"}
    assert enc["y"]["field"] == "samples_per_s" and enc["y"]["scale"] == {"type": "log"}
    assert enc["color"]["field"] == "GPUs" and enc["color"]["sort"] == ["1 GPU", "2 GPUs", "16 GPUs"]
    assert [t["field"] for t in enc["tooltip"]] == [
        "GPUs",
        "batch_size",
        "global_batch",
        "samples_per_s",
        "step_ms",
        "scaling_efficiency",
    ]
    drawn = data_of(d, d)
    assert len(drawn) == len(points) == 9
    assert sorted((p["gpus"], p["batch_size"]) for p in drawn) == sorted((p.gpus, p.batch_size) for p in points)
    assert all(p["samples_per_s"] == pytest.approx(p["gpus"] * p["batch_size"] / (p["step_ms"] / 1e3)) for p in drawn)


def test_efficiency_chart_on_the_global_batch_with_perfect_scaling_dashed(records):
    points = scaling.efficiency_points(records)
    d = spec(efficiency_chart(points, "global"))
    line, rule = d["layer"]
    assert line["encoding"]["x"]["field"] == "global_batch" and line["encoding"]["x"]["title"] == "global batch size"
    assert line["encoding"]["x"]["axis"]["values"] == sorted({p.global_batch for p in points})
    assert line["encoding"]["y"]["field"] == "scaling_efficiency" and line["encoding"]["y"]["scale"] == {"zero": False}
    assert line["encoding"]["color"]["sort"] == ["2 GPUs", "16 GPUs"]
    assert [p["scaling_efficiency"] for p in data_of(d, line)] == [p.scaling_efficiency for p in points]
    assert rule["mark"] == {"type": "rule", "strokeDash": [4, 4], "color": "gray"}
    assert rule["encoding"]["y"]["field"] == "scaling_efficiency" and data_of(d, rule) == [{"scaling_efficiency": 1.0}]


def test_charts_take_a_frame_and_survive_no_points(records):
    points = scaling.chart_records(scaling.ok_points(records))
    assert spec(throughput_chart(pd.DataFrame(points)))["encoding"]["x"]["field"] == "batch_size"
    d = spec(efficiency_chart([], "per_gpu"))
    assert data_of(d, d["layer"][0]) == [] and d["layer"][0]["encoding"]["x"]["axis"]["values"] == []
    assert {"GPUs", "batch_size", "global_batch", "samples_per_s"} <= set(points_frame([]).columns)
