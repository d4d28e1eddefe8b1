"""Bringing your own results: parse uploaded packs as data only, and compare machines.

No pickle and no torch.load: an upload is JSON (a result pack) or CSV (its rows), size-capped,
validated field by field.

    sources = drop_duplicates(read_uploads([(name, data), ...]))   # a bad file: Source.error names file and field
    combined = combine(sources)                   # one merged pack; every machine labelled uniquely
    for comp in compare_machines(combined.pack["rows"]):          # per workload + swept setting + fixed settings
        crossover_lines(comp), fastest_line(comp)                 # words computed from the curves
    machine_table(combined.machines)              # fingerprints, one row per machine

The Your results page (pages/your_results.py) only lays these out; no Streamlit here.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from lib.crossover import Crossover, find_crossover
from lib.results import PackError, csv_to_pack, loads_pack, merge_packs, setting_keys

MAX_UPLOAD_BYTES = 5 * 1024 * 1024


def parse_upload(name: str, data: bytes, max_bytes: int = MAX_UPLOAD_BYTES) -> dict[str, Any]:
    """A validated pack from an uploaded file, or PackError saying what is wrong with it."""
    if len(data) > max_bytes:
        raise PackError(f"{name}: {len(data) / 1e6:.1f} MB is larger than the {max_bytes / 1e6:.0f} MB limit")
    if not data.strip():
        raise PackError(f"{name}: the file is empty")
    suffix = name.lower().rsplit(".", 1)[-1] if "." in name else ""
    if suffix not in ("json", "csv", ""):
        raise PackError(f"{name}: expected a .json result pack or a .csv of its rows")
    looks_json = suffix == "json" or data.lstrip()[:1] in (b"{", b"[")
    try:
        return loads_pack(data) if looks_json else csv_to_pack(data, source=name)
    except PackError as err:
        raise PackError(f"{name}: {err}") from None


@dataclass
class MachineCurve:
    """One machine's measured points for one device, ready to chart."""

    machine: str
    device: str
    xs: list[float]
    times_s: list[float]
    iqr_s: list[float | None] = field(default_factory=list)  # the spread at each x (None when not given)


@dataclass
class Comparison:
    workload: str
    setting: str
    fixed: dict[str, Any]
    curves: list[MachineCurve]
    crossovers: dict[str, Crossover]  # machine -> its own CPU-vs-GPU crossover

    @property
    def machines(self) -> list[str]:
        return list(dict.fromkeys(c.machine for c in self.curves))


def _same_value(value: Any) -> Any:
    """A setting's value for grouping: '' (JSON) and empty (CSV) are the same missing value."""
    return None if value == "" else value


def sweep_x(row: dict[str, Any]) -> float | None:
    """The row's value of its swept setting as a positive finite number (a log axis needs one), else None."""
    swept = row.get("swept")
    if not isinstance(swept, str) or not swept:
        return None
    value = row.get(swept)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) and value > 0 else None


