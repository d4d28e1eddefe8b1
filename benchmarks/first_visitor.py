#!/usr/bin/env python3
"""A cold demo's first visitor (issue 25): the server woken on one CPU, Home opened and read, then every
page at its defaults, one after the other, the way a student follows a course link.

    .venv/bin/python benchmarks/first_visitor.py --out docs/first_visitor.txt
    .venv/bin/python benchmarks/first_visitor.py --before /tmp/old_checkout   # that checkout first, same run

Each run starts `streamlit run streamlit_app.py` pinned to one CPU (`taskset -c 0`, as a free host gives),
opens Home over a Streamlit session, waits --read seconds (the visitor reads Home), then opens every
other page at its defaults (Your results with the shipped packs), --between seconds apart. Printed per
page, the median of the runs: the server's share of the first chart and of the complete page (the
session's messages, scripts/st_session.py), against issue 25's goals (1 s and 2 s). benchmarks/host_demo.py
times each page on a server that had time to warm up; this times the pages as its first visitor meets them.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from host_demo import COMPLETE_GOAL_S, FIRST_GOAL_S, _visit, host, in_thread  # noqa: E402


def walk(root: Path, paths: list[str], read_s: float, between_s: float) -> dict[str, tuple[float, float]]:
    out = {}
    with host("streamlit_app.py", "0", root) as (url, _, _):
        home = in_thread(lambda: asyncio.run(_visit(url, "")))
        out["home"] = (home.first_chart_s, home.finished_s)
        time.sleep(read_s)
        for path in paths:
            visit = in_thread(lambda: asyncio.run(_visit(url, path)))
            out[path] = (visit.first_chart_s, visit.finished_s)
            time.sleep(between_s)
    return out


def report(label: str, runs: list[dict[str, tuple[float, float]]]) -> list[str]:
    lines = [
        f"== {label}: median of {len(runs)} runs",
        "page (server share)    first chart  complete  goals <= 1 / 2 s",
    ]
    for path in runs[0]:
        first = statistics.median(r[path][0] if r[path][0] is not None else float("nan") for r in runs)
        done = statistics.median(r[path][1] for r in runs)
        met = first <= FIRST_GOAL_S and done <= COMPLETE_GOAL_S
        verdict = (
            "the server's first visit: its cold start (host_demo.py compares it with a bare app's)"
            if path == "home"
            else "met"
            if met
            else "MISSED"
        )
        lines.append(f"{path:20} {first:11.2f}s {done:8.2f}s  {verdict}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout, walked first in the same run")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--read", type=float, default=20.0, help="seconds the visitor reads Home")
    parser.add_argument("--between", type=float, default=3.0, help="seconds between the other pages")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    from ui.pages import PAGES

    paths = [Path(p.path).stem for p in PAGES if Path(p.path).stem != "home"]
    load = Path("/proc/loadavg").read_text().split()[0]
    head = [
        f"first visitor benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, 2-core box (load average "
        f"{load} at start), server on one CPU; Home read {args.read:g} s, then each page at its defaults "
        f"{args.between:g} s apart; shipped packs"
    ]
    print(head[0], flush=True)
    lines = list(head)
    roots = ([("before: " + str(args.before), args.before)] if args.before else []) + [("this checkout", ROOT)]
    for label, root in roots:
        commit = subprocess.run(
            ["git", "-C", str(root), "log", "-1", "--format=%h"], capture_output=True, text=True
        ).stdout.strip()
        runs = [walk(root, paths, args.read, args.between) for _ in range(args.runs)]
        block = report(f"{label} ({commit})", runs)
        print("\n".join(block), flush=True)
        lines += block
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
