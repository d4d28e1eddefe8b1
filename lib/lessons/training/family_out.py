"""Family out: a GPU's one cost model fitted to the recorded steps of every Training family but one predicts
that family's recorded steps, its kernels counted from its traced step alone (no profile of it, and no
recorded step of it to correct toward): how far off a prediction for a model nobody recorded is.

    errors = family_out(recorded_families(recording))   # family name -> {family key: [|log(predicted / recorded)|]}

A family is left out whole by its name (all three torchvision networks together) and its errors kept per
family key (each network, each sequence length), so a reader can show one network's share of the same hold-out.
`lib predict`'s band (lib.lessons.predict.gpus) and benchmarks/cost_model_holdout.py's family-out lines are
both this.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from lib.core import costmodel
from lib.core.workload import Settings
from lib.lessons.training.model import KernelCounts, Steps, observations
from lib.lessons.training.step_tables import tables
from lib.recorded.recording import Recording
from lib.recorded.sources import machine_text
from lib.workloads import FAMILIES
from lib.workloads.family import TrainingFamily


@dataclass(frozen=True)
class Recorded:
    """One family's recorded steps on one machine and kind of device."""

    family: TrainingFamily  # its choices fixed (one torchvision network, one sequence length)
    steps: Steps


def recorded_families(recording: Recording, kind: str = "cuda") -> list[Recorded]:
    """Every family (each value of its choices) the recording holds steps of on this kind of device."""
    machine = machine_text(recording.machine)
    out = []
    for family in FAMILIES:
        for picked in family.every_pick():
            table = tables(recording, machine, picked).get(kind)
            if table is not None and len(table):
                out.append(Recorded(picked, table.steps))
    return out


def fitted(
    recorded: Sequence[Recorded], kind: str = "cuda", bytes_of: Mapping[str, Callable[[Settings], float]] | None = None
) -> list[costmodel.Observation]:
    """The observations a model of these families is fitted to (their kernels as profiled where they were)."""
    counts = bytes_of or {}
    return [
        o
        for r in recorded
        for o in observations(r.steps, kind, KernelCounts(r.steps, r.family), r.family, counts.get(r.family.name))
    ]


def family_out(
    recorded: Sequence[Recorded],
    kind: str = "cuda",
    *,
    own_profiles: bool = False,
    bytes_of: Mapping[str, Callable[[Settings], float]] | None = None,
) -> dict[str, dict[str, list[float]]]:
    """family name -> {family key: |log(predicted / recorded)| of each of its steps}, each family predicted by
    the model fitted to the others. own_profiles: its kernels as its own profiles count them (a diagnosis, not
    a hold-out: what a trace that counted kernels as the profiler does would give). bytes_of: family name ->
    another count of its bytes (a diagnosis)."""
    counts = bytes_of or {}
    out: dict[str, dict[str, list[float]]] = {}
    for name in dict.fromkeys(r.family.name for r in recorded):
        train = fitted([r for r in recorded if r.family.name != name], kind, bytes_of)
        if len(train) < costmodel.MIN_POINTS:
            continue
        model = costmodel.fit(train, kind)
        for r in recorded:
            if r.family.name != name:
                continue
            held = observations(
                r.steps, kind, KernelCounts(r.steps if own_profiles else {}, r.family), r.family, counts.get(name)
            )
            # its group was never fitted, so no recorded step of it corrects the form
            out.setdefault(name, {})[r.family.key] = [
                abs(math.log(model.predict(o.config, o.terms, (), o.group)[0] / o.seconds)) for o in held
            ]
    return out


def pooled(errors: Mapping[str, Sequence[float]]) -> list[float]:
    """One family's errors over all its keys."""
    return [e for by_key in errors.values() for e in by_key]
