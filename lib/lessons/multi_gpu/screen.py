"""The Multi-GPU page's screen: the recorded machines it offers, and for one machine's (or the live demo's)
rows, everything it shows, as values; the page lays them out and declares its pickers.

    machines = recorded()                          the recorded machines, by name, with their labels
    picked = points(results.points, model)         one model's measurements: the table, its points, its failure
    on = screen(picked, axis, source)              the answer, its notes, the captions and the 'Why?' lines
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from lib.core.point import Point
from lib.lessons.multi_gpu import scaling
from lib.lessons.multi_gpu.answer import scaling_answer, scaling_notes

MODEL_NAMES = {"mlp": "MLP", "cnn": "CNN (3×32×32 images)"}
AXIS_NAMES = {
    "per_gpu": "per-GPU batch (each GPU gets the batch)",
    "global": "global batch (the batch is split across the GPUs, as in seed 002)",
}
COLUMNS = {
    "GPUs": "GPUs",
    "batch_size": "per-GPU batch",
    "global_batch": "global batch",
    "status": "status",
    "step_ms": "step (ms)",
    "iqr_ms": "IQR (ms)",
    "samples_per_s": "samples/s",
    "scaling_efficiency": "scaling efficiency",
    "compute_ms": "compute, no exchange (ms)",
    "exposed_comm_ms": "not hidden: step − compute (ms)",
    "grad_mb": "gradient (MB)",
    "allreduce_ms": "all-reduce alone (ms)",
    "ddp_overhead_ms": "DDP's own overhead, at least (ms)",
    "allreduce_gbps": "all-reduce (GB/s)",
    "peak_memory_gb": "peak GPU memory (GB)",
    "message": "message",
}
FORMATS = {
    "step (ms)": "%.3g",
    "IQR (ms)": "%.2g",
    "samples/s": "%.4g",
    "scaling efficiency": "%.2f",
    "compute, no exchange (ms)": "%.3g",
    "not hidden: step − compute (ms)": "%.3g",
    "gradient (MB)": "%.3g",
    "all-reduce alone (ms)": "%.3g",
    "DDP's own overhead, at least (ms)": "%.3g",
    "all-reduce (GB/s)": "%.3g",
    "peak GPU memory (GB)": "%.3g",
}
NO_DDP_ROWS = "These results hold no multi-GPU (ddp) rows."
NOTHING_RECORDED = (
    "No multi-GPU results have been recorded yet, so there is no answer to draw here: the live demo "
    "below runs the same code on this server."
)
HOW_RECORDED = "They are recorded on a machine with 2 or 4 GPUs (the project's record_ddp script)."
EFFICIENCY_CAPTION = (
    "Throughput with N GPUs ÷ (N × throughput with 1 GPU at the same per-GPU batch); the dashed "
    "line is perfect scaling."
)
TABLE_CAPTION = (
    "Compute, no exchange: the same step under DDP's no_sync(). Exposed communication: step minus that "
    "(what the overlap of all-reduce and backward could not hide). All-reduce alone: one all-reduce of a "
    "buffer as big as the gradient, timed on its own. Data are random tensors already on the device."
)
SEED_002 = (
    "Seed 002 trained CNNs on CIFAR-10 with one and two GPUs and reported that two GPUs were about 1.5× faster "
    "at large batches, with no gain at batch 128. This lesson measures the same question with PyTorch's "
    "**DistributedDataParallel**, launched by `torchrun`: one process per GPU, each computing gradients on its "
    "own batch, then one exchange per step that averages the gradients across GPUs (an **all-reduce**).\n\n"
    "The gradient is as large as the model whatever the batch, so the exchange is a fixed cost per step. The "
    "charts set that cost against the compute time of a step."
)


def model_name(model: str) -> str:
    return MODEL_NAMES.get(model, model)


@dataclass(frozen=True, eq=False)
class Recorded:
    """The shipped packs holding multi-GPU rows, by name (the URL's), their labels, and the files not read."""

    by_name: dict[str, scaling.Results]
    problems: tuple[str, ...]

    @property
    def labels(self) -> dict[str, str]:
        """name -> '<machine>, <date>', as the picker shows it."""
        return {name: found.label for name, found in self.by_name.items()}


def recorded() -> Recorded:
    packs, problems = scaling.recorded_ddp_packs()
    return Recorded(
        {found.name: found for found in packs},
        tuple(f"A recorded pack could not be read and is left out: {p}" for p in problems),
    )


@dataclass(frozen=True, eq=False)
class Points:
    """One model's measurements from one machine: the table's records, the successful points, the table shown."""

    model: str
    records: list[scaling.ScalingPoint]
    ok: list[scaling.ScalingPoint]
    cpu: bool  # the demo's single CPU process, not GPUs
    table: pd.DataFrame  # every measurement, its columns named for people


def points(found: Sequence[Point], model: str) -> Points:
    records = scaling.table(found, model)
    return Points(
        model,
        records,
        scaling.ok_points(records),
        scaling.on_cpu(records),
        pd.DataFrame(scaling.chart_records(records), columns=list(COLUMNS)).rename(columns=COLUMNS),
    )


def failed(picked: Points, source: str) -> str:
    """Why there is no answer: no measurement of this model succeeded."""
    return f"No successful measurement of the {picked.model} in these results ({source}); see the table."


@dataclass(frozen=True, eq=False)
class Screen:
    """What the page says about one model's successful points on one axis."""

    answer: str
    notes: str  # what the answer leaves out, under the chart ('' when nothing)
    caption: str
    efficiency: list[scaling.ScalingPoint]
    crossovers: tuple[str, ...]  # markdown, one line per GPU count
    why: tuple[str, ...]


def screen(picked: Points, axis: str, source: str) -> Screen:
    records, cpu = picked.records, picked.cpu
    return Screen(
        scaling_answer(records, axis, cpu),
        scaling_notes(records, axis, cpu),
        f"Samples per second of the whole group, {source}. Both axes logarithmic.",
        scaling.efficiency_points(records),
        tuple(line.markdown() for line in scaling.crossover_lines(records, axis, cpu)),
        tuple(scaling.why_lines(records, cpu)),
    )
