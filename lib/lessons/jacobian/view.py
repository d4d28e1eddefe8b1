"""The Jacobian lesson (seed 004): what to time live, the memory each method needs, and sentences
read from the rows on screen. No Streamlit here; pages/jacobian.py lays it out.

The live measurement gives the jacobian workload's result rows (lib/workloads/jacobian.py); on screen
each is a MethodPoint (lib.lessons.jacobian.points): the point and its series (the device and where its
numbers came from, e.g. 'cpu (live, this server)'). Every number in a sentence is read from those points,
or computed from the settings they carry (how many backward passes a method runs, how big its basis is).

    rows = live_rows("loop", [1, 10, 100], ["cpu"], current=100, point_budget_s=0.05)
    at_val_sentences(points, 100, ["cpu (live, this server)"])
    crossover_sentence(points, "loop", LIVE_CPU, gpu_series).markdown()   # '**loop**: the GPU catches up …'

"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lib.core.crossover import Crossover, find_crossover
from lib.core.devices import is_cuda
from lib.core.fmt import Sentence, Strong, and_list, fmt_bytes, fmt_num, fmt_ratio, fmt_s, fmt_value, say
from lib.core.point import rows_of
from lib.core.request import LiveRequest
from lib.core.rows import Origin, Status
from lib.core.same import Sameness, sameness
from lib.core.sweep import default_memory_cap_gb
from lib.core.workload import Settings
from lib.lessons.common import onscreen
from lib.lessons.common.in_series import ChartRow
from lib.lessons.common.live import LiveBudget, LiveSweep, live_sweep
from lib.lessons.common.voice import Side, Unit
from lib.lessons.common.voice import crossover_sentence as crossover_sentence_of
from lib.lessons.jacobian.points import MethodPoint, timed
from lib.recorded.sources import series_label
from lib.recorded.uploads import plain
from lib.workloads import get_workload
from lib.workloads.jacobian import METHODS

CPU, GPU = Side(Unit.CPU), Side(Unit.GPU)  # the sentences say 'the CPU', 'the GPU': the legend says which
ProgressFn = Callable[[float, str], None]

WORKLOAD = get_workload("jacobian")
VALS = (1, 3, 10, 30, 100, 300, 1000, 3000, 10000)  # the slider: half-decades
DECADES = (1, 10, 100, 1000)  # swept on every view, plus the slider's value
DEFAULT_VAL = 100  # the seed ran 100 and 1000

DEFAULT_METHODS = ("loop", "vmap_jacrev")  # the first chart: the seed's way against the one beating the hardware
LABEL = {"loop": "loop", "vectorize": "vectorize", "vmap_jacrev": "vmap(jacrev)", "vmap_jacfwd": "vmap(jacfwd)"}
LONG = {
    "loop": "loop: one backward pass per output, what the seed ran (autograd.functional.jacobian)",
    "vectorize": "vectorize: the same passes batched into one (vectorize=True)",
    "vmap_jacrev": "vmap(jacrev): sample by sample, reverse mode (torch.func)",
    "vmap_jacfwd": "vmap(jacfwd): sample by sample, forward mode (torch.func)",
}

# The loop's cost is its backward passes (outputs x val per call), each a few dozen microseconds of
# Python and autograd whatever the arithmetic, so a FLOP cap does not bound its time. A live run
# here takes at most this many passes per call (the CPU: about a tenth of a second per call).
LIVE_MAX_LOOP_PASSES = {"cpu": 2_000, "cuda": 12_000}
POINT_BUDGET_S = 0.03  # seconds of timed repeats per live point: most points take a millisecond or less
SEED_REPORTED = "val = 100: CPU 11.1 s, GPU 19.5 s; val = 1000: CPU 8 min 44 s, GPU 3 min 12 s"


def sweep_grid(current: int) -> list[int]:
    """The decades, plus the slider's value."""
    return sorted(set(DECADES) | {int(current)})


def params_of(method: str, val: int) -> Settings:
    return WORKLOAD.resolve({"method": method, "val": val})


def loop_passes(params: Mapping[str, Any]) -> int:
    """Backward passes of one call of the loop: one per output number, outputs x val."""
    return int(params["val"]) * int(params["outputs"])


