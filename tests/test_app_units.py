"""The app's pure pieces: chart builders, sentences, live sweeps, the lock, URL parsing, row matching."""

from __future__ import annotations

import json
import threading
import time

import altair as alt
import pandas as pd
import pytest

from lib.charts import (
    Crossover,
    SpeedupAxis,
    TimeLines,
    phase_chart,
    speedup_chart,
    speedup_frame,
    time_chart,
    time_unit,
)
from lib.core.crossover import CrossKind, analyse_rows
from lib.core.fmt import fmt_num, fmt_s, fmt_value
from lib.core.measure_lock import MeasureLock, overlapping
from lib.core.point import points_of
from lib.lessons.common import voice
from lib.lessons.common.explain import SplitSource, time_split
from lib.lessons.common.live import LiveBudget, LiveSweep, live_sweep, log_grid, work_refusal
from lib.lessons.common.verdict import Regime, split_sentence, verdict
from lib.recorded.sources import machine_text, matching_points, matching_rows, recorded_sweeps, series_label
from lib.workloads import get_workload
from ui.url_settings import nearest_choice, serialize

MLP = get_workload("mlp")


def rows_for(device: str, times: dict[int, float], series: str) -> list[dict]:
    """Result rows in the pack schema for a hand-written curve (chart and sentence tests only)."""
    return [
        {
            "workload": "mlp",
            "batch_size": x,
            "device": device,
            "median_s": t,
            "iqr_s": t / 10,
            "repeats": 5,
            "status": "ok",
            "message": "",
            "epoch_s": t * 10,
            "steps_per_epoch": 10,
            "flops": 1e6 * x,
            "swept": "batch_size",
            "series": series,
        }
        for x, t in times.items()
    ]


CPU = rows_for("cpu", {1: 1e-3, 10: 2e-3, 100: 1e-2, 1000: 1e-1}, "cpu (live, this server)")
GPU = rows_for("cuda:0", {1: 5e-3, 10: 5e-3, 100: 6e-3, 1000: 8e-3}, "cuda:0 (recorded on X, 2026-01-01)")


def spec(chart: alt.TopLevelMixin) -> str:
    return json.dumps(chart.to_dict(), ensure_ascii=False)


def test_time_chart_has_a_line_per_series_error_bars_and_the_crossover_rule():
    frame = pd.DataFrame(CPU + GPU)
    analysis = analyse_rows(CPU + GPU, "batch_size")
    assert analysis.measured.kind == "crosses" and 10 < analysis.measured.x < 100
    chart = time_chart(frame, TimeLines("batch_size", y="median_s"), crossover=Crossover(analysis.measured.x))
    text = spec(chart)
    assert "cpu (live, this server)" in text and "cuda:0 (recorded on X, 2026-01-01)" in text
    assert '"type": "log"' in text
    marks = [
        layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
        for layer in chart.to_dict()["layer"]
    ]
    assert marks.count("rule") == 2 and "line" in marks and "text" in marks  # IQR bars, crossover rule, its label
    assert "crossover" in text


def test_time_chart_without_rows_or_crossover_still_builds():
    empty = time_chart(pd.DataFrame(columns=["batch_size", "median_s", "series", "status"]), TimeLines("batch_size"))
    assert len(empty.to_dict()["layer"]) == 2
    skipped = pd.DataFrame([{**CPU[0], "status": "skipped", "median_s": None}])
    assert len(time_chart(skipped, TimeLines("batch_size")).to_dict()["layer"]) == 2


def test_speedup_frame_and_chart():
    frame = pd.DataFrame(CPU + GPU)
    speed = speedup_frame(frame, "batch_size", baseline=CPU[0]["series"], other=GPU[0]["series"])
    assert list(speed["batch_size"]) == [1, 10, 100, 1000]
    assert speed["speedup"].iloc[0] == pytest.approx(0.2) and speed["speedup"].iloc[-1] == pytest.approx(12.5)
    text = spec(speedup_chart(speed, SpeedupAxis("batch_size")))
    assert "1× : same speed" in text and "GPU faster" in text


