"""The one-sentence answers at the top of the pages (lib.lessons.<page>.answer), on hand-written rows: every
number in a sentence is read from the rows, and no sentence claims what the rows do not show. No Streamlit."""

from __future__ import annotations

import pytest
from made_rows import jacobian_rows, matmul_rows

from lib.core.crossover import CrossKind
from lib.core.fmt import Strong, fmt_value, say
from lib.core.point import points_of
from lib.core.rows import Origin
from lib.lessons.common import answers, onscreen, voice
from lib.lessons.data_pipeline import screen as feeds
from lib.lessons.data_pipeline.answer import pipeline_answer, pipeline_notes
from lib.lessons.gallery.answer import gallery_answer, gallery_notes
from lib.lessons.gallery.view import OWN_CPU, OWN_GPU, gallery_comparison, shipped_machines
from lib.lessons.jacobian.answer import jacobian_answer, jacobian_notes
from lib.lessons.jacobian.points import MethodPoint
from lib.lessons.multi_gpu import scaling
from lib.lessons.multi_gpu.answer import scaling_answer
from lib.lessons.timing import view as timing
from lib.lessons.timing.answer import rate_words, timing_answer, timing_notes
from lib.lessons.your_results import compare
from lib.lessons.your_results.answer import machines_answer
from lib.lessons.your_results.compare import compare_machines
from lib.recorded.gallery.entry import shipped_gallery_packs
from lib.recorded.recording import recording_of
from lib.recorded.sources import series_label

CPU = series_label("cpu", Origin.LIVE)
GPU = series_label("cuda:0", Origin.RECORDED, "X")


def test_curves_are_named_in_plain_words_in_a_sentence():
    assert answers.who(CPU) == "this server's CPU"
    h200 = "NVIDIA H200, 2026-11-21"
    assert answers.who(series_label("cuda:0", Origin.RECORDED, h200)) == "the NVIDIA H200 GPU"
    assert answers.who(series_label("cpu", Origin.RECORDED, h200)) == "the NVIDIA H200 machine's CPU"
    assert answers.who(series_label("cuda:0", Origin.RECORDED, "TEST (CPU rows renamed cuda:0), 2026-11-21")) == (
        "the TEST (CPU rows renamed cuda:0) GPU"
    )
    assert answers.who(series_label("cuda:0", Origin.LIVE)) == "this server's GPU"
    assert say(Strong("the X GPU"), " wins").capitalised().markdown() == "**The X GPU** wins"


def test_rates_are_plain_words_first_and_the_unit_after():
    assert rate_words(45.1e9) == "45.1 billion operations per second (45.1 GFLOP/s)"
    assert rate_words(2.5e12) == "2.5 trillion operations per second (2.5 TFLOP/s)"
    assert rate_words(812.0) == "812 operations per second (812 FLOP/s)"


# -- Jacobian ----------------------------------------------------------------------------------------------
def jac(series: str, device: str, method: str, times: dict[int, float | None]) -> list[MethodPoint]:
    return [MethodPoint.of_row(r) for r in jacobian_rows(series, device, method, times)]


def test_jacobian_answer_sets_the_fastest_method_against_the_seeds_loop():
    rows = (
        jac(CPU, "cpu", "loop", {10: 0.5, 100: 2.0})
        + jac(GPU, "cuda:0", "loop", {10: 0.4, 100: 1.0})
        + jac(CPU, "cpu", "vmap_jacfwd", {10: 1e-3, 100: 2e-3})
        + jac(GPU, "cuda:0", "vmap_jacfwd", {10: 2e-3, 100: 4e-3})
    )
    text = jacobian_answer(rows, 100, ["loop", "vmap_jacfwd"])
    # 500× between the methods, 2× at most between the devices: the answer up top, the rest under the chart
    assert text == (
        "With 100 inputs in the batch (val = 100), vmap(jacfwd) on this server's CPU takes 2 ms: **500× "
        "faster** than the seed's loop at its best."
    )
    assert jacobian_notes(rows, 100, ["loop", "vmap_jacfwd"]) == (
        "The seed's loop at its best: 1 s on the X GPU; the devices differ by 2.00× at most: the method matters "
        "more than the device."
    )
    # one device only: nothing on screen compares the devices, so nothing is claimed about them
    cpu_only = [p for p in rows if p.device == "cpu"]
    assert "the method matters more" not in jacobian_notes(cpu_only, 100, ["loop", "vmap_jacfwd"])


