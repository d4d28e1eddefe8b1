"""Scaling over GPUs, from rows of the `ddp` workload: where N GPUs overtake one, and the
communication-versus-compute numbers that explain it. Plain Python over result rows (no
streamlit): the multi-GPU page lays out these records and sentences (lib.charts.scaling draws
them), and `python -m lib merge` prints merge_files' summary.

Scaling efficiency itself (throughput at N GPUs / (N x throughput at 1 GPU) of the same
experiment) is computed where the rows are made, in lib.workloads.ddp.efficiency.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from lib.core import results as _results
from lib.core.crossover import Crossover, find_crossover
from lib.core.fmt import Sentence, fmt_s, say
from lib.core.point import Point, points_of
from lib.core.rows import Status
from lib.core.same import same_time
from lib.lessons.common.voice import Side, Unit
from lib.lessons.common.voice import crossover_notes as crossover_notes_of
from lib.lessons.common.voice import crossover_sentence as crossover_sentence_of
from lib.recorded import load_recordings
from lib.recorded.recording import Recording
from lib.workloads.ddp.efficiency import WORKLOAD_NAME, merge_runs, throughput, with_scaling_efficiency

if TYPE_CHECKING:  # annotations only: the plan is made by the page's demo, which loads the sweep engine
    from lib.workloads.ddp.demo import DemoPlan


# -- what the page shows ------------------------------------------------------------------------------
def ddp_points(points: Sequence[Point], model: str | None = None) -> list[Point]:
    """The ddp points (of `model` when given)."""
    return [p for p in points if p.workload == WORKLOAD_NAME and (model is None or p.settings.get("model") == model)]


def models_in(points: Sequence[Point]) -> list[str]:
    found = {str(p.settings.get("model")) for p in ddp_points(points) if p.settings.get("model")}
    return sorted(found, key=lambda m: ({"mlp": 0, "cnn": 1}.get(m, 2), m))


def gpu_label(n: int, cpu: bool = False) -> str:
    """'1 GPU', '2 GPUs'; on the CPU, where each 'GPU' is a process: '1 process', '2 processes'."""
    return Side(Unit.PROCESS if cpu else Unit.GPU, count=n).noun


def on_cpu(records: Sequence[ScalingPoint]) -> bool:
    """True when every record was measured with CPU processes (gloo), not GPUs."""
    return bool(records) and all(d.device == "cpu" for d in records)


def _ms(seconds: Any) -> float | None:
    """Seconds as milliseconds, None where the row holds no number."""
    return seconds * 1e3 if isinstance(seconds, (int, float)) else None


@dataclass(frozen=True)
class ScalingPoint:
    """One ddp row as the page reads it: its GPU count and per-GPU batch, its step and throughput, and the
    communication against compute that explains them (times in ms; None where the row holds none)."""

    gpus: int
    batch_size: int  # per GPU
    model: str = ""
    device: str = ""
    status: str = ""  # the row's, as the table shows it (compared with Status, a str enum)
    step_ms: float | None = None
    iqr_ms: float | None = None
    samples_per_s: float | None = None
    scaling_efficiency: float | None = None
    compute_ms: float | None = None  # the step under DDP's no_sync(): no exchange
    exposed_comm_ms: float | None = None  # the step minus that compute: what the overlap could not hide
    grad_mb: float | None = None
    allreduce_ms: float | None = None  # one all-reduce of a gradient-sized buffer, timed alone
    allreduce_gbps: float | None = None
    peak_memory_gb: float | None = None
    machine: str = ""
    message: str = ""

    @classmethod
    def of_point(cls, p: Point, gpus: int, batch: int) -> ScalingPoint:
        ok, counts = p.ok, p.counts
        grad, gbps, peak = counts.grad_bytes, counts.allreduce_gbps, counts.peak_memory_bytes
        return cls(
            model=str(p.settings.get("model", "")),
            device=p.device,
            gpus=gpus,
            batch_size=batch,
            status=p.status.value,
            step_ms=p.median_s * 1e3 if ok else None,
            iqr_ms=_ms(p.iqr_s) if ok else None,
            samples_per_s=throughput(p),
            scaling_efficiency=counts.scaling_efficiency,
            compute_ms=_ms(p.phases.get("compute")) if ok else None,
            exposed_comm_ms=_ms(p.phases.get("comm")) if ok else None,
            grad_mb=grad / 1e6 if isinstance(grad, (int, float)) else None,
            allreduce_ms=_ms(counts.allreduce_s) if ok else None,
            allreduce_gbps=gbps if ok and gpus > 1 and isinstance(gbps, (int, float)) else None,
            peak_memory_gb=peak / 1e9 if isinstance(peak, (int, float)) else None,
            machine=p.machine or "",
            message=p.message,
        )

    @property
    def label(self) -> str:
        """'2 GPUs', or '2 processes' on the CPU: the chart's colour and the table's first column."""
        return gpu_label(self.gpus, self.device == "cpu")

    @property
    def global_batch(self) -> int:
        return self.gpus * self.batch_size

    @property
    def ddp_overhead_ms(self) -> float | None:
        return ddp_overhead_ms(self)

    def at(self, axis: str) -> int:
        """The batch this point sits at on `axis` (a key of X_AXES)."""
        return getattr(self, X_AXES[axis].column)

    def record(self) -> dict[str, str | int | float | None]:
        """The point as the table's and the charts' data, its columns named as lib.charts.scaling reads them."""
        return {
            "model": self.model,
            "device": self.device,
            "gpus": self.gpus,
            "GPUs": self.label,
            "batch_size": self.batch_size,
            "global_batch": self.global_batch,
            "status": self.status,
            "step_ms": self.step_ms,
            "iqr_ms": self.iqr_ms,
            "samples_per_s": self.samples_per_s,
            "scaling_efficiency": self.scaling_efficiency,
            "compute_ms": self.compute_ms,
            "exposed_comm_ms": self.exposed_comm_ms,
            "grad_mb": self.grad_mb,
            "allreduce_ms": self.allreduce_ms,
            "allreduce_gbps": self.allreduce_gbps,
            "peak_memory_gb": self.peak_memory_gb,
            "machine": self.machine,
            "message": self.message,
            "ddp_overhead_ms": self.ddp_overhead_ms,
        }


def table(points: Sequence[Point], model: str | None = None) -> list[ScalingPoint]:
    """One scaling point per ddp point of `model` (ok or not), sorted by GPUs then batch."""
    out = []
    for p in with_scaling_efficiency(ddp_points(points, model)):
        try:
            gpus, batch = int(p.settings["gpus"]), int(p.settings["batch_size"])
        except (KeyError, TypeError, ValueError):
            continue
        out.append(ScalingPoint.of_point(p, gpus, batch))
    out.sort(key=lambda d: (d.model, d.gpus, d.batch_size))
    return out


def chart_records(points: Sequence[ScalingPoint]) -> list[dict[str, str | int | float | None]]:
    """The points as the table's and the charts' rows (Altair's and pandas' edge)."""
    return [d.record() for d in points]


def ok_points(records: Sequence[ScalingPoint]) -> list[ScalingPoint]:
    """The points that were measured (status ok, with a throughput): what the charts draw."""
    return [d for d in records if d.status == Status.OK and d.samples_per_s]


def efficiency_points(records: Sequence[ScalingPoint]) -> list[ScalingPoint]:
    """The measured points with more than one GPU and a scaling efficiency (a gpus=1 twin)."""
    return [d for d in ok_points(records) if d.gpus > 1 and _number(d.scaling_efficiency)]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and value == value  # not None, not NaN


def _counts(records: Sequence[ScalingPoint]) -> list[int]:
    return sorted({d.gpus for d in ok_points(records)})


class Axis(NamedTuple):
    """A batch axis of the charts: the column it reads and its title."""

    column: str
    title: str


# the global batch first: the page opens on it, the seed's question (at a per-GPU batch, 4 GPUs doing 4x the work in
# about the time of one is trivially "faster")
X_AXES = {"global": Axis("global_batch", "global batch size"), "per_gpu": Axis("batch_size", "per-GPU batch size")}


def crossover(records: Sequence[ScalingPoint], n: int, x: str = "per_gpu") -> Crossover:
    """Where n GPUs start to process more samples per second than one, comparing points at the
    same per-GPU batch (x='per_gpu') or the same global batch (x='global')."""
    one = {d.at(x): d for d in records if d.gpus == 1 and d.samples_per_s}
    many = {d.at(x): d for d in records if d.gpus == n and d.samples_per_s}
    xs = sorted(set(one) & set(many))

    def per_sample(d: ScalingPoint) -> float:
        return 1.0 / d.samples_per_s

    def spread(d: ScalingPoint) -> float:
        """A sample's time spread: the step's IQR as a share of the step (0 where it was not given)."""
        step, iqr = d.step_ms, d.iqr_ms
        return (
            per_sample(d) * iqr / step
            if isinstance(step, (int, float)) and step > 0 and isinstance(iqr, (int, float))
            else 0.0
        )

    return find_crossover(
        xs,
        [per_sample(one[v]) for v in xs],
        [per_sample(many[v]) for v in xs],
        [spread(one[v]) for v in xs],
        [spread(many[v]) for v in xs],
    )


def sides(n: int, cpu: bool = False) -> tuple[Side, Side]:
    """(one, n): one GPU (or CPU process) against n of them."""
    unit = Unit.PROCESS if cpu else Unit.GPU
    return Side(unit, count=1), Side(unit, count=n)


def crossover_sentence(c: Crossover, n: int, x: str = "per_gpu", cpu: bool = False, *, notes: bool = True) -> Sentence:
    """Where n GPUs start to get through more samples per second than one, in lib.lessons.common.voice's words
    (`notes=False`: the answer alone, for above the chart; crossover_notes_of says the rest)."""
    return crossover_sentence_of(c, _what(x, cpu), *sides(n, cpu), notes=notes)


def _what(x: str, cpu: bool) -> str:
    return X_AXES[x].title if not cpu else X_AXES[x].title.replace("GPU", "process")


def crossover_notes(records: Sequence[ScalingPoint], x: str = "per_gpu", cpu: bool = False) -> str:
    """Under the chart: the points too close to call (and the changes of lead) for the most GPUs measured,
    which crossover_lines(..., notes=False)[-1] leaves out ('' when none)."""
    many = [n for n in _counts(records) if n > 1]
    if not many or 1 not in _counts(records):
        return ""
    return crossover_notes_of(crossover(records, many[-1], x), _what(x, cpu), *sides(many[-1], cpu))


def crossover_lines(
    records: Sequence[ScalingPoint], x: str = "per_gpu", cpu: bool = False, *, notes: bool = True
) -> list[Sentence]:
    """Where more GPUs start to win: one sentence for each measured N > 1, or why there is nothing
    to compare (no gpus=1 point, or nothing but gpus=1)."""
    counts = _counts(records)
    many = [n for n in counts if n > 1]
    if not many or 1 not in counts:
        return [
            say(
                f"These results do not hold both {gpu_label(1, cpu)} and more for this model, "
                "so there is nothing to compare."
            )
        ]
    return [crossover_sentence(crossover(records, n, x), n, x, cpu, notes=notes) for n in many]


def why_lines(records: Sequence[ScalingPoint], cpu: bool = False) -> list[str]:
    """Communication against compute at the largest N measured; with one process only, what it shows."""
    many = [n for n in _counts(records) if n > 1]
    return explanation(records, max(many), cpu) if many else single_process_sentences(records)


def explanation(records: Sequence[ScalingPoint], n: int, cpu: bool = False) -> list[str]:
    """Sentences that explain the scaling at n GPUs with the numbers of the rows on screen:
    gradient bytes / measured all-reduce bandwidth against the compute time of a step."""
    pts = [
        d
        for d in records
        if d.gpus == n
        and d.status == Status.OK
        and d.compute_ms is not None
        and d.allreduce_ms is not None
        and d.grad_mb is not None
    ]
    if n < 2 or not pts:
        return []
    pts.sort(key=lambda d: d.batch_size)
    small, large = pts[0], pts[-1]
    unit = "process" if cpu else "GPU"
    lines = [
        f"With {gpu_label(n, cpu)}, every step all-reduces {small.grad_mb:.3g} MB of gradients, whatever the batch."
    ]
    if small.allreduce_gbps:
        lines[0] += (
            f" At the all-reduce bandwidth measured with the batch of {small.batch_size}, "
            f"{small.allreduce_gbps:.3g} GB/s, that is {small.grad_mb:.3g} MB ÷ "
            f"{small.allreduce_gbps:.3g} GB/s "
            f"= {fmt_s(small.allreduce_ms / 1e3)} per step, unless it overlaps the backward pass."
        )
    for d in (small, large) if large is not small else (small,):
        ratio = d.allreduce_ms / d.compute_ms if d.compute_ms > 0 else float("inf")
        exposed = not_hidden_words(d, unit)
        eff = f"; scaling efficiency {d.scaling_efficiency:.0%}" if d.scaling_efficiency is not None else ""
        lines.append(
            f"At a per-{unit} batch of {d.batch_size}, computing one step takes {fmt_s(d.compute_ms / 1e3)} "
            f"and the all-reduce alone {fmt_s(d.allreduce_ms / 1e3)}: the exchange is {ratio:.2g}× the "
            f"compute{exposed}{eff}."
        )
    if large is not small and large.compute_ms > small.compute_ms > 0:
        line = (
            f"From a batch of {small.batch_size} to {large.batch_size}, the compute per step grew "
            f"{large.compute_ms / small.compute_ms:.3g}× while the gradient stayed {small.grad_mb:.3g} MB"
        )
        e0, e1 = small.scaling_efficiency, large.scaling_efficiency
        if e0 is not None and e1 is not None:
            if e0 > 0 and e1 > 0 and same_time(e0, e1):  # the one rule (lib.core.same): 80 % to 81 % did not rise
                line += f"; scaling efficiency stayed about the same ({e0:.0%} → {e1:.0%}) in these measurements."
            elif e1 > e0:
                line += (
                    f", and scaling efficiency rose from {e0:.0%} to {e1:.0%}: more work per step hides the "
                    "fixed exchange."
                )
            else:
                line += f"; yet scaling efficiency did not rise ({e0:.0%} → {e1:.0%}) in these measurements."
        else:
            line += "."
        lines.append(line)
    return lines


def ddp_overhead_ms(d: ScalingPoint) -> float | None:
    """What the step lost beyond the whole all-reduce: the step minus its no-exchange compute, less the
    all-reduce timed alone, at least 0. Communication cannot cost more than the all-reduce, so this much
    at least is DDP's own work (bucketing the gradients, its autograd hooks, waiting for the others)."""
    if d.exposed_comm_ms is None or d.allreduce_ms is None:
        return None
    return max(0.0, d.exposed_comm_ms - d.allreduce_ms)