def test_phase_chart_stacks_the_phases_present():
    frame = pd.DataFrame(
        [
            {"series": "cpu", "phase_compute_s": 6e-4, "phase_overhead_s": 1e-4},
            {"series": "cuda:0", "phase_transfer_s": 1e-4, "phase_compute_s": 2e-4, "phase_overhead_s": 3e-4},
        ]
    )
    text = spec(phase_chart(frame))
    assert "transfer (host → device)" in text and "µs" in text
    only_cpu = spec(phase_chart(frame.iloc[:1]))
    assert "transfer" not in only_cpu  # no legend entry for a phase that was not timed


def test_a_phase_bar_marks_its_whole_time_with_a_tick_where_the_phases_overlap_in_it():
    """Data pipeline (found on the H200's rows with 4 workers): the GPU's bar of loading + compute, timed apart,
    ended at 93 ms while the answer quoted its 58.5 ms epoch, a time no mark drew."""
    frame = pd.DataFrame(
        [
            {"series": "cpu", "phase_loading_s": 0.05, "phase_compute_s": 0.013, "median_s": 0.137},
            {"series": "cuda:0", "phase_loading_s": 0.083, "phase_compute_s": 0.0095, "median_s": 0.0585},
        ]
    )
    chart = phase_chart(frame, total="median_s", total_label="the whole epoch")
    ticks = next(layer for layer in chart.to_dict()["layer"] if layer["mark"]["type"] == "tick")
    data = chart.to_dict()["datasets"][ticks["data"]["name"]]
    assert sorted((d["series"], round(d["t"], 1)) for d in data) == [("cpu", 137.0), ("cuda:0", 58.5)]  # in ms
    assert "the whole epoch" in spec(chart)  # in the legend, beside the phases
    assert "layer" not in phase_chart(frame).to_dict()  # no total asked: the bars alone
    # seen on a 390 px phone (session 24): two columns of the four names ran past the screen's edge; one there
    legend = next(layer for layer in chart.to_dict()["layer"] if "color" in layer.get("encoding", {}))
    columns = legend["encoding"]["color"]["legend"]["columns"]
    assert columns == {"expr": "width < 500 ? 1 : 2"}, columns


def test_time_units():
    assert time_unit([2e-3, 5e-3]) == (1e-3, "ms")
    assert time_unit([3e-6]) == (1e-6, "µs")
    assert time_unit([]) == (1.0, "s")


def test_number_words():
    assert fmt_s(6.41e-4) == "641 µs" and fmt_s(0.0123) == "12.3 ms" and fmt_s(4.5) == "4.5 s"
    assert fmt_num(11403.2) == "11,400" and fmt_num(1.2345) == "1.23"
    assert fmt_value(16384.0) == "16,384" and fmt_value(True) == "on"


def test_versus_names_the_winner_and_a_tie_within_the_spread():
    cpu, gpu = voice.legend_side(voice.Unit.CPU, "cpu"), voice.legend_side(voice.Unit.GPU, "gpu")
    v = voice.versus(cpu, 2e-3, gpu, 1e-3)
    assert v.fast == gpu and v.ratio == 2.0 and not v.tie
    text = voice.faster_sentence(v)
    assert text.about is v and text.markdown().startswith("**gpu** is faster") and "2.00×" in text.markdown()
    assert text.plain().startswith("gpu is faster")  # the CLI's form: no markdown
    tie = voice.versus(cpu, 1.00e-3, gpu, 1.05e-3, spread_s=2e-4)
    said = voice.faster_sentence(tie).plain()
    # a tie leads with the tie and names no winner (the random views found "X is faster ... too close to
    # call" beside a live line with the other curve ahead where the gap is clear)
    assert tie.tie and said.startswith("cpu and gpu are too close to call") and "faster" not in said
    assert "1 ms per epoch on cpu against 1.05 ms on gpu" in said and "IQR up to 200 µs" in said


