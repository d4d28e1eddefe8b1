"""Registry of workloads by their CLI name."""

from __future__ import annotations

from lib.workloads.base import Setting, SettingError, Step, Workload
from lib.workloads import mlp
from lib.workloads import ddp

WORKLOADS: dict[str, Workload] = {w.name: w for w in (mlp.WORKLOAD, ddp.WORKLOAD)}


def get_workload(name: str) -> Workload:
    try:
        return WORKLOADS[name]
    except KeyError:
        raise SettingError(f"unknown workload '{name}' (known: {', '.join(sorted(WORKLOADS))})") from None


__all__ = ["Setting", "SettingError", "Step", "Workload", "WORKLOADS", "get_workload"]
