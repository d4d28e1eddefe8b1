"""Record the result packs the app ships, on a machine with a GPU, with the project's own CLI.

    python3 scripts/record_packs.py --out lib/recorded            # every topic, CPU and CUDA
    python3 scripts/record_packs.py --out /tmp/packs --topics training --quick

Each sweep runs `python -m lib sweep ...` (the same command a reader can type), and the sweeps of
one topic are merged into <out>/<prefix>_<topic>.json, whose `machine` says where they were
measured. Needs torch (and pandas/scikit-learn for some data sources), not Streamlit.
On a machine without CUDA it records the CPU side only and says so.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.core.results import load_pack, merge_packs, save_pack  # noqa: E402

# (topic, workload, swept setting, values, fixed settings, seconds per point)
# Fixed settings are the pages' defaults, so each page's default view has recorded rows.
SPECS: list[tuple[str, str, str, list, dict, float]] = [
    ("training", "mlp", "batch_size", [1, 4, 16, 64, 256, 1024, 4096, 8192], {}, 0.5),
    ("training", "mlp", "hidden_width", [8, 32, 128, 512, 2048, 8192], {}, 0.5),
    ("training", "mlp", "dataset_size", [256, 1024, 8192, 65536, 262144], {}, 0.5),
    ("training", "mlp", "depth", [1, 2, 3, 4, 8, 16], {}, 0.5),
    # Data pipeline page: images vs tensors on the device, its default (dataset 256, batch 64, Linear, 0 workers)
    # and the model / worker / pinned-memory switches; CPU and GPU of one machine, phases at every point.
    *[("data_pipeline", "dataloader", "batch_size", [8, 16, 32, 64, 128, 256, 512],
       {"source": src, "dataset_size": 256, "model": model, "num_workers": 0, "pin_memory": False}, 0.3)
      for model in ("linear", "mlp") for src in ("images", "tensors")],
    *[("data_pipeline", "dataloader", "dataset_size", [256, 512, 1024, 2048],
       {"source": src, "batch_size": 64, "model": "linear", "num_workers": 0, "pin_memory": False}, 0.3)
      for src in ("images", "tensors")],
    *[("data_pipeline", "dataloader", "batch_size", [8, 16, 32, 64, 128, 256, 512],
       {"source": "images", "dataset_size": 256, "model": "linear", "num_workers": workers, "pin_memory": pin}, 0.3)
      for workers, pin in ((0, True), (2, False), (4, True))],
    # Jacobian page (seed 004): one sweep over val per method, the seed's network. The loop's CPU side is
    # refused from val 1000 by its memory estimate, vectorize's from 300 (and on both devices at 1000). The
    # loop stops at val 100: at 1000 one call is 400,000 backward passes (minutes), and a timed point needs six.
    ("jacobian", "jacobian", "val", [1, 3, 10, 30, 100], {"method": "loop"}, 0.3),
    ("jacobian", "jacobian", "val", [1, 3, 10, 30, 100, 300, 1000], {"method": "vectorize"}, 0.3),
    *[("jacobian", "jacobian", "val", [1, 3, 10, 30, 100, 300, 1000, 3000, 10000], {"method": method}, 0.3)
      for method in ("vmap_jacrev", "vmap_jacfwd")],
    # Timing pitfalls page (seed 003): the honest baseline (synchronised fp32, no copy) over every size of the
    # page, then each toggle on its own (naive timer, TF32, copy counted) up to 8192.
    ("timing", "matmul", "size", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], {}, 0.3),
    *[("timing", "matmul", "size", [64, 128, 256, 512, 1024, 2048, 4096, 8192], fixed, 0.3)
      for fixed in ({"sync": False}, {"dtype": "tf32"}, {"transfer": True})],
]

QUICK_VALUES = 3  # --quick keeps the first few values of each sweep


def run_sweep_cli(workload: str, over: str, values: list, fixed: dict, devices: str, budget: float,
                  out: Path, memory_cap_gb: float) -> dict:
    cmd = [sys.executable, "-m", "lib", "sweep", workload, "--over", f"{over}={','.join(map(str, values))}",
           "--devices", devices, "--budget", str(budget), "--out", str(out), "--quiet",
           "--memory-cap-gb", str(memory_cap_gb)]
    for key, value in fixed.items():
        cmd += ["--set", f"{key}={value}"]
    print("$ python -m lib " + " ".join(cmd[3:]), flush=True)
    started = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    print(f"  ({time.perf_counter() - started:.0f} s)", flush=True)
    return load_pack(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "lib" / "recorded"))
    parser.add_argument("--topics", default="", help="comma-separated topics (default: all)")
    parser.add_argument("--prefix", default=None, help="file name prefix (default: from the GPU name)")
    parser.add_argument("--quick", action="store_true", help="few values and short budgets (to try the script)")
    parser.add_argument("--memory-cap-gb", type=float, default=64.0, help="refuse points estimated above this")
    args = parser.parse_args()

    import torch

    devices = "cpu,cuda" if torch.cuda.is_available() else "cpu"
    if devices == "cpu":
        print("CUDA is not available here: recording the CPU side only.")
    prefix = args.prefix or ("h200" if torch.cuda.is_available() and "H200" in torch.cuda.get_device_name(0)
                             else "gpu" if torch.cuda.is_available() else "cpu")
    wanted = {t for t in args.topics.split(",") if t}
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    by_topic: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (topic, workload, over, values, fixed, budget) in enumerate(SPECS):
            if wanted and topic not in wanted:
                continue
            if args.quick:
                values, budget = values[:QUICK_VALUES], min(budget, 0.05)
            pack = run_sweep_cli(workload, over, values, fixed, devices, budget, Path(tmp) / f"{i}.json", args.memory_cap_gb)
            by_topic.setdefault(topic, []).append(pack)
    for topic, packs in by_topic.items():
        merged = merge_packs(packs)
        path = save_pack(merged, out_dir / f"{prefix}_{topic}.json")
        statuses = {}
        for row in merged["rows"]:
            statuses[row["status"]] = statuses.get(row["status"], 0) + 1
        print(f"wrote {path}: {len(merged['rows'])} rows {json.dumps(statuses)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
