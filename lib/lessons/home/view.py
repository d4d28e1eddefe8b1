"""The Home page's one-chart answer: a recorded sweep with both devices of one GPU machine, its
crossover, and the two ends of the curve in words. No Streamlit; pages/home.py lays it out.

    chart = one_chart([chosen_pack, *packs], get_workload("mlp"))   # the first pack that has a sweep
    crossover_sentence(chart.analysis, chart.setting, chart.cpu_label, chart.gpu_label)
    ends_sentence(chart)     # 'At batch size 1, the GPU takes 1.98× as long as the CPU (…); at 8,192, …'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lib.core.crossover import SweepAnalysis, analyse_rows
from lib.core.fmt import fmt_ratio, fmt_s, fmt_value
from lib.core.rows import is_ok
from lib.core.workload import Workload
from lib.lessons.common import onscreen, voice
from lib.lessons.training import view as T
from lib.recorded.sources import best_recorded_sweep, canonical, hardware_text, row_date, rows_machine


@dataclass
class OneChart:
    """One recorded sweep of both devices, ready to draw and explain."""

    over: str  # the swept setting
    machine: str  # 'NVIDIA H200, 2026-11-21'
    rows: list[dict[str, Any]]  # labelled with `series`, with epoch_iqr_s where the rows have epochs
    y: str  # 'epoch_s' when the rows have epochs, else 'median_s'
    analysis: SweepAnalysis

    @property
    def setting(self) -> str:
        """The swept setting in words: 'batch size'."""
        return self.over.replace("_", " ")

    @property
    def iqr(self) -> str:
        return "epoch_iqr_s" if self.y == "epoch_s" else "iqr_s"

    @property
    def y_title(self) -> str:
        return "time per epoch" if self.y == "epoch_s" else "time per step"

    @property
    def crossover_x(self) -> float | None:
        return onscreen.crossing_x(self.analysis)

    @property
    def cpu_label(self) -> str:
        return next(r["series"] for r in self.rows if r["device"] == "cpu")

    @property
    def gpu_label(self) -> str:
        return next(r["series"] for r in self.rows if r["device"] != "cpu")


# Home's "Why?". Both devices pay per-operator overhead (Python, autograd, PyTorch's dispatch): the
# Training page shows the CPU's. What only the GPU pays is a launch over the bus per kernel and the wait
# for it to finish; the recorded packs hold no CPU profile, so no number is quoted here.
WHY = ("Because a GPU does not run your step: it runs the small pieces of work your step is made of (kernels), "
       "each launched from Python on the CPU. Both devices pay the same per-operator cost on the CPU (Python, "
       "autograd, PyTorch's dispatch); the GPU pays more on top of it: launching every kernel over the bus to the "
       "GPU, and waiting for the GPU to finish (synchronisation) whenever the CPU needs a result. The CPU runs each "
       "operator itself, so it launches nothing across a bus and has no device to wait for. For a small model every "
       "kernel finishes almost at once, and the GPU's step is mostly that extra cost (launch-bound); even kernels "
       "queued back to back each take a few microseconds however little they do (kernel latency). Give each kernel "
       "enough work and the GPU's memory bandwidth, then its arithmetic, take over: there it is many times faster. "
       "This app measures where that happens, and the Training page says which of the four holds each step.")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def with_epoch_spread(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with the spread of one epoch (its step's IQR × steps per epoch) where it has both."""
    out = []
    for r in rows:
        if "iqr_s" in r and "steps_per_epoch" in r:
            both = _number(r["iqr_s"]) and _number(r["steps_per_epoch"])
            r = {**r, "epoch_iqr_s": r["iqr_s"] * r["steps_per_epoch"] if both else None}
        out.append(r)
    return out


def time_key(rows: Sequence[dict[str, Any]]) -> str:
    """'epoch_s' when any row has an epoch time, else 'median_s' (a step)."""
    return "epoch_s" if any(_number(r.get("epoch_s")) for r in rows) else "median_s"


def one_chart(packs: Iterable[dict[str, Any] | None], workload: Workload) -> OneChart | None:
    """The best recorded sweep of `workload` with both devices, from the first of `packs` that has one."""
    for pack in packs:
        if not pack:
            continue
        found = best_recorded_sweep(pack, workload)
        if found:
            over, rows = found
            machine = rows_machine(rows, pack)  # the days of the rows drawn, not the merged pack's newest file
            # both devices of the recording machine: each row's series is its own device, recorded there
            labelled = with_epoch_spread(onscreen.labelled([], recorded_gpu=rows, machine=machine))
            y = time_key(labelled)
            analysis = analyse_rows([r for r in labelled if is_ok(r, y)], over, time_key=y)
            return OneChart(over, machine, labelled, y, analysis)
    return None


