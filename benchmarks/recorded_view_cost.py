#!/usr/bin/env python3
"""What drawing a recorded view of each Training family costs the web server: a fresh interpreter (a fresh
cache folder, so the H200's cost model is fitted, every recorded step's terms counted) composes the family's
default view in eager and CUDA-graph mode as pages/training.py does; its seconds, its resident memory after,
and whether torch was loaded. Each family twice: with the shipped counts (lib/workloads/traced_work.json), and
with them hidden, every count traced in the server (how it was before they were shipped).

    python3 benchmarks/recorded_view_cost.py [--out docs/recorded_view_cost.txt]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

VIEW = """
import json, os, sys, time
sys.path.insert(0, {root!r})
os.environ["GPUWIN_NO_WARM_UP"] = "1"
os.environ["GPUWIN_CACHE_DIR"] = {cache!r}
from lib.workloads import counted
if {hidden!r}:
    counted.WORK_FILE = counted.WORK_FILE.with_name("absent.json")  # every count traced here
from lib.lessons.training import screen as S, step_tables, view as T
from lib.recorded import load_recordings
from lib.recorded.ceilings import ceilings_for
from lib.recorded.sources import hardware_text, machine_text, recorded_sources, small_server_recording, source_recording
recordings = load_recordings()[0]
packs = [r.pack for r in recordings]
source = next(s for s in recorded_sources(recordings) if "H200" in s.label)
recording = source_recording(source, recordings)
gpu_name, machine = hardware_text(recording.machine), machine_text(recording.machine)
family = T.BY_NAME[{family!r}]
start = time.perf_counter()
small_recording = small_server_recording(recordings, family.workload)
small = small_recording and S.Machine(
    step_tables.tables(small_recording, machine_text(small_recording.machine), family), "2-core server",
    machine_text(small_recording.machine))
gpu = S.Machine(step_tables.tables(recording, machine, family), gpu_name, machine, ceilings_for(gpu_name, packs))
for mode in ("eager", "cuda_graph"):
    screen = S.compose(T.View(family=family, mode=mode), S.Machines(gpu, small_cpu=small or None))
    assert screen.curves.get(screen.gpu_label), (mode, screen.headline)
seconds = time.perf_counter() - start
rss = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmRSS"))
print(json.dumps({{"seconds": seconds, "rss": rss, "torch": "torch" in sys.modules}}))
"""


def measure(family: str, hidden: bool) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        code = VIEW.format(root=str(ROOT), cache=cache, hidden=hidden, family=family)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="also write the lines here")
    args = parser.parse_args()
    lines = [
        f"recorded_view_cost: {platform.node() or 'this machine'}, {os.cpu_count()} cores, "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, load average "
        f"{os.getloadavg()[0]:.1f} (other processes share the cores); the H200's recorded view at the "
        "family's defaults, eager and CUDA graph, fresh cache"
    ]
    for family in ("cnn", "transformer", "torchvision"):
        for hidden in (False, True):
            got = measure(family, hidden)
            how = "traced in the server" if hidden else "shipped counts      "
            lines.append(
                f"{family:12s} {how}: {got['seconds']:5.2f} s, RSS after {got['rss'] / 1e6:4.0f} MB, "
                f"torch loaded: {'yes' if got['torch'] else 'no'}"
            )
            print(lines[-1], flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
