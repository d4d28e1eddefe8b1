"""What every chart shares: colours and time units."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

SERIES_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f")
PHASE_COLORS = ("#9467bd", "#2ca02c", "#d62728")

_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def time_unit(seconds: Sequence[float]) -> tuple[float, str]:
    """(scale, name) of a unit that shows these times as numbers near 1-1000."""
    finite = [abs(float(s)) for s in seconds if s is not None and not pd.isna(s) and float(s) > 0]
    if not finite:
        return 1.0, "s"
    typical = sorted(finite)[len(finite) // 2]
    for scale, name in _UNITS:
        if typical >= scale:
            return scale, name
    return _UNITS[-1]


# One colour per kind of curve on every page: the CPU measured here is blue, a recorded CPU like
# this server's light blue, the CPU of a GPU machine purple, GPUs orange (then red, brown, pink).
CPU_LIVE, CPU_SMALL, CPU_HOST = "#1f77b4", "#6baed6", "#9467bd"
GPU_COLORS = ("#ff7f0e", "#d62728", "#8c564b", "#e377c2", "#bcbd22")


def series_colors(names: list[str]) -> list[str]:
    """The colour of each curve, by what it is: read from its legend name ('CPU · this server (live)',
    'cpu (live, this server)', 'GPU · NVIDIA H200 (recorded)', 'cuda:0 (recorded on …)')."""
    out, gpus = [], 0
    for name in names:
        n = name.lower()
        if n.startswith("cpu"):
            out.append(CPU_LIVE if "live" in n else CPU_SMALL if "server" in n else CPU_HOST)
        else:
            out.append(GPU_COLORS[gpus % len(GPU_COLORS)])
            gpus += 1
    return out
