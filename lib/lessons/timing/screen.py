"""The Timing pitfalls page's screen object: the points on screen (lib.lessons.timing.view.Screen), the
one-sentence answer and its notes, the time and rate charts' rows, and each expander's sentences (built
only when it is opened). No Streamlit; pages/timing_pitfalls.py lays it out.

    requests = live_requests(flags, devices, size=1024, point_budget_s=0.1, threads=1)
    shown = timing_screen(flags, 1024, lesson.live_points(measured), pack, "NVIDIA H200", with_cpu=False)
    shown.answer, shown.notes, shown.time_rows, shown.sync_lines(), shown.rate_rows
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from lib.core.point import Point
from lib.core.request import LiveRequest
from lib.lessons.common import onscreen
from lib.lessons.common.in_series import ChartRow
from lib.lessons.timing import view as lesson
from lib.lessons.timing import words
from lib.lessons.timing.answer import timing_answer, timing_notes


class Toggle(NamedTuple):
    """A switch under the chart as the page draws it."""

    label: str
    default: bool
    help: str


# the switches under the chart by their URL key; the first two in the left column
TOGGLES = {
    "sync": Toggle(
        "Synchronise before reading the clock",
        True,
        "On: the harness waits for the device (torch.cuda.synchronize()) before every clock read. Off: a naive "
        "timer, which on a GPU measures only how long it takes to queue the work.",
    ),
    "cold": Toggle(
        "Show the cold first call",
        True,
        "The very first call of each point, timed on its own and never part of the median.",
    ),
    "tf32": Toggle(
        "Faster, less precise arithmetic (TF32)",
        False,
        "fp32 matmuls computed in TF32 on NVIDIA tensor cores (fp32 range, 10-bit mantissa); the CPU runs fp32.",
    ),
    "transfer": Toggle(
        "Count the host → device copy",
        False,
        "Copy both inputs from (pinned) host memory inside every timed call, as if they came from the CPU "
        "each time. Nothing to copy on the CPU.",
    ),
}
LEFT_COLUMN = 2  # toggles in the left column
SIZE_LABEL = "Matrix size (rows = columns; the point explained)"
SIZE_HELP = "The curves always cover every size; seed 003 used 15,360."
X_TITLE = "matrix size (rows = columns)"
NOTHING_TIMED = "Nothing was timed at these settings, so there is no curve to draw; the notes below say why."
SEED_WHY = (
    f"Seed 003 timed {lesson.SEED_REPORTED}. Work on a GPU is queued, not waited for (CUDA calls are "
    "asynchronous): `a @ b` on the GPU returns as soon as the work is queued, so a clock read right after it "
    "measures the queueing, not the arithmetic. Here the same square matmul is timed over a range of sizes on "
    "both devices; each switch shows one way the numbers can mislead. Both axes are logarithmic."
)
COLD_CAPTION = (
    "The first call pays one-off costs that later calls do not (on a GPU, for example creating the "
    "cuBLAS handle and choosing a kernel for the shape; the first call of a run also starts the CUDA "
    "context). The warm median leaves it out; report it separately when it matters."
)
COLD_OFF = "Switch on **Show the cold first call** to draw each point's first call beside the warm median."
RATE_CAPTION = (
    "Achieved floating-point operations per second (FLOP/s) = 2·size³ operations ÷ the time of one "
    "call. “Best measured here” (dotted lines) is the highest among the synchronised points on screen "
    "for that device and number format: a measurement from this sweep, not a datasheet number."
)
RESULT_COLUMNS = (
    "series",
    "recorded_on",
    "size",
    "dtype",
    "sync",
    "transfer",
    "median_s",
    "iqr_s",
    "cold_s",
    "achieved_flops_per_s",
    "phase_transfer_s",
    "repeats",
    "num_threads",
    "status",
    "message",
    "note",
)
RECORD_CAPTION = (
    "The app then shows that GPU curve beside the live CPU. `python3 scripts/record_packs.py "
    "--topics timing` records the baseline and each toggle on its own."
)


def variant(flags: Mapping[str, bool]) -> lesson.Variant:
    """The timing the switches ask for (the cold first call is drawn or not; it is always timed)."""
    return lesson.variant_of(flags["sync"], flags["tf32"], flags["transfer"])


def live_requests(
    flags: Mapping[str, bool], devices: Sequence[str], *, size: int, point_budget_s: float, threads: int
) -> dict[str, tuple[str, LiveRequest]]:
    """Each timing the view needs (lesson.views), its live measurement with the label its progress bar shows."""
    return {
        name: (
            lesson.measure_label(v, devices),
            lesson.live_request(v, devices, size=size, point_budget_s=point_budget_s, threads=threads),
        )
        for name, v in lesson.views(variant(flags)).items()
    }


class Crossing(NamedTuple):
    """The time chart's crossover rule: where (None: no rule) and its label."""

    x: float | None
    label: str | None


