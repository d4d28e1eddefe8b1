"""What the Training page composes before it lays anything out (lib.lessons.training.scene): the machines
built from the packs, the modes offered with their words, one view's screens from the same inputs, and the
notes on live points. On the hand-made fixture packs (tests/training_fixture.py), whose answers are known."""

from __future__ import annotations

import pytest
from training_fixture import GPU_NAME, live_cpu, write_packs

from lib.core.point import Point
from lib.core.rows import Origin, Status
from lib.lessons.training import scene as C
from lib.lessons.training import screen as S
from lib.lessons.training import view as T
from lib.lessons.training.live_point import LivePoint
from lib.recorded import load_recordings


@pytest.fixture(scope="module")
def recordings(tmp_path_factory):
    found, problems = load_recordings(write_packs(tmp_path_factory.mktemp("scene_fixture")))
    assert not problems
    return found


def test_machines_are_the_gpu_pack_and_the_small_server_named_as_the_page_names_them(recordings):
    gpu_recording = next(r for r in recordings if r.machine.gpus)
    gpu, small = C.machines(gpu_recording, recordings, T.MLP_FAMILY)
    assert gpu.name == GPU_NAME and gpu.words.startswith(GPU_NAME) and set(gpu.tables) == {"cpu", "cuda"}
    assert small.name == "2-core server" and len(small.tables["cpu"]) > 0
    assert C.machines(None, recordings, T.MLP_FAMILY)[0] is None  # no GPU pack: no GPU machine, still the small server


def test_modes_recorded_are_plain_and_the_rest_are_said_to_be_predicted(recordings):
    gpu, _ = C.machines(next(r for r in recordings if r.machine.gpus), recordings, T.MLP_FAMILY)
    modes = C.mode_choice(gpu, live_gpu=False)
    assert modes.options == tuple(T.MODES)  # a GPU with a cost model answers every mode
    assert modes.labels["cuda_graph"] == T.mode_label("cuda_graph")  # recorded in the fixture
    assert modes.labels["fused"] == T.mode_label("fused") + " (predicted)"  # never recorded there
    assert C.mode_choice(None, live_gpu=False).options == (T.View.mode,)
    live = C.mode_choice(None, live_gpu=True)
    assert live.options == T.LIVE_MODES and not any("predicted" in w for w in live.labels.values())


def test_a_scene_composes_the_same_screens_as_compose_with_its_inputs(recordings):
    gpu, small = C.machines(next(r for r in recordings if r.machine.gpus), recordings, T.MLP_FAMILY)
    view = T.View(batch_size=100)
    scene = C.Scene(view, gpu, small, host_cpu=True, threads=1)
    assert scene.recorded().headline == S.compose(view, S.Machines(gpu, small_cpu=small, host_cpu=True)).headline
    live = [live_cpu({"batch_size": b}, 1e-3, 1e-5, 5, 100, epoch_s=0.1) for b in scene.grid]
    with_live = scene.with_live(live)
    assert (
        with_live.rows()
        == S.compose(view, S.Machines(gpu, small_cpu=small, host_cpu=True), live=live, grid=scene.grid, now=None).rows()
    )
    assert any(n.origin == Origin.LIVE for n in with_live.curves)
    assert view.current not in scene.grid  # 100 is off the live grid: the page measures it apart
    assert scene.fixed["mode"] == view.cpu_side().mode and "batch_size" not in scene.fixed


def test_live_notes_list_each_point_not_timed_or_with_a_message_and_nothing_when_clean():
    view = T.View()
    points = [
        LivePoint(Point.new("mlp", {"batch_size": 1024}, "cpu")),
        LivePoint(Point.new("mlp", {"batch_size": 2048}, "cpu").remarked("slow")),
        LivePoint(Point.new("mlp", {"batch_size": 4096}, "cpu").refused(Status.SKIPPED, "")),
    ]
    title, lines = C.live_notes(points, view)
    assert title == "Notes on 2 live points"
    assert lines[0] == "- batch size 2,048: slow" and lines[1] == "- batch size 4,096: skipped"
    assert C.live_notes(points[:1], view) is None


def test_the_downloaded_columns_put_the_swept_setting_third():
    assert C.result_columns("depth")[:3] == ("series", "recorded_on", "depth")