def test_jacobian_answer_says_why_the_loop_is_missing_and_what_to_pick():
    rows = jac(CPU, "cpu", "loop", {100: None}) + jac(CPU, "cpu", "vmap_jacrev", {100: 3e-3})
    text = jacobian_answer(rows, 100, ["loop", "vmap_jacrev"])
    assert text == (
        "With 100 inputs in the batch (val = 100), the fastest method timed is vmap(jacrev) on this server's CPU: 3 ms."
    )
    assert jacobian_notes(rows, 100, ["loop", "vmap_jacrev"]) == (
        "The seed's loop was not timed at this size here (too many backward passes or too much memory)."
    )
    assert "Add the loop below" in jacobian_notes(rows[1:], 100, ["vmap_jacrev"])
    assert jacobian_answer(rows, 100, []) == "Pick at least one method below to see its curve."
    assert jacobian_answer(rows, 1000, ["loop"]).startswith(
        "With 1,000 inputs in the batch (val = 1,000) nothing was timed here"
    )
    assert jacobian_answer(rows, 1, ["loop"]).startswith("With 1 input in the batch (val = 1)")


# -- Timing pitfalls ----------------------------------------------------------------------------------------
HONEST = timing.BASELINE
NAIVE = timing.Variant(sync=False)


def mm(device: str, times: dict[int, float], **variant) -> list[dict]:
    return matmul_rows(device, times, **variant)


def found(gpu: dict[str, list[dict]]) -> onscreen.RecordedViews:
    return onscreen.RecordedViews(gpu=gpu, cpu={}, holds_workload=True)


def test_timing_answer_on_the_cpu_alone_says_what_a_matmul_takes_and_what_cannot_be_shown():
    view = timing.screen(
        HONEST, timing.live_points({"synchronised, fp32": mm("cpu", {512: 0.01, 1024: 0.08})}), found({}), None
    )
    text = timing_answer(view, 1024)
    assert text == (
        "On this server's CPU a 1,024 × 1,024 matmul takes 80 ms; with no GPU curve here, the GPU's "
        "timing traps cannot be shown."
    )
    # the rate, under the chart (issue 37: one short sentence up top)
    assert timing_notes(view, 1024) == "That is 26.8 billion operations per second (26.8 GFLOP/s)."


def test_timing_answer_with_a_gpu_says_how_far_off_the_naive_timer_is_and_the_notes_where_the_gpu_catches_up():
    live = {
        "naive timer (no synchronise), fp32": mm("cpu", {256: 1e-3, 1024: 0.08}, sync=False),
        "synchronised, fp32": mm("cpu", {256: 1e-3, 1024: 0.08}),
    }
    recorded = found(
        {
            "naive timer (no synchronise), fp32": mm("cuda:0", {256: 1e-5, 1024: 1e-5}, sync=False),
            "synchronised, fp32": mm("cuda:0", {256: 2e-3, 1024: 4e-3}),
        }
    )
    naive = timing.screen(NAIVE, timing.live_points(live), recorded, "X")
    assert timing_answer(naive, 1024) == (
        "On the X GPU, a timer that does not wait for it reports 10 µs per 1,024 × 1,024 matmul, "
        "**400× too small**: the work takes 4 ms."
    )
    honest = timing.screen(
        HONEST,
        timing.live_points({"synchronised, fp32": live["synchronised, fp32"]}),
        found({"synchronised, fp32": recorded.gpu["synchronised, fp32"]}),
        "X",
    )
    # synchronised: what the page teaches first, the crossover under the chart
    assert timing_answer(honest, 1024) == (
        "With **Synchronise** on, the X GPU takes 4 ms per 1,024 × 1,024 matmul; "
        "switch it off below to see what a naive timer reports."
    )
    analysis, _ = timing.crossovers(honest)
    assert analysis.measured.kind == CrossKind.CROSSES and analysis.measured.sure == (256, 1024)
    assert (
        timing_notes(honest, 1024)
        == voice.crossover_sentence(analysis, "matrix size", voice.series_side(CPU), voice.series_side(GPU))
        .capitalised()
        .markdown()
    )
    # no CPU curve drawn (this server's CPU refused): the GPU curve is there, the CPU's is what is missing
    gpu_only = timing.screen(HONEST, {}, found({"synchronised, fp32": recorded.gpu["synchronised, fp32"]}), "X")
    assert timing_notes(gpu_only, 1024) == (
        "There is no curve for this server's CPU on screen, so there is no crossover to show."
    )


def test_timing_answer_sets_the_naive_timer_against_the_same_view_synchronised():
    """With the copy counted, the naive timer is read against the synchronised timing with the copy counted
    (drawn beside it), not against the honest baseline without the copy."""
    copy, copy_naive = timing.Variant(transfer=True), timing.Variant(sync=False, transfer=True)
    recorded = found(
        {
            "naive timer (no synchronise), fp32, copy counted": mm("cuda:0", {1024: 1e-5}, **copy_naive.settings()),
            "synchronised, fp32, copy counted": mm("cuda:0", {1024: 2e-3}, **copy.settings()),
            "synchronised, fp32": mm("cuda:0", {1024: 1.5e-5}),
        }
    )
    view = timing.screen(copy_naive, {}, recorded, "X")
    assert timing_answer(view, 1024) == (
        "On the X GPU, a timer that does not wait for it reports 10 µs per "
        "1,024 × 1,024 matmul, **200× too small**: the work takes 2 ms."
    )


