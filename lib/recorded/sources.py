"""Where a page's GPU side comes from, and which recorded rows match the view on screen.

    sources = recorded_sources(recordings, live_device=None)   # each recorded GPU machine (a live GPU first)
    recording = source_recording(source, recordings)   # all of one machine's packs as one Recording (Points)
    rows = matching_rows(recording.pack["rows"], workload, "batch_size", settings)   # the sweep through this view

Lessons take Recordings (lib.recorded.load_recordings, recorded_sources, source_recording,
small_server_recording). The functions that take a pack dict (a Recording's `pack`) and hand out rows are
the adapter for the lessons that still read rows.

A source is one machine: every pack recorded on it (one pack per topic). Series labels, used as
chart legends, always say where a curve came from: 'cpu (live, this server)',
'cuda:0 (recorded on NVIDIA H200, 2026-11-23)'. Pure functions of the packs: no Streamlit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from lib.core.cache import kept
from lib.core.devices import is_cuda
from lib.core.fmt import and_list, plural
from lib.core.load import pack_quiet
from lib.core.point import OtherRecording, Point
from lib.core.rows import Origin, is_ok
from lib.core.workload import SettingError, SettingValue, Workload
from lib.recorded.pack import Fingerprint
from lib.recorded.recording import Recording
from lib.recorded.uploads import plain
from lib.workloads import WORKLOADS


@dataclass(frozen=True)
class GpuSource:
    """Live on this server, or one recorded GPU machine and all its packs."""

    kind: Origin | None  # live on this server, recorded, or None: no GPU side ('live', 'recorded', 'none' in)
    key: str  # its value in the URL: 'live', a slug of the machine ('nvidia-h200'), or 'none'
    label: str  # for people: 'live on this server', 'NVIDIA H200, 2026-11-23'
    device: str | None = None  # the live GPU ('cuda:0') when it is live
    pack_paths: tuple[str, ...] = ()
    gpus: int = 1  # how many GPUs the machine has

    def __post_init__(self) -> None:
        kind = None if self.kind in (None, "none") else Origin(self.kind)
        object.__setattr__(self, "kind", kind)

    @property
    def live(self) -> bool:
        return self.kind == Origin.LIVE

    @property
    def recorded(self) -> bool:
        return self.kind == Origin.RECORDED

    @property
    def files(self) -> str:
        return ", ".join(Path(p).name for p in self.pack_paths)


NO_GPU = GpuSource(None, "none", "no GPU results")


def _fingerprint(machine: Fingerprint | Mapping[str, Any]) -> Fingerprint:
    """A Recording's machine as it is; a pack dict's (the row adapters') typed."""
    return machine if isinstance(machine, Fingerprint) else Fingerprint.from_json(machine)


def machine_text(machine: Fingerprint | Mapping[str, Any]) -> str:
    """'NVIDIA H200, 2026-11-20' (or '2 × NVIDIA H200, ...') from a pack's machine fingerprint."""
    machine = _fingerprint(machine)
    hardware = hardware_text(machine)
    return f"{hardware}, {machine.date[:10]}" if machine.date else hardware


def hardware_text(machine: Fingerprint | Mapping[str, Any]) -> str:
    """'NVIDIA H200' or '4 × NVIDIA H200' (the CPU model when there is no GPU)."""
    machine = _fingerprint(machine)
    gpus = machine.gpus
    names = [f"{gpus.count(n)} × {n}" if gpus.count(n) > 1 else n for n in dict.fromkeys(gpus)]
    return ", ".join(names) or machine.label or machine.text("cpu_model") or "unknown machine"


def cpu_text(machine: Fingerprint | Mapping[str, Any]) -> str:
    """'AMD EPYC 9454, 48 threads': the CPU a pack's CPU rows ran on, and the threads PyTorch used."""
    machine = _fingerprint(machine)
    threads = machine.torch_threads
    count = "? threads" if threads is None else plural(threads, "thread")
    return f"{machine.text('cpu_model') or '?'}, {count}"


class SeriesName(str):
    """A curve's legend name that knows what it names. The text is for the legend only; code reads
    the typed fields (device, origin, machine) and never parses the text back. A str, so it goes
    into rows, DataFrames and Altair as the legend string it is."""

    device: str
    origin: Origin
    machine: str | None

    def __new__(cls, device: str, origin: Origin | str, machine: str | None = None) -> SeriesName:
        origin = Origin(origin)
        if origin == Origin.LIVE:
            text = f"{device} (live, this server)"
        else:
            text = f"{device} (recorded on {machine})" if machine else f"{device} (recorded)"
        self = super().__new__(cls, text)
        self.device, self.origin, self.machine = device, origin, machine
        return self

    def __reduce__(self) -> tuple:  # pickled (a kept live result's copy) as what it is, not as its text
        return SeriesName, (self.device, self.origin.value, self.machine)


def series_label(device: str, source: Origin | str, machine: str | None = None) -> SeriesName:
    """Legend name of one curve: the device and where its numbers came from."""
    return SeriesName(device, source, machine)


def slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def recorded_sources(recordings: Sequence[Recording], live_device: str | None = None) -> list[GpuSource]:
    """A live GPU first (when this server has one), then each recorded GPU machine, fewest GPUs
    first and then the most recorded. A machine is its hardware: recordings of it on different days
    are one source (its label names every day), whose newer points replace older ones of the same
    settings (source_recording)."""
    sources = [GpuSource(Origin.LIVE, "live", "live on this server", device=live_device)] if live_device else []
    machines: dict[str, list[Recording]] = {}
    for recording in recordings:
        if recording.has_gpu:
            machines.setdefault(hardware_text(recording.machine), []).append(recording)
    recorded, points = [], {}
    for name, group in machines.items():
        group.sort(key=_date, reverse=True)  # newest first: source_recording keeps the newest of a repeated point
        days = sorted({r.date[:10] for r in group if r.date})
        key = slug(name)
        points[key] = sum(len(r.points) for r in group)
        recorded.append(
            GpuSource(
                Origin.RECORDED,
                key,
                f"{name}, {and_list(days)}" if days else name,
                pack_paths=tuple(r.path for r in group),
                gpus=len(group[0].machine.gpus) or 1,
            )
        )
    # fewest GPUs first, then the machine with the most recordings: the default is the best covered
    return sources + sorted(recorded, key=lambda s: (s.gpus, -points[s.key], s.label))


def _date(recording: Recording) -> str:
    return recording.date


def pack_date(pack: Mapping[str, Any]) -> str:
    return str(pack["machine"].get("date") or "")


def load_words(source: GpuSource, recordings: Sequence[Recording]) -> str | None:
    """How busy the source's machine was while it recorded, as its packs keep it: 'Its machine was checked quiet
    for the 13 packs recorded on 2026-11-28; the 33 recorded before kept no load.' (a busy pack is never loaded:
    lib.recorded.load_recordings). None for a source without packs."""
    mine = [r for r in recordings if r.path in source.pack_paths]
    if not mine:
        return None
    checked = [r for r in mine if pack_quiet(r.machine.to_json()) is not None]
    days = sorted({r.date[:10] for r in checked})
    if not checked:
        return ("Its pack was" if len(mine) == 1 else f"Its {len(mine)} packs were") + (
            " recorded before the app kept how busy a machine was."
        )
    said = f"Its machine was checked quiet while recording {plural(len(checked), 'pack')} (on {and_list(days)})"
    rest = len(mine) - len(checked)
    return said + (f"; the {plural(rest, 'pack')} recorded before kept no load." if rest else ".")


def source_recording(source: GpuSource, recordings: Sequence[Recording]) -> Recording | None:
    """All points of the source's recordings as one Recording (the machine of the newest), or None. A point
    recorded on two days (the same workload, device and settings) is kept once: the newest ok one
    (newest_points)."""
    if not source.recorded:
        return None
    mine = sorted((r for r in recordings if r.path in source.pack_paths), key=lambda r: r.date, reverse=True)
    if not mine:
        return None
    if len(mine) == 1:
        return mine[0]
    # merged once per set of recordings per process: the same merged object comes back on every page run,
    # so what is built from it (the Training page's step tables and cost models) is built once too
    return _merged_recording(tuple(mine), source.files)


@kept(16)
def _merged_recording(mine: tuple[Recording, ...], files: str) -> Recording:
    packs = [r.pack for r in mine]
    pack = {**packs[0], "rows": newest_rows(packs), "path": files}  # its dict: the same merge of the rows
    return Recording(files, mine[0].machine, tuple(newest_points(mine)), pack)


class _Entry(NamedTuple):
    """One row or point of one of a machine's packs, as merging reads it."""

    key: tuple  # the point it is (_point_key)
    ok: bool
    own: str  # the recording it names ('NVIDIA H200 (2026-11-23)'), or ''
    label: str  # that, or its pack's machine and day
    median_s: Any
    day: str  # its pack's day


def _merge(entries: Sequence[_Entry]) -> list[tuple[int, tuple[OtherRecording, ...]]]:
    """Which entries a merge keeps, in order, each with the other recordings' times of its point: of a
    point recorded on several days, the newest ok entry; a point no recording measured keeps its newest
    refusal; a refusal never hides a measured entry of the same point (a newer lease skipped under a smaller
    memory cap, an older one measured it)."""
    measured = {e.key for e in entries if e.ok}
    seen: dict[tuple, int] = {}
    refused: set[tuple] = set()
    out: list[tuple[int, tuple[OtherRecording, ...]]] = []
    for i, entry in enumerate(entries):
        if not entry.ok:
            if entry.key not in measured and entry.key not in refused:
                refused.add(entry.key)
                out.append((i, ()))
            continue
        if entry.key in seen:
            at, others = out[seen[entry.key]]
            known = {entries[at].own} | {r for r, _ in others}
            if entry.label not in known:  # the same point twice in one recording is one recording
                out[seen[entry.key]] = (at, (*others, OtherRecording(entry.label, float(entry.median_s))))
            continue
        seen[entry.key] = len(out)
        out.append((i, ()))
    return out


def newest_points(recordings_newest_first: Sequence[Recording]) -> list[Point]:
    """Every point once: of a point recorded on several days (or leases), the newest ok one, which keeps
    the others' times as `other_recordings`, so the day-to-day spread is drawn and fitted rather than
    dropped; each with its own pack's day (`recorded_on`). A recording is the pack's machine and date."""
    points, entries = [], []
    for recording in recordings_newest_first:
        day = recording.date[:10]
        fallback = f"{hardware_text(recording.machine)} ({day})"
        for point in recording.points:
            key = _key_of(point.workload, point.device, point.settings, id(point))
            own = str(point.machine or "")
            entries.append(_Entry(key, point.ok, own, own or fallback, point.median_s, day))
            points.append(point)
    return [replace(points[i], recorded_on=entries[i].day, other_recordings=others) for i, others in _merge(entries)]


def newest_rows(packs_newest_first: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The adapter of newest_points for pack dicts: the same merge, each row with its `recorded_on` and,
    where other days recorded it, `other_recordings`: ((recording, median_s), ...)."""
    rows, entries = [], []
    for pack in packs_newest_first:
        day = pack_date(pack)[:10]
        fallback = f"{hardware_text(pack['machine'])} ({day})"
        for row in pack["rows"]:
            own = str(row.get("machine") or "")
            entries.append(_Entry(_point_key(row), is_ok(row), own, own or fallback, row.get("median_s"), day))
            rows.append(row)
    out = []
    for i, others in _merge(entries):
        merged = {**rows[i], "recorded_on": entries[i].day}
        if others:  # plain pairs in a row, as a DataFrame and Arrow have always read them
            merged["other_recordings"] = tuple((o.recording, o.median_s) for o in others)
        out.append(merged)
    return out


def _point_key(row: Mapping[str, Any]) -> tuple:
    """What makes two rows the same point: workload, device and every setting (parsed)."""
    return _key_of(row.get("workload"), row.get("device"), row, id(row))


def _key_of(workload_name: Any, device: Any, settings: Mapping[str, Any], fallback: int) -> tuple:
    workload = WORKLOADS.get(str(workload_name))
    values = canonical(workload, settings) if workload else None
    return (workload_name, device, tuple(sorted(values.items())) if values else fallback)


def row_date(row: Mapping[str, Any], pack: Mapping[str, Any]) -> str:
    """The day a row of `pack` was recorded: its own (a merged pack's rows keep theirs), else the pack's."""
    return str(row.get("recorded_on") or pack_date(pack)[:10])


def rows_machine(rows: Sequence[Mapping[str, Any]], pack: Mapping[str, Any]) -> str:
    """'NVIDIA H200, 2026-11-24' naming exactly the days of `rows` (of `pack`), not the pack's newest file."""
    days = sorted({d for d in (row_date(r, pack) for r in rows) if d})
    hardware = hardware_text(pack["machine"])
    return f"{hardware}, {and_list(days)}" if days else hardware


def without_days(machine: str) -> str:
    """'NVIDIA H200' of 'NVIDIA H200, 2026-11-21, 2026-11-23 and 2026-11-24' (rows_machine's form): the
    machine without the days it was recorded on, however many there are."""
    return _DAYS.sub("", machine)


_DAYS = re.compile(r", \d{4}-\d{2}-\d{2}\b.*$")


def has_gpu_rows(pack: Mapping[str, Any] | None, workload: Workload) -> bool:
    return bool(pack) and any(
        r.get("workload") == workload.name and is_cuda(str(r.get("device", ""))) for r in pack["rows"]
    )


# The lesson each workload's GPU rows feed (how a sentence names what a machine was recorded for).
LESSON_OF = {
    "mlp": "Training",
    "jacobian": "Jacobian",
    "matmul": "Timing pitfalls",
    "dataloader": "Data pipeline",
    "ddp": "Multi-GPU",
}


def recorded_lessons(pack: Mapping[str, Any] | None) -> list[str]:
    """The lessons a recorded machine has GPU rows for, in the app's order ('Multi-GPU' for the 4-GPU one)."""
    found = {str(r.get("workload")) for r in (pack or {}).get("rows", []) if is_cuda(str(r.get("device", "")))}
    return [lesson for workload, lesson in LESSON_OF.items() if workload in found]


def unanswered(
    source: GpuSource, sources: Sequence[GpuSource], pack_of: Callable[[GpuSource], Any], holds: Callable[[Any], bool]
) -> str | None:
    """When the recorded machine chosen in the sidebar holds nothing this page can draw (`holds` of its
    pack is false), the plain sentence saying so and which machines to pick instead; None otherwise.
    The page then draws no GPU curve: another machine's curve is never put in the chosen one's place."""
    if not source.recorded:
        return None
    mine = pack_of(source)
    if holds(mine):
        return None
    lessons = recorded_lessons(mine)
    what = (
        f"were recorded for the {' and '.join(lessons)} {'lesson' if len(lessons) == 1 else 'lessons'} only"
        if lessons
        else "hold nothing this page can draw"
    )
    # Neither the chosen machine nor the others are named: the note is about what is NOT drawn, and a name or a
    # date in it would read as the provenance of a curve on screen (the sidebar's list names them all).
    others = [s for s in sources if s.recorded and s.key != source.key and holds(pack_of(s))]
    pick = (
        "pick another machine under “GPU results from” for one."
        if others
        else "no other recorded GPU has results for this page."
    )
    return f"The sidebar's GPU results {what}, so this page shows no GPU curve: {pick}"  # one sentence: a page's answer


# -- rows that match a view -------------------------------------------------------------------------
def canonical(workload: Workload, row: Mapping[str, Any]) -> dict[str, SettingValue] | None:
    """A row's settings as the workload's defaults overlaid with the row's values, each parsed
    (so '64' from a CSV equals 64), or None when a value does not parse."""
    values = workload.defaults()
    try:
        for setting in workload.settings:
            raw = row.get(setting.name)
            if raw is None:
                continue
            values[setting.name] = raw if type(raw) is setting.kind else setting.parse(raw)
    except SettingError:
        return None
    return values


def sweeps_over(row: Mapping[str, Any], over: str) -> bool:
    """Whether a row belongs to a sweep over `over`: a one-setting sweep of it, a grid that varied it
    among others (swept='a,b,c'), or a row that names no sweep."""
    swept = str(row.get("swept") or "")
    return over in row and (not swept or over in swept.split(","))


def matching_rows(
    rows: Sequence[dict], workload: Workload, over: str, params: Mapping[str, Any], device_prefix: str = "cuda"
) -> list[dict]:
    """Rows of `workload` on matching devices from a sweep over `over`, whose other settings all
    equal `params` (compared after parsing)."""
    wanted = workload.resolve({k: v for k, v in params.items() if k != over})
    out = []
    for row in rows:
        if row.get("workload") != workload.name or not str(row.get("device", "")).startswith(device_prefix):
            continue
        if not sweeps_over(row, over):
            continue
        values = canonical(workload, row)
        if values is not None and all(values[k] == wanted[k] for k in wanted if k != over):
            out.append(row)
    return out


def matching_points(
    points: Iterable[Point], workload: Workload, over: str, params: Mapping[str, Any], device_prefix: str = "cuda"
) -> list[Point]:
    """matching_rows of points: the same test on a point's workload, device, swept setting and settings."""
    wanted = workload.resolve({k: v for k, v in params.items() if k != over})
    out = []
    for point in points:
        if point.workload != workload.name or not point.device.startswith(device_prefix):
            continue
        if over not in point.settings or (point.swept and over not in point.swept.split(",")):
            continue
        values = canonical(workload, point.settings)
        if values is not None and all(values[k] == wanted[k] for k in wanted if k != over):
            out.append(point)
    return out


def view_rows(
    pack: Mapping[str, Any] | None, label: str, workload: Workload, over: str, params: Mapping[str, Any]
) -> tuple[list[dict], str | None]:
    """GPU rows of `pack` (recorded on `label`) matching a view's settings, and a plain note when there
    are none: the pack holds nothing for this workload, or no sweep with these settings. ([], None)
    without a pack."""
    if pack is None:
        return [], None
    rows = matching_rows(pack["rows"], workload, over, params)
    if rows:
        return rows, None
    if not holds_workload(pack, workload):
        return [], f"The recorded results ({plain(label)}) hold nothing for this lesson, so there is no GPU curve here."
    return [], (
        f"The recorded results ({plain(label)}) have no sweep with these settings, so there is no GPU "
        "curve for this view: only the live CPU is shown."
    )


def holds_workload(pack: Mapping[str, Any] | None, workload: Workload) -> bool:
    """Whether the pack has any row of `workload`, on any device."""
    return bool(pack) and any(r.get("workload") == workload.name for r in pack["rows"])


class RecordedSweep(NamedTuple):
    """One sweep a pack holds for a workload: the setting it varied, the settings of its first point
    (the others fixed), and how many points it has."""

    over: str
    params: dict[str, SettingValue]
    points: int


def recorded_sweeps(points: Iterable[Point], workload: Workload, device_prefix: str = "cuda") -> list[RecordedSweep]:
    """The distinct sweeps among a recording's points of one workload, in the order their first points come."""
    firsts: dict[tuple, tuple[str, dict[str, SettingValue]]] = {}
    counts: dict[tuple, int] = {}
    for point in points:
        if point.workload != workload.name or not point.device.startswith(device_prefix):
            continue
        over = point.swept
        values = canonical(workload, point.settings)
        if not over or "," in over or values is None or over not in values:
            continue  # a grid holds every combination: nothing to offer as one sweep
        fixed = {k: v for k, v in values.items() if k != over}
        key = (over, tuple(sorted((k, str(v)) for k, v in fixed.items())))
        firsts.setdefault(key, (over, {**fixed, over: values[over]}))
        counts[key] = counts.get(key, 0) + 1
    return [RecordedSweep(over, params, counts[key]) for key, (over, params) in firsts.items()]


def small_server_recording(recordings: Sequence[Recording], workload: Workload) -> Recording | None:
    """A shipped recording of a small CPU-only server (the kind that hosts the demo), holding points
    of `workload`: the CPU curve a page draws before this server's own CPU has been measured."""
    mine = [r for r in recordings if not r.machine.gpus and any(r.of(workload.name))]
    return min(mine, key=_cores) if mine else None


def _cores(recording: Recording) -> int:
    return recording.machine.cpu_cores or 99  # a machine that names none sorts last
