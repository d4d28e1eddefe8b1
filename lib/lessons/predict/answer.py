"""A prediction for one model over batch sizes: per recorded GPU its steps (with their bands), this machine's
CPU measured live, the crossover and what holds the GPU's step back; typed, then printed or written as JSON.

    result = predict_spec(spec, batches=(1, 16, 256), live=True)
    print("\n".join(result.lines()))        # the command line's words
    result.as_dict()                         # --json: the same, as data

Every sentence comes from the pages' own: the crossover from lib.lessons.common.voice.crossover_sentence
(read by lib.lessons.training.words.crossover_of, the Training page's), what holds a step back from
lib.lessons.common.verdict against the GPU's measured ceilings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from lib.core.crossover import Crossover
from lib.core.devices import device_name
from lib.core.fmt import Sentence, and_list, fmt_s, fmt_value
from lib.core.gate import default_memory_cap_gb, recording_gate
from lib.core.point import Point
from lib.core.rows import Origin
from lib.core.sweep import run_sweep
from lib.lessons.common.verdict import Verdict, verdict, verdict_words
from lib.lessons.common.voice import Side, Unit, crossover_brief, crossover_sentence, likely_about
from lib.lessons.predict import BATCHES
from lib.lessons.predict.gpus import RecordedGpu, gpu_points, recorded_gpus
from lib.lessons.predict.models import ModelSpec
from lib.lessons.training import view as training_view
from lib.lessons.training.live_point import LivePoint
from lib.lessons.training.step_point import StepPoint
from lib.lessons.training.words import crossover_of
from lib.recorded.recording import Recording
from lib.workloads import execution

SETTING = "batch size"
CPU_POINT_S = 0.3  # seconds of timed repeats per live CPU point (a first call over SLOW_CALL_S: one warm call)
SLOW_CALL_S, SINGLE_CALL_S = 2.0, 10.0
CPU_BUDGET_S = 60.0  # the whole live CPU sweep: later points are skipped rows that say so
JsonObject = dict[str, Any]  # an object of the --json document (lib.lessons.predict.cli writes it)


@dataclass
class GpuAnswer:
    """One recorded GPU: its points by batch, the crossover against the live CPU, the verdict at each batch."""

    gpu: str  # 'H200'
    machine: str  # 'NVIDIA H200, 2026-11-21, … and 2026-11-28': the machine and the days it recorded
    points: list[StepPoint]
    crossover: Crossover | None = None
    sentence: Sentence | None = None  # the crossover in words
    verdicts: dict[int, Verdict] = field(default_factory=dict)  # batch -> what holds its step back

    def verdict_sentence(self, batch: int) -> str | None:
        v = self.verdicts.get(batch)
        return verdict_words(v, f"{self.gpu} at batch size {batch:,}").plain() if v else None


@dataclass
class Prediction:
    model: str  # as given
    label: str  # as named
    input_shape: tuple[int, ...]
    settings: Mapping[str, Any]
    batches: tuple[int, ...]
    gpus: list[GpuAnswer]
    cpu: Sequence[Point]  # this machine's CPU's points, measured live ([] with live=False)
    cpu_name: str = "this machine's CPU"
    samples: str = ""  # 'samples of 3x32x32', 'sequences of 64 tokens'

    def cpu_point(self, batch: int) -> Point | None:
        return next((p for p in self.cpu if int(p.settings.get("batch_size", -1)) == batch), None)

    # -- the command line's words ----------------------------------------------------------------------
    def lines(self) -> list[str]:
        mode = execution.label(str(self.settings.get("mode", execution.DEFAULT)))
        out = [
            f"{self.label}: one training step (forward, loss, backward, {self.settings.get('optimizer', 'adam')}) "
            f"on {self.samples}, {mode}, an epoch of "
            f"{int(self.settings.get('dataset_size', 0)):,} samples"
        ]
        if not self.gpus:
            out.append("No recorded GPU has Training steps to predict from.")
        for g in self.gpus:
            out += ["", f"GPU {g.gpu} ({g.machine}):"]
            out.append(f"  {'batch':>7}  {'GPU step':>10}  {'band':>19}  {'GPU epoch':>10}  {'CPU step':>10}  regime")
            for p in g.points:
                b = _batch(p)
                band = _band(p)
                cpu = self.cpu_point(b)
                v = g.verdicts.get(b)
                regime = (v.regime.value if v and v.regime else "not decided") + (
                    f"; try {v.fix.value}" if v and v.fix else ""
                )
                out.append(
                    f"  {b:>7,}  {fmt_s(p.median_s):>10}  {_band_cell(band):>19}  "
                    f"{fmt_s(p.epoch_s):>10}  {_cpu_cell(cpu):>10}  {regime}"
                )
            notes: dict[str, list[str]] = {}
            for p in g.points:  # each way a point was made, with the batch sizes it made
                notes.setdefault(p.origin_note, []).append(f"{_batch(p):,}")
            for note, batches in notes.items():
                out.append(f"  GPU at batch size {and_list(batches)}: {note}")
            if g.sentence is not None:
                out.append("  Crossover: " + g.sentence.plain())
            last = g.verdict_sentence(_batch(g.points[-1])) if g.points else None
            if last:
                out.append("  " + last)
        out.append("")
        if self.cpu:
            out.append(
                f"CPU: {self.cpu_name}, measured live here ({_threads(self.cpu[0])} threads); "
                + "; ".join(
                    f"batch {int(p.settings['batch_size']):,}: {p.message}" for p in self.cpu if not p.ok and p.message
                )
            )
        else:
            out.append("CPU: not measured (--no-live, or live=False), so no crossover is placed.")
        return [line.rstrip("; ") for line in out]

    # -- --json --------------------------------------------------------------------------------------
    def as_dict(self) -> JsonObject:
        return {
            "model": self.model,
            "label": self.label,
            "input_shape": list(self.input_shape),
            "settings": {k: v for k, v in self.settings.items() if k != "batch_size"},
            "batches": list(self.batches),
            "cpu": {
                "what": f"{self.cpu_name}, measured live here" if self.cpu else "not measured",
                "points": [_cpu_point(r) for r in self.cpu],
            },
            "gpus": [_gpu_dict(g, self) for g in self.gpus],
        }


class StepBand(NamedTuple):
    """A predicted step's band, per step."""

    low: float
    high: float