@dataclass(frozen=True)
class TimingScreen:
    view: lesson.Screen  # the view's points and the honest baseline's, each in its series
    size: int
    cold: bool  # the cold first call drawn
    answer: str  # the one sentence above the chart
    notes: str  # what the answer leaves out, under the chart
    same_machine: str | None  # how the recording machine is named before its own comparison (its pack's CPU)
    found: onscreen.RecordedViews  # what the pack holds of the view: its rows (downloads), its machine, what is missing
    missing: str | None  # why a timing the view needs has no recorded GPU curve, where one has none

    @property
    def variant(self) -> lesson.Variant:
        return self.view.variant

    @property
    def tf32(self) -> bool:
        return self.variant.tf32

    @property
    def transfer(self) -> bool:
        return self.variant.transfer

    @property
    def order(self) -> list[str]:
        return self.view.order

    @cached_property
    def time_rows(self) -> list[ChartRow]:
        """The time chart's lines (the view's, its partners', the baseline's; the cold first calls when drawn)."""
        return lesson.time_lines(self.view, self.cold)

    @property
    def timed(self) -> bool:
        """Whether the time chart has a measured point to draw (time_lines' points)."""
        partners = [t for name in lesson.partner_lines(self.variant) for t in self.view.by_view.get(name, ())]
        warm = any(t.ok for t in [*self.view.points, *partners])
        return warm or (self.cold and any(t.cold_ok for t in self.view.current))

    @property
    def crossing(self) -> Crossing:
        """Where the chart draws the crossover's rule and its label: none where the sentence names no value."""
        analysis = lesson.crossovers(self.view).live
        return Crossing(onscreen.crossing_x(analysis), onscreen.crossing_label(analysis))

    @property
    def line_names(self) -> list[str]:
        return lesson.line_names(self.variant)

    @property
    def file_stem(self) -> str:
        return lesson.file_stem(self.variant)

    def sync_lines(self) -> list[str]:
        return words.sync_sentences(
            self.view.current, self.view.partner_points(lesson.Switch.SYNC), self.variant, self.size, self.order
        )

    def repeats_caption(self) -> str | None:
        repeats = onscreen.repeats_span(self.view.table_rows())
        if not repeats:
            return None
        return (
            f"Warm points: the median of {repeats} timed repeats after warm-up (bars: interquartile range). "
            "Colour is where it was measured, the line style how it was timed."
        )

    def crossover_lines(self) -> list[str]:
        return [s.markdown() for s in lesson.crossover_sentences(self.view, self.same_machine)]

    def cold_lines(self) -> list[str]:
        return words.cold_sentences(self.view.current, self.size, self.order) if self.cold else []

    def cold_caption(self) -> str:
        return COLD_CAPTION if self.cold else COLD_OFF

    def tf32_lines(self) -> list[str]:
        return words.tf32_sentences(
            self.view.current, self.view.partner_points(lesson.Switch.TF32), self.variant, self.size, self.order
        )

    def transfer_lines(self) -> list[str]:
        return words.transfer_sentences(
            self.view.current, self.view.partner_points(lesson.Switch.TRANSFER), self.variant, self.size, self.order
        )

    def rate_rows(self) -> list[ChartRow]:
        return lesson.rate_lines(self.view)

    def best_rates(self) -> list[words.BestRate]:
        """The best synchronised rate on screen per device and number format (the rate chart's dotted rules)."""
        return words.best_rates(self.view.points, self.order)

    def rate_rules(self) -> list[dict[str, str | float | int]]:
        """best_rates() as the rate chart's data."""
        return [b.record() for b in self.best_rates()]

    def rate_dashes(self) -> list[str]:
        return [lesson.variant_label(self.variant), *lesson.partner_lines(self.variant), lesson.baseline_line()]

    def rate_lines(self) -> list[str]:
        return words.flops_sentences(self.view.current, self.view.points, self.variant, self.size, self.order)


def timing_screen(
    flags: Mapping[str, bool],
    size: int,
    live: Mapping[str, Sequence[Point]],
    pack: dict[str, Any] | None,
    label: str,
    *,
    with_cpu: bool,
) -> TimingScreen:
    """The live points per timing (live_requests' names) and the pack's recorded ones (its source's `label`), on
    screen with their words."""
    chosen = variant(flags)
    found = lesson.recorded(pack, label, chosen, size, with_cpu=with_cpu)
    view = lesson.screen(chosen, live, found, found.machine)
    apart = onscreen.apart_note(found, [t for drawn in view.apart.values() for t in drawn])  # every view is drawn
    return TimingScreen(
        view,
        size,
        bool(flags["cold"]),
        timing_answer(view, size),
        " ".join(n for n in (timing_notes(view, size), apart) if n),
        onscreen.same_machine_intro(pack["machine"]) if pack else None,
        found,
        lesson.missing_note(found, label),
    )
