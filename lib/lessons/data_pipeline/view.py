"""The Data pipeline lesson's numbers and sentences (seeds 000 and 001), read from points (lib.core.point).

Points are the dataloader workload's (lib/workloads/dataloader.py): one call is one epoch, and the
point the page explains carries the phases `loading` (walking the DataLoader and copying each batch
to the device, no training) and `compute` (training on the same batches already on the device). No
Streamlit here; every number in a sentence comes from a point passed in.

    share = loading_share(point)                          # loading / (loading + compute)
    device_sentence(cpu, gpu, "cpu …", "cuda:0 …", "DataLoader over images")
    ceiling_sentence(cpu, "cpu …", "DataLoader over images")   # without a GPU: what a device could save
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

from lib.core import noise
from lib.core.crossover import spread
from lib.core.devices import is_cuda
from lib.core.fmt import fmt_s, fmt_times, fmt_value, pct, plural
from lib.core.point import Frozen, Point
from lib.core.same import Sameness, rows_sameness, same_time
from lib.lessons.common import voice
from lib.lessons.common.live import LiveBudget, LiveSweep, live_sweep
from lib.recorded.recording import Recording
from lib.workloads import get_workload
from lib.workloads.family import Axis

# each name on one line of the legend (lib.charts.theme.LEGEND_LINE_CHARS): two columns of them stay in an
# 800 × 600 frame
PHASES = {
    "phase_loading_s": "loading (decode, batch, copy in)",
    "phase_compute_s": "compute (forward, backward, step)",
    "phase_rest_s": "the rest (not timed apart)",
}
# the tick on each phase bar: the epoch the words quote, timed as one (its phases, timed apart, may overlap in it)
WHOLE_EPOCH = "the whole epoch, timed as one"
SOURCES = {"images": "DataLoader over images", "tensors": "tensors already on the device"}
WORKLOAD = get_workload("dataloader")
MODELS = {"linear": "Linear 784→10 (seed 001)", "mlp": "MLP 784-400-200-100-10 (seed 000)"}
# The settings a visitor sweeps, each a slider (Training's typed Axis); their defaults are Settings'
AXES = {
    "batch_size": Axis(
        "batch size",
        (8, 16, 32, 64, 128, 256, 512),
        "Rows per optimizer step: fewer, larger batches mean fewer steps in an epoch.",
    ),
    "dataset_size": Axis(
        "dataset size",
        (256, 512, 1024, 2048),
        "Rows in one epoch; every one of them is decoded once per epoch when the source is images.",
    ),
}
WORKERS = (0, 1, 2, 4)
DEFAULT_OVER = "batch_size"


@dataclass(frozen=True)
class Settings:
    """The page's settings, each named as the dataloader workload names it; the defaults are the page's first
    view (seed 001's linear model, no workers, no pinned memory)."""

    batch_size: int = 64
    dataset_size: int = 256
    model: str = "linear"
    num_workers: int = 0
    pin_memory: bool = False

    def value(self, key: str) -> Any:
        """A setting by its workload name: an axis's key ('batch_size') or 'model', 'num_workers', 'pin_memory'."""
        if key not in SETTING_NAMES:
            raise KeyError(key)
        return getattr(self, key)


@dataclass(frozen=True)
class FeedSettings:
    """One feed's settings: the page's settings, with the data fed from `feed` ('images', 'tensors')."""

    feed: str
    settings: Settings

    def workload_settings(self, skip: str | None = None) -> Frozen:
        """The dataloader workload's settings as the sweep and the recorded rows name them, less `skip` (the
        swept one)."""
        s = self.settings
        named = (
            ("batch_size", s.batch_size),
            ("dataset_size", s.dataset_size),
            ("model", s.model),
            ("source", self.feed),
            ("num_workers", s.num_workers),
            ("pin_memory", s.pin_memory),
        )
        return Frozen((k, v) for k, v in named if k != skip)


SETTING_NAMES = tuple(f.name for f in fields(Settings))
DEFAULTS = Settings()
POINTS = 3  # live points per sweep: a small server times three epochs' worth per feed
# Settings the page does not offer: a recorded sweep it can show leaves them at the workload's defaults.
NOT_ON_PAGE = ("data", "normalize", "optimizer", "lr", "shuffle", "seed", "persistent_workers")
# Loading is "most of the epoch" from this share on.
MOSTLY = 0.5


def worker_choices(cores: int, recorded: Iterable[int] = ()) -> list[int]:
    """The workers the slider offers: what this server can run live (no more DataLoader workers than
    cores: PyTorch warns that more may freeze it), plus counts a recording holds (shown from it only)."""
    shown = set(recorded)
    return [w for w in WORKERS if w <= cores or w in shown]


def recorded_workers(recordings: Iterable[Recording]) -> set[int]:
    """The worker counts the recordings' GPU points of this lesson were recorded with."""
    return {
        p.settings["num_workers"]
        for r in recordings
        for p in r.points
        if p.workload == WORKLOAD.name and is_cuda(p.device) and isinstance(p.settings.get("num_workers"), int)
    }


def workers_caption(cores: int, choices: Sequence[int]) -> str:
    """What the workers slider offers on this server, and why."""
    recorded = [w for w in choices if w > cores]
    text = (
        f"This server has {plural(cores, 'CPU core')}, so it runs at most "
        f"{plural(min(cores, max(WORKERS)), 'worker')} live"
    )
    if recorded:
        text += f"; {' and '.join(map(str, recorded))} workers are shown from a GPU machine's recording only"
    return text + "."


def workers_note(workers: int, cores: int) -> str | None:
    """Why a worker count is not run live here (more workers than this server's cores), or None."""
    if workers <= cores:
        return None
    return (
        f"This server has {plural(cores, 'CPU core')}, so it does not run {plural(workers, 'worker')} live "
        "(PyTorch warns that more DataLoader workers than cores may freeze it): the numbers with "
        f"{plural(workers, 'worker')} are the ones recorded on a GPU machine, where they were recorded."
    )


def _phase(point: Point | None, name: str) -> float | None:
    """A phase's seconds ('loading', 'compute'), None where the point holds no usable number."""
    if point is None:
        return None
    try:
        value = float(point.phases.get(name))
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and value >= 0 else None


def _ok(point: Point | None) -> bool:
    return point is not None and point.ok


class DeviceVerdict(Enum):
    """What one machine's CPU and GPU epochs allow a sentence to say about the device."""

    SAME = "same"  # the same epoch (lib.core.same, believed points): the device does not matter
    TOO_NOISY = "too noisy"  # a tie only because a point is too noisy: the data cannot tell
    LOADING = "loading"  # the epochs differ, but in loading: the host's work in both runs
    NOT_COMPUTE = "not compute"  # the epochs differ by more than the devices' own compute could make
    DEVICE = "device"  # the epochs differ, and the devices' compute can make the gap


# The loading phase makes the gap between two epochs when it holds this much of it: a device can only claim
# what its own compute saves, and loading is the host's work in both runs (an epoch nearly 2× as fast only
# because its loading was, the GPU's own compute the slower, is no win for the GPU).
LOADING_GAP = 0.8
# The device can claim a gap only where its compute could make at least this share of it: the slower device's
# compute, timed apart, is the most a faster one could save (hidden behind loading or done in no time). An epoch
# 31.6 ms shorter on the GPU, where the CPU's own compute was 1.15 ms, is not the device's doing.
DEVICE_SHARE = 0.5


def device_verdict(cpu: Point, gpu: Point) -> DeviceVerdict:
    """The CPU's and the GPU's epoch of one machine: the same, too noisy to tell, or apart, and if apart whether
    the device's own compute (timed apart) could make the gap. Points without phases are judged on their epochs."""
    match rows_sameness(cpu.to_row(), gpu.to_row()):
        case Sameness.SAME:
            return DeviceVerdict.SAME
        case Sameness.TOO_NOISY:
            return DeviceVerdict.TOO_NOISY
    gap = float(cpu.median_s) - float(gpu.median_s)  # > 0: the GPU's epoch is the shorter
    cl, gl = _phase(cpu, "loading"), _phase(gpu, "loading")
    if gap and cl is not None and gl is not None and (cl - gl) / gap >= LOADING_GAP:
        return DeviceVerdict.LOADING
    slower_compute = _phase(cpu if gap > 0 else gpu, "compute")
    if slower_compute is not None and slower_compute < DEVICE_SHARE * abs(gap):
        return DeviceVerdict.NOT_COMPUTE
    return DeviceVerdict.DEVICE


def noisy_words(cpu: Point, gpu: Point) -> str:
    """Which of two points is too noisy, and by how much ('the CPU's repeats spread over 289% of its epoch')."""
    parts = [
        f"the {who}'s repeats spread over {pct(iqr / t)} of its epoch"
        for who, p in (("CPU", cpu), ("GPU", gpu))
        if (t := float(p.median_s)) > 0 and noise.is_noisy(t, iqr := spread(p.to_row()))
    ]
    return " and ".join(parts) or "a point is too noisy to trust"


def phases_s(point: Point | None) -> float | None:
    """Loading plus compute, each timed on its own (None when the point has no phases)."""
    loading, compute = _phase(point, "loading"), _phase(point, "compute")
    return None if loading is None or compute is None else loading + compute


def loading_share(point: Point | None) -> float | None:
    """Loading's part of the two timed phases (None when the point has no phases)."""
    parts = phases_s(point)
    return _phase(point, "loading") / parts if parts else None


def rest_s(point: Point | None) -> float | None:
    """The part of the epoch in neither timed phase, never timed apart (so never given a cause): the
    epoch less loading and compute, None when the phases are missing or overlap (workers, a GPU)."""
    parts = phases_s(point) if _ok(point) else None
    if parts is None:
        return None
    rest = float(point.median_s) - parts
    return rest if rest > 0 else None


@dataclass(frozen=True)
class PhaseBar:
    """One bar of the phase chart: a timed point's epoch split into loading, compute and the rest; `series` names
    its feed and its series ('images · cpu (live, this server)')."""

    series: str
    point: Point

    def chart_row(self) -> dict[str, Any]:
        """The bar as the phase chart's row (Altair's edge): the point under its series, with `phase_rest_s` so
        that loading + compute + the rest ends at the epoch its words name (loading and compute alone ended short)."""
        return {**self.point.to_row(), "series": self.series, "phase_rest_s": rest_s(self.point)}


def device_saving(point: Point) -> float:
    """The most of one epoch a device that trained in no time at all could save: its compute, no more than
    what is not loading (loading is a floor whatever trains, and so is the rest of the epoch, which is
    no training: counting it as the device's time made 'save at most 62%' of an epoch mostly outside its timed phases)."""
    epoch, loading = float(point.median_s), _phase(point, "loading") or 0.0
    beyond_loading = max(0.0, epoch - loading)
    compute = _phase(point, "compute")
    return (min(compute, beyond_loading) if compute is not None else beyond_loading) / epoch if epoch > 0 else 0.0


def epoch_gap(a_s: float, b_s: float) -> float:
    """How much shorter the faster epoch is, as a fraction of the slower one (0 = equal)."""
    slow, fast = max(a_s, b_s), min(a_s, b_s)
    return (slow - fast) / slow if slow > 0 else 0.0


def device_sentence(cpu: Point | None, gpu: Point | None, cpu_label: str, gpu_label: str, source: str) -> str | None:
    """Does the device matter for one epoch of `source`? Both points must come from one machine (the
    same host CPU decodes the images for both). None when either point was not measured. The same
    epoch by the one rule (lib.core.same, each point's own spread), never a threshold of this page's."""
    if not (_ok(cpu) and _ok(gpu)):
        return None
    c, g = float(cpu.median_s), float(gpu.median_s)
    gap = epoch_gap(c, g)
    c_share, g_share = loading_share(cpu), loading_share(gpu)
    shares = ""
    if c_share is not None and g_share is not None:
        shares = (
            f"loading is {pct(c_share)} of the timed phases on **{cpu_label}** and {pct(g_share)} on **{gpu_label}**"
        )
    times = f"{fmt_s(c)} per epoch on the CPU, {fmt_s(g)} on the GPU"
    verdict = device_verdict(cpu, gpu)
    if verdict is DeviceVerdict.SAME:
        how = (
            "by under 1%"
            if gap < 0.01
            else f"by only {pct(gap)}"
            if same_time(c, g)
            else f"by {pct(gap)}, within the spread of the repeats (the error bars)"
        )
        if shares and min(c_share, g_share) >= MOSTLY:
            return (
                f"With the {source}, **the device does not matter**: {shares}, and the two epochs differ {how} "
                f"({times})."
            )
        return (
            f"With the {source}, the two epochs differ {how} ({times}){'; ' + shares if shares else ''}: "
            "**the device does not matter** here."
        )
    if verdict is DeviceVerdict.TOO_NOISY:
        return (
            f"With the {source}, the repeats are **too noisy to say whether the device matters** ({times}): "
            f"{noisy_words(cpu, gpu)}."
        )
    cl, gl = _phase(cpu, "loading"), _phase(gpu, "loading")
    cc, gc = _phase(cpu, "compute"), _phase(gpu, "compute")
    apart = (
        f". Timed apart, loading took {fmt_s(cl)} on the CPU and {fmt_s(gl)} on the GPU, compute "
        f"{fmt_s(cc)} and {fmt_s(gc)}"
        if None not in (cl, gl, cc, gc)
        else ""
    )
    if verdict is DeviceVerdict.LOADING:
        return (
            f"With the {source}, the epochs differ ({times}), **but in loading**, the host's work in both runs, "
            f"not the device's{apart}."
        )
    lead = voice.lead_words(voice.versus(voice.CPU, c, voice.GPU, g), "epoch")  # the CPU takes an exact tie
    if verdict is DeviceVerdict.NOT_COMPUTE:
        return (
            f"With the {source}, {lead} ({times}), **but not through faster compute**: the devices' own compute "
            f"is too short to make that gap{apart}. The rest lies in loading or in work timed only as part of "
            "the whole epoch."
        )
    text = f"With the {source}, **the device matters**: {lead} ({times}){apart}"
    if apart and shares:
        text += f" ({shares})"
    return text + "."


def ceiling_sentence(point: Point | None, label: str, source: str) -> str | None:
    """Without a GPU to compare: the most any faster device could save of this epoch (Amdahl).
    Loading alone (walking the batches without training) is a floor under the epoch whatever
    device trains; None when the point has no loading phase."""
    if not _ok(point):
        return None
    epoch, loading = float(point.median_s), _phase(point, "loading")
    if loading is None:
        return None
    saved = device_saving(point)
    floor = epoch * (1 - saved)
    share = loading_share(point)
    share_words = f"loading is {pct(share)} of the timed phases" if share is not None else ""
    text = (
        f"With the {source}, loading alone took {fmt_s(loading)} of the {fmt_s(epoch)} epoch on **{label}**"
        f"{' (' + share_words + ')' if share_words else ''}. "
    )
    if loading >= epoch:
        return text + (
            "Loading alone took as long as the whole epoch: a device that trained in no time at all "
            "would save nothing measurable here, so **the device cannot matter**."
        )
    if same_time(epoch, floor, float(point.iqr_s or 0.0)):  # no device could make it a different time
        return text + (
            f"A device that trained in no time at all would still need about {fmt_s(floor)} per epoch, "
            f"at most {pct(saved)} less: **here the device can hardly matter**."
        )
    rest = rest_s(point)
    stays = "the loading and the rest of the epoch stay" if rest else "the loading stays"
    return text + (
        f"A faster device could save up to {pct(saved)} of the epoch (its compute; {stays}), "
        "so here **the device can matter**."
    )


def sweep_summary(
    points: Sequence[Point], over: str, over_label: str, source: str, cpu_device: str, gpu_device: str
) -> str | None:
    """Across the points on screen: at how many are the two devices' epochs the same (lib.core.same)."""

    def timed(device: str) -> dict[Any, Point]:  # the device's points by their x (the last one kept)
        return {
            p.settings.get(over): p for p in points if p.ok and p.device == device and p.settings.get(over) is not None
        }

    cpus, gpus = timed(cpu_device), timed(gpu_device)
    both = sorted(((x, (cpus[x], gpus[x])) for x in cpus if x in gpus), key=lambda p: p[0])
    if not both:
        return None
    said = {x: rows_sameness(cpu.to_row(), gpu.to_row()) for x, (cpu, gpu) in both}
    same = [x for x, _ in both if said[x] is Sameness.SAME]
    noisy = [x for x, _ in both if said[x] is Sameness.TOO_NOISY]
    gaps = [(x, float(gpu.median_s) / float(cpu.median_s)) for x, (cpu, gpu) in both]
    lo = min(gaps, key=lambda p: p[1])
    hi = max(gaps, key=lambda p: p[1])
    n = len(both)
    where = ""
    if same and len(same) < n:
        where = f" ({over_label} {', '.join(fmt_value(x) for x in same)})"
    count = "at every one of the" if len(same) == n else "at none of the" if not same else f"at {len(same)} of the"
    if same_time(lo[1], hi[1]):
        span = f"GPU time ÷ CPU time stays at about {fmt_times(lo[1])}"
    else:
        span = (
            f"GPU time ÷ CPU time runs from {fmt_times(lo[1])} at {fmt_value(lo[0])} to {fmt_times(hi[1])} "
            f"at {fmt_value(hi[0])}"
        )
    unsure = (
        f"; too noisy to say at {over_label} {', '.join(fmt_value(x) for x in noisy)}" if noisy else ""
    )  # a tie only on a noisy point is not 'the same'
    return (
        f"With the {source}, the CPU's and GPU's epochs count as the same {count} {n} "
        f"{over_label} values measured on both{where}{unsure}; {span}."
    )


def phase_note(point: Point | None, label: str) -> str | None:
    """How the whole epoch compares with its two phases timed on their own (overlap or extra)."""
    parts = phases_s(point) if _ok(point) else None
    if parts is None:
        return None
    epoch = float(point.median_s)
    if parts <= 0:
        return None
    if epoch < parts * 0.9:
        text = (
            f"{label}: the whole epoch ({fmt_s(epoch)}) took less than loading and compute timed apart ({fmt_s(parts)})"
        )
        if int(point.settings.get("num_workers") or 0) > 0 and point.settings.get("source") == "images":
            return text + ": the worker processes decode the next batches while the main process trains."
        if point.device.startswith("cuda"):
            return text + ": the GPU trains on one batch while the CPU prepares the next."
        return text + (
            ": nothing runs in parallel here (no workers, no GPU), so the difference is the noise "
            "between separately timed runs."
        )
    if epoch > parts * 1.1:
        # the two phases and the epoch are separate runs: what the difference is was not measured, so it is
        # called unexplained, never given a cause
        return (
            f"{label}: the whole epoch ({fmt_s(epoch)}) took {fmt_s(epoch - parts)} more than loading and "
            f"compute timed apart ({fmt_s(parts)}). That difference is unexplained: the whole epoch and its "
            "two phases were timed as separate runs, and no part of it was measured apart."
        )
    return f"{label}: the whole epoch ({fmt_s(epoch)}) is about loading plus compute ({fmt_s(parts)})."


def overlap_caption(bars: Sequence[PhaseBar]) -> str | None:
    """Under the phase chart, when a bar runs past its tick (the whole epoch the answer quotes): why a bar of
    loading and compute, each timed on its own, can be longer than the epoch. None when no bar does."""
    past = [b for b in bars if b.point.ok and (phases_s(b.point) or 0.0) > float(b.point.median_s)]
    if not past:
        return None
    # the bars well past their tick say by how much and why (phase_note's overlap case), not noise-sized ones
    notes = [phase_note(b.point, b.series) for b in past if float(b.point.median_s) < 0.9 * (phases_s(b.point) or 0.0)]
    return (
        "The dark tick on each bar is its whole epoch, timed as one; a bar runs past it where loading "
        "and compute, each timed on its own, overlap in the epoch. " + " ".join(n for n in notes if n)
    ).strip()


def live_points(
    over: str,
    values: Sequence[Any],
    feeds: Sequence[FeedSettings],
    devices: Sequence[str],
    *,
    current: Any,
    budget: LiveBudget,
    progress: Callable[[float, str], None] | None = None,
) -> list[Point]:
    """Live points of the dataloader workload over `over` for each of `feeds`, phases at `current`."""
    points: list[Point] = []
    for i, fed in enumerate(feeds):

        def part(fraction: float, message: str, i: int = i, feed: str = fed.feed) -> None:
            if progress:
                progress((i + fraction) / len(feeds), f"{SOURCES.get(feed, feed)}: {message}")

        fixed = fed.workload_settings(skip=over)
        points += live_sweep(
            LiveSweep(WORKLOAD, over, values, fixed, devices, current=current, profile_current=False),
            budget,
            progress=part,
        )
    return points


# -- the view on screen ------------------------------------------------------------------------------------


# -- the recorded side ---------------------------------------------------------------------------------


# -- the rows on screen --------------------------------------------------------------------------------


# -- words ---------------------------------------------------------------------------------------------------