def crossover_sentence(found, setting: str, cpu: str, gpu: str) -> str:
    return voice.crossover_sentence(
        found, setting, voice.legend_side(voice.Unit.CPU, cpu), voice.legend_side(voice.Unit.GPU, gpu)
    ).markdown()


def test_crossover_sentence_reads_the_measured_points_only():
    both = analyse_rows(CPU + GPU, "batch_size")
    assert both.measured.kind == CrossKind.CROSSES
    assert "between batch size" in crossover_sentence(both, "batch size", "cpu", "gpu")
    slow_gpu = rows_for("cuda:0", {1: 1.0, 10: 1.0, 100: 1.0, 1000: 1.0}, "g")
    assert "does not catch up" in crossover_sentence(
        analyse_rows(CPU + slow_gpu, "batch_size"), "batch size", "cpu", "gpu"
    )
    assert "no GPU curve" in crossover_sentence(analyse_rows(CPU, "batch_size"), "batch size", "cpu", "gpu")
    one_shared = rows_for("cuda:0", {10: 1e-6}, "g")  # a live curve may share a single x with the other
    assert crossover_sentence(analyse_rows(CPU + one_shared, "batch_size"), "batch size", "cpu", "gpu") == (
        "**gpu** is faster than **cpu** at every batch size both curves have, which is only 10: "
        "one point cannot place a crossover."
    )


def test_one_split_of_the_step_feeds_the_bars_and_the_words():
    busy = {"device": "cuda:0", "median_s": 1e-3, "kernels": 40, "device_busy_s": 1e-4}
    split = time_split(busy)
    assert split.busy == 1e-4 and split.overhead == pytest.approx(9e-4) and split.source == SplitSource.PROFILE
    assert verdict(busy).regime == Regime.LAUNCH_BOUND
    text = split_sentence(busy, "cuda:0")
    assert "40 kernels" in text and "100 µs (10%)" in text and "other 900 µs the GPU waits" in text
    assert "22.5 µs per kernel" in text
    # busy most of the step, but no ceiling recorded: neither arithmetic nor memory is claimed
    assert verdict({**busy, "device_busy_s": 9e-4}).regime is None
    assert "cannot say whether memory or arithmetic" in split_sentence({**busy, "device_busy_s": 9e-4}, "cuda:0")
    predicted = {"device": "cuda:0", "median_s": 2e-3, "launch_share": 0.75}
    assert time_split(predicted).overhead == pytest.approx(1.5e-3) and "cost model" in split_sentence(predicted, "g")
    copied = {"device": "cuda:0", "median_s": 1e-3, "kernels": 10, "device_busy_s": 5e-4, "phase_transfer_s": 3e-4}
    assert time_split(copied).transfer == 3e-4 and time_split(copied).overhead == pytest.approx(2e-4)
    assert time_split({"device": "cpu", "median_s": 1e-3}) is None


def test_log_grid_spreads_points_and_keeps_the_current_value():
    steps = [2**i for i in range(15)]
    grid = log_grid(steps, 6, include=[64])
    assert grid[0] == 1 and grid[-1] == 2**14 and 64 in grid and 6 <= len(grid) <= 7
    assert 32 in log_grid(steps, 6, include=[32])
    assert log_grid([1, 2, 3], 6) == [1, 2, 3]


def test_work_cap_refuses_huge_steps_before_running_them():
    params = {"batch_size": 16384, "hidden_width": 4096}
    assert "GFLOP" in work_refusal(MLP, MLP.resolve(params), "cpu", {"cpu": 1e9})
    assert work_refusal(MLP, MLP.resolve({"batch_size": 8}), "cpu", {"cpu": 1e9}) is None


