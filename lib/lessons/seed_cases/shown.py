"""What the Seed case studies page shows of one case, as values: the page lays them out and declares its
one widget. Each 'Why?' section's words are made when it is opened (its function called then).

    first = first_screen(case)                 the answer, the notes under the chart, the table, the ratio bars
    teaches(name, preset)                      'What this experiment teaches'
    told = times_told(case, threads)           the times drawn, their title and sentences, the data notes
    said = curves_told(case, curves)           the loss curves' sentences and notes
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from lib.lessons.seed_cases import screen, times
from lib.lessons.seed_cases.curves import learn_sentence, same_start_sentence
from lib.lessons.seed_cases.view import CASES, Measured, label
from lib.workloads.presets import Preset, get_preset

NO_RATIO = (
    "Neither the seed nor this app timed both devices for this experiment, so there is no GPU ÷ CPU ratio to draw."
)
RATIO_CAPTION = (
    "GPU time ÷ CPU time of the same work: above the 1× line the GPU took longer. Times per call "
    "cancel out, so a ratio needs both devices at the same size, not the same number of calls."
)
ELSEWHERE_WHAT = "a measured GPU time of this experiment"
WHAT_SEEDS_ARE = (
    "This app grew from a handful of write-ups (the *seeds*) that timed PyTorch on a CPU and a GPU and were "
    "surprised. Each experiment is rebuilt with this project's workloads at the seed's sizes. Beside what "
    "the seed reported: what was measured on a recorded GPU machine with the same code, and this server's CPU, "
    "live. The ratio that matters is **GPU time ÷ CPU time**: above 1 the GPU was slower."
)
NO_TIMES = "Nobody timed this experiment at the seed's sizes, so there is no time to draw."
NO_CURVE_TRAINED = "This experiment trains nothing, so it has no loss curve."
NO_CURVE = "No loss curve was measured or recorded for this experiment, so there is none to draw."
# What each experiment teaches beyond its numbers (facts from the seeds, DESIGN.md section 1).
LESSONS = {
    "boston_like": "Tiny work per step: 13 inputs, a few hundred rows. Every epoch is a dozen small kernels, each "
    "launched from Python and finished almost at once, so the GPU pays its launch and synchronise "
    "costs and gains nothing. (scikit-learn removed the Boston data in 1.2: these are synthetic rows "
    "of its exact shape.)",
    "iris": "Even smaller: 112 rows of 4 measurements. The seed's guess that regression and classification "
    "behave differently does not hold: the size of the work decides.",
    "mnist_minibatch": "In the seed, the CPU run's loss stayed at 2.3036 for all 15 epochs: its optimizer had been "
    "built on the GPU model's parameters, so the CPU model was never updated. Its time was still "
    "mostly the DataLoader's. A fair comparison trains identical models, each with its own "
    "optimizer.",
    "mnist_fullbatch": "All 52 500 rows in one step: every kernel has enough arithmetic to keep the GPU busy, and "
    "the GPU wins by a wide margin.",
    "mnist_100rows": "The same network on 100 rows (75 after the split): the seed printed no times for it.",
    "linear_mnist_dataloader": "A single linear layer fed by a DataLoader that decodes every image on the CPU: "
    "seed 001 found the CPU and GPU epochs equal. The input pipeline sets the pace "
    "(see the Data pipeline lesson).",
    "big_matmul": "One huge matrix multiply: 7 TFLOP of dense arithmetic, where GPUs shine. The seed also saw the "
    "GPU's first call slower than the next ones (warm-up) and needed torch.cuda.synchronize() to time "
    "it at all (see Timing pitfalls).",
    "jacobian_val100": "autograd.functional.jacobian runs a Python loop of one backward pass per output: 40 000 "
    "tiny passes, each a handful of kernels. The method, not the device, is the cost (see the "
    "Jacobian lesson).",
    "jacobian_val1000": "Ten times the inputs: now each backward pass carries enough work that the GPU wins.",
}
RESULT_COLUMNS = (
    "series",
    "recorded_on",
    "variant",
    "median_s",
    "iqr_s",
    "repeats",
    "cold_s",
    "steps_per_epoch",
    "dataset_size",
    "batch_size",
    "size",
    "val",
    "num_threads",
    "status",
    "message",
)


def not_measured() -> Measured:
    """The live side not measured now (a long queue): the recorded side alone is shown."""
    return Measured()


def holds_a_case(pack: Mapping[str, Any] | None) -> bool:
    """Whether a machine's pack holds any seed experiment's GPU row (else the page cannot answer with that machine):
    find_seed_recording's rule on the pack's rows as they are (asked of every machine the sidebar offers)."""
    return bool(pack) and any(
        r.get("variant") in CASES
        and r.get("workload") == get_preset(r["variant"]).workload
        and str(r.get("device", "")).startswith("cuda")
        for r in pack["rows"]
    )


def curve_rows(curves: screen.Curves | None) -> list[dict[str, str | int | float]]:
    """The loss curves' points as their download's rows: none for a case that trains nothing."""
    return [p.row() for p in screen.loss_points(curves)] if curves else []


def record_caption(name: str) -> str:
    return (
        "It writes the CPU and GPU rows at the seed's sizes, and next to them "
        f"seeds_{name}_curves.json with both devices' loss curves; this page finds them by the experiment's name."
    )


@dataclass(frozen=True, eq=False)
class FirstScreen:
    answer: str
    notes: tuple[str, ...]  # the seed's times, the date and the cut size: under the chart
    table: pd.DataFrame  # reported in the seed, measured here
    bars: pd.DataFrame  # GPU ÷ CPU, one bar per comparison (empty: none to draw)


def first_screen(case: screen.Case, now: float | None = None) -> FirstScreen:
    """`now`: the time the live bar's age is counted to (default: the clock)."""
    table, bars = screen.comparison(case)
    return FirstScreen(
        screen.headline(case),
        tuple(screen.verdict_sentences(case, now)),
        pd.DataFrame([line.row() for line in table]),
        pd.DataFrame([bar.row() for bar in bars]),
    )


