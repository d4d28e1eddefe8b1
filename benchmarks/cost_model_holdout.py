#!/usr/bin/env python3
"""How well each machine's one cost model predicts steps nobody recorded, held out three ways:

    k-fold      every recorded step predicted by a model fitted without its fifth of the steps
    depth out   every depth left out in turn (the steps of every configuration at that depth)
    config out  every configuration (mode and switches) left out whole: a way of running the step
                that was never recorded, priced from its counted terms and the other configurations

printed per machine, device and configuration as the median and 90th percentile of
|log(predicted / recorded)|, as factors (×1.25: 25 % off either way), with where it misses; and
a fourth way, across the Training page's model families (issue 38):

    family out  each GPU's one model fitted to the recorded steps of every family but one (MLP, CNN,
                Transformer, the torchvision networks) predicts that family's recorded GPU steps,
                with its kernels per step counted from its traced step (never its own profiles):
                what `lib predict` does for a model nobody recorded. torchvision is left out whole
                (all three networks), then shown per network from that same hold-out.

    family-out <gpu> <family> n=<n> median x<a> p90 x<b>

    python3 benchmarks/cost_model_holdout.py [--packs lib/recorded] [--out docs/cost_model_holdout.txt]

Goal (issue 24; family out, issue 38): held-out median within ×1.25 and 90th percentile within
×1.6 for every configuration, and for every family on every GPU. Kernels per step of a held-out step come from the profiles of the steps the model
was fitted to (as on the page, where the step was not recorded), never from its own profile.
Reads whatever packs exist: run it again when new packs land.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import statistics
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.core import costmodel  # noqa: E402
from lib.lessons.training import model as M  # noqa: E402
from lib.lessons.training import step_tables  # noqa: E402
from lib.lessons.training import view as T  # noqa: E402
from lib.lessons.training.family_out import Recorded, family_out, pooled, recorded_families  # noqa: E402
from lib.recorded import load_recordings  # noqa: E402
from lib.recorded.recording import Recording  # noqa: E402
from lib.recorded.sources import machine_text, recorded_sources, small_server_recording, source_recording  # noqa: E402

GOAL_MEDIAN, GOAL_P90 = 1.25, 1.6


def split(steps: M.Steps, test) -> tuple[dict, dict]:
    """(train, held) step tables: `test(config, key)` says which steps are held out."""
    train, held = {}, {}
    for config, table in steps.items():
        for key, row in table.items():
            (held if test(config, key) else train).setdefault(config, {})[key] = row
    return train, held


def held_errors(steps: M.Steps, kind: str, test) -> dict[tuple, list[float]]:
    train, held = split(steps, test)
    if not held or sum(len(t) for t in train.values()) < costmodel.MIN_POINTS:
        return {}
    kernels = M.KernelCounts(train)
    model = costmodel.fit(M.observations(train, kind, kernels), kind)
    out: dict[tuple, list[float]] = {}
    for o in M.observations(held, kind, kernels):
        out.setdefault(o.config, []).append(
            abs(math.log(model.predict(o.config, o.terms, o.where, o.group)[0] / o.seconds))
        )
    return out


def merge(into: dict[tuple, list[float]], more: dict[tuple, list[float]]) -> None:
    for config, errors in more.items():
        into.setdefault(config, []).extend(errors)


def kfold(steps: M.Steps, kind: str, folds: int = 5) -> dict[tuple, list[float]]:
    # a fold per step from a checksum of its key: the same split on every run
    order = {(c, k): zlib.crc32(repr((c, k)).encode()) % folds for c, t in steps.items() for k in t}
    out: dict[tuple, list[float]] = {}
    for f in range(folds):
        merge(out, held_errors(steps, kind, lambda c, k, f=f: order[(c, k)] == f))
    return out


def depth_out(steps: M.Steps, kind: str) -> dict[tuple, list[float]]:
    depths = sorted({k[2] for t in steps.values() for k in t})
    out: dict[tuple, list[float]] = {}
    if len(depths) < 2:
        return out
    for d in depths:
        merge(out, held_errors(steps, kind, lambda c, k, d=d: k[2] == d))
    return out


def config_out(steps: M.Steps, kind: str) -> dict[tuple, list[float]]:
    out: dict[tuple, list[float]] = {}
    if len(steps) < 2:
        return out
    for config in steps:
        merge(out, held_errors(steps, kind, lambda c, k, config=config: c == config))
    return out


def factors(errors: list[float]) -> tuple[float, float] | None:
    """(median, p90) as factors, by the one definition the app's bands use (costmodel.Error)."""
    if len(errors) < 2:
        return None
    error = costmodel.Error.of(errors)
    return error.median_factor, error.p90_factor


