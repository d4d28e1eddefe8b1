"""The Timing pitfalls lesson (seed 003): a matmul size sweep timed honestly and naively, cold and
warm, with and without TF32 and the host-to-device copy. No Streamlit here; pages/timing_pitfalls.py
lays it out.

Rows are the matmul workload's result rows (lib/workloads/matmul.py: median_s, cold_s,
achieved_flops_per_s, phase_transfer_s, ...); the page adds `series` (the device and where its
numbers came from). A *variant* is the three timing settings {dtype, sync, transfer}; the honest
BASELINE is synchronised fp32 with the inputs already on the device. Every number in a sentence
is read from the rows passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lib.core.crossover import SweepAnalysis, analyse_rows
from lib.core.devices import is_cuda
from lib.core.fmt import fmt_rate, fmt_ratio, fmt_s, fmt_value, pct
from lib.core.gc_scope import frozen_heap
from lib.core.rows import is_ok
from lib.lessons import onscreen
from lib.lessons.explain import crossover_sentence
from lib.lessons.live import LIVE_MAX_FLOPS, live_sweep
from lib.recorded.sources import series_label
from lib.workloads import get_workload

WORKLOAD = get_workload("matmul")
SIZES = (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
DEFAULT_SIZE = 1024
BASELINE = {"dtype": "fp32", "sync": True, "transfer": False}
SEED_REPORTED = ("a 15,360 × 15,360 fp32 matmul: CPU 296.9 s; GPU 0.55 s for the first call, 0.46 s after, "
                 "once torch.cuda.synchronize() was called before reading the clock")


def variant_of(sync: bool, tf32: bool, transfer: bool) -> dict[str, Any]:
    return {"dtype": "tf32" if tf32 else "fp32", "sync": bool(sync), "transfer": bool(transfer)}


def changes(variant: dict[str, Any]) -> list[str]:
    """Which toggles differ from the honest baseline: 'sync', 'tf32', 'transfer'."""
    out = []
    if not variant["sync"]:
        out.append("sync")
    if variant["dtype"] != BASELINE["dtype"]:
        out.append("tf32")
    if variant["transfer"]:
        out.append("transfer")
    return out


def variant_label(variant: dict[str, Any]) -> str:
    """'synchronised, fp32' / 'naive timer (no synchronise), TF32, copy counted'."""
    parts = ["synchronised" if variant["sync"] else "naive timer (no synchronise)",
             "TF32" if variant["dtype"] == "tf32" else variant["dtype"]]
    if variant["transfer"]:
        parts.append("copy counted")
    return ", ".join(parts)


def cold_label(variant: dict[str, Any]) -> str:
    return f"first call (cold), {variant_label(variant)}"


def baseline_line() -> str:
    """The chart's name for the honest baseline drawn beside a view that differs from it."""
    return f"honest baseline: {variant_label(BASELINE)}"


