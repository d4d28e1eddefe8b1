"""The Training crossover page through streamlit.testing's AppTest: real Streamlit, real torch.

CUDA is absent here. The GPU side is either missing (an empty recorded-pack directory) or the
test-fixture pack (tests/app_support.py: real CPU rows from the CLI, renamed cuda:0).
"""

from __future__ import annotations

import os

import pytest
from app_support import FIXTURE_GPU_NAME, chart_specs, fixture_pack_dir, open_page, page_text

from lib.lessons.live import DEFAULT_CPU_THREADS, TORCH_DEFAULT_THREADS

PAGE = "pages/training.py"
NS = "training."
CPU_LABEL = "cpu (live, this server)"
REGIMES = ("overhead-bound", "throughput-bound")
CROSSOVER_WORDS = ("catches up", "at least as fast", "never catches up", "Too few points")


@pytest.fixture
def no_pack(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")


@pytest.fixture
def with_pack(monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(fixture_pack_dir()))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")


def assert_cpu_view(at, *, at_text: str | None = None) -> str:
    """The page ran, drew its charts, and said who wins and why, with numbers."""
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    text = page_text(at)
    assert len(specs) >= 2, "time-per-epoch chart and phase chart expected"
    assert CPU_LABEL in specs[0]
    assert "time per epoch" in specs[0]
    assert "per epoch" in text
    assert any(r in text for r in REGIMES) or "not measured" in text
    if at_text:
        assert f"Where one step's time went at {at_text}" in text
    return text


@pytest.mark.cpu_view
def test_default_view_without_a_gpu(no_pack):
    at = open_page(PAGE)
    text = assert_cpu_view(at, at_text="batch size = 64")
    assert "No GPU on this server and no recorded GPU results shipped yet" in text
    assert "operator calls" in text  # the kernel profile of the current point, with its numbers
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown)
    assert "No GPU on this server" in sidebar and "no recorded GPU results shipped yet" in sidebar
    assert f"{DEFAULT_CPU_THREADS} thread" in sidebar
    # every setting is in the URL, so a copied link reopens this view
    assert at.query_params["over"] == "batch_size" and at.query_params["batch_size"] == "64"
    assert at.query_params["threads"] == str(DEFAULT_CPU_THREADS)
    assert len(at.get("download_button")) == 2


def test_every_control_moves_and_the_url_follows(no_pack):
    at = open_page(PAGE)
    assert_cpu_view(at)
    moves = [
        ("select_slider", "batch_size", 128, "batch size = 128"),
        ("select_slider", "hidden_width", 32, None),
        ("select_slider", "dataset_size", 4096, None),
        ("select_slider", "depth", 2, None),
        ("toggle", "data_resident", False, None),
        ("toggle", "item_every_step", True, None),
        ("toggle", "pin_memory", True, None),
        ("radio", "over", "depth", "depth = 2"),
        ("radio", "over", "hidden_width", "hidden width = 32"),
        ("radio", "over", "dataset_size", "dataset size = 4,096"),
    ]
    if max(os.cpu_count() or 1, TORCH_DEFAULT_THREADS) > DEFAULT_CPU_THREADS:  # the slider has somewhere to go
        moves.append(("slider", "threads", DEFAULT_CPU_THREADS + 1, None))
    for kind, key, value, shown in moves:
        widget = getattr(at, kind)(key=NS + key)
        widget.set_value(value).run()
        text = assert_cpu_view(at, at_text=shown)
        expected = {True: "true", False: "false"}.get(value, str(value)) if isinstance(value, bool) else str(value)
        assert at.query_params[key] == expected, (key, at.query_params)
    # with data copied per batch, the current point's step has a transfer phase
    assert "copying one batch from host memory took" in text
    assert "phase_transfer_s" not in text  # no raw column names in the words

    # the URL of this view reopens the same view
    link = dict(at.query_params)
    again = open_page(PAGE, link)
    assert_cpu_view(again, at_text="dataset size = 4,096")
    for key, value in link.items():
        assert again.query_params[key] == value
    assert again.select_slider(key=NS + "hidden_width").value == 32
    assert again.toggle(key=NS + "item_every_step").value is True
    assert not again.warning  # nothing needed adjusting


def test_bad_link_values_are_clamped_or_ignored_with_a_note(no_pack):
    at = open_page(PAGE, {"batch_size": "100", "hidden_width": "99999", "depth": "abc", "over": "nonsense",
                          "data_resident": "maybe", "threads": "999", "dataset_size": "-5"})
    assert not at.exception, [e.value for e in at.exception]
    note = "\n".join(str(w.value) for w in at.warning)
    assert "Some settings in the link were adjusted" in note
    for fragment in ("batch_size=100", "using the nearest, 128", "hidden_width=99999", "using 8,192",
                     "depth='abc'", "over='nonsense'", "data_resident='maybe'", "threads=999", "dataset_size=-5"):
        assert fragment in note, fragment
    assert at.select_slider(key=NS + "batch_size").value == 128
    assert at.select_slider(key=NS + "hidden_width").value == 8192
    assert at.select_slider(key=NS + "dataset_size").value == 256
    assert at.radio(key=NS + "over").value == "batch_size"
    assert at.query_params["batch_size"] == "128" and at.query_params["over"] == "batch_size"
    text = page_text(at)
    # with 8,192-wide layers the big points exceed the live work cap: said, not run, not a traceback
    assert "GFLOP" in "\n".join(str(e.value) for e in at.markdown) or "GFLOP" in text


@pytest.mark.cpu_view
def test_recorded_pack_is_the_gpu_side(with_pack):
    at = open_page(PAGE)
    text = assert_cpu_view(at, at_text="batch size = 64")
    specs = chart_specs(at)
    assert len(specs) == 3, "time chart, speed-up chart and phase chart"
    gpu_label = f"cuda:0 (recorded on {FIXTURE_GPU_NAME}"
    assert gpu_label in specs[0] and CPU_LABEL in specs[0]
    assert "speed-up (CPU time / GPU time)" in specs[1]
    assert "is faster at these settings" in text
    assert any(w in text for w in CROSSOVER_WORDS)
    assert "Speed-up = CPU time / GPU time" in text
    assert sum(t.count("cuda:0 (recorded on") for t in (str(m.value) for m in at.markdown)) >= 2
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown)
    assert f"recorded on {FIXTURE_GPU_NAME}" in sidebar

    # the recording machine's own CPU, on request: a third curve and the same-machine crossover
    at.toggle(key=NS + "recorded_cpu").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert f"cpu (recorded on {FIXTURE_GPU_NAME}" in chart_specs(at)[0]
    assert "On the recording machine itself" in page_text(at)
    assert at.query_params["recorded_cpu"] == "true"


@pytest.mark.cpu_view
def test_recorded_pack_without_matching_rows_says_so_and_offers_the_recorded_sweep(with_pack):
    at = open_page(PAGE, {"over": "depth"})
    assert_cpu_view(at, at_text="depth = 3")
    assert len(chart_specs(at)) == 2  # no GPU curve, so no speed-up chart
    infos = "\n".join(str(i.value) for i in at.info)
    assert "have no sweep with these settings, so there is no GPU curve for this view" in infos
    offers = [b for b in at.button if b.label.startswith("Show the sweep over batch size")]
    assert offers
    offers[0].click().run()
    assert not at.exception
    assert at.radio(key=NS + "over").value == "batch_size"
    assert len(chart_specs(at)) == 3
    assert at.query_params["over"] == "batch_size"
