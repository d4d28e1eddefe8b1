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