def verdict(cpu_s: float, gpu_s: float) -> str:
    """'the GPU takes 1.98× as long as the CPU (7.82 s against 3.96 s)' / '… is 3.25× as fast …' / 'both take …'."""
    if gpu_s == cpu_s:
        return f"both take {fmt_s(gpu_s)}"
    return f"{voice.ratio_words(voice.GPU, voice.CPU, gpu_s / cpu_s)} ({fmt_s(gpu_s)} against {fmt_s(cpu_s)})"


def ends_sentence(chart: OneChart) -> str | None:
    """Both ends of the curve in words, at the smallest and largest value measured on both devices."""
    gpu = chart.analysis.gpu_device
    by_x: dict[Any, dict[str, float]] = {}
    for r in chart.rows:
        if is_ok(r, chart.y):
            by_x.setdefault(r[chart.over], {})[r["device"]] = r[chart.y]
    both = sorted(x for x, d in by_x.items() if "cpu" in d and len(d) == 2)
    if not both or not gpu:
        return None
    lo, hi = both[0], both[-1]
    return (f"At {chart.setting} {fmt_value(lo)}, {verdict(by_x[lo]['cpu'], by_x[lo][gpu])}; "
            f"at {fmt_value(hi)}, {verdict(by_x[hi]['cpu'], by_x[hi][gpu])}.")


def _day(row: dict[str, Any], pack: dict[str, Any]) -> str:
    """'1.48 ms (2026-11-24)', with the point's other recordings when it was recorded on several days."""
    own = float(row["median_s"])
    others = row.get("other_recordings", ())
    if not others:
        return f"{fmt_s(own)} (recorded {row_date(row, pack)})"
    times = [own, *(t for _, t in others)]
    each = ", ".join(f"{fmt_s(t)} on {label}" for label, t in others)
    return (f"{fmt_s(own)} (recorded {row_date(row, pack)}; recorded {len(times)} times, from {fmt_s(min(times))} "
            f"to {fmt_s(max(times))}: also {each})")


def modes_sentence(chart: OneChart | None, pack: dict[str, Any] | None) -> str | None:
    """What one CUDA graph of the whole step does to the chart's own GPU point at the Training page's
    default step (batch 64), against the graphed step of the same settings in the same pack: each time
    named with the day it was recorded (and every day, when a point was recorded on several). None unless
    the chart draws that point and the pack holds the graphed one."""
    if not (chart and pack and chart.over == "batch_size" and chart.analysis.gpu_device):
        return None
    default = T.View()
    view = {"batch_size": default.batch_size, "hidden_width": default.hidden_width, "depth": default.depth}
    eager = next((r for r in chart.rows if r["device"] == chart.analysis.gpu_device and is_ok(r)
                  and r[chart.over] == view["batch_size"] and r.get("mode", "eager") == "eager"
                  and all(r.get(k) == v for k, v in view.items())), None)
    graphed = _graphed(eager, pack) if eager else None
    if not graphed:
        return None
    e, g = float(eager["median_s"]), float(graphed["median_s"])
    return (f"That is eager PyTorch, launching every kernel from Python: the chart's step at batch {view['batch_size']} "
            f"(width {view['hidden_width']}, depth {view['depth']}) takes {_day(eager, pack)}. Captured in one CUDA "
            f"graph, a step of the same settings takes {_day(graphed, pack)} on {hardware_text(pack['machine'])}: "
            f"{fmt_ratio(e / g)} as fast, which moves the crossover far to the left. "
            "The Training page's “How the step runs” shows each mode's crossover.")


def _graphed(eager: dict[str, Any], pack: dict[str, Any]) -> dict[str, Any] | None:
    """The ok CUDA-graph row of the eager row's settings (any dataset size: a step is a step), the one
    of the eager row's dataset size first."""
    want = {k: v for k, v in (canonical(T.MLP, eager) or {}).items() if k not in ("mode", "dataset_size")}
    found = []
    for r in pack["rows"]:
        if r.get("mode") != "cuda_graph" or r.get("device") != eager["device"] or not is_ok(r):
            continue
        values = canonical(T.MLP, r) or {}
        if all(values.get(k) == v for k, v in want.items() if k != "optimizer_impl"):  # a graph needs its own
            found.append(r)
    return min(found, key=lambda r: r.get("dataset_size") != eager.get("dataset_size"), default=None)
