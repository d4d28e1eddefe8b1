"""A checker for tests/test_random_views.py: does a sentence about one machine's CPU and GPU epoch (the Data
pipeline's 'the device does not matter', 'the device matters', 'too noisy to say') hold on the rows drawn?

Recomputed from the charts alone, with the noise rule's and the page's constants restated here (not imported), so
a change of the code that makes the claims cannot also change what checks them:

- 'does not matter' (or 'the two epochs differ by …'): the two epochs are within EVEN of each other, or neither is
  noisy (its error bar, hi - lo, at most NOISY of its time): a tie that stands only on a noisy point is no evidence
  that the device does not matter (issue 37: 24.7 ms against 17.1 ms, the CPU's IQR 289 % of it, read 'the device
  does not matter').
- 'the device matters': the slower device's compute, timed apart (the phase bars), is at least DEVICE_SHARE of the
  gap: a device can save no more than the compute it replaces (108 ms against 76.4 ms read 'the device matters'
  where compute was 1.15 ms and 1.71 ms).
- 'too noisy to say': at least one of the two points is noisy, and they are less than NEVER_CLOSE apart.
- 'not through faster compute': the slower device's compute is short of DEVICE_SHARE of the gap (the converse).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from random_views import Reading
from view_checks import UNIT_SCALE, Finding, sentences

EVEN = 1.05  # lib.core.noise.EVEN_RATIO
NOISY = 0.5  # lib.core.noise.NOISY: an IQR over half the time
NEVER_CLOSE = 2.0  # lib.core.noise.NEVER_CLOSE
DEVICE_SHARE = 0.5  # lib.lessons.data_pipeline.view.DEVICE_SHARE
ROUNDING = 0.006  # a time printed with three significant digits

T = r"(\d[\d,]*(?:\.\d+)?) (ns|µs|ms|s)"
# '(24.7 ms per epoch on the CPU, 17.1 ms on the GPU)', 'one epoch takes 24.7 ms on the CPU, 17.1 ms on the GPU'
PAIR = re.compile(rf"{T}(?: per epoch)? on the CPU, {T} on the GPU")
SAME = re.compile(r"does not matter")
MATTERS = re.compile(r"the device matters\*{0,2}:")
NOISY_WORDS = re.compile(r"too noisy to say")
NOT_COMPUTE = re.compile(r"not through faster compute")
TENSORS = "tensors already on the device"


def _seconds(value: str, unit: str) -> float:
    return float(value.replace(",", "")) * UNIT_SCALE[unit]


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= ROUNDING * max(abs(a), abs(b))


def _curve_points(reading: Reading) -> Iterator[dict]:
    """The sweep charts' points (x, t in ms, series, lo and hi: the error bar)."""
    for chart in reading.charts:
        yield from (r for r in chart.rows if {"x", "t", "series"} <= r.keys() and "phase" not in r)


def _pair(reading: Reading, cpu_s: float, gpu_s: float) -> tuple[dict, dict] | None:
    """The drawn CPU and GPU points of one x and one day that print as the two times."""
    points = list(_curve_points(reading))
    for c in points:
        if not (str(c["series"]).startswith("cpu") and _near(c["t"] / 1e3, cpu_s)):
            continue
        day = str(c["series"]).partition(" (")[2]
        for g in points:
            if (
                g["x"] == c["x"]
                and not str(g["series"]).startswith("cpu")
                and str(g["series"]).partition(" (")[2] == day
                and _near(g["t"] / 1e3, gpu_s)
            ):
                return c, g
    return None


def _noisy(point: dict) -> bool:
    lo, hi = point.get("lo"), point.get("hi")
    return isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and hi - lo > NOISY * point["t"]


def _compute_ms(reading: Reading, series: str) -> float | None:
    """The compute phase's bar (ms) drawn for one feed's series ('images · cpu (recorded on …)')."""
    for chart in reading.charts:
        for r in chart.rows:
            if r.get("series") == series and str(r.get("phase", "")).startswith("compute"):
                return float(r["t"])
    return None


def device_claims_hold(reading: Reading) -> list[Finding]:
    found = []
    for sentence in sentences(reading):
        said_same, said_matters, said_noisy, said_not_compute = (
            bool(p.search(sentence)) for p in (SAME, MATTERS, NOISY_WORDS, NOT_COMPUTE)
        )
        if not (said_same or said_matters or said_noisy or said_not_compute):
            continue
        for c_value, c_unit, g_value, g_unit in PAIR.findall(sentence):
            c_s, g_s = _seconds(c_value, c_unit), _seconds(g_value, g_unit)
            pair = _pair(reading, c_s, g_s)
            if pair is None:
                continue  # not a drawn pair (numbers_on_chart checks the numbers themselves)
            cpu, gpu = pair
            ratio = max(c_s, g_s) / min(c_s, g_s)
            noisy = [p["series"] for p in pair if _noisy(p)]
            if said_same and ratio >= EVEN and noisy:
                found.append(
                    Finding("device claims", sentence, f"'does not matter' {ratio:.2f}× apart on noisy {noisy}")
                )
            if said_noisy and (not noisy or ratio >= NEVER_CLOSE):
                found.append(
                    Finding("device claims", sentence, f"'too noisy to say' {ratio:.2f}× apart, noisy: {noisy}")
                )
            if said_matters or said_not_compute:
                feed = "tensors" if TENSORS in sentence else "images"
                slower = cpu if c_s > g_s else gpu
                compute = _compute_ms(reading, f"{feed} · {slower['series']}")
                gap_ms = abs(c_s - g_s) * 1e3
                if said_not_compute and compute is not None and compute >= DEVICE_SHARE * gap_ms:
                    found.append(
                        Finding(
                            "device claims",
                            sentence,
                            f"'not through faster compute' for a {gap_ms:.3g} ms gap, the slower compute {compute:.3g} ms",
                        )
                    )
                if said_matters and compute is not None and compute < DEVICE_SHARE * gap_ms:
                    found.append(
                        Finding(
                            "device claims",
                            sentence,
                            f"'the device matters' for a {gap_ms:.3g} ms gap, the slower compute {compute:.3g} ms",
                        )
                    )
    return found
