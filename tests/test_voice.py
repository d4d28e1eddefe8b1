"""The one voice (lib.lessons.common.voice): every kind of crossover worded for any two sides, the typed
sentence it returns, and the two copies it replaced that mis-said points trading the lead."""

from __future__ import annotations

import pytest

from lib.core.crossover import CrossKind, Crossover, find_crossover
from lib.core.fmt import Sentence, Strong, fmt_about, say
from lib.core.rows import Origin
from lib.lessons.common import voice
from lib.lessons.common.voice import Side, Unit, crossover_sentence
from lib.lessons.gallery.view import GalleryMachine, crossover_words
from lib.lessons.multi_gpu import scaling
from lib.lessons.your_results.compare import Comparison, compare_machines
from lib.recorded.sources import series_label

CPU, GPU = voice.legend_side(Unit.CPU, "cpu here"), voice.legend_side(Unit.GPU, "gpu there")
# ten shared points, four changes of lead (each lead held over two points: a lone point sticking out is not believed)
TRADES = ([2**i for i in range(10)], [1.0] * 10, [0.5, 0.5, 2.0, 2.0, 0.5, 0.5, 2.0, 2.0, 0.5, 0.5])


def test_every_kind_has_its_own_words_and_says_what_it_is():
    cases = {
        CrossKind.CROSSES: find_crossover([1, 2, 4], [1, 1, 1], [2, 1.5, 0.5]),
        CrossKind.CROSSES_BACK: find_crossover([1, 2, 4], [2, 2, 2], [1, 1.5, 3]),
        CrossKind.MIXED: find_crossover(*TRADES),
        CrossKind.GPU_WINS: find_crossover([1, 2], [2, 2], [1, 1]),
        CrossKind.CPU_WINS: find_crossover([1, 2], [1, 1], [2, 2]),
        CrossKind.ONE_DEVICE: Crossover(CrossKind.ONE_DEVICE, None),
        CrossKind.TOO_FEW_POINTS: find_crossover([1], [None], [1]),
    }
    words = {}
    for kind, found in cases.items():
        assert found.kind == kind
        sentence = crossover_sentence(found, "size", CPU, GPU)
        assert sentence.about.kind == kind  # the typed result rides with the words
        words[kind] = sentence.plain()
    assert len(set(words.values())) == len(words)
    same = find_crossover([1, 2, 4], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])  # one device recorded twice
    assert same.kind == CrossKind.GPU_WINS and same.ties == same.shared == (1.0, 2.0, 4.0)
    assert crossover_sentence(same, "size", CPU, GPU).plain() == (
        "gpu there and cpu here take the same time within the spread of the repeats at every size "
        "both curves have, from 1 to 4: neither is surely faster, so there is no crossover to place."
    )
    one_point = crossover_sentence(find_crossover([3], [1], [2]), "size", CPU, GPU)
    assert one_point.plain().endswith(
        "which is only 3: there the GPU does not catch up, and one point cannot place a crossover."
    )


def test_a_sentence_renders_bold_on_a_page_and_plain_on_the_command_line():
    sentence = crossover_sentence(find_crossover([1, 2, 4], [1, 1, 1], [2, 1.5, 0.5]), "size", CPU, GPU)
    assert sentence.markdown().startswith("**gpu there** catches up with **cpu here** between size")
    assert (
        sentence.plain().startswith("gpu there catches up with cpu here between size") and "**" not in sentence.plain()
    )
    # sides without a legend name are not bold: 'the GPU', '2 GPUs'
    plain_sides = crossover_sentence(find_crossover([1, 2], [1, 1], [2, 2]), "size", Side(Unit.CPU), Side(Unit.GPU))
    assert (
        plain_sides.markdown()
        == plain_sides.plain()
        == (
            "the CPU is faster than the GPU at every size both curves have, from 1 to 2: the GPU does not catch up there."
        )
    )
    joined = say("On ", Strong("box"), ", ") + sentence
    assert joined.about is sentence.about and joined.capitalised().markdown().startswith("On **box**, **gpu there**")


def test_sides_agree_with_their_verbs_whoever_is_compared():
    one, two = scaling.sides(2)
    found = find_crossover([8, 16, 32], [1, 1, 1], [2, 1.5, 0.5])
    assert (
        crossover_sentence(found, "per-GPU batch size", one, two)
        .plain()
        .startswith("2 GPUs catch up with 1 GPU between per-GPU batch size")
    )
    cpu_wins = crossover_sentence(find_crossover([1, 2], [1, 1], [2, 2]), "batch size", one, two).plain()
    assert cpu_wins.startswith("1 GPU is faster than 2 GPUs") and cpu_wins.endswith("2 GPUs do not catch up there.")
    procs = scaling.sides(3, cpu=True)
    assert [s.noun for s in procs] == ["1 process", "3 processes"]


