"""What the Training page puts together before and after it measures, so the page only lays it out:
the recorded machines it draws (built from the recordings), the modes it offers with their labels, and
one `Scene` that composes every screen of a view from the same inputs (recorded first, live on top).

    gpu, small = machines(recording, recordings, family)   # the sidebar's GPU machine, a small server's CPU
    scene = Scene(view, gpu, small, host_cpu, threads, live_gpu=source.live)
    scene.recorded()                               # the first paint: recorded curves only
    scene.with_live(points)                        # this server's live points on top

No Streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from lib.core.fmt import plural
from lib.core.rows import Origin, Status
from lib.core.workload import SettingValue
from lib.lessons.training import live as training_live
from lib.lessons.training import step_tables
from lib.lessons.training import view as training_view
from lib.lessons.training.live_point import LivePoint, curve_rows
from lib.lessons.training.screen import Machine, Machines, Screen, compose
from lib.recorded.ceilings import ceilings_for
from lib.recorded.recording import Recording
from lib.recorded.sources import hardware_text, machine_text, small_server_recording
from lib.workloads.family import TrainingFamily

MODEL_LABELS = {name: f.label for name, f in training_view.BY_NAME.items()}  # the "Model trained" choice's words
MODE_HELP = (
    "Eager PyTorch launches every operation from Python; a fused optimizer, one CUDA graph of the whole "
    "step, or torch.compile remove some of those launches."
)


def axis_labels(family: TrainingFamily) -> dict[str, str]:
    """The x-axis choice's words: each of the family's sliders by its label."""
    return {key: axis.label for key, axis in family.axes.items()}


def result_columns(over: str) -> tuple[str, ...]:
    """The columns of the rows on screen the page offers to download, in this order."""
    return (
        "series",
        "recorded_on",
        over,
        "epoch_s",
        "epoch_s_low",
        "epoch_s_high",
        "median_s",
        "iqr_s",
        "steps_per_epoch",
        "repeats",
        "origin",
        "origin_note",
    )


def machines(
    recording: Recording | None, recordings: Sequence[Recording], family: TrainingFamily
) -> tuple[Machine | None, Machine | None]:
    """(the recorded GPU machine of `recording`, a small server's recorded CPU) with the family's step tables,
    as the page names them; None where there is no such recording."""
    gpu = None
    if recording:
        words, hardware = machine_text(recording.machine), hardware_text(recording.machine)
        # its measured roofline: ceilings_for reads pack dicts (lib.recorded.ceilings)
        ceilings = ceilings_for(hardware, [r.pack for r in recordings])
        gpu = Machine(step_tables.tables(recording, words, family), hardware, words, ceilings)
    small_recording = small_server_recording(recordings, family.workload)
    small = None
    if small_recording:
        words = machine_text(small_recording.machine)
        small = Machine(
            step_tables.tables(small_recording, words, family),
            f"{small_recording.machine.text('cpu_cores') or '?'}-core server",
            words,
        )
    return gpu, small


@dataclass(frozen=True)
class ModeChoice:
    """The modes the page offers (every one the recorded GPU's cost model answers, recorded there or
    not, or a live GPU's own) and each mode's words, '(predicted)' where that GPU never recorded it."""

    options: tuple[str, ...]
    labels: Mapping[str, str]  # every mode, so a link's unknown mode is answered with the default's words


def mode_choice(gpu: Machine | None, live_gpu: bool) -> ModeChoice:
    table = gpu.tables.get("cuda") if gpu else None
    options = training_view.modes_answered(table) if not live_gpu else list(training_view.LIVE_MODES)
    labels = {
        m: training_view.mode_label(m)
        + ("" if live_gpu or training_view.mode_origin(table, m) is Origin.RECORDED else " (predicted)")
        for m in training_view.MODES
    }
    return ModeChoice(tuple(options or [training_view.View.mode]), labels)


@dataclass(frozen=True)
class Scene:
    """One view's inputs to every screen the page draws of it: the first (recorded), each redraw while
    this server measures, and the last."""

    view: training_view.View
    gpu: Machine | None
    small_cpu: Machine | None
    host_cpu: bool
    threads: int
    live_gpu: bool = False

    @cached_property
    def grid(self) -> list[int]:
        """The live grid, measured once for every slider position (its crossover is the curves')."""
        return training_live.live_grid(self.view)

    @cached_property
    def fixed(self) -> dict[str, SettingValue]:
        """The live sweep's settings but the swept one."""
        return training_live.live_settings(self.view, gpu_live=self.live_gpu)

    def machines(self, *, live_gpu: bool) -> Machines:
        return Machines(
            self.gpu, small_cpu=self.small_cpu, host_cpu=self.host_cpu, live_gpu=live_gpu, threads=self.threads
        )

    def recorded(self) -> Screen:
        """Recorded curves only: what the page draws at once, before anything is measured (a live GPU's too)."""
        return compose(self.view, self.machines(live_gpu=False))

    def with_live(self, live: Sequence[LivePoint]) -> Screen:
        """The recorded curves with this server's live points on top (the live answer read from the grid)."""
        return compose(self.view, self.machines(live_gpu=self.live_gpu), live=live, grid=self.grid)


def live_notes(live: Sequence[LivePoint], view: training_view.View) -> tuple[str, list[str]] | None:
    """The title and one line per live point that was not timed or carries a message, or None."""
    problems = [p.point for p in live if p.point.status != Status.OK or p.point.message]
    if not problems:
        return None
    over = view.over
    return (
        f"Notes on {plural(len(problems), 'live point')}",
        [f"- {view.axis.label} {p.settings.get(over):,}: {p.message or p.status.value}" for p in problems],
    )


def live_rows(live: Sequence[LivePoint]) -> list[dict[str, Any]]:
    """This server's live points as the download of live rows writes them."""
    return curve_rows(live)


def recorded_gpu_rows(screen: Screen) -> list[dict[str, Any]]:
    """The recorded (not derived or predicted) rows of the screen's GPU curves: what a download calls measured."""
    return [
        p.to_row()
        for points in screen.curves.values()
        for p in points
        if p.origin is Origin.RECORDED and p.device != "cpu"
    ]
