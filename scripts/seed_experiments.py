#!/usr/bin/env python3
"""Re-run every seed experiment at the seed's sizes and set our GPU/CPU ratio beside the seed's.

    python3 scripts/seed_experiments.py                      # CPU, and CUDA when present
    python3 scripts/seed_experiments.py --quick              # cut sizes: a CPU-only smoke run
    python3 scripts/seed_experiments.py --only big_matmul,iris --devices cuda --out seeds.json
    python3 scripts/seed_experiments.py --only jacobian_val1000 --include-slow
    python3 scripts/seed_experiments.py --curves --out seeds.json   # also seeds_curves.json (loss per epoch)

Each experiment is a preset (lib/workloads/presets.py): a workload at the seed's settings. We time
one call of the step (one training step, one DataLoader epoch, one matmul, one Jacobian) with the
project's harness and multiply by the number of calls the seed's reported time covers; step counts
are cut that way, never sizes (except with --quick, which says so). A call that takes longer than
the budget is timed once after its cold call; one longer than --single-call-s is timed only once.

Runs on a GPU machine's plain python3 (torch, torchvision, scikit-learn; no Streamlit).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lib.core.devices import MachineObject, available_devices, device_name, resolve_devices  # noqa: E402
from lib.core.fmt import fmt_num, fmt_s  # noqa: E402
from lib.core.host_watch import MachineWatch  # noqa: E402
from lib.core.point import Point, rows_of  # noqa: E402
from lib.core.results import build_pack, save_pack  # noqa: E402
from lib.core.rows import Status, is_ok  # noqa: E402
from lib.core.sweep import measure_point  # noqa: E402
from lib.core.workload import SettingError  # noqa: E402
from lib.workloads.presets import PRESETS_LIST, Preset, get_preset  # noqa: E402

SOURCE = "scripts/seed_experiments.py"


def measure(
    preset: Preset,
    params: dict[str, Any],
    device: str,
    *,
    budget_s: float,
    single_call_s: float,
    memory_cap_gb: float | None,
    threads: int | None,
    check: bool,
) -> dict[str, Any]:
    """One result row for `preset` on `device`; a call slower than the budget is timed once warm."""
    point = measure_point(
        preset.workload_obj(),
        params,
        device,
        budget_s=budget_s,
        memory_cap_gb=memory_cap_gb,
        num_threads=threads,
        with_phases=False,
        check=check,
        slow_call_s=budget_s,
        single_call_s=single_call_s,
    )
    return rows_of([replace(point.with_notes(variant=preset.name), origin_text=SOURCE)])[0]


def _ratio(ratio: float | None) -> str:
    return "-" if ratio is None else fmt_num(ratio)


def verdict(expected: str | None, ratio: float | None) -> str:
    """Does our GPU/CPU ratio point the way the seed's experience says it should?"""
    if expected is None or ratio is None:
        return ""
    if expected == "gpu_slower":
        return "as expected (GPU slower)" if ratio > 1.1 else "differs: GPU not slower"
    if expected == "gpu_faster":
        return "as expected (GPU faster)" if ratio < 0.9 else "differs: GPU not faster"
    return "as expected (about even)" if 0.67 <= ratio <= 1.5 else "differs: not even"


