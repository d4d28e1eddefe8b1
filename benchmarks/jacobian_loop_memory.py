#!/usr/bin/env python3
"""How much host memory does seed 004's loop strand per backward pass on the CPU? (issue 24, item 2)

    .venv/bin/python benchmarks/jacobian_loop_memory.py --val 1000 --passes 24000 --out docs/jacobian_loop_memory.txt

torch.autograd.functional.jacobian(net, t) runs one backward pass per output element (val x outputs
of them) and keeps each pass's gradient. Each pass also allocates a zero-filled (val, outputs)
temporary; glibc's malloc places the kept gradient in the freed temporary's chunk, and the next
temporary no longer fits there, so resident memory grows by up to one temporary per pass
(lib.workloads.jacobian's CPU_LOOP_STRANDED_FRACTION). The full call at val = 1,000 runs 400,000
passes; this runs the same passes (the loop's own autograd.grad call, in the loop's order) for
the first `--passes` of them and prints resident memory and time as they go, so the estimate can be
checked at the seed's val without the hundreds of GB and many minutes the whole call would take.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rss_bytes() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return float(line.split()[1]) * 1024
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--val", type=int, default=1000)
    parser.add_argument("--passes", type=int, default=24000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--stop-gb", type=float, default=16.0, help="stop once resident growth passes this")
    parser.add_argument("--out", help="also write the table here")
    args = parser.parse_args()

    import torch

    from lib.workloads.jacobian import WORKLOAD, build_net, make_input

    torch.set_num_threads(args.threads)
    params = WORKLOAD.resolve({"val": args.val, "method": "loop"})
    temp = args.val * int(params["outputs"]) * 4
    total = args.val * int(params["outputs"])
    net = build_net(params)
    t = make_input(params).requires_grad_(True)
    flat = net(t).reshape(-1)
    kept = []
    lines = [
        f"# seed 004's loop on the CPU, val = {args.val:,} ({total:,} passes in a full call, a {temp / 1e3:,.0f} kB "
        f"temporary each), {datetime.date.today()} on {platform.node() or 'this machine'} ({os.cpu_count()} cores, "
        f"{args.threads} torch thread(s), torch {torch.__version__}, {os.confstr('CS_GNU_LIBC_VERSION')})",
        f"{'passes':>8} {'growth GB':>10} {'kB/pass':>8} {'temps/pass':>10} {'s/pass':>9}",
    ]
    print("\n".join(lines), flush=True)
    before, started = rss_bytes(), time.perf_counter()
    every = max(1, args.passes // 12)
    for i in range(min(args.passes, total)):
        (grad,) = torch.autograd.grad((flat[i],), (t,), retain_graph=True)
        kept.append(grad)
        done = i + 1
        if done % every == 0 or done == args.passes:
            growth = rss_bytes() - before
            line = (
                f"{done:8,} {growth / 1e9:10.2f} {growth / done / 1e3:8.0f} {growth / done / temp:10.2f} "
                f"{(time.perf_counter() - started) / done:9.2e}"
            )
            lines.append(line)
            print(line, flush=True)
            if growth > args.stop_gb * 1e9:
                lines.append(f"stopped: growth over {args.stop_gb:g} GB")
                break
    estimate = WORKLOAD.peak_memory_bytes(params, "cpu")
    lines.append(f"the workload's estimate for the whole call: {estimate / 1e9:,.1f} GB")
    print(lines[-1])
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