def loop_refusal(params: Mapping[str, Any], device: str) -> str | None:
    """Why the loop at these settings is too slow to time live on this device, or None."""
    if params["method"] != "loop":
        return None
    cap = LIVE_MAX_LOOP_PASSES["cuda" if is_cuda(device) else "cpu"]
    passes = loop_passes(params)
    if passes <= cap:
        return None
    return (
        f"the loop runs {fmt_value(passes)} backward passes per call (outputs × val), more than the "
        f"{fmt_value(cap)} a live run on {device} may take here; not run (see the recorded results, or run it "
        "with the CLI)"
    )


def live_rows(
    method: str,
    values: Sequence[int],
    devices: Sequence[str],
    *,
    current: int | None,
    point_budget_s: float,
    num_threads: int | None = None,
    memory_cap_gb: float | None = None,
    progress: ProgressFn | None = None,
) -> list[dict[str, Any]]:
    """One row per (val, device) for one method: timed live (lib.lessons.common.live.live_sweep: its work and
    memory caps apply), or a `skipped` row saying why not: the memory estimate is checked first (the
    reason this lesson is about), then the loop's passes. No kernel profile (this page shows none)."""
    cap = default_memory_cap_gb() if memory_cap_gb is None else memory_cap_gb

    def sub(fraction: float, message: str) -> None:
        if progress:
            progress(fraction, f"{LABEL[method]}: {message}")

    rows = rows_of(
        live_sweep(
            LiveSweep(
                WORKLOAD,
                "val",
                values,
                {"method": method},
                devices,
                current=current,
                profile_current=False,
                refuse=loop_refusal,
            ),
            LiveBudget(point_budget_s, num_threads=num_threads, memory_cap_gb=cap),
            progress=sub,
        )
    )
    order = {d: i for i, d in enumerate(devices)}
    return sorted(rows, key=lambda r: (int(r["val"]), order.get(r["device"], 99)))


def point_budget(live_budget_s: float) -> float:
    """Seconds of timed repeats per live point: the server's budget, at most POINT_BUDGET_S."""
    return min(live_budget_s, POINT_BUDGET_S)


def ordered(methods: Sequence[str]) -> list[str]:
    """The chosen methods in the page's order (METHODS), unknown ones left out."""
    return [m for m in METHODS if m in methods]


def live_request(
    method: str,
    grid: Sequence[int],
    devices: Sequence[str],
    *,
    point_budget_s: float,
    threads: int,
    memory_cap_gb: float,
) -> LiveRequest:
    """The live measurement of one method, which is also its cache key. No `current`: the Jacobian
    has no phases to time at one point, so the slider's value matters only through the grid, and the
    decades' views share one measurement."""
    return LiveRequest.of(
        live_rows,
        method,
        list(grid),
        list(devices),
        current=None,
        point_budget_s=point_budget_s,
        num_threads=threads,
        memory_cap_gb=memory_cap_gb,
    )


def measure_label(method: str, grid: Sequence[int], devices: Sequence[str]) -> str:
    return f"jacobian {LABEL[method]} over val={','.join(map(str, grid))} on {', '.join(devices)}"


def default_requests(
    devices: Sequence[str], *, live_budget_s: float, threads: int, memory_cap_gb: float
) -> list[tuple[str, LiveRequest]]:
    """What the page measures at its defaults (DEFAULT_METHODS, val = DEFAULT_VAL), each with its label: the
    server's warm-up measures them before a visitor asks (ui.prefetch)."""
    grid = sweep_grid(DEFAULT_VAL)
    return [
        (
            measure_label(m, grid, devices),
            live_request(
                m,
                grid,
                devices,
                point_budget_s=point_budget(live_budget_s),
                threads=threads,
                memory_cap_gb=memory_cap_gb,
            ),
        )
        for m in DEFAULT_METHODS
    ]


def views(methods: Sequence[str], val: int) -> dict[str, dict[str, str | int]]:
    """The recorded sweep each method needs: over val, through the slider's value (the workload's settings
    that a pack's rows are matched on)."""
    return {m: {"method": m, "val": val} for m in methods}


