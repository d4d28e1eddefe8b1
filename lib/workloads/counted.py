"""What one training step of a model family asks of the machine, as lines in the rows it trains, for the
families whose workload says only its model and samples (lib.workloads.model_training: cnn, transformer,
torchvision). Counted by the one tracer, lib.workloads.traced.trace_step (the family's real step, its
optimizer included, under FakeTensorMode), at two batch sizes:

    counts = step_counts(WORKLOAD, settings)   # shipped for every setting the pages reach, else traced
    counts.flops(rows), counts.bytes(rows), counts.forward_bytes(rows), counts.parameters

- FLOPs: the matmul class, as torch.utils.flop_counter counts it (matmuls, convolutions, attention); the
  elementwise work and reductions are not FLOPs here, as they are not to the MLP's count.
- bytes: every kernel-launching operator's operands, read and written (TracedStep.bytes).
- forward bytes: the outputs of the forward and the loss, which the backward keeps (the peak memory estimate).
- parameters: the elements the optimizer updates.

Every count grows linearly with the batch (no operator of these models mixes samples but BatchNorm's
statistics, per row too), so a step at any batch is fixed + per row x rows. The batches are 2 and 4, not 1:
at batch 1 a few operators take another path (a count there is off the line). The mode and the switches
are priced apart (lib.workloads.traced.StepTerms): the count is eager's with the data resident.

The web server draws recorded views without torch: WORK_FILE holds the lines at every setting the Training
page reaches (scripts/trace_counts.py writes it with the kernel counts); any other setting (a CLI run, a live
measurement, where torch is loaded anyway) is traced.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lib.core.cache import kept
from lib.core.point import Frozen
from lib.core.workload import Workload
from lib.workloads.execution import DEFAULT

COUNT_BATCHES = (2, 4)
WORK_FILE = Path(__file__).with_name("traced_work.json")
# settings that change no count: the rows (lines in them), how the step runs and the switches (priced apart)
_NOT_COUNTED = frozenset(
    {"batch_size", "dataset_size", "mode", "data_resident", "item_every_step", "pin_memory", "seed", "lr"}
)


@dataclass(frozen=True)
class Line:
    """fixed + per_row x rows."""

    fixed: float
    per_row: float

    def at(self, rows: int) -> float:
        return self.fixed + self.per_row * rows

    @classmethod
    def through(cls, a: tuple[int, float], b: tuple[int, float]) -> Line:
        per_row = (b[1] - a[1]) / (b[0] - a[0])
        return cls(max(0.0, a[1] - per_row * a[0]), per_row)


@dataclass(frozen=True)
class StepCounts:
    """One model's counted step: FLOPs, bytes moved and forward activations as lines in the rows."""

    flops_line: Line
    bytes_line: Line
    forward_line: Line
    parameters: int

    def flops(self, rows: int) -> float:
        return self.flops_line.at(rows)

    def bytes(self, rows: int) -> float:
        return self.bytes_line.at(rows)

    def forward_bytes(self, rows: int) -> float:
        return self.forward_line.at(rows)

    def as_json(self) -> dict[str, list[float] | int]:
        lines = {"flops": self.flops_line, "bytes": self.bytes_line, "forward_bytes": self.forward_line}
        return {**{k: [line.fixed, line.per_row] for k, line in lines.items()}, "parameters": self.parameters}

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> StepCounts:
        return cls(*(Line(*entry[k]) for k in ("flops", "bytes", "forward_bytes")), parameters=int(entry["parameters"]))


def counted_settings(workload: Workload, settings: Mapping[str, Any]) -> Frozen:
    """The settings a count depends on (the model, its samples, the optimizer), sorted: the count's key."""
    return Frozen((k, v) for k, v in sorted({**workload.defaults(), **settings}.items()) if k not in _NOT_COUNTED)


def step_counts(workload: Workload, settings: Mapping[str, Any]) -> StepCounts:
    """The counted step of `workload` at `settings`: shipped (no torch) or traced, once per model."""
    key = counted_settings(workload, settings)
    shipped = _shipped().get(workload.name, {}).get(_key_text(key))
    return shipped if shipped is not None else _traced(workload, tuple(key.items()))


def _key_text(key: Mapping[str, Any]) -> str:
    return json.dumps(dict(key), sort_keys=True)


@kept(256)
def _traced(workload: Workload, key: tuple[tuple[str, Any], ...]) -> StepCounts:
    from lib.workloads.traced import trace_step  # torch is imported there, where it runs

    at = {
        b: trace_step(workload, {**dict(key), "batch_size": b, "dataset_size": b, "mode": DEFAULT})
        for b in COUNT_BATCHES
    }
    a, b = COUNT_BATCHES
    lines = [
        Line.through((a, of(at[a])), (b, of(at[b])))
        for of in (lambda t: t.flops_matmul, lambda t: t.bytes, lambda t: t.forward_bytes)
    ]
    return StepCounts(*lines, parameters=at[a].parameters)


@kept(1)
def _shipped() -> dict[str, dict[str, StepCounts]]:
    """WORK_FILE's counts, by family and by their settings' text."""
    entries = json.loads(WORK_FILE.read_text()) if WORK_FILE.exists() else {}
    return {
        name: {_key_text(e["settings"]): StepCounts.from_json(e) for e in listed} for name, listed in entries.items()
    }


def page_settings(family: Any) -> list[Frozen]:
    """Every counted setting a Training page view of `family` reaches: each value of its choices, times each
    step of its sliders but the rows' (batch size, dataset size), the rest at the page's defaults."""
    out = []
    for picked in family.every_pick():
        sliders = {k: axis.steps for k, axis in picked.axes.items() if k not in _NOT_COUNTED}
        for values in itertools.product(*sliders.values()):
            key = counted_settings(picked.workload, {**picked.page_defaults(), **dict(zip(sliders, values))})
            if key not in out:
                out.append(key)
    return out


def write_work(families: Any, retrace: Collection[str] | None = None) -> dict[str, int]:
    """Count every page setting of each family that has counts (the MLP's are its own formulas) and write
    WORK_FILE (scripts/trace_counts.py). How many settings each family holds. `retrace`: the names of the
    families counted again, the others' shipped entries kept as they are (None: every family)."""
    shipped = json.loads(WORK_FILE.read_text()) if WORK_FILE.exists() else {}
    out: dict[str, list[dict[str, object]]] = {}  # the file's entries
    for family in families:
        if not hasattr(family.workload, "counts"):
            continue
        if retrace is not None and family.name not in retrace and family.name in shipped:
            out[family.name] = shipped[family.name]
            continue
        out[family.name] = [
            {"settings": dict(key), **_traced(family.workload, tuple(key.items())).as_json()}
            for key in page_settings(family)
        ]
    # one setting a line: a change to a family's step reads as the lines it changed
    WORK_FILE.write_text(
        "{\n"
        + ",\n".join(
            f" {json.dumps(name)}: [\n" + ",\n".join(f"  {json.dumps(entry)}" for entry in entries) + "\n ]"
            for name, entries in out.items()
        )
        + "\n}\n"
    )
    _shipped.clear()
    return {name: len(entries) for name, entries in out.items()}
