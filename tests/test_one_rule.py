"""Issue 37: one rule for 'the same', and no more digits than the data (classes G and H).

G. Every page's 'same / about the same / as fast / even / no faster' comes from lib.core.noise.is_tie
(through lib.core.same), with the spreads the rows have; every find_crossover adapter passes them.
H. A crossover value is printed with only the digits its bracket supports (lib.core.fmt.crossing_about),
in the sentence, the table cell and the chart's rule alike; a break-even count likewise.
Each test here failed on the code before issue 37 (the old words are in its comment)."""

from __future__ import annotations

import pytest

from lib.core import noise
from lib.core.crossover import CrossKind, Crossover
from lib.core.fmt import WIDE_BRACKET, about_count, crossing_about
from lib.core.same import RULE_WORDS, Sameness, rows_sameness, same_ratio, same_rows, same_time, sameness
from lib.lessons.common import voice
from lib.lessons.common.voice import crossover_brief, crossover_sentence, likely_about
from tests.claim_checks_precision import digits_fit_bracket, precision_problems

CPU_SERIES = "cpu (live, this server)"


# -- G: one rule ----------------------------------------------------------------------------------------
def test_the_one_rule_is_noise_is_tie_with_its_thresholds_and_says_so():
    assert same_time(1.0, 1.04) and not same_time(1.0, 1.06)  # EVEN_RATIO, nothing of its own
    assert same_time(1.0, 1.3, 0.4, 0.4) and not same_time(1.0, noise.CLEAR_RATIO, 1.0, 1.0)
    assert same_rows({"median_s": 1.0, "iqr_s": 0.4}, {"median_s": 1.3, "iqr_s": 0.4})
    assert same_ratio(1.04) and not same_ratio(1.08)
    assert "5%" in RULE_WORDS and "1.5×" in RULE_WORDS


def test_a_tie_says_same_only_on_believed_points_and_too_noisy_otherwise():
    """/data_pipeline?gpu=nvidia-h200&num_workers=4&model=linear said 'the device does not matter' for 24.7 ms against
    17.1 ms (1.44×): a tie, but only because the CPU's IQR was 289 % of its epoch. A tie is no sentence's 'faster';
    whether it is 'the same' or 'too noisy to say' is sameness's."""
    assert sameness(24.7e-3, 17.1e-3, 71.4e-3, 1e-3) is Sameness.TOO_NOISY and same_time(24.7e-3, 17.1e-3, 71.4e-3)
    assert sameness(1.0, 1.04, 5.0, 5.0) is Sameness.SAME  # within EVEN_RATIO, however noisy
    assert sameness(1.0, 1.3, 0.4, 0.4) is Sameness.SAME  # believed spreads that overlap
    assert sameness(1.0, 1.3, 0.1, 0.1) is Sameness.APART
    assert sameness(1.0, 2.0, 5.0, 5.0) is Sameness.APART  # never close at 2×
    assert rows_sameness({"median_s": 1.0, "iqr_s": 0.6}, {"median_s": 1.2, "iqr_s": 0.1}) is Sameness.TOO_NOISY


def test_the_data_pipeline_credits_the_device_only_with_a_gap_its_compute_can_make():
    """The device verdict of one machine's two epochs (lib.lessons.data_pipeline.view.device_verdict): 'the device
    matters' said for 108 ms against 76.4 ms where each device's compute, timed apart, took under 2 ms."""
    from lib.core.point import Point
    from lib.lessons.data_pipeline.view import DeviceVerdict, device_verdict

    def epoch(device: str, t: float, iqr: float, loading: float, compute: float) -> Point:
        row = {"workload": "dataloader", "device": device, "median_s": t, "iqr_s": iqr, "repeats": 5, "status": "ok"}
        return Point.from_row({**row, "phase_loading_s": loading, "phase_compute_s": compute})

    def verdict(cpu, gpu) -> DeviceVerdict:
        return device_verdict(epoch("cpu", *cpu), epoch("cuda:0", *gpu))

    assert verdict((108e-3, 3e-3, 82.1e-3, 1.15e-3), (76.4e-3, 3e-3, 97.1e-3, 1.71e-3)) is DeviceVerdict.NOT_COMPUTE
    assert verdict((108e-3, 3e-3, 60e-3, 40e-3), (76.4e-3, 3e-3, 62e-3, 8e-3)) is DeviceVerdict.DEVICE
    assert verdict((200e-3, 3e-3, 180e-3, 10e-3), (100e-3, 3e-3, 85e-3, 12e-3)) is DeviceVerdict.LOADING
    assert verdict((24.7e-3, 71.4e-3, 15e-3, 1e-3), (17.1e-3, 1e-3, 13e-3, 1e-3)) is DeviceVerdict.TOO_NOISY
    assert verdict((17.6e-3, 1e-3, 15e-3, 1e-3), (17.1e-3, 1e-3, 14e-3, 1e-3)) is DeviceVerdict.SAME