def not_hidden_words(d: ScalingPoint, unit: str) -> str:
    """'; 411 µs was not hidden: at most the all-reduce's 57 µs is communication, the other 354 µs (at least)
    is DDP's own overhead ...', split so that no more than the all-reduce is called communication."""
    exposed, extra = d.exposed_comm_ms, ddp_overhead_ms(d)
    if exposed is None:
        return ""
    if exposed <= 0:
        return "; the step was no slower than without the exchange"
    if not extra:
        return f"; {fmt_s(exposed / 1e3)} of communication could not be hidden"
    return (
        f"; the step took {fmt_s(exposed / 1e3)} longer than that compute, more than the whole all-reduce: at "
        f"most {fmt_s(d.allreduce_ms / 1e3)} of it is communication, and at least {fmt_s(extra / 1e3)} is "
        f"DDP's own overhead (bucketing the gradients, its autograd hooks, each {unit} waiting for the others)"
    )


def single_process_sentences(records: Sequence[ScalingPoint]) -> list[str]:
    """What one process alone shows (the CPU demo): the step, its compute, and an all-reduce
    with nobody to exchange with."""
    pts = [d for d in records if d.gpus == 1 and d.status == Status.OK and d.step_ms is not None]
    if not pts:
        return []
    pts.sort(key=lambda d: d.batch_size)
    lines = []
    for d in (pts[0], pts[-1]) if len(pts) > 1 else (pts[0],):
        compute = (
            f" ({fmt_s(d.compute_ms / 1e3)} of it without DDP's gradient exchange)" if d.compute_ms is not None else ""
        )
        lines.append(
            f"At a batch of {d.batch_size}, one step took {fmt_s(d.step_ms / 1e3)}{compute}: "
            f"{d.samples_per_s:,.0f} samples per second."
        )
    d = pts[-1]
    if d.grad_mb is not None and d.allreduce_ms is not None:
        lines.append(
            f"The gradient is {d.grad_mb:.3g} MB at every batch size; all-reducing it in a group of one "
            f"process took {fmt_s(d.allreduce_ms / 1e3)}, because there is nobody to exchange with."
        )
    return lines


