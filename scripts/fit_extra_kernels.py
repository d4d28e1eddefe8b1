#!/usr/bin/env python3
"""Fit the kernels each ATen operator launches on CUDA beyond the one the trace counts
(lib.workloads.tracing.EXTRA_KERNELS) to the recorded profiles of every family, on every GPU.

The trace counts one kernel per ATen operator. torch.profiler counts what the GPU ran: cuDNN's convolution
backward computes the input's and the weight's gradients in two calls, layer norm's backward reduces the
weight's and the bias's gradients apart, and so on. What a shape adds on top (cuBLAS splitting a large
matmul, cuDNN picking another algorithm for more images) is not the operator's: it is calibrated per shape
against the profiles (lib.lessons.training.model.KernelCounts). So the fit is to the least count each
structure was profiled at (over batch sizes, widths and GPUs), eager only (one optimizer path), and the
operators the MLP issues keep the extras its profiles fix exactly (tests/test_traced.py: the MLP's traced
count is its least profiled count at every depth 1-16).

    extra[op] >= 0, integer; least_profiled - PROFILED_EXTRA = traced + sum(count[op] x extra[op])

solved as non-negative least squares over the structures, rounded. Prints the fit, each structure's
count before and after, and each family's profiled / traced ratio (median over its eager profiles) before
and after.

What it found (docs/fit_extra_kernels.txt): the packs hold 7 structures (CNN at two depths, the Transformer
at two, three torchvision networks; the H100's and the H200's counts are the same to a kernel or two) for
some 25 operators the MLP does not issue: the fit is underdetermined, and puts whatever a network's own
operators cannot explain on the one operator only it issues (50 kernels on resnet18's max pooling, 9 on
vit_tiny's GELU). So EXTRA_KERNELS takes none of it; what the fit's first rounds pointed at and the CUDA
code confirms is counted in the trace instead (lib.workloads.tracing): a convolution's backward launches
one kernel per gradient asked for, and each batch norm's num_batches_tracked += 1 is a kernel. The rest
needs the kernels' names (a profile's timeline per family) to be told apart.

    python scripts/fit_extra_kernels.py [--out docs/fit_extra_kernels.txt]
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.core.point import Point  # noqa: E402
from lib.lessons.training import model as M  # noqa: E402
from lib.lessons.training import step_tables  # noqa: E402
from lib.lessons.training import view as T  # noqa: E402
from lib.recorded import load_recordings  # noqa: E402
from lib.recorded.sources import machine_text, recorded_sources, source_recording  # noqa: E402
from lib.workloads import tracing  # noqa: E402
from lib.workloads.mlp import FAMILY as MLP_FAMILY  # noqa: E402
from lib.workloads.traced import PROFILED_EXTRA, trace_step  # noqa: E402


def profiled_rows() -> list[tuple[str, object, Point]]:
    """(gpu, family pick, row) of every profiled eager step of every family but the MLP, on every GPU."""
    recordings, _ = load_recordings(None)
    out = []
    for source in recorded_sources(recordings):
        recording = source_recording(source, recordings)
        if not recording:
            continue
        gpu = source.label.split(",")[0]
        for family in T.FAMILIES:
            if family.name == MLP_FAMILY.name:
                continue
            for picked in family.every_pick():
                table = step_tables.tables(recording, machine_text(recording.machine), picked).get("cuda")
                for config, steps in table.steps.items() if table is not None else ():
                    out += [
                        (gpu, picked, point)
                        for point in steps.values()
                        if config[0] == "eager" and point.counts.kernels is not None
                    ]
    return out


def structure_key(picked, row) -> tuple:
    """What decides which operators the step issues: the pick and its depth (sizes and rows do not)."""
    return picked.key, picked.depth_of(M.settings_of(row, picked))


def by_op(picked, row) -> dict[str, int]:
    """ATen operators (kernel-launching) of the row's step, one each: what EXTRA_KERNELS multiplies."""
    settings = {**M.settings_of(row, picked), "batch_size": 2, "dataset_size": 2}
    ops = dict(trace_step(picked.workload, settings).by_op)
    for name, extra in tracing.EXTRA_KERNELS.items():  # back to operator counts (the trace adds the extras)
        if name in ops:
            ops[name] = ops[name] // (1 + extra)
    return ops


