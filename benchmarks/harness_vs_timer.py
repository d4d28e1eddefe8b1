"""Does our harness agree with torch.utils.benchmark? Time the same calls with both.

    python benchmarks/harness_vs_timer.py [--devices cpu,cuda] [--threads N] [--budget S]

Prints, per workload and device: lib.core.timing.time_step's median, Timer.blocked_autorange's
median (same thread count), and their ratio. Goal: every ratio within 0.9-1.1.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch
import torch.utils.benchmark as benchmark

from lib.core.devices import resolve_devices
from lib.core.timing import time_step
from lib.workloads.mlp import WORKLOAD as MLP


def cases(device: str):
    """(name, callable) pairs spanning ~50 us to ~50 ms per call (sizes chosen per device)."""
    dev = torch.device(device)
    gpu = device.startswith("cuda")
    vec = torch.randn(50_000_000 if gpu else 1_000_000, device=dev)
    mid = 2048 if gpu else 256
    big = 8192 if gpu else 1536
    m_mid = torch.randn(mid, mid, device=dev)
    m_big = torch.randn(big, big, device=dev)
    conv = torch.nn.Conv2d(16, 32, 3, padding=1).to(dev)
    images = torch.randn(256 if gpu else 32, 16, 64, 64, device=dev)
    mlp_step = MLP.build(MLP.resolve({"batch_size": 64}), device).run
    return [
        (f"vector add {vec.numel() // 1_000_000}M", lambda: vec + vec),
        ("mlp train step b64", mlp_step),
        (f"matmul {mid}", lambda: m_mid @ m_mid),
        (f"conv2d {images.shape[0]}x16x64x64", lambda: conv(images)),
        (f"matmul {big}", lambda: m_big @ m_big),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="cpu")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per measurement for each tool")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.threads} CPU threads, budget {args.budget} s per measurement")
    header = f"{'device':8s} {'workload':22s} {'harness':>12s} {'IQR':>10s} {'Timer':>12s} {'IQR':>10s} {'ratio':>6s}"
    print(header)
    print("-" * len(header))
    worst = 1.0
    for device in resolve_devices(args.devices):
        for name, fn in cases(device):
            ours = time_step(fn, device, budget_s=args.budget, num_threads=args.threads, max_repeats=10_000)
            timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=args.threads)
            ref = timer.blocked_autorange(min_run_time=args.budget)
            ratio = ours.median_s / ref.median
            worst = max(worst, ratio, 1 / ratio)
            print(f"{device:8s} {name:22s} {ours.median_s * 1e6:10.1f}us {ours.iqr_s * 1e6:8.1f}us "
                  f"{ref.median * 1e6:10.1f}us {ref.iqr * 1e6:8.1f}us {ratio:6.3f}", flush=True)
    verdict = "within" if worst <= 1.1 else "OUTSIDE"
    print(f"worst ratio (either way): {worst:.3f} -> {verdict} the 0.9-1.1 goal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
