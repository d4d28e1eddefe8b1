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

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lib.core.fmt import fmt_num, fmt_ratio, fmt_s, fmt_times, fmt_value, pct, plural
from lib.core.gc_scope import frozen_heap
from lib.core.rows import Status, is_ok
from lib.lessons import onscreen
from lib.recorded.sources import machine_text, series_label
from lib.workloads.presets import PRESETS, Preset, get_preset, loss_curve

SEED_SOURCE = "scripts/seed_experiments.py"
CURVES_KEY = "curves"

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

# Loss curves: the preset at its quick size, for this many epochs. Small enough to train live on a
# 2-core server in about a second; the same setting is recorded on the GPU machine, so the curves
# of both devices are comparable point for point.
CURVE_EPOCHS = {
    "boston_like": 500,
    "iris": 500,
    "mnist_minibatch": 3,
    "mnist_fullbatch": 20,
    "mnist_100rows": 200,
    "linear_mnist_dataloader": 3,
}

# A call longer than SLOW_CALL_S is timed once more after its cold call, not repeated; one longer than
# SINGLE_CALL_S only once (its first-call costs are small beside it), as the seed script does.
SLOW_CALL_S = 0.2
SINGLE_CALL_S = 1.0


def label(name: str) -> str:
    return LABELS.get(name, name)


# -- sizes ------------------------------------------------------------------------------------------

def live_params(preset: Preset) -> dict[str, Any]:
    """The settings a live CPU run uses here: the preset's quick cut (the seed's own size when it has none)."""
    return preset.params(quick=True)


def size_differences(params: dict[str, Any], preset: Preset) -> dict[str, tuple[Any, Any]]:
    """Size settings (those the preset's quick cut changes) where `params` differ from the seed's:
    {name: (these, the seed's)}."""
    full = preset.params()
    out = {}
    for key in preset.quick:
        if key in params and str(params[key]) != str(full[key]):
            out[key] = (params[key], full[key])
    return out


def size_words(diff: dict[str, tuple[Any, Any]]) -> str:
    """'dataset size 3,000 instead of the seed's 60,000' (empty when the sizes are the seed's)."""
    return ", ".join(f"{k.replace('_', ' ')} {fmt_value(a)} instead of the seed's {fmt_value(b)}"
                     for k, (a, b) in diff.items())


