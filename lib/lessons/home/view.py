"""The Home page's one-chart answer: a recorded sweep with both devices of one GPU machine, its
crossover, the two ends of the curve in words, and the same GPU steps captured in one CUDA graph as a
curve of their own. No Streamlit; pages/home.py lays it out.

    chart = one_chart([chosen_pack, *packs], get_workload("mlp"))   # the first pack that has a sweep
    crossover_sentence(chart.analysis, chart.setting, chart.cpu_label, chart.gpu_label)
    curve_chart(drawn(chart), chart.over, y=chart.y, crossover=crossover_range(chart))   # what is drawn
    ends_sentence(chart)     # 'At batch size 1, the GPU takes 1.98× as long as the CPU (…); at 8,192, …'
    modes_sentence(chart)    # the CUDA-graph curve against the CPU and the eager GPU, read from drawn(chart)

Every number, date and origin the words name is a point of drawn(chart): a curve is the
rows of one recording, a step recorded on other days keeps their times as its band (and its tooltip
names each day), and the CUDA-graph comparison quotes the graph curve's own points.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lib.core.crossover import SweepAnalysis, analyse_rows, curve_doubt
from lib.core.fmt import Sentence, fmt_ratio, fmt_s, fmt_value, plural
from lib.core.rows import Origin, is_ok
from lib.core.same import same_rows
from lib.core.workload import Workload
from lib.lessons.common import onscreen, voice
from lib.lessons.training import view
from lib.recorded.sources import best_recorded_sweep, canonical, hardware_text, row_date, rows_machine
from lib.workloads import execution


@dataclass
class OneChart:
    """One recorded sweep of both devices, ready to draw and explain."""

    over: str  # the swept setting
    machine: str  # 'NVIDIA H200, 2026-11-21'
    rows: list[dict[str, Any]]  # labelled with `series`, with epoch_iqr_s where the rows have epochs
    y: str  # 'epoch_s' when the rows have epochs, else 'median_s'
    analysis: SweepAnalysis
    hardware: str = ""  # 'NVIDIA H200': the machine every curve was recorded on
    graphed: list[dict[str, Any]] = field(default_factory=list)  # the GPU's same steps in one CUDA graph

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

    @property
    def graph_label(self) -> str | None:
        return self.graphed[0]["series"] if self.graphed else None


# Home's "Why?". Both devices pay per-operator overhead (Python, autograd, PyTorch's dispatch): the
# Training page shows the CPU's. What only the GPU pays is a launch over the bus per kernel and the wait
# for it to finish; the recorded packs hold no CPU profile, so no number is quoted here.
WHY = (
    "Because a GPU does not run your step: it runs the small pieces of work your step is made of (kernels), "
    "each launched from Python on the CPU. Both devices pay the same per-operator cost on the CPU (Python, "
    "autograd, PyTorch's dispatch); the GPU pays more on top of it: launching every kernel over the bus to the "
    "GPU, and waiting for the GPU to finish (synchronisation) whenever the CPU needs a result. The CPU runs each "
    "operator itself, so it launches nothing across a bus and has no device to wait for. For a small model every "
    "kernel finishes almost at once, and the GPU's step is mostly that extra cost (launch-bound); even kernels "
    "queued back to back each take a few microseconds however little they do (kernel latency). Give each kernel "
    "enough work and the GPU's memory bandwidth, then its arithmetic, take over: there it is many times faster. "
    "This app measures where that happens, and the Training page says which of the four holds each step."
)


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


def time_key(rows: Sequence[Mapping[str, Any]]) -> str:
    """'epoch_s' when any row has an epoch time, else 'median_s' (a step)."""
    return "epoch_s" if any(_number(r.get("epoch_s")) for r in rows) else "median_s"


def one_chart(packs: Iterable[Mapping[str, Any] | None], workload: Workload) -> OneChart | None:
    """The best recorded sweep of `workload` with both devices, from the first of `packs` that has one."""
    for pack in packs:
        if not pack:
            continue
        found = best_recorded_sweep(pack, workload)
        if found:
            over, rows = found
            machine = rows_machine(rows, pack)  # the days of the rows drawn, not the merged pack's newest file
            # both devices of the recording machine: each row's series is its own device, recorded there
            dated = [{**r, "recorded_on": row_date(r, pack)} for r in rows]  # each row's own day, said and drawn
            labelled = with_epoch_spread(onscreen.labelled([], recorded_gpu=dated, machine=machine))
            y = time_key(labelled)
            analysis = analyse_rows([r for r in labelled if is_ok(r, y)], over, time_key=y)
            hardware = hardware_text(pack["machine"])
            graphed = graph_curve(labelled, over, y, pack) if over == "batch_size" else []
            return OneChart(over, machine, labelled, y, analysis, hardware, graphed)
    return None


def verdict(cpu_s: float, gpu_s: float, tie: bool = False) -> str:
    """'the GPU takes 1.98× as long as the CPU (7.82 s against 3.96 s)' / '… is 3.25× as fast …' / 'both take …';
    'the two are about even' where the one rule calls them the same (`tie`, lib.core.same with their spreads)."""
    if gpu_s == cpu_s:
        return f"both take {fmt_s(gpu_s)}"
    return f"{voice.ratio_words(voice.GPU, voice.CPU, gpu_s / cpu_s, tie=tie)} ({fmt_s(gpu_s)} against {fmt_s(cpu_s)})"


def ends_sentence(chart: OneChart) -> str | None:
    """Both ends of the curve in words, at the smallest and largest value measured on both devices."""
    gpu = chart.analysis.gpu_device
    by_x: dict[Any, dict[str, Mapping[str, Any]]] = {}  # the rows at each x, by device
    for r in chart.rows:
        if is_ok(r, chart.y):
            by_x.setdefault(r[chart.over], {})[r["device"]] = r
    both = sorted(x for x, d in by_x.items() if "cpu" in d and len(d) == 2)
    if not both or not gpu:
        return None
    lo, hi = both[0], both[-1]

    def at(x: Any) -> str:
        cpu, other = by_x[x]["cpu"], by_x[x][gpu]
        return verdict(cpu[chart.y], other[chart.y], same_rows(cpu, other, chart.y))

    return f"At {chart.setting} {fmt_value(lo)}, {at(lo)}; at {fmt_value(hi)}, {at(hi)}."


GRAPH = "cuda_graph"


def graph_curve(rows: Sequence[Mapping[str, Any]], over: str, y: str, pack: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The eager GPU curve's steps captured in one CUDA graph, from the same pack: at each x of the eager
    curve that the pack holds a graphed step of the same settings for (a step is a step: an epoch of the
    chart's dataset is that step times the eager point's steps per epoch). Its own curve, labelled with
    the mode and the day of its rows; none unless two points or more were recorded. A curve is one
    recording: the one holding the most of these steps (as Training draws its curves)."""
    eager = [r for r in rows if r["device"] != "cpu" and is_ok(r)]
    by_recording: dict[str, list[dict[str, Any]]] = {}
    for r in eager:
        g = _graphed(r, pack)
        if g is None:
            continue
        point = {
            **g,
            "recorded_on": row_date(g, pack),
            over: r[over],
            "dataset_size": r.get("dataset_size"),
            "steps_per_epoch": r.get("steps_per_epoch"),
            "recorded_dataset_size": g.get("dataset_size"),
        }
        if y == "epoch_s":
            point["epoch_s"] = float(g["median_s"]) * float(r["steps_per_epoch"])
        by_recording.setdefault(_recording(point), []).append(point)
    found = max(by_recording.values(), key=len, default=[])
    if len(found) < 2:
        return []
    name = f"{eager[0]['device']}, {execution.label(GRAPH)} (recorded on {rows_machine(found, pack)})"
    return with_epoch_spread({**p, "series": name} for p in found)


