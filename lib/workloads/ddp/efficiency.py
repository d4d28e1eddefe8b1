"""Scaling efficiency of ddp rows, and one machine's runs merged into one pack with it.

Scaling efficiency of a row with N GPUs: its throughput / (N x the throughput of the gpus=1 row
that has every other setting equal, on the same machine and device). 1.0 is perfect scaling;
at gpus=1 it is 1.0 by definition.

Plain Python over points (no torch): the workload adds it to a sweep's points, the live demo to
its points, `python -m lib merge` across separately recorded runs, and lib.lessons.multi_gpu.scaling to the
points it shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lib.core import results as _results
from lib.core.point import Point, rows_of

WORKLOAD_NAME = "ddp"
# Settings that do not make two rows different experiments for scaling.
NOT_COMPARED = frozenset({"gpus", "steps"})


def throughput(point: Point) -> float | None:
    """Samples per second of the whole group (from the point, else from its settings)."""
    if not point.ok:
        return None
    value = point.counts.samples_per_s
    if isinstance(value, (int, float)) and value > 0:
        return float(value)
    try:
        return int(point.settings["gpus"]) * int(point.settings["batch_size"]) / float(point.median_s)
    except (KeyError, TypeError, ValueError):
        return None


def experiment_key(point: Point) -> tuple:
    """What must match for two points to be the same experiment on a different number of GPUs."""
    settings = sorted((k, str(v)) for k, v in point.settings.items() if k not in NOT_COMPARED)
    return (point.workload, point.machine or "", point.device, tuple(settings))


def with_scaling_efficiency(points: Iterable[Point]) -> list[Point]:
    """The points, each ok ddp point given `scaling_efficiency` where its gpus=1 twin is present
    (cleared where it is not, so a stale value never survives a merge)."""
    points = list(points)
    base: dict[tuple, float] = {}
    for point in points:
        if point.workload == WORKLOAD_NAME and str(point.settings.get("gpus")) == "1":
            value = throughput(point)
            if value:
                base[experiment_key(point)] = value
    return [_scaled(p, base) if p.workload == WORKLOAD_NAME else p for p in points]


def _scaled(point: Point, base: dict[tuple, float]) -> Point:
    value, one = throughput(point), base.get(experiment_key(point))
    return point.with_counts(scaling_efficiency=value / (int(point.settings["gpus"]) * one) if value and one else None)


def merge_runs(packs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Packs recorded one after another on one machine -> one pack (the first pack's machine, quiet only if
    every run was),
    every row labelled with that machine unless it names its own, scaling efficiency computed
    across all of them. Packs of different machines (an H200's and an H100's) keep every machine:
    each row its own pack's label (machine and day) and the pack every fingerprint in `machines`
    (lib.core.results.merge_packs), so no machine's details are lost; efficiency is then only
    computed between rows of one machine (experiment_key holds the label)."""
    if not packs:
        raise _results.PackError("nothing to merge")
    for p in packs:
        _results.validate_pack(p)
    machine = packs[0]["machine"]
    if any(p.get("machines") or not _results.same_hardware(p["machine"], machine) for p in packs):
        merged = _results.merge_packs(list(packs))
        points = with_scaling_efficiency(_results.pack_points(merged))
        return _results.validate_pack({**merged, "rows": rows_of(points)})
    # a point that names no machine is given the first pack's label where the pack is built
    return _results.build_pack(
        with_scaling_efficiency(p for pack in packs for p in _results.pack_points(pack)),
        _results.one_machine_over([p["machine"] for p in packs]),
    )
