#!/usr/bin/env python3
"""The traced step's kernels (lib.workloads.traced, at each row's own shape) against the kernels
torch.profiler recorded for that step, over every profiled GPU row of the shipped Training packs.

    python3 benchmarks/traced_vs_profiled.py [--out docs/traced_vs_profiled.txt]

The least count per depth is the trace's exactly (tests/test_traced.py); above it, what a shape adds
that no ATen operator shows: cuBLAS splitting a skinny matmul into a kernel and its reduction. The cost
model calibrates that from the profiles (lib.lessons.training.model.KernelCounts).
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.recorded import RECORDED_DIR  # noqa: E402
from lib.workloads import traced  # noqa: E402
from lib.workloads.mlp import WORKLOAD  # noqa: E402

PACKS = (
    "h200_training_gpu",
    "h100_training_gpu",
    "h200_training_graph",
    "h100_training_graph",
    "h200_training_graph_d1_12",
    "h100_training_graph_d1_12",
)


def ratios(pack: str) -> list[tuple[float, dict]]:
    with gzip.open(RECORDED_DIR / f"{pack}.json.gz") as f:
        rows = json.load(f)["rows"]
    out = []
    for row in rows:
        if row.get("kernels") is None or not str(row.get("device", "")).startswith("cuda"):
            continue
        settings = WORKLOAD.resolve({k: row[k] for k in WORKLOAD.defaults() if row.get(k) is not None})
        counted = traced.trace_step(WORKLOAD, settings).ops + traced.PROFILED_EXTRA
        out.append((float(row["kernels"]) / counted, row))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="also write the lines here")
    args = parser.parse_args()
    lines = [
        f"traced_vs_profiled: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d} (no timing: counts only)",
        "pack                         rows  profiled / traced: min  median  p90   max   within x1.2",
    ]
    for pack in PACKS:
        found = sorted(r for r, _ in ratios(pack))
        if not found:
            continue
        at = lambda q: found[int(q * (len(found) - 1))]
        within = sum(1 for r in found if 1 / 1.2 <= r <= 1.2) / len(found)
        lines.append(
            f"{pack:<28} {len(found):>5}  {found[0]:>22.2f} {at(0.5):>7.2f} {at(0.9):>5.2f} "
            f"{found[-1]:>5.2f}   {within:>6.0%}"
        )
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
