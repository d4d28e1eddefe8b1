"""One point of a recorded machine's Training curve, typed: a step recorded at these settings, derived from
one recorded at another batch, or predicted by the machine's cost model, with its epoch and where it came from.

    point = view.point(View(), table, "cuda:0", "NVIDIA H200, 2026-11-21")
    point.epoch_s, point.origin, point.band, point.by_recording
    point.to_row()              # the row the words and the chart read: built here only

No Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from lib.core.point import Frozen
from lib.core.rows import Origin, Status


class EpochBand(NamedTuple):
    """An epoch's range: the cost model's band of a predicted one, the days' range of one recorded on several."""

    low: float | None
    high: float | None


class DayEpoch(NamedTuple):
    """One recording's epoch of a step recorded on several days."""

    recording: str  # 'NVIDIA H200 (2026-11-23)'
    epoch_s: float


class Profile(NamedTuple):
    """What a recording counted of its step besides its time (None: not counted)."""

    kernels: float | None = None
    device_busy_s: float | None = None
    cold_s: float | None = None
    num_threads: int | None = None


NO_PROFILE = Profile()


@dataclass(frozen=True)
class StepPoint:
    """One step on one device of a recorded machine, and its epoch: `steps_per_epoch` steps of `median_s`."""

    workload: str
    settings: Frozen  # every setting of the step, the page's defaults first
    device: str
    machine: str  # the recording it came from ('NVIDIA H200 (2026-11-23)') or the machine's words
    steps_per_epoch: int
    median_s: float
    iqr_s: float
    repeats: int
    epoch_s: float
    origin: Origin  # RECORDED, DERIVED or PREDICTED
    origin_note: str  # how the time was had, in words
    flops: float | None = None  # the step's work, counted (not timed): its place on the roofline
    bytes: float | None = None
    launch_share: float | None = None  # the cost model's split of the step (None: a profile says, or nothing)
    band: EpochBand | None = None  # predicted: the model's; recorded on several days: the days' range
    by_recording: tuple[DayEpoch, ...] = ()  # each day's epoch, where the step was recorded on several
    profile: Profile = NO_PROFILE
    kernels_counted: float | None = None  # a pooled prediction's kernels, counted by tracing the model

    @classmethod
    def of_prediction(
        cls, workload: str, settings: Frozen, device: str, machine: str, epoch: tuple[int, float], note: str, **counted
    ) -> StepPoint:
        """A step the cost model predicts: `epoch` its (steps per epoch, seconds a step); `counted` its flops,
        bytes, launch_share, band and kernels_counted. Never timed: no spread, no repeats."""
        steps, seconds = epoch
        return cls(
            workload,
            settings,
            device,
            machine,
            steps,
            seconds,
            0.0,
            0,
            seconds * steps,
            Origin.PREDICTED,
            note,
            **counted,
        )

    @property
    def predicted(self) -> bool:
        return self.origin is Origin.PREDICTED

    # the read surface a LivePoint shares (lib.lessons.training.reading): what the words read of a point
    @property
    def status(self) -> Status:
        return Status.OK  # a recorded curve holds only the steps that ran

    @property
    def message(self) -> str:
        return ""

    @property
    def epoch_band(self) -> EpochBand | None:
        """The band the point's spread is read from: a prediction's, or the days' of a step recorded on several."""
        return self.band if self.predicted or self.by_recording else None

    @property
    def median_band(self) -> EpochBand | None:
        return None  # a step's band is its epoch's only

    @property
    def kernels(self) -> float | None:
        return None if self.predicted else self.profile.kernels

    @property
    def cold_s(self) -> float | None:
        return None if self.predicted else self.profile.cold_s

    def to_row(self) -> dict[str, Any]:
        """The point as a row, for the words that read rows and the chart's data: the same keys in the
        same order whatever the point's origin has always written."""
        row: dict[str, Any] = {
            "workload": self.workload,
            **self.settings,
            "device": self.device,
            "steps_per_epoch": self.steps_per_epoch,
            "status": "ok",
            "message": "",
            "machine": self.machine,
        }
        timed = {"median_s": self.median_s, "iqr_s": self.iqr_s, "repeats": self.repeats, "epoch_s": self.epoch_s}
        said = {"origin": self.origin.value, "origin_note": self.origin_note}
        band = self.band or EpochBand(None, None)
        if self.predicted:
            row.update(timed, epoch_s_low=band.low, epoch_s_high=band.high, **said)
            if self.kernels_counted is not None:
                row["kernels_counted"] = self.kernels_counted
            row.update(launch_share=self.launch_share, flops=self.flops, bytes=self.bytes)
            return row
        row.update((k, v) for k, v in self.profile._asdict().items() if v is not None)
        row.update(flops=self.flops, bytes=self.bytes)
        if self.by_recording:
            row.update(
                recordings=len(self.by_recording),
                epoch_s_low=band.low,
                epoch_s_high=band.high,
                epoch_s_by_recording=dict(self.by_recording),
            )
        if self.launch_share is not None:
            row["launch_share"] = self.launch_share
        row.update(timed, **said)
        return row
