"""The Timing pitfalls page's one-sentence answer, above its chart: what a naive timer reports, or
where the GPU catches up, or what a matmul takes on this server's CPU.

    timing_answer(view, 1024)
"""

from __future__ import annotations

from lib.core.fmt import fmt_num, fmt_rate, fmt_ratio, fmt_s, fmt_value
from lib.core.rows import is_ok
from lib.lessons.common import onscreen
from lib.lessons.common.answers import who
from lib.lessons.common.voice import crossover_sentence, series_side
from lib.lessons.timing.view import Screen as TimingScreen
from lib.lessons.timing.view import by_size, crossovers, nearest

_SCALES = ((1e15, "quadrillion"), (1e12, "trillion"), (1e9, "billion"), (1e6, "million"), (1e3, "thousand"))


def rate_words(rate: float) -> str:
    """'45.1 billion operations per second (45.1 GFLOP/s)': the plain words first, the unit after."""
    scale, word = next(((s, w) for s, w in _SCALES if rate >= s), (1.0, ""))
    return f"{fmt_num(rate / scale)}{' ' + word if word else ''} operations per second ({fmt_rate(rate)})"


def timing_answer(view: TimingScreen, size: int) -> str:
    """With the naive timer on a GPU: how far off it is. Synchronised with a GPU on screen: where the GPU
    catches up. With the CPU only: what a matmul of this size takes here, and that the GPU's traps need a GPU."""
    gpu = view.gpu_series
    if gpu and not view.variant["sync"]:
        naive, honest = by_size(view.current, gpu), by_size(view.baseline, gpu)
        common = sorted(set(naive) & set(honest))
        if common:
            at = nearest(common, size)
            n, h = naive[at]["median_s"], honest[at]["median_s"]
            where = f"On {who(gpu)} at size {fmt_value(at)}"
            if h >= 2 * n:
                return (f"{where}, a timer that does not wait for the GPU reports {fmt_s(n)} per matmul, "
                        f"**{fmt_ratio(h / n)} too small**: the work itself takes {fmt_s(h)}.")
            return (f"{where}, the timer that does not wait reports {fmt_s(n)} against {fmt_s(h)} when it waits: "
                    "at this size the difference is small.")
    if gpu:
        analysis, _ = crossovers(view)
        text = crossover_sentence(analysis, "matrix size", series_side(onscreen.LIVE_CPU), series_side(gpu)
                                  ).capitalised().markdown()
        if view.variant["sync"]:
            text += " Switch off **Synchronise** below to see what a naive timer reports instead."
        return text
    cpu = {s: r for s, r in by_size(view.current, onscreen.LIVE_CPU).items() if is_ok(r)}
    if not cpu:
        return "Nothing was timed here at these settings; the notes below say why."
    at = nearest(list(cpu), size)
    row = cpu[at]
    rate = row.get("achieved_flops_per_s")
    speed = f", {rate_words(rate)}" if rate else ""
    return (f"On this server's CPU a {fmt_value(at)} × {fmt_value(at)} matmul takes {fmt_s(row['median_s'])}{speed}; "
            "there is no GPU curve here, so the GPU's timing traps cannot be shown.")