def cell(errors: list[float]) -> str:
    f = factors(errors)
    return f"{'—':>17}" if f is None else f"×{f[0]:5.2f} ×{f[1]:5.2f} {len(errors):4}"


WAYS = ("k-fold", "depth out", "config out")


def misses(*errors: list[float]) -> list[str]:
    """Each hold-out that misses the goal, and by how much: 'config out p90 ×1.92 (20 % over ×1.6)'."""
    out = []
    for name, e in zip(WAYS, errors):
        f = factors(e)
        for what, got, goal in (("median", f[0], GOAL_MEDIAN), ("p90", f[1], GOAL_P90)) if f else ():
            if got > goal:
                out.append(f"{name} {what} ×{got:.2f} ({got / goal - 1:.0%} over ×{goal})")
    return out


def verdict(*errors: list[float]) -> str:
    found = misses(*errors)
    return "met" if not found else "MISSED: " + "; ".join(found)


def why(kind: str, config: tuple, steps: int, depths: int, errors: list[list[float]]) -> list[str]:
    """What the misses of one configuration come from, as far as the recordings show it."""
    out = []
    missed = {m.split(" median")[0].split(" p90")[0] for m in misses(*errors)}
    if not missed:
        return out
    if steps < 30:
        out.append(f"only {steps} steps recorded: too few to hold out a fifth, or a depth, and fit the rest")
    if "depth out" in missed and depths == 1:
        out.append("recorded at one depth only: leaving that depth out leaves the whole configuration out")
    if kind == "cuda" and config[0] == "cuda_graph" and ({"config out", "depth out"} & missed):
        out.append(
            "with no CUDA graph recorded, its kernels are priced at eager's price per kernel, read from eager's "
            "busy time as the square root of (back-to-back time × step time) (lib.core.costmodel.stretched_busy); "
            "where that price differs from the graph's own profiles, the smallest graph steps come out "
            "slow and the widest fast: one price per kernel cannot fit both. Recorded graph steps in the fit "
            "bring it to the k-fold column"
        )
    elif "config out" in missed and config[0] == "eager" and config[1:] == (True, False, False):
        out.append(
            "leaving eager out leaves the model without its per-operation issue cost, the term every other "
            "recorded configuration prices from it"
        )
    return out


def gpu_name(label: str) -> str:
    """'NVIDIA H100 80GB HBM3, 2026-11-23 and …' -> 'H100'."""
    words = label.split(",")[0].replace("NVIDIA", "").split()
    return words[0] if words else label


def kernel_ratios(found: list[Recorded], name: str) -> list[float]:
    """profiled kernels / traced kernels of the family's profiled eager steps (the issue asks ×1.2 at most)."""
    out = []
    for r in found:
        for config, table in r.steps.items() if r.family.name == name else ():
            for point in table.values():
                if config[0] == "eager" and point.counts.kernels:
                    out.append(
                        float(point.counts.kernels) / r.family.structural_kernels(M.settings_of(point, r.family))
                    )
    return out


