#!/usr/bin/env python3
"""How fast this host is (lib.core.host: the figures every recording keeps), and against packs' hosts.

    .venv/bin/python benchmarks/host_check.py                       # 5 checks here, their spread, the verdict
    .venv/bin/python benchmarks/host_check.py PACK.json.gz ...      # and this host against each pack's figures
    .venv/bin/python benchmarks/host_check.py --devices cpu,cuda --json   # one JSON object, to compare leases

Each check is what a recording times at its start and end (lib.core.host_timing.time_host, about 2 s), with
the other processes' share of the cores meanwhile (a check beside other work is slow for that reason, not
the host's). Printed: every check's figures, their median over the checks, the spread between checks
((max - min) / median: a figure must be steadier than the 1.25x lib.core.host_verdict calls slow), the
verdict against the best of this machine kind on record (the shipped packs), and the ratio against each
PACK given (x1.30: this host 1.3x slower than that pack's).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.core.devices import machine_fingerprint, resolve_devices  # noqa: E402
from lib.core.host import HostFigure, HostSpeed, Reading  # noqa: E402
from lib.core.host_timing import time_host  # noqa: E402
from lib.core.host_verdict import (  # noqa: E402
    HostCheck,
    MachineKind,
    best_on_record,
    host_slowdown,
    machines_on_record,
)
from lib.core.load import CpuCounters  # noqa: E402
from lib.core.results import load_pack  # noqa: E402


def checks(devices: list[str], runs: int) -> list[tuple[HostSpeed, float | None]]:
    """`runs` host checks one after another, each with the other processes' share of the cores meanwhile."""
    out = []
    for _ in range(runs):
        before = CpuCounters.now()
        speed = time_host(devices)
        share = CpuCounters.now().other_share_since(before)
        out.append((speed, None if share is None else round(share, 3)))
    return out


def median_speed(speeds: list[HostSpeed]) -> HostSpeed:
    """Each figure's median over the checks (its spread: the median of theirs)."""
    medians = {}
    for figure in HostFigure:
        readings = [r for s in speeds if (r := s.reading(figure)) is not None]
        medians[figure.key] = (
            Reading(statistics.median(r.value for r in readings), statistics.median(r.spread for r in readings))
            if readings
            else None
        )
    return HostSpeed(**medians, threads=speeds[0].threads)


def between(speeds: list[HostSpeed]) -> dict[str, float]:
    """Each figure's spread between checks: (max - min) / median."""
    out = {}
    for figure in HostFigure:
        values = [r.value for s in speeds if (r := s.reading(figure)) is not None]
        if len(values) > 1:
            out[figure.key] = round((max(values) - min(values)) / statistics.median(values), 3)
    return out


def against_packs(speed: HostSpeed, paths: list[str]) -> list[dict[str, object]]:
    """This host's figures against each pack's (every machine it names that kept host figures)."""
    out: list[dict[str, object]] = []
    for path in paths:
        for machine in machines_on_record([load_pack(path)]):
            theirs = HostSpeed.of(machine)
            ratios = host_slowdown(speed, theirs) if theirs is not None else {}
            out.append(
                {
                    "pack": path,
                    "machine": machine.get("label"),
                    "same_kind": MachineKind.of(machine) == MachineKind.of(machine_fingerprint()),
                    "ratios": {f.key: round(r, 3) for f, r in ratios.items()} if theirs is not None else None,
                }
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("packs", nargs="*", help="packs whose host figures to compare with")
    parser.add_argument("--devices", default="cpu", help="cpu, or cpu,cuda for the launch and copy figures too")
    parser.add_argument("--runs", type=int, default=5, help="host checks one after another (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    args = parser.parse_args(argv)

    devices = resolve_devices(args.devices)
    done = checks(devices, max(1, args.runs))
    speeds = [speed for speed, _ in done]
    speed = median_speed(speeds)
    fingerprint = machine_fingerprint()
    kind = MachineKind.of(fingerprint)
    from lib.recorded import load_recordings

    on_record = [m.to_json() for r in load_recordings()[0] for m in r.file_pack.fingerprints]
    check = HostCheck(kind, speed, best_on_record(on_record, kind))
    report = {
        "machine": {
            k: fingerprint.get(k) for k in ("label", "cpu_model", "cpu_cores", "torch_threads", "gpus", "torch")
        },
        "checks": [{**s.as_machine(), "other_cpu_share": share} for s, share in done],
        "median": speed.as_machine(),
        "between_checks": between(speeds),
        "verdict": check.verdict.value,
        "against_best_on_record": {f.key: round(r, 3) for f, r in check.ratios.items()},
        "against_packs": against_packs(speed, args.packs),
    }
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{fingerprint['label']}: {kind.words()}, torch {fingerprint['torch']}, {speed.threads} threads")
    for i, (s, share) in enumerate(done, 1):
        figures = "  ".join(f"{f.key} {r.value:8.3g} ±{r.spread:4.0%}" for f, r in s.readings())
        other = "?" if share is None else f"{share:.0%}"
        print(f"check {i}: {figures}   (other processes: {other} of the cores)")
    print("median : " + "  ".join(f"{f.key} {r.value:8.3g} {f.unit_words}" for f, r in speed.readings()))
    print("between checks (max-min)/median: " + ", ".join(f"{k} {v:.0%}" for k, v in report["between_checks"].items()))
    print(check.sentence())
    for row in report["against_packs"]:
        ratios = row["ratios"]
        said = ", ".join(f"{k} x{v:.2f}" for k, v in ratios.items()) if ratios else "no host figures kept"
        print(f"against {row['pack']} ({row['machine']}{'' if row['same_kind'] else ', another kind'}): {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