def _recording(row: Mapping[str, Any]) -> str:
    """The recording a row came from: 'NVIDIA H200 (2026-11-24)'."""
    return str(row.get("machine") or f"recorded {row.get('recorded_on') or 'once'}")


def drawn(chart: OneChart) -> list[dict[str, Any]]:
    """Every point the chart draws (lib.charts.provenance.curve_chart): the CPU, the eager GPU and the
    CUDA-graph curve, each point with where it came from (its tooltip), its band over the other days
    the same step was recorded, hollow where the noise rule does not believe it. The band is drawn, not
    read: the crossover is each curve's own recording against the other's (chart.analysis)."""
    out = []
    for curve in _curves(chart):
        doubted = curve_doubt({float(r[chart.over]): r for r in curve}, chart.y)
        for r in curve:
            steps = float(r.get("steps_per_epoch") or 1) if chart.y == "epoch_s" else 1.0
            others = tuple(r.get("other_recordings") or ())
            exact = r.get("recorded_dataset_size", r.get("dataset_size")) == r.get("dataset_size")
            how = (
                f"recorded on {_recording(r)}"
                if exact or chart.y != "epoch_s"
                else f"derived: {plural(int(steps), 'step')} of the step recorded on {_recording(r)}"
            )
            point = {
                **r,
                "origin": Origin.RECORDED if exact else Origin.DERIVED,
                "noisy": float(r[chart.over]) in doubted,
            }
            if others:
                times = [float(r["median_s"]), *(float(t) for _, t in others)]
                point[f"{chart.y}_low"], point[f"{chart.y}_high"] = min(times) * steps, max(times) * steps
                how += (
                    f"; also {', '.join(f'{fmt_s(float(t))} a step on {label}' for label, t in others)}: "
                    f"from {fmt_s(min(times))} to {fmt_s(max(times))} a step, the band"
                )
            out.append({**point, "origin_note": how})
    return out


