"""Seed cases: the times behind the ratios, one bar each (the seed's, the recording's, this server's), and
the sentences that quote a time, read from those bars only (a time in the words is a bar on the page).

Only times of what the seed's own times cover, at the seed's sizes, are bars: a call timed at a cut size is
not comparable with them, so it stays in the table and no sentence quotes it. No Streamlit.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from lib.core.fmt import fmt_ratio, fmt_s, plural
from lib.core.rows import Origin
from lib.core.same import same_time
from lib.lessons.common import onscreen
from lib.lessons.seed_cases.screen import Case, Timed, doubt_words
from lib.lessons.seed_cases.view import size_words, total_s

# The seeds whose GPU's first call was slower than the next ones, and what that first call took there (seed
# 003: 0.55 s, then 0.46 s): the recording's first call is drawn beside the seed's.
SEED_FIRST_CALL_S = {"big_matmul": 0.55}


class Call(str, enum.Enum):
    """What a bar times."""

    CPU = "CPU"
    GPU = "GPU"
    FIRST = "GPU, first call"

    def __str__(self) -> str:
        return self.value


class Where(str, enum.Enum):
    """Whose time a bar is."""

    SEED = "seed"
    RECORDED = "recorded"
    LIVE = "live"


@dataclass(frozen=True)
class TimeBar:
    """One drawn time: whose (`where`, and the words that name it on the chart), of what, in seconds."""

    where: Where
    source: str  # 'reported in seed 003', 'recorded on NVIDIA H200, 2026-11-21', 'live on this server'
    call: Call
    seconds: float

    def row(self) -> dict[str, object]:
        """The chart's row (lib.charts.seeds.seed_times_chart)."""
        return {"label": f"{self.source} · {self.call}", "call": str(self.call), "s": self.seconds}


def time_bars(case: Case) -> list[TimeBar]:
    """The bars of the seed's, the recorded and this server's times for what the seed's times cover, each at
    the seed's sizes (a recording or a live run at a cut size draws none)."""
    p, bars = case.preset, []

    def add(where: Where, source: str, call: Call, seconds: float | None) -> None:
        if seconds and seconds > 0:
            bars.append(TimeBar(where, source, call, float(seconds)))

    seed = f"reported in seed {p.seed}"
    add(Where.SEED, seed, Call.CPU, p.reported_cpu_s)
    add(Where.SEED, seed, Call.GPU, p.reported_gpu_s)
    add(Where.SEED, seed, Call.FIRST, SEED_FIRST_CALL_S.get(p.name))
    if case.recording and not case.rec_cut:
        recorded = f"recorded on {case.machine}"
        add(Where.RECORDED, recorded, Call.CPU, total_s(case.rec_cpu, p))
        add(Where.RECORDED, recorded, Call.GPU, total_s(case.rec_gpu, p))
        if p.name in SEED_FIRST_CALL_S and total_s(case.rec_gpu, p):
            add(Where.RECORDED, recorded, Call.FIRST, case.rec_gpu.cold_s)
    if not case.cut:  # a live time is a bar only when the noise rule believes it, as the ratio bars' are
        # a refused or failed live point has no time to judge (the gate refused it: no bar, its note says why)
        if case.live_cpu and case.live_cpu.ok and Timed.of(case.live_cpu, Origin.LIVE).believed:
            add(Where.LIVE, "live on this server", Call.CPU, case.live_total)
        if case.live_gpu and case.live_gpu.ok and Timed.of(case.live_gpu, Origin.LIVE).believed:
            add(Where.LIVE, "live on this server", Call.GPU, total_s(case.live_gpu, p))
    return bars


def bar_of(bars: Sequence[TimeBar], where: Where, call: Call) -> TimeBar | None:
    return next((b for b in bars if b.where == where and b.call == call), None)


def times_title(case: Case) -> str:
    """'Time for 10 000 epochs in total, at the seed's sizes', 'Time per epoch, …'."""
    covers = case.covers
    return f"Time {covers if covers.startswith('per ') else 'for ' + covers}, at the seed's sizes"


def cold_sentence(case: Case, bars: Sequence[TimeBar]) -> str | None:
    """The recording's first GPU call against a warm one, as drawn, beside the seed's own (SEED_FIRST_CALL_S)."""
    first, warm = bar_of(bars, Where.RECORDED, Call.FIRST), bar_of(bars, Where.RECORDED, Call.GPU)
    if not (first and warm) or case.preset.reported_calls != 1:
        return None
    ratio = first.seconds / warm.seconds
    return (
        f"On {case.machine} the GPU's first call of this experiment in the recording run took "
        f"{fmt_s(first.seconds)}, a warm one {fmt_s(warm.seconds)}"
        + (f", {fmt_ratio(ratio)} as long" if not same_time(first.seconds, warm.seconds) else "")
        + f" (the seed saw {SEED_FIRST_CALL_S[case.preset.name]:g} s against {case.preset.reported_gpu_s:g} s)."
        " Only warm calls count in the ratio."
    )


def live_cpu_sentence(case: Case, bars: Sequence[TimeBar], threads: int) -> str | None:
    """This server's CPU: its drawn time for what the seed's times cover, or, timed at a cut size, that its
    time is not comparable (and so neither drawn nor quoted: the table holds it)."""
    cpu = case.live_cpu
    if not cpu:
        return None
    if not cpu.ok:
        return f"This server's CPU was not timed: {onscreen.status_words(cpu.to_row())}."
    who = f"This server's CPU ({plural(threads, 'thread')})"
    timed = Timed.of(cpu, Origin.LIVE)
    if not case.cut and not timed.believed:
        return f"{who} is not drawn yet, too noisy here to say: {doubt_words('CPU', timed)}."
    mine = bar_of(bars, Where.LIVE, Call.CPU)
    if mine:
        seed = bar_of(bars, Where.SEED, Call.CPU)
        return f"{who} takes {fmt_s(mine.seconds)} for {case.covers}" + (
            f", against {fmt_s(seed.seconds)} on the seed's CPU." if seed else "."
        )
    return (
        f"{who} was timed at a cut size ({size_words(case.cut)}): its time per call, in the table, is not "
        "comparable with times for the seed's size, so it is not drawn."
    )