# -- the rows on screen --------------------------------------------------------------------------------
NO_GPU = (
    "No GPU on this server and no recorded GPU results shipped yet: only the live CPU curves are shown. "
    "A crossover needs a GPU curve."
)


def missing_note(found: onscreen.RecordedViews, label: str) -> str | None:
    """What the recorded pack lacks for the methods on screen (None when it lacks nothing)."""
    if not found.missing:
        return None
    if not found.holds_workload:
        return found.note
    return (
        f"The recorded pack ({plain(label)}) has no jacobian sweep over val for "
        f"{and_list([LABEL[m] for m in found.missing])} with the seed's network (20 hidden, 400 outputs), "
        f"so there is no GPU curve for {'it' if len(found.missing) == 1 else 'them'}: only the live CPU is "
        "shown there."
    )


def time_rows(points: Sequence[MethodPoint]) -> list[ChartRow]:
    """The time chart's data: the points as rows, each with its method's label."""
    return [{**p.row(), "method_label": LABEL[p.method]} for p in points]


# -- reading the points --------------------------------------------------------------------------


def table(points: Sequence[MethodPoint], series: str) -> dict[tuple[str, int], MethodPoint]:
    """{(method, val): point} of one series."""
    return {(p.method, p.val): p for p in points if p.series == series}


def at_val_sentences(points: Sequence[MethodPoint], val: int, series_order: Sequence[str]) -> list[str]:
    """Per series: each method's time at `val` (or why it was not measured), and how many times
    faster the fastest method is than the seed's loop on that device."""
    out = []
    for series in series_order:
        by = table(points, series)
        here = [(m, by.get((m, val))) for m in METHODS if (m, val) in by]
        if not here:
            continue
        if not any(p.ok for p in by.values()):  # no curve of it is drawn: its name is not set in bold as one
            out.append(f"On {series}, no point on screen was timed (why: in the table of points not measured).")
            continue
        measured = sorted(((m, p) for m, p in here if p.ok), key=lambda mp: mp[1].median_s)
        missing = [(m, p) for m, p in here if not p.ok]
        parts = []
        if measured:
            parts.append(", ".join(f"{LABEL[m]} {fmt_s(p.median_s)}" for m, p in measured))
        if missing:
            parts.append(
                "not timed: " + and_list([LABEL[m] for m, _ in missing]) + " (why: in the table of points not measured)"
            )
        text = f"On **{series}** at val = {fmt_value(val)}: " + "; ".join(parts) + "."
        text += " " + loop_comparison(by, val)
        out.append(text.strip())
    return out


def loop_comparison(by: Mapping[tuple[str, int], MethodPoint], val: int) -> str:
    """How many times faster the fastest method is than the loop, at `val` if the loop was timed
    there, else at the largest val where it was (saying so)."""
    methods = {m for m, _ in by}
    if "loop" not in methods:
        return "Add the loop to the methods to compare with the seed's method."
    others = [m for m in METHODS if m != "loop" and m in methods]
    if not others:
        return ""
    loop_vals = sorted(
        v for (m, v), p in by.items() if m == "loop" and p.ok and any(timed(by.get((o, v))) for o in others)
    )
    if not loop_vals:
        return "The loop was not timed on this device at any val on screen where another method was."
    at = val if val in loop_vals else max(loop_vals)
    loop_point = by[("loop", at)]
    loop = loop_point.median_s
    best_m, best = min(((o, by[(o, at)].median_s) for o in others if timed(by.get((o, at)))), key=lambda t: t[1])
    best_point = by[(best_m, at)]
    prefix = (
        ""
        if at == val
        else f"The loop was not timed at val = {fmt_value(val)}; at val = {fmt_value(at)}, "
        "the largest val where it was, "
    )
    said = sameness(loop, best, loop_point.spread, best_point.spread)  # the one rule, both spreads
    if best < loop and said is Sameness.TOO_NOISY:  # a tie only on a noisy point ranks nothing
        text = (
            f"the seed's loop ({fmt_s(loop)}) and the fastest other method timed there ({LABEL[best_m]}: "
            f"{fmt_s(best)}) are too noisy here to rank."
        )
    elif best >= loop or said is Sameness.SAME:
        text = (
            f"the seed's loop ({fmt_s(loop)}) is as fast as any other method timed there "
            f"({LABEL[best_m]}: {fmt_s(best)})."
        )
    else:
        text = (
            f"the fastest method, {LABEL[best_m]} ({fmt_s(best)}), is **{fmt_ratio(loop / best)} faster** than "
            f"the seed's loop ({fmt_s(loop)}) on the same device."
        )
    return prefix + text if prefix else text[0].upper() + text[1:]


