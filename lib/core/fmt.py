"""Numbers as people read them: one formatter per kind of number, used by every page and the CLI."""

from __future__ import annotations

import math
from typing import Any


def fmt_s(seconds: float | None) -> str:
    """A duration with a sensible unit: 812 µs, 1.23 ms, 4.5 s."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "–"
    s = float(seconds)
    if s >= 100:
        return f"{s:,.0f} s"
    if s >= 1:
        return f"{s:.3g} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    if s >= 1e-6:
        return f"{s * 1e6:.3g} µs"
    return f"{s * 1e9:.3g} ns"


def fmt_num(x: float, sig: int = 3) -> str:
    """A number to `sig` significant digits without exponents: 0.0123, 812, 11,400."""
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    digits = int(math.floor(math.log10(abs(x))))
    if digits >= sig - 1:
        return f"{round(x, sig - 1 - digits):,.0f}"
    return f"{x:.{sig}g}" if digits >= -4 else f"{x:.{sig - 1}e}"


def fmt_ratio(ratio: float) -> str:
    """1.00×, 12.5×, 340×: always with its significant zeros, so 1.00× does not read as exactly 1."""
    if ratio < 10:
        return f"{ratio:.2f}×"
    if ratio < 100:
        return f"{ratio:.1f}×"
    return f"{ratio:,.0f}×"


def fmt_value(value: Any) -> str:
    """A setting's value as people write it: 8,192 / 0.01 / on."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return fmt_num(value, 4)
    return str(value)


def fmt_flops(flops: float) -> str:
    for scale, unit in ((1e12, "TFLOP"), (1e9, "GFLOP"), (1e6, "MFLOP"), (1e3, "kFLOP")):
        if flops >= scale:
            return f"{flops / scale:.3g} {unit}"
    return f"{flops:.3g} FLOP"
