"""The Data pipeline lesson's numbers and sentences (seeds 000 and 001), read from result rows.

Rows are the dataloader workload's (lib/workloads/dataloader.py): one call is one epoch, and the
point the page explains carries the phases `phase_loading_s` (walking the DataLoader and copying
each batch to the device, no training) and `phase_compute_s` (training on the same batches already
on the device). No Streamlit here; every number in a sentence comes from a row passed in.

    share = loading_share(row)                        # loading / (loading + compute)
    device_sentence(cpu_row, gpu_row, "cpu …", "cuda:0 …", "DataLoader over images")
    ceiling_sentence(cpu_row, "cpu …", "DataLoader over images")   # without a GPU: what a device could save
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lib.core.devices import is_cuda
from lib.core.fmt import fmt_ratio, fmt_s, fmt_times, fmt_value, pct, plural
from lib.core.gc_scope import frozen_heap
from lib.core.rows import is_ok
from lib.lessons import onscreen
from lib.lessons.live import live_sweep, log_grid, rows_at
from lib.recorded.sources import GpuSource, machine_text, matching_rows, recorded_groups
from lib.workloads import get_workload

PHASES = {
    "phase_loading_s": "loading (DataLoader: decode, batch, copy to the device)",
    "phase_compute_s": "compute (forward, backward, update)",
}
SOURCES = {
    "images": "DataLoader over images",
    "tensors": "tensors already on the device",
}
WORKLOAD = get_workload("dataloader")
MODELS = {"linear": "Linear 784→10 (seed 001)", "mlp": "MLP 784-400-200-100-10 (seed 000)"}
# The settings a visitor sweeps: name -> (label, slider steps, default, what it means)
AXES = {
    "batch_size": ("batch size", (8, 16, 32, 64, 128, 256, 512), 64,
                   "Rows per optimizer step: fewer, larger batches mean fewer steps in an epoch."),
    "dataset_size": ("dataset size", (256, 512, 1024, 2048), 256,
                     "Rows in one epoch; every one of them is decoded once per epoch when the source is images."),
}
WORKERS = (0, 1, 2, 4)
POINTS = 3  # live points per sweep: a small server times three epochs' worth per feed
# Settings the page does not offer: a recorded sweep it can show leaves them at the workload's defaults.
NOT_ON_PAGE = ("data", "normalize", "optimizer", "lr", "shuffle", "seed", "persistent_workers")
# Two epochs within this fraction of the slower one count as "the same": the device does not matter.
SAME_WITHIN = 0.20
# Loading is "most of the epoch" from this share on.
MOSTLY = 0.5


def _num(row: dict[str, Any] | None, key: str) -> float | None:
    if not row:
        return None
    value = row.get(key)
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and value >= 0 else None


def loading_share(row: dict[str, Any] | None) -> float | None:
    """Loading's part of the two timed phases (None when the row has no phases)."""
    loading, compute = _num(row, "phase_loading_s"), _num(row, "phase_compute_s")
    if loading is None or compute is None or loading + compute <= 0:
        return None
    return loading / (loading + compute)


def epoch_gap(a_s: float, b_s: float) -> float:
    """How much shorter the faster epoch is, as a fraction of the slower one (0 = equal)."""
    slow, fast = max(a_s, b_s), min(a_s, b_s)
    return (slow - fast) / slow if slow > 0 else 0.0