def _batch(point: StepPoint) -> int:
    return int(point.settings["batch_size"])


def _band(point: StepPoint) -> StepBand | None:
    """A step's band (a predicted one's, or the days' of one recorded on several); None for a step recorded
    once (or derived from one): its spread is the recording's."""
    steps = float(point.steps_per_epoch or 1)
    low, high = point.band or (None, None)
    if low is None or high is None:
        return None
    return StepBand(float(low) / steps, float(high) / steps)


def _band_cell(band: StepBand | None) -> str:
    return "recorded" if band is None else f"{fmt_s(band.low)} - {fmt_s(band.high)}"


def _cpu_cell(point: Point | None) -> str:
    if point is None:
        return "-"
    return fmt_s(point.median_s) if point.ok else point.status.value


def _threads(point: Point) -> int | str:
    return "?" if point.counts.num_threads is None else point.counts.num_threads


def _cpu_point(p: Point) -> JsonObject:
    """One CPU point as --json writes it."""
    return {
        "batch_size": int(p.settings["batch_size"]),
        "status": p.status.value,
        "message": p.message or "",
        "step_s": float(p.median_s) if p.ok else None,
        "epoch_s": float(p.epoch_s) if p.ok and p.epoch_s else None,
        "iqr_s": float(p.iqr_s or 0.0) if p.ok else None,
        "threads": p.counts.num_threads,
    }


