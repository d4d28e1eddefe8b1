"""What the Gallery page computes: one row per machine, each machine's own crossover on the gallery
sweep, the speed-up curves drawn together, sorting, and the picks handed to the comparison view.

    machines = shipped_machines(shipped) + entry_machines(entries, packs)
    comparison = gallery_comparison(machines)             # every machine's curves on the one sweep
    rows = table_rows(sort_machines(machines, comparison, "crossover"), comparison)
    frame = speedup_frame(comparison)                     # machine, x, CPU time / GPU time

Every machine gets a unique line label ('Ada · Tesla T4 (#12)'), since two students' T4s would
otherwise share one. Rows are copied, never changed in place (shipped packs are cached).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import pandas as pd

from lib.core.crossover import CrossKind
from lib.core.results import ROW_FIELDS
from lib.core.rows import is_ok
from lib.lessons.common.voice import Side, Unit, crossover_brief, likely_about
from lib.lessons.your_results.compare import Comparison, compare_machines
from lib.recorded.gallery.sweep import GALLERY_SWEEP
from lib.recorded.pack import JsonObject, Pack

if TYPE_CHECKING:
    from lib.recorded.gallery.store import Entry  # the store needs SQLAlchemy; these lessons do not

SHIPPED_PREFIX = "shipped:"
SORTS = ("crossover", "newest", "name", "machine")
OWN_CPU, OWN_GPU = Side(Unit.CPU, "its own CPU"), Side(Unit.GPU, "its GPU")  # one machine's two curves


@dataclass
class GalleryMachine:
    key: str  # '12' for entry #12, 'shipped:h200_training' for a shipped pack: what a link names
    line: str  # the unique label of its curves
    named_by: str
    hardware: str
    torch: str
    recorded: str  # the day the pack was measured (YYYY-MM-DD)
    course: str = ""
    added: float = 0.0  # Unix seconds; 0 for shipped packs
    devices: str = ""
    shipped: bool = False
    rows: list[JsonObject] = field(default_factory=list)  # its sweep's rows, in a pack's row shape


def _sweep_rows(rows: Sequence[JsonObject], line: str) -> list[JsonObject]:
    """Copies holding only what the comparison needs: the swept value, device, times, status."""
    over = GALLERY_SWEEP.over
    return [{**{k: r.get(k) for k in ROW_FIELDS}, over: r.get(over), "swept": over, "machine": line} for r in rows]


def shipped_machines(shipped: Sequence[tuple[str, Pack]]) -> list[GalleryMachine]:
    out = []
    for stem, pack in shipped:
        machine = pack.machine
        gpus = machine.gpus
        hardware = gpus[0] if gpus else machine.text("cpu_model") or "?"
        line = f"{hardware} · shipped"
        out.append(
            GalleryMachine(
                SHIPPED_PREFIX + stem,
                line,
                "shipped with the app",
                hardware,
                machine.text("torch"),
                machine.date[:10],
                devices=", ".join(dict.fromkeys(str(r["device"]) for r in pack.rows)),
                shipped=True,
                rows=_sweep_rows(pack.rows, line),
            )
        )
    return out


def entry_machines(entries: Sequence[Entry], packs: Mapping[int, Pack]) -> list[GalleryMachine]:
    """Gallery entries (lib.recorded.gallery.store.Entry) with their packs; an entry whose pack did
    not load again is left out."""
    out = []
    for e in entries:
        if e.id not in packs:
            continue
        line = f"{e.name} · {e.hardware} (#{e.id})"
        out.append(
            GalleryMachine(
                str(e.id),
                line,
                e.name,
                e.hardware,
                e.torch,
                e.recorded_at[:10],
                e.course,
                e.added_at,
                e.devices,
                rows=_sweep_rows(packs[e.id].rows, line),
            )
        )
    return out


def gallery_comparison(machines: Sequence[GalleryMachine]) -> Comparison | None:
    """Every machine's curves on the gallery sweep (None when nothing was measured)."""
    comparisons = compare_machines([r for m in machines for r in m.rows])
    return comparisons[0] if comparisons else None


class CrossoverWords(NamedTuple):
    """Where a machine's GPU catches its own CPU: the batch size (None where it does not), and in words."""

    x: float | None
    words: str


def crossover_words(comparison: Comparison | None, machine: GalleryMachine) -> CrossoverWords:
    """Where its GPU catches its own CPU, the words from lib.lessons.common.voice."""
    devices = {r["device"] for r in machine.rows if is_ok(r)}
    if devices == {"cpu"}:
        return CrossoverWords(None, "CPU only")
    cross = comparison.crossovers.get(machine.line) if comparison else None
    x = float(cross.x) if cross is not None and cross.kind == CrossKind.CROSSES else None
    return CrossoverWords(x, crossover_brief(cross, "batch size", OWN_CPU, OWN_GPU))


class GalleryRow(NamedTuple):
    """One machine as a table row (TABLE_COLUMNS names each column)."""

    entry: str
    named_by: str
    hardware: str
    catches_up_at: float | None
    crossover: str
    devices: str
    torch: str
    recorded: str
    course: str
    added: str
    key: str


