"""mlp workload: data sources (bundled tables, MNIST from cache / download / fallback), loss curves."""

import gzip
import json
import struct

import pytest
import torch

from lib.__main__ import main
from lib.core.rows import Status
from lib.core.sweep import measure_point
from lib.core.timing import cpu_threads
from lib.workloads import datasets, get_workload
from lib.workloads.mlp import loss_curve, training_data

MLP = get_workload("mlp")


@pytest.fixture(autouse=True)
def one_cpu_thread():
    """Tiny ops gain nothing from a second thread, and on a shared 2-core box they can lose a lot."""
    with cpu_threads(1):
        yield


@pytest.fixture
def fresh_image_cache(monkeypatch, tmp_path):
    """An empty data folder and no remembered download outcome."""
    monkeypatch.setattr(datasets, "_IMAGE_CACHE", {})
    monkeypatch.setenv("GPUWIN_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_cli_runs_mlp_on_iris_and_the_shape_follows_the_data(tmp_path, capsys):
    out = tmp_path / "p.json"
    rc = main(
        [
            "run",
            "mlp",
            "--set",
            "data=iris",
            "--set",
            "dataset_size=150",
            "--set",
            "hidden_width=16",
            "--budget",
            "0.05",
            "--threads",
            "1",
            "--out",
            str(out),
        ]
    )
    assert rc == 0, capsys.readouterr()
    (row,) = json.loads(out.read_text())["rows"]
    assert row["status"] == "ok", row["message"]
    assert (row["input_features"], row["outputs"], row["task"]) == (4, 3, "classification")
    assert "data_note" not in row  # all 150 rows, nothing to say


@pytest.mark.parametrize(
    "name,features,outputs,task",
    [
        ("iris", 4, 3, "classification"),
        ("diabetes", 10, 1, "regression"),
        ("digits", 64, 10, "classification"),
        ("wine", 13, 3, "classification"),
        ("breast_cancer", 30, 2, "classification"),
    ],
)
def test_bundled_tables_set_features_outputs_and_task(name, features, outputs, task):
    params = MLP.resolve({"data": name, "input_features": 999, "outputs": 7, "dataset_size": 40})
    assert (params["input_features"], params["outputs"], params["task"]) == (features, outputs, task)
    x, y, note = training_data(params)
    assert x.shape == (40, features) and x.dtype == torch.float32
    assert y.shape == ((40,) if task == "classification" else (40, 1))
    assert "subset" in note


def test_diabetes_is_named_as_the_boston_stand_in():
    help_text = MLP.setting("data").help
    assert "Boston" in help_text and "1.2" in help_text
    assert "Boston" in datasets.TABLES["diabetes"].title


def test_dataset_size_repeats_a_small_table():
    x, y, note = training_data(MLP.resolve({"data": "iris", "dataset_size": 400}))
    assert x.shape == (400, 4)
    assert torch.equal(x[150:300], x[:150]) and torch.equal(y[150:300], y[:150])
    assert "repeated" in note


def test_mnist_offline_falls_back_to_synthetic_rows_with_a_note(fresh_image_cache, monkeypatch):
    monkeypatch.setenv("GPUWIN_OFFLINE", "1")
    point = measure_point(
        MLP, {"data": "mnist", "dataset_size": 64, "hidden_width": 16}, "cpu", budget_s=0.05, num_threads=1, check=True
    )
    assert point.status == Status.OK, point.message
    assert point.settings["input_features"] == 784 and point.settings["outputs"] == 10
    note = point.notes.data_note
    assert isinstance(note, str) and "synthetic" in note and "784 features" in note and "GPUWIN_OFFLINE" in note


def test_mnist_download_attempt_ends_in_data_or_a_clear_reason(fresh_image_cache, monkeypatch):
    """The real download path: on an offline machine it must fail fast with a reason."""
    monkeypatch.delenv("GPUWIN_OFFLINE", raising=False)
    monkeypatch.setattr(datasets, "DOWNLOAD_DEADLINE_S", 20.0)
    step = MLP.build(MLP.resolve({"data": "fashion_mnist", "dataset_size": 32, "hidden_width": 8}), "cpu")
    note = step.extras.data_note or ""
    if "could not be downloaded" in note:
        assert "synthetic" in note
    else:  # reachable: real rows, a subset of 60 000
        assert "32 of the 60000 rows" in note


def _write_idx(path, magic, shape, data):
    with gzip.open(path, "wb") if path.suffix == ".gz" else open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", n) for n in shape) + bytes(data))


def test_mnist_in_the_cache_folder_is_used_without_the_network(fresh_image_cache, monkeypatch):
    monkeypatch.setenv("GPUWIN_OFFLINE", "1")  # must not need the network at all
    raw = fresh_image_cache / "MNIST" / "raw"
    raw.mkdir(parents=True)
    n = 20
    gen = torch.Generator().manual_seed(3)
    pixels = torch.randint(0, 256, (n, 28, 28), generator=gen, dtype=torch.uint8)
    labels = torch.arange(n) % 10
    for prefix in ("train", "t10k"):
        _write_idx(raw / f"{prefix}-images-idx3-ubyte", 0x803, (n, 28, 28), pixels.flatten().tolist())
        _write_idx(raw / f"{prefix}-labels-idx1-ubyte", 0x801, (n,), labels.tolist())
    x, y, note = training_data(MLP.resolve({"data": "mnist", "dataset_size": n, "standardize": False}))
    assert note == "" and x.shape == (n, 784)
    assert torch.allclose(x, pixels.reshape(n, -1).float() / 255)
    assert torch.equal(y, labels)


def test_loss_curves_agree_on_two_device_strings_and_fall():
    params = {"data": "iris", "dataset_size": 150, "batch_size": 150, "hidden_layers": "16,16", "lr": 0.01}
    first = loss_curve(params, "cpu", 30)
    second = loss_curve(params, "cpu:0", 30)
    assert len(first) == 30
    assert first == second  # same weights, same data, same order: bit for bit on one device type
    assert first[-1] < 0.6 * first[0]


def test_minibatch_loss_curve_has_one_value_per_epoch():
    curve = loss_curve({"dataset_size": 256, "batch_size": 64, "hidden_width": 16, "depth": 1}, "cpu", 3)
    assert len(curve) == 3 and all(v > 0 for v in curve)


def test_both_steps_start_from_the_same_weights():
    a = MLP.build(MLP.resolve({"hidden_width": 8, "dataset_size": 64}), "cpu").extras.initial_weights_abs_sum
    b = MLP.build(MLP.resolve({"hidden_width": 8, "dataset_size": 64}), "cpu:0").extras.initial_weights_abs_sum
    c = MLP.build(MLP.resolve({"hidden_width": 8, "dataset_size": 64, "seed": 1}), "cpu").extras.initial_weights_abs_sum
    assert a == b != c


@pytest.mark.parametrize(
    "switches",
    [
        {"data_resident": False, "pin_memory": True, "item_every_step": True},
        {"optimizer_impl": "foreach"},
        {"optimizer_impl": "fused"},
    ],
)
def test_pitfall_switches_still_run_and_check(switches):
    point = measure_point(
        MLP,
        {"hidden_width": 16, "dataset_size": 256, "batch_size": 64, **switches},
        "cpu",
        budget_s=0.05,
        num_threads=1,
        check=True,
    )
    assert point.status == Status.OK, point.message


@pytest.mark.cuda
def test_cpu_and_cuda_start_alike_and_learn_the_same_curve():
    params = {"data": "iris", "dataset_size": 150, "batch_size": 150, "hidden_layers": "16,16"}
    params = MLP.resolve(params)
    assert (
        MLP.build(params, "cpu").extras.initial_weights_abs_sum
        == MLP.build(params, "cuda").extras.initial_weights_abs_sum
    )
    cpu = loss_curve(params, "cpu", 20)
    gpu = loss_curve(params, "cuda", 20)
    assert cpu[0] == pytest.approx(gpu[0], rel=1e-5)
    assert cpu == pytest.approx(gpu, rel=1e-3)


@pytest.mark.cuda
def test_cuda_mlp_with_real_data_and_copies_per_batch():
    point = measure_point(
        MLP,
        {
            "data": "digits",
            "dataset_size": 1024,
            "batch_size": 128,
            "data_resident": False,
            "pin_memory": True,
            "optimizer_impl": "fused",
        },
        "cuda",
        budget_s=0.1,
        check=True,
    )
    assert point.status == Status.OK, point.message
    assert point.phases["transfer"] > 0