def device_sentence(cpu: dict[str, Any] | None, gpu: dict[str, Any] | None, cpu_label: str, gpu_label: str,
                    source: str, *, within: float = SAME_WITHIN) -> str | None:
    """Does the device matter for one epoch of `source`? Both rows must come from one machine (the
    same host CPU decodes the images for both). None when either row was not measured."""
    if not (is_ok(cpu) and is_ok(gpu)):
        return None
    c, g = float(cpu["median_s"]), float(gpu["median_s"])
    gap = epoch_gap(c, g)
    spread = max(_num(cpu, "iqr_s") or 0.0, _num(gpu, "iqr_s") or 0.0)
    c_share, g_share = loading_share(cpu), loading_share(gpu)
    shares = ""
    if c_share is not None and g_share is not None:
        shares = (f"loading is {pct(c_share)} of the timed phases on **{cpu_label}** and {pct(g_share)} on "
                  f"**{gpu_label}**")
    times = f"{fmt_s(c)} per epoch on the CPU, {fmt_s(g)} on the GPU"
    if gap < within or abs(c - g) <= spread:
        how = ("by under 1%" if gap < 0.01 else f"by only {pct(gap)}" if gap < within
               else f"by {pct(gap)}, less than the spread of the repeats (IQR up to {fmt_s(spread)})")
        if shares and min(c_share, g_share) >= MOSTLY:
            return (f"With the {source}, **the device does not matter**: {shares}, and the two epochs differ {how} "
                    f"({times}).")
        return (f"With the {source}, the two epochs differ {how} ({times}){'; ' + shares if shares else ''}: "
                "**the device does not matter** here.")
    faster = "GPU" if g < c else "CPU"
    ratio = max(c, g) / min(c, g)
    text = f"With the {source}, **the device matters**: the {faster}'s epoch is {fmt_ratio(ratio)} as fast ({times})"
    cl, gl = _num(cpu, "phase_loading_s"), _num(gpu, "phase_loading_s")
    cc, gc = _num(cpu, "phase_compute_s"), _num(gpu, "phase_compute_s")
    if None not in (cl, gl, cc, gc):
        text += (f". Timed apart, loading took {fmt_s(cl)} on the CPU and {fmt_s(gl)} on the GPU, compute "
                 f"{fmt_s(cc)} and {fmt_s(gc)}")
        if shares:
            text += f" ({shares})"
    return text + "."


def ceiling_sentence(row: dict[str, Any] | None, label: str, source: str) -> str | None:
    """Without a GPU to compare: the most any faster device could save of this epoch (Amdahl).
    Loading alone (walking the batches without training) is a floor under the epoch whatever
    device trains; None when the row has no loading phase."""
    if not is_ok(row):
        return None
    epoch, loading = float(row["median_s"]), _num(row, "phase_loading_s")
    if loading is None:
        return None
    floor = min(loading, epoch)
    saved = 1 - floor / epoch
    share = loading_share(row)
    share_words = f"loading is {pct(share)} of the timed phases" if share is not None else ""
    text = (f"With the {source}, loading alone took {fmt_s(loading)} of the {fmt_s(epoch)} epoch on **{label}**"
            f"{' (' + share_words + ')' if share_words else ''}. ")
    if loading >= epoch:
        return text + ("Loading alone took as long as the whole epoch: a device that trained in no time at all "
                       "would save nothing measurable here, so **the device cannot matter**.")
    if saved < SAME_WITHIN:
        return text + (f"A device that trained in no time at all would still need about {fmt_s(floor)} per epoch, "
                       f"at most {pct(saved)} less: **here the device can hardly matter**.")
    return text + (f"A faster device could save up to {pct(saved)} of the epoch (everything but the loading), "
                   "so here **the device can matter**.")


def sweep_summary(rows: Sequence[dict[str, Any]], over: str, over_label: str, source: str, cpu_device: str,
                  gpu_device: str, *, within: float = SAME_WITHIN) -> str | None:
    """Across the points on screen: at how many do the two devices' epochs stay within `within`."""
    by_x: dict[Any, dict[str, float]] = {}
    for row in rows:
        if is_ok(row) and row.get("device") in (cpu_device, gpu_device) and row.get(over) is not None:
            by_x.setdefault(row[over], {})[row["device"]] = float(row["median_s"])
    both = sorted((x, d) for x, d in by_x.items() if len(d) == 2)
    if not both:
        return None
    same = [x for x, d in both if epoch_gap(d[cpu_device], d[gpu_device]) < within]
    gaps = [(x, d[gpu_device] / d[cpu_device]) for x, d in both]
    lo = min(gaps, key=lambda p: p[1])
    hi = max(gaps, key=lambda p: p[1])
    n = len(both)
    where = ""
    if same and len(same) < n:
        where = f" ({over_label} {', '.join(fmt_value(x) for x in same)})"
    count = ("at every one of the" if len(same) == n else "at none of the" if not same else f"at {len(same)} of the")
    if hi[1] / lo[1] < 1.05:
        span = f"GPU time ÷ CPU time stays at about {fmt_times(lo[1])}"
    else:
        span = (f"GPU time ÷ CPU time runs from {fmt_times(lo[1])} at {fmt_value(lo[0])} to {fmt_times(hi[1])} "
                f"at {fmt_value(hi[0])}")
    return (f"With the {source}, the CPU's and GPU's epochs are within {pct(within)} of each other {count} {n} "
            f"{over_label} values measured on both{where}; {span}.")


