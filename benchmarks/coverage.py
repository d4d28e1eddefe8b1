#!/usr/bin/env python3
"""Which views of the app draw a GPU curve on a server without a GPU, and from what.

    python3 benchmarks/coverage.py [--packs lib/recorded] [--out docs/coverage.txt]

For every GPU machine among the packs and every view a visitor can pick on the Training page (the
axis, every slider position, every pitfall switch, every recorded execution mode), it works out
the GPU curve the page would draw (lib.lessons.training.view: the same functions the page calls) and
counts the views whose curve is recorded or exactly derived at every point, those with at least
one predicted point, and those with no GPU curve (fewer than two points). Each point's origin is
worked out once and shared by the views that draw it.

Goals (issue 11): every view has a GPU curve; with the pitfall switches at their defaults, every
Training view is recorded or exactly derived. Issue 24: one row per GPU over every mode × switch ×
slider view (the page offers every mode its machine's cost model answers, recorded there or not);
a curve's legend says what it is (recorded, predicted, or recorded + predicted: the page's
training_screen.curve_origin of the same points).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lib.lessons.training import step_tables  # noqa: E402
from lib.lessons.training import view as T  # noqa: E402
from lib.recorded import load_recordings  # noqa: E402
from lib.recorded.recording import Recording  # noqa: E402
from lib.recorded.sources import machine_text, recorded_sources, source_recording  # noqa: E402

SWITCHES = [
    dict(zip(("data_resident", "item_every_step", "pin_memory"), combo))
    for combo in itertools.product((True, False), repeat=3)
]
DEFAULT_SWITCHES = {"data_resident": True, "item_every_step": False, "pin_memory": False}


def training_views(modes: list[str]):
    axes = T.AXES
    for over, switches, mode in itertools.product(axes, SWITCHES, modes):
        others = [k for k in axes if k != over]
        for values in itertools.product(*(axes[k].steps for k in others)):
            yield T.View(over=over, mode=mode, **dict(zip(others, values)), **switches)


def training_coverage(table: step_tables.StepTable, machine: str) -> dict[str, Counter]:
    memo: dict[tuple, str | None] = {}

    def origin(view: T.View) -> str | None:
        """'recorded' (recorded or derived: the step itself was recorded), 'predicted' or None; it
        depends only on the step (rows, width, depth) and the configuration."""
        key = (view.rows, view.hidden_width, view.depth, view.config("cuda"))
        if key not in memo:
            row = T.point(view, table, "cuda:0", machine)
            memo[key] = None if row is None else "predicted" if row.predicted else "recorded"
        return memo[key]

    modes = T.modes_answered(table) or ["eager"]
    counts = {f"{which}, {mode}": Counter() for mode in modes for which in ("default switches", "any switches")}
    counts["every mode × switch × slider"] = Counter()
    for view in training_views(modes):
        kinds = [origin(view.at(x)) for x in view.axis.steps]
        drawn = [k for k in kinds if k]
        verdict = "no GPU curve" if len(drawn) < 2 else "predicted" if "predicted" in drawn else "recorded or derived"
        counts[f"any switches, {view.mode}"][verdict] += 1
        counts["every mode × switch × slider"][verdict] += 1
        if all(getattr(view, k) == v for k, v in DEFAULT_SWITCHES.items()):
            counts[f"default switches, {view.mode}"][verdict] += 1
    return counts


def other_pages(recording: Recording, label: str) -> dict[str, Counter]:
    """Timing pitfalls, Jacobian and Data pipeline: a view has a GPU curve when the machine recorded
    the sweep it draws (these pages draw recorded points only; nothing is predicted there)."""
    from lib.lessons.data_pipeline import screen as pipeline_screen
    from lib.lessons.jacobian import view as jacobian
    from lib.lessons.timing import view as timing_pitfalls
    from lib.workloads.jacobian import METHODS

    pack = recording.pack  # Timing and Jacobian read the pack's rows
    counts = {"Timing": Counter(), "Jacobian": Counter(), "Pipeline": Counter()}
    for size in timing_pitfalls.SIZES:
        for sync, tf32, transfer in itertools.product((True, False), repeat=3):
            variant = timing_pitfalls.variant_of(sync, tf32, transfer)
            found = timing_pitfalls.recorded(pack, label, variant, size, with_cpu=False)
            name = timing_pitfalls.variant_label(variant)
            counts["Timing"]["recorded" if len(found.gpu_rows(name)) >= 2 else "no GPU curve"] += 1
    for val in jacobian.VALS:
        for r in range(1, len(METHODS) + 1):
            for methods in itertools.combinations(METHODS, r):
                found = onscreen_views(pack, label, jacobian.WORKLOAD, "val", jacobian.views(methods, val))
                ok = all(len(found.gpu_rows(m)) >= 2 for m in methods)
                counts["Jacobian"]["recorded" if ok else "no GPU curve"] += 1
    axes = pipeline_screen.AXES
    for over in axes:
        for values in itertools.product(*(axes[k].steps for k in axes if k != over)):
            for model, workers, pin in itertools.product(
                pipeline_screen.MODELS, pipeline_screen.WORKERS, (False, True)
            ):
                settings = pipeline_screen.Settings(
                    **dict(zip([k for k in axes if k != over], values)),
                    model=model,
                    num_workers=workers,
                    pin_memory=pin,
                )  # `over` at its default
                view = pipeline_screen.View(settings, over, gpu_live=False)
                _, found = pipeline_screen.find_recorded([recording], [recording.path], view)
                gpu = [p for feed in found.points.values() for p in feed if p.device != "cpu"]
                counts["Pipeline"]["recorded" if len(gpu) >= 2 else "no GPU curve"] += 1
    return counts


def onscreen_views(pack, label, workload, over, views):
    from lib.lessons.common.onscreen import recorded_views

    return recorded_views(pack, label, workload, over, views)


def row(page: str, machine: str, which: str, c: Counter) -> str:
    total = sum(c.values())
    curve = total - c["no GPU curve"]
    recorded = c["recorded or derived"] + c["recorded"]
    return (
        f"{page:10} {machine[:44]:44} {which:42} {total:9,} {curve / total:10.1%} {recorded / total:17.1%} "
        f"{c['predicted'] / total:10.1%} {c['no GPU curve'] / total:8.1%}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    recordings, _ = load_recordings(Path(args.packs) if args.packs else None)
    lines = [
        f"{'page':10} {'GPU machine':44} {'views':42} {'total':>9} {'GPU curve':>10} {'recorded/derived':>17} "
        f"{'predicted':>10} {'none':>8}"
    ]
    for source in recorded_sources(recordings):
        recording = source_recording(source, recordings)
        table = step_tables.tables(recording, machine_text(recording.machine)).get("cuda")
        if table is None or not len(table):
            continue  # e.g. the multi-GPU machine: its page draws its own recorded pack
        for which, c in training_coverage(table, source.label).items():
            lines.append(row("Training", source.label, which, c))
        for page, c in other_pages(recording, source.label).items():
            lines.append(row(page, source.label, "every control", c))
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
