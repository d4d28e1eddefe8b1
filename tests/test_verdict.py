"""Four regimes, one story per point, and what to do about it (issue 23, items 3, 4 and 7).

Read from the shipped packs and timelines (lib/recorded/), with a hand-made 'stream' pack standing in
for the bandwidth ceiling where none is shipped. The defects the issue lists are the cases:
- batch 2 x width 4,096 (matrix-vector products, Adam over 34 M parameters) was called arithmetic;
- the H100's CUDA graph at batch 1 (61 tiny kernels, 86 % busy) was called arithmetic;
- at batch 4,096 / width 1,024 the split said busy 94 % and the timeline busy 38 %, waiting for the CPU,
  while its kernels started 89 µs after their launch calls (a queue) and the profiled step was 2.2x
  the timed one.
"""

from __future__ import annotations

import json

import pytest

from lib.charts.roofline import roofline_chart
from lib.core.fmt import fmt_ratio, pct
from lib.core.point import Frozen, Point
from lib.core.rows import Origin
from lib.core.step_timeline import Figures, GpuBusy, Timeline
from lib.lessons.common.switch import switch_sentence
from lib.lessons.common.verdict import Fix, Regime, roofline_points, split_sentence, verdict
from lib.lessons.training.live_point import LivePoint
from lib.lessons.training.step_point import DayEpoch, StepPoint
from lib.lessons.training.timeline_words import timeline_sentence
from lib.recorded import RECORDED_DIR, load_recordings
from lib.recorded.ceilings import ceilings_for
from lib.recorded.timelines import find_timeline, load_timelines
from lib.workloads.execution import graphed

H200, H100 = "NVIDIA H200", "NVIDIA H100 80GB HBM3"
TB = 1e12


@pytest.fixture(scope="module")
def packs():
    return [r.pack for r in load_recordings(RECORDED_DIR)[0]]  # the verdict and the ceilings read pack dicts


def stream_pack(machine: str, rate: float, date: str = "2099-01-01") -> dict:
    """A hand-made pack of one 'stream' row (rec's workload: bytes read + written per call)."""
    row = {
        "workload": "stream",
        "device": "cuda:0",
        "device_name": machine,
        "status": "ok",
        "bytes": 2e9,
        "median_s": 2e9 / rate,
        "machine": f"{machine} ({date})",
    }
    return {"path": "fixture/stream.json", "machine": {"gpus": [machine], "date": date}, "rows": [row]}


def no_stream(packs) -> list[dict]:
    """The packs without any stream rows: the bandwidth ceiling not recorded, whatever ships."""
    return [p for p in packs if not any(r.get("workload") == "stream" for r in p["rows"])]


def step(packs, machine: str, mode: str, batch: int, width: int, **switches) -> dict:
    """The profiled recorded row of one step (depth 3, the page's other settings)."""
    want = {"data_resident": True, "item_every_step": False, **switches}
    for pack in packs:
        for r in pack["rows"]:
            if (
                r.get("workload") == "mlp"
                and r.get("device_name") == machine
                and r.get("mode") == mode
                and r.get("batch_size") == batch
                and r.get("hidden_width") == width
                and r.get("depth") == 3
                and r.get("kernels")
                and r.get("status") == "ok"
                and all(r.get(k, v) == v for k, v in want.items())
            ):
                return r
    raise LookupError((machine, mode, batch, width))


def test_ceilings_are_the_best_synchronised_matmul_never_a_launch_timed_alone(packs):
    for machine in (H200, H100):
        c = ceilings_for(machine, packs)
        # the unsynchronised rows of the same packs read hundreds of PFLOP/s: they time the launch
        assert 45 * TB < c.flops_per_s < 70 * TB, c
        assert c.tf32_flops_per_s > 5 * c.flops_per_s and "TF32 matmul" in c.tf32_from
        assert "fp32 matmul at size " in c.flops_from and c.date[:4] == "2026"
    assert ceilings_for("NVIDIA B200", packs) is None  # nothing recorded there: no guessed vendor number
    assert ceilings_for(f"{H200}, 2026-11-23", packs).machine == H200