def _curves(chart: OneChart) -> list[list[dict[str, Any]]]:
    ok = [r for r in [*chart.rows, *chart.graphed] if is_ok(r, chart.y)]
    return [[r for r in ok if r["series"] == name] for name in dict.fromkeys(r["series"] for r in ok)]


def crossover_range(chart: OneChart) -> onscreen.Shaded | None:
    """The crossover the answer names, as the chart shades it (Training's way)."""
    return onscreen.shaded(chart.analysis.measured) if chart.analysis.gpu_device else None


def band_days(chart: OneChart) -> list[str]:
    """The other recordings the drawn bands span ('NVIDIA H200 (2026-11-21)'), each once."""
    return list(
        dict.fromkeys(label for r in [*chart.rows, *chart.graphed] for label, _ in r.get("other_recordings") or ())
    )


def caption(chart: OneChart) -> str:
    """What the chart is and where each curve came from, under it."""
    bands = band_days(chart)
    band = (
        f" A shaded band spans the same steps' times as recorded on {' and '.join(bands)} too: compare curves "
        "of the same day."
        if bands
        else ""
    )
    return (
        f"Training a small neural network (an MLP) on {chart.hardware or chart.machine}: every curve comes from "
        f"that machine, recorded on the day its legend names.{band} The Training page puts this server's CPU "
        "beside it."
    )


def modes_sentence(chart: OneChart | None) -> Sentence | None:
    """What one CUDA graph of the whole step does, read from the chart's own graph curve: where it
    stands against the CPU curve, and against the eager GPU point at the Training page's default batch
    (64) when both are drawn there. None without a graph curve."""
    if not (chart and chart.graphed):
        return None
    cpu = [r for r in chart.rows if r["device"] == "cpu" and is_ok(r, chart.y)]
    graphed = [r for r in chart.graphed if is_ok(r, chart.y)]
    found = analyse_rows([*cpu, *graphed], chart.over, time_key=chart.y)
    graph_side = voice.legend_side(voice.Unit.GPU, f"the {chart.hardware} GPU in {execution.label(GRAPH)}")
    said = (
        "That is eager PyTorch, launching every kernel from Python. "
        + voice.crossover_sentence(
            found, chart.setting, voice.series_side(chart.cpu_label), graph_side, hollow=True
        ).capitalised()
    )
    batch = view.View().batch_size
    eager = next(
        (
            r
            for r in chart.rows
            if r["device"] == chart.analysis.gpu_device and r[chart.over] == batch and is_ok(r, chart.y)
        ),
        None,
    )
    graph = next((r for r in graphed if r[chart.over] == batch), None)
    if eager and graph:
        e, g = float(eager[chart.y]), float(graph[chart.y])
        each = "per epoch" if chart.y == "epoch_s" else "a step"
        apart = (
            f" (the graph recorded {graph['recorded_on']}, eager {eager['recorded_on']})"
            if graph["recorded_on"] != eager["recorded_on"]
            else ""
        )
        how = (
            "the same within the spread of the repeats"
            if same_rows(eager, graph, chart.y)
            else f"{fmt_ratio(e / g)} as fast"
            if g < e
            else f"{fmt_ratio(g / e)} as long"
        )
        said = said + (
            f" At {chart.setting} {fmt_value(batch)} it takes {fmt_s(g)} {each} against {fmt_s(e)} eager{apart}: {how}."
        )
    return said + f" The Training page's “{view.MODES_TITLE}” compares every mode."


def _graphed(eager: Mapping[str, Any], pack: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ok CUDA-graph row of the eager row's settings (any dataset size: a step is a step), the one
    of the eager row's dataset size first."""
    want = {k: v for k, v in (canonical(view.MLP, eager) or {}).items() if k not in ("mode", "dataset_size")}
    found = []
    for r in pack["rows"]:
        if r.get("mode") != GRAPH or r.get("device") != eager["device"] or not is_ok(r):
            continue
        values = canonical(view.MLP, r) or {}
        if all(values.get(k) == v for k, v in want.items() if k != "optimizer_impl"):  # a graph needs its own
            found.append(r)
    return min(found, key=lambda r: r.get("dataset_size") != eager.get("dataset_size"), default=None)