def family_lines(label: str, recording: Recording) -> tuple[list[str], list[str]]:
    """(the family-out lines, and what each family's errors come from: its kernels as traced against
    its profiles, and the same hold-out with its profiled kernel counts)."""
    found = recorded_families(recording)
    lines, why_lines = [], []
    held, diagnosis = family_out(found), family_out(found, own_profiles=True)
    for name, by_key in held.items():
        parts = [(name, pooled(by_key))]
        if len(by_key) > 1:  # a family of several networks: each one's share of the same hold-out
            parts += list(by_key.items())
        for what, errors in parts:
            f = factors(errors)
            if f is None:
                continue
            goal = "met" if f[0] <= GOAL_MEDIAN and f[1] <= GOAL_P90 else "MISSED"
            lines.append(
                f"family-out {gpu_name(label)} {what} n={len(errors)} median x{f[0]:.2f} p90 x{f[1]:.2f}  {goal}"
            )
        ratios = sorted(kernel_ratios(found, name))
        own = factors(pooled(diagnosis.get(name, {})))
        if ratios and own:
            why_lines.append(
                f"{gpu_name(label)} {name}: profiled / traced kernels (eager) ×{statistics.median(ratios):.2f} "
                f"median (×{ratios[0]:.2f}-×{ratios[-1]:.2f}); with its profiled counts the same "
                f"hold-out is median x{own[0]:.2f} p90 x{own[1]:.2f}"
            )
    return lines, why_lines


# What the family-out lines miss by, and why: read from the rows (kernels, busy times, counted bytes)
# with the diagnosis printed above them; the counts named here are lib.workloads.tracing's and mlp_terms'.
FAMILY_NOTES = (
    "Kernels. A family nobody recorded is priced at its traced kernel count: one kernel per ATen operator "
    "(tracing.EXTRA_KERNELS aside). Its profiles count 1.5-1.8 times as many for the CNN, the Transformer "
    "and the torchvision networks (cuDNN's convolutions and their backward launch 2-3 kernels each where "
    "the trace counts one; cuBLAS splits the MLP's widest matmuls too). Eager's CPU issues every one of "
    "them and a graph's GPU runs every one, so the launch-bound steps come out short (x0.55-0.8) and "
    "torch.compile's the most (Inductor's estimate, lib.workloads.tracing.inductor_kernels, is 25-49 "
    "kernels on the H100's CNN where its profiles count 31-219: cuDNN's convolutions stay outside "
    "Inductor's fused kernels). With the profiles' counts the medians come down to the lines above. "
    "That fix belongs to the count (kernels per operator as the profiler counts them), not to the model.",
    "Bytes. Every family's bytes per step are its traced step's: every operand of every kernel, read and "
    "written (DRAM traffic if no cache kept anything); the MLP's too, since its hand-written formula (weights "
    "x8, activations x4: 2.6-2.9 times fewer) went for forms fitted to its traces (lib.workloads.mlp_terms). "
    "Counted alike, each GPU's price per byte, fitted mostly to the MLP's steps, fell by about 2.7: the MLP's "
    "own family-out p90 came down (H200 x2.09 to x1.98, H100 x1.92 to x1.81), the Transformer's and "
    "torchvision's moved a little either way, and the CNN's p90 went up (H200 x2.55 to x3.50, H100 x2.98 to "
    "x3.53): its 16-channel steps (x0.22-0.35 predicted: 4,096 images in 17 ms move their counted bytes at "
    "about 440 GB/s) were priced near right only because the MLP's formula undercharged bytes. The "
    "convolutions' efficiency (next note) is what is left.",
    "What both leave. The CNN's p90: at 16 channels and 512 or 4,096 images cuDNN moves its counted bytes "
    "at about 370 GB/s (the recorded busy times) against about 0.9 TB/s at 64 channels and 2.4 TB/s for the "
    "Transformer; no term says how a convolution's efficiency falls with its channels, and no other family "
    "shows it to the fit. torch.compile's CNN steps (H100) are priced with eager's bytes, which its fused "
    "batch norms do not move: x2-4 slow at 64 channels. The MLP predicted from the other families alone "
    "(108 steps on the H200, 134 on the H100): the H200 has no other family compiled, so torch.compile's "
    "prices there are the priors' (its MLP steps x0.15-0.36); and the MLP's large CUDA-graph steps come out "
    "x0.65 on both: the price per FLOP is then the convolutions', which cuDNN runs in TF32 by PyTorch's "
    "default, while the MLP's matmuls run in full fp32 (torch.backends.cuda.matmul.allow_tf32 is off). One "
    "FLOP price for both classes fits neither (a price per class needs the trace's FLOPs by class; a first "
    "try, convolutions apart, did not move these lines and is not kept).",
    "vit_tiny's eager steps at 64 pixels are recorded at 40, 28 and 21 ms for 16, 64 and 256 images (3 "
    "repeats; the first, the pack's first point, with a spread of 12 %): a launch-bound step cannot get "
    "faster with more images, and neither the model nor any curve through them holds the 40 ms one. Worth "
    "recording again.",
)