def test_a_noisy_tie_is_too_noisy_to_say_on_the_switch_timing_and_jacobian_words():
    """The same rule where a tie made a claim: 'the switch costs about nothing', 'the same within the spread',
    'as fast as any other method' on a point whose repeats spread over more than half its time."""
    from lib.lessons.common.switch import switch_sentence
    from lib.lessons.timing.timed import Timed
    from lib.lessons.timing.view import Variant
    from lib.lessons.timing.words import sync_sentences

    step = {"workload": "mlp", "device": "cuda:0", "status": "ok", "repeats": 5, "batch_size": 64}
    plain = {**step, "median_s": 1.0e-3, "iqr_s": 0.05e-3}
    noisy = {**step, "item_every_step": True, "median_s": 1.3e-3, "iqr_s": 0.9e-3}
    assert "too noisy here to say what the switch costs" in switch_sentence(noisy, plain, "GPU")
    tight = {**noisy, "iqr_s": 0.05e-3, "median_s": 1.02e-3}
    assert "costs about nothing" in switch_sentence(tight, plain, "GPU")

    def rows(t, iqr):
        row = {"workload": "matmul", "size": 64, "device": "cpu", "median_s": t, "iqr_s": iqr, "status": "ok"}
        return [Timed.of_row({**row, "series": CPU_SERIES})]

    text = sync_sentences(rows(10e-6, 8e-6), rows(13e-6, 0.5e-6), Variant(sync=False), 64, [CPU_SERIES])[0]
    assert "(too noisy to compare)" in text and "same within the spread" not in text


def test_timing_never_calls_a_1_5x_gap_about_the_same():
    """/timing_pitfalls?sync=false&size=16384 said 'naive 21.3 ms, synchronised 32.2 ms (about the same)'."""
    from lib.lessons.timing.timed import Timed
    from lib.lessons.timing.view import Variant
    from lib.lessons.timing.words import sync_sentences

    def rows(t):
        row = {"workload": "matmul", "size": 16384, "device": "cpu", "median_s": t, "iqr_s": 0.4e-3, "status": "ok"}
        return [Timed.of_row({**row, "series": CPU_SERIES})]

    text = sync_sentences(rows(21.3e-3), rows(32.2e-3), Variant(sync=False), 16384, [CPU_SERIES])[0]
    assert "about the same" not in text and "1.51× apart" in text and "Synchronising is not what changed" in text
    text = sync_sentences(rows(21.3e-3), rows(21.5e-3), Variant(sync=False), 16384, [CPU_SERIES])[0]
    assert "the same within the spread of the repeats" in text and "synchronising changes nothing" in text


def test_data_pipeline_no_longer_counts_20_percent_as_the_same():
    """A 15 % gap with tight spreads read 'the device does not matter' (SAME_WITHIN = 0.20)."""
    from lib.core.point import Point
    from lib.lessons.data_pipeline.view import device_sentence, sweep_summary

    def row(device, t):
        return Point.from_row(
            {
                "workload": "dataloader",
                "device": device,
                "median_s": t,
                "iqr_s": t / 100,
                "status": "ok",
                "batch_size": 8,
            }
        )

    text = device_sentence(row("cpu", 1.0), row("cuda:0", 0.85), "cpu X", "cuda:0 X", "DataLoader over images")
    assert "**the device matters**" in text
    text = device_sentence(row("cpu", 1.0), row("cuda:0", 0.97), "cpu X", "cuda:0 X", "DataLoader over images")
    assert "**the device does not matter**" in text and "by only 3%" in text
    summary = sweep_summary(
        [row("cpu", 1.0), row("cuda:0", 0.85)], "batch_size", "batch size", "images", "cpu", "cuda:0"
    )
    assert "count as the same at none of the 1 batch size values" in summary