def teaches(name: str, preset: Preset) -> tuple[str, ...]:
    return f"**{label(name)}**", screen.seed_line(preset), LESSONS.get(name, "")


def data_captions(case: screen.Case) -> tuple[str, ...]:
    return tuple(f"Data ({where}): {note}" for note, where in screen.data_notes(case).items())


@dataclass(frozen=True, eq=False)
class TimesTold:
    bars: pd.DataFrame  # the times the sentences quote, drawn (empty: nobody timed it)
    title: str
    sentences: tuple[str, ...]
    data: tuple[str, ...]  # what data the runs really used, when not what was asked


def times_told(case: screen.Case, threads: int) -> TimesTold:
    bars = times.time_bars(case)
    said = (times.cold_sentence(case, bars), times.live_cpu_sentence(case, bars, threads))
    return TimesTold(
        pd.DataFrame([b.row() for b in bars]), times.times_title(case), tuple(s for s in said if s), data_captions(case)
    )


@dataclass(frozen=True, eq=False)
class CurvesTold:
    before: tuple[str, ...]  # the curves that could not be trained, how many epochs
    after: tuple[str, ...]  # markdown under the chart: does each learn, do they start alike
    differing: str | None  # a caption: recorded at other settings
    missing: bool  # no recorded GPU curve ships (the page says so in a notice)
    data: tuple[str, ...]  # the curves' data notes not said for the timed rows (captions, last)
    minibatch: str | None  # what the seed's minibatch run got wrong, when this is it
    frame: pd.DataFrame  # the loss chart's points (empty: none measured or recorded)


def curves_told(case: screen.Case, curves: screen.Curves) -> CurvesTold:
    seen = screen.data_notes(case)
    after = [learn_sentence(losses, f"**{name}**") for name, losses in curves.losses.items()]
    after += [s for s in [same_start_sentence(curves.losses)] if s]
    return CurvesTold(
        (*curves.failures, screen.epochs_sentence(curves, case.preset)),
        tuple(after),
        f"Recorded at other settings than this page's curve: {', '.join(curves.differing)}."
        if curves.differing
        else None,
        not curves.recorded,
        tuple(screen.curve_data_notes(case, curves, seen)),
        screen.minibatch_sentence(curves, case.preset),
        pd.DataFrame([p.row() for p in screen.loss_points(curves)]),
    )