def same_settings(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = set(a) | set(b)
    return all(str(a.get(k)) == str(b.get(k)) for k in keys)


# -- timing one call live -------------------------------------------------------------------------------

def time_preset(preset: Preset, params: dict[str, Any], device: str, *, budget_s: float = 0.1,
                num_threads: int | None = None, memory_cap_gb: float | None = None) -> dict[str, Any]:
    """One result row for one call of the preset's step on `device` (never raises for the work).
    A call slower than SLOW_CALL_S is timed once after its cold call; faster ones with the harness."""
    from lib.core.sweep import default_memory_cap_gb, measure_point

    row = measure_point(preset.workload_obj(), params, device, budget_s=budget_s, num_threads=num_threads,
                        memory_cap_gb=default_memory_cap_gb() if memory_cap_gb is None else memory_cap_gb,
                        with_phases=False, slow_call_s=SLOW_CALL_S, single_call_s=SINGLE_CALL_S)
    row.update(variant=preset.name, origin="live")
    return row


def measure_live(preset: Preset, devices: Sequence[str], *, budget_s: float, num_threads: int | None,
                 progress: Callable[[float, str], None] | None = None) -> dict[str, Any]:
    """What the page measures live: one call of the preset at live_params on each device, and its loss
    curve there. {'rows': [...], 'curves': {device: entry}}. Call it holding MEASURE_LOCK (the heap is
    frozen meanwhile, so the collections after each run walk only the new objects)."""
    curve = curve_setting(preset)
    steps = len(devices) * (2 if curve else 1)
    done = 0
    rows, curves = [], {}

    def report(message: str) -> None:
        if progress:
            progress(done / steps, message)

    with frozen_heap():
        for device in devices:
            report(f"timing one call of {label(preset.name)} on {device}")
            rows.append(time_preset(preset, live_params(preset), device, budget_s=budget_s, num_threads=num_threads))
            done += 1
            if curve:
                report(f"training {plural(curve[1], 'epoch')} of {label(preset.name)} on {device} for the loss curve")
                curves[device] = run_curve(preset, device, num_threads=num_threads)
                done += 1
    if progress:
        progress(1.0, "done")
    return {"rows": rows, "curves": curves}


def total_s(row: dict[str, Any] | None, preset: Preset) -> float | None:
    """A row's time for the calls the seed's reported time covers (median per call × calls)."""
    if not is_ok(row):
        return None
    return float(row["median_s"]) * preset.reported_calls


# -- recorded rows, found by preset name ---------------------------------------------------------------

def seed_rows(pack: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """The rows of `pack` for preset `name` (variant == name, from the seed script)."""
    preset = PRESETS.get(name)
    return [r for r in pack.get("rows", []) if r.get("variant") == name
            and (preset is None or r.get("workload") == preset.workload)]


def find_seed_pack(packs: Sequence[dict[str, Any]], name: str, prefer: Iterable[str] = ()
                   ) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The pack holding preset `name`'s GPU row, and that preset's rows in it. Packs whose path is in
    `prefer` come first; a pack whose GPU row was measured (status ok) beats one where it was skipped."""
    prefer = set(prefer)
    found = []
    for i, pack in enumerate(packs):
        rows = seed_rows(pack, name)
        gpu = [r for r in rows if str(r.get("device", "")).startswith("cuda")]
        if gpu:
            ok = any(is_ok(r) for r in gpu)
            found.append(((0 if ok else 1, 0 if pack.get("path") in prefer else 1, i), pack, rows))
    if not found:
        return None, []
    _, pack, rows = min(found, key=lambda f: f[0])
    return pack, rows


def pick(rows: Iterable[dict[str, Any]], gpu: bool) -> dict[str, Any] | None:
    """The CPU row (gpu=False) or the first GPU row."""
    for row in rows:
        is_gpu = str(row.get("device", "")).startswith("cuda")
        if is_gpu == gpu:
            return row
    return None


# -- loss curves ---------------------------------------------------------------------------------------

def curve_setting(preset: Preset | str) -> tuple[dict[str, Any], int] | None:
    """(settings, epochs) of the loss curve for a training preset; None for one that trains nothing."""
    preset = get_preset(preset) if isinstance(preset, str) else preset
    if preset.name not in CURVE_EPOCHS or preset.workload not in ("mlp", "dataloader"):
        return None
    return preset.params(quick=True), CURVE_EPOCHS[preset.name]


def data_note(params: dict[str, Any]) -> str:
    """What data a run really used when it is not what was asked (MNIST unreachable -> synthetic)."""
    from lib.workloads import datasets

    name = params.get("data")
    if name in datasets.IMAGES:
        try:
            datasets.load_images(name)
        except datasets.DataUnavailable as err:
            return datasets.unavailable_note(name, err)
    return ""


def run_curve(preset: Preset | str, device: str, num_threads: int | None = None) -> dict[str, Any]:
    """The loss per epoch of one training preset on `device`, at curve_setting (never raises)."""
    from lib.core.devices import device_name
    from lib.core.timing import cpu_threads

    preset = get_preset(preset) if isinstance(preset, str) else preset
    found = curve_setting(preset)
    entry: dict[str, Any] = {"preset": preset.name, "device": device, "device_name": "", "epochs": 0,
                             "settings": {}, "losses": [], "data_note": "", "status": "ok", "message": ""}
    if found is None:
        entry.update(status="skipped", message=f"{preset.name} trains nothing: no loss curve")
        return entry
    params, epochs = found
    entry.update(settings=params, epochs=epochs)
    try:
        entry["device_name"] = device_name(device)
        entry["data_note"] = data_note(params)
        started = time.perf_counter()
        with cpu_threads(num_threads):
            losses = loss_curve(preset, device, epochs, quick=True)
        entry["seconds"] = time.perf_counter() - started
        entry["losses"] = [float(v) for v in losses]
    except Exception as err:
        first = str(err).splitlines()[0][:300] if str(err) else ""
        entry.update(status="error", message=f"{type(err).__name__}: {first}")
    return entry


def curves_path(out: str | Path) -> Path:
    """Where the curves sidecar of the pack `out` goes: X.json -> X_curves.json."""
    out = Path(out)
    return out.with_name(f"{out.stem}_curves.json")


def curves_pack(presets: Iterable[Preset], devices: Sequence[str], *, num_threads: int | None = None,
                progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """A result pack with no rows and the loss curves of every training preset on every device."""
    from lib.core.results import build_pack

    curves = []
    for preset in presets:
        if curve_setting(preset) is None:
            continue
        for device in devices:
            entry = run_curve(preset, device, num_threads)
            if progress:
                progress(f"curve {preset.name} on {device}: {entry['status']} "
                         f"({len(entry['losses'])} epochs{', ' + entry['message'] if entry['message'] else ''})")
            curves.append(entry)
    pack = build_pack([])
    pack[CURVES_KEY] = curves
    return pack


def find_curves(packs: Sequence[dict[str, Any]], name: str, prefer_stem: str | None = None
                ) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The first sidecar holding curves of preset `name` (the one named <prefer_stem>_curves first)."""
    def rank(pack: dict[str, Any]) -> int:
        return 0 if prefer_stem and Path(str(pack.get("path", ""))).stem == f"{prefer_stem}_curves" else 1

    for pack in sorted((p for p in packs if isinstance(p.get(CURVES_KEY), list)), key=rank):
        found = [c for c in pack[CURVES_KEY] if isinstance(c, dict) and c.get("preset") == name
                 and c.get("status") == Status.OK and valid_losses(c.get("losses"))]
        if found:
            return pack, found
    return None, []


def valid_losses(losses: Any) -> bool:
    return (isinstance(losses, list) and len(losses) > 0
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in losses))


# -- words -------------------------------------------------------------------------------------------------

def direction(ratio: float | None) -> str | None:
    """GPU time / CPU time -> 'gpu_slower', 'gpu_faster' or 'even' (within 10%)."""
    if ratio is None:
        return None
    if ratio > 1.1:
        return "gpu_slower"
    if ratio < 1 / 1.1:
        return "gpu_faster"
    return "even"


def ratio_words(ratio: float) -> str:
    """'the GPU took 2.43× as long as the CPU' / 'the GPU was 4.65× as fast' / 'about even'."""
    kind = direction(ratio)
    if kind == "gpu_slower":
        return f"the GPU took {fmt_times(ratio)} as long as the CPU"
    if kind == "gpu_faster":
        return f"the GPU was {fmt_times(1 / ratio)} as fast as the CPU"
    return f"the two were about even (GPU time ÷ CPU time = {fmt_times(ratio)})"


def compare_sentence(preset: Preset, measured_ratio: float | None, where: str) -> str:
    """The seed's GPU/CPU ratio beside the one measured `where`, and whether they point the same way."""
    seed = preset.reported_ratio
    if seed is None and measured_ratio is None:
        return "The seed printed no times for this run, and nothing was measured here on both devices."
    if seed is None:
        return f"The seed printed no times for this run. Measured {where}, {ratio_words(measured_ratio)}."
    seed_text = (f"In the seed, {ratio_words(seed)}: {fmt_s(preset.reported_gpu_s)} against "
                 f"{fmt_s(preset.reported_cpu_s)}, {preset.reported_what}.")
    if measured_ratio is None:
        return seed_text + " Nothing was measured here on both devices to set beside it."
    return f"{seed_text} Measured {where}, {ratio_words(measured_ratio)}: {agreement(seed, measured_ratio)}."


def near_even(ratio: float) -> bool:
    """Within 1.5× either way: what the seed script counts as 'about even'."""
    return 1 / 1.5 <= ratio <= 1.5


def agreement(seed: float, measured: float) -> str:
    """Do two GPU/CPU ratios tell the same story?"""
    if direction(seed) == direction(measured):
        return "the same direction"
    if near_even(seed) and near_even(measured):
        return "both within 1.5× of even, as the seed found"
    return "a different answer"


def learn_sentence(losses: Sequence[float], who: str) -> str:
    """Did a loss curve go down? Numbers from the curve itself."""
    if not valid_losses(list(losses)):
        return f"{who}: no loss curve."
    first, last = float(losses[0]), float(losses[-1])
    n = len(losses)
    if last < first * 0.9:
        return (f"{who} learns: the epoch loss falls from {fmt_num(first)} to {fmt_num(last)} over {n} epochs "
                f"({pct_lower(1 - last / first)} lower).")
    if last < first:
        return f"{who}: the epoch loss falls only a little, from {fmt_num(first)} to {fmt_num(last)} over {n} epochs."
    return f"{who} does not learn here: the epoch loss goes from {fmt_num(first)} to {fmt_num(last)} over {n} epochs."


def same_start_sentence(curves: dict[str, Sequence[float]]) -> str | None:
    """Whether every curve starts at the same first-epoch loss (same initial weights, same data)."""
    firsts = {who: float(c[0]) for who, c in curves.items() if valid_losses(list(c))}
    if len(firsts) < 2:
        return None
    values = list(firsts.values())
    spread = (max(values) - min(values)) / max(abs(max(values)), 1e-12)
    listing = ", ".join(f"{fmt_num(v, 4)} on {who}" for who, v in firsts.items())
    if spread < 0.01:
        return (f"They start together (first-epoch loss {listing}): the same model from the same initial weights "
                "on the same data, so the devices differ only in speed and rounding.")
    return (f"Their first-epoch losses differ ({listing}): these runs did not start from the same weights or "
            "did not see the same data.")


def pct_lower(fraction: float) -> str:
    """62% / more than 99% (never a rounded '100%' for a loss that did not reach zero)."""
    return "more than 99%" if 0.99 < fraction < 1 else pct(fraction)


# -- the case on screen ------------------------------------------------------------------------------------
MISSING_CURVE = ("No recorded GPU loss curve ships for this experiment, so only this server's CPU curve is shown "
                 "(the command under “Record this experiment on a GPU machine” records one).")


def seed_line(preset: Preset) -> str:
    """'**Seed 000** (run on …): what the seed ran.'"""
    hardware = SEED_HARDWARE.get(preset.seed)
    return (f"**Seed {preset.seed}** ({'run on ' + hardware if hardware else 'hardware not stated in the seed'}): "
            f"{preset.description}.")


def live_request(preset: Preset, devices: Sequence[str], *, threads: int, budget_s: float) -> dict[str, Any]:
    """Everything that changes the page's live measurement of a case: its cache key."""
    return {"kind": "seed_case", "case": preset.name, "params": live_params(preset), "devices": list(devices),
            "threads": threads, "budget": budget_s, "curve": curve_setting(preset)}


def measure_label(preset: Preset, devices: Sequence[str]) -> str:
    return f"seed case {label(preset.name)} on {', '.join(devices)}"


def record_command(preset: Preset) -> str:
    """The seed script's command that records this case (and its loss curves) on a GPU machine."""
    slow = " --include-slow" if preset.slow else ""
    return (f"python3 {SEED_SOURCE} --only {preset.name}{slow} --curves "
            f"--out lib/recorded/seeds_{preset.name}.json")


def _status(row: dict[str, Any] | None) -> str:
    return onscreen.STATUS_WORDS.get(str(row.get("status")), str(row.get("status"))) if row else "–"


@dataclass
class Case:
    """One experiment: the preset, what was measured live here, and the recorded pack's rows of it."""

    preset: Preset
    live: dict[str, Any]  # measure_live's {'rows': [...], 'curves': {device: entry}}
    pack: dict[str, Any] | None
    rec_rows: list[dict[str, Any]]

    @property
    def machine(self) -> str | None:
        return machine_text(self.pack["machine"]) if self.pack else None

    @property
    def live_cpu(self) -> dict[str, Any] | None:
        return pick(self.live["rows"], gpu=False)

    @property
    def live_gpu(self) -> dict[str, Any] | None:
        return pick(self.live["rows"], gpu=True)

    @property
    def rec_cpu(self) -> dict[str, Any] | None:
        return pick(self.rec_rows, gpu=False)

    @property
    def rec_gpu(self) -> dict[str, Any] | None:
        return pick(self.rec_rows, gpu=True)

    @property
    def cut(self) -> dict[str, tuple[Any, Any]]:
        """Where the live run's sizes differ from the seed's."""
        return size_differences(live_params(self.preset), self.preset)

    @property
    def rec_cut(self) -> dict[str, tuple[Any, Any]]:
        """Where the recorded rows' sizes differ from the seed's."""
        if not self.pack:
            return {}
        source = self.rec_cpu or self.rec_gpu or {}
        return size_differences({k: source.get(k) for k in live_params(self.preset)}, self.preset)

    @property
    def covers(self) -> str:
        """What the seed's reported times cover: '10 000 epochs in total', or its number of calls."""
        p = self.preset
        return (p.reported_what if p.reported_cpu_s or p.reported_gpu_s
                else f"the seed's {plural(p.reported_calls, 'call')}")

    @property
    def live_total(self) -> float | None:
        """The live CPU's time for what the seed's times cover (at the seed's sizes only)."""
        return total_s(self.live_cpu, self.preset) if not self.cut else None

    @property
    def rec_ratio(self) -> float | None:
        c, g = total_s(self.rec_cpu, self.preset), total_s(self.rec_gpu, self.preset)
        return g / c if c and g else None

    def shown_rows(self) -> list[dict[str, Any]]:
        """Every row on screen, labelled with its series."""
        return onscreen.labelled(self.live["rows"], recorded_gpu=self.rec_rows, machine=self.machine)


def reported_entry(case: Case) -> tuple[dict[str, str], dict[str, Any] | None]:
    """The table's line for what the seed reported, and its ratio bar (None when it reported no ratio)."""
    p, hardware = case.preset, SEED_HARDWARE.get(case.preset.seed)
    if not (p.reported_cpu_s or p.reported_gpu_s):
        return ({"where": f"reported in seed {p.seed}", "CPU": "–", "GPU": "–", "GPU ÷ CPU": "–",
                 "covers": "the seed printed no times"}, None)
    line = {"where": f"reported in seed {p.seed}" + (f" ({hardware})" if hardware else ""),
            "CPU": fmt_s(p.reported_cpu_s), "GPU": fmt_s(p.reported_gpu_s),
            "GPU ÷ CPU": fmt_times(p.reported_ratio) if p.reported_ratio else "–", "covers": case.covers}
    bar = {"comparison": f"reported in seed {p.seed}", "ratio": p.reported_ratio} if p.reported_ratio else None
    return line, bar


def recorded_entry(case: Case) -> tuple[dict[str, str] | None, dict[str, Any] | None]:
    """The table's line for the recorded pack (None without one), and its ratio bar."""
    if not case.pack:
        return None, None
    c, g, ratio = total_s(case.rec_cpu, case.preset), total_s(case.rec_gpu, case.preset), case.rec_ratio
    line = {"where": f"recorded on {case.machine}" + (" (cut size)" if case.rec_cut else " (the seed's sizes)"),
            "CPU": fmt_s(c) if c else _status(case.rec_cpu), "GPU": fmt_s(g) if g else _status(case.rec_gpu),
            "GPU ÷ CPU": fmt_times(ratio) if ratio else "–", "covers": case.covers}
    return line, ({"comparison": f"recorded on {case.machine}", "ratio": ratio} if ratio else None)


def live_entry(case: Case) -> tuple[dict[str, str] | None, dict[str, Any] | None]:
    """The table's line for this server (None when its CPU was not timed), and a ratio bar: both devices
    live, else the recorded GPU over this CPU when both ran the seed's sizes."""
    cpu, gpu, cut, total = case.live_cpu, case.live_gpu, case.cut, case.live_total
    if not is_ok(cpu):
        return None, None
    per_call = cpu["median_s"]
    gpu_total = total_s(gpu, case.preset) if is_ok(gpu) and not cut else None
    line = {"where": "live on this server" + (f" ({size_words(cut)})" if cut else " (the seed's sizes)"),
            "CPU": fmt_s(total) if total else f"{fmt_s(per_call)} per call",
            "GPU": (fmt_s(gpu_total) if gpu_total else f"{fmt_s(gpu['median_s'])} per call") if is_ok(gpu) else "–",
            "GPU ÷ CPU": fmt_times(gpu["median_s"] / per_call) if is_ok(gpu) else "–",
            "covers": case.covers if total else "one call, at the cut size"}
    if is_ok(gpu):
        return line, {"comparison": "live on this server" + (" (cut size)" if cut else ""),
                      "ratio": gpu["median_s"] / per_call}
    if is_ok(case.rec_gpu) and not cut and not case.rec_cut:
        return line, {"comparison": f"GPU recorded on {case.machine} ÷ CPU live here",
                      "ratio": case.rec_gpu["median_s"] / per_call}
    return line, None


def comparison(case: Case) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    """The table 'reported in the seed, measured here' and the ratio chart's bars."""
    entries = [reported_entry(case), recorded_entry(case), live_entry(case)]
    return [line for line, _ in entries if line], [bar for _, bar in entries if bar]


def verdict_sentences(case: Case) -> list[str]:
    """The seed's ratio beside the one measured, and the cut size the recording ran at: numbers from the rows."""
    out = [compare_sentence(case.preset, case.rec_ratio, f"on {case.machine}") if case.pack
           else compare_sentence(case.preset, None, "here")]
    if case.pack and case.rec_cut:
        out.append(f"The recorded rows ran at a cut size ({size_words(case.rec_cut)}), so their ratio is for "
                   "that size.")
    return out


def cold_sentence(case: Case) -> str | None:
    """The big matmul's first GPU call in the recording run against a warm one (the seed saw 0.55 s vs 0.46 s)."""
    gpu = case.rec_gpu
    if case.preset.name != "big_matmul" or not is_ok(gpu) or not gpu.get("cold_s"):
        return None
    first = gpu["cold_s"] / gpu["median_s"]
    return (f"On {case.machine} the GPU's first call of this experiment in the recording run took "
            f"{fmt_s(gpu['cold_s'])}, a warm one {fmt_s(gpu['median_s'])}"
            + (f", {fmt_ratio(first)} as long" if first >= 1.1 else "")
            + " (the seed saw 0.55 s against 0.46 s). Only warm calls count in the ratio.")


def live_cpu_sentence(case: Case, threads: int) -> str | None:
    """This server's CPU: per call, and for what the seed's times cover when it ran the seed's sizes."""
    cpu = case.live_cpu
    if not cpu:
        return None
    if not is_ok(cpu):
        return f"This server's CPU was not timed: {onscreen.status_words(cpu)}."
    who = f"This server's CPU ({plural(threads, 'thread')})"
    if case.live_total:
        seed_cpu = f" (the seed's CPU: {fmt_s(case.preset.reported_cpu_s)})" if case.preset.reported_cpu_s else ""
        return (f"{who} takes {fmt_s(cpu['median_s'])} per call, so {fmt_s(case.live_total)} for "
                f"{case.covers}{seed_cpu}.")
    return (f"{who} takes {fmt_s(cpu['median_s'])} per call at a cut size ({size_words(case.cut)}): "
            "not comparable with times for the seed's size.")


def missing_note(case: Case) -> str | None:
    """Why there is no recorded GPU time to set beside the seed's: no pack holds the case, or its GPU row
    was not measured."""
    if not case.pack:
        return ("No recorded seeds pack holds this experiment's GPU row, so there is no GPU time measured here to "
                "set beside the seed's: only this server's CPU, live" + (" at a cut size." if case.cut else "."))
    gpu = case.rec_gpu
    if gpu is not None and not is_ok(gpu):
        return (f"The recorded pack ({case.machine}) did not measure this experiment on the GPU: "
                f"{_status(gpu)} — {gpu.get('message') or 'no message'}.")
    return None


def data_notes(case: Case) -> dict[str, str]:
    """What data the runs really used, when not what was asked: {note: where it was seen first}."""
    notes: dict[str, str] = {}
    for where, rows in (("live", case.live["rows"]), (f"recorded on {case.machine}", case.rec_rows)):
        for note in dict.fromkeys(r["data_note"] for r in rows if r.get("data_note")):
            notes.setdefault(note, where)
    return notes


# -- the loss curves on screen -------------------------------------------------------------------------------
@dataclass
class Curves:
    """The loss curves of one case: live here, and the recorded GPU's from a curves file."""

    params: dict[str, Any]  # the settings the curves were trained at
    epochs: int
    losses: dict[str, list[float]]  # series -> loss per epoch
    failures: list[str]  # a sentence per live curve that could not be trained
    differing: list[str]  # recorded series trained at other settings than the page's
    recorded: list[dict[str, Any]]  # the recorded curve entries
    side_machine: str | None  # the machine of the curves file


def curves_view(case: Case, packs: Sequence[dict[str, Any]]) -> Curves | None:
    """The case's loss curves (None for one that trains nothing); the recorded ones from the curves file
    next to the case's pack first."""
    found = curve_setting(case.preset)
    if found is None:
        return None
    params, epochs = found
    losses, failures, differing = {}, [], []
    for device, entry in case.live["curves"].items():
        name = series_label(device, "live")
        if entry["status"] == Status.OK:
            losses[name] = entry["losses"]
        else:
            failures.append(f"{name}: no curve ({onscreen.status_words(entry)}).")
    side, recorded = find_curves(packs, case.preset.name,
                                 prefer_stem=Path(case.pack["path"]).stem if case.pack else None)
    side_machine = machine_text(side["machine"]) if side else None
    for entry in recorded:
        name = series_label(entry["device"], "recorded", side_machine)
        losses[name] = entry["losses"]
        if not same_settings(entry.get("settings") or {}, params) or entry.get("epochs") != epochs:
            differing.append(name)
    return Curves(params, epochs, losses, failures, differing, recorded, side_machine)


def curve_rows(curves: Curves) -> list[dict[str, Any]]:
    """The loss chart's points (and the loss curves' download): series, epoch, loss."""
    return [{"series": name, "epoch": i + 1, "loss": v} for name, losses in curves.losses.items()
            for i, v in enumerate(losses)]


def epochs_sentence(curves: Curves, preset: Preset) -> str:
    cut = size_differences(curves.params, preset)
    return (plural(curves.epochs, "epoch")
            + (f" at a cut size ({size_words(cut)})" if cut else " at the seed's sizes")
            + f" (the seed trained {fmt_value(preset.epochs)}), from the seeded initial weights on every device.")


def minibatch_sentence(curves: Curves, preset: Preset) -> str | None:
    """Seed 000's MNIST minibatch CPU run never learned (its optimizer held the GPU model's parameters); here?"""
    if preset.name != "mnist_minibatch":
        return None
    cpu = next((c for n, c in curves.losses.items() if n.startswith("cpu")), None)
    if not cpu:
        return None
    learned = cpu[-1] < cpu[0] * 0.9
    return ("Seed 000's CPU run stayed at a loss of 2.3036 from its first epoch to its last. "
            + (f"Here the CPU model has its own optimizer and learns: {fmt_num(cpu[0], 4)} → "
               f"{fmt_num(cpu[-1], 4)} in {plural(len(cpu), 'epoch')}." if learned else
               "Here the CPU curve did not fall by a tenth either; see the numbers above."))


def curve_data_notes(case: Case, curves: Curves, seen: Iterable[str]) -> list[str]:
    """Data notes of the curves not already said for the timed rows ('Data (live curve): …')."""
    seen, out = set(seen), []
    for where, entries in (("live curve", case.live["curves"].values()),
                           (f"curve recorded on {curves.side_machine}", curves.recorded)):
        for note in dict.fromkeys(c["data_note"] for c in entries if c.get("data_note")):
            if note not in seen:
                out.append(f"Data ({where}): {note}")
    return out
