#!/usr/bin/env python3
"""Where the test suite's CPU goes, process by process: the README's test command run under a /proc sampler.

    python3 benchmarks/suite_cpu.py                          # python3 dev.py test -q, then the table
    python3 benchmarks/suite_cpu.py -m "not slow"            # arguments go to dev.py test
    python3 benchmarks/suite_cpu.py --out docs/suite_cpu.txt -- -q tests/test_cli.py

`time` counts only the children a process waited for; chromium's processes, and others whose parent was gone, are
reaped by init and missed. Here every process started during the run is read from /proc twice a second (user +
system CPU, the last reading before it ended: a process shorter than half a second is missed), then grouped by
what it is (its command line): the test processes' own work, chromium, `python -m lib`, the measuring processes,
servers, ... Printed: each group's processes, CPU seconds and share, the run's wall time and how many of the
cores were busy on average. Run it with nothing else running: other work's processes are counted too.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")
EVERY_S = 0.5
# (group, words of the command line that put a process in it), the first that matches wins
GROUPS = (
    ("chromium (every process of it)", ("chromium", "/proc/self/exe")),
    ("playwright's driver", ("playwright",)),
    ("streamlit servers", ("-m streamlit",)),
    ("pytest-xdist workers (the tests that run in-process)", ("exec(eval(sys.stdin",)),
    ("pytest's controller and the serial part", ("-m pytest",)),
    ("measuring processes (lib.core.worker) and other spawned children", ("spawn_main",)),
    ("python -m lib (the CLI)", ("-m lib ",)),
    ("torchrun and its DDP workers", ("torch.distributed.run", "ddp.worker")),
    ("notebook kernels", ("ipykernel",)),
    ("postgres", ("postgres",)),
    ("other Python children (measured peaks, scripts)", ("python",)),
)


def group_of(command: str) -> str:
    return next((name for name, words in GROUPS if any(w in command for w in words)), "other programs")


def read_all() -> dict[tuple[int, int], tuple[float, str]]:
    """{(pid, start tick): (CPU seconds so far, command line)} of every process now."""
    now = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            fields = stat[stat.rfind(")") + 2 :].split()
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # ended meanwhile
            continue
        now[(int(entry), int(fields[19]))] = ((int(fields[11]) + int(fields[12])) / TICK, command)
    return now


def sample(stop: threading.Event, seen: dict) -> None:
    """Keep each process's latest CPU reading; those already there at the start are left out."""
    before = set(read_all())
    while not stop.wait(EVERY_S):
        for key, value in read_all().items():
            if key not in before:
                seen[key] = value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="also write the table here")
    known, rest = parser.parse_known_args()
    test_args = [a for a in rest if a != "--"] or ["-q"]
    seen: dict = {}
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(stop, seen), daemon=True)
    sampler.start()
    started = time.monotonic()
    code = subprocess.call([sys.executable, str(ROOT / "dev.py"), "test", *test_args], cwd=ROOT)
    wall = time.monotonic() - started
    stop.set()
    sampler.join()
    groups: dict[str, list[float]] = defaultdict(list)
    for cpu, command in seen.values():
        if command.strip() and "suite_cpu.py" not in command:
            groups[group_of(command)].append(cpu)
    total = sum(sum(v) for v in groups.values())
    lines = [
        f"python3 dev.py test {' '.join(test_args)}: exit status {code}, {wall:.0f} s wall, {total:.0f} s CPU "
        f"in the processes it started ({total / wall:.2f} of {os.cpu_count()} cores busy on average)",
        f"{'processes':68s} {'how many':>8s} {'CPU, s':>8s} {'share':>6s}",
    ]
    for name, cpus in sorted(groups.items(), key=lambda item: -sum(item[1])):
        lines.append(f"{name:68s} {len(cpus):8d} {sum(cpus):8.0f} {sum(cpus) / total:6.0%}")
    text = "\n".join(lines)
    print("\n" + text)
    if known.out:
        known.out.write_text(text + "\n")
    sys.exit(code)


if __name__ == "__main__":
    main()