def test_live_sweep_measures_phases_and_kernels_only_at_the_current_point():
    seen = []
    points = live_sweep(
        LiveSweep(MLP, "batch_size", [8, 32], {"dataset_size": 256}, ["cpu"], current=32),
        LiveBudget(0.02, num_threads=1),
        progress=lambda f, m: seen.append(f),
    )
    assert [p.status for p in points] == ["ok", "ok"]
    first, current = points
    assert "compute" not in first.phases and first.counts.kernels is None
    assert (
        current.phases["compute"] > 0
        and current.counts.kernels > 10
        and 0 < current.counts.device_busy_s <= current.median_s
    )
    assert current.swept == "batch_size" and current.origin == "live"
    assert seen[-1] == 1.0 and seen == sorted(seen)


def test_live_sweep_turns_over_cap_points_into_skipped_rows():
    points = live_sweep(
        LiveSweep(MLP, "hidden_width", [16, 4096], {"batch_size": 64}, ["cpu"]),
        LiveBudget(0.02, num_threads=1, max_flops={"cpu": 1e9}),
    )
    assert points[0].status == "ok"
    refused = points[1]
    assert refused.status == "skipped" and "GFLOP" in refused.message and refused.settings["hidden_width"] == 4096


def test_lock_serialises_holders_tells_waiters_their_place_and_keeps_a_record():
    lock = MeasureLock()
    told = []
    started = threading.Event()

    def first():
        with lock.hold("first"):
            started.set()
            time.sleep(0.2)

    t = threading.Thread(target=first)
    t.start()
    started.wait()
    with lock.hold(
        "second", on_wait=lambda holder, place, waited: told.append((holder and holder.label, place)), poll_s=0.02
    ) as holding:
        assert holding.waited_s > 0.1 and holding.place == 1
    t.join()
    assert ("first", 1) in told and {place for _, place in told} == {1}  # told at every poll: first in line
    record = lock.record()
    assert [h.label for h in record] == ["first", "second"] and not overlapping(record)
    assert lock.holder() is None and lock.waiting() == 0


def test_the_line_is_first_come_first_served_and_a_visitor_who_leaves_frees_the_place():
    lock = MeasureLock()
    order, places = [], {}

    def visitor(name, leave=False):
        def on_wait(holder, place, waited):
            places.setdefault(name, set()).add(place)
            if leave and waited > 0.05:
                raise RuntimeError("the visitor left")  # what Streamlit does to a stopped script

        try:
            with lock.hold(name, on_wait=on_wait, poll_s=0.01):
                order.append(name)
        except RuntimeError:
            order.append(f"{name} left")

    with lock.hold("holder"):
        threads = []
        for name, leave in (("a", False), ("b", True), ("c", False)):
            threads.append(threading.Thread(target=visitor, args=(name, leave)))
            threads[-1].start()
            time.sleep(0.03)  # they arrive in this order
        time.sleep(0.15)
        assert lock.waiting() == 2  # b has given up its place; a and c still wait
    for th in threads:
        th.join()
    assert order == ["b left", "a", "c"]
    assert places["a"] == {1} and 2 in places["b"] and places["c"] >= {2}  # c moved up when b left
    assert lock.expected_wait_s() == 0.0 and lock.typical_hold_s() > 0


def test_lock_timeout():
    """A second holder gives up after its timeout. The outcome is carried out of the thread and
    asserted here: pytest.raises inside the thread would fail only that thread, and the test pass."""
    lock = MeasureLock()
    outcome: list[BaseException | str] = []

    def other():
        try:
            with lock.hold("b", timeout_s=0.05):
                outcome.append("held")
        except BaseException as exc:
            outcome.append(exc)

    with lock.hold("a"):
        t = threading.Thread(target=other)
        t.start()
        t.join(timeout=5)
    assert not t.is_alive() and len(outcome) == 1 and isinstance(outcome[0], TimeoutError)


def test_url_value_helpers():
    assert nearest_choice(100, [2**i for i in range(15)]) == 128
    assert nearest_choice(0.5, [1, 2, 4]) == 1
    assert serialize(True) == "true" and serialize(64) == "64" and serialize(8.0) == "8"


