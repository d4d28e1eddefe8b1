#!/usr/bin/env python3
"""Is each shipped CPU grid what a quiet machine of its kind measures today? (issue 37: recordings prove
their machine was quiet)

    .venv/bin/python benchmarks/cpu_grid_recheck.py --out docs/cpu_grid_recheck.txt

For every shipped pack (lib/recorded/) with CPU rows recorded on a machine of this box's kind (same CPU
model, core count and torch threads per row), a deterministic sample of its ok points is timed again here
at the row's own settings and thread count, in this one process, and the ratio shipped / now printed
point by point, with the median and the spread. A pack whose machine this box is not is listed and
skipped: its times cannot be re-checked here. Run it with nothing else running; the load of the re-run
is printed (lib.core.load), and a busy re-run says so instead of a ratio.

Goal (issue 37): the median ratio of the small server's grid within x1.25.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.core.devices import cpu_model  # noqa: E402
from lib.core.load import LoadWatch  # noqa: E402
from lib.core.results import load_pack, setting_keys  # noqa: E402
from lib.recorded import recorded_dir  # noqa: E402

GOAL = 1.25


def sample(rows: list[dict], n: int) -> list[dict]:
    """n ok rows spread evenly over the grid's order of settings (the same every run)."""
    ok = sorted(
        (r for r in rows if r.get("status") == "ok" and r.get("median_s")),
        key=lambda r: tuple(str(r.get(k)) for k in setting_keys(r)),
    )
    if len(ok) <= n:
        return ok
    step = len(ok) / n
    return [ok[int(i * step)] for i in range(n)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=30, help="points re-timed per pack (default 30)")
    parser.add_argument("--budget", type=float, default=0.2, help="seconds of timed repeats per point")
    parser.add_argument("--out", help="also write the report here")
    parser.add_argument("packs", nargs="*", help="packs to re-check (default: every shipped pack, busy ones too)")
    args = parser.parse_args(argv)

    import torch

    from lib.core.rows import Status
    from lib.core.sweep import measure_point
    from lib.workloads import get_workload

    here, cores = cpu_model(), os.cpu_count()
    lines = [
        f"# cpu_grid_recheck, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
        f"{here} ({cores} cores), torch {torch.__version__}, Python {platform.python_version()}",
        f"# shipped / now per point (>1: the shipped time is slower than a quiet re-run here); goal: median within x{GOAL}",
    ]
    paths = [Path(p) for p in args.packs] or sorted(
        f for pattern in ("*.json", "*.json.gz") for f in recorded_dir().glob(pattern)
    )
    watch = LoadWatch.start()
    recorded_refs: list[tuple[str, float]] = []  # each re-checked pack's box: its reference kernel's best (s)
    for path in paths:
        pack, name = load_pack(path), path.name
        machine = pack["machine"]
        cpu_rows = [r for r in pack["rows"] if str(r.get("device", "")).startswith("cpu")]
        if not cpu_rows:
            continue
        if machine.get("cpu_model") != here or machine.get("cpu_cores") != cores:
            lines.append(
                f"{name}: recorded on {machine.get('label')} ({machine.get('cpu_model')}, "
                f"{machine.get('cpu_cores')} cores): not this box's kind, not re-checked here"
            )
            continue
        ratios, points = [], []
        for row in sample(cpu_rows, args.points):
            workload = get_workload(row["workload"])
            settings = {k: row[k] for k in setting_keys(row) if k in {s.name for s in workload.settings}}
            now = measure_point(
                workload,
                settings,
                "cpu",
                budget_s=args.budget,
                with_phases=False,
                num_threads=int(row.get("num_threads") or 1),
                memory_cap_gb=None,
            )
            if now.status != Status.OK:
                points.append(f"  {settings}: {now.status} now ({now.message})")
                continue
            ratio = float(row["median_s"]) / float(now.median_s)
            ratios.append(ratio)
            shown = ", ".join(
                f"{k}={settings[k]}"
                for k in ("batch_size", "hidden_width", "depth", "size", "val", "method")
                if k in settings
            )
            points.append(
                f"  {shown:<45} shipped {row['median_s'] * 1e3:9.3f} ms  now {now.median_s * 1e3:9.3f} ms  x{ratio:.2f}"
            )
        if ratios and machine.get("load_reference_best_s"):
            recorded_refs.append((name, float(machine["load_reference_best_s"])))
        if ratios:
            q = statistics.quantiles(ratios, n=10) if len(ratios) >= 10 else [min(ratios), max(ratios)]
            verdict = "within the goal" if 1 / GOAL <= statistics.median(ratios) <= GOAL else "OUTSIDE the goal"
            quiet = machine.get("load_quiet")
            lines.append(
                f"{name}: recorded {machine.get('date', '')[:10]} (load_quiet: {quiet}); n={len(ratios)} "
                f"median x{statistics.median(ratios):.2f}, p10 x{q[0]:.2f}, p90 x{q[-1]:.2f}: {verdict}"
            )
        lines += points
    load = watch.finish()
    lines.append(
        f"# this re-run's load: {'quiet' if load.quiet else 'BUSY: ' + '; '.join(load.reasons())} "
        f"(other processes {load.other_cpu_share or 0:.0%} of the cores, {load.wall_s:.0f} s)"
    )
    # The box's own speed: the same reference kernel (one core, Python dispatch) the pack timed while recording.
    # A ratio this far from 1 says the box is slower or faster today, not that the recording was busy.
    for name, best in recorded_refs:
        if load.reference_best_s:
            lines.append(
                f"# this box's reference kernel: best {load.reference_best_s * 1e3:.2f} ms now, "
                f"{best * 1e3:.2f} ms while {name} was recorded (x{best / load.reference_best_s:.2f}, read as above)"
            )
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