def phase_note(row: dict[str, Any] | None, label: str) -> str | None:
    """How the whole epoch compares with its two phases timed on their own (overlap or extra)."""
    if not is_ok(row):
        return None
    loading, compute = _num(row, "phase_loading_s"), _num(row, "phase_compute_s")
    if loading is None or compute is None:
        return None
    epoch = float(row["median_s"])
    parts = loading + compute
    if parts <= 0:
        return None
    if epoch < parts * 0.9:
        text = (f"{label}: the whole epoch ({fmt_s(epoch)}) took less than loading and compute timed apart "
                f"({fmt_s(parts)})")
        if int(row.get("num_workers") or 0) > 0 and row.get("source") == "images":
            return text + ": the worker processes decode the next batches while the main process trains."
        if str(row.get("device", "")).startswith("cuda"):
            return text + ": the GPU trains on one batch while the CPU prepares the next."
        return text + (": nothing runs in parallel here (no workers, no GPU), so the difference is the noise "
                       "between separately timed runs.")
    if epoch > parts * 1.1:
        return (f"{label}: the whole epoch ({fmt_s(epoch)}) took {fmt_s(epoch - parts)} more than loading and "
                f"compute timed apart ({fmt_s(parts)}): work that is in neither phase, such as adding up the "
                "epoch's loss.")
    return f"{label}: the whole epoch ({fmt_s(epoch)}) is about loading plus compute ({fmt_s(parts)})."


def live_rows(over: str, values: Sequence[Any], fixed_of: dict[str, dict[str, Any]], devices: Sequence[str], *,
              current: Any, point_budget_s: float, total_budget_s: float | None, num_threads: int | None,
              progress: Callable[[float, str], None] | None = None) -> list[dict[str, Any]]:
    """Live rows of the dataloader workload over `over` for each feed in `fixed_of` ({'images': {...},
    'tensors': {...}}), phases at `current`. Call it holding lib.core.measure_lock.MEASURE_LOCK (the heap is
    frozen meanwhile, so the collection after every point walks only the new objects)."""
    rows: list[dict[str, Any]] = []
    feeds = list(fixed_of)
    with frozen_heap():
        for i, feed in enumerate(feeds):
            def part(fraction: float, message: str, i: int = i, feed: str = feed) -> None:
                if progress:
                    progress((i + fraction) / len(feeds), f"{SOURCES.get(feed, feed)}: {message}")

            swept = live_sweep(WORKLOAD, over, values, fixed_of[feed], devices, current=current,
                               point_budget_s=point_budget_s, total_budget_s=total_budget_s,
                               num_threads=num_threads, profile_current=False, progress=part)
            rows += swept
    return rows


# -- the view on screen ------------------------------------------------------------------------------------
def axis_label(key: str) -> str:
    return AXES[key][0]


def feed_title(feed: str) -> str:
    """A feed's chart title: 'DataLoader over images', 'Tensors already on the device'."""
    words = SOURCES[feed]
    return words[0].upper() + words[1:]


@dataclass(frozen=True)
class View:
    """The page's settings: batch_size, dataset_size, model, num_workers, pin_memory; `over` is swept."""

    settings: Mapping[str, Any]
    over: str
    gpu_live: bool  # both devices are timed live here

    @property
    def current(self) -> Any:
        return self.settings[self.over]

    @property
    def at(self) -> str:
        """'batch size = 64': the point explained."""
        return f"{axis_label(self.over)} = {fmt_value(self.current)}"

    @property
    def grid(self) -> list[Any]:
        """The live points: a few spread over the axis, always with the slider's value."""
        return log_grid(AXES[self.over][1], n=POINTS, include=[self.current])

    def params(self) -> dict[str, dict[str, Any]]:
        """Each feed's settings. Pinned memory changes nothing without a GPU to copy to, so the CPU is
        measured without it; tensors never go through the DataLoader, so workers and pinning do not apply."""
        common = {k: self.settings[k] for k in ("batch_size", "dataset_size", "model")}
        return {"images": {**common, "source": "images", "num_workers": self.settings["num_workers"],
                           "pin_memory": self.settings["pin_memory"] if self.gpu_live else False},
                "tensors": {**common, "source": "tensors", "num_workers": 0, "pin_memory": False}}

    def fixed(self) -> dict[str, dict[str, Any]]:
        """Each feed's settings but the swept one."""
        return {feed: {k: v for k, v in p.items() if k != self.over} for feed, p in self.params().items()}


