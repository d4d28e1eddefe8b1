"""Timing pitfalls (seed 003): the sentences read from the rows on screen, one group per switch (synchronise, the cold call, TF32, the copy) and for the achieved FLOP/s. No Streamlit.

Each switch's sentences take `against`: the points of the view with only that switch set back
(lib.lessons.timing.view.partner(), Screen.partner_points()), so each comparison changes one thing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lib.core.devices import is_cuda
from lib.core.fmt import fmt_rate, fmt_ratio, fmt_s, fmt_value, pct
from lib.core.noise import CLEAR_RATIO
from lib.core.same import Sameness, sameness
from lib.lessons.timing.timed import Timed
from lib.lessons.timing.view import BASELINE, Variant, _at, by_size, nearest


def sync_sentences(
    current: Sequence[Timed], against: Sequence[Timed], variant: Variant, size: int, series_order: Sequence[str]
) -> list[str]:
    """What the naive timer reports against the honest one, per series; on the CPU, that it is the same."""
    if variant.sync:
        return [
            "Every time on the chart below is honest: the harness waits for the device before each clock read. "
            "Switch off **Synchronise** to see what a naive timer reports. (On the CPU it changes nothing: a CPU "
            "matmul has finished when the call returns.)"
        ]
    out = []
    for series in series_order:
        naive, honest = by_size(current, series), by_size(against, series)
        common = sorted(set(naive) & set(honest))
        if not common:
            continue
        at = nearest(common, size)
        n, h = naive[at].median_s, honest[at].median_s
        if series.startswith("cpu"):
            # the one rule (lib.core.same): 21.3 ms against 32.2 ms is 1.51× apart, never 'about the same'
            said = sameness(n, h, naive[at].spread, honest[at].spread)
            if said is not Sameness.APART:
                how = "the same within the spread of the repeats" if said is Sameness.SAME else "too noisy to compare"
                out.append(
                    f"On **{series}** {_at(size, at)}: naive {fmt_s(n)}, synchronised {fmt_s(h)} "
                    f"({how}). On the CPU synchronising changes nothing: "
                    "the CPU has done the work by the time the call returns, so there is nothing to wait for."
                )
            else:
                out.append(
                    f"On **{series}** {_at(size, at)}: naive {fmt_s(n)}, synchronised {fmt_s(h)} "
                    f"({fmt_ratio(max(n, h) / min(n, h))} apart). Synchronising is not what changed: the CPU "
                    "has done the work by the time the call returns, so there is nothing to wait for. The gap "
                    "is between two timings of the same work, which this CPU did not repeat alike."
                )
            continue
        lo, hi = min(naive[s].median_s for s in common), max(naive[s].median_s for s in common)
        h_lo, h_hi = honest[common[0]].median_s, honest[common[-1]].median_s
        text = (
            f"On **{series}**, from size {fmt_value(common[0])} to {fmt_value(common[-1])} the naive timer reports "
            f"between {fmt_s(lo)} and {fmt_s(hi)} per call (a {fmt_ratio(hi / lo)} spread), while the synchronised "
            f"time grows from {fmt_s(h_lo)} to {fmt_s(h_hi)} ({fmt_ratio(h_hi / h_lo)}). "
        )
        if h >= 2 * n:
            text += (
                f"At size {fmt_value(at)} the naive number ({fmt_s(n)}) is **{fmt_ratio(h / n)} too small**: "
                f"it is the time to queue the matmul, not to compute it ({fmt_s(h)})."
            )
        else:
            text += (
                f"At size {fmt_value(at)} the naive number is {fmt_s(n)} against {fmt_s(h)} synchronised "
                f"({fmt_ratio(h / n)})."
            )
        out.append(text)
    if not any(not s.startswith("cpu") for s in series_order):
        out.append(
            "There is no GPU curve on screen, so the naive timer's lie itself cannot be shown here: on a GPU "
            "the call returns as soon as the work is queued."
        )
    return out


def cold_sentences(current: Sequence[Timed], size: int, series_order: Sequence[str]) -> list[str]:
    out = []
    for series in series_order:
        rows = {s: t for s, t in by_size(current, series).items() if t.cold_s}
        if not rows:
            continue
        at = nearest(list(rows), size)
        cold, warm = rows[at].cold_s, rows[at].median_s
        text = (
            f"On **{series}** {_at(size, at)} the first call took {fmt_s(cold)} and the warm median "
            f"{fmt_s(warm)}: the first call was {fmt_ratio(cold / warm)} the warm time."
        )
        worst = max(rows, key=lambda s: rows[s].cold_s / rows[s].median_s)
        if worst != at:
            w_cold, w_warm = rows[worst].cold_s, rows[worst].median_s
            text += (
                f" The largest gap on screen is at size {fmt_value(worst)}: {fmt_s(w_cold)} "
                f"against {fmt_s(w_warm)} ({fmt_ratio(w_cold / w_warm)})."
            )
        out.append(text)
    return out


def tf32_sentences(
    current: Sequence[Timed], against: Sequence[Timed], variant: Variant, size: int, series_order: Sequence[str]
) -> list[str]:
    if not variant.tf32:
        return []
    out = []
    for series in series_order:
        tf, fp = by_size(current, series), by_size(against, series)
        common = [s for s in sorted(set(tf) & set(fp)) if tf[s].rate and fp[s].rate]
        if not common:
            continue
        at = nearest(common, size)
        a, b = tf[at].rate, fp[at].rate
        text = (
            f"On **{series}** {_at(size, at)}: {fmt_rate(a)} with TF32 against {fmt_rate(b)} in fp32 "
            f"({fmt_ratio(a / b)})."
        )
        if not is_cuda(tf[at].device):
            text += " TF32 is an NVIDIA tensor-core mode: on the CPU both runs are plain fp32 arithmetic."
        out.append(text)
    return out


def transfer_sentences(
    current: Sequence[Timed], against: Sequence[Timed], variant: Variant, size: int, series_order: Sequence[str]
) -> list[str]:
    if not variant.transfer:
        return []
    out = []
    for series in series_order:
        with_copy, without = by_size(current, series), by_size(against, series)
        common = sorted(set(with_copy) & set(without))
        if not common:
            continue
        at = nearest(common, size)
        a, b = with_copy[at].median_s, without[at].median_s
        if not is_cuda(with_copy[at].device):
            out.append(
                f"On **{series}** {_at(size, at)}: {fmt_s(a)} with the copy “counted”, {fmt_s(b)} without: "
                "on the CPU the inputs are already where the work runs, so nothing is copied."
            )
            continue
        text = (
            f"On **{series}** {_at(size, at)}, counting the copy of both inputs from host memory, one call takes "
            f"{fmt_s(a)} against {fmt_s(b)} with the inputs already on the device"
        )
        text += f": the copy adds {fmt_s(a - b)}, {pct(min((a - b) / a, 1))} of the call." if a > b else "."
        copy = with_copy[at].copy_s
        if copy:
            text += f" Timed on its own, the copy took {fmt_s(copy)}."
        text += share_trend(common, {s: copy_share(with_copy[s], without[s]) for s in common})
        out.append(text)
    return out


def share_trend(sizes: Sequence[int], shares: dict[int, float]) -> str:
    """How the copy's share of a call moves over the sizes drawn, as the rows show it: falling from the
    smallest (copying grows with size², the arithmetic with size³), rising to the largest, or rising to a
    peak and falling after it. The size² / size³ reason is given only for a share that falls."""
    if len(sizes) < 2:
        return ""
    small, big = sizes[0], sizes[-1]
    peak = max(sizes, key=lambda s: shares[s])  # the first of equal shares: the smallest size
    ends = f"{pct(shares[small])} at size {fmt_value(small)}"
    if peak not in (small, big) and shares[peak] > shares[big]:
        return (
            f" Its share rises from {ends} to {pct(shares[peak])} at {fmt_value(peak)}, then falls to "
            f"{pct(shares[big])} at {fmt_value(big)}: past {fmt_value(peak)} the arithmetic (size³) grows faster "
            "than the copy (size²)."
        )
    if shares[big] < shares[small]:
        return (
            f" Its share is {ends} and {pct(shares[big])} at {fmt_value(big)}: copying grows with size², the "
            "arithmetic with size³."
        )
    if shares[big] > shares[small]:
        return (
            f" Its share rises from {ends} to {pct(shares[big])} at {fmt_value(big)}, its highest on the chart: "
            "over the sizes drawn the copy's time grows faster than the rest of the call's."
        )
    return f" Its share is {ends} and the same at {fmt_value(big)}."


def copy_share(with_copy: Timed, without: Timed) -> float:
    """The copy's part of one call: (with the copy - without) / with the copy, never below 0."""
    return max(0.0, with_copy.median_s - without.median_s) / with_copy.median_s


