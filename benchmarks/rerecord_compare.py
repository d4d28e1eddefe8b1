#!/usr/bin/env python3
"""A pack recorded again on a quiet lease against the version it replaced (issue 37: recordings prove their
machine was quiet; the packs recorded before a pack kept its load are re-recorded, and this says how far the
old numbers were from the quiet ones).

    .venv/bin/python benchmarks/rerecord_compare.py --old-rev fda5128 h200_training_gpu h200_stream \
        --out docs/rerecorded_h200.txt

For each named pack: the shipped file (lib/recorded/<name>, .json.gz unless named; NEW=OLD for a pack that
replaces one of another name) and the same path at --old-rev (git show),
their recording dates and loads, the points both hold ok at the same settings and device, and the new/old
ratio of the median step: over all of them, under 2 ms (launch-bound: moves between leases) and over 10 ms
(the GPU's work: should not move). Kernel counts of profiled points are compared too (same code: same
count). Nothing is timed here: both sides are recordings.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.core.results import load_pack, loads_pack, setting_keys  # noqa: E402


def point(row: dict, keys: dict[str, set[str]]) -> tuple:
    """A row's identity: its workload, device and the settings both packs' rows name (a setting added to the
    workloads since the old pack was recorded holds its default in the new rows)."""
    return (row["workload"], row["device"], *((k, str(row.get(k))) for k in sorted(keys[row["workload"]])))


def shared_settings(*packs: dict) -> dict[str, set[str]]:
    """Per workload, the settings every row of both packs names."""
    keys: dict[str, set[str]] = {}
    for pack in packs:
        for row in pack["rows"]:
            named = set(setting_keys(row))
            keys[row["workload"]] = keys[row["workload"]] & named if row["workload"] in keys else named
    return keys


def quantiles(values: list[float]) -> str:
    v = sorted(values)
    return (
        (f"n={len(v)} median x{statistics.median(v):.3f} p10 x{v[len(v) // 10]:.3f} p90 x{v[9 * len(v) // 10]:.3f}")
        if v
        else "n=0"
    )


def load_words(machine: dict) -> str:
    if "load_quiet" not in machine:
        return "no load kept"
    return (
        f"load_quiet {machine['load_quiet']}, other processes {machine.get('load_other_cpu_share', 0):.1%} "
        f"of the host's cores"
    )


def _file(name: str) -> str:
    if "/" in name:  # a candidate not shipped (yet): its path
        return name
    return f"lib/recorded/{name}" if name.endswith((".json", ".json.gz")) else f"lib/recorded/{name}.json.gz"


def compare(names: str, old_rev: str) -> list[str]:
    name, _, old_name = names.partition("=")  # NEW=OLD: a pack that replaces one of another name
    path = _file(name)
    new = load_pack(ROOT / path)
    old_bytes = subprocess.run(
        ["git", "show", f"{old_rev}:{_file(old_name or Path(name).name)}"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    old = loads_pack(gzip.decompress(old_bytes) if old_bytes[:2] == b"\x1f\x8b" else old_bytes)
    lines = [
        f"{name}: old {old['machine'].get('date', '?')[:10]} ({load_words(old['machine'])}), "
        f"new {new['machine'].get('date', '?')[:10]} ({load_words(new['machine'])})"
    ]
    keys = shared_settings(old, new)
    a = {point(r, keys): r for r in old["rows"]}
    b = {point(r, keys): r for r in new["rows"]}
    both = [k for k in a if k in b and a[k]["status"] == "ok" == b[k]["status"]]
    lines.append(f"  points: old {len(a)}, new {len(b)}, ok in both {len(both)}")

    def ratios(keys: list) -> list[float]:
        return [b[k]["median_s"] / a[k]["median_s"] for k in keys]

    lines.append(f"  new/old step, all:          {quantiles(ratios(both))}")
    for device in sorted({a[k]["device"] for k in both}):
        lines.append(f"  new/old step, {device:<13} {quantiles(ratios([k for k in both if a[k]['device'] == device]))}")
    lines.append(f"  new/old step, under 2 ms:   {quantiles(ratios([k for k in both if a[k]['median_s'] < 2e-3]))}")
    lines.append(f"  new/old step, over 10 ms:   {quantiles(ratios([k for k in both if a[k]['median_s'] >= 1e-2]))}")
    kernels = [b[k]["kernels"] / a[k]["kernels"] for k in both if a[k].get("kernels") and b[k].get("kernels")]
    if kernels:
        lines.append(f"  kernels new/old:            {quantiles(kernels)}")
    spread = [r["iqr_s"] / r["median_s"] for r in (b[k] for k in both)]
    spread_old = [r["iqr_s"] / r["median_s"] for r in (a[k] for k in both)]
    if spread:
        lines.append(
            f"  spread (IQR/median), median: old {statistics.median(spread_old):.1%}, "
            f"new {statistics.median(spread):.1%}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old-rev", required=True, help="the git revision holding the packs replaced")
    parser.add_argument("--out", help="also write the report here")
    parser.add_argument("packs", nargs="+", help="pack names, e.g. h200_training_gpu")
    args = parser.parse_args(argv)
    out = [
        f"# packs recorded again against the versions they replaced ({args.old_rev}); "
        f"run {datetime.date.today().isoformat()}",
        "",
    ]
    for name in args.packs:
        out += compare(name, args.old_rev) + [""]
    text = "\n".join(out)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
