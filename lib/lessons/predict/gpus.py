"""The GPU side of a prediction: each recorded GPU's step for a model at a batch size, with its band.

Two ways, each StepPoint saying which (`origin`, `origin_note`), both the Training page's cost model
(lib.lessons.training.model: one lib.core.costmodel form, priced by one machine's recordings):

- A Training family at the page's settings, on a GPU that recorded it: the page's own point
  (lib.lessons.training.view.curve): recorded, derived from a recorded step, or predicted by the
  family's own model with its k-fold band. What `/training?model=cnn` draws, number for number.
- Anything else (a model of one's own, a torchvision network the page does not offer, a family at other
  settings or on a GPU that never recorded it): the cost model fitted to every family that GPU recorded,
  fed the model's counted terms (FLOPs and bytes counted by PyTorch, kernels from its traced step). No
  recorded step of that model steers it (no neighbour correction), so its band is the family-out error:
  each recorded family left out of the fit in turn and its steps predicted from their counted terms alone,
  as a model nobody recorded is (lib.lessons.training.family_out, as the hold-out benchmark prints it); the band
  is the worst family's 90th percentile.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from lib.core import costmodel
from lib.core.cache import on_disk
from lib.core.fmt import and_list
from lib.core.point import Frozen
from lib.lessons.predict.models import ModelSpec
from lib.lessons.training import model as cost_model
from lib.lessons.training import step_tables
from lib.lessons.training import view as training_view
from lib.lessons.training.family_out import Recorded, family_out, fitted, pooled
from lib.lessons.training.screen import gpu_name
from lib.lessons.training.step_point import EpochBand, StepPoint
from lib.recorded.ceilings import Ceilings, ceilings_for
from lib.recorded.recording import Recording
from lib.recorded.sources import GpuSource, hardware_text, machine_text, recorded_sources, source_recording
from lib.workloads import FAMILIES, execution
from lib.workloads.family import SWITCHES, TrainingFamily

_LIB = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class RecordedGpu:
    """One recorded GPU machine as the Training page names it."""

    source: GpuSource
    recording: Recording
    ceilings: Ceilings | None

    @property
    def machine(self) -> str:
        """'NVIDIA H200, 2026-11-28' (the page's machine words for its tables)."""
        return machine_text(self.recording.machine)

    @property
    def label(self) -> str:
        """'NVIDIA H200, 2026-11-21, 2026-11-23 and 2026-11-28': the machine and every day it recorded."""
        return self.source.label

    @property
    def name(self) -> str:
        return gpu_name(self.machine)  # 'H200'

    def table(self, family: TrainingFamily) -> step_tables.StepTable | None:
        return step_tables.tables(self.recording, self.machine, family).get("cuda")

    def recorded(self) -> list[TrainingFamily]:
        """The family records (one per choice value) this GPU recorded Training steps of."""
        return [f for family in FAMILIES for f in family.every_pick() if len(self.table(f) or ())]

    @cached_property
    def pooled(self) -> Pooled | None:
        return pooled_model(self)


def recorded_gpus(recordings: Sequence[Recording]) -> list[RecordedGpu]:
    """Every one-GPU machine with recorded Training steps, in the sidebar's order."""
    out = []
    packs = [r.pack for r in recordings]  # the ceilings read pack dicts
    for source in recorded_sources(recordings):
        recording = source_recording(source, recordings) if source.gpus == 1 else None
        if recording is None:
            continue
        gpu = RecordedGpu(source, recording, ceilings_for(hardware_text(recording.machine), packs))
        if gpu.recorded():
            out.append(gpu)
    return out


@dataclass(frozen=True)
class Pooled:
    """A GPU's cost model fitted to every family it recorded, and each family's error when left out."""

    model: costmodel.CostModel
    families: tuple[str, ...]  # the families' labels, as fitted
    family_out: Mapping[str, costmodel.Error]  # family label -> its steps predicted by a fit without it

    def worst(self) -> tuple[str, costmodel.Error] | None:
        if not self.family_out:
            return None
        return max(self.family_out.items(), key=lambda kv: kv[1].p90)


def pooled_model(gpu: RecordedGpu) -> Pooled | None:
    families = gpu.recorded()
    steps = [(f.key, f.label, gpu.table(f).steps) for f in families]
    return _pooled(gpu.label, [(k, s) for k, _, s in steps], families, gpu) if families else None


# the pooled fits with their family-out errors take seconds (the families' counted terms most): kept on disk,
# keyed by the recorded steps and the code and shipped counts that turn them into terms and fit them
@on_disk(
    "predict-pooled",
    code=[
        _LIB / "core",
        _LIB / "workloads",
        *sorted((_LIB / "workloads").glob("*.json")),
        _LIB / "lessons" / "training",
        Path(__file__),
    ],
)
def _pooled(label: str, steps: list, _families: Sequence[TrainingFamily], _gpu: RecordedGpu) -> Pooled | None:
    return _fit(_families, _gpu)


def _fit(families: Sequence[TrainingFamily], gpu: RecordedGpu) -> Pooled | None:
    recorded = [Recorded(f, gpu.table(f).steps) for f in families]
    every = fitted(recorded)
    if len(every) < costmodel.MIN_POINTS:
        return None
    labels = {f.name: f.label for f in families}
    out = {
        labels[name]: costmodel.Error.of(pooled(errors))
        for name, errors in family_out(recorded).items()
        if pooled(errors)
    }
    return Pooled(costmodel.fit(every, "cuda"), tuple(dict.fromkeys(labels.values())), out)


def on_page(spec: ModelSpec, settings: Mapping[str, Any]) -> training_view.View | None:
    """The Training page's view of these settings, where the page draws this model (a family at its page
    defaults, each choice one the page offers); None for anything else."""
    if spec.own:
        return None
    family = spec.family
    try:
        family = family.pick(**{k: settings[k] for k in family.choices})
    except (TypeError, ValueError):
        return None
    if any(settings.get(k) != v for k, v in family.page_defaults().items()):
        return None
    return training_view.View(
        over="batch_size",
        family=family,
        sizes=[(k, int(settings[k])) for k in family.axes],
        mode=settings["mode"],
        **{k: bool(settings[k]) for k in SWITCHES},
    )


def page_points(spec: ModelSpec, gpu: RecordedGpu, batches: Sequence[int]) -> dict[int, StepPoint]:
    """The page's own GPU points of these batches (those its recordings cover), by batch size."""
    view = on_page(spec, spec.at(batches[0]))
    table = gpu.table(view.family) if view is not None else None
    if view is None or table is None or not len(table):
        return {}
    curve = training_view.curve(view, table, "cuda:0", gpu.machine, xs=list(batches))
    return {int(p.settings["batch_size"]): p for p in curve}


@dataclass(frozen=True)
class Band:
    """The error a pooled prediction carries, and where it was measured."""

    error: costmodel.Error
    words: str


def band_of(gpu: RecordedGpu, others: Sequence[RecordedGpu]) -> Band | None:
    """The family-out error of this GPU (its worst family); where it recorded one family only, the
    worst of another GPU's, said so."""
    pooled = gpu.pooled
    if pooled is None:
        return None
    worst = pooled.worst()
    if worst is not None:
        label, error = worst
        return Band(
            error,
            f"when each of its recorded families ({', '.join(pooled.families)}) was left out and "
            f"predicted, the worst ({label}) came within ×{error.median_factor:.2f} for half its "
            f"steps, ×{error.p90_factor:.2f} for nine in ten",
        )
    borrowed = [(g, g.pooled.worst()) for g in others if g is not gpu and g.pooled and g.pooled.worst()]
    if not borrowed:
        return None
    g, (label, error) = max(borrowed, key=lambda b: b[1][1].p90)
    return Band(
        error,
        f"it recorded only the {and_list(pooled.families)} here, so no other family was left out "
        f"on it: the band is the {g.name}'s family-out error (its worst, {label}: ×"
        f"{error.median_factor:.2f} for half, ×{error.p90_factor:.2f} for nine in ten)",
    )


def pooled_point(spec: ModelSpec, gpu: RecordedGpu, batch: int, band: Band | None) -> StepPoint | None:
    """The pooled cost model's step for the model at this batch on this GPU."""
    pooled = gpu.pooled
    if pooled is None:
        return None
    settings = spec.at(batch)
    family = spec.family
    work = family.workload
    config = step_tables.step_config(settings, "cuda")
    machine = cost_model.MachineModel(pooled.model, cost_model.KernelCounts({}, family), "cuda")
    terms = machine.terms(config, settings)
    seconds, _, _ = pooled.model.predict(config, terms, ())
    spread = math.exp(band.error.p90) if band else 1.0
    steps = (
        work.steps_per_epoch(settings)
        if hasattr(work, "steps_per_epoch")
        else math.ceil(int(settings["dataset_size"]) / min(batch, int(settings["dataset_size"])))
    )
    mode = execution.label(str(settings["mode"]))
    note = (
        f"predicted from {pooled.model.points:,} steps of the {and_list(pooled.families)} recorded on "
        f"{gpu.label}, from this model's counted FLOPs, bytes and traced kernels ({mode}); "
        + (f"band: {band.words}" if band else "no error was measured for a model it never saw")
    )
    return StepPoint.of_prediction(
        work.name,
        Frozen(settings),
        "cuda:0",
        gpu.machine,
        (steps, seconds),
        note,
        flops=work.flops(settings),
        bytes=work.bytes_moved(settings),
        launch_share=machine.launch_share(config, settings),
        band=EpochBand(seconds / spread * steps, seconds * spread * steps),
        kernels_counted=terms.get("kernels"),
    )


def gpu_points(
    spec: ModelSpec, gpu: RecordedGpu, batches: Sequence[int], others: Sequence[RecordedGpu]
) -> list[StepPoint]:
    """One point per batch: the page's where it has one, else the pooled cost model's."""
    page = page_points(spec, gpu, batches)
    band = band_of(gpu, others) if len(page) < len(batches) else None
    points = [page.get(b) or pooled_point(spec, gpu, b, band) for b in batches]
    return [p for p in points if p is not None]
