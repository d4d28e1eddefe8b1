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
import json
import os
import subprocess
import sys
import tempfile
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


def test_of(pid: str) -> str:
    """The test whose run started the process (pytest's PYTEST_CURRENT_TEST, passed on to every child it execs)."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return ""
    found = [e[len(b"PYTEST_CURRENT_TEST=") :] for e in environ if e.startswith(b"PYTEST_CURRENT_TEST=")]
    return found[0].decode(errors="replace").rsplit(" ", 1)[0] if found else ""


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


def idle_jiffies() -> tuple[int, int]:
    """(idle, all) clock ticks of every core so far, from /proc/stat."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return fields[3] + fields[4], sum(fields[:8])


def sample(stop: threading.Event, seen: dict, idle: list) -> None:
    """Keep each process's latest CPU reading; those already there at the start are left out. `idle` gets (time,
    idle cores) for each tick."""
    before = set(read_all())
    last = idle_jiffies()
    while not stop.wait(EVERY_S):
        now = idle_jiffies()
        if now[1] > last[1]:
            idle.append((time.time(), os.cpu_count() * (now[0] - last[0]) / (now[1] - last[1])))
        last = now
        for key, (cpu, command) in read_all().items():
            if key not in before:
                # a process that has ended but is not reaped yet has an empty command line: keep the first reading's
                test = seen[key][2] if key in seen else test_of(str(key[0]))
                seen[key] = (cpu, seen[key][1] if key in seen else command, test)


def idle_by_test(timeline: Path, idle: list, top: int) -> list[str]:
    """The idle core-seconds of each tick shared among the tests running then (one share per pytest process)."""
    events = [json.loads(line) for line in timeline.read_text().splitlines()] if timeline.exists() else []
    spans, open_at = [], {}
    own: dict[str, float] = defaultdict(float)  # CPU of the test process itself during each test
    for e in sorted(events, key=lambda e: e["t"]):
        if e["event"] == "start":
            open_at[e["pid"]] = (e["test"], e["t"], e["cpu"])
        elif e["pid"] in open_at:
            test, t0, cpu0 = open_at.pop(e["pid"])
            spans.append((t0, e["t"], test))
            own[test] += e["cpu"] - cpu0
    per_test: dict[str, float] = defaultdict(float)
    between = 0.0
    for t, cores in idle:
        running = [test for t0, t1, test in spans if t0 <= t - EVERY_S / 2 <= t1]
        if not running:
            between += cores * EVERY_S
        for test in running:
            per_test[test] += cores * EVERY_S / len(running)
    total = sum(cores * EVERY_S for _, cores in idle)
    lines = [
        f"\nidle core-seconds in all: {total:.0f}; while no test ran (start-up, collection, between parts): {between:.0f}"
    ]
    lines.append(f"the {top} tests running while the cores idled most (idle core-seconds shared among the tests then):")
    for test, seconds in sorted(per_test.items(), key=lambda item: -item[1])[:top]:
        lines.append(f"{seconds:7.1f}  {test}")
    modules: dict[str, list[float]] = defaultdict(list)
    for test, seconds in own.items():
        modules[test.split("::")[0]].append(seconds)
    lines.append(
        f"\nthe test processes' own CPU, {sum(own.values()):.0f} s in all; the {top} costliest modules (tests, CPU s):"
    )
    for module, seconds in sorted(modules.items(), key=lambda item: -sum(item[1]))[:top]:
        lines.append(f"{len(seconds):5d} {sum(seconds):7.1f}  {module}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="also write the table here")
    parser.add_argument("--dump", type=Path, help="also write every process seen here, one JSON line each")
    parser.add_argument(
        "--by-test", type=int, default=0, metavar="N", help="also the N tests whose children took the most CPU"
    )
    parser.add_argument(
        "--idle", type=int, default=0, metavar="N", help="also the N tests running while cores idled most"
    )
    known, rest = parser.parse_known_args()
    test_args = [a for a in rest if a != "--"] or ["-q"]
    seen: dict = {}
    idle: list = []
    env = dict(os.environ)
    folder = tempfile.TemporaryDirectory(prefix="gpuwin_timeline_")  # removed at the end, as the tests' own folders
    timeline = Path(folder.name) / "tests.jsonl"
    if known.idle:  # each test's start and end, from every pytest process (benchmarks/suite_timeline.py)
        env["GPUWIN_SUITE_TIMELINE"] = str(timeline)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "benchmarks"), env.get("PYTHONPATH")]))
        test_args = ["-p", "suite_timeline", *test_args]
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(stop, seen, idle), daemon=True)
    sampler.start()
    started = time.monotonic()
    code = subprocess.call([sys.executable, str(ROOT / "dev.py"), "test", *test_args], cwd=ROOT, env=env)
    wall = time.monotonic() - started
    stop.set()
    sampler.join()
    groups: dict[str, list[float]] = defaultdict(list)
    for cpu, command, _ in seen.values():
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
    if known.by_test:
        by_test: dict[str, list[tuple[float, str]]] = defaultdict(list)
        for cpu, command, test in seen.values():
            if test and "suite_cpu.py" not in command:
                by_test[test].append((cpu, command))
        lines.append(f"\nthe {known.by_test} tests whose child processes took the most CPU (processes, CPU s):")
        for test, children in sorted(by_test.items(), key=lambda item: -sum(c for c, _ in item[1]))[: known.by_test]:
            lines.append(f"{len(children):5d} {sum(c for c, _ in children):7.1f}  {test}")
            for cpu, command in sorted(children, reverse=True)[:3]:  # what the costliest of them were
                lines.append(f"{'':14s}{cpu:6.1f}  {command[:100]}")
    if known.dump:  # every process seen: pid, its start tick, CPU, command line, test
        with known.dump.open("w") as out:
            for (pid, start), (cpu, command, test) in seen.items():
                out.write(json.dumps({"pid": pid, "start": start, "cpu": cpu, "command": command, "test": test}) + "\n")
    if known.idle:
        lines += idle_by_test(timeline, idle, known.idle)
    folder.cleanup()
    text = "\n".join(lines)
    print("\n" + text)
    if known.out:
        known.out.write_text(text + "\n")
    sys.exit(code)


if __name__ == "__main__":
    main()