@dataclass(frozen=True)
class BestRate:
    """The best achieved FLOP/s of one series and dtype among the honest rows on screen: a dotted rule on the
    rate chart, with its label."""

    series: str
    dtype: str
    value: float
    size: int

    @property
    def label(self) -> str:
        return f"best measured here ({self.dtype}): {fmt_rate(self.value)}"

    def record(self) -> dict[str, str | float | int]:
        """The rule as the chart's data (lib.charts.variants reads series, value and label)."""
        return {"series": self.series, "dtype": self.dtype, "value": self.value, "size": self.size, "label": self.label}


def best_rates(points: Sequence[Timed], series_order: Sequence[str]) -> list[BestRate]:
    """The best achieved FLOP/s per series and dtype among the honest (synchronised) points on screen."""
    best: dict[tuple[str, str], Timed] = {}
    for t in points:
        if not t.ok or not t.sync or not t.rate or t.series not in series_order:
            continue
        key = (t.series, t.dtype)
        if key not in best or t.rate > best[key].rate:
            best[key] = t
    return [
        BestRate(s, d, t.rate, t.size)
        for (s, d), t in sorted(best.items(), key=lambda kv: (series_order.index(kv[0][0]), kv[0][1]))
    ]


def flops_sentences(
    current: Sequence[Timed], all_rows: Sequence[Timed], variant: Variant, size: int, series_order: Sequence[str]
) -> list[str]:
    bests = best_rates(all_rows, series_order)
    out = []
    for series in series_order:
        rows = {s: t for s, t in by_size(current, series).items() if t.rate}
        mine = next((b for b in bests if b.series == series and b.dtype == variant.dtype), None) or next(
            (b for b in bests if b.series == series and b.dtype == BASELINE.dtype), None
        )
        if not rows or not mine:
            continue
        at = nearest(list(rows), size)
        rate = rows[at].rate
        text = (
            f"**{series}**: the best measured here ({mine.dtype}) is {fmt_rate(mine.value)}, at size "
            f"{fmt_value(mine.size)}."
        )
        if variant.sync:
            text += f" {_at(size, at).capitalize()} it reaches {fmt_rate(rate)}, {pct(rate / mine.value)} of that."
            small = min(rows)
            share = rows[small].rate / mine.value
            # said only where the smallest size is clearly below the best: a noisy live CPU may peak at its
            # smallest size, and 'only 100%: too little work' beside 'the best … at size 64' contradicts itself
            if small != at and share * CLEAR_RATIO <= 1:
                text += (
                    f" At size {fmt_value(small)} only {pct(share)}: too little work per call to keep the device busy."
                )
        elif not is_cuda(rows[at].device):
            text += (
                f" {_at(size, at).capitalize()} the naive timer gives {fmt_rate(rate)}, "
                f"{pct(rate / mine.value)} of that: on the CPU the naive timer is honest, the work is done "
                "when the call returns."
            )
        elif rate > mine.value:
            text += (
                f" Taken at face value, the naive timer would put it at {fmt_rate(rate)} {_at(size, at)}, "
                f"**{fmt_ratio(rate / mine.value)} the best it achieved when timed honestly**: that number "
                "times the launch, not the work."
            )
        else:
            text += (
                f" {_at(size, at).capitalize()} the naive timer gives {fmt_rate(rate)}, "
                f"{pct(rate / mine.value)} of that."
            )
        out.append(text)
    return out