def test_seed_cases_even_is_the_one_rule_not_1_1_or_1_5():
    """'about even' within 1.1×, and 'both within 1.5× of even, as the seed found' for 1.4 against 0.8."""
    from lib.lessons.seed_cases.view import agreement, direction, ratio_words

    assert direction(1.08) == "gpu_slower" and direction(1.03) == "even"
    assert direction(1.08, tie=Sameness.SAME) == "even" and direction(1.08, tie=Sameness.APART) == "gpu_slower"
    assert ratio_words(1.08) == "the GPU took 1.08× as long as the CPU"
    assert "about even" in ratio_words(1.03)
    assert agreement(1.4, 0.8) == "a different answer"
    assert agreement(1.4, 0.8, measured_tie=Sameness.APART) == "a different answer"
    # a tie only on a noisy recorded point: neither 'about even' nor a direction
    assert direction(1.3, tie=Sameness.TOO_NOISY) == "noisy"
    assert ratio_words(1.3, Sameness.TOO_NOISY) == "the two were too noisy to compare (GPU time ÷ CPU time = 1.30×)"
    assert agreement(1.4, 1.3, measured_tie=Sameness.TOO_NOISY) == "too noisy to say whether it agrees"


def test_ratio_words_and_versus_have_no_threshold_of_their_own():
    """voice.ratio_words took `even=1.1`; versus() called 1.00 against 1.02 a win without a spread."""
    assert "about even" in voice.ratio_words(voice.GPU, voice.CPU, 1.3, tie=True)
    assert voice.ratio_words(voice.GPU, voice.CPU, 1.3) == "the GPU takes 1.30× as long as the CPU"
    assert voice.versus(voice.CPU, 1.0, voice.GPU, 1.02).tie and not voice.versus(voice.CPU, 1.0, voice.GPU, 1.2).tie


def test_a_graph_or_compile_saving_within_the_spread_is_no_saving():
    """'One CUDA graph … 1.02× as fast' and 'pays off after about 21,072 steps' from a 103 µs saving
    inside a 26 % spread."""
    from curve_points import step

    from lib.lessons.training.step_point import Profile
    from lib.lessons.training.words import compile_payback, graph_saving

    eager = step(1.0e-3, 0.26e-3)
    graphed = step(0.98e-3, 0.26e-3)
    assert "no faster here" in graph_saving(eager, graphed)
    compiled = step(0.897e-3, 0.26e-3, profile=Profile(cold_s=2.171))
    text = compile_payback(eager, compiled)
    assert "too small to count" in text and "pays off after" not in text
    tight = step(0.897e-3, 0.02e-3, profile=Profile(cold_s=2.171))
    text = compile_payback(step(1.0e-3, 0.02e-3), tight)
    assert "it pays off after about 20,000 steps." in text  # 21,072 to one significant digit


def test_about_count_keeps_one_or_two_significant_digits():
    assert about_count(21072, 0.5) == 20000 and about_count(21072, 0.01) == 21000 and about_count(0.3) == 1


# -- G: every find_crossover adapter passes the spreads it has ---------------------------------------------
def test_jacobian_passes_the_spreads():
    from lib.lessons.jacobian.points import MethodPoint
    from lib.lessons.jacobian.view import method_crossover

    def rows(series, times, iqr):
        return [
            MethodPoint.of_row(
                {"workload": "jacobian", "device": "cpu", "series": series, "method": "loop", "val": v}
                | {"median_s": t, "iqr_s": i, "status": "ok"}
            )
            for v, t, i in zip((10, 100, 1000), times, iqr)
        ]

    found, _ = method_crossover(
        rows("c", [1.0, 10, 100], [0.3, 0, 0]) + rows("g", [1.1, 5, 20], [0.3, 0, 0]), "loop", "c", "g"
    )
    assert 10.0 in found.ties and found.kind == CrossKind.GPU_WINS  # without spreads: CROSSES