def test_matching_rows_and_groups():
    rows = [{**r, "hidden_width": 64, "depth": 3} for r in GPU] + [{**GPU[0], "hidden_width": 128, "depth": 3}]
    match = matching_rows(rows, MLP, "batch_size", {"batch_size": 64, "hidden_width": 64, "depth": 3})
    assert len(match) == 4
    assert matching_rows(rows, MLP, "batch_size", {"hidden_width": 256}) == []
    assert matching_rows(
        [{**r, "hidden_width": "64"} for r in GPU], MLP, "batch_size", {"hidden_width": 64}
    )  # CSV text
    assert matching_points(points_of(rows), MLP, "batch_size", {"hidden_width": 64}) == points_of(match)
    assert matching_points(points_of(rows), MLP, "batch_size", {"hidden_width": 256}) == []
    assert sorted(s.points for s in recorded_sweeps(points_of(rows), MLP)) == [1, 4]


def test_labels_say_where_numbers_come_from():
    assert series_label("cpu", "live") == "cpu (live, this server)"
    machine = {"gpus": ["NVIDIA H200", "NVIDIA H200"], "date": "2026-11-20T10:00:00+00:00"}
    assert machine_text(machine) == "2 × NVIDIA H200, 2026-11-20"
    assert (
        series_label("cuda:0", "recorded", machine_text(machine)) == "cuda:0 (recorded on 2 × NVIDIA H200, 2026-11-20)"
    )


def test_grid_rows_serve_a_sweep_over_any_of_their_settings():
    from lib.recorded.sources import sweeps_over

    grid = {"swept": "hidden_width,depth,batch_size", "batch_size": 4, "depth": 2, "hidden_width": 8}
    assert sweeps_over(grid, "depth") and sweeps_over(grid, "batch_size") and not sweeps_over(grid, "dataset_size")
    assert sweeps_over({"swept": "", "depth": 1}, "depth") and not sweeps_over({"swept": "depth"}, "depth")
    rows = [
        {
            **grid,
            "workload": "mlp",
            "device": "cuda:0",
            "batch_size": b,
            "status": "ok",
            "median_s": 1e-3,
            "iqr_s": 0.0,
            "repeats": 3,
            "message": "",
        }
        for b in (1, 2, 4)
    ]
    assert len(matching_rows(rows, MLP, "batch_size", {"depth": 2, "hidden_width": 8})) == 3
    assert len(matching_points(points_of(rows), MLP, "batch_size", {"depth": 2, "hidden_width": 8})) == 3
    assert not matching_points(points_of(rows), MLP, "dataset_size", {"depth": 2, "hidden_width": 8})
    assert recorded_sweeps(points_of(rows), MLP) == []  # a grid offers no single sweep to jump to


def test_a_list_reads_as_a_sentence_says_it():
    from lib.core.fmt import and_list

    assert and_list([]) == "" and and_list(["a"]) == "a" and and_list(["a", "b"]) == "a and b"
    assert and_list(["2026-11-21", "2026-11-23", "2026-11-24"]) == "2026-11-21, 2026-11-23 and 2026-11-24"


def test_a_curve_recorded_on_several_days_is_named_by_its_machine_alone():
    """Seen in chromium: with four recording days the Jacobian answer said 'vmap(jacrev) on the NVIDIA H200,
    2026-11-21, 2026-11-23 GPU': the days, now listed 'a, b and c', were cut at their last comma."""
    from lib.recorded.sources import series_label, without_days

    days = "NVIDIA H200, 2026-11-21, 2026-11-23, 2026-11-24 and 2026-11-27"
    assert without_days(days) == "NVIDIA H200" and without_days("NVIDIA H200") == "NVIDIA H200"
    assert voice.series_side(series_label("cuda:0", "recorded", days)).text == "the NVIDIA H200 GPU"
    assert (
        voice.series_side(series_label("cpu", "recorded", "NVIDIA H200, 2026-11-24")).text
        == "the NVIDIA H200 machine's CPU"
    )