def views(variant: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The timings a view needs, by name: its own, and the honest baseline when it differs."""
    out = {variant_label(variant): variant}
    if variant != BASELINE:
        out[variant_label(BASELINE)] = BASELINE
    return out


def recorded(pack: dict[str, Any] | None, label: str, variant: dict[str, Any], size: int, *,
             with_cpu: bool) -> onscreen.RecordedViews:
    """The pack's size sweeps through `size` for each timing the view needs (views())."""
    return onscreen.recorded_views(pack, label, WORKLOAD, "size",
                                   {name: {**v, "size": size} for name, v in views(variant).items()}, with_cpu=with_cpu)


def file_stem(variant: dict[str, Any]) -> str:
    """Download name of a view: matmul_honest, matmul_sync_tf32, ..."""
    return f"matmul_{'_'.join(changes(variant)) or 'honest'}"


def point_where(row: dict[str, Any]) -> str:
    """Where a point of the page sits, for its note: 'cpu (live, this server), size 16,384, synchronised, fp32'."""
    return f"{row['series']}, size {fmt_value(row.get('size'))}, {variant_label(row)}"


def by_size(rows: Sequence[dict[str, Any]], series: str) -> dict[int, dict[str, Any]]:
    return {int(r["size"]): r for r in rows if r.get("series") == series and is_ok(r)}


def nearest(sizes: Sequence[int], size: int) -> int | None:
    """`size` if it is there, else the largest one below it, else the smallest."""
    sizes = sorted(sizes)
    if not sizes:
        return None
    if size in sizes:
        return size
    below = [s for s in sizes if s < size]
    return below[-1] if below else sizes[0]


def _at(size: int, chosen: int) -> str:
    return (f"at size {fmt_value(chosen)}" if chosen == size else
            f"at size {fmt_value(chosen)} (the nearest measured to {fmt_value(size)})")


def live_current(variant: dict[str, Any], size: int) -> int | None:
    """Where phases are timed live: the copy is timed on its own at the slider's size only. Without it
    the size only picks the point explained, so moving the slider reuses the measurement."""
    return size if variant["transfer"] else None


def live_request(variant: dict[str, Any], devices: Sequence[str], *, size: int, point_budget_s: float,
                 threads: int) -> dict[str, Any]:
    """Everything that changes a live measurement of one variant: its cache key."""
    return {"kind": "timing_lesson", "variant": variant, "values": list(SIZES), "devices": list(devices),
            "current": live_current(variant, size), "point_budget_s": point_budget_s, "threads": threads,
            "caps": LIVE_MAX_FLOPS}


def measure_label(variant: dict[str, Any], devices: Sequence[str]) -> str:
    return f"matmul over size ({variant_label(variant)}) on {', '.join(devices)}"


def live_rows(variant: dict[str, Any], devices: Sequence[str], *, current: int | None, point_budget_s: float,
              num_threads: int | None = None, progress: Callable[[float, str], None] | None = None
              ) -> list[dict[str, Any]]:
    """The size sweep of one variant, timed live (lib.lessons.live.live_sweep: its work and memory caps
    apply; phases only at `current`, no kernel profile)."""
    with frozen_heap():
        return live_sweep(WORKLOAD, "size", list(SIZES), variant, devices, current=current,
                          point_budget_s=point_budget_s, num_threads=num_threads, profile_current=False,
                          progress=progress)


# -- the rows on screen ------------------------------------------------------------------------------
NO_GPU = ("No GPU on this server and no recorded GPU results shipped yet: only the live CPU is shown, and the "
          "GPU's pitfalls (asynchronous calls, tensor cores, copies) cannot be shown.")


@dataclass
class Screen:
    """The view's rows and the honest baseline's, each labelled with its series."""

    variant: dict[str, Any]
    current: list[dict[str, Any]]
    baseline: list[dict[str, Any]]  # the same rows as `current` when the view is the baseline
    machine: str | None  # the recorded machine's label

    @property
    def differs(self) -> bool:
        return self.variant != BASELINE

    @property
    def rows(self) -> list[dict[str, Any]]:
        return self.current + (self.baseline if self.differs else [])

    @property
    def order(self) -> list[str]:
        return onscreen.series_order(self.rows, self.machine)

    @property
    def gpu_series(self) -> str | None:
        return onscreen.gpu_series(self.rows)

    @property
    def recorded_cpu_series(self) -> str:
        return series_label("cpu", "recorded", self.machine)


def screen(variant: dict[str, Any], live: dict[str, list[dict[str, Any]]], found: onscreen.RecordedViews,
           machine: str | None) -> Screen:
    """The rows on screen from the live rows per view (views()) and the recorded ones."""
    def rows_of(name: str) -> list[dict[str, Any]]:
        return onscreen.labelled(live.get(name, []), found.gpu_rows(name), found.cpu_rows(name), machine)

    current = rows_of(variant_label(variant))
    return Screen(variant, current, rows_of(variant_label(BASELINE)) if variant != BASELINE else current, machine)


def missing_note(found: onscreen.RecordedViews, label: str) -> str | None:
    """What the recorded pack lacks for this view (None when it lacks nothing)."""
    if not found.missing:
        return None
    if not found.holds_workload:
        return found.note
    return (f"The recorded pack ({label}) has no matmul sweep over size for "
            + " or ".join(f"“{n}”" for n in found.missing)
            + ", so there is no GPU curve for it: only the live CPU is shown there. The pack holds the honest "
            "baseline and one toggle at a time; combinations are not recorded.")


def line_names(variant: dict[str, Any]) -> list[str]:
    """The line styles of the time chart, in legend order."""
    return [variant_label(variant), cold_label(variant), baseline_line()]


def time_lines(view: Screen, show_cold: bool) -> list[dict[str, Any]]:
    """The time chart's points, each with its `line`: the view's warm medians, its cold first calls
    (show_cold), and the honest baseline when the view differs from it."""
    name = variant_label(view.variant)
    lines = []
    for r in view.current:
        lines.append({**r, "line": name})
        if show_cold and is_ok(r, "cold_s"):
            lines.append({**r, "line": cold_label(view.variant), "median_s": r["cold_s"], "iqr_s": None})
    if view.differs:
        lines += [{**r, "line": baseline_line()} for r in view.baseline]
    return lines


def rate_lines(view: Screen) -> list[dict[str, Any]]:
    """The FLOP/s chart's points: the view's, and the honest baseline's when it differs."""
    lines = [{**r, "line": variant_label(view.variant)} for r in view.current]
    return lines + ([{**r, "line": baseline_line()} for r in view.baseline] if view.differs else [])


def crossovers(view: Screen) -> tuple[SweepAnalysis | None, SweepAnalysis | None]:
    """The crossover of the synchronised timings on screen: live CPU against the GPU, and the recording
    machine's CPU against its GPU (None where a curve is missing)."""
    honest = [r for r in (view.current if view.variant["sync"] else view.baseline) if is_ok(r)]
    gpu, same = view.gpu_series, view.recorded_cpu_series
    if not gpu:
        return None, None
    analysis = analyse_rows([r for r in honest if r["series"] in (onscreen.LIVE_CPU, gpu)], "size") if honest else None
    same_machine = (analyse_rows([r for r in honest if r["series"] in (same, gpu)], "size")
                    if any(r["series"] == same for r in view.rows) else None)
    return analysis, same_machine


def crossover_sentences(view: Screen, machine: dict[str, Any] | None) -> list[str]:
    """Where the GPU catches up, from the synchronised timings; and on the recording machine itself."""
    gpu = view.gpu_series
    if not gpu:
        return []
    analysis, same_machine = crossovers(view)
    which = "" if view.variant["sync"] else "From the synchronised timings: "
    out = [which + crossover_sentence(analysis, "size", onscreen.LIVE_CPU, gpu)]
    if same_machine is not None and machine is not None:
        out.append(f"{onscreen.same_machine_intro(machine)}: "
                   + crossover_sentence(same_machine, "size", view.recorded_cpu_series, gpu))
    return out


# -- synchronise -------------------------------------------------------------------------------------
def sync_sentences(current: Sequence[dict[str, Any]], baseline: Sequence[dict[str, Any]], variant: dict[str, Any],
                   size: int, series_order: Sequence[str]) -> list[str]:
    """What the naive timer reports against the honest one, per series; on the CPU, that it is the same."""
    if variant["sync"]:
        return ["Every time on the chart below is honest: the harness waits for the device before each clock read. "
                "Switch off **Synchronise** to see what a naive timer reports. (On the CPU it changes nothing: a CPU "
                "matmul has finished when the call returns.)"]
    out = []
    mixed = [c for c in changes(variant) if c != "sync"]
    for series in series_order:
        naive, honest = by_size(current, series), by_size(baseline, series)
        common = sorted(set(naive) & set(honest))
        if not common:
            continue
        at = nearest(common, size)
        n, h = naive[at]["median_s"], honest[at]["median_s"]
        if series.startswith("cpu"):
            ratio = n / h
            spread = max(naive[at].get("iqr_s") or 0, honest[at].get("iqr_s") or 0)
            same = abs(ratio - 1) <= 0.25 or abs(n - h) <= spread
            out.append(f"On **{series}** {_at(size, at)}: naive {fmt_s(n)}, synchronised {fmt_s(h)} "
                       f"({'about the same' if same else fmt_ratio(ratio) + ' of it'}). "
                       "On the CPU synchronising changes nothing: the CPU has done the work by the time the call "
                       "returns, so there is nothing to wait for.")
            continue
        lo, hi = min(naive[s]["median_s"] for s in common), max(naive[s]["median_s"] for s in common)
        h_lo, h_hi = honest[common[0]]["median_s"], honest[common[-1]]["median_s"]
        text = (f"On **{series}**, from size {fmt_value(common[0])} to {fmt_value(common[-1])} the naive timer reports "
                f"between {fmt_s(lo)} and {fmt_s(hi)} per call (a {fmt_ratio(hi / lo)} spread), while the synchronised "
                f"time grows from {fmt_s(h_lo)} to {fmt_s(h_hi)} ({fmt_ratio(h_hi / h_lo)}). ")
        if h >= 2 * n:
            text += (f"At size {fmt_value(at)} the naive number ({fmt_s(n)}) is **{fmt_ratio(h / n)} too small**: "
                     f"it is the time to queue the matmul, not to compute it ({fmt_s(h)}).")
        else:
            text += (f"At size {fmt_value(at)} the naive number is {fmt_s(n)} against {fmt_s(h)} synchronised "
                     f"({fmt_ratio(h / n)}).")
        out.append(text)
    if mixed:
        out.append("(These curves also differ from the honest baseline in "
                   + " and ".join({"tf32": "TF32", "transfer": "the copy"}[c] for c in mixed)
                   + ", so each gap mixes those effects in.)")
    if not any(not s.startswith("cpu") for s in series_order):
        out.append("There is no GPU curve on screen, so the naive timer's lie itself cannot be shown here: on a GPU "
                   "the call returns as soon as the work is queued.")
    return out


# -- cold first call ---------------------------------------------------------------------------------
def cold_sentences(current: Sequence[dict[str, Any]], size: int, series_order: Sequence[str]) -> list[str]:
    out = []
    for series in series_order:
        rows = {s: r for s, r in by_size(current, series).items() if r.get("cold_s")}
        if not rows:
            continue
        at = nearest(list(rows), size)
        cold, warm = rows[at]["cold_s"], rows[at]["median_s"]
        text = (f"On **{series}** {_at(size, at)} the first call took {fmt_s(cold)} and the warm median "
                f"{fmt_s(warm)}: the first call was {fmt_ratio(cold / warm)} the warm time.")
        worst = max(rows, key=lambda s: rows[s]["cold_s"] / rows[s]["median_s"])
        if worst != at:
            w_cold, w_warm = rows[worst]["cold_s"], rows[worst]["median_s"]
            text += (f" The largest gap on screen is at size {fmt_value(worst)}: {fmt_s(w_cold)} "
                     f"against {fmt_s(w_warm)} ({fmt_ratio(w_cold / w_warm)}).")
        out.append(text)
    return out


# -- TF32 --------------------------------------------------------------------------------------------
def tf32_sentences(current: Sequence[dict[str, Any]], baseline: Sequence[dict[str, Any]], variant: dict[str, Any],
                   size: int, series_order: Sequence[str]) -> list[str]:
    if variant["dtype"] != "tf32":
        return []
    out = []
    for series in series_order:
        tf, fp = by_size(current, series), by_size(baseline, series)
        common = [s for s in sorted(set(tf) & set(fp))
                  if tf[s].get("achieved_flops_per_s") and fp[s].get("achieved_flops_per_s")]
        if not common:
            continue
        at = nearest(common, size)
        a, b = tf[at]["achieved_flops_per_s"], fp[at]["achieved_flops_per_s"]
        text = (f"On **{series}** {_at(size, at)}: {fmt_rate(a)} with TF32 against {fmt_rate(b)} in fp32 "
                f"({fmt_ratio(a / b)}).")
        if not is_cuda(str(tf[at].get("device", ""))):
            text += " TF32 is an NVIDIA tensor-core mode: on the CPU both runs are plain fp32 arithmetic."
        out.append(text)
    return out


# -- transfer ----------------------------------------------------------------------------------------
def transfer_sentences(current: Sequence[dict[str, Any]], baseline: Sequence[dict[str, Any]], variant: dict[str, Any],
                       size: int, series_order: Sequence[str]) -> list[str]:
    if not variant["transfer"]:
        return []
    out = []
    for series in series_order:
        with_copy, without = by_size(current, series), by_size(baseline, series)
        common = sorted(set(with_copy) & set(without))
        if not common:
            continue
        at = nearest(common, size)
        a, b = with_copy[at]["median_s"], without[at]["median_s"]
        if not is_cuda(str(with_copy[at].get("device", ""))):
            out.append(f"On **{series}** {_at(size, at)}: {fmt_s(a)} with the copy “counted”, {fmt_s(b)} without: "
                       "on the CPU the inputs are already where the work runs, so nothing is copied.")
            continue
        text = (f"On **{series}** {_at(size, at)}, counting the copy of both inputs from host memory, one call takes "
                f"{fmt_s(a)} against {fmt_s(b)} with the inputs already on the device")
        text += (f": the copy adds {fmt_s(a - b)}, {pct(min((a - b) / a, 1))} of the call." if a > b else ".")
        copy = with_copy[at].get("phase_transfer_s")
        if copy:
            text += f" Timed on its own, the copy took {fmt_s(copy)}."
        small, big = common[0], common[-1]
        if big != small:
            text += (f" Its share is {pct(copy_share(with_copy[small], without[small]))} at size {fmt_value(small)} "
                     f"and {pct(copy_share(with_copy[big], without[big]))} at {fmt_value(big)}: copying grows with "
                     "size², the arithmetic with size³.")
        out.append(text)
    return out


def copy_share(with_copy: dict[str, Any], without: dict[str, Any]) -> float:
    """The copy's part of one call: (with the copy - without) / with the copy, never below 0."""
    return max(0.0, with_copy["median_s"] - without["median_s"]) / with_copy["median_s"]


# -- achieved FLOP/s ---------------------------------------------------------------------------------
def best_rates(rows: Sequence[dict[str, Any]], series_order: Sequence[str]) -> list[dict[str, Any]]:
    """The best achieved FLOP/s per series and dtype among the honest (synchronised) rows on screen."""
    best: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        if (not is_ok(r) or not r.get("sync", True) or not r.get("achieved_flops_per_s")
                or r.get("series") not in series_order):
            continue
        key = (r["series"], r["dtype"])
        if key not in best or r["achieved_flops_per_s"] > best[key]["achieved_flops_per_s"]:
            best[key] = r
    return [{"series": s, "dtype": d, "value": r["achieved_flops_per_s"], "size": int(r["size"]),
             "label": f"best measured here ({d}): {fmt_rate(r['achieved_flops_per_s'])}"}
            for (s, d), r in sorted(best.items(), key=lambda kv: (series_order.index(kv[0][0]), kv[0][1]))]


def flops_sentences(current: Sequence[dict[str, Any]], all_rows: Sequence[dict[str, Any]], variant: dict[str, Any],
                    size: int, series_order: Sequence[str]) -> list[str]:
    bests = best_rates(all_rows, series_order)
    out = []
    for series in series_order:
        rows = {s: r for s, r in by_size(current, series).items() if r.get("achieved_flops_per_s")}
        mine = (next((b for b in bests if b["series"] == series and b["dtype"] == variant["dtype"]), None)
                or next((b for b in bests if b["series"] == series and b["dtype"] == BASELINE["dtype"]), None))
        if not rows or not mine:
            continue
        at = nearest(list(rows), size)
        rate = rows[at]["achieved_flops_per_s"]
        text = (f"**{series}**: the best measured here ({mine['dtype']}) is {fmt_rate(mine['value'])}, at size "
                f"{fmt_value(mine['size'])}.")
        if variant["sync"]:
            text += f" {_at(size, at).capitalize()} it reaches {fmt_rate(rate)}, {pct(rate / mine['value'])} of that."
            small = min(rows)
            if small != at:
                share = rows[small]["achieved_flops_per_s"] / mine["value"]
                text += (f" At size {fmt_value(small)} only {pct(share)}: too little work per call to keep the "
                         "device busy.")
        elif not is_cuda(str(rows[at].get("device", ""))):
            text += (f" {_at(size, at).capitalize()} the naive timer gives {fmt_rate(rate)}, "
                     f"{pct(rate / mine['value'])} of that: on the CPU the naive timer is honest, the work is done "
                     "when the call returns.")
        elif rate > mine["value"]:
            text += (f" Taken at face value, the naive timer would put it at {fmt_rate(rate)} {_at(size, at)}, "
                     f"**{fmt_ratio(rate / mine['value'])} the best it achieved when timed honestly**: that number "
                     "times the launch, not the work.")
        else:
            text += (f" {_at(size, at).capitalize()} the naive timer gives {fmt_rate(rate)}, "
                     f"{pct(rate / mine['value'])} of that.")
        out.append(text)
    return out


def record_command(variant: dict[str, Any], sizes: Sequence[int] = SIZES) -> str:
    sets = " ".join(f"--set {k}={str(v).lower()}" for k, v in variant.items())
    name = "_".join(["matmul", variant["dtype"], "sync" if variant["sync"] else "nosync"]
                    + (["transfer"] if variant["transfer"] else []))
    return (f"python -m lib sweep matmul --over size={','.join(str(s) for s in sizes)} {sets} "
            f"--devices cpu,cuda --out lib/recorded/{name}.json")
