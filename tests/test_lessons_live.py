"""The live-measurement policy's words (lib.lessons.common.live): what a visitor reads while a sweep runs and
when a point is refused. No Streamlit."""

from __future__ import annotations

from lib.lessons.common.live import LiveBudget, LiveSweep, live_sweep, work_refusal
from lib.workloads import get_workload

MLP = get_workload("mlp")


def test_progress_names_the_setting_in_words():
    messages = []
    live_sweep(
        LiveSweep(MLP, "batch_size", [8, 1024], {"dataset_size": 256, "hidden_width": 4096}, ["cpu"]),
        LiveBudget(0.01, num_threads=1, max_flops={"cpu": 1e9}),
        progress=lambda fraction, message: messages.append(message),
    )
    assert messages[:2] == ["measuring batch size 8 on cpu (1/2)", "measuring batch size 1,024 on cpu (2/2)"]
    assert not any("batch_size" in m for m in messages)


def test_a_refused_point_says_its_work_with_a_unit_that_fits():
    text = work_refusal(MLP, MLP.resolve({"batch_size": 16384, "hidden_width": 4096}), "cpu", {"cpu": 3e9})
    assert text.startswith("about ")
    assert " TFLOP per step, more than the 3 GFLOP a live run on cpu may take here" in text
