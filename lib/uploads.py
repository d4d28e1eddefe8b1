"""Bringing your own results: parse uploaded packs as data only, and compare machines.

No pickle and no torch.load: an upload is JSON (a result pack) or CSV (its rows), size-capped,
validated field by field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lib.crossover import Crossover, find_crossover
from lib.results import PackError, csv_to_pack, loads_pack, setting_keys

MAX_UPLOAD_BYTES = 5 * 1024 * 1024


def parse_upload(name: str, data: bytes, max_bytes: int = MAX_UPLOAD_BYTES) -> dict[str, Any]:
    """A validated pack from an uploaded file, or PackError saying what is wrong with it."""
    if len(data) > max_bytes:
        raise PackError(f"{name}: {len(data) / 1e6:.1f} MB is larger than the {max_bytes / 1e6:.0f} MB limit")
    if not data.strip():
        raise PackError(f"{name}: the file is empty")
    suffix = name.lower().rsplit(".", 1)[-1] if "." in name else ""
    if suffix not in ("json", "csv", ""):
        raise PackError(f"{name}: expected a .json result pack or a .csv of its rows")
    looks_json = suffix == "json" or data.lstrip()[:1] in (b"{", b"[")
    try:
        return loads_pack(data) if looks_json else csv_to_pack(data, source=name)
    except PackError as err:
        raise PackError(f"{name}: {err}") from None


@dataclass
class MachineCurve:
    """One machine's measured points for one device, ready to chart."""

    machine: str
    device: str
    xs: list[float]
    times_s: list[float]


@dataclass
class Comparison:
    workload: str
    setting: str
    fixed: dict[str, Any]
    curves: list[MachineCurve]
    crossovers: dict[str, Crossover]  # machine -> its own CPU-vs-GPU crossover


def compare_machines(rows: list[dict[str, Any]]) -> list[Comparison]:
    """Group ok rows by (workload, swept setting, other settings); per machine, its curves and crossover."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        if row.get("status") != "ok" or not row.get("swept"):
            continue
        swept = row["swept"]
        fixed = tuple(sorted((k, row[k]) for k in setting_keys(row) if k != swept))
        groups.setdefault((row["workload"], swept, fixed), []).append(row)
    comparisons = []
    for (workload, swept, fixed), members in groups.items():
        by_series: dict[tuple[str, str], dict[float, float]] = {}
        for r in members:
            by_series.setdefault((r.get("machine") or "unknown machine", r["device"]), {})[float(r[swept])] = r["median_s"]
        curves = [MachineCurve(m, d, sorted(p), [p[x] for x in sorted(p)]) for (m, d), p in by_series.items()]
        crossovers = {}
        for machine in dict.fromkeys(c.machine for c in curves):
            cpu = next((c for c in curves if c.machine == machine and c.device == "cpu"), None)
            gpu = next((c for c in curves if c.machine == machine and c.device != "cpu"), None)
            if cpu and gpu:
                common = sorted(set(cpu.xs) & set(gpu.xs))
                cpu_t = dict(zip(cpu.xs, cpu.times_s))
                gpu_t = dict(zip(gpu.xs, gpu.times_s))
                crossovers[machine] = find_crossover(common, [cpu_t[x] for x in common], [gpu_t[x] for x in common])
        comparisons.append(Comparison(workload, swept, dict(fixed), curves, crossovers))
    return comparisons
