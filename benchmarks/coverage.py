#!/usr/bin/env python3
"""Which views of the app draw a GPU curve on a server without a GPU, and from what.

    python3 benchmarks/coverage.py [--packs lib/recorded] [--out docs/coverage.txt]

For every GPU machine among the packs and every view a visitor can pick on the Training page (the
axis, every slider position, every pitfall switch, every recorded execution mode), it works out
the GPU curve the page would draw (lib.lessons.training: the same functions the page calls) and
counts the views whose curve is recorded or exactly derived at every point, those with at least
one predicted point, and those with no GPU curve (fewer than two points). Each point's origin is
worked out once and shared by the views that draw it.

Goals (issue 11): every view has a GPU curve; with the pitfall switches at their defaults, every
Training view is recorded or exactly derived.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.lessons import training as T  # noqa: E402
from lib.recorded import load_recorded  # noqa: E402
from lib.recorded.sources import gpu_sources, machine_text, source_pack  # noqa: E402

SWITCHES = [dict(zip(("data_resident", "item_every_step", "pin_memory"), combo))
            for combo in itertools.product((True, False), repeat=3)]
DEFAULT_SWITCHES = {"data_resident": True, "item_every_step": False, "pin_memory": False}


def training_views(modes: list[str]):
    axes = T.AXES
    for over, switches, mode in itertools.product(axes, SWITCHES, modes):
        others = [k for k in axes if k != over]
        for values in itertools.product(*(axes[k].steps for k in others)):
            yield T.View(over=over, mode=mode, **dict(zip(others, values)), **switches)


def training_coverage(table: T.StepTable, machine: str) -> dict[str, Counter]:
    memo: dict[tuple, str | None] = {}

    def origin(view: T.View) -> str | None:
        """'recorded' (recorded or derived: the step itself was recorded), 'predicted' or None; it
        depends only on the step (rows, width, depth) and the configuration."""
        key = (view.rows, view.hidden_width, view.depth, view.config("cuda"))
        if key not in memo:
            row = T.point(view, table, "cuda:0", machine)
            memo[key] = None if row is None else "predicted" if row["origin"] == "predicted" else "recorded"
        return memo[key]

    counts = {"default switches": Counter(), "any switches": Counter()}
    modes = T.modes_recorded(table) or ["eager"]
    for view in training_views(modes):
        kinds = [origin(view.at(x)) for x in view.axis.steps]
        drawn = [k for k in kinds if k]
        verdict = ("no GPU curve" if len(drawn) < 2 else "predicted" if "predicted" in drawn
                   else "recorded or derived")
        counts["any switches"][verdict] += 1
        if all(getattr(view, k) == v for k, v in DEFAULT_SWITCHES.items()):
            counts["default switches"][verdict] += 1
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    packs, _ = load_recorded(Path(args.packs) if args.packs else None)
    lines = [f"{'page':10} {'GPU machine':30} {'views':18} {'total':>9} {'GPU curve':>10} {'recorded/derived':>17} "
             f"{'predicted':>10} {'none':>8}"]
    for source in gpu_sources(packs):
        pack = source_pack(source, packs)
        table = T.tables(pack, machine_text(pack["machine"])).get("cuda")
        if table is None or not len(table):
            continue
        for which, c in training_coverage(table, source.label).items():
            total = sum(c.values())
            curve = total - c["no GPU curve"]
            lines.append(f"{'Training':10} {source.label[:30]:30} {which:18} {total:9,} {curve / total:10.1%} "
                         f"{c['recorded or derived'] / total:17.1%} {c['predicted'] / total:10.1%} "
                         f"{c['no GPU curve'] / total:8.1%}")
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
