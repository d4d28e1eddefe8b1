#!/usr/bin/env python3
"""Evidence that a sweep's CUDA timings were slowed by profiling earlier points in the same process.

    python3 benchmarks/profiler_after_effect.py PROFILED_GRID.json.gz [--clean lib/recorded] [--out docs/...]

The grids recorded on 2026-11-23 with `--profile` profiled each point right after timing it. Once
torch.profiler has traced CUDA, CUPTI stays attached to the process (pytorch/pytorch#146604) and every
later kernel launch pays for it. This script compares the profiled grid's step times with rows of the
same machine recorded without a profile in the process: the first point of the grid itself (timed
before any profile), the grids with item() every step (which can only be slower than the plain step),
and the fused-optimizer grid. Ratios above 1 at launch-bound points are the after-effect. Since then
lib.core.sweep profiles only after every timing of a call, and those grids are not shipped.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from pathlib import Path


def steps(path: Path) -> dict[tuple, float]:
    with gzip.open(path) if path.suffix == ".gz" else path.open() as f:
        rows = json.load(f)["rows"]
    return {
        (r["hidden_width"], r["depth"], r["batch_size"]): r["median_s"]
        for r in rows
        if r.get("status") == "ok" and str(r["device"]).startswith("cuda")
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profiled", type=Path)
    parser.add_argument("--clean", type=Path, default=Path("lib/recorded"))
    parser.add_argument("--prefix", default="h200")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    grid = steps(args.profiled)
    with gzip.open(args.profiled) as f:
        first = json.load(f)["rows"][:4]
    lines = [
        f"profiled grid: {args.profiled.name} ({len(grid)} ok CUDA points)",
        "first points in order (the first was timed before any profile in the process):",
    ]
    lines += [
        f"  width {r['hidden_width']}, depth {r['depth']}, batch {r['batch_size']}: {r['median_s'] * 1e3:.3f} ms"
        for r in first
    ]
    for name in ("training_item", "training_copied", "training_fused"):
        path = args.clean / f"{args.prefix}_{name}.json.gz"
        if not path.exists():
            continue
        other = steps(path)
        launch_bound = [k for k in other if k in grid and k[2] <= 1024 and k[0] <= 256]
        ratios = [grid[k] / other[k] for k in launch_bound]
        if ratios:
            lines.append(
                f"profiled eager / {name} (no profile), {len(ratios)} launch-bound points (width <= 256, "
                f"batch <= 1,024): median {statistics.median(ratios):.2f}, "
                f"range {min(ratios):.2f}-{max(ratios):.2f}"
            )
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