def print_table(
    results: list[tuple[Preset, dict[str, Any], dict[str, dict]]], cpu: str, gpu: str | None, quick: bool
) -> None:
    header = [
        "experiment",
        "seed",
        "seed CPU",
        "seed GPU",
        "seed GPU/CPU",
        "ours CPU",
        "ours GPU",
        "ours GPU/CPU",
        "covers",
        "",
    ]
    table = []
    notes: list[str] = []
    data_notes: dict[str, list[str]] = {}  # the same fallback note once, with every experiment it hit
    for preset, _params, rows in results:

        def ours(device: str | None) -> float | None:
            row = rows.get(device) if device else None
            if not is_ok(row):
                return None
            return row["median_s"] * preset.reported_calls

        c, g = ours(cpu), ours(gpu)
        ratio = g / c if c and g else None
        table.append(
            [
                preset.name,
                preset.seed,
                fmt_s(preset.reported_cpu_s),
                fmt_s(preset.reported_gpu_s),
                _ratio(preset.reported_ratio),
                fmt_s(c),
                fmt_s(g),
                _ratio(ratio),
                preset.reported_what,
                verdict(preset.expected, ratio),
            ]
        )
        for device, row in rows.items():
            if not is_ok(row):
                notes.append(f"{preset.name} on {device}: {row['status']}: {row['message']}")
            elif row.get("data_note"):
                data_notes.setdefault(row["data_note"], []).append(f"{preset.name} on {device}")
        if quick and preset.quick:
            cut = ", ".join(f"{k}={v}" for k, v in preset.quick.items())
            notes.append(f"{preset.name}: --quick cut {cut} (the seed's sizes are larger)")
    widths = [max(len(h), *(len(r[i]) for r in table)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in table:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    notes += [f"{', '.join(where)}: {note}" for note, where in data_notes.items()]
    if notes:
        print()
        for note in dict.fromkeys(notes):
            print("- " + note)


def run_preset(
    preset: Preset, devices: list[str], args: argparse.Namespace, budget: float
) -> tuple[Preset, dict[str, Any], dict[str, dict]]:
    """One experiment on every device: its rows by device (a slow one left out unless asked for)."""
    params = preset.params(quick=args.quick)
    rows: dict[str, dict] = {}
    for device in devices:
        if preset.slow and not args.quick and not args.include_slow:
            point = Point.new(preset.workload, params, device).refused(
                Status.SKIPPED, "minutes per call: run with --include-slow (or --quick for a cut-down size)"
            )
            row = rows_of([replace(point.with_notes(variant=preset.name), origin_text=SOURCE)])[0]
        else:
            t0 = time.perf_counter()
            print(f"{preset.name} on {device} ...", end=" ", flush=True)
            row = measure(
                preset,
                params,
                device,
                budget_s=budget,
                single_call_s=args.single_call_s,
                memory_cap_gb=args.memory_cap_gb,
                threads=args.threads,
                check=not args.no_check,
            )
            print(
                f"{row['status']} {fmt_s(row.get('median_s'))} per call ({time.perf_counter() - t0:.0f} s)", flush=True
            )
        rows[device] = row
    return preset, params, rows


def on_record() -> list[MachineObject]:
    """The machines of the shipped packs (each source of a merged one): the best host figures of a kind are theirs."""
    from lib.recorded import load_recordings

    return [machine.to_json() for r in load_recordings()[0] for machine in r.file_pack.fingerprints]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the presets' cut-down sizes (a CPU-only smoke run)")
    parser.add_argument("--only", default="", help="comma-separated preset names (default: all)")
    parser.add_argument("--include-slow", action="store_true", help="also run presets that take minutes per call")
    parser.add_argument("--devices", default=None, help="cpu, cuda, ... (default: cpu and cuda:0 when present)")
    parser.add_argument(
        "--budget", type=float, default=None, help="seconds of timed repeats per point (default 1, quick 0.3)"
    )
    parser.add_argument("--single-call-s", type=float, default=60.0, help="a call longer than this is timed only once")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default: torch's own)")
    parser.add_argument(
        "--memory-cap-gb",
        type=float,
        default=None,
        help="refuse points estimated above this (default: only the device's free memory)",
    )
    parser.add_argument("--no-check", action="store_true", help="skip each workload's result check")
    parser.add_argument("--out", help="write a result pack (JSON) here")
    parser.add_argument(
        "--curves",
        action="store_true",
        help="with --out X.json, also write X_curves.json: each training preset's loss per epoch on "
        "every device, at the Seed case studies page's curve settings (lib/seed_cases.py)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.curves and not args.out:
        print("error: --curves needs --out (the curves go next to the pack)", file=sys.stderr)
        return 2

    try:
        presets = [get_preset(n.strip()) for n in args.only.split(",") if n.strip()] or list(PRESETS_LIST)
        devices = resolve_devices(args.devices) if args.devices else available_devices()[:2]
    except (SettingError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    budget = args.budget if args.budget is not None else (0.3 if args.quick else 1.0)
    cpu = "cpu" if "cpu" in devices else None
    gpu = next((d for d in devices if d != "cpu"), None)

    import torch

    print(f"torch {torch.__version__}; devices: " + ", ".join(f"{d} ({device_name(d)})" for d in devices))
    if gpu is None:
        print("CUDA is not available here: only the CPU side is measured.")

    started = time.perf_counter()
    # the pack keeps how busy the machine was and how fast its host, as every recording does
    watch = MachineWatch.start(devices, on_record)
    results = [run_preset(p, devices, args, budget) for p in presets]
    machine = watch.machine()
    all_rows = [row for _, _, rows in results for row in rows.values()]

    print(
        f"\nall done in {time.perf_counter() - started:.0f} s. 'ours' = time per call x the calls the seed's "
        "time covers; GPU/CPU below 1 means the GPU was faster.\n"
    )
    print_table(results, cpu or "cpu", gpu, args.quick)
    if args.out:
        save_pack(build_pack(all_rows, machine), args.out)
        print(f"\nwrote {args.out} ({len(all_rows)} rows)")
    watch.tell(machine)
    if args.curves:
        from lib.lessons.seed_cases.curves import curves_pack, curves_path

        watch = MachineWatch.start(devices, on_record)
        curves = curves_pack(presets, devices, num_threads=args.threads, progress=print)
        curves["machine"] = watch.machine()
        watch.tell(curves["machine"])
        print(f"wrote {save_pack(curves, curves_path(args.out))} ({len(curves['curves'])} curves)")
    return 0 if all(r["status"] in (Status.OK, Status.SKIPPED) for r in all_rows) else 1


if __name__ == "__main__":
    sys.exit(main())
