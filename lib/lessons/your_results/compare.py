"""Several machines' curves of the same sweep side by side, and the words read from them.

    for comp in compare_machines(combined.pack.rows):     # per workload + swept setting + fixed settings
        crossover_lines(comp), fastest_line(comp)         # words computed from the curves
    drawn_comparisons(combined.pack.rows, first=uploaded) # the page's order: Drawn(n, comparison, title)

The packs come from lib.recorded.uploads (read, validated, merged); no Streamlit here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from lib.core.crossover import Crossover, find_crossover
from lib.core.fmt import Sentence, Strong, fmt_s, fmt_value, say
from lib.core.point import Frozen
from lib.core.results import setting_keys
from lib.core.rows import is_ok
from lib.lessons.common.voice import Side, Unit, crossover_sentence
from lib.recorded.uploads import plain


@dataclass(frozen=True)
class MachineCurve:
    """One machine's measured points for one device, ready to chart."""

    machine: str
    device: str
    xs: list[float]
    times_s: list[float]
    iqr_s: list[float | None] = field(default_factory=list)  # the spread at each x (None when not given)


@dataclass(frozen=True)
class Comparison:
    workload: str
    setting: str
    fixed: Frozen  # the settings held fixed (name -> value), by the workload's names for them
    curves: list[MachineCurve]
    crossovers: dict[str, Crossover]  # machine -> its own CPU-vs-GPU crossover

    @property
    def machines(self) -> list[str]:
        return list(dict.fromkeys(c.machine for c in self.curves))


def _same_value(value: Any) -> Any:
    """A setting's value for grouping: '' (JSON) and empty (CSV) are the same missing value."""
    return None if value == "" else value


def sweep_x(row: Mapping[str, Any]) -> float | None:
    """The row's value of its swept setting as a positive finite number (a log axis needs one), else None."""
    swept = row.get("swept")
    if not isinstance(swept, str) or not swept:
        return None
    value = row.get(swept)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        value = float(value)
    except OverflowError:  # an int too large for a float (validation refuses it; a hand-made row may not)
        return None
    return value if math.isfinite(value) and value > 0 else None


def _settings(row: Mapping[str, Any]) -> Mapping[str, Any]:
    """A row's settings for grouping: for a workload known here, its defaults overlaid with the row's
    values (so a pack recorded before a setting existed groups with one that names its default),
    else the row's own setting columns."""
    from lib.recorded.sources import canonical
    from lib.workloads import WORKLOADS

    known = WORKLOADS.get(str(row.get("workload")))
    values = canonical(known, row) if known is not None else None
    if values is None:
        return {k: _same_value(row[k]) for k in setting_keys(row)}
    return values


def compare_machines(rows: Sequence[Mapping[str, Any]]) -> list[Comparison]:
    """Group ok rows by (workload, swept setting, other settings); per machine, its curves and crossover.

    Rows that cannot be charted (not ok, no swept setting, a swept value that is not a positive
    number) are left out here; uncharted_rows() counts them. A row's 'variant' counts as a setting."""
    groups: dict[tuple, list[Mapping[str, Any]]] = {}
    for row in rows:
        if not is_ok(row) or sweep_x(row) is None:
            continue
        swept = row["swept"]
        fixed = tuple(sorted((k, v) for k, v in _settings(row).items() if k != swept))
        if row.get("variant") not in (None, ""):
            fixed += (("variant", str(row["variant"])),)
        groups.setdefault((str(row["workload"]), swept, fixed), []).append(row)
    comparisons = []
    for (workload, swept, fixed), members in groups.items():
        by_series: dict[tuple[str, str], dict[float, tuple[float, float | None]]] = {}
        for r in members:
            key = (str(r.get("machine") or "unknown machine"), str(r["device"]))
            by_series.setdefault(key, {})[sweep_x(r)] = (float(r["median_s"]), r.get("iqr_s"))
        curves = [
            MachineCurve(m, d, sorted(p), [p[x][0] for x in sorted(p)], [p[x][1] for x in sorted(p)])
            for (m, d), p in by_series.items()
        ]
        crossovers = {}
        for machine, own in _by_machine(curves).items():
            cpu = next((c for c in own if c.device == "cpu"), None)
            gpu = next((c for c in own if c.device != "cpu"), None)
            if cpu and gpu:
                common = sorted(set(cpu.xs) & set(gpu.xs))
                cpu_t, gpu_t = dict(zip(cpu.xs, cpu.times_s)), dict(zip(gpu.xs, gpu.times_s))
                cpu_iqr, gpu_iqr = (
                    dict(zip(cpu.xs, cpu.iqr_s)),
                    dict(zip(gpu.xs, gpu.iqr_s)),
                )  # the one noise rule's spreads
                crossovers[machine] = find_crossover(
                    common,
                    [cpu_t[x] for x in common],
                    [gpu_t[x] for x in common],
                    [cpu_iqr.get(x) or 0.0 for x in common],
                    [gpu_iqr.get(x) or 0.0 for x in common],
                )
        comparisons.append(Comparison(workload, swept, Frozen(fixed), curves, crossovers))
    return comparisons


