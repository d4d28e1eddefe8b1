"""Issue 37 (classes C and D): the regime verdicts and the explanations beside them are physics claims.

Each claim's precondition is recomputed here by tests/physics_checks.py from the row it is said of and the
GPU's measured ceilings; the issue's own URLs are opened as a visitor opens them (streamlit.testing's AppTest
through the router, on the shipped packs, the live CPU refused by the work gate), as tests/test_truth_urls.py
does for issue 23.
"""

from __future__ import annotations

import json
import re

import pytest
from app_support import Visits, chart_specs, page_text, visit
from physics_checks import regime_is_physical, roof_shares

from lib.lessons.common.switch import switch_sentence
from lib.lessons.common.verdict import FIX_WORDS, ROOF_SHARE, Fix, Regime, roofline_points, verdict
from lib.lessons.training.screen import roofline_caption
from lib.recorded import RECORDED_DIR, load_recordings
from lib.recorded.ceilings import ceilings_for

H200, H100 = "NVIDIA H200", "NVIDIA H100 80GB HBM3"

# /training?mode=cuda_graph&batch_size=2&depth=16&hidden_width=8 on the H200 (predicted at depth 16): the old
# verdict said "memory-bound: 15.6 kFLOP over 51.3 kB" of a 416 µs step (51.3 kB at 4.19 TB/s is 12 ns)
TINY_GRAPH_STEP = {
    "workload": "mlp",
    "device": "cuda:0",
    "status": "ok",
    "origin": "predicted",
    "mode": "cuda_graph",
    "batch_size": 2,
    "hidden_width": 8,
    "depth": 16,
    "dataset_size": 8192,
    "median_s": 416e-6,
    "launch_share": 0.2,
    "flops": 15.6e3,
    "bytes": 51.3e3,
}


@pytest.fixture(scope="module")
def packs():
    return [r.pack for r in load_recordings(RECORDED_DIR)[0]]  # the verdict and the ceilings read pack dicts


@pytest.fixture(scope="module")
def h200(packs):
    c = ceilings_for(H200, packs)
    assert c is not None and c.bytes_per_s, "the shipped H200 packs carry its matmul and stream ceilings"
    return c


@pytest.fixture(autouse=True)
def _shipped_packs_no_live(monkeypatch):
    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)  # the packs shipped in lib/recorded
    monkeypatch.setenv("GPUWIN_LIVE_MAX_GFLOP_CPU", "0.000000001")


@pytest.fixture(scope="module")
def seen():
    """The views the tests below only read, each opened once (under the fixture above, the same for each)."""
    return Visits()


# -- the checker itself ------------------------------------------------------------------------------------
def test_the_checker_rejects_the_old_memory_bound_verdict_of_a_step_decades_below_the_roof(h200):
    compute, memory = roof_shares(TINY_GRAPH_STEP, h200)
    assert memory < 1e-4 and compute < 1e-4  # 4-5 decades below both roofs
    assert not regime_is_physical(TINY_GRAPH_STEP, h200, "memory-bound")  # what the old verdict said
    assert not regime_is_physical(TINY_GRAPH_STEP, h200, "compute-bound")
    assert regime_is_physical(TINY_GRAPH_STEP, h200, "kernel-latency-bound")


def test_the_checker_accepts_a_step_at_its_roof(h200):
    big = {**TINY_GRAPH_STEP, "median_s": 1e-3, "flops": 0.8 * h200.flops_per_s * 1e-3, "bytes": 1e6}
    assert regime_is_physical(big, h200, "compute-bound") and not regime_is_physical(big, h200, "memory-bound")
    streaming = {**TINY_GRAPH_STEP, "median_s": 1e-3, "flops": 1e9, "bytes": 0.6 * h200.bytes_per_s * 1e-3}
    assert regime_is_physical(streaming, h200, "memory-bound")
    assert not regime_is_physical(streaming, h200, "kernel-latency-bound")


def test_the_tiny_graph_step_is_held_by_its_kernels_latency_not_by_memory(h200):
    v = verdict(TINY_GRAPH_STEP, h200)
    assert v.regime == Regime.KERNEL_LATENCY, v
    assert regime_is_physical(TINY_GRAPH_STEP, h200, v.regime.value)
    assert v.fix == Fix.BIGGER_BATCH  # never 'more arithmetic per byte': it is not memory that holds it


def test_every_shipped_gpu_steps_regime_passes_the_physics_check(packs):
    """The verdict of every recorded GPU training step, read against its GPU's ceilings, is one the checker
    allows: no memory- or compute-bound below ROOF_SHARE of that roof."""
    ceilings = {m: ceilings_for(m, packs) for m in (H200, H100)}
    checked = 0
    for pack in packs:
        for row in pack["rows"]:
            c = ceilings.get(row.get("device_name"))
            if row.get("workload") != "mlp" or row.get("status") != "ok" or c is None or row.get("device") == "cpu":
                continue
            v = verdict(row, c)
            if v is None or v.regime is None:
                continue
            checked += 1
            assert regime_is_physical(row, c, v.regime.value), (v.regime, roof_shares(row, c), row)
    assert checked > 1000


