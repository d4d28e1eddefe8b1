"""The Training page's other model families (CNN, Transformer, torchvision networks) through AppTest:
real Streamlit, real torch, no GPU here. Both GPUs hold coarse grids of them (since 2026-11-28); the views here are
small shapes off those grids, which the live CPU measures quickly, so each draws this server's live CPU curve and
says plainly why the GPU has none there (never a GPU curve it does not have)."""

from __future__ import annotations

import json
import re

import pytest
from app_support import chart_specs, page_text, visit
from view_checks import HEADLINE_WORDS, headline_words

from lib.recorded import load_recordings

PAGE = "pages/training.py"
NS = "training."
LIVE_LABEL = "CPU · this server (live)"
H100 = "nvidia-h100-80gb-hbm3"


@pytest.fixture
def shipped_packs(monkeypatch):
    """The shipped packs (the H100's and the H200's MLP recordings), live points kept short."""
    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")


def drawn(at) -> set[str]:
    spec = json.loads(chart_specs(at)[0])
    return {
        name
        for layer in spec["layer"]
        if "color" in layer.get("encoding", {})
        for name in layer["encoding"]["color"]["scale"]["domain"]
    }


def gpu_names() -> list[str]:
    return [r.machine.gpus[0] for r in load_recordings()[0] if r.machine.gpus]


def assert_honest(at, why: str | None, live: bool = True) -> str:
    """The view's answer is one sentence; with `why`, no GPU curve is drawn and `why` is said under the chart;
    without, the GPU's curve is drawn, labelled predicted (these shapes are off its recorded grid)."""
    assert not at.exception, [e.value for e in at.exception]
    text = page_text(at)
    curves = drawn(at)
    gpus = [c for c in curves if c.startswith("GPU")]
    if live:
        assert LIVE_LABEL in curves, curves  # the live CPU (and the small server's recorded CPU, where shipped)
    headline = at.markdown[0].value
    assert headline.count(". ") == 0, headline
    if why:
        assert not gpus and headline.startswith("There is no GPU curve for this view"), (curves, headline)
        assert why in text  # why, under the chart
    else:
        assert gpus == ["GPU · H100 (predicted)"], curves
    return text


# small shapes: the live CPU measures six points of each view on this box
VIEWS = [
    (
        {"gpu": H100, "model": "cnn", "channels": "4", "depth": "1"},
        "The H100 recorded this step only at channels 16 or 64 with depth 1 or 3: move the sliders there",
        ("channels", 8, None),
    ),  # 8 lies near enough to the recorded 16 for the cost model to predict
    (
        {"gpu": H100, "model": "transformer", "d_model": "16", "layers": "1", "seq_len": "16"},
        "The H100 has no recordings of this page's Transformer (16 tokens) training step.",
        ("layers", 2, "The H100 has no recordings of this page's Transformer (16 tokens) training step."),
    ),
    (
        {"gpu": H100, "model": "torchvision", "network": "mobilenet_v3_small", "image_size": "32", "batch_size": "4"},
        None,
        ("batch_size", 8, None),
    ),
]


@pytest.mark.cpu_view
@pytest.mark.slow
@pytest.mark.parametrize("link,why,move", VIEWS, ids=[v[0]["model"] for v in VIEWS])
def test_a_family_from_a_shared_link_draws_the_live_cpu_and_says_what_its_gpu_has(shipped_packs, link, why, move):
    at = visit(PAGE, link, whys=False)  # the sidebar's GPU read from the link, as a fresh browser does
    assert_honest(at, why)
    assert at.radio(key=NS + "model").value == link["model"]
    for key, value in link.items():
        assert at.query_params[key] == value, (key, at.query_params)  # every setting stays in the URL
    key, value, why = move
    at.select_slider(key=NS + key).set_value(value).run()
    assert_honest(at, why)
    assert at.query_params[key] == str(value)
    assert not at.warning  # nothing in the link was adjusted


@pytest.mark.cpu_view
@pytest.mark.slow  # about 25 s on a shared 2-core box: the page's first run fits the shipped packs' models
def test_the_model_choice_lists_every_family_and_a_network_picks_its_own_model(shipped_packs, monkeypatch):
    monkeypatch.setenv("GPUWIN_LIVE_MAX_GFLOP_CPU", "0.000001")  # every live point refused at once: words only
    at = visit(
        PAGE,
        {"gpu": H100, "model": "torchvision", "network": "nope", "image_size": "33", "batch_size": "2"},
        whys=False,
    )
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key=NS + "model").options == ["MLP", "CNN", "Transformer", "torchvision model"]
    assert at.radio(key=NS + "network").value == "resnet18"  # the default, with a note
    note = "\n".join(str(w.value) for w in at.warning).replace("\\", "")  # as read: markdown escapes gone
    assert "network='nope'" in note and "image_size=33" in note and "using the nearest, 32" in note
    assert gpu_names()  # the sidebar's GPU is a shipped recording
    assert_honest(at, None, live=False)
    at.radio(key=NS + "model").set_value("mlp").run()  # another model: the network's settings leave the link
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["model"] == "mlp" and "hidden_width" in at.query_params
    assert not {"network", "image_size"} & set(at.query_params), dict(at.query_params)


H200 = "nvidia-h200"  # recorded the torchvision networks (2026-11-28)


@pytest.mark.cpu_view
@pytest.mark.slow  # about 30 s on a shared 2-core box: the page's first run fits the H200's cost models
@pytest.mark.parametrize("mode", ["eager", "cuda_graph"])
def test_a_view_whose_every_cpu_step_is_over_the_live_limits_says_what_each_side_has(shipped_packs, mode):
    """ResNet-18 at 224 pixels: every CPU step is over this server's live limits (work or memory), so the CPU
    curve has no point; the H200's has its recorded and predicted points. The answer said 'Too few points were
    measured on both devices' (issue 38): it says what each side has, and why the CPU's is empty."""
    at = visit(PAGE, {"gpu": H200, "model": "torchvision", "image_size": "224", "mode": mode}, whys=False)
    assert not at.exception, [e.value for e in at.exception]
    headline = at.markdown[0].value
    gpu = next(c for c in drawn(at) if c.startswith("GPU"))
    assert headline.startswith(
        f"The CPU has no points here: every step is over this server's live limits; **{gpu}** has "
    ), headline
    has = re.fullmatch(r".*has (\d+) points, from batch size [\d,]+ to 1,024\.", headline)
    assert has and f"{gpu}: {has[1]} points drawn" in page_text(at), headline  # as many as the chart draws
    assert "Too few" not in page_text(at) and headline_words(headline) <= HEADLINE_WORDS  # issue 37's one sentence
    assert "more than the 3 GFLOP a live run on cpu may take here" in page_text(at)  # each refusal, under the chart
