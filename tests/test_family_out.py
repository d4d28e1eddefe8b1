"""Family out (lib.lessons.training.family_out) on the shipped packs: each family left out whole and every one
of its recorded steps predicted, and `lib predict`'s band reads the same errors the hold-out benchmark prints."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lib.core import costmodel
from lib.lessons.predict.gpus import recorded_gpus
from lib.lessons.training.family_out import family_out, pooled, recorded_families
from lib.lessons.training.model import observations
from lib.recorded import load_recordings

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def h200():
    recordings, _ = load_recordings(None)
    return next(g for g in recorded_gpus(recordings) if g.name == "H200")


@pytest.mark.slow
def test_each_family_is_left_out_whole_and_every_step_predicted(h200):
    found = recorded_families(h200.recording)
    errors = family_out(found)
    assert set(errors) == {r.family.name for r in found} >= {"mlp", "cnn", "transformer", "torchvision"}
    for r in found:  # each network's share is kept apart, every recording of every step in it
        assert len(errors[r.family.name][r.family.key]) == len(observations(r.steps, "cuda", None, r.family))
    assert set(errors["torchvision"]) == {
        "torchvision:resnet18",
        "torchvision:mobilenet_v3_small",
        "torchvision:vit_tiny",
    }
    # predict's band is the same hold-out, family by family
    band = h200.pooled.family_out
    for r in found:
        assert band[r.family.label] == costmodel.Error.of(pooled(errors[r.family.name]))
    # and so are the benchmark's lines
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import cost_model_holdout

    lines, _ = cost_model_holdout.family_lines(h200.label, h200.recording)
    cnn = band["CNN"]
    assert f"family-out H200 cnn n={cnn.points} median x{cnn.median_factor:.2f} p90 x{cnn.p90_factor:.2f}" in "\n".join(
        lines
    )