def _gpu_dict(g: GpuAnswer, result: Prediction) -> JsonObject:
    points = []
    for p in g.points:
        b = _batch(p)
        low, high = _band(p) or (None, None)  # none for a recorded step: its spread is the recording's
        epoch_low, epoch_high = p.band or (None, None)
        v = g.verdicts.get(b)
        points.append(
            {
                "batch_size": b,
                "step_s": float(p.median_s),
                "step_s_low": low,
                "step_s_high": high,
                "epoch_s": float(p.epoch_s),
                "epoch_s_low": epoch_low,
                "epoch_s_high": epoch_high,
                "steps_per_epoch": int(p.steps_per_epoch or 1),
                "origin": p.origin.value,
                "how": p.origin_note,
                "regime": v.regime.value if v and v.regime else None,
                "fix": v.fix.value if v and v.fix else None,
                "verdict": g.verdict_sentence(b),
            }
        )
    found = g.crossover
    cross = None
    if found is not None:
        low, high = found.sure or found.bracket or (None, None)
        cross = {
            "kind": found.kind.value,
            "low": low,
            "high": high,
            "likely": likely_about(found),
            "brief": crossover_brief(found, SETTING, *_sides(g)),
            "sentence": g.sentence.plain() if g.sentence else None,
        }
    return {"gpu": g.gpu, "machine": g.machine, "points": points, "crossover": cross}


def _sides(g: GpuAnswer) -> tuple[Side, Side]:
    return Side(Unit.CPU, "this machine's CPU"), Side(Unit.GPU, f"the {g.gpu}")


# -- the prediction ----------------------------------------------------------------------------------


def live_cpu(
    spec: ModelSpec,
    batches: Sequence[int],
    *,
    threads: int | None = None,
    budget_s: float = CPU_BUDGET_S,
    progress: Callable[[float, str], None] | None = None,
) -> list[Point]:
    """This machine's CPU over the batches, timed by the project's own sweep (lib.core.sweep) behind a
    recording's gate (memory cap, the whole sweep's time budget): the mode's CPU side (a CUDA graph or a
    compile runs eager there), the switches as they are (a copy to the CPU is no copy)."""
    fixed = {**spec.settings, "mode": execution.on_cpu(str(spec.at(batches[0])["mode"]))}
    gate = recording_gate(memory_cap_gb=default_memory_cap_gb(), budget_s=budget_s)
    return run_sweep(
        spec.workload,
        "batch_size",
        list(batches),
        fixed,
        ["cpu"],
        point_budget_s=CPU_POINT_S,
        gate=gate,
        num_threads=threads,
        with_phases=False,
        origin=Origin.LIVE,
        slow_call_s=SLOW_CALL_S,
        single_call_s=SINGLE_CALL_S,
        progress=progress,
        describe=lambda s: f"CPU, batch size {fmt_value(s['batch_size'])}",
    )


def predict_spec(
    spec: ModelSpec,
    batches: Sequence[int] = BATCHES,
    *,
    live: bool = True,
    threads: int | None = None,
    cpu_budget_s: float = CPU_BUDGET_S,
    recordings: Sequence[Recording] | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> Prediction:
    from lib.recorded import load_recordings

    batches = tuple(sorted({int(b) for b in batches}))
    gpus = recorded_gpus(load_recordings()[0] if recordings is None else recordings)
    cpu = live_cpu(spec, batches, threads=threads, budget_s=cpu_budget_s, progress=progress) if live else []
    answers = [_answer(spec, g, batches, gpus, cpu) for g in gpus]
    return Prediction(
        spec.text,
        spec.label,
        spec.input_shape,
        dict(spec.at(batches[0])),
        batches,
        answers,
        cpu,
        samples=spec.sample_words,
        cpu_name=f"this machine's CPU ({device_name('cpu')})" if cpu else "this machine's CPU",
    )


def _answer(
    spec: ModelSpec, gpu: RecordedGpu, batches: Sequence[int], gpus: Sequence[RecordedGpu], cpu: Sequence[Point]
) -> GpuAnswer:
    points = gpu_points(spec, gpu, batches, gpus)
    answer = GpuAnswer(gpu.name, gpu.label, points)
    rows = training_view.rows(points)  # what the verdict and the crossover's rule read
    for p, r in zip(points, rows):
        v = verdict(r, gpu.ceilings)
        if v is not None:
            answer.verdicts[_batch(p)] = v
    if cpu:
        found = crossover_of([LivePoint(p) for p in cpu], points, "batch_size")  # the Training page's rule
        answer.crossover = found
        answer.sentence = crossover_sentence(found, SETTING, *_sides(answer))
    return answer
