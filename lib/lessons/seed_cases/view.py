"""Seed case studies: each seed experiment beside what this project measures, and loss curves.

The experiments are the presets of lib/workloads/presets.py. For each one this module finds
  - what the seed reported (the preset's reported_cpu_s / reported_gpu_s);
  - the rows of a recorded seeds pack (written by `scripts/seed_experiments.py --out X.json`,
    one row per preset and device, `variant` = the preset's name), found by preset name;
  - a live CPU timing at the preset's cut-down ("quick") size (time_preset);
  - loss curves per device at one fixed, small setting per training preset (curve_setting),
    live on the CPU here and, for the GPU, from the curves sidecar that
    `scripts/seed_experiments.py --curves --out X.json` writes next to the pack (X_curves.json).

The sidecar is a valid result pack with no rows and a `curves` list, so every loader of
lib/recorded/*.json reads it without complaint:

    {"schema_version": 1, "machine": {...}, "rows": [],
     "curves": [{"preset": "iris", "device": "cuda:0", "device_name": "NVIDIA H200", "epochs": 500,
                 "settings": {...}, "losses": [1.1, ...], "data_note": "", "status": "ok", "message": ""}]}

No Streamlit here (the GPU machine that records runs this module with plain python3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from lib.core.fmt import fmt_s, fmt_value, plural
from lib.core.point import Frozen, Point
from lib.core.rows import Origin
from lib.core.same import Sameness, same_ratio
from lib.lessons.common import voice
from lib.lessons.seed_cases.curves import Curve, curve_setting, run_curve
from lib.recorded.recording import Recording
from lib.workloads.presets import PRESETS, Preset

SEED_SOURCE = "scripts/seed_experiments.py"

# The order of the page's choices, and how each is called there.
LABELS: dict[str, str] = {
    "boston_like": "Boston-like MLP, full batch (seed 000)",
    "iris": "Iris MLP, full batch (seed 000)",
    "mnist_minibatch": "MNIST MLP, DataLoader batch 100 (seed 000)",
    "mnist_fullbatch": "MNIST MLP, full batch (seed 000)",
    "mnist_100rows": "MNIST MLP, 100 rows (seed 000)",
    "linear_mnist_dataloader": "Linear 784→10, DataLoader (seed 001)",
    "big_matmul": "15 360² matrix multiply (seed 003)",
    "jacobian_val100": "Jacobian, val = 100 (seed 004)",
    "jacobian_val1000": "Jacobian, val = 1 000 (seed 004)",
}
CASES: tuple[str, ...] = tuple(name for name in LABELS if name in PRESETS)

# What the seeds say they ran on (only seed 000 says).
SEED_HARDWARE = {"000": "an Intel Core i7-9700K CPU and an RTX 2070 SUPER GPU"}


# A call longer than SLOW_CALL_S is timed once more after its cold call, not repeated; one longer than
# SINGLE_CALL_S only once (its first-call costs are small beside it), as the seed script does.
SLOW_CALL_S = 0.2
SINGLE_CALL_S = 1.0
LIVE_BUDGET_S = 60.0  # the whole live job of one case (its calls and loss curves), as a page's sweep


def label(name: str) -> str:
    return LABELS.get(name, name)


# -- sizes ------------------------------------------------------------------------------------------


def live_params(preset: Preset) -> Frozen:
    """The workload settings a live CPU run uses here: the preset's quick cut (the seed's own size when it has
    none), as the workload names them."""
    return Frozen(preset.params(quick=True))


class SizeChange(NamedTuple):
    """A size setting a run changed: its value in the run, and the seed's."""

    run: Any
    seed: Any


def size_differences(params: Mapping[str, Any], preset: Preset) -> dict[str, SizeChange]:
    """Size settings (those the preset's quick cut changes) where `params` differ from the seed's, by name."""
    full = preset.params()
    out = {}
    for key in preset.quick:
        if key in params and str(params[key]) != str(full[key]):
            out[key] = SizeChange(params[key], full[key])
    return out


