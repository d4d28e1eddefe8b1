"""The one-sentence answer at the top of each lesson page, read from what the page's chart shows.

Every page opens with its chart and one sentence that answers the page's question for the view on
screen; the longer explanations sit below, behind 'Why?'. Each function here takes what its page
already computed (rows, a lesson's screen) and returns that sentence. No Streamlit.

    who(series_label("cuda:0", Origin.RECORDED, "NVIDIA H200, 2026-11-21"))   'the NVIDIA H200 GPU'
    jacobian_answer(rows, 100, ["loop", "vmap_jacfwd"])      the method against the device
    timing_answer(view, 1024)                                 what the timer reports, or where the GPU catches up
    pipeline_answer(on)                                       does the device matter with a DataLoader over images
    scaling_answer(records, "per_gpu", cpu=False)             where more GPUs start to pay off
    machines_answer(comparison)                               Your results: the first chart in one sentence
    gallery_answer(machines, comparison)                      where the class's GPUs catch up with their CPUs
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lib.core.crossover import CrossKind
from lib.core.fmt import Strong, fmt_about, fmt_num, fmt_rate, fmt_ratio, fmt_s, fmt_value, pct, plural, say
from lib.core.rows import is_ok
from lib.lessons.common import onscreen, voice
from lib.lessons.common.voice import crossover_sentence, series_side
from lib.lessons.data_pipeline.screen import Screen as PipelineScreen
from lib.lessons.data_pipeline.view import SAME_WITHIN, epoch_gap
from lib.lessons.gallery.view import OWN_CPU, OWN_GPU, GalleryMachine, crossover_words
from lib.lessons.jacobian.view import LABEL as METHOD_LABEL
from lib.lessons.multi_gpu import scaling
from lib.lessons.timing.view import Screen as TimingScreen
from lib.lessons.timing.view import by_size, crossovers, nearest
from lib.lessons.your_results import compare
from lib.recorded.sources import SeriesName
from lib.recorded.uploads import plain

_SCALES = ((1e15, "quadrillion"), (1e12, "trillion"), (1e9, "billion"), (1e6, "million"), (1e3, "thousand"))


def who(series: SeriesName) -> str:
    """A curve as a sentence names it, read from its typed name (lib.lessons.common.voice.series_side):
    this server's CPU, the NVIDIA H200 GPU, the NVIDIA H200 machine's CPU."""
    return series_side(series).text


def rate_words(rate: float) -> str:
    """'45.1 billion operations per second (45.1 GFLOP/s)': the plain words first, the unit after."""
    scale, word = next(((s, w) for s, w in _SCALES if rate >= s), (1.0, ""))
    return f"{fmt_num(rate / scale)}{' ' + word if word else ''} operations per second ({fmt_rate(rate)})"


# -- Jacobian --------------------------------------------------------------------------------------------
def _median(row: dict[str, Any]) -> float:
    return float(row["median_s"])


def jacobian_answer(rows: Sequence[dict[str, Any]], val: int, methods: Sequence[str]) -> str:
    """The fastest method timed at `val` against the seed's loop at its best; 'the method matters more
    than the device' only when the rows show a larger gap between methods than between devices."""
    v = fmt_value(val)
    at = f"With {plural(val, 'input')} in the batch (val = {v})"
    if not methods:
        return "Pick at least one method below to see its curve."
    here = [r for r in rows if int(r["val"]) == int(val) and r["method"] in methods and is_ok(r)]
    if not here:
        return f"{at} nothing was timed here; the points not measured (below) say why."
    best = min(here, key=_median)
    name = f"{METHOD_LABEL[best['method']]} on {who(best['series'])}"
    loops = [r for r in here if r["method"] == "loop"]
    if best["method"] == "loop":
        return (f"{at} the seed's loop is the fastest method timed here: {fmt_s(best['median_s'])} on "
                f"{who(best['series'])}.")
    if not loops:
        why = ("add the loop below to compare it with the seed's method" if "loop" not in methods
               else "the seed's loop was not timed at this size here (too many backward passes or too much memory)")
        return f"{at} the fastest method timed is {name}, {fmt_s(best['median_s'])}; {why}."
    loop = min(loops, key=_median)
    method_gap = _median(loop) / _median(best)
    text = (f"{at}, {name} takes {fmt_s(best['median_s'])}: **{fmt_ratio(method_gap)} faster** than the "
            f"seed's loop at its best ({fmt_s(loop['median_s'])} on {who(loop['series'])})")
    device_gaps = []
    for method in {r["method"] for r in here}:
        times = [_median(r) for r in here if r["method"] == method]
        if len(times) > 1:
            device_gaps.append(max(times) / min(times))
    if device_gaps and method_gap > max(device_gaps):
        text += (f"; the devices differ by {fmt_ratio(max(device_gaps))} at most: the method matters more than "
                 "the device")
    return text + "."