def test_the_roofline_caption_is_true_of_the_roofs_it_draws(packs, h200):
    from lib.charts.roofline import dot_row

    row = {**TINY_GRAPH_STEP, "origin": "recorded"}
    points = roofline_points([row], h200, "batch_size", current=2)
    caption = roofline_caption(points, h200)
    assert "without a bandwidth ceiling" not in caption and "bandwidth: stream" in caption
    assert f"{ROOF_SHARE:.0%} of that dashed roof" in caption
    no_stream = [p for p in packs if not any(r.get("workload") == "stream" for r in p["rows"])]
    c = ceilings_for(H200, no_stream)
    busy = {**row, "median_s": 1e-3, "device_busy_s": 9e-4, "kernels": 40, "flops": 1e9, "bytes": 1e9}
    grey = roofline_points([busy], c, "batch_size")
    assert grey[0].regime is None  # drawn 'not decided'
    assert dot_row(grey[0])["regime"] == "not decided"
    assert "without a bandwidth ceiling" in roofline_caption(grey, c)


def test_the_tf32_roof_is_labelled_on_the_chart(h200):
    from lib.charts.roofline import roofline_chart

    points = roofline_points([{**TINY_GRAPH_STEP, "origin": "recorded"}], h200, "batch_size", current=2)
    spec = json.loads(json.dumps(roofline_chart(points, h200, x_title="batch size").to_dict()))
    texts = [layer for layer in spec["layer"] if (layer.get("mark") or {}).get("type") == "text"]
    assert texts, "no text layer names the roofs"
    labels = {d["label"] for d in spec["datasets"][texts[0]["data"]["name"]]}
    assert any(lbl.startswith("TF32 arithmetic ") for lbl in labels), labels
    assert any(lbl.startswith("fp32 arithmetic ") for lbl in labels), labels
    assert any(lbl.startswith("memory bandwidth ") for lbl in labels), labels


# -- the copy: its bytes at the measured link rate, and the rest -----------------------------------------------
def test_the_link_rate_is_measured_from_the_recorded_copies(h200, packs):
    """55 GB/s: the H200's matmul rows with transfer=true copy 2 × size² × 4 bytes from pinned memory in
    phase_transfer_s (h200_timing*.json*); never a vendor's figure."""
    assert 40e9 < h200.link_bytes_per_s < 70e9, h200.link_bytes_per_s
    assert "pinned host-to-device copy" in h200.link_from and "recorded 2026-" in h200.link_from
    assert ceilings_for(H100, packs).link_bytes_per_s > 30e9


def test_a_pageable_copys_added_time_is_split_into_its_bytes_and_the_rest(h200):
    plain = {
        "workload": "mlp",
        "status": "ok",
        "device": "cuda:0",
        "median_s": 1.623e-3,
        "iqr_s": 2e-5,
        "batch_size": 4096,
        "dataset_size": 65536,
        "input_features": 32,
        "task": "classification",
        "outputs": 10,
        "origin": "recorded",
    }
    copied = {**plain, "median_s": 2.133e-3, "data_resident": False, "pin_memory": False}
    pinned = {**copied, "median_s": 1.55e-3, "pin_memory": True}
    text = switch_sentence(copied, plain, "GPU", h200, pinned)
    assert "copy over the bus" not in text
    assert "moving its 557 kB batch" in text and "takes about 10" in text, text
    assert "is not the bytes moving" in text and "pageable memory is synchronous" in text, text
    assert "pinned memory was recorded at 1.55 ms" in text
    without_link = switch_sentence(copied, plain, "GPU", None)
    assert "cannot say how much of it is the bytes moving" in without_link and "takes about" not in without_link
    # the fix's words: a copy from pinned memory is offered to a pageable one, and nothing says pinning hides "part"
    assert "only hides part" not in FIX_WORDS[Fix.DATA_ON_DEVICE]
    assert "pin_memory=True" in text and "pin_memory=True" not in switch_sentence(
        pinned | {"median_s": 3e-3}, plain, "GPU", h200
    )


# -- the URLs ----------------------------------------------------------------------------------------
def _gpu_lines(at) -> list[str]:
    return [line for line in page_text(at).splitlines() if line.startswith("**GPU · ")]


@pytest.mark.cpu_view  # the shipped recordings as the GPU side: a server without CUDA (a live GPU is its own)
def test_a_tiny_cuda_graph_step_is_not_called_memory_bound():
    from ui.step_story import SPLIT_KEY

    at = visit(
        "pages/training.py",
        {"mode": "cuda_graph", "batch_size": "2", "depth": "16", "hidden_width": "8"},
        opened=(SPLIT_KEY,),
    )
    said = [line for line in _gpu_lines(at) if "one step takes" in line]
    assert said, page_text(at)
    assert not any("memory-bound" in line for line in said), said
    assert any("kernel-latency-bound" in line for line in said), said
    roofline = [s for s in chart_specs(at) if "Each step under the GPU" in s]
    assert roofline and '"regime": "memory-bound"' not in roofline[0].replace('":"', '": "')