def size_words(diff: Mapping[str, SizeChange]) -> str:
    """'dataset size 3,000 instead of the seed's 60,000' (empty when the sizes are the seed's)."""
    return ", ".join(
        f"{k.replace('_', ' ')} {fmt_value(a)} instead of the seed's {fmt_value(b)}" for k, (a, b) in diff.items()
    )


def same_settings(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    keys = set(a) | set(b)
    return all(str(a.get(k)) == str(b.get(k)) for k in keys)


# -- timing one call live -------------------------------------------------------------------------------


def time_preset(
    preset: Preset,
    params: Mapping[str, Any],
    device: str,
    *,
    budget_s: float = 0.1,
    num_threads: int | None = None,
    memory_cap_gb: float | None = None,
    gate=None,
) -> Point:
    """One point for one call of the preset's step on `device` (never raises for the work).
    A call slower than SLOW_CALL_S is timed once after its cold call; faster ones with the harness.
    `gate` (lib.core.gate) decides whether it runs; without one, the live gate."""
    from lib.core.gate import live_gate
    from lib.core.sweep import measure_point

    point = measure_point(
        preset.workload_obj(),
        params,
        device,
        budget_s=budget_s,
        num_threads=num_threads,
        gate=gate or live_gate(memory_cap_gb=memory_cap_gb),
        with_phases=False,
        slow_call_s=SLOW_CALL_S,
        single_call_s=SINGLE_CALL_S,
    )
    return replace(point.with_notes(variant=preset.name), origin=Origin.LIVE)


@dataclass(frozen=True)
class Measured:
    """What the page measures live of one case: one call's point per device, and the loss curve there
    by device. Empty when nothing was measured now."""

    points: Sequence[Point] = ()
    curves: Mapping[str, Curve] = field(default_factory=dict)


def measure_live(
    preset: Preset,
    devices: Sequence[str],
    *,
    budget_s: float,
    num_threads: int | None,
    progress: Callable[[float, str], None] | None = None,
) -> Measured:
    """What the page measures live: one call of the preset at live_params on each device, and its loss
    curve there. Every run asks the live gate first (lib.core.gate: memory, work, and LIVE_BUDGET_S for the
    whole job)."""
    from lib.core.gate import live_gate

    gate = live_gate(budget_s=LIVE_BUDGET_S)
    curve = curve_setting(preset)
    steps = len(devices) * (2 if curve else 1)
    done = 0
    points, curves = [], {}

    def report(message: str) -> None:
        if progress:
            progress(done / steps, message)

    for device in devices:
        report(f"timing one call of {label(preset.name)} on {device}")
        points.append(
            time_preset(preset, live_params(preset), device, budget_s=budget_s, num_threads=num_threads, gate=gate)
        )
        done += 1
        if curve:
            report(f"training {plural(curve[1], 'epoch')} of {label(preset.name)} on {device} for the loss curve")
            curves[device] = run_curve(preset, device, num_threads=num_threads, gate=gate)
            done += 1
    if progress:
        progress(1.0, "done")
    return Measured(tuple(points), curves)


def total_s(point: Point | None, preset: Preset) -> float | None:
    """A point's time for the calls the seed's reported time covers (median per call × calls)."""
    if point is None or not point.ok:
        return None
    return float(point.median_s) * preset.reported_calls


# -- recorded points, found by preset name ---------------------------------------------------------------


def seed_points(recording: Recording, name: str) -> list[Point]:
    """The points of `recording` for preset `name` (variant == name, from the seed script)."""
    preset = PRESETS.get(name)
    return [
        p for p in recording.points if p.notes.variant == name and (preset is None or p.workload == preset.workload)
    ]


def find_seed_recording(
    recordings: Sequence[Recording], name: str, prefer: Iterable[str] = ()
) -> tuple[Recording | None, list[Point]]:
    """The recording holding preset `name`'s GPU point, and that preset's points in it. Recordings whose path
    is in `prefer` come first; one whose GPU point was measured (status ok) beats one where it was skipped."""
    prefer = set(prefer)
    found = []
    for i, recording in enumerate(recordings):
        points = seed_points(recording, name)
        gpu = [p for p in points if p.device.startswith("cuda")]
        if gpu:
            ok = any(p.ok for p in gpu)
            found.append(((0 if ok else 1, 0 if recording.path in prefer else 1, i), recording, points))
    if not found:
        return None, []
    _, recording, points = min(found, key=lambda f: f[0])
    return recording, points


def pick(points: Iterable[Point], gpu: bool) -> Point | None:
    """The CPU point (gpu=False) or the first GPU point."""
    return next((p for p in points if p.device.startswith("cuda") == gpu), None)


# -- loss curves ---------------------------------------------------------------------------------------


# -- words -------------------------------------------------------------------------------------------------


def direction(ratio: float | None, tie: Sameness | None = None) -> str | None:
    """GPU time / CPU time -> 'gpu_slower', 'gpu_faster', 'even' or 'noisy': even where the one rule calls the two
    times the same (`tie`, decided from the rows' spreads; else lib.core.same.same_ratio of the ratio alone), noisy
    where they tie only because either is too noisy to trust."""
    if ratio is None:
        return None
    if tie is Sameness.TOO_NOISY:
        return "noisy"
    if same_ratio(ratio) if tie is None else tie is Sameness.SAME:
        return "even"
    return "gpu_slower" if ratio > 1 else "gpu_faster"


def ratio_words(ratio: float, tie: Sameness | None = None) -> str:
    """'the GPU took 2.43× as long as the CPU' / 'the GPU was 4.65× as fast' / 'about even' / 'too noisy to
    compare' (the one rule)."""
    way = direction(ratio, tie)
    return voice.ratio_words(voice.GPU, voice.CPU, ratio, past=True, tie=way == "even", noisy=way == "noisy")


def compare_sentence(
    preset: Preset, measured_ratio: float | None, where: str, measured_tie: Sameness | None = None
) -> str:
    """The seed's GPU/CPU ratio beside the one measured `where`, and whether they point the same way.
    `measured_tie`: whether the measured times are the same by the one rule with their spreads (None:
    the ratio alone decides). The seed printed single runs: its ratio has no spread."""
    seed = preset.reported_ratio
    if seed is None and measured_ratio is None:
        return "The seed printed no times for this run, and nothing was measured here on both devices."
    if seed is None:
        return f"The seed printed no times for this run. Measured {where}, {ratio_words(measured_ratio, measured_tie)}."
    seed_text = (
        f"In the seed, {ratio_words(seed)}: {fmt_s(preset.reported_gpu_s)} against "
        f"{fmt_s(preset.reported_cpu_s)}, {preset.reported_what}."
    )
    if measured_ratio is None:
        return seed_text + " Nothing was measured here on both devices to set beside it."
    return (
        f"{seed_text} Measured {where}, {ratio_words(measured_ratio, measured_tie)}: "
        f"{agreement(seed, measured_ratio, measured_tie)}."
    )


def agreement(seed: float, measured: float, measured_tie: Sameness | None = None) -> str:
    """Do two GPU/CPU ratios tell the same story (each judged 'even' by the one rule, lib.core.same)?"""
    if direction(measured, measured_tie) == "noisy":
        return "too noisy to say whether it agrees"
    if direction(seed) == direction(measured, measured_tie):
        return "the same direction"
    return "a different answer"


# -- the case on screen ------------------------------------------------------------------------------------
MISSING_CURVE = (
    "No recorded GPU loss curve ships for this experiment, so only this server's CPU curve is shown "
    "(the command under “Record this experiment on a GPU machine” records one)."
)


# -- the loss curves on screen -------------------------------------------------------------------------------
