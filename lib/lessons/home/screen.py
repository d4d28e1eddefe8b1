"""The Home page's screen object: the one-sentence answer, the chart's rows, the words under it, built from
the first pack with a recorded sweep (lib.lessons.home.view). No Streamlit; pages/home.py lays it out.

    screen = home_screen(packs)        # None where no pack holds a sweep of both devices
    refusal(cannot)                    # a page that cannot answer: its one sentence up top, where to look instead
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lib.lessons.common.onscreen import Shaded
from lib.lessons.common.voice import crossover_notes, crossover_sentence, series_side
from lib.lessons.home.view import OneChart, caption, crossover_range, drawn, ends_sentence, modes_sentence, one_chart
from lib.workloads import get_workload

WORKLOAD = get_workload("mlp")
NO_RESULTS = "This copy of the app has no GPU results yet, so there is no GPU curve to answer with here."
NO_RESULTS_NOTE = (
    "No recorded GPU results shipped yet. The Training page measures the CPU live on this server; a pack "
    "recorded on a GPU machine adds the GPU side (the Your results page says how to record one)."
)


@dataclass(frozen=True)
class HomeScreen:
    """What Home shows of one recorded sweep: the sentences (markdown) and the chart's rows."""

    chart: OneChart
    answer: str  # the one sentence above the chart
    ends: str  # under it: the crossover's notes and both ends of the curve in words
    modes: str | None  # what one CUDA graph of the step does, where the chart draws it
    caption: str  # what the chart is and where each curve came from

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Every point the chart draws (each curve one recording, its band the others)."""
        return drawn(self.chart)

    @property
    def crossover(self) -> Shaded | None:
        return crossover_range(self.chart)


def home_screen(packs: Iterable[Mapping[str, Any] | None]) -> HomeScreen | None:
    """Home's answer from the first of `packs` holding a recorded sweep of both devices, else None."""
    chart = one_chart(packs, WORKLOAD)
    if not chart:
        return None
    sides = series_side(chart.cpu_label), series_side(chart.gpu_label)
    answer = (
        crossover_sentence(chart.analysis, chart.setting, *sides, hollow=True, notes=False).capitalised().markdown()
    )
    notes = crossover_notes(chart.analysis.measured, chart.setting, *sides, hollow=True)  # said under the chart
    modes = modes_sentence(chart)
    ends = " ".join(t for t in (notes, ends_sentence(chart)) if t)
    return HomeScreen(chart, answer, ends, modes and modes.markdown(), caption(chart))


def answers(pack: Mapping[str, Any]) -> bool:
    """Whether Home can answer from this pack alone (a recorded sweep of both devices)."""
    return one_chart([pack], WORKLOAD) is not None


def refusal(cannot: str) -> tuple[str, str | None]:
    """A machine Home cannot answer with: (what is not drawn up top, which machine to pick instead under it);
    one sentence up top."""
    said, _, instead = cannot.partition(". ")
    return (f"{said}.", instead) if instead else (cannot, None)
