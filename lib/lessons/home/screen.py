"""The Home page's screen object: the Training page's answer at its default view, for one recorded GPU machine
(lib.lessons.training.scene: the same lesson, recorded curves only, since Home measures nothing live). No
Streamlit; pages/home.py lays it out, ui.home_answer keeps it.

    screen = first_answer([chosen], recordings)   # Training at its defaults; None: no machine recorded its model
    screen.headline, screen.rows(), screen.crossover
    refusal(cannot)                               # a machine Home cannot answer with: one sentence up top
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lib.lessons.training import scene
from lib.lessons.training.screen import CrossingRange, Screen
from lib.lessons.training.view import View
from lib.recorded.recording import Recording
from lib.recorded.sources import has_gpu_rows

DEFAULT = View()  # the Training page's view before a visitor moves anything
# The recorded small server's CPU is drawn at one thread, as it was recorded; a live run's thread count,
# which Training offers on a bigger server, does not apply to a page that measures nothing.
THREADS = 1


@dataclass(frozen=True)
class HomeScreen:
    """What Home shows: the Training page's first screen (recorded curves only) at its default view."""

    training: Screen

    @property
    def headline(self) -> str:
        """The one sentence above the chart: Training's headline."""
        return self.training.headline

    @property
    def notes(self) -> str:
        """Said under the chart, as Training says it: points too close to call, other days."""
        return self.training.headline_notes

    @property
    def caption(self) -> str:
        """Where each curve's numbers came from."""
        return " ".join(self.training.provenance)

    @property
    def crossover(self) -> CrossingRange | None:
        """The crossover range the chart shades and marks (low, high, likely)."""
        return self.training.crossover

    @property
    def gpu_drawn(self) -> bool:
        """Whether the default view has a curve of this GPU (else Training's words say where it was recorded)."""
        return self.training.gpu_label in self.training.curves

    def rows(self) -> list[dict[str, Any]]:
        """Every point the chart draws, as Training's chart draws them (its rows' type too)."""
        return self.training.rows()


def home_screen(recording: Recording, recordings: Sequence[Recording]) -> HomeScreen:
    """Training at its defaults for `recording`'s GPU machine, beside the shipped small server's CPU (`recordings`)."""
    gpu, small = scene.machines(recording, recordings, DEFAULT.family)
    return HomeScreen(scene.Scene(DEFAULT, gpu, small, host_cpu=False, threads=THREADS).recorded())


def first_answer(candidates: Iterable[Recording | None], recordings: Sequence[Recording]) -> HomeScreen | None:
    """Home's answer from the first of `candidates` (each one GPU machine's packs as one) that recorded the
    default model on its GPU: the first whose default view draws its GPU curve, else Training's words for the
    first (where that GPU has a curve); None where none recorded it."""
    first = None
    for recording in candidates:
        if recording is None or not answers(recording.pack):
            continue
        shown = home_screen(recording, recordings)
        if shown.gpu_drawn:
            return shown
        first = first or shown
    return first


def answers(pack: Mapping[str, Any] | None) -> bool:
    """Whether Home can answer with this GPU machine: it recorded the default model's step on its GPU."""
    return has_gpu_rows(pack, DEFAULT.family.workload)


def refusal(cannot: str) -> tuple[str, str | None]:
    """A machine Home cannot answer with: (what is not drawn up top, which machine to pick instead under it);
    one sentence up top."""
    said, _, instead = cannot.partition(". ")
    return (f"{said}.", instead) if instead else (cannot, None)