def test_bandwidth_comes_from_the_stream_rows_only(packs):
    shipped = ceilings_for(H200, packs)
    assert shipped.bytes_per_s is None or "stream" in shipped.bytes_from
    with_stream = ceilings_for(H200, [*packs, stream_pack(H200, 9.9 * TB)])
    assert with_stream.bytes_per_s == pytest.approx(9.9 * TB) and "recorded 2099-01-01" in with_stream.bytes_from
    assert "stream (read + write) of 2 GB a call" in with_stream.bytes_from
    assert with_stream.ridge == pytest.approx(with_stream.flops_per_s / (9.9 * TB))
    cached = stream_pack(H200, 20 * TB)
    cached["rows"][0].update(bytes=16e6, median_s=16e6 / (20 * TB))  # 16 MB a call fits the L2 cache: not memory
    assert ceilings_for(H200, [*packs, cached]).bytes_per_s == shipped.bytes_per_s
    not_ok = stream_pack(H200, 99 * TB)
    not_ok["rows"][0]["status"] = "skipped"
    assert ceilings_for(H200, [*packs, not_ok]).bytes_per_s == shipped.bytes_per_s


def test_batch_2_width_4096_is_not_arithmetic_nor_memory_below_its_roof(packs):
    """Issue 37 changed the second half: at 4.2 TB/s the step's 1.08 GB counted in 2.11 ms is 0.51 TB/s, 12 %
    of the bandwidth roof, so it is below both roofs (it was called memory-bound for its flop per byte alone).
    Memory-bound is said where the bytes do come near the roof: here, a bandwidth of 1.2 TB/s (43 %)."""
    row = step(packs, H200, "eager", 2, 4096)
    without = verdict(row, ceilings_for(H200, no_stream(packs)))
    assert without.regime is None  # no bandwidth recorded: it cannot say memory, and it never says arithmetic
    words = split_sentence(row, "GPU", without.ceilings)
    assert "bandwidth was not recorded" in words and "compute-bound" not in words and "arithmetic)" not in words
    c = ceilings_for(H200, [*packs, stream_pack(H200, 4.2 * TB)])
    v = verdict(row, c)
    assert v.regime == Regime.BELOW_ROOFS and v.memory_share < 0.3 and v.fix == Fix.BIGGER_BATCH
    words = split_sentence(row, "GPU", c)
    assert "memory-bound" not in words and "compute-bound" not in words and "below both roofs" in words
    assert "least the step must touch" in words and "bigger batch" in words
    slow = ceilings_for(H200, [*no_stream(packs), stream_pack(H200, 1.2 * TB)])
    v = verdict(row, slow)
    assert v.regime == Regime.MEMORY_BOUND and v.intensity < slow.ridge and v.fix == Fix.BIGGER_BATCH
    words = split_sentence(row, "GPU", slow)
    assert "memory-bound" in words and "flop per byte" in words and "bigger batch" in words


def test_a_cuda_graph_at_batch_1_is_kernel_latency(packs):
    for machine in (H100, H200):
        row = step(packs, machine, "cuda_graph", 1, 64)
        for c in (ceilings_for(machine, packs), ceilings_for(machine, [*packs, stream_pack(machine, 3 * TB)])):
            v = verdict(row, c)
            assert v.regime == Regime.KERNEL_LATENCY, (machine, v)
            assert v.fix == Fix.BIGGER_BATCH  # never 'a CUDA graph': it is one already
            assert "kernel-latency-bound" in split_sentence(row, "GPU", c)


def test_eager_batch_1_is_launch_bound_and_big_steps_are_compute_bound(packs):
    for machine in (H100, H200):
        c = ceilings_for(machine, packs)
        small = verdict(step(packs, machine, "eager", 1, 64), c)
        assert small.regime == Regime.LAUNCH_BOUND and small.fix == Fix.CUDA_GRAPH
        big = verdict(step(packs, machine, "eager", 65536, 1024), c)
        assert big.regime == Regime.COMPUTE_BOUND and big.fix == Fix.LOWER_PRECISION