def _measured(points: Sequence[MethodPoint], method: str, series: str) -> dict[int, MethodPoint]:
    """{val: point} of one method's measured points in one series."""
    return {p.val: p for p in points if p.series == series and p.method == method and p.ok}


def method_crossover(
    points: Sequence[MethodPoint], method: str, cpu_series: str, gpu_series: str
) -> tuple[Crossover, list[int]]:
    """lib.core.crossover.find_crossover over the vals where the method was timed on both devices, with
    each point's spread (the one noise rule calls a gap within it too close to call)."""
    cpu, gpu = (_measured(points, method, s) for s in (cpu_series, gpu_series))
    common = sorted(set(cpu) & set(gpu))
    return find_crossover(
        common,
        *([d[v].median_s for v in common] for d in (cpu, gpu)),
        *([d[v].spread for v in common] for d in (cpu, gpu)),
    ), common


def crossover_sentence(points: Sequence[MethodPoint], method: str, cpu_series: str, gpu_series: str) -> Sentence:
    """Where the GPU starts to win for one method, from the vals timed on both devices only (the
    words are lib.lessons.common.voice's; `.about` holds the Crossover)."""
    found, common = method_crossover(points, method, cpu_series, gpu_series)
    cpu_max = max(_measured(points, method, cpu_series), default=None)
    gpu_max = max(_measured(points, method, gpu_series), default=None)
    limit = ""
    if common and cpu_max is not None and gpu_max is not None and cpu_max < gpu_max:
        limit = (
            f" The CPU was not timed beyond val = {fmt_value(cpu_max)} (see the points not measured), "
            f"so the comparison stops there."
        )
    return say(Strong(LABEL[method]), ": ") + crossover_sentence_of(found, "val", CPU, GPU) + limit


def crossover_lines(
    points: Sequence[MethodPoint], methods: Sequence[str], machine_label: str | None, same_machine_intro: str | None
) -> list[Sentence]:
    """Where the GPU starts to win, method by method; then on the recording machine itself, when its
    CPU is on screen (the comparison the seed made; `same_machine_intro` names that machine:
    lib.lessons.common.onscreen.same_machine_intro of its pack's machine, None without a pack)."""
    gpu = onscreen.gpu_series(p.row() for p in points)  # onscreen's rule reads rows
    if not gpu:
        return [crossover_sentence_of(None, "val", CPU, GPU)]
    out = [crossover_sentence(points, m, onscreen.LIVE_CPU, gpu) for m in methods]
    same = series_label("cpu", Origin.RECORDED, machine_label)
    if same_machine_intro is not None and any(p.series == same for p in points):
        out.append(say(f"{same_machine_intro}, the comparison the seed made:"))
        out += ["- " + crossover_sentence(points, m, same, gpu) for m in methods]
    return out


def _largest_ok(points: Sequence[MethodPoint], series: str, method: str) -> MethodPoint | None:
    measured = _measured(points, method, series)
    return measured[max(measured)] if measured else None


def why_sentences(
    points: Sequence[MethodPoint], val: int, methods: Sequence[str], series_order: Sequence[str]
) -> list[str]:
    """Why the methods cost what they do: counts from the settings, times from the points."""
    out = []
    if "loop" in methods:
        out.append(loop_why(points, val, series_order))
    if "vectorize" in methods:
        out.append(vectorize_why(points, val, series_order))
    out.append(vmap_why(val))
    if "vmap_jacfwd" in methods or "vmap_jacrev" in methods:
        out.append(modes_why(points, val, methods, series_order))
    return out


def _outputs(val: int) -> int:
    return int(params_of("loop", val)["outputs"])