def test_multi_gpu_passes_the_spreads():
    from lib.core.point import points_of
    from lib.lessons.multi_gpu import scaling

    def row(gpus, batch, step, iqr):
        return {
            "workload": "ddp",
            "model": "mlp",
            "gpus": gpus,
            "batch_size": batch,
            "steps": 50,
            "device": "cuda",
            "median_s": step,
            "iqr_s": iqr,
            "repeats": 5,
            "status": "ok",
            "message": "",
        }

    rows = [
        row(1, 16, 1.0e-3, 0.3e-3),
        row(2, 16, 2.2e-3, 0.66e-3),
        row(1, 256, 4e-3, 0.0),
        row(2, 256, 4e-3, 0.0),
        row(1, 4096, 40e-3, 0.0),
        row(2, 4096, 42e-3, 0.0),
    ]
    found = scaling.crossover(scaling.table(points_of(rows), "mlp"), 2, "per_gpu")
    assert 16.0 in found.ties and found.kind == CrossKind.GPU_WINS  # without spreads: CROSSES


def test_your_results_passes_the_spreads():
    from lib.lessons.your_results.compare import compare_machines

    def row(x, device, t, iqr):
        return {
            "workload": "toy",
            "batch_size": x,
            "device": device,
            "median_s": t,
            "iqr_s": iqr,
            "repeats": 5,
            "status": "ok",
            "message": "",
            "swept": "batch_size",
            "machine": "M",
        }

    rows = [
        row(1, "cpu", 1.0, 0.3),
        row(1, "cuda:0", 1.1, 0.3),
        row(2, "cpu", 2.0, 0.0),
        row(2, "cuda:0", 1.0, 0.0),
        row(4, "cpu", 4.0, 0.0),
        row(4, "cuda:0", 1.0, 0.0),
    ]
    [comp] = compare_machines(rows)
    found = comp.crossovers["M"]
    assert 1.0 in found.ties and found.kind == CrossKind.GPU_WINS  # without spreads: CROSSES


# -- H: no more digits than the bracket -----------------------------------------------------------------
def wide() -> Crossover:
    """/training?mode=fused&depth=12: 'between batch size 1 and 1,024; most likely at about 5.4'."""
    return Crossover(CrossKind.CROSSES, 5.4, (4, 8), (1, 1024), span=(1, 1024))


def test_a_wide_bracket_names_no_most_likely_value():
    text = crossover_sentence(wide(), "batch size", voice.CPU, voice.GPU).plain()
    assert "most likely" not in text and "5.4" not in text
    assert (
        text
        == "the GPU catches up with the CPU between batch size 1 and 1,024; the points measured place it no closer."
    )
    assert crossover_brief(wide(), "batch size", voice.CPU, voice.GPU) == "between 1 and 1,024"
    assert likely_about(wide()) is None and crossing_about(5.4, 1, 1024) is None


@pytest.mark.parametrize(
    ("x", "low", "high", "said"),
    [
        (683.4, 512, 1024, "700"),
        (1234.0, 1024, 2048, "1,200"),
        (39.0, 32, 64, "40"),
        (5.4, 4, 8, "5"),
        (21.0, 16, 32, "20"),
        (0.0123, 0.01, 0.02, "0.01"),
        (1043.0, 1000, 1100, "1,000"),
        (97.0, 96, 128, "100"),
    ],
)
def test_a_narrow_bracket_rounds_to_what_it_supports(x, low, high, said):
    assert crossing_about(x, low, high) == said
    found = Crossover(CrossKind.CROSSES, x, (low, high), (low, high), span=(low, high))
    sentence = crossover_sentence(found, "size", voice.CPU, voice.GPU).plain()
    assert f"most likely at about {said}." in sentence and digits_fit_bracket(sentence, (low, high))