def test_the_fix_is_never_a_change_already_on(packs):
    c = {m: ceilings_for(m, [*packs, stream_pack(m, 3 * TB)]) for m in (H100, H200)}
    seen = set()
    for pack in packs:
        for r in pack["rows"]:
            if r.get("workload") != "mlp" or r.get("status") != "ok":
                continue
            v = verdict(r, c.get(r.get("device_name")))
            if v is None or v.fix is None:
                continue
            seen.add(v.fix)
            already_on = {
                Fix.CUDA_GRAPH: graphed(r.get("mode")),
                Fix.NO_ITEM: not r.get("item_every_step"),
                Fix.DATA_ON_DEVICE: r.get("data_resident", True),
                Fix.BIGGER_BATCH: r["batch_size"] >= r["dataset_size"],
                Fix.FUSE: str(r.get("mode", "")).startswith("compile"),
            }
            assert not already_on.get(v.fix), (v.fix, r)
    assert {Fix.CUDA_GRAPH, Fix.BIGGER_BATCH, Fix.LOWER_PRECISION} <= seen  # item() rows carry no profile


def test_item_every_step_and_copied_batches_name_their_own_fix():
    base = {
        "device": "cuda:0",
        "median_s": 1e-3,
        "kernels": 40,
        "device_busy_s": 1e-4,
        "batch_size": 64,
        "dataset_size": 8192,
        "mode": "eager",
    }
    assert verdict({**base, "item_every_step": True}).fix == Fix.NO_ITEM
    copied = {**base, "data_resident": False, "phase_transfer_s": 6e-4}
    assert verdict(copied).fix == Fix.DATA_ON_DEVICE
    assert verdict({**base, "mode": "cuda_graph"}).fix == Fix.BIGGER_BATCH
    assert verdict({**base, "mode": "cuda_graph", "batch_size": 8192}).fix is None
    cpu = verdict({**base, "device": "cpu"})
    assert cpu.regime == Regime.LAUNCH_BOUND and "the CPU pays it too" in split_sentence({**base, "device": "cpu"}, "C")


def test_one_story_per_point_the_timeline_reads_the_timed_step(packs):
    row = step(packs, H200, "eager", 4096, 1024)
    entry = find_timeline(
        load_timelines()[0],
        "mlp",
        {**row, "mode": "eager"},
        device_kind="cuda",
        hardware=H200,
        keys=("batch_size", "hidden_width", "depth", "mode"),
    )
    timed = {**row, "origin": "recorded", "dataset_size": 65536}
    text = timeline_sentence(entry, "GPU", LivePoint(Point.from_row(timed)))
    split = split_sentence(timed, "GPU", ceilings_for(H200, packs))
    slower = fmt_ratio(entry.figures.step_us / 1e6 / row["median_s"])  # profiled over timed
    assert f"the profiler made this step {slower} slower" in text and "the times above are the unprofiled ones" in text
    assert "waited in a queue" in text and "the GPU, not the CPU, set the pace" in text
    assert "waiting for the CPU" not in text
    share = pct(min(row["device_busy_s"], row["median_s"]) / row["median_s"])  # the timed step's own busy share
    assert f"busy {share} of the step" in text and f"({share})" in split  # the same share in both
    assert "the profiler adds a little" not in text.lower()
    # a predicted point is not the step the profiler ran: no ratio against it
    assert "slower" not in timeline_sentence(entry, "GPU", LivePoint(Point.from_row({**timed, "origin": "predicted"})))
    # nor a step with other switches on
    assert "slower" not in timeline_sentence(
        entry, "GPU", LivePoint(Point.from_row({**timed, "item_every_step": True}))
    )


def test_an_eager_step_with_nothing_queued_waits_for_the_cpu(packs):
    entry = find_timeline(
        load_timelines()[0],
        "mlp",
        {"batch_size": 64, "hidden_width": 64, "depth": 3, "mode": "eager"},
        device_kind="cuda",
        hardware=H200,
    )
    text = timeline_sentence(entry, "GPU")
    assert "waiting for the CPU to launch the next one" in text and "nothing was queued" in text


