"""The Multi-GPU page through AppTest: without packs (the CPU demo) and with a recorded pack."""

import json
import shutil
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))

from app_support import chart_specs, open_whys  # noqa: E402
from test_ddp import recorded  # noqa: E402,F401 - the module-scoped fixture: a pack made by the real CLI

from lib.lessons.multi_gpu import scaling  # noqa: E402
from lib.workloads.ddp.launch import available_cores  # noqa: E402


def _page(monkeypatch, folder):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(folder))
    return AppTest.from_file(str(ROOT / "pages" / "multi_gpu.py"), default_timeout=120)


def _text(at):
    open_whys(at)  # the 'Why?' sections, as a reader opens them
    return "\n".join(e.value for e in [*at.markdown, *at.info, *at.warning, *at.caption])


@pytest.mark.skipif(torch.cuda.device_count() >= 2, reason="with several GPUs the demo runs on them")
@pytest.mark.slow
def test_page_without_packs_says_so_and_runs_the_cpu_demo(monkeypatch, tmp_path):
    at = _page(monkeypatch, tmp_path).run()
    assert not at.exception
    assert "No multi-GPU results have been recorded yet" in _text(at)
    assert len(at.dataframe) == 0
    at.button(key="multi_gpu_run").click().run()
    assert not at.exception
    shown = at.dataframe[0].value
    assert list(shown["GPUs"].unique()) == ["1 process"]
    assert set(shown["status"]) == {"ok"}
    text = _text(at)
    # The words quote the numbers in the table.
    largest = shown.sort_values("per-GPU batch").iloc[-1]
    assert f"At a batch of {largest['per-GPU batch']}, one step took" in text
    assert f"{largest['samples/s']:,.0f} samples per second" in text


@pytest.mark.slow
def test_page_shows_a_recorded_pack_for_every_choice(monkeypatch, tmp_path, recorded):  # noqa: F811
    shutil.copy(recorded, tmp_path / recorded.name)
    (tmp_path / "broken.json").write_text("{not json")
    at = _page(monkeypatch, tmp_path).run()
    assert not at.exception
    text = _text(at)
    assert "could not be read" in text and "broken.json" in text
    label = json.loads(recorded.read_text())["machine"]["label"]
    assert label in at.selectbox(key="multi_gpu.machine").options[0]
    table = at.dataframe[0].value
    assert len(table) == len(json.loads(recorded.read_text())["rows"])
    if available_cores() >= 2:
        assert "2 processes" in text and "every step all-reduces" in text
    for axis in scaling.X_AXES:
        at.radio(key="multi_gpu.axis").set_value(axis).run()
        assert not at.exception
        assert at.query_params["axis"] == axis
    at.selectbox(key="multi_gpu.demo_model").set_value("cnn").run()
    assert not at.exception
    assert at.query_params["demo_model"] == "cnn" and at.query_params["machine"] == recorded.name.split(".")[0]


@pytest.mark.slow
def test_a_link_opens_the_model_and_axis_it_names(monkeypatch, tmp_path, recorded):  # noqa: F811
    """A link to the CNN at the same global batch opens that view, not the first model per GPU (issue 26)."""
    pack = json.loads(recorded.read_text())
    pack["rows"] += [{**r, "model": "cnn"} for r in pack["rows"]]  # a second model, as the shipped pack has
    (tmp_path / "two_models_ddp.json").write_text(json.dumps(pack))
    at = _page(monkeypatch, tmp_path)
    at.query_params.update({"machine": "two_models_ddp", "model": "cnn", "axis": "global", "demo_model": "cnn"})
    at.run()
    assert not at.exception
    assert at.radio(key="multi_gpu.model").value == "cnn"
    assert at.radio(key="multi_gpu.axis").value == "global"
    assert at.selectbox(key="multi_gpu.demo_model").value == "cnn"
    assert any("global_batch" in spec for spec in chart_specs(at))  # the chart is drawn over the global batch
    assert not at.warning or all("adjusted" not in w.value for w in at.warning)
    at = _page(monkeypatch, tmp_path)
    at.query_params.update({"model": "gpt", "axis": "global"})
    at.run()
    assert at.radio(key="multi_gpu.model").value == "mlp"  # unknown: the default, and a note says so
    assert any("model='gpt' is not one of mlp, cnn" in w.value for w in at.warning)