def compare_machines(rows: list[dict[str, Any]]) -> list[Comparison]:
    """Group ok rows by (workload, swept setting, other settings); per machine, its curves and crossover.

    Rows that cannot be charted (not ok, no swept setting, a swept value that is not a positive
    number) are left out here; uncharted_rows() counts them. A row's 'variant' counts as a setting."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        if row.get("status") != "ok" or sweep_x(row) is None:
            continue
        swept = row["swept"]
        fixed = tuple(sorted((k, _same_value(row[k])) for k in setting_keys(row) if k != swept))
        if row.get("variant") not in (None, ""):
            fixed += (("variant", str(row["variant"])),)
        groups.setdefault((str(row["workload"]), swept, fixed), []).append(row)
    comparisons = []
    for (workload, swept, fixed), members in groups.items():
        by_series: dict[tuple[str, str], dict[float, tuple[float, float | None]]] = {}
        for r in members:
            key = (str(r.get("machine") or "unknown machine"), str(r["device"]))
            by_series.setdefault(key, {})[sweep_x(r)] = (float(r["median_s"]), r.get("iqr_s"))
        curves = [MachineCurve(m, d, sorted(p), [p[x][0] for x in sorted(p)], [p[x][1] for x in sorted(p)])
                  for (m, d), p in by_series.items()]
        crossovers = {}
        for machine in dict.fromkeys(c.machine for c in curves):
            cpu = next((c for c in curves if c.machine == machine and c.device == "cpu"), None)
            gpu = next((c for c in curves if c.machine == machine and c.device != "cpu"), None)
            if cpu and gpu:
                common = sorted(set(cpu.xs) & set(gpu.xs))
                cpu_t = dict(zip(cpu.xs, cpu.times_s))
                gpu_t = dict(zip(gpu.xs, gpu.times_s))
                crossovers[machine] = find_crossover(common, [cpu_t[x] for x in common], [gpu_t[x] for x in common])
        comparisons.append(Comparison(workload, swept, dict(fixed), curves, crossovers))
    return comparisons


def uncharted_rows(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """How many rows compare_machines leaves out, by reason (only reasons that occur)."""
    counts: dict[str, int] = {}
    for row in rows:
        if row.get("status") != "ok":
            reason = f"status {row.get('status')} (not measured)"
        elif not row.get("swept"):
            reason = "a single run, not part of a sweep"
        elif sweep_x(row) is None:
            reason = "the swept setting is not a positive number"
        else:
            continue
        counts[reason] = counts.get(reason, 0) + 1
    return counts


# -- several files at once: read, label each machine, merge ----------------------------------------

CSV_MACHINE = "unknown (from CSV)"  # the cpu_model lib.results.csv_to_pack gives a CSV's machine


@dataclass
class Source:
    """One pack on the page: an uploaded file or a pack shipped in lib/recorded/."""

    name: str  # the file name ('shipped: h200x4_ddp.json' for a shipped pack)
    pack: dict[str, Any] | None = None
    error: str | None = None  # why the file was not used
    note: str | None = None  # why a readable file was still not used (a duplicate)
    shipped: bool = False

    @property
    def used(self) -> bool:
        return self.pack is not None and self.error is None and self.note is None


def _content_key(pack: dict[str, Any]) -> str:
    body = json.dumps({"machine": pack.get("machine"), "machines": pack.get("machines"), "rows": pack.get("rows")},
                      sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()


def read_uploads(files: Iterable[tuple[str, bytes]], max_bytes: int = MAX_UPLOAD_BYTES) -> list[Source]:
    """Each (file name, bytes) as a Source: its validated pack, or the error naming file and field.
    A bad file never stops the others from being read."""
    sources = []
    for name, data in files:
        try:
            pack = parse_upload(name, data, max_bytes)
        except PackError as err:
            sources.append(Source(name, error=str(err)))
        except RecursionError:
            sources.append(Source(name, error=f"{name}: nested too deeply to be a result pack"))
        except Exception as err:  # noqa: BLE001 -- an untrusted file must never break the page
            sources.append(Source(name, error=f"{name}: could not be read as a result pack "
                                              f"({type(err).__name__}: {err})"))
        else:
            sources.append(Source(name, pack=pack))
    return sources


def drop_duplicates(sources: Sequence[Source]) -> list[Source]:
    """Mark every readable pack whose machine and rows equal an earlier one's (the same file twice,
    or an upload of a shipped pack) with a note, so its rows count once."""
    seen: dict[str, str] = {}
    out = []
    for src in sources:
        if src.pack is not None and src.error is None and src.note is None:
            key = _content_key(src.pack)
            if key in seen:
                src = Source(src.name, src.pack, note=f"{src.name}: the same results as {seen[key]}, so used once",
                             shipped=src.shipped)
            else:
                seen[key] = src.name
        out.append(src)
    return out


def _fingerprint_key(machine: dict[str, Any]) -> str:
    """The same hardware and software, whenever it measured (packs recorded minutes apart differ only in date)."""
    return json.dumps({k: v for k, v in machine.items() if k not in ("label", "date")}, sort_keys=True, default=str)


def _fallback_label(machine: dict[str, Any], source: str) -> str:
    gpus = [str(g) for g in machine.get("gpus") or [] if g]
    hardware = gpus[0] if gpus else str(machine.get("cpu_model") or "")
    if not hardware or hardware == CSV_MACHINE:
        return source
    day = str(machine.get("date") or "")[:10]
    return f"{hardware} ({day})" if day else hardware


@dataclass
class Combined:
    pack: dict[str, Any]  # every used source merged; each row's 'machine' names its machine uniquely
    machines: list[dict[str, Any]]  # one entry per machine label in the rows: fingerprint and sources


def combine(sources: Sequence[Source]) -> Combined | None:
    """Merge the used sources into one pack. Two different machines (or a machine known only from
    a CSV) never share a label: a clash gets ' · <file name>' appended. None when nothing is used."""
    taken: dict[str, str] = {}  # label -> identity of the machine that holds it
    packs, machines = [], {}
    for src in sources:
        if not src.used:
            continue
        pack = src.pack
        fingerprints = [m for m in (pack.get("machines") or [pack["machine"]]) if isinstance(m, dict)]
        by_label = {str(m.get("label") or ""): m for m in fingerprints}
        default = str(pack["machine"].get("label") or "") or _fallback_label(pack["machine"], src.name)
        rename: dict[str, str] = {}
        for row in pack["rows"]:
            label = str(row.get("machine") or "") or default
            if label in rename:
                continue
            machine = by_label.get(label) or (pack["machine"] if len(fingerprints) == 1 else None)
            known = machine is not None and machine.get("cpu_model") != CSV_MACHINE
            identity = _fingerprint_key(machine) if known else f"{src.name}\n{label}"
            new, n = label, 1
            while new in taken and taken[new] != identity:
                n += 1
                new = f"{label} · {src.name}" + (f" ({n - 1})" if n > 2 else "")
            taken[new] = identity
            rename[label] = new
            entry = machines.setdefault(new, {"label": new, "fingerprint": machine if known else None,
                                              "sources": [], "rows": 0, "cpu_threads": set()})
            if src.name not in entry["sources"]:
                entry["sources"].append(src.name)
        rows = []
        for row in pack["rows"]:
            label = rename[str(row.get("machine") or "") or default]
            rows.append({**row, "machine": label})
            machines[label]["rows"] += 1
            if row.get("device") == "cpu" and isinstance(row.get("num_threads"), (int, float)):
                machines[label]["cpu_threads"].add(int(row["num_threads"]))
        relabelled = [{**m, "label": rename.get(str(m.get("label") or ""), m.get("label", ""))} for m in fingerprints]
        top = dict(pack["machine"])
        top["label"] = rename.get(str(top.get("label") or ""), top.get("label") or default)
        packs.append({"schema_version": pack["schema_version"], "machine": top, "rows": rows,
                      **({"machines": relabelled} if pack.get("machines") else {})})
    if not packs:
        return None
    return Combined(merge_packs(packs), list(machines.values()))


def _gpus_text(gpus: Any) -> str:
    names = [str(g) for g in gpus or []]
    return ", ".join(f"{names.count(n)}× {n}" if names.count(n) > 1 else n for n in dict.fromkeys(names)) or "none"


def machine_table(machines: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One plain row per machine for a table: what it was, where its numbers came from."""
    out = []
    for entry in machines:
        m = entry.get("fingerprint") or {}
        unknown = "not in the file" if not m else "–"

        def get(key: str) -> str:
            value = m.get(key)
            return unknown if value in (None, "") else str(value)

        threads = sorted(entry.get("cpu_threads") or ())
        out.append({
            "machine": entry["label"],
            "from": ", ".join(entry["sources"]),
            "rows": entry["rows"],
            "CPU": get("cpu_model"),
            "cores": get("cpu_cores"),
            "torch threads": get("torch_threads"),
            "threads in CPU rows": ", ".join(map(str, threads)) or "–",
            "GPU": _gpus_text(m.get("gpus")) if m else unknown,
            "driver": get("driver"),
            "torch": get("torch"),
            "CUDA": get("cuda"),
            "Python": get("python"),
            "date": get("date")[:16].replace("T", " ") if m.get("date") else unknown,
        })
    return out