def test_the_roofline_is_log_log_with_both_ceilings_and_where_they_came_from(packs):
    rows = [
        {**step(packs, H200, m, b, w), "origin": "recorded"}
        for m, b, w in (("eager", 1, 64), ("eager", 2, 4096), ("eager", 4096, 1024), ("cuda_graph", 1, 64))
    ]
    for with_stream in (False, True):
        c = ceilings_for(H200, [*no_stream(packs), stream_pack(H200, 4.2 * TB)] if with_stream else no_stream(packs))
        points = roofline_points(rows, c, "batch_size", current=4096)
        assert len(points) == 4 and sum(p.current for p in points) == 1
        assert {p.regime for p in points} >= {Regime.LAUNCH_BOUND, Regime.KERNEL_LATENCY, Regime.COMPUTE_BOUND}
        spec = json.loads(json.dumps(roofline_chart(points, c, x_title="batch size").to_dict()))
        scales = [layer["encoding"][axis]["scale"]["type"] for layer in spec["layer"] for axis in ("x", "y")]
        assert set(scales) == {"log"}
        roof_rows = spec["datasets"][spec["layer"][0]["data"]["name"]]
        roofs = {d["roof"] for d in roof_rows}
        assert roofs == (
            {"fp32 arithmetic", "TF32 arithmetic", "memory bandwidth"}
            if with_stream
            else {"fp32 arithmetic", "TF32 arithmetic"}
        )
        # each roof names its own recording's day on the chart itself (the words quote it)
        days = {d["roof"]: d["recorded"] for d in roof_rows}
        assert days["fp32 arithmetic"] == f"{H200}, {c.date}" and days["TF32 arithmetic"] == f"{H200}, {c.tf32_date}"
        subtitle = " ".join(spec["title"]["subtitle"])
        assert H200 in subtitle and f"matmul, {c.date}" in subtitle
        assert ("stream, 2099-01-01" in subtitle) if with_stream else ("bandwidth: not recorded" in subtitle)


@pytest.mark.cpu_view
@pytest.mark.slow
def test_the_training_page_tells_one_story_of_the_step(monkeypatch):
    """On the shipped packs: the split, the timeline and the roofline of batch 4,096 / width 1,024 on the
    H200 agree; batch 2 / width 4,096 is not called arithmetic."""
    from app_support import open_page, page_text

    from ui.step_story import SPLIT_KEY, TIMELINE_KEY

    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")
    at = open_page("pages/training.py", {"gpu": "nvidia-h200", "batch_size": "4096", "hidden_width": "1024"})
    at.session_state[TIMELINE_KEY] = True  # the timeline's and the split's expanders opened: they run only while open
    at.session_state[SPLIT_KEY] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    text = page_text(at)
    gpu = [line for line in text.splitlines() if line.startswith("**GPU · H200")]
    row = step([r.pack for r in load_recordings()[0]], H200, "eager", 4096, 1024)
    entry = find_timeline(
        load_timelines()[0],
        "mlp",
        {**row, "mode": "eager"},
        device_kind="cuda",
        hardware=H200,
        keys=("batch_size", "hidden_width", "depth", "mode"),
    )
    slower = fmt_ratio(entry.figures.step_us / 1e6 / row["median_s"])
    share = pct(min(row["device_busy_s"], row["median_s"]) / row["median_s"])
    assert any(f"({share})" in line and "compute-bound" in line for line in gpu), gpu
    assert any(
        f"{slower} slower" in line and f"busy {share} of the step" in line and "queue" in line for line in gpu
    ), gpu
    assert not any("waiting for the CPU" in line for line in gpu)
    specs = [e.proto.spec for e in at.get("vega_lite_chart")]
    assert any("Each step under the GPU" in s for s in specs)
    at = open_page("pages/training.py", {"gpu": "nvidia-h200", "batch_size": "2", "hidden_width": "4096"})
    gpu = [line for line in page_text(at).splitlines() if line.startswith("**GPU · H200")]
    assert gpu and not any("arithmetic (" in line or "compute-bound" in line for line in gpu), gpu


