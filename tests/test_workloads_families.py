"""The Training page's other model families as workloads (lib.workloads.cnn, .transformer, .vision): each
builds and trains one real step on the CPU at a tiny size, its settings are checked where they enter, and
its FLOPs are counted by PyTorch (grow with the batch, with the model's width), not written by hand."""

from __future__ import annotations

import json

import pytest

from lib.__main__ import main
from lib.core.rows import Status
from lib.core.sweep import measure_point
from lib.core.timing import cpu_threads
from lib.core.workload import SettingError
from lib.workloads import FAMILIES, get_workload
from lib.workloads.vision import NETWORKS

TINY = {
    "cnn": {"batch_size": 4, "channels": 4, "depth": 1, "dataset_size": 8},
    "transformer": {"batch_size": 4, "d_model": 16, "layers": 1, "seq_len": 8, "heads": 2, "dataset_size": 8},
}


@pytest.fixture(autouse=True)
def one_cpu_thread():
    with cpu_threads(1):
        yield


@pytest.mark.parametrize("name", sorted(TINY))
@pytest.mark.parametrize("mode", ["eager", "fused"])
def test_a_family_trains_one_real_step_on_the_cpu_and_learns(name, mode):
    point = measure_point(
        get_workload(name), {**TINY[name], "mode": mode}, "cpu", budget_s=0.02, num_threads=1, check=True
    )  # check: 20 steps on one batch lower the loss, the optimizer holds the model
    assert point.status == Status.OK, point.message
    assert point.counts.steps_per_epoch == 2 and point.counts.flops > 0 and point.median_s > 0


@pytest.mark.slow  # about 5-8 s a network on a shared 2-core box (torchvision's import, the learning check)
@pytest.mark.parametrize("network", list(NETWORKS))
def test_each_torchvision_network_trains_one_real_step_at_a_small_image_size(network):
    point = measure_point(
        get_workload("torchvision"),
        {"model": network, "image_size": 32, "batch_size": 2, "dataset_size": 2},
        "cpu",
        budget_s=0.02,
        num_threads=1,
        check=True,
    )
    assert point.status == Status.OK, point.message
    assert point.settings["model"] == network and point.counts.flops > 0


@pytest.mark.slow  # about 15 s on a shared 2-core box: a fresh CLI process imports torchvision
def test_the_cli_trains_a_torchvision_network_by_name(tmp_path, capsys):
    out = tmp_path / "tv.json"
    rc = main(
        [
            "run",
            "torchvision",
            "--set",
            "model=mobilenet_v3_small",
            "--set",
            "image_size=32",
            "--set",
            "batch_size=2",
            "--set",
            "dataset_size=2",
            "--budget",
            "0.02",
            "--threads",
            "1",
            "--out",
            str(out),
        ]
    )
    assert rc == 0, capsys.readouterr()
    (row,) = json.loads(out.read_text())["rows"]
    assert row["status"] == "ok", row["message"]
    assert (row["workload"], row["model"], row["image_size"]) == ("torchvision", "mobilenet_v3_small", 32)


@pytest.mark.parametrize(
    "name,given,fragment",
    [
        ("torchvision", {"model": "vgg11"}, "not one of resnet18"),
        ("torchvision", {"model": "vit_tiny", "image_size": 40}, "multiple of 16"),
        ("torchvision", {"model": "resnet18", "image_size": 16}, "at least 32"),
        ("transformer", {"d_model": 30, "heads": 4}, "not a multiple of heads"),
        ("cnn", {"channels": 0}, "below the minimum"),
        ("cnn", {"mode": "compile", "optimizer_impl": "fused"}, "leave optimizer_impl at default"),
    ],
)
def test_bad_settings_are_refused_where_they_enter_with_one_line(name, given, fragment):
    with pytest.raises(SettingError, match=fragment):
        get_workload(name).resolve(given)


@pytest.mark.parametrize(
    "name,wider",
    [
        ("cnn", {"channels": 8}),
        ("transformer", {"d_model": 32}),
        pytest.param("torchvision", {"image_size": 64}, marks=pytest.mark.slow),
    ],
)
@pytest.mark.slow
def test_flops_are_counted_and_grow_with_the_batch_and_the_width(name, wider):
    work = get_workload(name)
    base = {**TINY.get(name, {"model": "mobilenet_v3_small", "image_size": 32}), "dataset_size": 4096}
    flops = [work.flops(work.resolve({**base, "batch_size": b})) for b in (1, 8, 64)]
    assert 0 < flops[0] < flops[1] < flops[2]
    assert flops[2] == pytest.approx(64 * flops[0], rel=0.02)  # linear in the batch: no op mixes samples
    assert work.flops(work.resolve({**base, **wider, "batch_size": 8})) > flops[1]
    settings = work.resolve({**base, "batch_size": 8})
    assert work.bytes_moved(settings) > 0 and work.parameter_count(settings) > 0


def test_the_cnn_counts_what_its_convolutions_do_by_hand():
    """One check of the counter against arithmetic: a 3 x 3 convolution's forward is 2 x 9 x cin x cout
    FLOPs per output pixel, its backward twice that (input and weight gradients), the first layer's
    input gradient not needed (autograd skips it); plus the linear layer's."""
    work = get_workload("cnn")
    s = work.resolve({"channels": 4, "depth": 1, "batch_size": 1, "classes": 10})
    convs = [(3, 4, 32), (4, 8, 16), (8, 16, 8)]
    forward = sum(2 * 9 * cin * cout * side * side for cin, cout, side in convs) + 2 * 16 * 10
    first_input_grad = 2 * 9 * 3 * 4 * 32 * 32
    assert work.flops(s) == pytest.approx(3 * forward - first_input_grad, rel=1e-6)


def test_peak_memory_grows_with_the_batch_and_counts_a_resident_dataset_twice_on_a_gpu():
    work = get_workload("cnn")
    small, large = (work.resolve({"batch_size": b, "channels": 16}) for b in (8, 512))
    assert work.peak_memory_bytes(large, "cpu") > work.peak_memory_bytes(small, "cpu")
    dataset = int(small["dataset_size"]) * (3 * 32 * 32 * 4 + 8)
    copied = small.replace(data_resident=False)
    assert work.peak_memory_bytes(small, "cuda") - work.peak_memory_bytes(copied, "cuda") == pytest.approx(dataset)


def test_every_family_is_offered_and_a_choice_picks_one_record_per_value():
    assert [f.name for f in FAMILIES] == ["mlp", "cnn", "transformer", "torchvision"]
    vision = next(f for f in FAMILIES if f.name == "torchvision")
    mobile = vision.pick(model="mobilenet_v3_small")
    assert mobile is vision.pick(model="mobilenet_v3_small") is mobile.pick(model="mobilenet_v3_small")
    assert vision.pick(model="resnet18") is vision and mobile.pick(model="resnet18") is vision
    assert mobile.page_defaults()["model"] == "mobilenet_v3_small" and mobile.key == "torchvision:mobilenet_v3_small"
    assert mobile.named == "torchvision model (MobileNet V3 small)"
    assert vision.step_key({"batch_size": 8, "dataset_size": 4, "image_size": 64}) == (4, 64, 1)  # no depth setting
    with pytest.raises(ValueError):
        vision.pick(model="vgg11")