def loop_why(points: Sequence[MethodPoint], val: int, series_order: Sequence[str]) -> str:
    """The loop's backward passes at `val`, and its time per pass on each device."""
    outputs, passes, v = _outputs(val), loop_passes(params_of("loop", val)), fmt_value(val)
    text = (
        f"**The loop** (what the seed ran) does one backward pass per output number: outputs × val = "
        f"{outputs} × {v} = **{fmt_value(passes)} backward passes** per call at val = {v}, "
        f"each through the whole batch, filling a {v} × {outputs} × {v} Jacobian "
        f"of which only {'all' if val == 1 else '1/' + v} can be non-zero."
    )
    for series in series_order:
        p = _largest_ok(points, series, "loop")
        if p:
            n = loop_passes(p.settings)
            text += (
                f" On {series} it took {fmt_s(p.median_s)} at val = {fmt_value(p.val)} for "
                f"{fmt_value(n)} passes: {fmt_s(p.median_s / n)} per pass."
            )
    return text


def vectorize_why(points: Sequence[MethodPoint], val: int, series_order: Sequence[str]) -> str:
    """vectorize=True's basis at `val`, and where the memory it needs stopped it on each device."""
    outputs = _outputs(val)
    basis = float(outputs * val) ** 2
    text = (
        f"**vectorize=True** does those passes as one batched backward pass, but first builds its basis, an "
        f"(outputs × val)² identity: ({outputs} × {fmt_value(val)})² = {fmt_num(basis)} numbers, "
        f"{fmt_bytes(basis * 4)} in fp32 at val = {fmt_value(val)}."
    )
    for series in series_order:
        refused = sorted(
            (
                p
                for p in points
                if p.series == series and p.method == "vectorize" and p.status in (Status.SKIPPED, Status.OOM)
            ),
            key=lambda p: p.val,
        )
        memory = [p for p in refused if "GB" in (p.message or "") or p.status == Status.OOM]
        if memory:
            first = memory[0]
            status = first.status.value
            text += (
                f" On {series} it was not run from val = {fmt_value(first.val)} on: "
                f"{first.message or onscreen.STATUS_WORDS.get(status, status)}."
            )
    return text


def vmap_why(val: int) -> str:
    """Why per-sample vmap computes only the diagonal blocks."""
    blocks = val * _outputs(val)
    return (
        f"The rows of the batch are independent (output row i depends only on input i), so the full "
        f"Jacobian is block-diagonal. **Per-sample vmap** (torch.func.vmap of a one-sample function) computes "
        f"only the {fmt_value(val)} diagonal blocks: {fmt_value(blocks)} numbers instead of "
        f"{fmt_value(blocks * val)} at val = {fmt_value(val)}."
    )


def modes_why(points: Sequence[MethodPoint], val: int, methods: Sequence[str], series_order: Sequence[str]) -> str:
    """Forward against reverse mode per sample; with both on screen, which was faster on each device."""
    outputs = _outputs(val)
    text = (
        f"Each sample has one input and {outputs} outputs, so **forward mode (jacfwd)** needs one pass per "
        f"sample (one input direction) where **reverse mode (jacrev)** needs {outputs} (one per output)."
    )
    if not {"vmap_jacfwd", "vmap_jacrev"} <= set(methods):
        return text
    for series in series_order:
        by = table(points, series)
        both = [v for (m, v), p in by.items() if m == "vmap_jacfwd" and p.ok and timed(by.get(("vmap_jacrev", v)))]
        if not both:
            continue
        at = val if val in both else min(both, key=lambda v: abs(math.log(v) - math.log(val)))
        fwd, rev = by[("vmap_jacfwd", at)].median_s, by[("vmap_jacrev", at)].median_s
        verdict = (
            f"jacfwd is {fmt_ratio(rev / fwd)} faster"
            if fwd < rev
            else f"jacrev is {fmt_ratio(fwd / rev)} faster here"
            if rev < fwd
            else "they tie"
        )
        text += (
            f" On {series} at val = {fmt_value(at)}: vmap(jacfwd) {fmt_s(fwd)}, vmap(jacrev) {fmt_s(rev)}; {verdict}."
        )
    return text


def record_command(method: str, values: Sequence[int]) -> str:
    return (
        f"python -m lib sweep jacobian --over val={','.join(str(v) for v in values)} --set method={method} "
        f"--devices cpu,cuda --out lib/recorded/jacobian_{method}.json"
    )