def settings_words(settings: Mapping[str, Any], skip: Iterable[str] = ()) -> str:
    """'Linear 784→10 (seed 001), dataset size 256, 2 workers, pinned memory off' (those not in `skip`)."""
    words = [MODELS.get(settings["model"], str(settings["model"]))] if "model" not in skip else []
    words += [f"{axis_label(k)} {fmt_value(settings[k])}" for k in AXES if k not in skip]
    if "num_workers" not in skip:
        words.append(plural(settings["num_workers"], "worker"))
    if "pin_memory" not in skip:
        words.append(f"pinned memory {fmt_value(bool(settings['pin_memory']))}")
    return ", ".join(words)


def live_request(view: View, devices: Sequence[str], *, point_budget_s: float, threads: int) -> dict[str, Any]:
    """Everything that changes the page's live measurement: its cache key."""
    return {"kind": "data_pipeline", "over": view.over, "values": view.grid, "fixed": view.fixed(),
            "devices": list(devices), "current": view.current, "point_budget_s": point_budget_s, "threads": threads}


def measure_label(view: View, devices: Sequence[str]) -> str:
    """What is being measured, for the progress bar and for visitors who wait for it."""
    return (f"data pipeline over {axis_label(view.over)} on {', '.join(devices)}; "
            + settings_words(view.params()["images"], skip=(view.over,)))


# -- the recorded side ---------------------------------------------------------------------------------
def find_recorded(packs: Sequence[dict[str, Any]], preferred: Iterable[str], view: View
                  ) -> tuple[dict[str, Any] | None, dict[str, list[dict[str, Any]]]]:
    """The pack whose CPU and GPU rows match this view (the sidebar's packs first, then any), and its
    rows per feed: the CPU and the first GPU of that one machine. Nothing when the GPU is live."""
    empty: dict[str, list[dict[str, Any]]] = {feed: [] for feed in SOURCES}
    if view.gpu_live:
        return None, empty
    preferred = set(preferred)
    params = view.params()
    for pack in sorted(packs, key=lambda p: 0 if p["path"] in preferred else 1):
        found = {feed: matching_rows(pack["rows"], WORKLOAD, view.over, params[feed], device_prefix="c")
                 for feed in SOURCES}
        if any(is_cuda(str(r["device"])) for rows in found.values() for r in rows):
            return pack, {feed: cpu_and_first_gpu(rows) for feed, rows in found.items()}
    return None, empty


