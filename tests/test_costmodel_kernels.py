"""Kernels per step between profiled shapes (lib.lessons.training.model.KernelCounts), on the shipped
H200 recording of ResNet-18: its profiles count 2-3 kernels per convolution where the traced step
counts one, at every batch. Read as none between the profiled batches, every other point of the
page's curve was priced at half its kernels: a sawtooth along the recorded points."""

import gzip
import json
from pathlib import Path

import pytest

from lib.core.point import points_of
from lib.core.rows import Origin
from lib.lessons.training import step_tables
from lib.lessons.training import view as T
from lib.lessons.training.model import KernelCounts

PACKS = Path(__file__).resolve().parents[1] / "lib" / "recorded"
RESNET = T.BY_NAME["torchvision"].pick(model="resnet18")


def _steps(mode: str) -> dict:
    with gzip.open(PACKS / f"h200_torchvision_resnet18_training_{mode}.json.gz") as f:
        pack = json.loads(f.read())
    return step_tables.StepTable(points_of(pack["rows"]), "cuda", "NVIDIA H200 (2026-11-28)", RESNET).steps


def _kernels(counts: KernelCounts, batch: int, image: int, mode: str = "eager") -> float:
    view = T.View(family=RESNET, batch_size=batch, image_size=image, mode=mode)
    return counts(view.config("cuda"), {**view.page_defaults, **view.settings()}, view.rows)


def test_a_batch_between_profiled_ones_launches_what_they_do():
    steps = _steps("eager")
    counts = KernelCounts(steps, RESNET)
    profiled = {b: _kernels(counts, b, 64) for b in (16, 64, 256)}
    structural = RESNET.structural_kernels({**RESNET.page_defaults(), "image_size": 64, "batch_size": 32})
    assert all(
        k > 1.5 * structural for k in profiled.values()
    )  # the trace's count is far under the profiles' (x1.7-2.2)
    for between in (32, 128):  # never profiled: the nearest profiled batch's excess, not none
        assert min(profiled.values()) <= _kernels(counts, between, 64) <= max(profiled.values())
    assert (
        KernelCounts({}, RESNET)(
            ("eager", True, False, False), {**RESNET.page_defaults(), "image_size": 64, "batch_size": 32}, 32
        )
        == structural
    )


@pytest.mark.slow  # the model's fit and its hold-outs: seconds
def test_the_recorded_resnet_curve_has_no_sawtooth():
    # recorded at 16, 64 and 256 images, predicted between: eager at 64 pixels is launch-bound, its step
    # flat within the recordings' spread, and no predicted point falls below the recorded ones beside it
    table = step_tables.StepTable(
        _steps("eager")[("eager", True, False, False)].values(), "cuda", "NVIDIA H200 (2026-11-28)", RESNET
    )
    points = T.curve(T.View(family=RESNET, image_size=64, mode="eager"), table, "cuda", "H200")
    times = {p.settings["batch_size"]: p.median_s for p in points}
    assert Origin.PREDICTED in {p.origin for p in points} and len(points) >= 8
    for b in (32, 128):
        assert times[b] > 0.8 * min(times[b // 2], times[b * 2])
