"""The Training crossover lesson: what a view asks for, and every curve it draws, point by point.

A view is what the sliders say (View). A recorded machine's curve is one StepPoint per value on the
x-axis (lib.lessons.training.step_point), and each says where its number came from (`origin`, with
`origin_note` in words); this server's live curve is the live path's rows:

    live       measured on this server just now
    recorded   a recorded step at exactly these settings
    derived    a recorded step at this batch, times the steps in this epoch: an epoch is
               ceil(dataset / batch) steps (one full-batch step when batch >= dataset), so the
               dataset size never needs measuring again
    predicted  the recording machine's cost model (lib.lessons.training.model: one model per
               machine and device, the mode and switches as its terms), with its band; drawn dashed

No Streamlit: pages/training.py lays these out; lib/lessons/training/words.py words them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from lib.core.cache import kept
from lib.core.fmt import fmt_s
from lib.core.point import Frozen
from lib.core.rows import Origin
from lib.core.workload import SettingValue
from lib.lessons.training.recording import one_recording
from lib.lessons.training.step_point import DayEpoch, EpochBand, Profile, StepPoint
from lib.lessons.training.step_tables import StepTable, recordings, step_config
from lib.workloads import FAMILIES as _FAMILIES
from lib.workloads import execution
from lib.workloads.family import SWITCHES, Axis, TrainingFamily

FAMILIES = _FAMILIES  # the model families the page switches between (lib.workloads.family)
MLP_FAMILY = FAMILIES[0]  # the default family
BY_NAME = {f.name: f for f in FAMILIES}  # a family by its workload's name (the page's URL says it)
# every URL key some family's widgets use: those the chosen family does not are dropped from the link
FAMILY_KEYS = tuple(sorted({k for f in FAMILIES for k in (*f.axes, *(c.url for c in f.choices.values()))}))
MLP = MLP_FAMILY.workload
MODES = execution.VALUES  # in the lesson's order: the records' (lib.workloads.execution.MODES)
# The expander that compares the modes (ui.step_story); Home points at it by this name
MODES_TITLE = "How each way of running the step moves the crossover"
LIVE_MODES = tuple(m.value for m in execution.MODES if m.live)  # what a live GPU on this server runs
COMPILED_MODES = tuple(m.value for m in execution.MODES if m.compile)

AXES = MLP_FAMILY.axes  # the default family's sliders (a view's own: view.family.axes)
PITFALLS = {
    "data_resident": (
        "Data already on the device",
        "On: the dataset is copied to the device once; off: every batch is copied from host memory "
        "inside the step, as a DataLoader would feed it.",
    ),
    "item_every_step": (
        "loss.item() every step",
        "On: each step copies the loss back to the host, so the CPU must wait for the GPU to finish "
        "before it can queue the next step.",
    ),
    "pin_memory": (
        "Pinned host memory",
        "On: batches copied per step come from page-locked memory with non_blocking copies, which lets "
        "the copy overlap the GPU's work (no effect on the CPU, or when the data is resident).",
    ),
}


def _default(name: str) -> Any:
    """A setting's default as the default family's workload declares it (the page never types one again)."""
    return MLP_FAMILY.default(name)


@dataclass(frozen=True, init=False)
class View:
    """What the family, the sliders, switches and mode say; every setting starts at the family's
    workload's default. The sliders are the family's axes, read as attributes (view.batch_size,
    view.hidden_width): `View(over="depth", batch_size=4, depth=8)` for the MLP."""

    over: str = "batch_size"
    family: TrainingFamily = MLP_FAMILY
    sizes: tuple[tuple[str, int], ...] = ()  # (axis, value) of each of the family's axes, in its order
    data_resident: bool = _default("data_resident")
    item_every_step: bool = _default("item_every_step")
    pin_memory: bool = _default("pin_memory")
    mode: str = _default("mode")

    def __init__(
        self,
        over: str = "batch_size",
        family: TrainingFamily = MLP_FAMILY,
        sizes: Sequence[tuple[str, int]] = (),
        data_resident: bool | None = None,
        item_every_step: bool | None = None,
        pin_memory: bool | None = None,
        mode: str | None = None,
        **axes: int,
    ) -> None:
        given = {**dict(sizes), **axes}
        if over not in family.axes or not given.keys() <= family.axes.keys():
            unknown = sorted(set(given) - set(family.axes)) or [over]
            raise TypeError(
                f"View of {family.named}: no axis {', '.join(unknown)} (its axes: {', '.join(family.axes)})"
            )
        values = {k: int(given[k]) if k in given else family.default(k) for k in family.axes}
        for name, value in (
            ("over", over),
            ("family", family),
            ("sizes", tuple(values.items())),
            ("data_resident", data_resident),
            ("item_every_step", item_every_step),
            ("pin_memory", pin_memory),
            ("mode", mode),
        ):
            object.__setattr__(self, name, family.default(name) if value is None else value)
        for name, value in values.items():  # each axis also an attribute (view.batch_size), as a field reads
            object.__setattr__(self, name, value)

    @property
    def current(self) -> int:
        return getattr(self, self.over)

    @property
    def axis(self) -> Axis:
        return self.family.axes[self.over]

    def at(self, x: int) -> View:
        return replace(self, **{self.over: int(x)})

    def cpu_side(self) -> View:
        """The view of the CPU curve drawn beside this one: the mode itself where it changes the CPU's
        work (a fused optimizer), else eager (a CUDA graph or a compile only changes the GPU's side here)."""
        return replace(self, mode=execution.on_cpu(self.mode))

    def settings(self) -> dict[str, SettingValue]:
        """The workload's settings this view sets (its axes, switches and mode, and the model its family's
        choices pick: a torchvision network)."""
        return {**dict(self.sizes), **{k: getattr(self, k) for k in SWITCHES}, "mode": self.mode, **self.family.fixed}

    @property
    def page_defaults(self) -> Frozen:
        """Every other setting of the family's workload, at its default on this page."""
        return self.family.page_defaults()

    @property
    def key(self) -> tuple[int, int, int]:
        """The step's (rows, width, depth): what a StepTable looks it up by."""
        return self.family.step_key(self.settings())

    @property
    def rows(self) -> int:
        """Rows in one step: the batch, or the whole dataset when the batch is larger."""
        return min(self.batch_size, self.dataset_size)

    @property
    def steps_per_epoch(self) -> int:
        return math.ceil(self.dataset_size / self.rows)

    def config(self, device_kind: str) -> tuple:
        return step_config(self.settings(), device_kind)


# Everything else stays at the workload's defaults on this page; recorded rows must match them.
PAGE_DEFAULTS = MLP_FAMILY.page_defaults()


def point(view: View, table: StepTable | None, device: str, machine_words: str) -> StepPoint | None:
    """One view point on one device from a machine's recordings (None when neither a recording nor a
    model covers it)."""
    if table is None:
        return None
    config = view.config(table.device_kind)
    recorded = table.step(config, *view.key)
    steps = view.steps_per_epoch
    given = {**view.page_defaults, **view.settings()}  # what the workload's counts and the model read
    settings = Frozen(given)
    work = view.family.workload
    if recorded is not None:
        # the step's own recording ('NVIDIA H200 (2026-11-23)'), not every day of the machine nor its newest file
        machine_words = str(recorded.machine or machine_words)
        at = recorded.settings
        exact = int(at["batch_size"]) == view.batch_size and int(at["dataset_size"]) == view.dataset_size
        how = (
            f"recorded on {machine_words}"
            if exact
            else f"derived: {steps:,} step{'s' if steps != 1 else ''} of the {view.rows:,}-row step recorded on "
            f"{machine_words}"
        )
        counted = recorded.counts
        profile = Profile(counted.kernels, counted.device_busy_s, recorded.cold_s, counted.num_threads)
        days = recordings(recorded)
        by_recording, band = (), None
        if len(days) > 1:  # the band of a recorded point: its range over the days it was recorded
            times = [t for _, t in days]
            by_recording = tuple(DayEpoch(d, t * steps) for d, t in days)
            band = EpochBand(min(times) * steps, max(times) * steps)
            how += (
                f"; recorded {len(days)} times ({', '.join(d for d, _ in days)}): from {fmt_s(min(times))} to "
                f"{fmt_s(max(times))} a step, the band"
            )
        share = None
        if (
            table.device_kind == "cuda"
            and not (profile.kernels and profile.device_busy_s is not None)
            and view.data_resident is not False
            and not view.item_every_step
            and (model := table.model()) is not None
        ):
            # a step recorded without its profile is split as the cost model splits it (time_split says so), as a
            # predicted one is: the default view's point was recorded so and had no words on where its time went
            share = model.launch_share(config, given)
        # the step's work as it is counted now (every family's from its traced step), not as its recording
        # counted it: a recorded point and a predicted one beside it sit on the roofline by the same count
        return StepPoint(
            view.family.name,
            settings,
            device,
            machine_words,
            steps,
            recorded.median_s,
            recorded.iqr_s or 0.0,
            recorded.repeats,
            recorded.median_s * steps,
            Origin.RECORDED if exact else Origin.DERIVED,
            how,
            flops=work.flops(given),
            bytes=work.bytes_moved(given),
            launch_share=share,
            band=band,
            by_recording=by_recording,
            profile=profile,
        )
    rows, width, depth = view.key
    model = table.model() if table.covers(config, rows, width, depth) else None
    if model is None:
        return None
    seconds, low, high = model.predict(config, given)
    note = f"predicted from {model.model.points:,} steps recorded on {machine_words} {model.describe(config, depth)}"
    return StepPoint.of_prediction(
        view.family.name,
        settings,
        device,
        table.machine,
        (steps, seconds),
        note,
        flops=work.flops(given),
        bytes=work.bytes_moved(given),
        launch_share=model.launch_share(config, given),
        band=EpochBand(None if low is None else low * steps, None if high is None else high * steps),
    )


def curve(
    view: View, table: StepTable | None, device: str, machine_words: str, xs: Sequence[int] | None = None
) -> list[StepPoint]:
    """One point per x on the axis (every slider step by default) that the recordings cover. Read once
    per view and table per process (step_tables.tables() gives the same table while its pack is the same)."""
    if table is None:
        return []
    return list(_curve(view, table, device, machine_words, tuple(xs or ())))


# a revisit, and the mode lines' ten curves on every run, look a curve up
@kept(2048)
def _curve(view: View, table: StepTable, device: str, machine_words: str, xs: tuple[int, ...]) -> tuple[StepPoint, ...]:
    return one_recording(
        [p for p in (point(view.at(x), table, device, machine_words) for x in (xs or view.axis.steps)) if p is not None]
    )


def rows(points: Sequence[StepPoint]) -> list[dict[str, Any]]:
    """A curve as the rows its words and chart read."""
    return [p.to_row() for p in points]


class HasOrigin(Protocol):
    """A curve's point as origins counts it: a StepPoint or a LivePoint."""

    @property
    def origin(self) -> Origin | None: ...


def origins(points: Sequence[HasOrigin]) -> dict[str, int]:
    """How many points of a curve came from where: {'recorded': 3, 'derived': 9, 'predicted': 5} (a point
    that does not say counts as recorded)."""
    out: dict[str, int] = {}
    for p in points:
        key = (p.origin or Origin.RECORDED).value
        out[key] = out.get(key, 0) + 1
    return out


def modes_recorded(table: StepTable | None) -> list[str]:
    """The execution modes a machine has recordings of, in the lesson's order."""
    if table is None:
        return []
    have = {config[0] for config in table.steps}
    return [m for m in MODES if m in have]


def modes_answered(table: StepTable | None) -> list[str]:
    """Every mode the page can answer for a recorded GPU: recorded, or predicted by its cost model
    (which prices a mode never recorded there from its counted terms), in the lesson's order."""
    if table is None:
        return []
    if table.device_kind == "cuda" and len(table) >= 4:
        return list(MODES)
    return modes_recorded(table)


def mode_origin(table: StepTable | None, mode: str) -> Origin:
    """RECORDED when the machine recorded this mode at all, else PREDICTED."""
    return Origin.RECORDED if mode in modes_recorded(table) else Origin.PREDICTED


def mode_label(mode: str) -> str:
    return execution.label(mode)
