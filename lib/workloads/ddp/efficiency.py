"""Scaling efficiency of ddp rows, and one machine's runs merged into one pack with it.

Scaling efficiency of a row with N GPUs: its throughput / (N x the throughput of the gpus=1 row
that has every other setting equal, on the same machine and device). 1.0 is perfect scaling;
at gpus=1 it is 1.0 by definition.

Plain Python over result rows (no torch): the workload adds it to a sweep's rows, the live demo to
its rows, `python -m lib merge` across separately recorded runs, and lib.lessons.multi_gpu.scaling to the
rows it shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lib.core import results as _results
from lib.core.rows import is_ok

WORKLOAD_NAME = "ddp"
# Settings that do not make two rows different experiments for scaling.
NOT_COMPARED = frozenset({"gpus", "steps"})


def throughput(row: dict[str, Any]) -> float | None:
    """Samples per second of the whole group (from the row, else from its settings)."""
    if not is_ok(row):
        return None
    value = row.get("samples_per_s")
    if isinstance(value, (int, float)) and value > 0:
        return float(value)
    try:
        return int(row["gpus"]) * int(row["batch_size"]) / float(row["median_s"])
    except (KeyError, TypeError, ValueError):
        return None


def experiment_key(row: dict[str, Any]) -> tuple:
    """What must match for two rows to be the same experiment on a different number of GPUs."""
    settings = sorted((k, str(row[k])) for k in _results.setting_keys(row) if k not in NOT_COMPARED)
    return (row.get("workload"), row.get("machine", ""), row.get("device"), tuple(settings))


def add_scaling_efficiency(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows, each ok ddp row given `scaling_efficiency` where its gpus=1 twin is present
    (removed where it is not, so a stale value never survives a merge). Rows are updated in place."""
    rows = list(rows)
    base: dict[tuple, float] = {}
    for row in rows:
        if row.get("workload") == WORKLOAD_NAME and str(row.get("gpus")) == "1":
            value = throughput(row)
            if value:
                base[experiment_key(row)] = value
    for row in rows:
        if row.get("workload") != WORKLOAD_NAME:
            continue
        row.pop("scaling_efficiency", None)
        value, one = throughput(row), base.get(experiment_key(row))
        if value and one:
            row["scaling_efficiency"] = value / (int(row["gpus"]) * one)
    return rows


def merge_runs(packs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Packs recorded one after another on one machine -> one pack (the first pack's machine),
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
        # merge_packs keeps the packs' own row objects: copies are updated here, not the caller's rows
        return _results.validate_pack({**merged, "rows": add_scaling_efficiency(dict(r) for r in merged["rows"])})
    rows = [dict(r) for p in packs for r in p["rows"]]
    for row in rows:
        row.setdefault("machine", machine.get("label", ""))
    return _results.validate_pack({"schema_version": _results.SCHEMA_VERSION, "machine": machine,
                                   "rows": add_scaling_efficiency(rows)})
