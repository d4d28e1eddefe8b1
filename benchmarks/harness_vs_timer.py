"""Does our harness agree with torch.utils.benchmark? Time the same calls with both, interleaved.

    python benchmarks/harness_vs_timer.py [--devices cpu,cuda] [--threads N] [--rounds 7] [--out FILE]

For every case, `rounds` rounds each time the call once with lib.core.timing.time_step and once
with Timer.blocked_autorange (same thread count, same budget), alternating which goes first, so a
machine that gets busier or quieter affects both alike. Printed per case: the median of each
tool's medians, the median of the per-round ratios (harness / Timer) and the spread of those
ratios (IQR). Cases span about 0.05 ms to 50 ms per call, including the MLP training step eager
and, on CUDA, captured in one CUDA graph (about 0.1-0.2 ms on an H100 or H200).
Goal (issue 12): every median ratio within 0.9-1.1, on the CPU and on the GPU machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.utils.benchmark as benchmark

from lib.core.devices import resolve_devices
from lib.core.timing import median_and_iqr, time_step
from lib.core.workload import built_step
from lib.workloads.mlp import WORKLOAD as MLP


def cases(device: str, stack) -> list[tuple[str, object]]:
    """(name, callable) pairs from about 0.05 ms to 50 ms per call (sizes chosen per device)."""
    dev = torch.device(device)
    gpu = device.startswith("cuda")
    tiny = torch.randn(4096 if gpu else 64, 4096 if gpu else 64, device=dev)  # ~0.05 ms: a small matmul
    vec = torch.randn(50_000_000 if gpu else 1_000_000, device=dev)
    mid = torch.randn(2048 if gpu else 256, 2048 if gpu else 256, device=dev)
    big = torch.randn(8192 if gpu else 1536, 8192 if gpu else 1536, device=dev)
    out = [
        (f"matmul {tiny.shape[0]} (~0.05 ms)", lambda: tiny @ tiny),
        (f"vector add {vec.numel() // 1_000_000}M", lambda: vec + vec),
    ]
    for mode in ("eager", "cuda_graph") if gpu else ("eager",):
        step = stack.enter_context(built_step(MLP, MLP.resolve({"batch_size": 64, "mode": mode}), device))
        out.append((f"mlp step b64, {mode}", step.run))
    out += [(f"matmul {mid.shape[0]}", lambda: mid @ mid), (f"matmul {big.shape[0]}", lambda: big @ big)]
    return out


def interleaved(fn, device: str, threads: int, budget: float, rounds: int) -> tuple[list[float], list[float]]:
    ours, timer = [], []
    for r in range(rounds):
        order = ("ours", "timer") if r % 2 == 0 else ("timer", "ours")
        for tool in order:
            if tool == "ours":
                ours.append(time_step(fn, device, budget_s=budget, num_threads=threads, max_repeats=10_000).median_s)
            else:
                t = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=threads)
                timer.append(t.blocked_autorange(min_run_time=budget).median)
    return ours, timer


def main() -> int:
    from contextlib import ExitStack

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="cpu")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--budget", type=float, default=0.3, help="seconds per measurement for each tool")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lines = [
        f"torch {torch.__version__}, {args.threads} CPU threads, {args.rounds} interleaved rounds of "
        f"{args.budget} s per tool",
        f"{'device':8} {'case':26} {'harness':>11} {'Timer':>11} {'ratio':>7} {'ratio IQR':>10}",
    ]
    worst = 1.0
    for device in resolve_devices(args.devices):
        with ExitStack() as stack:
            for name, fn in cases(device, stack):
                ours, timer = interleaved(fn, device, args.threads, args.budget, args.rounds)
                ratio, spread = median_and_iqr([a / b for a, b in zip(ours, timer)])
                worst = max(worst, ratio, 1 / ratio)
                lines.append(
                    f"{device:8} {name:26} {statistics.median(ours) * 1e6:9.1f}us "
                    f"{statistics.median(timer) * 1e6:9.1f}us {ratio:7.3f} {spread:10.3f}"
                )
                print(lines[-1], flush=True)
    lines.append(
        f"worst median ratio (either way): {worst:.3f} -> {'within' if worst <= 1.1 else 'OUTSIDE'} the 0.9-1.1 goal"
    )
    print("\n".join(lines[-1:]))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
