"""The Timing pitfalls page's one-sentence answer, above its chart: what a naive timer reports against
the synchronised one, or what a matmul takes on this server's CPU; and its notes, under the chart: where
the GPU catches up (one short sentence up top).

    timing_answer(view, 1024)
    timing_notes(view, 1024)
"""

from __future__ import annotations

from lib.core.fmt import fmt_num, fmt_rate, fmt_ratio, fmt_s, fmt_value
from lib.lessons.common import onscreen
from lib.lessons.common.answers import who
from lib.lessons.common.voice import crossover_sentence, series_side
from lib.lessons.timing.timed import Timed
from lib.lessons.timing.view import NO_CPU_CURVE, Switch, by_size, crossovers, live_cpu_timed, nearest
from lib.lessons.timing.view import Screen as TimingScreen

_SCALES = ((1e15, "quadrillion"), (1e12, "trillion"), (1e9, "billion"), (1e6, "million"), (1e3, "thousand"))


def rate_words(rate: float) -> str:
    """'45.1 billion operations per second (45.1 GFLOP/s)': the plain words first, the unit after."""
    scale, word = next(((s, w) for s, w in _SCALES if rate >= s), (1.0, ""))
    return f"{fmt_num(rate / scale)}{' ' + word if word else ''} operations per second ({fmt_rate(rate)})"


def _gpu_answer(view: TimingScreen, size: int, gpu: str) -> str:
    """What the page teaches, from the drawn rows: the timer that does not wait against the one that does."""
    if not view.variant.sync:
        # against the same view synchronised (the copy counted or TF32 on both sides), drawn beside it
        naive, honest = by_size(view.current, gpu), by_size(view.partner_points(Switch.SYNC), gpu)
        common = sorted(set(naive) & set(honest))
        if common:
            at = nearest(common, size)
            n, h = naive[at].median_s, honest[at].median_s
            if h >= 2 * n:
                return (
                    f"On {who(gpu)}, a timer that does not wait for it reports {fmt_s(n)} per {fmt_value(at)} × "
                    f"{fmt_value(at)} matmul, **{fmt_ratio(h / n)} too small**: the work takes {fmt_s(h)}."
                )
            return (
                f"On {who(gpu)} at size {fmt_value(at)}, the timer that does not wait reports {fmt_s(n)} against "
                f"{fmt_s(h)} when it waits: a small difference."
            )
    timed = by_size(view.current, gpu)
    if not timed:
        return f"Nothing was timed on {who(gpu)} at these settings; the notes below say why."
    at = nearest(list(timed), size)
    if not view.variant.sync:  # the synchronised partner is missing: the naive number alone
        return (
            f"Without **Synchronise**, the timer reports {fmt_s(timed[at].median_s)} per {fmt_value(at)} × "
            f"{fmt_value(at)} matmul on {who(gpu)}; the synchronised timing to set it against is not on screen."
        )
    return (
        f"With **Synchronise** on, {who(gpu)} takes {fmt_s(timed[at].median_s)} per {fmt_value(at)} × "
        f"{fmt_value(at)} matmul; switch it off below to see what a naive timer reports."
    )


def _cpu_timed(view: TimingScreen) -> dict[int, Timed]:
    return by_size(view.current, onscreen.LIVE_CPU)


def timing_answer(view: TimingScreen, size: int) -> str:
    """One short sentence, what the title promises first. With a GPU on screen: with the naive
    timer, how far off it is against the synchronised one; synchronised, what the matmul takes there and
    which switch shows the lie. With the CPU only: what a matmul of this size takes here, and that the
    GPU's traps need a GPU. Where the GPU catches up is timing_notes', under the chart."""
    gpu = view.gpu_series
    if gpu:
        return _gpu_answer(view, size, gpu)
    cpu = _cpu_timed(view)
    if not cpu:
        return "Nothing was timed here at these settings; the notes below say why."
    at = nearest(list(cpu), size)
    return (
        f"On this server's CPU a {fmt_value(at)} × {fmt_value(at)} matmul takes {fmt_s(cpu[at].median_s)}; "
        "with no GPU curve here, the GPU's timing traps cannot be shown."
    )


def timing_notes(view: TimingScreen, size: int) -> str:
    """What the answer leaves for under the chart: where the GPU catches up with this server's CPU (from the
    synchronised timings, with the points too close to call), or that there is no CPU curve to cross; with
    the CPU only, the rate of its matmul. Empty when there is nothing to add."""
    gpu = view.gpu_series
    if gpu:
        honest = view.current if view.variant.sync else view.baseline
        if not live_cpu_timed(honest):
            return NO_CPU_CURVE
        analysis, _ = crossovers(view)
        said = crossover_sentence(analysis, "matrix size", series_side(onscreen.LIVE_CPU), series_side(gpu))
        return (
            said.capitalised().markdown() if view.variant.sync else f"From the synchronised timings: {said.markdown()}"
        )
    cpu = _cpu_timed(view)
    rate = cpu[nearest(list(cpu), size)].rate if cpu else None
    return f"That is {rate_words(rate)}." if rate else ""
