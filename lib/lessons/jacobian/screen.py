"""The Jacobian page's screen object: the points on screen with their legend order, the one-sentence answer
and its notes, the time chart's rows, and every longer sentence read from them (built only when an
expander asks). No Streamlit; pages/jacobian.py lays it out.

    shown = jacobian_screen(live_points(measured), found, val, methods)   # found: onscreen.recorded_views(...)
    shown.answer, shown.notes, shown.time_rows, shown.at_val(), shown.why()
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lib.core.fmt import fmt_value
from lib.core.point import Point, points_of
from lib.core.request import LiveRequest
from lib.lessons.common import onscreen
from lib.lessons.common.in_series import ChartRow
from lib.lessons.common.one_day import APART
from lib.lessons.jacobian import memory
from lib.lessons.jacobian import view as lesson
from lib.lessons.jacobian.answer import jacobian_answer, jacobian_notes
from lib.lessons.jacobian.points import MethodPoint
from lib.workloads.jacobian import METHODS

X_TITLE = "inputs in the batch (val)"
VAL_HELP = "The seed ran 100 and 1000. The curves always cover 1, 10, 100 and 1,000, plus this value."
METHODS_HELP = (
    "\n".join(f"- {lesson.LONG[m]}" for m in METHODS)
    + "\n\nAll four give the same numbers on the diagonal blocks (the workload checks it)."
)
DASH_ORDER = [lesson.LABEL[m] for m in METHODS]  # the methods' line styles, and the memory chart's colours
SEED_WHY = (
    "Seed 004 computed the Jacobian (every output's derivative with respect to every input) of a small tanh "
    "network (1 input → 20 → 20 → 400 outputs) over a batch of `val` inputs with "
    f"`torch.autograd.functional.jacobian`, on the CPU and on the GPU. It reported {lesson.SEED_REPORTED}: the "
    "GPU won only at the larger batch. Here the same Jacobian is computed four ways (the chart opens on the seed's "
    "loop and vmap(jacrev); the pills add the other two) and timed on both devices. "
    "Both axes of the time chart are logarithmic."
)
MEMORY_CAPTION = (
    "Lines: the workload's own estimate of peak memory, checked before anything is allocated. "
    "Circles: points timed; crosses (×): points not timed. On the CPU the loop's estimate includes the "
    "per-pass temporaries the C allocator cannot reuse."
)
RESULT_COLUMNS = (
    "series",
    "recorded_on",
    "method",
    "val",
    "median_s",
    "iqr_s",
    "repeats",
    "flops",
    "peak_memory_estimate_bytes",
    "num_threads",
    "status",
    "message",
)
RECORD_CAPTION = (
    "One sweep per method; the app then shows those GPU curves beside the live CPU. `python3 "
    "scripts/record_packs.py --topics jacobian` records the page's default view and more."
)


@dataclass(frozen=True)
class JacobianScreen:
    points: tuple[MethodPoint, ...]  # every point on screen, in its series
    order: list[str]  # the series in the legend's order
    val: int
    methods: tuple[str, ...]
    answer: str  # the one sentence above the chart
    notes: str  # what the answer leaves out, under the chart
    machine_label: str | None = None  # the recording machine drawn ('NVIDIA H200, 2026-11-21')
    same_machine: str | None = None  # how that machine is named before its own comparison (its pack's CPU)
    apart: tuple[MethodPoint, ...] = ()  # recorded points of another day than the lines': drawn apart, never said

    @property
    def time_rows(self) -> list[ChartRow]:
        """The time chart's rows: the timed points, and the other days' points marked to be drawn apart."""
        shown = lesson.time_rows([p for p in self.points if p.ok])
        return shown + [{**row, APART: True} for row in lesson.time_rows([p for p in self.apart if p.ok])]

    @property
    def why_none(self) -> str:
        """Why the time chart is empty, where it is."""
        if not self.methods:
            return "No method is chosen, so there is no curve to draw."
        return "Nothing was timed at these settings, so there is no curve to draw; the points not measured (below) say why."

    def at_val(self) -> list[str]:
        """What the measurements say at the chosen val: its heading, then a sentence per method."""
        return [f"At val = {fmt_value(self.val)}:", *lesson.at_val_sentences(self.points, self.val, self.order)]

    def table_rows(self) -> list[dict[str, Any]]:
        """The points on screen as rows, for the table and the downloads (ui.scaffold reads rows)."""
        return [p.row() for p in self.points]

    def repeats_caption(self) -> str | None:
        repeats = onscreen.repeats_span(self.table_rows())
        if not repeats:
            return None
        return (
            f"Each point: the median time of one full Jacobian over {repeats} timed repeats (bars: "
            "interquartile range); the warm-up calls are not counted. Colour is where it was measured, "
            "the line style the method. Points not timed are marked × on the memory chart."
        )

    def crossover_lines(self) -> list[str]:
        """Where the GPU starts to win, method by method (and on the recording machine, its CPU on screen)."""
        return [
            s.markdown()
            for s in lesson.crossover_lines(self.points, self.methods, self.machine_label, self.same_machine)
        ]

    def why(self) -> list[str]:
        return lesson.why_sentences(self.points, self.val, self.methods, self.order)

    def memory_estimates(self) -> list[dict[str, str | int | float]]:
        """The memory chart's lines: each method's estimated peak memory along val, on the GPU too where a GPU
        curve is on screen."""
        return [
            e.record()
            for e in memory.memory_estimates(
                self.methods, lesson.VALS, gpu=onscreen.gpu_series(self.table_rows()) is not None
            )
        ]

    def memory_marks(self) -> list[dict[str, str | int | float]]:
        """The memory chart's marks: every point on screen, timed or not."""
        return [m.record() for m in memory.memory_marks(self.points)]

    def not_measured(self) -> list[dict[str, str | int | None]]:
        """The table of the points not timed, each with the reason."""
        return [p.record() for p in memory.not_measured(self.points)]


def live_requests(
    methods: Sequence[str],
    grid: Sequence[int],
    devices: Sequence[str],
    *,
    live_budget_s: float,
    threads: int,
    memory_cap_gb: float,
) -> dict[str, tuple[str, LiveRequest]]:
    """Each chosen method's live measurement over the grid, with the label its progress bar shows."""
    budget = lesson.point_budget(live_budget_s)
    return {
        m: (
            lesson.measure_label(m, grid, devices),
            lesson.live_request(m, grid, devices, point_budget_s=budget, threads=threads, memory_cap_gb=memory_cap_gb),
        )
        for m in methods
    }


def jacobian_screen(
    live: Sequence[Point],
    found: onscreen.RecordedViews,
    val: int,
    methods: Sequence[str],
    pack: Mapping[str, Any] | None = None,
) -> JacobianScreen:
    """The live points and the recorded ones found for the view in `pack`, each in its series, with the words
    read from them."""
    points = onscreen.labelled_points(MethodPoint, live, found, found.machine)
    order = onscreen.series_order([p.row() for p in points], found.machine)
    apart = onscreen.apart_points(MethodPoint, found)
    return JacobianScreen(
        points,
        order,
        val,
        tuple(methods),
        jacobian_answer(points, val, methods),
        " ".join(n for n in (jacobian_notes(points, val, methods), onscreen.apart_note(found, apart)) if n),
        found.machine,
        onscreen.same_machine_intro(pack["machine"]) if pack else None,
        apart,
    )


def live_points(measured: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[Point]:
    """The adapter to the live path's results (each method's rows: view.live_rows): one list of points."""
    return points_of(r for rows in measured.values() for r in rows)
