"""Drop the GPU's copies of the step marks from timelines files recorded before the reducer knew them.

    python3 scripts/repair_timelines.py lib/recorded/timelines/h100_timeline_eager_b1_w64.json.gz ...

Until 2026-11-28 lib.core.timeline.reduce_trace took the GPU's copy of each step's mark (cat
gpu_user_annotation, the span of that step's kernels in GPU time) as a step of its own, so a CUDA timeline
of 3 profiled steps holds 6: the steps' own marks at even places, the copies at odd ones, and only the first
three carry a wall clock (the three profiled steps', in order). This keeps the even ones with those wall clocks,
takes the entry's figures from the median step, and notes the repair in the file's machine. Nothing is
re-measured; a file already of one step per wall clock is left as it is.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lib.core.step_timeline import Timeline, median_step, read_timelines, timelines_file

NOTE = "the GPU's copies of the step marks dropped on 2026-11-28 (scripts/repair_timelines.py); nothing re-measured"


def repaired(entry: Timeline) -> Timeline | None:
    """The entry with its own steps only, or None where it needs no repair."""
    steps = entry.steps or ()
    walls = [s.wall_us for s in steps if s.wall_us is not None]
    if not walls or len(steps) != 2 * len(walls):
        return None
    own = tuple(replace(step, wall_us=wall) for step, wall in zip(steps[0::2], walls, strict=True))
    middle = median_step(own)
    return replace(entry, steps=own, figures=middle.figures if middle else None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    for path in parser.parse_args(argv).paths:
        read = read_timelines(json.loads(gzip.decompress(path.read_bytes())), str(path))
        fixed = [repaired(e) for e in read.timelines]
        if not any(fixed):
            print(f"{path.name}: one step per wall clock already, left as it is")
            continue
        entries = [f or e for f, e in zip(fixed, read.timelines, strict=True)]
        for before, after in zip(read.timelines, entries, strict=True):
            if after is not before:
                print(
                    f"{path.name} {after.device}: {len(before.steps)} -> {len(after.steps)} steps, step "
                    f"{before.figures.step_us:.0f} -> {after.figures.step_us:.0f} us "
                    f"(walls {', '.join(f'{s.wall_us:.0f}' for s in after.steps)})"
                )
        machine = {**read.machine, "timeline_repair": NOTE}
        path.write_bytes(gzip.compress(json.dumps(timelines_file(entries, machine)).encode(), mtime=0))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
