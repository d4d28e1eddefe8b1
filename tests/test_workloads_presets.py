"""Seed presets resolve to real workloads, carry the seed's numbers, and the seed script runs them."""

import importlib.util
from pathlib import Path

import pytest

from lib.core.results import load_pack
from lib.core.timing import cpu_threads
from lib.core.workload import SettingError
from lib.workloads import WORKLOADS
from lib.workloads.presets import PRESETS, get_preset, loss_curve

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = {
    "boston_like",
    "iris",
    "mnist_minibatch",
    "mnist_fullbatch",
    "mnist_100rows",
    "linear_mnist_dataloader",
    "big_matmul",
    "jacobian_val100",
    "jacobian_val1000",
}


def load_script():
    spec = importlib.util.spec_from_file_location("seed_experiments", ROOT / "scripts" / "seed_experiments.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_seed_experiment_has_a_preset():
    assert set(PRESETS) >= EXPECTED


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_presets_resolve_in_full_and_quick(name):
    preset = get_preset(name)
    assert preset.workload in WORKLOADS
    full, quick = preset.params(), preset.params(quick=True)
    for key, value in preset.settings.items():
        assert full[key] == value or key in ("input_features", "outputs", "task")
    for key, value in preset.quick.items():
        assert quick[key] == value
    assert preset.description and "\n" not in preset.description
    assert preset.reported_calls >= 1


def test_presets_carry_the_seeds_shapes_and_numbers():
    boston = get_preset("boston_like").params()
    assert (boston["input_features"], boston["hidden_layers"], boston["outputs"]) == (13, "16,32,16", 1)
    assert boston["batch_size"] >= boston["dataset_size"] and boston["task"] == "regression"
    iris = get_preset("iris").params()
    assert (iris["input_features"], iris["hidden_layers"], iris["outputs"]) == (4, "64,32,16", 3)
    assert get_preset("mnist_fullbatch").params()["dataset_size"] == 52_500
    assert get_preset("big_matmul").params()["size"] == 15_360
    assert get_preset("jacobian_val1000").params()["method"] == "loop"
    assert get_preset("linear_mnist_dataloader").params()["model"] == "linear"
    assert get_preset("boston_like").reported_ratio == pytest.approx(29.1 / 12.0)
    assert get_preset("mnist_fullbatch").reported_ratio == pytest.approx(7.35 / 34.2)
    assert get_preset("jacobian_val100").reported_cpu_s == 11.1
    assert get_preset("mnist_100rows").reported_ratio is None


def test_unknown_preset_names_the_known_ones():
    with pytest.raises(SettingError, match="boston_like"):
        get_preset("boston")


@pytest.mark.slow
def test_seed_script_quick_run_writes_a_pack(tmp_path, capsys):
    script = load_script()
    out = tmp_path / "seeds.json"
    with cpu_threads(1):
        rc = script.main(
            [
                "--quick",
                "--only",
                "iris,big_matmul,jacobian_val100",
                "--devices",
                "cpu",
                "--threads",
                "1",
                "--budget",
                "0.05",
                "--out",
                str(out),
            ]
        )
    printed = capsys.readouterr().out
    assert rc == 0, printed
    rows = load_pack(out)["rows"]
    assert [r["variant"] for r in rows] == ["iris", "big_matmul", "jacobian_val100"]
    assert all(r["status"] == "ok" for r in rows), [r["message"] for r in rows]
    assert rows[1]["size"] == 1536  # the quick cut, recorded in the row
    assert "seed GPU/CPU" in printed and "2.82" in printed  # iris: 2.51 / 0.89


def test_seed_script_leaves_slow_presets_out_unless_asked(tmp_path, capsys):
    script = load_script()
    out = tmp_path / "slow.json"
    rc = script.main(["--only", "jacobian_val1000", "--devices", "cpu", "--out", str(out)])
    assert rc == 0
    (row,) = load_pack(out)["rows"]
    assert row["status"] == "skipped" and "--include-slow" in row["message"]


def test_verdicts_follow_the_expected_direction():
    script = load_script()
    assert script.verdict("gpu_slower", 2.4).startswith("as expected")
    assert script.verdict("gpu_faster", 2.4).startswith("differs")
    assert script.verdict("even", 1.05).startswith("as expected")
    assert script.verdict(None, 1.0) == ""


@pytest.mark.slow
def test_training_presets_have_loss_curves_that_start_alike():
    with cpu_threads(1):
        a = loss_curve("iris", "cpu", 5)
        b = loss_curve(get_preset("iris"), "cpu:0", 5)
        assert a == b and len(a) == 5 and a[-1] < a[0]
        loader = loss_curve("linear_mnist_dataloader", "cpu", 2, quick=True)
    assert len(loader) == 2 and loader[1] < loader[0]
    with pytest.raises(SettingError, match="no loss curve"):
        loss_curve("big_matmul", "cpu", 1)