def cpu_and_first_gpu(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    gpus = sorted({r["device"] for r in rows if is_cuda(str(r["device"]))})
    return [r for r in rows if r["device"] == "cpu" or (gpus and r["device"] == gpus[0])]


def elsewhere_sentence(source: GpuSource, pack: Mapping[str, Any] | None) -> str | None:
    """When the recorded side comes from another machine than the one chosen in the sidebar, saying so."""
    return onscreen.elsewhere_sentence(source, pack, "no data-pipeline rows for this view")


def has_recorded_sweeps(packs: Iterable[Mapping[str, Any]]) -> bool:
    """Whether any pack holds a recorded data-pipeline sweep (a seeds pack's single rows do not count)."""
    return any(r.get("workload") == WORKLOAD.name and r.get("swept") for p in packs for r in p["rows"])


# -- the rows on screen --------------------------------------------------------------------------------
@dataclass
class Screen:
    """The rows on screen per feed ('images', 'tensors'), each labelled with its series."""

    view: View
    rows_of: dict[str, list[dict[str, Any]]]
    pack: dict[str, Any] | None  # the recorded pack shown, if any
    recorded: dict[str, list[dict[str, Any]]]  # its rows per feed, unlabelled (for downloads)

    @property
    def rows(self) -> list[dict[str, Any]]:
        return [r for feed in SOURCES for r in self.rows_of[feed]]

    @property
    def missing(self) -> list[str]:
        """The feeds with no recorded GPU side (none when the GPU is live here)."""
        return [] if self.view.gpu_live else [feed for feed in SOURCES if not self.recorded[feed]]

    def recorded_rows(self) -> list[dict[str, Any]]:
        return [r for feed in SOURCES for r in self.recorded[feed]]

    def here(self, feed: str) -> list[dict[str, Any]]:
        """The feed's rows at the point explained."""
        return rows_at(self.rows_of[feed], self.view.over, self.view.current)

    def at_point(self, feed: str, series: str = onscreen.LIVE_CPU) -> dict[str, Any] | None:
        return next((r for r in self.here(feed) if r["series"] == series), None)

    def pair(self, feed: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """CPU and GPU rows of ONE machine at the point explained (the same host CPU feeds both devices):
        both live on a GPU server, else both recorded."""
        here = [r for r in self.here(feed) if self.view.gpu_live or "recorded" in r["series"]]
        return (next((r for r in here if r["device"] == "cpu"), None),
                next((r for r in here if r["device"] != "cpu"), None))


def screen(view: View, live: Sequence[dict[str, Any]], pack: dict[str, Any] | None,
           recorded: dict[str, list[dict[str, Any]]]) -> Screen:
    machine = machine_text(pack["machine"]) if pack else None
    rows_of = {feed: onscreen.labelled([r for r in live if r.get("source") == feed], recorded[feed], (), machine)
               for feed in SOURCES}
    return Screen(view, rows_of, pack, recorded)


# -- words ---------------------------------------------------------------------------------------------------
def device_words(on: Screen) -> tuple[list[str], bool]:
    """Per feed, does the device matter at the point explained: from both devices of one machine, else
    what any device could save of the live CPU's epoch. Also whether a two-device comparison was said."""
    out, compared = [], False
    for feed, words in SOURCES.items():
        cpu, gpu = on.pair(feed)
        sentence = device_sentence(cpu, gpu, cpu["series"] if cpu else "", gpu["series"] if gpu else "", words)
        compared = compared or sentence is not None
        row = on.at_point(feed)
        sentence = sentence or ceiling_sentence(row, onscreen.LIVE_CPU, words)
        if not sentence:
            why = (row.get("message") or onscreen.STATUS_WORDS.get(row.get("status"), row.get("status"))
                   if row else "nothing was measured there")
            sentence = f"With the {words}, the CPU was not measured at {on.view.at}: {why}."
        out.append(sentence)
    return out, compared


def feed_sentence(on: Screen) -> str | None:
    """On the live CPU: an epoch over images against one over tensors, same model, same numbers."""
    images, tensors = on.at_point("images"), on.at_point("tensors")
    if not (is_ok(images) and is_ok(tensors)):
        return None
    a, b, who = images["median_s"], tensors["median_s"], onscreen.LIVE_CPU
    if a >= b:
        return (f"On **{who}**, an epoch over images takes {fmt_ratio(a / b)} as long as one over tensors "
                f"already in memory ({fmt_s(a)} against {fmt_s(b)}): same model, same numbers, only the feed differs.")
    return (f"On **{who}**, an epoch over images ({fmt_s(a)}) is no slower than one over tensors ({fmt_s(b)}) at "
            "these settings.")


def machines_sentence(on: Screen) -> str | None:
    """This server's CPU against the recording machine's, over images; and whether loading paces the GPU there."""
    if not on.pack or on.view.gpu_live:
        return None
    here, (cpu, gpu) = on.at_point("images"), on.pair("images")
    if not (is_ok(here) and is_ok(cpu)):
        return None
    ratio = here["median_s"] / cpu["median_s"]
    how = f"{fmt_ratio(ratio)} as long" if ratio >= 1 else f"{fmt_ratio(1 / ratio)} as fast"
    share = loading_share(gpu)
    paced = (f" Loading is {pct(share)} of the timed phases on the recorded GPU too: with images, the CPU that "
             "decodes them sets the GPU's pace." if share is not None and share >= MOSTLY else "")
    return (f"This server's CPU takes {fmt_s(here['median_s'])} for the same epoch over images that the recording "
            f"machine's CPU took {fmt_s(cpu['median_s'])} for ({how}).{paced}")


def summaries(on: Screen) -> list[str]:
    """Per feed, across the points on screen: where the two devices of one machine stay within SAME_WITHIN."""
    out = []
    for feed, words in SOURCES.items():
        cpu, gpu = on.pair(feed)
        if cpu and gpu:
            rows = [r for r in on.rows_of[feed] if r["series"] in (cpu["series"], gpu["series"])]
            text = sweep_summary(rows, on.view.over, axis_label(on.view.over), words, cpu["device"], gpu["device"])
            if text:
                out.append(text)
    return out


def missing_note(on: Screen, packs: Sequence[Mapping[str, Any]]) -> str | None:
    """Why part of the view shows only the live CPU: no recorded sweeps at all, or none for these settings."""
    if on.view.gpu_live:
        return None
    if not has_recorded_sweeps(packs):
        return ("No GPU on this server and no recorded data-pipeline results shipped, so only the live CPU is "
                "shown. What the CPU's own numbers already say: the loading part of an epoch is a floor that "
                "no faster device can lower.")
    missing = on.missing
    if not missing:
        return None
    settings, over = on.view.settings, on.view.over
    skip = (over,) if "images" in missing else (over, "num_workers", "pin_memory")
    what = " or ".join(f"the {SOURCES[feed]}" for feed in missing)
    part = "that part shows" if len(missing) < len(SOURCES) else "this view shows"
    return (f"The recorded packs have no sweep over {axis_label(over)} for {what} with these settings "
            f"({settings_words(settings, skip=skip)}), so {part} only the live CPU.")


def showable(group: Mapping[str, Any]) -> bool:
    """Whether the page's widgets can show a recorded sweep (an images sweep at settings they offer)."""
    p = group["params"]
    return (group["over"] in AXES and p.get("source") == "images" and p.get("model") in MODELS
            and p.get("num_workers") in WORKERS and all(p.get(k) in AXES[k][1] for k in AXES)
            and all(p.get(k) == WORKLOAD.setting(k).default for k in NOT_ON_PAGE))


def recorded_offers(packs: Iterable[Mapping[str, Any]], view: View) -> list[tuple[str, dict[str, Any]]]:
    """Buttons for recorded sweeps the page can show instead: (label, the widgets' values). The slider
    of the swept setting keeps its value; the view on screen is not offered."""
    now = {"over": view.over, **{k: view.settings[k] for k in ("model", "num_workers", "pin_memory", *AXES)}}
    offers: list[tuple[str, dict[str, Any]]] = []
    for pack in packs:
        for group in filter(showable, recorded_groups(pack["rows"], WORKLOAD)):
            p, over = group["params"], group["over"]
            query = {"over": over, "model": p["model"], "num_workers": p["num_workers"],
                     "pin_memory": p["pin_memory"], **{k: view.settings[k] if k == over else p[k] for k in AXES}}
            if query != now and all(query != q for _, q in offers):
                text = settings_words(query, skip=(over, "model", "num_workers", "pin_memory"))
                offers.append((f"Show the sweep over {axis_label(over)} ({text}; {MODELS[query['model']]}; "
                               f"{plural(query['num_workers'], 'worker')}; pinned memory "
                               f"{fmt_value(bool(query['pin_memory']))})", query))
    return offers


def phase_bars(on: Screen) -> list[dict[str, Any]]:
    """The phase chart's bars at the point explained: each timed row with phases, its series prefixed by its feed."""
    return [{**r, "series": f"{feed} · {r['series']}"} for feed in SOURCES for r in on.here(feed)
            if is_ok(r) and r.get("phase_loading_s") is not None]


def phase_notes(bars: Iterable[dict[str, Any]]) -> list[str]:
    return [n for n in (phase_note(r, r["series"]) for r in bars) if n]


def point_where(over: str) -> Callable[[dict[str, Any]], str]:
    """Where a point sits, for its note: 'cpu (live, this server), DataLoader over images, batch size 8'."""
    def where(row: dict[str, Any]) -> str:
        feed = SOURCES.get(str(row.get("source")), str(row.get("source")))
        return f"{row['series']}, {feed}, {axis_label(over)} {fmt_value(row.get(over))}"
    return where


def record_commands(view: View) -> list[str]:
    """The CLI sweeps that record this view on a GPU machine, one per feed, the CPU and the GPU each."""
    out = []
    values = ",".join(str(v) for v in AXES[view.over][1])
    for feed, params in view.params().items():
        fixed = {**params, "pin_memory": bool(view.settings["pin_memory"]) and feed == "images"}
        sets = " ".join(f"--set {k}={onscreen.cli_value(v)}" for k, v in fixed.items() if k != view.over)
        out.append(f"python -m lib sweep dataloader --over {view.over}={values} {sets} --devices cpu,cuda "
                   f"--out lib/recorded/dataloader_{feed}_{view.over}.json")
    return out