def test_the_wide_bracket_constant_is_a_factor_of_four():
    assert WIDE_BRACKET == 4.0 and crossing_about(20.0, 8, 32) == "20" and crossing_about(20.0, 8, 33) is None


def test_the_chart_rule_prints_the_sentences_value():
    """The rule's label said 'crossover ≈ 680' beside 'most likely at about 700' would-be; now one function."""
    pytest.importorskip("altair")
    from lib.charts.provenance import CurveAxes, curve_chart

    rows = [
        {"series": s, "batch_size": b, "epoch_s": t, "iqr_s": 0.0, "steps_per_epoch": 1, "origin": "recorded"}
        for s, ts in (("CPU · M (recorded)", (1.0, 2.0, 4.0)), ("GPU · M (recorded)", (3.0, 2.5, 1.0)))
        for b, t in zip((256, 512, 1024), ts)
    ]
    chart = curve_chart(rows, CurveAxes("batch_size"), crossover=(512.0, 1024.0, 683.4)).to_dict()
    found = Crossover(CrossKind.CROSSES, 683.4, (512, 1024), (512, 1024), span=(256, 1024))
    assert chart["datasets"]["crossover"][0]["label"] == f"crossover ≈ {likely_about(found)}" == "crossover ≈ 700"
    chart = curve_chart(rows, CurveAxes("batch_size"), crossover=(1.0, 1024.0, 5.4)).to_dict()
    assert "crossover" not in chart["datasets"] and "crossover_range" in chart["datasets"]


def test_machines_chart_rule_prints_the_sentences_value():
    pytest.importorskip("altair")
    import json

    from lib.charts.machines import machines_chart
    from lib.lessons.your_results.compare import compare_machines, crossover_lines

    def row(x, device, t):
        return {
            "workload": "toy",
            "batch_size": x,
            "device": device,
            "median_s": t,
            "iqr_s": t / 100,
            "repeats": 5,
            "status": "ok",
            "message": "",
            "swept": "batch_size",
            "machine": "M",
        }

    rows = [
        row(x, d, t)
        for x, c, g in ((256, 1.0, 3.0), (512, 2.0, 2.5), (1024, 4.0, 1.0))
        for d, t in (("cpu", c), ("cuda:0", g))
    ]
    [comp] = compare_machines(rows)
    [line] = crossover_lines(comp)
    about = likely_about(comp.crossovers["M"])
    assert about is not None and f"most likely at about {about}." in line.plain()
    assert f"crossover ≈ {about}" in json.dumps(machines_chart(comp).to_dict(), ensure_ascii=False)


def test_timing_rule_label_is_none_where_the_sentence_names_no_value():
    from lib.core.crossover import SweepAnalysis
    from lib.lessons.common import onscreen

    analysis = SweepAnalysis("size", "cpu", "cuda:0", wide(), None, None, None)
    assert onscreen.crossing_x(analysis) is None and onscreen.crossing_label(analysis) is None


# -- the independent checker ------------------------------------------------------------------------------
def test_the_precision_checker_rejects_too_many_digits_and_accepts_what_fits():
    bad = "**GPU** catches up with **CPU** between batch size 1 and 1,024; most likely at about 5.4."
    assert not digits_fit_bracket(bad, (1, 1024)) and not digits_fit_bracket(bad)
    assert "1,024× wide" in precision_problems(bad)[0]
    good = "**GPU** catches up with **CPU** between batch size 512 and 1,024; most likely at about 700."
    assert digits_fit_bracket(good, (512, 1024)) and digits_fit_bracket(good)
    assert not digits_fit_bracket("between size 512 and 1,024; most likely at about 680.")  # a digit too many
    assert not digits_fit_bracket("between size 512 and 1,024; most likely at about 400.")  # outside
    assert digits_fit_bracket("between size 1,024 and 2,048; most likely at about 1,200.")  # 1,000 is outside
    assert not digits_fit_bracket("crossover ≈ 683", (512, 1024))
    assert digits_fit_bracket("between 1 and 1,024", (1, 1024))  # the bracket alone always fits
