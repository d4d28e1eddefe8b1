"""Issue 23: the Training page's 'How each way of running the step moves the crossover', its split and its
regime words say only what a chart on the page draws (tests/test_random_views.py found them quoting a CUDA
graph's step, an operator count and a predicted step's flop per byte that no chart drew).

Read from the shipped packs (lib/recorded/) through the lesson functions the page calls, and from the
chart builders the page draws them with.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from lib.charts.roofline import roofline_chart
from lib.charts.steps import mode_steps_chart, split_chart
from lib.core.fmt import fmt_rate, fmt_s
from lib.core.rows import Origin
from lib.lessons.common.explain import SPLIT_PARTS
from lib.lessons.common.verdict import roofline_points, split_sentence
from lib.lessons.training import screen as S
from lib.lessons.training import step_tables
from lib.lessons.training import view as T
from lib.lessons.training.modes import modes_view
from lib.recorded import RECORDED_DIR, load_recordings
from lib.recorded.ceilings import Ceilings, ceilings_for
from lib.recorded.sources import hardware_text, machine_text, recorded_sources, small_server_recording, source_recording

TIME = re.compile(r"(\d[\d,]*(?:\.\d+)?) (ns|µs|ms|s)\b")
SCALE = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
BOLD = re.compile(r"\*\*([^*]+)\*\*")


@pytest.fixture(scope="module")
def shipped():
    """The H200 and the H100 as the page builds them (lib.recorded.sources: a machine's packs merged),
    and the small server's recorded CPU."""
    recordings = load_recordings(RECORDED_DIR)[0]
    machines = {}
    for source in recorded_sources(recordings):
        if source.gpus == 1 and source.label.startswith(("NVIDIA H200", "NVIDIA H100")):
            recording = source_recording(source, recordings)
            name = hardware_text(recording.machine)
            machines[name] = S.Machine(
                step_tables.tables(recording, machine_text(recording.machine)),
                S.gpu_name(name),
                source.label,
                ceilings_for(name, [r.pack for r in recordings]),
            )
    small_recording = small_server_recording(recordings, T.MLP)
    small = S.Machine(
        step_tables.tables(small_recording, machine_text(small_recording.machine)),
        "2-core server",
        machine_text(small_recording.machine),
    )
    assert len(machines) == 2
    return machines, small


def _said_times(line: str) -> list[float]:
    return [float(m.group(1).replace(",", "")) * SCALE[m.group(2)] for m in TIME.finditer(line)]


def _printed(seconds: float) -> float:
    m = TIME.fullmatch(fmt_s(seconds))
    return float(m.group(1).replace(",", "")) * SCALE[m.group(2)]


VIEWS = [
    {},
    {"batch_size": 1},
    {"batch_size": 4096, "hidden_width": 1024},
    {"over": "hidden_width", "batch_size": 16},
    {"over": "dataset_size", "batch_size": 64, "dataset_size": 32768},
]


@pytest.mark.parametrize("settings", VIEWS, ids=lambda s: "&".join(f"{k}={v}" for k, v in s.items()) or "defaults")
def test_every_time_the_modes_bullets_quote_is_a_bar_of_the_modes_chart(shipped, settings):
    """The bullets once quoted 'One CUDA graph of the whole step takes 600 µs where eager PyTorch takes 1.32 ms:
    2.21× as fast' and each mode's crossover, with no chart of those modes on the page."""
    machines, small = shipped
    checked = 0
    for gpu in machines.values():
        view = T.View(**settings)
        screen = S.compose(view, S.Machines(gpu, small_cpu=small))
        modes = modes_view(view, gpu, screen)
        if modes is None:
            continue
        # each crossover bullet names two curves of the modes' curve chart, and the chart draws each mode
        assert len(modes.curves) == len(modes.by_mode) + 1 and len(modes.lines) == len(modes.by_mode)
        for line in modes.lines:
            assert set(BOLD.findall(line)) <= set(modes.curves), line
        drawn = [_printed(b.step_s) for b in modes.steps]
        drawn += [_printed(a.step_s - b.step_s) for a in modes.steps for b in modes.steps if a.step_s > b.step_s]
        drawn += [_printed(b.cold_s - b.step_s) for b in modes.steps if b.cold_s]
        for line in modes.step_lines:
            for t in _said_times(line):
                assert any(abs(t - d) <= 1e-12 + 1e-9 * d for d in drawn), (t, line, modes.steps)
                checked += 1
            # the graph's and eager's times each say where they came from, as their bars do
            words = {
                "predicted": "predicted by the cost model",
                "derived": "derived from a recorded step",
                "recorded": "recorded",
            }
            for bar in modes.steps:
                if line.startswith("One CUDA graph") and bar.series.startswith(
                    ("GPU · one CUDA graph", "GPU · eager PyTorch")
                ):
                    assert f"{fmt_s(bar.step_s)} ({words[bar.origin.value]})" in line, (line, bar)
        spec = mode_steps_chart(modes.bar_rows(), list(modes.curves)).to_dict()
        rows = [r for values in spec["datasets"].values() for r in values]
        assert {r["series"] for r in rows} == {b.series for b in modes.steps}
        for bar in modes.steps:  # the words under each bar: its time and where it came from
            under = (
                next(r["under"] for r in rows if r["series"] == bar.series and "under" in r)
                .replace("\n", " ")
                .replace("\u00a0", " ")
            )
            kernels = f" of {int(bar.kernels):,} kernels" if bar.kernels else ""
            assert under.startswith(f"{fmt_s(bar.step_s)} a step{kernels}, {bar.source}"), under
            if bar.origin is not Origin.PREDICTED:  # the recording it came from, by name and day
                assert re.search(r"recorded on NVIDIA H[12]00[^(]*\(20\d\d-\d\d-\d\d\)", under), under
    assert checked or settings, "the default view quotes a CUDA graph's saving on the shipped packs"


def test_a_predicted_mode_bar_is_drawn_pale_and_dashed():
    bars = [
        {
            "series": "GPU · eager PyTorch (recorded)",
            "x": 64,
            "step_s": 1.3e-3,
            "origin": "recorded",
            "note": "recorded on NVIDIA H200 (2026-11-23)",
            "from": "recorded on NVIDIA H200 (2026-11-23)",
            "kernels": 84.0,
        },
        {
            "series": "GPU · one CUDA graph (predicted)",
            "x": 64,
            "step_s": 6e-4,
            "origin": "predicted",
            "note": "predicted from 900 steps",
            "from": "predicted by the cost model",
            "predicted": True,
        },
        {
            "series": "GPU · torch.compile (recorded)",
            "x": 64,
            "step_s": 9e-4,
            "origin": "recorded",
            "note": "recorded on NVIDIA H200 (2026-11-23)",
            "from": "recorded on NVIDIA H200 (2026-11-23)",
            "cold_s": 20.0,
        },
    ]
    spec = json.loads(
        json.dumps(mode_steps_chart(bars, ["CPU · 2-core server (recorded)", *(b["series"] for b in bars)]).to_dict())
    )
    bar_layer = spec["layer"][0]
    assert bar_layer["encoding"]["opacity"]["condition"]["test"] == "datum.predicted"
    assert bar_layer["encoding"]["strokeDash"]["condition"]["value"] == [4, 2]
    rows = spec["datasets"][bar_layer["data"]["name"]]
    assert [r["predicted"] for r in rows] == [False, True, False]
    unders = {r["series"]: r["under"] for r in rows}
    assert unders["GPU · eager PyTorch (recorded)"].startswith("1.3\u00a0ms a step of 84 kernels, recorded on")
    assert unders["GPU · torch.compile (recorded)"] == (
        "900\u00a0µs a step, recorded on NVIDIA H200\n(2026-11-23); first step 20\u00a0s (compiling)"
    )  # whole lines
    assert all(len(line) <= 44 for lines in unders.values() for line in lines.split("\n"))
    assert spec["layer"][1]["mark"]["lineBreak"] == "\n"


def test_the_split_bars_write_the_kernel_count_the_split_sentence_quotes():
    """'one step takes 931 µs and issues 147 operators': the count was on no chart."""
    cpu = {
        "series": "CPU · this server (live)",
        "device": "cpu",
        "status": "ok",
        "median_s": 931e-6,
        "device_busy_s": 712e-6,
        "kernels": 147.0,
        "phase_transfer_s": 0.0,
    }
    said = split_sentence(cpu, cpu["series"])
    assert "issues 147 operators" in said
    bars = pd.DataFrame(
        [
            {
                "series": cpu["series"],
                "part_busy": 712e-6,
                "part_transfer": 0.0,
                "part_overhead": 219e-6,
                "kernels": 147.0,
            }
        ]
    )
    spec = split_chart(bars, {f"part_{k}": v for k, v in SPLIT_PARTS.items()}).to_dict()
    rows = [r for values in spec["datasets"].values() for r in values]
    assert {"series": cpu["series"], "kernels": 147.0, "under": "147 operators a step"} in rows


H200_CEILINGS = Ceilings("NVIDIA H200", "2026-11-21", 54e12, 4.19e12, "matmul", "stream", bytes_date="2026-11-24")


def test_a_predicted_steps_regime_words_quote_its_dot_on_the_roofline():
    """'This step is compute-bound (1,430 flop per byte …): while busy it ran 52.9 TFLOP/s': the roofline's dot is
    at 1,434 flop per byte and its height the FLOP/s over the whole step; the dot is drawn hollow (predicted)."""
    flops = 52.77e12 * 0.876  # training-028 of tests/test_random_views.py: 16,384 × 8,192, depth 8
    row = {
        "series": "GPU · H200 (predicted)",
        "device": "cuda:0",
        "status": "ok",
        "origin": "predicted",
        "batch_size": 16384,
        "median_s": 0.876,
        "launch_share": 0.004,
        "flops": flops,
        "bytes": flops / 1433.5766698925647,
    }
    said = split_sentence(row, row["series"], H200_CEILINGS)
    point = roofline_points([row], H200_CEILINGS, "batch_size", current=16384)[0]
    assert f"compute-bound ({point.intensity:,.0f} flop per byte" in said and "1,434 flop per byte" in said, said
    assert point.predicted is True
    assert f"over the whole step it ran {fmt_rate(point.rate)} (its dot on the roofline)" in said, said
    spec = json.loads(json.dumps(roofline_chart([point], H200_CEILINGS, x_title="batch size").to_dict()))
    hollow = [
        layer for layer in spec["layer"] if layer["mark"].get("filled") is False and layer["mark"].get("size") == 40
    ]
    assert hollow and spec["datasets"][hollow[0]["data"]["name"]][0]["intensity"] == point.intensity


def test_a_memory_bound_steps_words_quote_no_rate_over_its_busy_time():
    """'while busy it moved at least 6.62 GB/s … of that bandwidth': a rate over the busy time, which no chart
    draws (the roofline's dot is FLOP/s over the whole step); the words point at the dot under the bandwidth roof.
    (Issue 37: the step is 20 µs, not the 249 µs it was here, which is 4 % of the bandwidth roof and below both.)"""
    row = {
        "series": "GPU · H200 (predicted)",
        "device": "cuda:0",
        "status": "ok",
        "origin": "predicted",
        "batch_size": 2,
        "dataset_size": 1024,
        "median_s": 20e-6,
        "launch_share": 0.04,
        "flops": 128e6,
        "bytes": 43.5e6,
    }
    said = split_sentence(row, row["series"], H200_CEILINGS)
    point = roofline_points([row], H200_CEILINGS, "batch_size", current=2, series=row["series"])[0]
    assert "memory-bound" in said and f"is {point.intensity:.3g} flop per byte" in said, said
    assert "while busy" not in said and "GB/s" not in said.split("flop per byte")[1].split(")")[1], said
    assert "its dot on the roofline sits under the slanted bandwidth roof" in said


def test_a_curves_roofline_names_the_curve_on_its_dots_and_its_ceilings():
    """The regime words of a curve quote its dot and its GPU's ceilings (54 TFLOP/s, the ridge): the roofline
    names that curve on both, so the words and the chart are read as one curve's."""
    row = {
        "device": "cuda:0",
        "status": "ok",
        "origin": "recorded",
        "batch_size": 64,
        "median_s": 1e-3,
        "device_busy_s": 9e-4,
        "kernels": 40,
        "flops": 5e10,
        "bytes": 1e9,
    }
    points = roofline_points([row], H200_CEILINGS, "batch_size", current=64, series="GPU · H200 (recorded)")
    spec = json.loads(json.dumps(roofline_chart(points, H200_CEILINGS, x_title="batch size").to_dict()))
    rows = [r for values in spec["datasets"].values() for r in values]
    roofs = [r for r in rows if "roof" in r]
    assert roofs and all(r["curve"] == "GPU · H200 (recorded)" for r in roofs)
    assert {r["series"] for r in rows if "regime" in r} == {"GPU · H200 (recorded)"}  # the dot (and its ring)
