"""What the Home page computes (lib.lessons.home.screen): the Training lesson's screen at its default view, on
the hand-made packs of tests/training_fixture.py whose crossover is worked out by hand."""

from __future__ import annotations

import pytest
from training_fixture import GPU_NAME, crossover_by_hand, write_packs

from lib.core.crossover import CrossKind, Crossover
from lib.core.fmt import crossing_about, fmt_value
from lib.lessons.common import voice
from lib.lessons.home import screen as home
from lib.recorded import load_recordings
from lib.recorded.recording import recording_of
from lib.recorded.sources import recorded_sources, source_recording

GPU_LABEL = f"GPU · {GPU_NAME} (recorded)"
SMALL_LABEL = "CPU · 2-core server (recorded)"


@pytest.fixture(scope="module")
def packs(tmp_path_factory):
    found, problems = load_recordings(write_packs(tmp_path_factory.mktemp("home_fixture")))
    assert not problems
    return found


@pytest.fixture(scope="module")
def gpu_pack(packs):
    return source_recording(next(s for s in recorded_sources(packs) if s.recorded), packs)


def only(recording, keep):
    """The recording with only the rows `keep` accepts (a machine that recorded less)."""
    return recording_of({**recording.pack, "rows": [r for r in recording.pack["rows"] if keep(r)]})


def test_homes_answer_is_the_crossover_the_formulas_give_in_trainings_words(packs, gpu_pack):
    shown = home.first_answer([gpu_pack], packs)
    lo, hi, x = crossover_by_hand()
    said = voice.crossover_sentence(
        Crossover(CrossKind.CROSSES, x, (lo, hi), (lo, hi), span=(lo, hi)),
        "batch size",
        voice.legend_side(voice.Unit.CPU, SMALL_LABEL),
        voice.legend_side(voice.Unit.GPU, GPU_LABEL),
    ).markdown()
    assert shown.headline == said
    assert (
        f"between batch size {fmt_value(lo)} and {fmt_value(hi)}; most likely at about {crossing_about(x, lo, hi)}."
        in said
    )
    # Training's curves at its defaults before any live point: the small server's CPU and the GPU, not the GPU
    # machine's own CPU (the pack has its rows: Training draws them only when asked) and nothing live
    assert set(shown.training.curves) == {SMALL_LABEL, GPU_LABEL}
    assert {r["series"] for r in shown.rows()} == {SMALL_LABEL, GPU_LABEL}
    assert shown.crossover[:2] == (lo, hi) and crossing_about(shown.crossover[2], lo, hi) == crossing_about(x, lo, hi)
    assert all(r["batch_size"] in home.DEFAULT.axis.steps for r in shown.rows())
    assert GPU_NAME in shown.caption and "2-core server" in shown.caption


def test_the_first_machine_that_answers_is_the_answer(packs, gpu_pack):
    cpu_only = only(gpu_pack, lambda r: r["device"] == "cpu")
    assert not home.answers(cpu_only.pack) and not home.answers(None) and home.answers(gpu_pack.pack)
    assert home.first_answer([None, cpu_only], packs) is None
    assert home.first_answer([None, cpu_only, gpu_pack], packs).headline == home.home_screen(gpu_pack, packs).headline


def test_a_refusal_says_one_sentence_up_top_and_where_to_look_under_it():
    assert home.refusal("The 4-GPU machine has no Training rows. Pick the H200 in the sidebar.") == (
        "The 4-GPU machine has no Training rows.",
        "Pick the H200 in the sidebar.",
    )
    assert home.refusal("Nothing here") == ("Nothing here", None)


def test_a_machine_without_a_curve_at_the_defaults_says_trainings_words_and_another_is_preferred(packs, gpu_pack):
    """A GPU that recorded the model, but not at the default view (depth 16 only): Home says what Training says
    there (no crossover; where that GPU has a curve). Where Home may pick (a live GPU in the sidebar, which it does
    not measure), a machine whose default view has its GPU curve comes first."""
    deep = only(gpu_pack, lambda r: r["device"] == "cpu" or r["depth"] == 16)
    shown = home.first_answer([deep], packs)
    assert not shown.gpu_drawn and set(shown.training.curves) == {SMALL_LABEL}
    assert shown.headline == "There is no GPU curve for this view, so there is no crossover to show."
    assert "was recorded at depth 16 only: set Depth to 16 to see its curve." in shown.notes
    assert home.first_answer([deep, gpu_pack], packs).gpu_drawn