# -- recorded packs, the live demo, merging ------------------------------------------------------
@dataclass(frozen=True)
class Results:
    """One machine's ddp points (a recorded pack's, or the live demo's) and how the page names them: `source`
    in its sentences, `label` in the machine picker ('<machine>, <date>': no file names, visitors read it),
    `name` in a link (the pack's file name without folder or suffixes, 'h200x4_ddp')."""

    points: tuple[Point, ...]
    source: str
    label: str = ""
    name: str = ""

    @classmethod
    def of_recording(cls, recording: Recording) -> Results:
        """A recorded pack (lib.recorded's Recording) as the page reads it."""
        label, date = recording.machine.label or "unknown machine", recording.date[:10]
        name = Path(recording.path or label).name.removesuffix(".gz").removesuffix(".json")
        return cls(
            tuple(ddp_points(recording.points)),
            f"recorded on {label}",
            f"{label}, {date}" if date and date not in label else label,
            name,
        )

    @classmethod
    def live(cls, points: Sequence[Point]) -> Results:
        """The live demo's points, measured on this server."""
        where = "CPU, 1 process" if all(p.device == "cpu" for p in points) else "GPUs"
        return cls(tuple(points), f"live on this server, {where}")


def recorded_ddp_packs() -> tuple[list[Results], list[str]]:
    """The shipped packs holding ddp points, and a line for each file that could not be read
    (one bad file must not hide the others)."""
    recordings, problems = load_recordings()
    found = [Results.of_recording(r) for r in recordings]
    return [r for r in found if r.points], problems


