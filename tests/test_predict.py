"""`python -m lib predict MODEL --input SHAPE` (issue 38, item 5): a prediction for a model of one's own, a
torchvision network and each Training family, per recorded GPU, run as a user runs it (real subprocesses),
and its one-line errors. The GPU numbers are the Training page's where it draws the model (checked against
the page's own point), else each GPU's cost model fitted to every family it recorded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lib.core.crossover import CrossKind
from lib.core.rows import Origin

ROOT = Path(__file__).resolve().parents[1]
MODEL_FILE = """\
from torch import nn


def make_net():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(8, 5))


def not_a_module():
    return 42


def flat():
    return nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 4))
"""


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lib", "predict", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("own") / "my_net.py"
    path.write_text(MODEL_FILE)
    return path


def one_line_error(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    return lines[0]


def test_help_says_what_model_and_shape_accept():
    out = cli("--help")
    assert out.returncode == 0
    for words in (
        "MODEL",
        "mlp, cnn, transformer",
        "torchvision:NAME",
        "file.py:factory",
        "SHAPE",
        "3x224x224",
        "128x512",
        "--no-live",
        "--json",
        "examples:",
    ):
        assert words in out.stdout


@pytest.mark.parametrize(
    "args, said",
    [
        (("cnn", "--input", "3xx2"), "--input '3xx2': expected one sample's shape"),
        (("nosuch",), "unknown model 'nosuch'"),
        (("nowhere/net.py:make_net", "--input", "3x8x8"), "no file nowhere/net.py"),
        (("cnn", "--over", "depth=1,2"), "sweeps the batch size only"),
        (("cnn", "--input", "3x64x64"), "a CNN sample is 3x32x32"),
        (("cnn", "--set", "channels=0"), "channels: 0 is below the minimum"),
    ],
)
def test_bad_input_is_one_line_before_anything_runs(args, said):
    assert said in one_line_error(cli(*args))


@pytest.mark.parametrize(
    "factory, shape, said",
    [
        ("make_nett", "3x8x8", "has no function make_nett (it defines flat, make_net, not_a_module)"),
        ("not_a_module", "3x8x8", "not_a_module() returned int, not a torch.nn.Module"),
        ("flat", "3x9x9", "flat does not take samples of shape 3x9x9"),
    ],
)
@pytest.mark.slow  # a `python -m lib predict` process each
def test_a_model_file_that_cannot_be_predicted_is_one_line(model_file, factory, shape, said):
    assert said in one_line_error(cli(f"{model_file}:{factory}", "--input", shape))


@pytest.mark.slow  # imports torchvision to list its networks
def test_an_unknown_torchvision_network_is_one_line():
    assert "unknown torchvision network 'resnet1'" in one_line_error(cli("torchvision:resnet1"))


def test_an_unwritable_json_path_is_refused_up_front(tmp_path):
    assert "--json: the folder" in one_line_error(cli("cnn", "--json", str(tmp_path / "no" / "p.json")))


@pytest.mark.slow
def test_a_model_file_is_predicted_on_every_recorded_gpu(model_file, tmp_path):
    out_file = tmp_path / "p.json"
    out = cli(
        f"{model_file}:make_net",
        "--input",
        "3x16x16",
        "--over",
        "batch_size=1,16,256",
        "--no-live",
        "--json",
        str(out_file),
    )
    assert out.returncode == 0, out.stderr
    assert "GPU H200 (NVIDIA H200" in out.stdout and "GPU H100 (NVIDIA H100" in out.stdout
    assert "CPU: not measured (--no-live" in out.stdout
    data = json.loads(out_file.read_text())
    assert data["input_shape"] == [3, 16, 16] and data["batches"] == [1, 16, 256]
    assert data["settings"]["classes"] == 5  # read from the model's logits
    assert {g["gpu"] for g in data["gpus"]} == {"H200", "H100"}
    for g in data["gpus"]:
        assert [p["batch_size"] for p in g["points"]] == [1, 16, 256]
        for p in g["points"]:
            # nobody recorded this model: every point predicted, with the family-out band around it
            assert p["origin"] == "predicted" and "left out" in p["how"]
            assert p["step_s_low"] < p["step_s"] < p["step_s_high"]
            assert p["epoch_s"] == pytest.approx(p["step_s"] * p["steps_per_epoch"])
            assert p["regime"] and p["verdict"].startswith(f"{g['gpu']} at batch size {p['batch_size']:,}")
        assert g["crossover"] is None  # no CPU measured, no crossover placed
    assert data["cpu"]["points"] == []


@pytest.mark.slow
def test_live_cpu_places_the_crossover(model_file, tmp_path):
    out_file = tmp_path / "p.json"
    out = cli(
        f"{model_file}:make_net",
        "--input",
        "3x8x8",
        "--over",
        "batch_size=1,4",
        "--cpu-budget",
        "30",
        "--threads",
        "1",
        "--json",
        str(out_file),
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out_file.read_text())
    points = data["cpu"]["points"]
    assert [p["batch_size"] for p in points] == [1, 4] and all(p["status"] == "ok" for p in points)
    assert all(p["step_s"] > 0 and p["threads"] == 1 for p in points)
    assert "measured live here" in data["cpu"]["what"]
    for g in data["gpus"]:
        assert CrossKind(g["crossover"]["kind"]) in CrossKind
        assert g["crossover"]["sentence"] in out.stdout
        assert "this machine's CPU" in g["crossover"]["sentence"] and g["gpu"] in g["crossover"]["sentence"]


@pytest.mark.slow
def test_torchvision_resnet18_takes_the_pages_points_where_it_draws_them(tmp_path):
    from lib.lessons.training import step_tables
    from lib.lessons.training import view as T
    from lib.recorded import load_recordings
    from lib.recorded.sources import machine_text, recorded_sources, source_recording
    from lib.workloads import vision

    out_file = tmp_path / "p.json"
    out = cli(
        "torchvision:resnet18", "--input", "3x64x64", "--over", "batch_size=16,64", "--no-live", "--json", str(out_file)
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ResNet-18: one training step")
    h200 = next(g for g in json.loads(out_file.read_text())["gpus"] if g["gpu"] == "H200")
    recordings = load_recordings()[0]
    pack = source_recording(next(s for s in recorded_sources(recordings) if s.key == "nvidia-h200"), recordings)
    family = vision.FAMILY.pick(model="resnet18")
    table = step_tables.tables(pack, machine_text(pack.machine), family)["cuda"]
    for p in h200["points"]:
        page = T.point(
            T.View(family=family, batch_size=p["batch_size"], image_size=64),
            table,
            "cuda:0",
            machine_text(pack.machine),
        )
        assert page is not None and p["step_s"] == pytest.approx(page.median_s) and p["origin"] == page.origin.value


@pytest.mark.slow
@pytest.mark.parametrize("family", ["mlp", "cnn", "transformer"])
def test_each_family_is_predicted_on_every_recorded_gpu(family):
    out = cli(family, "--over", "batch_size=1,64", "--no-live")
    assert out.returncode == 0, out.stderr
    assert "GPU H200 (" in out.stdout and "GPU H100 (" in out.stdout
    assert out.stdout.count("GPU at batch size") >= 2  # every point says where it came from


@pytest.mark.slow
def test_a_function_in_process_is_predicted_as_the_file_is(model_file):
    """The notebook's way: a function defined in the session, no file."""
    import importlib.util

    from lib.lessons.predict import predict

    spec = importlib.util.spec_from_file_location("my_net_in_process", model_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = predict(module.make_net, (3, 16, 16), batches=(1, 16), live=False)
    assert [g.gpu for g in result.gpus] == ["H200", "H100"] and result.cpu == []
    assert all(p.origin is Origin.PREDICTED for g in result.gpus for p in g.points)
    assert result.as_dict()["label"] == "make_net"


@pytest.mark.slow
def test_the_notebook_predicts_a_model_defined_in_a_cell(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    for key, value in {"GPUWIN_SKIP_INSTALL": "1", "GPUWIN_PROJECT_DIR": str(ROOT), "GPUWIN_LIVE": "0"}.items():
        monkeypatch.setenv(key, value)
    notebook = nbformat.read(ROOT / "notebooks" / "predict_your_model.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code")  # shipped without outputs
    nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    printed = "\n".join(str(o.get("text", "")) for c in notebook.cells if c.cell_type == "code" for o in c.outputs)
    assert printed.count("make_net: one training step") == 1
    assert "GPU H200 (" in printed and "GPU H100 (" in printed and "CPU: not measured (--no-live" in printed


@pytest.mark.slow
def test_the_training_page_says_how_to_predict_ones_own_model_and_runs_none(tmp_path, monkeypatch):
    """The public page offers the families and torchvision names; a model of one's own is run on one's own
    machine, and the page says how (under the model choice)."""
    from app_support import open_page, page_text

    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))  # no packs: the page draws the live CPU only
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")
    at = open_page("pages/training.py")
    assert not at.exception, [e.value for e in at.exception]
    assert "python -m lib predict path/to/model.py:factory --input 3x32x32" in page_text(at)