def main() -> int:
    import numpy as np
    from scipy.optimize import nnls

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rows = profiled_rows()
    least: dict[tuple, tuple[float, object, Point]] = {}
    for _, picked, row in rows:
        key = structure_key(picked, row)
        if key not in least or row.counts.kernels < least[key][0]:
            least[key] = (float(row.counts.kernels), picked, row)
    ops_of = {key: by_op(picked, row) for key, (_, picked, row) in least.items()}
    mlp_ops = set(
        trace_step(MLP_FAMILY.workload, {**MLP_FAMILY.page_defaults(), "batch_size": 2, "dataset_size": 2}).by_op
    )
    free = sorted(
        {op for ops in ops_of.values() for op in ops}
        - mlp_ops
        - {o for o in (op for ops in ops_of.values() for op in ops) if o.startswith(("_foreach_", "_fused_"))}
    )
    keys = sorted(least)
    fixed = {
        key: sum(n * (1 + tracing.EXTRA_KERNELS.get(op, 0)) for op, n in ops_of[key].items() if op not in free)
        for key in keys
    }
    a = np.array([[ops_of[key].get(op, 0) for op in free] for key in keys], dtype=float)
    b = np.array(
        [least[key][0] - PROFILED_EXTRA - fixed[key] - sum(ops_of[key].get(op, 0) for op in free) for key in keys]
    )
    # a little ridge (towards no extra kernel): the structures are fewer than the operators
    ridge = 0.05
    x, _ = nnls(np.vstack([a, ridge * np.eye(len(free))]), np.concatenate([b, np.zeros(len(free))]))
    lines = [
        f"fit_extra_kernels.py, {datetime.date.today()}, on {platform.node()}: {len(rows)} profiled eager steps "
        f"of {len(keys)} structures (least count of each, over its batches, sizes and GPUs)",
        "",
        "kernels beyond one per operator (non-negative least squares, then rounded):",
    ]
    lines += [f"  {op:50} {v:5.2f} -> {round(v)}" for op, v in zip(free, x) if v > 0.05]
    extra = {op: round(v) for op, v in zip(free, x) if round(v) > 0}
    lines += ["", f"{'structure':40} {'least profiled':>14} {'traced now':>10} {'with the fit':>12}"]
    for key in keys:
        now = fixed[key] + sum(ops_of[key].get(op, 0) * (1 + tracing.EXTRA_KERNELS.get(op, 0)) for op in free)
        fitted = fixed[key] + sum(n * (1 + extra.get(op, 0)) for op, n in ops_of[key].items() if op in free)
        lines.append(
            f"{str(key):40} {least[key][0]:14.0f} {now + PROFILED_EXTRA:10.0f} {fitted + PROFILED_EXTRA:12.0f}"
        )
    lines += ["", "profiled / traced kernels over every eager profile (median, range), now and with the fit:"]
    by_family: dict[str, list[tuple[float, float]]] = {}
    for gpu, picked, row in rows:
        ops = ops_of[structure_key(picked, row)]
        now = sum(n * (1 + tracing.EXTRA_KERNELS.get(op, 0)) for op, n in ops.items()) + PROFILED_EXTRA
        fitted = now + sum(n * extra.get(op, 0) for op, n in ops.items())
        by_family.setdefault(f"{gpu} {picked.key}", []).append((row.counts.kernels / now, row.counts.kernels / fitted))
    for name, pairs in sorted(by_family.items()):
        before, after = sorted(p[0] for p in pairs), sorted(p[1] for p in pairs)
        lines.append(
            f"  {name:50} now x{statistics.median(before):.2f} (x{before[0]:.2f}-x{before[-1]:.2f})   "
            f"fit x{statistics.median(after):.2f} (x{after[0]:.2f}-x{after[-1]:.2f})"
        )
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
