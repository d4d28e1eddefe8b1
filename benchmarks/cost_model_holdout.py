#!/usr/bin/env python3
"""How well the cost model predicts steps nobody recorded: fit on the recorded grid minus a random
20 %, predict the held-out 20 %, and print the median and 90th percentile of |log(predicted /
recorded)| per machine, device and configuration, as factors (×1.25 means 25 % off either way).

    python3 benchmarks/cost_model_holdout.py [--packs lib/recorded] [--repeats 5] [--out docs/cost_model_holdout.txt]

Goal (issue 11): median within ×1.25, 90th percentile within ×1.6. The split is repeated with
different seeds and every held-out error is pooled.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.core import costmodel  # noqa: E402
from lib.lessons import training as T  # noqa: E402
from lib.recorded import load_recorded  # noqa: E402
from lib.recorded.sources import machine_text  # noqa: E402

GOAL_MEDIAN, GOAL_P90 = 1.25, 1.6


def holdout(points: list, repeats: int, share: float = 0.2) -> list[float]:
    errors = []
    for seed in range(repeats):
        order = list(range(len(points)))
        random.Random(seed).shuffle(order)
        cut = max(1, round(share * len(points)))
        held, train = order[:cut], order[cut:]
        model = costmodel.fit([points[i] for i in train], cross_validate=False)
        for i in held:
            launch, work, seconds = points[i]
            errors.append(abs(math.log(model.predict(launch, work)[0] / seconds)))
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", default=None, help="a folder of packs (default: the shipped ones)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=None, help="also write the table here")
    args = parser.parse_args()
    packs, problems = load_recorded(Path(args.packs) if args.packs else None)
    lines = [f"{'machine':34} {'device':5} {'configuration':34} {'points':>6} {'median':>8} {'p90':>8}  goal"]
    pooled = []
    for pack in packs:
        machine = machine_text(pack["machine"])
        for kind, table in T.tables(pack, machine).items():
            for config, steps in table.steps.items():
                rows = list(steps.values())
                if len(rows) < 10:
                    continue
                points = [(*T.MLP.cost_terms(T.MLP.resolve(T._settings_of(r))), float(r["median_s"])) for r in rows]
                errors = holdout(points, args.repeats)
                pooled += errors
                med, p90 = math.exp(statistics.median(errors)), math.exp(statistics.quantiles(errors, n=10)[-1])
                ok = "met" if med <= GOAL_MEDIAN and p90 <= GOAL_P90 else "MISSED"
                lines.append(f"{machine[:34]:34} {kind:5} {str(config)[:34]:34} {len(rows):6} ×{med:7.3f} ×{p90:7.3f}  {ok}")
    if pooled:
        med, p90 = math.exp(statistics.median(pooled)), math.exp(statistics.quantiles(pooled, n=10)[-1])
        lines.append(f"{'all held-out points':75} {len(pooled):6} ×{med:7.3f} ×{p90:7.3f}  "
                     f"{'met' if med <= GOAL_MEDIAN and p90 <= GOAL_P90 else 'MISSED'} "
                     f"(goal ×{GOAL_MEDIAN} / ×{GOAL_P90})")
    else:
        lines.append("no recorded configuration with 10 or more steps: nothing to hold out")
    lines += [f"left out (could not be read): {p}" for p in problems]
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