# -- words, computed from the comparison ------------------------------------------------------------

_MARKDOWN = set("\\`*_[]<>$|~:#")


def plain(text: Any, limit: int = 200) -> str:
    """Text from a file, made safe to put inside Streamlit markdown: one line, at most `limit`
    characters, markdown's special characters escaped (so a name cannot become a link or a formula)."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "".join("\\" + ch if ch in _MARKDOWN else ch for ch in text)


def setting_name(key: str) -> str:
    return key.replace("_", " ")


def describe_fixed(workload: str, fixed: dict[str, Any]) -> str:
    """The settings held fixed, as people read them: those that differ from the workload's defaults
    when the workload is known here, else all of them."""
    from lib.explain import fmt_value
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
                same = value == _same_value(setting.default) or (value is not None and setting.parse(value) == setting.default)
            except (ValueError, TypeError):
                same = False
            if same:
                continue
        shown.append(f"{setting_name(key)} {fmt_value(value) if value is not None else '–'}")
    if known is not None:
        return ("other settings at their defaults" if not shown else
                "; ".join(shown) + "; the rest at their defaults")
    return "; ".join(shown) or "no other settings"


def crossover_lines(comparison: Comparison) -> list[str]:
    """One sentence per machine: where its GPU catches up with its CPU, read from its own curves."""
    from lib.explain import fmt_num, fmt_value

    name = setting_name(comparison.setting)
    lines = []
    for machine in comparison.machines:
        devices = [c.device for c in comparison.curves if c.machine == machine]
        who = f"**{plain(machine)}**"
        cross = comparison.crossovers.get(machine)
        if cross is None:
            if devices == ["cpu"]:
                lines.append(f"{who}: CPU only, so no crossover.")
            elif "cpu" not in devices:
                lines.append(f"{who}: {', '.join(map(plain, devices))} only, no CPU curve from this machine, "
                             "so no crossover.")
            continue
        gpu = next(d for d in devices if d != "cpu")
        cpu_curve = next(c for c in comparison.curves if c.machine == machine and c.device == "cpu")
        gpu_curve = next(c for c in comparison.curves if c.machine == machine and c.device == gpu)
        both = len(set(cpu_curve.xs) & set(gpu_curve.xs))
        over = f" ({both} value{'s' if both != 1 else ''} of {name} measured on both)"
        if cross.kind == "crosses":
            lo, hi = cross.bracket
            lines.append(f"{who}: its {plain(gpu)} catches up with its CPU at {name} ≈ {fmt_num(cross.x)}, "
                         f"between the measured {fmt_value(lo)} and {fmt_value(hi)}.")
        elif cross.kind == "gpu_wins":
            lines.append(f"{who}: its {plain(gpu)} is at least as fast as its CPU from the first value measured: "
                         f"no crossover in this range{over}.")
        elif cross.kind == "cpu_wins":
            lines.append(f"{who}: its CPU is faster at every value measured; its {plain(gpu)} never catches up "
                         f"in this range{over}.")
        else:
            lines.append(f"{who}: no {name} was measured on both its CPU and its {plain(gpu)}, so no crossover.")
    return lines


def fastest_line(comparison: Comparison) -> str | None:
    """Which curve is fastest at the smallest and the largest value that several curves share."""
    from lib.explain import fmt_s, fmt_value

    if len(comparison.curves) < 2:
        return None
    shared = sorted(x for x in {x for c in comparison.curves for x in c.xs}
                    if sum(x in c.xs for c in comparison.curves) >= 2)
    if not shared:
        return None
    parts = []
    for x in dict.fromkeys([shared[0], shared[-1]]):
        times = [(dict(zip(c.xs, c.times_s))[x], c) for c in comparison.curves if x in c.xs]
        best_t, best = min(times, key=lambda tc: tc[0])
        slowest_t = max(t for t, _ in times)
        parts.append(f"at {setting_name(comparison.setting)} {fmt_value(x)} the fastest of {len(times)} curves is "
                     f"**{plain(best.machine)}, {plain(best.device)}** ({fmt_s(best_t)} a step; the slowest takes "
                     f"{fmt_s(slowest_t)})")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def order_comparisons(comparisons: Sequence[Comparison], first: Iterable[str] = ()) -> list[Comparison]:
    """Most machines first; among equals, those with a curve from a machine in `first` (the uploads)."""
    first = set(first)
    indexed = list(enumerate(comparisons))
    indexed.sort(key=lambda ic: (-len(ic[1].machines), not (first & set(ic[1].machines)), ic[0]))
    return [c for _, c in indexed]


def comparison_titles(comparisons: Sequence[Comparison]) -> list[str]:
    """'mlp: time against batch size', plus the fixed settings that tell apart several sweeps of the
    same workload and setting: 'ddp: time against batch size (gpus 2, model cnn)'."""
    from lib.explain import fmt_value

    peers: dict[tuple[str, str], list[Comparison]] = {}
    for comp in comparisons:
        peers.setdefault((comp.workload, comp.setting), []).append(comp)
    differ: dict[tuple[str, str], list[str]] = {}
    for key, group in peers.items():
        names = sorted({k for c in group for k in c.fixed})
        differ[key] = [k for k in names if len({json.dumps(c.fixed.get(k), default=str) for c in group}) > 1]
    titles = []
    for comp in comparisons:
        title = f"{comp.workload}: time against {setting_name(comp.setting)}"
        parts = [f"{setting_name(k)} {fmt_value(comp.fixed[k]) if comp.fixed.get(k) is not None else '–'}"
                 for k in differ[(comp.workload, comp.setting)]]
        titles.append(title + (f" ({', '.join(parts)})" if parts else ""))
    return titles