# -- Data pipeline --------------------------------------------------------------------------------------------
SETTINGS = feeds.Settings(batch_size=64, dataset_size=256, model="linear", num_workers=0, pin_memory=False)


def dl(device: str, feed: str, median: float, loading: float, compute: float) -> dict:
    return {
        "workload": "dataloader",
        "device": device,
        "source": feed,
        "batch_size": 64,
        "dataset_size": 256,
        "model": "linear",
        "num_workers": 0,
        "pin_memory": False,
        "swept": "batch_size",
        "median_s": median,
        "iqr_s": median / 50,
        "repeats": 5,
        "status": "ok",
        "message": "",
        "phase_loading_s": loading,
        "phase_compute_s": compute,
    }


def test_pipeline_answer_from_this_servers_cpu_bounds_what_any_device_could_save():
    view = feeds.View(SETTINGS, "batch_size", gpu_live=False)
    on = feeds.screen(
        view,
        points_of([dl("cpu", "images", 0.08, 0.072, 0.01), dl("cpu", "tensors", 0.004, 0.0005, 0.003)]),
        None,
        feeds.FeedPoints.empty(),
    )
    assert pipeline_answer(on) == (
        "With images fed by a DataLoader, at batch size = 64 loading alone takes 72 ms of this server's 80 ms epoch: "
        "no device could save more than 10%."
    )


def test_pipeline_answer_compares_both_devices_of_one_machine():
    view = feeds.View(SETTINGS, "batch_size", gpu_live=False)
    pack = {
        "schema_version": 1,
        "path": "/p/h200.json",
        "machine": {"gpus": ["H200"], "date": "2026-11-21"},
        "rows": [dl("cpu", "images", 1.0, 0.95, 0.05), dl("cuda:0", "images", 0.96, 0.94, 0.01)],
    }
    pack_found, recorded = feeds.find_recorded([recording_of({**pack, "rows": list(pack["rows"])})], (), view)
    on = feeds.screen(view, points_of([dl("cpu", "images", 0.08, 0.072, 0.01)]), pack_found, recorded)
    assert pipeline_answer(on) == (
        "With images fed by a DataLoader, at batch size = 64 **the device does not matter**: one epoch takes 1 s on "
        "the CPU, 960 ms on the GPU."
    )
    assert pipeline_notes(on) == "Both times above are one epoch on the same machine: its CPU and its GPU."
    pack["rows"][1] = dl("cuda:0", "images", 0.25, 0.2, 0.01)  # the gap all in loading: the host's, not the device's
    pack_found, recorded = feeds.find_recorded([recording_of({**pack, "rows": list(pack["rows"])})], (), view)
    on = feeds.screen(view, [], pack_found, recorded)
    assert pipeline_answer(on) == (
        "With a DataLoader over images, at batch size = 64 loading (host work for both) "
        "makes the gap: 950 ms of the CPU's epoch, 200 ms of the GPU's."
    )
    assert "not the device's" in pipeline_notes(on)
    pack["rows"] = [dl("cpu", "images", 1.0, 0.5, 0.5), dl("cuda:0", "images", 0.55, 0.5, 0.05)]  # the compute's gap
    pack_found, recorded = feeds.find_recorded([recording_of({**pack, "rows": list(pack["rows"])})], (), view)
    text = pipeline_answer(feeds.screen(view, [], pack_found, recorded))
    assert text.startswith("With images fed by a DataLoader, at batch size = 64 the GPU's epoch is 1.82× as fast"), text


# -- Multi-GPU ------------------------------------------------------------------------------------------------
def ddp(gpus: int, batch: int, median_s: float) -> dict:
    return {
        "workload": "ddp",
        "model": "mlp",
        "gpus": gpus,
        "batch_size": batch,
        "device": "cuda",
        "median_s": median_s,
        "iqr_s": 0.0,
        "repeats": 5,
        "status": "ok",
        "message": "",
    }


def test_scaling_answer_is_where_the_most_gpus_start_to_pay_off():
    # one GPU: 1 ms + 1 µs per sample; two GPUs: 3 ms of exchange per step on top: they win from a large batch
    rows = [ddp(1, b, 1e-3 + 1e-6 * b) for b in (16, 256, 4096, 65536)]
    rows += [ddp(2, b, 4e-3 + 1e-6 * b) for b in (16, 256, 4096, 65536)]
    records = scaling.table(points_of(rows), "mlp")
    text = scaling_answer(records, "per_gpu")
    last = scaling.crossover_lines(records, "per_gpu", notes=False)[-1]  # the answer alone: its notes under the chart
    assert last.about.kind == CrossKind.CROSSES and text == last.markdown() and text.startswith("2 GPUs ")
    assert scaling_answer(scaling.table(points_of(rows[:4]), "mlp"), "per_gpu").startswith(
        "These results do not hold both 1 GPU and more"
    )