@pytest.mark.cpu_view
def test_a_graph_replaying_mode_is_not_said_to_launch_each_kernel():
    from ui.step_story import SPLIT_KEY

    at = visit(
        "pages/training.py",
        {
            "mode": "compile_reduce_overhead",
            "over": "depth",
            "hidden_width": "1024",
            "batch_size": "256",
            "depth": "12",
        },
        opened=(SPLIT_KEY,),
    )
    said = [line for line in _gpu_lines(at) if "one step takes" in line]
    assert said, page_text(at)
    assert not any(
        "(Python, autograd, one launch per" in line or "waits for the CPU to issue" in line for line in said
    ), said
    assert any("CUDA graph replay" in line for line in said), said


@pytest.mark.cpu_view
def test_a_copied_batch_is_split_into_its_bytes_at_the_measured_link_rate_and_the_rest(seen):
    from ui.step_story import SPLIT_KEY

    at = seen(
        "pages/training.py",
        {"data_resident": "false", "batch_size": "4096", "hidden_width": "1024"},
        opened=(SPLIT_KEY,),
    )
    said = [line for line in _gpu_lines(at) if "copied in from" in line]
    assert said, page_text(at)
    assert "is the copy over the bus" not in said[0], said
    found = re.search(
        r"moving its ([\d.]+) kB batch at this GPU's measured host-to-device rate \(([\d.]+) GB/s", said[0]
    )
    assert found, said[0]
    assert "is not the bytes moving" in said[0] and "only hides part" not in said[0], said[0]


@pytest.mark.cpu_view
def test_the_default_training_view_explains_the_gpus_step(seen):
    from ui.step_story import SPLIT_KEY

    at = seen("pages/training.py", {}, opened=(SPLIT_KEY,))
    said = [line for line in _gpu_lines(at) if "one step takes" in line]
    assert said, page_text(at)


@pytest.mark.cpu_view
@pytest.mark.parametrize("query", [{}, {"data_resident": "false", "batch_size": "4096", "hidden_width": "1024"}])
def test_the_roofline_caption_never_says_the_bandwidth_ceiling_is_missing_beside_its_roof(seen, query):
    """The default view's caption said "without a bandwidth ceiling the page cannot tell whether memory holds it"
    under a subtitle giving the H200's measured bandwidth and a drawn slanted roof (its grey dot: a step recorded
    without a profile)."""
    from ui.step_story import SPLIT_KEY

    at = seen("pages/training.py", query, opened=(SPLIT_KEY,))
    text = page_text(at)
    caption = next(line for line in text.splitlines() if line.startswith("Each dot is one step of the GPU curve"))
    roofline = next(s for s in chart_specs(at) if "Each step under the GPU" in s)
    # the subtitle gives the measured bandwidth (and the slanted roof is drawn from it)
    assert re.search(r"bandwidth [\d.]+ TB/s: stream", roofline) and "bandwidth: stream" in caption, caption
    assert "without a bandwidth ceiling" not in caption, caption


@pytest.mark.cpu_view
def test_the_copys_share_is_worded_as_the_drawn_rows_move_it():
    """`/timing_pitfalls?tf32=true&transfer=true`: "copying grows with size², the arithmetic with size³" beside a copy
    share that rises from 36 % at 64 to 92 % at 2,048 on the H200's rows; the words now follow the shares drawn."""
    at = visit("pages/timing_pitfalls.py", {"tf32": "true", "transfer": "true"})
    text = page_text(at)
    said = re.search(
        r"Its share rises from (\d+)% at size ([\d,]+) to (\d+)% at ([\d,]+), then falls to (\d+)% at "
        r"([\d,]+): past ([\d,]+) the arithmetic \(size³\) grows faster than the copy \(size²\)",
        text,
    )
    assert said, text
    first, peak, last = (int(said.group(i)) for i in (1, 3, 5))
    assert first < peak > last and said.group(4) == said.group(7)
    assert "copying grows with size², the arithmetic with size³" not in text


def test_the_data_pipeline_gives_no_made_up_cause_for_an_unexplained_difference():
    """`/data_pipeline?…num_workers=4&batch_size=8`: "65 ms more than loading and compute timed apart: work … such as
    adding up the epoch's loss": nothing timed that work; the difference between separate runs is called unexplained."""
    at = visit("pages/data_pipeline.py", {"gpu": "nvidia-h200", "num_workers": "4", "batch_size": "8"})
    text = page_text(at)
    assert "more than loading and compute timed apart" in text, text
    assert "adding up" not in text and "That difference is unexplained" in text