TABLE_COLUMNS = (
    "entry",
    "named by",
    "GPU or CPU",
    "GPU catches up at batch size",
    "crossover",
    "devices",
    "torch",
    "recorded",
    "course",
    "added",
    "key",
)


def table_rows(machines: Sequence[GalleryMachine], comparison: Comparison | None) -> list[GalleryRow]:
    """One row per machine."""
    rows = []
    for m in machines:
        x, words = crossover_words(comparison, m)
        # the number shown is the words' own (lib.core.fmt.crossing_about), none where they give a bracket
        about = likely_about(comparison.crossovers.get(m.line)) if x is not None and comparison else None
        rows.append(
            GalleryRow(
                "shipped" if m.shipped else f"#{m.key}",
                m.named_by,
                m.hardware,
                float(about.replace(",", "")) if about else None,
                words,
                m.devices,
                m.torch,
                m.recorded,
                m.course or ("–" if m.shipped else "none"),
                _dt.datetime.fromtimestamp(m.added, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M") if m.added else "–",
                m.key,
            )
        )
    return rows


def table_frame(machines: Sequence[GalleryMachine], comparison: Comparison | None) -> pd.DataFrame:
    """The table for st.dataframe (which shows text as text: nothing is rendered)."""
    return pd.DataFrame(table_rows(machines, comparison), columns=TABLE_COLUMNS)


def sort_machines(machines: Sequence[GalleryMachine], comparison: Comparison | None, by: str) -> list[GalleryMachine]:
    """crossover: smallest break-even first (machines without one after, by their words); newest:
    latest added first (shipped last); name: who named it; machine: the GPU or CPU name."""
    if by == "crossover":

        def key(m: GalleryMachine) -> tuple:
            x, words = crossover_words(comparison, m)
            return (x is None, x or 0.0, words)

        return sorted(machines, key=key)
    if by == "newest":
        return sorted(machines, key=lambda m: -m.added)
    if by == "name":
        return sorted(machines, key=lambda m: (m.shipped, m.named_by.casefold()))
    if by == "machine":
        return sorted(machines, key=lambda m: m.hardware.casefold())
    raise ValueError(f"sort by one of {', '.join(SORTS)}, not {by!r}")


def speedup_frame(comparison: Comparison | None) -> pd.DataFrame:
    """Per machine with a GPU: its CPU time / its GPU time at each batch size measured on both
    (above 1 the GPU is faster). One line per machine."""
    records = []
    for machine in comparison.machines if comparison else []:
        curves = [c for c in comparison.curves if c.machine == machine]
        cpu = next((c for c in curves if c.device == "cpu"), None)
        gpu = next((c for c in curves if c.device != "cpu"), None)
        if cpu is None or gpu is None:
            continue
        gpu_t = dict(zip(gpu.xs, gpu.times_s))
        for x, t in zip(cpu.xs, cpu.times_s):
            if x in gpu_t and t > 0 and gpu_t[x] > 0:
                records.append({"machine": machine, "x": float(x), "speedup": t / gpu_t[x]})
    return pd.DataFrame(records, columns=["machine", "x", "speedup"])


def crossover_points(comparison: Comparison | None) -> pd.DataFrame:
    """Where each machine's speed-up line crosses 1 (machine, x)."""
    points = [
        {"machine": m, "x": float(c.x)}
        for m, c in (comparison.crossovers.items() if comparison else [])
        if c.kind == CrossKind.CROSSES and c.x is not None and math.isfinite(c.x) and likely_about(c) is not None
    ]  # a mark only where the words name a value
    return pd.DataFrame(points, columns=["machine", "x"])


# -- picks for the comparison view (pages/your_results.py ?gallery=...) -------------------------------


def compare_query(keys: Sequence[str]) -> dict[str, str]:
    return {"gallery": ",".join(keys)}


class Picks(NamedTuple):
    """What a link's ?gallery= names: entry ids, shipped packs' stems, and a note per item not understood."""

    ids: list[int]
    stems: list[str]
    notes: list[str]


def parse_picks(raw: str | None, limit: int = 4) -> Picks:
    """'12,shipped:h200_training' -> Picks([12], ['h200_training'], [])."""
    ids, stems, notes = [], [], []
    for item in [t.strip() for t in str(raw or "").split(",") if t.strip()][:limit]:
        if item.startswith(SHIPPED_PREFIX) and item[len(SHIPPED_PREFIX) :]:
            stems.append(item[len(SHIPPED_PREFIX) :])
        elif re.fullmatch(r"#?[0-9]{1,12}", item):  # ASCII digits: '²' and '١' are digits to str.isdigit()
            ids.append(int(item.lstrip("#")))
        else:
            notes.append(f"gallery: {item[:40]!r} names no gallery entry")
    return Picks(list(dict.fromkeys(ids)), list(dict.fromkeys(stems)), notes)


def labelled_pack(pack: Pack, line: str) -> Pack:
    """A copy of a gallery pack whose machine and rows are all named `line` (its gallery label), so
    two machines of the same model stay two curves on the comparison view."""
    return Pack(pack.machine.named(line), [{**r, "machine": line} for r in pack.rows], (), pack.schema_version)