def test_a_switch_without_a_profile_is_priced_against_the_same_step_without_it():
    plain = {"status": "ok", "device": "cuda:0", "median_s": 1.0e-3, "iqr_s": 2e-5}
    item = {**plain, "median_s": 1.5e-3, "item_every_step": True}
    text = switch_sentence(item, plain, "GPU")
    assert "1.5 ms with loss.item() every step, against 1 ms" in text and "500 µs it adds" in text
    assert "What would move it: drop the loss.item()" in text
    copied = {**plain, "median_s": 1.2e-3, "data_resident": False, "pin_memory": True}
    assert "keep the data on the device" in switch_sentence(copied, plain, "GPU")
    assert "costs about nothing" in switch_sentence({**item, "median_s": 1.03e-3}, plain, "GPU")  # inside the spread
    assert switch_sentence(plain, plain, "GPU") is None  # no switch on: nothing to price
    assert switch_sentence(item, None, "GPU") is None


def test_a_step_held_by_its_copy_is_not_called_launch_bound_in_words():
    row = {
        "device": "cuda:0",
        "median_s": 1e-3,
        "kernels": 10,
        "device_busy_s": 2e-4,
        "phase_transfer_s": 6e-4,
        "data_resident": False,
        "batch_size": 64,
        "dataset_size": 8192,
        "mode": "eager",
    }
    text = split_sentence(row, "GPU")
    assert "600 µs is copying the batch in" in text and "launch-bound" not in text
    assert "keep the data on the device" in text and text.count("copying the batch in") == 1


def test_a_timeline_that_missed_most_kernels_says_its_picture_is_incomplete():
    entry = Timeline(
        "mlp",
        Frozen({"mode": "cuda_graph", "batch_size": 8192, "hidden_width": 64, "depth": 3}),
        "cuda:0",
        figures=Figures(
            step_us=250.0,
            operators=0.0,
            launches=0.0,
            syncs=0.0,
            gpu=GpuBusy(kernels=2.0, busy_us=2.5, busy_fraction=0.01, idle_between_us=26.0, launch_delay_us=247.0),
        ),
    )
    timed = {
        "workload": "mlp",
        "device": "cuda:0",
        "status": "ok",
        "median_s": 2.1e-4,
        "kernels": 68,
        "batch_size": 8192,
        "dataset_size": 65536,
        "hidden_width": 64,
        "depth": 3,
        "mode": "cuda_graph",
        "origin": "recorded",
    }
    said = timeline_sentence(entry, "GPU", LivePoint(Point.from_row(timed)))
    assert "saw only 2 kernels of the 68 counted when this step was timed" in said
    assert "saw only" not in timeline_sentence(entry, "GPU", LivePoint(Point.from_row({**timed, "kernels": 3})))


def test_the_profiled_step_is_compared_with_the_timed_step_of_its_own_day(packs):
    row = step(packs, H200, "eager", 4096, 1024)
    entry = find_timeline(
        load_timelines()[0],
        "mlp",
        {**row, "mode": "eager"},
        device_kind="cuda",
        hardware=H200,
        keys=("batch_size", "hidden_width", "depth", "mode"),
    )
    day = entry.recorded_day
    timed = {
        **row,
        "origin": "recorded",
        "dataset_size": 65536,
        "steps_per_epoch": 16,
        "median_s": 1e-3,
        "machine": "NVIDIA H200 (2099-01-01)",
    }
    point = Point.from_row(timed)
    other_day = timeline_sentence(entry, "GPU", LivePoint(point))
    assert "against 1 ms timed without it, on NVIDIA H200 (2099-01-01): another day" in other_day
    by_day = (DayEpoch(f"NVIDIA H200 ({day})", 16 * 1.7e-3), DayEpoch("NVIDIA H200 (2099-01-01)", 16e-3))
    both = StepPoint(
        point.workload,
        point.settings,
        point.device,
        point.machine,
        16,
        1e-3,
        0.0,
        1,
        16e-3,
        Origin.RECORDED,
        "",
        by_recording=by_day,
    )  # a step recorded on two days, each day's epoch kept
    assert "against 1.7 ms timed without it)" in timeline_sentence(entry, "GPU", both)