def demo_sentence(plan: DemoPlan) -> str:
    """What the live demo will run here (plan: lib.workloads.ddp.demo.demo_plan)."""
    batches = ", ".join(str(b) for b in plan.batch_sizes)
    if plan.device == "cpu":
        return (
            "This server has fewer than two GPUs, so the demo runs **one process on the CPU** with the gloo "
            f"backend, at batch sizes {batches}: the same torchrun launch, "
            "DistributedDataParallel and timing as on the GPU machines, without anyone to exchange gradients with."
        )
    return (
        f"This server has GPUs: the demo runs {', '.join(gpu_label(n) for n in plan.gpus)} "
        f"at per-GPU batch sizes {batches}."
    )


def merge_files(out: str | Path, inputs: Sequence[str | Path]) -> list[str]:
    """`python -m lib merge OUT IN...`: packs recorded one after another on one machine -> one pack
    at OUT (merge_runs: the first pack's machine, scaling efficiency across all of them); returns
    the lines of a short summary to print."""
    pack = merge_runs([_results.load_pack(p) for p in inputs])
    _results.save_pack(pack, out)
    return merge_summary(points_of(pack["rows"]), out, len(inputs))


def merge_summary(points: Sequence[Point], out: str | Path, runs: int) -> list[str]:
    """What was written, then one line per ddp point: throughput, scaling efficiency, status."""
    ok = [p for p in points if p.status == Status.OK]
    lines = [f"wrote {out}: {len(points)} rows ({len(ok)} ok) from {runs} run(s)"]
    for d in table(points):
        eff = f"{d.scaling_efficiency:.2f}" if d.scaling_efficiency is not None else "-"
        sps = f"{d.samples_per_s:.4g}" if d.samples_per_s else "-"
        lines.append(
            f"  {d.model:>4} {d.label:>7} batch {d.batch_size:>6}  {sps:>10} samples/s  "
            f"efficiency {eff}  {d.status} {d.message}"
        )
    return lines