def _by_machine(curves: Sequence[MachineCurve]) -> dict[str, list[MachineCurve]]:
    """Each machine's curves, machines in order: one pass, not one scan of every curve per machine."""
    grouped: dict[str, list[MachineCurve]] = {}
    for curve in curves:
        grouped.setdefault(curve.machine, []).append(curve)
    return grouped


def uncharted_rows(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many rows compare_machines leaves out, by reason (only reasons that occur)."""
    counts: dict[str, int] = {}
    for row in rows:
        if not is_ok(row):
            reason = f"status {row.get('status')} (not measured)"
        elif not row.get("swept"):
            reason = "a single run, not part of a sweep"
        elif sweep_x(row) is None:
            reason = "the swept setting is not a positive number"
        else:
            continue
        counts[reason] = counts.get(reason, 0) + 1
    return counts


# -- words, computed from the comparison ------------------------------------------------------------


def device_word(device: str) -> str:
    """A device as people name it: 'CPU', 'GPU' (cuda:0), 'GPU 1' (cuda:1), another one as written."""
    if device == "cpu":
        return "CPU"
    if device.startswith("cuda"):
        index = device.partition(":")[2]
        return "GPU" if index in ("", "0") else f"GPU {index}"
    return device


def curve_name(machine: str, device: str) -> str:
    """A curve's legend name ('GPU · NVIDIA H200 (2026-11-21)'): the chart's and the words' one name for it."""
    return f"{device_word(device)} · {machine}"


# Settings whose key, read as words, is still code: what people call them.
SETTING_WORDS = {"num_workers": "DataLoader workers", "pin_memory": "pinned memory", "source": "fed by"}


def setting_name(key: str) -> str:
    """A setting as people say it: 'batch size', 'DataLoader workers' (not num_workers)."""
    return SETTING_WORDS.get(key, key.replace("_", " "))


def workload_title(name: str) -> str:
    """What a workload is, in words ('MLP training step' for 'mlp'); an unknown one's name as it is."""
    from lib.workloads import SettingError, get_workload

    try:
        return get_workload(name).title or name
    except SettingError:
        return name


def describe_fixed(workload: str, fixed: Mapping[str, Any]) -> str:
    """The settings held fixed, as people read them: those that differ from the workload's defaults
    when the workload is known here, else all of them."""
    from lib.workloads import SettingError, get_workload

    try:
        known = get_workload(workload)
    except SettingError:
        known = None
    shown = []
    for key, value in fixed.items():
        if known is not None:
            if key not in known.defaults():
                continue  # a column the workload derives from its settings (input_features, ...)
            setting = known.setting(key)
            try:
                same = value == _same_value(setting.default) or (
                    value is not None and setting.parse(value) == setting.default
                )
            except (ValueError, TypeError):
                same = False
            if same:
                continue
        shown.append(f"{setting_name(key)} {fmt_value(value) if value is not None else '–'}")
    if known is not None:
        return "other settings at their defaults" if not shown else "; ".join(shown) + "; the rest at their defaults"
    return "; ".join(shown) or "no other settings"


def crossover_lines(comparison: Comparison, *, notes: bool = True) -> list[Sentence]:
    """One sentence per machine: where its GPU catches up with its CPU, read from its own curves
    (lib.lessons.common.voice words it; `.about` holds the Crossover). `notes=False`: without the points too
    close to call, for the one sentence above the chart (the lines under it keep them)."""

    name = plain(setting_name(comparison.setting))  # a pack's own setting name: text from a file
    lines = []
    for machine, own in _by_machine(comparison.curves).items():
        devices = [c.device for c in own]
        who = say(Strong(plain(machine)), ": ")
        cross = comparison.crossovers.get(machine)
        if cross is None:
            if devices == ["cpu"]:
                lines.append(who + "CPU only, so no crossover.")
            elif "cpu" not in devices:
                lines.append(
                    who + f"{', '.join(plain(device_word(d)) for d in devices)} only, no CPU curve "
                    "from this machine, so no crossover."
                )
            continue
        gpu = next(d for d in devices if d != "cpu")
        its_gpu = Side(Unit.GPU, f"its {plain(device_word(gpu))}")
        lines.append(who + crossover_sentence(cross, name, Side(Unit.CPU, "its CPU"), its_gpu, notes=notes))
    return lines


def fastest_line(comparison: Comparison) -> str | None:
    """Which curve is fastest at the smallest and the largest value that several curves share."""

    if len(comparison.curves) < 2:
        return None
    seen: dict[float, int] = {}  # in how many curves each x is: one pass over the points
    for c in comparison.curves:
        for x in set(c.xs):
            seen[x] = seen.get(x, 0) + 1
    shared = sorted(x for x, n in seen.items() if n >= 2)
    if not shared:
        return None
    parts = []
    for x in dict.fromkeys([shared[0], shared[-1]]):
        times = [(dict(zip(c.xs, c.times_s))[x], c) for c in comparison.curves if x in c.xs]
        best_t, best = min(times, key=lambda tc: tc[0])
        slowest_t, slowest = max(times, key=lambda tc: tc[0])
        # each curve by its legend name, so a reader finds both on the chart (and a checker reads their points)
        parts.append(
            f"at {plain(setting_name(comparison.setting))} {fmt_value(x)} the fastest of {len(times)} curves is "
            f"**{plain(curve_name(best.machine, best.device))}** ({fmt_s(best_t)} a step; the slowest, "
            f"**{plain(curve_name(slowest.machine, slowest.device))}**, takes {fmt_s(slowest_t)})"
        )
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def order_comparisons(comparisons: Sequence[Comparison], first: Iterable[str] = ()) -> list[Comparison]:
    """Most machines first; among equals, those with a curve from a machine in `first` (the uploads)."""
    first = set(first)
    indexed = list(enumerate(comparisons))
    indexed.sort(key=lambda ic: (-len(ic[1].machines), not (first & set(ic[1].machines)), ic[0]))
    return [c for _, c in indexed]


TITLE_SETTINGS = 4  # the most settings a title names to tell sweeps apart


def comparison_titles(comparisons: Sequence[Comparison]) -> list[str]:
    """'MLP training step — time against batch size', plus the fixed settings that tell apart several
    sweeps of the same workload and setting: '… — time against batch size (gpus 2, model cnn)'."""

    peers: dict[tuple[str, str], list[Comparison]] = {}
    for comp in comparisons:
        peers.setdefault((comp.workload, comp.setting), []).append(comp)
    differ: dict[tuple[str, str], list[str]] = {}
    for key, group in peers.items():
        values: dict[str, set[str]] = {}  # each fixed setting's values across the group, in one pass
        counts: dict[str, int] = {}
        for c in group:
            for k, v in c.fixed.items():
                values.setdefault(k, set()).add(json.dumps(v, default=str))
                counts[k] = counts.get(k, 0) + 1
        for k, n in counts.items():
            if n < len(group):  # a sweep without this setting reads it as null
                values[k].add("null")
        differ[key] = sorted(k for k, vals in values.items() if len(vals) > 1)
    titles, differ_sets = [], {}
    for comp in comparisons:
        title = f"{workload_title(comp.workload)} — time against {setting_name(comp.setting)}"
        keys = differ[(comp.workload, comp.setting)]
        if len(keys) > TITLE_SETTINGS:  # a title is a line: the settings this sweep has first, then '…'
            among = differ_sets.setdefault((comp.workload, comp.setting), set(keys))  # once per kind of sweep
            # this sweep's own settings, not every setting of its kind: linear in all
            keys = sorted(k for k, v in comp.fixed.items() if k in among and v is not None)[:TITLE_SETTINGS] + ["…"]
        parts = [
            "…"
            if k == "…"
            else f"{setting_name(k)} {fmt_value(comp.fixed[k]) if comp.fixed.get(k) is not None else '–'}"
            for k in keys
        ]
        titles.append(title + (f" ({', '.join(parts)})" if parts else ""))
    return titles


class Drawn(NamedTuple):
    """A comparison as the page draws it: its place in the page's order (its chart's key), and its title."""

    n: int
    comparison: Comparison
    title: str


def drawn_comparisons(rows: Sequence[Mapping[str, Any]], first: Iterable[str] = ()) -> list[Drawn]:
    """Every comparison of the rows, those of several machines first (see order_comparisons), each titled."""
    comparisons = order_comparisons(compare_machines(rows), first=first)
    ordered = [c for c in comparisons if len(c.machines) > 1] + [c for c in comparisons if len(c.machines) == 1]
    return [Drawn(n, comp, title) for n, (comp, title) in enumerate(zip(ordered, comparison_titles(ordered)))]