# -- Your results and the gallery ----------------------------------------------------------------------------
def machine_rows(label: str, cpu: list[float], gpu: list[float] | None = None) -> list[dict]:
    """One machine's rows of a batch-size sweep, its CPU (and its GPU)."""

    def rows(device: str, times: list[float]) -> list[dict]:
        return [
            {
                "workload": "mlp",
                "batch_size": x,
                "hidden_width": 64,
                "device": device,
                "median_s": t,
                "iqr_s": t / 10,
                "repeats": 5,
                "status": "ok",
                "message": "",
                "swept": "batch_size",
                "machine": label,
            }
            for x, t in zip([1, 10, 100, 1000], times)
        ]

    return rows("cpu", cpu) + (rows("cuda:0", gpu) if gpu else [])


def test_machines_answer_prefers_a_machine_whose_gpu_catches_up():
    laptop = machine_rows("laptop", [2e-4, 2e-3, 2e-2, 2e-1])
    box = machine_rows("box", [1e-4, 1e-3, 1e-2, 1e-1], [1e-3, 3e-3, 3e-3, 4e-3])
    [comp] = compare_machines(laptop + box)
    text = machines_answer(comp)
    assert comp.crossovers["box"].kind == CrossKind.CROSSES
    # the answer alone up top (issue 37): the points too close to call stay in the lines under the chart
    assert (
        text
        == next(
            line for line in compare.crossover_lines(comp, notes=False) if line.about is comp.crossovers["box"]
        ).markdown()
    )
    [alone] = compare_machines(laptop + machine_rows("desk", [1e-4, 1e-3, 1e-2, 1e-1]))
    # the largest shared value only; the smallest and the slowest curves are fastest_line's, under the chart
    assert machines_answer(alone) == "At batch size 1,000 the fastest of 2 curves is **CPU · desk**, 100 ms a step."


@pytest.fixture(scope="module")
def shipped():
    return shipped_machines(shipped_gallery_packs())


def test_gallery_answer_names_the_earliest_and_the_latest_crossover(shipped):
    comparison = gallery_comparison(shipped)
    text = gallery_answer(shipped, comparison)
    # issue 37: the shipped gallery sweeps step 16× (256 to 4,096), too wide to name one value ('≈ 1,100' was)
    found = [comparison.crossovers[m.line] for m in shipped]
    if any(voice.likely_about(c) is None for c in found):
        lows, highs = zip(*(c.sure for c in found))
        assert text == (
            f"The GPUs here catch up with their own CPUs between batch size {fmt_value(min(lows))} and "
            f"{fmt_value(max(highs))} on all 2 machines that cross."
        )
    else:
        assert text.startswith("The GPUs here catch up with their own CPUs between batch size ≈ ")
        assert text.endswith("2 machines in all.")
    # which machine is which, under the chart (issue 37: names of any length kept out of the one sentence), but
    # only where one surely crosses first: the shipped two were called 'Earliest: H100 (between 256 and 4,096);
    # latest: H200 (between 256 and 4,096)' from their likely values alone (issue 37's leftover)
    notes = gallery_notes(shipped, comparison)
    (first_low, first_high), (last_low, last_high) = sorted(c.sure or c.bracket for c in found)
    if first_high < last_low:
        assert "NVIDIA H200 · shipped" in notes and "NVIDIA H100 80GB HBM3 · shipped" in notes
    else:
        assert notes == (
            "Their ranges overlap, so no machine here is surely the earliest or the latest to cross "
            "(the table gives each machine's crossover)."
        )
        assert "≈" not in text
    one = [m for m in shipped if m.line == "NVIDIA H200 · shipped"]  # whatever the order of the shipped files
    only = gallery_comparison(one)
    assert only.crossovers["NVIDIA H200 · shipped"].kind == CrossKind.CROSSES
    assert (
        gallery_answer(one, only)
        == "On **NVIDIA H200 · shipped**, "
        + voice.crossover_sentence(
            only.crossovers["NVIDIA H200 · shipped"], "batch size", OWN_CPU, OWN_GPU, notes=False
        ).markdown()
    )
    assert gallery_notes(one, only) == voice.crossover_notes(
        only.crossovers["NVIDIA H200 · shipped"], "batch size", OWN_CPU, OWN_GPU
    )
    assert gallery_answer([], None) == (
        "No machine here has both CPU and GPU results yet, so there is no speed-up to compare."
    )