# -- Timing pitfalls ---------------------------------------------------------------------------------------
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


# -- Data pipeline -----------------------------------------------------------------------------------------
def pipeline_answer(on: PipelineScreen) -> str:
    """With the DataLoader over images (the seeds' case): both devices of one machine when the screen
    has them, else how much of this server's epoch the loading alone takes (what no device can save)."""
    at = on.view.at
    cpu, gpu = on.pair("images")
    if is_ok(cpu) and is_ok(gpu):
        c, g = float(cpu["median_s"]), float(gpu["median_s"])
        if epoch_gap(c, g) < SAME_WITHIN:
            return (f"With images fed by a DataLoader, at {at} **the device does not matter**: one epoch takes "
                    f"{fmt_s(c)} on the CPU and {fmt_s(g)} on the GPU of the same machine.")
        lead = voice.lead_words(voice.versus(voice.CPU, c, voice.GPU, g), "epoch")
        return (f"With images fed by a DataLoader, at {at} {lead}: {fmt_s(c)} on the CPU, {fmt_s(g)} on the GPU of the "
                "same machine.")
    row = on.at_point("images")
    loading = row.get("phase_loading_s") if is_ok(row) else None
    if isinstance(loading, (int, float)) and loading > 0:
        epoch = float(row["median_s"])
        saved = max(0.0, 1 - min(loading, epoch) / epoch)
        return (f"With images fed by a DataLoader, at {at} loading alone takes {fmt_s(loading)} of this server's "
                f"{fmt_s(epoch)} epoch: a device that trained in no time at all would save at most {pct(saved)}.")
    return f"Nothing was measured at {at} with images fed by a DataLoader; the notes below say why."


# -- Multi-GPU ---------------------------------------------------------------------------------------------
def scaling_answer(records: Sequence[dict[str, Any]], axis: str, cpu: bool = False) -> str:
    """Where the most GPUs measured start to pay off against one (the last of scaling.crossover_lines)."""
    return scaling.crossover_lines(records, axis, cpu)[-1].markdown()


# -- Your results ------------------------------------------------------------------------------------------
def machines_answer(comparison: compare.Comparison) -> str:
    """The first chart in one sentence: a machine whose GPU catches up with its CPU on it, else which
    curve is fastest, else what each machine has."""
    lines = compare.crossover_lines(comparison)
    crossing = next((line for line in lines if line.about is not None and line.about.kind == CrossKind.CROSSES), None)
    if crossing is not None:
        return crossing.markdown()
    return compare.fastest_line(comparison) or (lines[0].markdown() if lines else "One curve, nothing to compare.")


# -- Class gallery -----------------------------------------------------------------------------------------
def gallery_answer(machines: Sequence[GalleryMachine], comparison: compare.Comparison | None) -> str:
    """Where the machines' GPUs catch up with their own CPUs: the earliest and the latest."""
    found = [(x, m) for m in machines for x, _ in [crossover_words(comparison, m)] if x is not None]
    with_gpu = [m for m in machines if any(r.get("device") != "cpu" and is_ok(r) for r in m.rows)]
    if not found:
        if not with_gpu:
            return "No machine here has both CPU and GPU results yet, so there is no speed-up to compare."
        return (f"On none of the {len(with_gpu)} machines with a GPU here do the GPU and its own CPU cross within the "
                "batch sizes measured; the table says who is faster.")
    found.sort(key=lambda xm: xm[0])
    (lo, first), (hi, last) = found[0], found[-1]
    if len(found) == 1:
        return (say("On ", Strong(plain(first.line)), ", ")
                + crossover_sentence(comparison.crossovers[first.line], "batch size", OWN_CPU, OWN_GPU)).markdown()
    return (f"The GPUs here catch up with their own CPUs between batch size ≈ {fmt_about(lo)} "
            f"(**{plain(first.line)}**) and ≈ {fmt_about(hi)} (**{plain(last.line)}**), {len(found)} machines in all.")