def machines(recordings: list[Recording]) -> list[tuple[str, Recording]]:
    out = [(s.label, source_recording(s, recordings)) for s in recorded_sources(recordings)]
    small = small_server_recording(recordings, T.MLP)
    if small:
        out.append((machine_text(small.machine), small))
    return [(label, recording) for label, recording in out if recording]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", default=None, help="a folder of packs (default: the shipped ones)")
    parser.add_argument("--out", default=None, help="also write the table here")
    args = parser.parse_args()
    recordings, problems = load_recordings(Path(args.packs) if args.packs else None)
    head = f"{'machine':40} {'dev':4} {'configuration':38} {'steps':>5}"
    lines = [
        f"cost_model_holdout.py, {datetime.date.today()}, on {platform.node()} ({os.cpu_count()} cores; a pure "
        f"computation over the shipped packs: timing plays no part)",
        "",
        f"{head} {'k-fold: med p90 n':>17} {'depth out':>17} {'config out':>17}  goal ×{GOAL_MEDIAN} / ×{GOAL_P90}",
    ]
    notes: list[str] = []
    families: list[str] = []
    family_why: list[str] = []
    for label, recording in machines(recordings):
        if recording.machine.gpus:
            found, why_lines = family_lines(label, recording)
            families += found
            family_why += why_lines
        for kind, table in step_tables.tables(recording, machine_text(recording.machine)).items():
            if len(table) < costmodel.MIN_POINTS * 2:
                continue
            ways = kfold(table.steps, kind), depth_out(table.steps, kind), config_out(table.steps, kind)
            pooled: list[list[float]] = [[], [], []]
            for config in table.steps:
                errors = [w.get(config, []) for w in ways]
                for p, e in zip(pooled, errors):
                    p += e
                lines.append(
                    f"{label[:40]:40} {kind:4} {str(config)[:38]:38} {table.count(config):5} "
                    f"{cell(errors[0])} {cell(errors[1])} {cell(errors[2])}  {verdict(*errors)}"
                )
                notes += [
                    f"{label} {kind} {config}: {n}"
                    for n in why(kind, config, table.count(config), len(table.recorded_depths(config)), errors)
                ]
            lines.append(
                f"{label[:40]:40} {kind:4} {'all configurations':38} {len(table):5} "
                f"{cell(pooled[0])} {cell(pooled[1])} {cell(pooled[2])}  {verdict(*pooled)}"
            )
    lines += ["", f"Family out (goal median x{GOAL_MEDIAN}, p90 x{GOAL_P90}):", *families]
    if family_why:
        lines += [
            "",
            "Family out, its kernels: the trace's count against the profiles', and the same hold-out if "
            "the trace counted kernels as the profiler does:",
            *[f"- {w}" for w in family_why],
            "",
            "Why family out misses:",
            *[f"- {n}" for n in FAMILY_NOTES],
        ]
    if notes:
        lines += ["", "Why it misses:", *[f"- {n}" for n in notes]]
    lines += [f"left out (could not be read): {p}" for p in problems]
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