def test_scaling_names_points_that_trade_the_lead():
    """Regression: with five shared points that trade the lead, scaling's own copy said 'Not enough
    points measured on both 1 GPU and 2 GPUs'."""
    xs, one_t, two_t = TRADES
    records = [scaling.ScalingPoint(1, x, status="ok", samples_per_s=1 / t) for x, t in zip(xs, one_t)] + [
        scaling.ScalingPoint(2, x, status="ok", samples_per_s=1 / t) for x, t in zip(xs, two_t)
    ]
    [line] = scaling.crossover_lines(records, "per_gpu")
    assert line.about.kind == CrossKind.MIXED and len(line.about.crossings) == 4
    assert line.plain().startswith("2 GPUs and 1 GPU trade the lead 4 times between per-GPU batch size 1 and 512")
    assert "Not enough points" not in line.plain()


def test_gallery_names_points_that_trade_the_lead():
    """Regression: the gallery's own copy said 'CPU faster at every batch size measured' for any
    kind it did not know, points trading the lead among them."""
    xs, cpu, gpu = TRADES
    rows = [
        {
            "workload": "mlp",
            "device": d,
            "batch_size": x,
            "swept": "batch_size",
            "median_s": t,
            "iqr_s": 0.0,
            "repeats": 3,
            "status": "ok",
            "message": "",
            "machine": "box",
        }
        for d, ts in (("cpu", cpu), ("cuda:0", gpu))
        for x, t in zip(xs, ts)
    ]
    machine = GalleryMachine("1", "box", "Ada", "T4", "2.11", "2026-11-24", rows=rows)
    [comparison] = compare_machines(rows)
    assert comparison.crossovers["box"].kind == CrossKind.MIXED
    x, words = crossover_words(comparison, machine)
    assert x is None and words == "the lead changes 4 times"
    empty = Comparison("mlp", "batch_size", {}, [], {})
    assert crossover_words(empty, machine) == (None, "not enough points on both devices")


def test_a_curve_is_named_from_its_typed_series_not_its_text():
    live = series_label("cpu", Origin.LIVE)
    gpu = series_label("cuda:0", Origin.RECORDED, "NVIDIA H200, 2026-11-21")
    assert (live.origin, gpu.origin, gpu.machine) == (Origin.LIVE, Origin.RECORDED, "NVIDIA H200, 2026-11-21")
    assert gpu == "cuda:0 (recorded on NVIDIA H200, 2026-11-21)"  # the legend keeps its text
    assert voice.series_side(live).text == "this server's CPU"
    assert voice.series_side(gpu).text == "the NVIDIA H200 GPU"
    assert voice.series_side(series_label("cpu", Origin.RECORDED, "NVIDIA H200, 2026-11-21")).text == (
        "the NVIDIA H200 machine's CPU"
    )


@pytest.mark.parametrize(
    ("x", "text", "said"),
    [(683.4, "680", "700"), (1234.0, "1,200", "1,000"), (6.56, "6.6", "7"), (0.0123, "0.012", "0.01")],
)
def test_a_crossover_value_has_only_the_digits_its_bracket_supports_everywhere(x, text, said):
    """fmt_about keeps two digits; a crossover in words has one where its bracket (here x/2 to 2x, a
    factor 4) holds the one-digit value (issue 37), the same in a sentence and a table cell."""
    assert fmt_about(x) == text
    found = Crossover(CrossKind.CROSSES, x, (x / 2, x * 2), (x / 2, x * 2), span=(x / 2, x * 2))
    assert f"most likely at about {said}." in crossover_sentence(found, "size", CPU, GPU).plain()
    assert (
        crossover_words(
            Comparison("mlp", "batch_size", {}, [], {"m": found}),
            GalleryMachine("1", "m", "", "", "", "", rows=[{"device": "cuda:0", "status": "ok", "median_s": 1.0}]),
        )[1]
        == f"≈ {said}"
    )


def test_sentence_is_a_value():
    assert Sentence(("a", Strong("b"))) == say("a", Strong("b"))


def test_points_not_believed_are_called_hollow_only_where_the_chart_draws_them_so():
    """Timing pitfalls' answer said 'Points at matrix size 64 and 512 (hollow) are out of line …' over its
    variant chart, which draws every point filled. '(hollow)' is said only by a caller whose chart draws
    those points hollow (lib.charts.provenance: Training, Home)."""
    found = Crossover(
        CrossKind.GPU_WINS,
        None,
        span=(64.0, 1024.0),
        ties=(64.0, 512.0),
        shared=(64.0, 128.0, 256.0, 512.0, 1024.0),
        doubtful=(64.0, 512.0),
    )
    plain = crossover_sentence(found, "matrix size", Side(Unit.CPU), Side(Unit.GPU)).plain()
    drawn = crossover_sentence(found, "matrix size", Side(Unit.CPU), Side(Unit.GPU), hollow=True).plain()
    assert "The points at matrix size 64 and 512 are noisy" in plain and "hollow" not in plain, plain
    assert "The points at matrix size 64 and 512 (hollow) are noisy" in drawn, drawn
