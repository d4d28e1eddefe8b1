"""A new Training family read through the whole lesson once it has recorded GPU rows: its steps keyed by
its own sliders, its GPU curve recorded where recorded and predicted elsewhere by the machine's cost model
(its terms from the traced step, lib.workloads.traced), and the answer from the same sentences as the MLP's.

No GPU here: the 'GPU' rows are the CPU's own, measured by the real CLI sweep and renamed cuda:0 (as
tests/app_support.py's fixture does); the machine is named TEST FIXTURE, never shipped."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lib.core.rows import Origin, Status
from lib.lessons.training import screen as S
from lib.lessons.training import step_tables
from lib.lessons.training import view as T
from lib.recorded.recording import recording_of
from lib.workloads import cnn

FIXTURE = "TEST FIXTURE (CPU rows renamed cuda:0)"


@pytest.fixture(scope="module")
def cnn_pack(tmp_path_factory):
    out = tmp_path_factory.mktemp("cnn") / "cnn.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "lib",
            "sweep",
            "cnn",
            "--over",
            "channels=4,8",
            "--over",
            "depth=1,2",
            "--over",
            "batch_size=1,4,16,64",
            "--set",
            "dataset_size=64",
            "--devices",
            "cpu",
            "--profile",
            "--budget",
            "0.02",
            "--threads",
            "1",
            "--no-phases",
            "--quiet",
            "--out",
            str(out),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    pack = json.loads(out.read_text())
    rows = [{**r, "machine": FIXTURE} for r in pack["rows"]]
    pack["rows"] = rows + [{**r, "device": "cuda:0", "device_name": FIXTURE} for r in rows]
    pack["machine"] = {**pack["machine"], "gpus": [FIXTURE], "label": FIXTURE}
    return pack


@pytest.mark.slow  # the sweep: 16 CNN steps timed and profiled on the CPU, about 20-40 s on a shared 2-core box
def test_a_recorded_cnn_draws_a_gpu_curve_recorded_and_predicted_with_its_band_and_one_answer(cnn_pack):
    recording = recording_of(cnn_pack)
    tables = step_tables.tables(recording, FIXTURE, cnn.FAMILY)
    assert len(tables["cuda"]) == 16 and not len(
        step_tables.tables(recording, FIXTURE)["cuda"]
    )  # the MLP's table: none
    gpu = S.Machine(tables, FIXTURE, FIXTURE)
    cpu = S.Machine(tables, "2-core server", FIXTURE)
    recorded = S.compose(
        T.View(family=cnn.FAMILY, channels=4, depth=1, dataset_size=256), S.Machines(gpu, small_cpu=cpu)
    )
    points = recorded.curves[recorded.gpu_label]
    assert Origin.DERIVED in {p.origin for p in points}  # steps recorded at 64 images, times the steps of 256
    # a depth nobody recorded: every point predicted from the traced terms, with its band
    view = T.View(family=cnn.FAMILY, channels=4, depth=3, dataset_size=256)
    screen = S.compose(view, S.Machines(gpu, small_cpu=cpu))
    predicted = screen.curves[screen.gpu_label]
    assert screen.gpu_label.origin is Origin.PREDICTED and predicted
    assert all(p.band.low < p.epoch_s < p.band.high and "predicted from" in p.origin_note for p in predicted)
    assert screen.headline and screen.headline.count("**") >= 4  # one sentence naming both curves
    # in CUDA-graph mode too: never recorded here, priced from its counted terms
    graphed = S.compose(
        T.View(family=cnn.FAMILY, channels=4, depth=1, dataset_size=256, mode="cuda_graph"),
        S.Machines(gpu, small_cpu=cpu),
    )
    assert "cuda_graph" in T.modes_answered(tables["cuda"])
    assert graphed.curves[graphed.gpu_label] and graphed.gpu_label.origin is Origin.PREDICTED


def test_an_empty_cpu_curve_is_said_as_empty_with_what_the_gpu_has():
    """Issue 38: every live CPU point refused (a torchvision network at 224 pixels) read 'Too few points were
    measured on both devices'; the GPU had ten. The answer says each side's, and why the CPU's is empty."""
    from curve_points import live, step

    from lib.lessons.training import words as W

    view = T.View(family=T.BY_NAME["torchvision"], image_size=224)
    refused = [live(b, status=Status.SKIPPED, message="over the live limits") for b in (1, 4, 16)]
    gpu = [step(1e-3 * b, batch_size=b, steps_per_epoch=10, origin=Origin.PREDICTED) for b in (1, 4, 16)]
    said, notes = W.headline(refused, gpu, view, "CPU · live", "GPU · H200")
    assert (
        said.markdown()
        == (
            "The CPU has no points here: every step is over this server's live limits; "
            "**GPU · H200** has 3 points, from batch size 1 to 16."
        )
        and not notes
    )
    failed = [live(b, status=Status.ERROR, message="RuntimeError") for b in (1, 4, 16)]
    assert "none of its steps was measured" in W.headline(failed, gpu, view, "CPU · live", "GPU · H200")[0].markdown()
    # both curves with points: the crossover's words, as before
    cpu = [live(b, 1e-2 * b, 1e-1 * b) for b in (1, 4, 16)]
    assert "has no points" not in W.headline(cpu, gpu, view, "CPU · live", "GPU · H200")[0].markdown()
