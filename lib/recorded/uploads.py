"""Packs brought by a visitor: parsed as data only, validated, labelled per machine, merged.

No pickle and no torch.load: an upload is JSON (a result pack) or CSV (its rows), size-capped,
validated field by field.

    sources = drop_duplicates(read_uploads([(name, data), ...]))   # a bad file: Source.error names file and field
    combined = combine(sources)                   # one merged pack; every machine labelled uniquely
    machine_table(combined.machines)              # fingerprints, one row per machine

Comparing the machines' curves is lib.lessons.your_results.compare; the Your results page lays both out.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from lib.core.results import PackError, csv_to_pack, loads_pack, merge_packs
from lib.recorded.pack import CSV_MACHINE, Fingerprint, JsonObject, Pack
from lib.recorded.pack import gpu_names as gpu_names  # lib.recorded.sources imports it from here

MAX_UPLOAD_BYTES = 5 * 1024 * 1024


@dataclass(frozen=True)
class UploadLimits:
    """The caps on what a visitor's uploads may hold. A shipped pack has at most 41 fields in a row
    and 74 different fields in all; the largest holds 1,632 rows. Every step after reading a file
    (validation, merging, comparing, the CSV) is linear in rows x fields, so these caps bound its time
    as well as its memory (lib.recorded.upload_budget keeps the session's and the server's)."""

    file_bytes: int = MAX_UPLOAD_BYTES
    file_rows: int = 20_000
    row_keys: int = 200  # fields in one row
    file_keys: int = 400  # different fields across one file's rows
    file_machines: int = 64  # machines in one file: fingerprints in 'machines', names in the rows
    session_files: int = 10
    session_rows: int = 30_000
    session_bytes: int = 25_000_000  # the files as uploaded (Streamlit keeps them for the session)
    session_keys: int = 800  # different fields across the session's files
    server_rows: int = 120_000  # every session's uploads together
    server_bytes: int = 100_000_000


def check_shape(pack: JsonObject, limits: UploadLimits) -> None:
    """PackError naming the first cap the pack is over: rows, fields in a row, fields in all, machines."""
    rows = pack["rows"]
    if len(rows) > limits.file_rows:
        raise PackError(f"rows: {len(rows):,} rows, more than the {limits.file_rows:,} one file may hold")
    machines = pack.get("machines") or []
    if len(machines) > limits.file_machines:
        raise PackError(f"machines: {len(machines):,} machines, more than the {limits.file_machines} one file may name")
    keys: set[str] = set()
    labels: set[Any] = set()  # a chart draws a curve per machine and device
    for i, row in enumerate(rows):
        if len(row) > limits.row_keys:
            raise PackError(f"rows[{i}]: {len(row):,} fields, more than the {limits.row_keys} a result row may have")
        keys.update(row)
        labels.add(row.get("machine"))
        if len(labels) > limits.file_machines:
            raise PackError(f"rows[{i}].machine: more than {limits.file_machines} different machines in one file")
        if len(keys) > limits.file_keys:
            raise PackError(
                f"rows: more than {limits.file_keys} different fields across the rows (a result pack has under 100)"
            )


def compact(pack: JsonObject) -> JsonObject:
    """The pack with every repeated text and whole number in its rows held once (a 5,000-row pack's
    'mlp', 'cpu', 'ok', machine names, sizes...): a parsed row drops from about 1.8 to 1.2 kB.
    In place, in one pass: no copy of the rows is made."""
    memo: dict[tuple[type, Any], Any] = {}
    for row in pack["rows"]:
        for key, value in row.items():
            kind = type(value)
            if kind is str or kind is int:
                row[key] = memo.setdefault((kind, value), value)
    return pack


def parse_upload(name: str, data: bytes, max_bytes: int = MAX_UPLOAD_BYTES, limits: UploadLimits | None = None) -> Pack:
    """A validated pack from an uploaded file, or PackError saying what is wrong with it. With
    `limits`, also within their per-file caps, and compacted (rows held as the pages use them)."""
    max_bytes = min(max_bytes, limits.file_bytes) if limits else max_bytes
    if len(data) > max_bytes:
        raise PackError(f"{name}: {len(data) / 1e6:.1f} MB is larger than the {max_bytes / 1e6:.0f} MB limit")
    if not data.strip():
        raise PackError(f"{name}: the file is empty")
    suffix = name.lower().rsplit(".", 1)[-1] if "." in name else ""
    if suffix not in ("json", "csv", ""):
        raise PackError(f"{name}: expected a .json result pack or a .csv of its rows")
    looks_json = suffix == "json" or data.lstrip()[:1] in (b"{", b"[")
    try:
        if looks_json:
            pack = loads_pack(data)
        else:
            pack = csv_to_pack(data, source=name)
        if limits:
            check_shape(pack, limits)
            compact(pack)
        return Pack.from_json(pack)
    except PackError as err:
        raise PackError(f"{name}: {err}") from None


@dataclass
class Source:
    """One pack on the page: an uploaded file or a pack shipped in lib/recorded/."""

    name: str  # the file name ('shipped: h200x4_ddp.json' for a shipped pack)
    pack: Pack | None = None
    error: str | None = None  # why the file was not used
    note: str | None = None  # why a readable file was still not used (a duplicate)
    shipped: bool = False

    @property
    def used(self) -> bool:
        return self.pack is not None and self.error is None and self.note is None


def _content_key(pack: Pack) -> str:
    body = json.dumps(
        {
            "machine": pack.machine.to_json(),
            "machines": [m.to_json() for m in pack.machines] or None,
            "rows": pack.rows,
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(body.encode()).hexdigest()


def read_uploads(
    files: Iterable[tuple[str, bytes]], max_bytes: int = MAX_UPLOAD_BYTES, limits: UploadLimits | None = None
) -> list[Source]:
    """Each (file name, bytes) as a Source: its validated pack, or the error naming file and field.
    A bad file never stops the others from being read."""
    sources = []
    for name, data in files:
        try:
            pack = parse_upload(name, data, max_bytes, limits)
        except PackError as err:
            sources.append(Source(name, error=str(err)))
        except RecursionError:
            sources.append(Source(name, error=f"{name}: nested too deeply to be a result pack"))
        except Exception as err:
            sources.append(
                Source(name, error=f"{name}: could not be read as a result pack ({type(err).__name__}: {err})")
            )
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
                src = Source(
                    src.name,
                    src.pack,
                    note=f"{src.name}: the same results as {seen[key]}, so used once",
                    shipped=src.shipped,
                )
            else:
                seen[key] = src.name
        out.append(src)
    return out


def _fallback_label(machine: Fingerprint, source: str) -> str:
    gpus = machine.gpus
    hardware = gpus[0] if gpus else machine.text("cpu_model")
    if not hardware or hardware == CSV_MACHINE:
        return source
    day = machine.date[:10]
    return f"{hardware} ({day})" if day else hardware


@dataclass(frozen=True)
class MachineEntry:
    """One machine of a merged pack: its unique label, its fingerprint (None when its file gave none,
    a CSV's), the files its rows came from, how many rows, and the threads its CPU rows used."""

    label: str
    fingerprint: Fingerprint | None
    sources: tuple[str, ...]
    rows: int = 0
    cpu_threads: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Combined:
    pack: Pack  # every used source merged; each row's 'machine' names its machine uniquely
    machines: tuple[MachineEntry, ...]  # one per machine label in the rows


@dataclass
class _Tally:
    """A machine's entry while combine reads the files."""

    fingerprint: Fingerprint | None
    sources: list[str]
    rows: int = 0
    cpu_threads: set[int] = field(default_factory=set)


def combine(sources: Sequence[Source]) -> Combined | None:
    """Merge the used sources into one pack. Two different machines (or a machine known only from
    a CSV) never share a label: a clash gets ' · <file name>' appended. None when nothing is used."""
    taken: dict[str, str] = {}  # label -> identity of the machine that holds it
    packs: list[JsonObject] = []
    machines: dict[str, _Tally] = {}
    for src in sources:
        if not src.used:
            continue
        pack = src.pack
        fingerprints = pack.fingerprints
        by_label = {m.label: m for m in fingerprints}
        default = pack.machine.label or _fallback_label(pack.machine, src.name)
        rename: dict[str, str] = {}
        for row in pack.rows:
            label = str(row.get("machine") or "") or default
            if label in rename:
                continue
            machine = by_label.get(label) or (pack.machine if len(fingerprints) == 1 else None)
            known = machine is not None and not machine.from_csv
            identity = machine.identity if known else f"{src.name}\n{label}"
            new, n = label, 1
            while new in taken and taken[new] != identity:
                n += 1
                new = f"{label} · {src.name}" + (f" ({n - 1})" if n > 2 else "")
            taken[new] = identity
            rename[label] = new
            tally = machines.setdefault(new, _Tally(machine if known else None, []))
            if src.name not in tally.sources:
                tally.sources.append(src.name)
        rows = []
        for row in pack.rows:
            label = rename[str(row.get("machine") or "") or default]
            # a row already under its label is kept as it is: the merged pack holds no second copy of it
            rows.append(row if row.get("machine") == label else {**row, "machine": label})
            machines[label].rows += 1
            if row.get("device") == "cpu" and isinstance(row.get("num_threads"), (int, float)):
                machines[label].cpu_threads.add(int(row["num_threads"]))
        relabelled = [m.named(rename.get(m.label, m.fields.get("label", ""))).to_json() for m in pack.machines]
        top = pack.machine.named(rename.get(pack.machine.label, pack.machine.label or default))
        packs.append(
            {
                "schema_version": pack.schema_version,
                "machine": top.to_json(),
                "rows": rows,
                **({"machines": relabelled} if relabelled else {}),
            }
        )
    if not packs:
        return None
    entries = tuple(
        MachineEntry(label, t.fingerprint, tuple(t.sources), t.rows, frozenset(t.cpu_threads))
        for label, t in machines.items()
    )
    return Combined(Pack.from_json(merge_packs(packs)), entries)


def _gpus_text(machine: Fingerprint) -> str:
    names = list(machine.gpus)
    return ", ".join(f"{names.count(n)}× {n}" if names.count(n) > 1 else n for n in dict.fromkeys(names)) or "none"


class MachineRow(NamedTuple):
    """One machine as a table row: what it was, where its numbers came from (MACHINE_COLUMNS names each)."""

    machine: str
    sources: str
    rows: int
    cpu: str
    cores: str
    torch_threads: str
    cpu_row_threads: str
    gpu: str
    driver: str
    torch: str
    cuda: str
    python: str
    date: str


MACHINE_COLUMNS = (
    "machine",
    "from",
    "rows",
    "CPU",
    "cores",
    "torch threads",
    "threads in CPU rows",
    "GPU",
    "driver",
    "torch",
    "CUDA",
    "Python",
    "date",
)


def machine_table(machines: Sequence[MachineEntry]) -> list[MachineRow]:
    """One row per machine for a table (its columns: MACHINE_COLUMNS)."""
    out = []
    for entry in machines:
        m = entry.fingerprint
        unknown = "not in the file" if m is None else "–"

        def get(key: str, m: Fingerprint | None = m, unknown: str = unknown) -> str:
            value = m.fields.get(key) if m is not None else None
            return unknown if value in (None, "") else str(value)

        out.append(
            MachineRow(
                entry.label,
                ", ".join(entry.sources),
                entry.rows,
                get("cpu_model"),
                get("cpu_cores"),
                get("torch_threads"),
                ", ".join(map(str, sorted(entry.cpu_threads))) or "–",
                _gpus_text(m) if m is not None else unknown,
                get("driver"),
                get("torch"),
                get("cuda"),
                get("python"),
                get("date")[:16].replace("T", " ") if m is not None and m.fields.get("date") else unknown,
            )
        )
    return out


_MARKDOWN = set("\\`*_[]<>$|~:#")
# Where markdown would make a link of bare text (GFM autolinks: http://, https://, www., mailto:, an
# address with @): a word joiner (U+2060, invisible, no line break) after ':' / before '.' / after
# '@' breaks the pattern, so the text is still read as it was written but nothing becomes a link.
WORD_JOINER = "\u2060"
_AUTOLINKS = (
    (re.compile(r"(?i)\b(https?|ftp|mailto|xmpp|file|javascript|data)(\\?:)"), "\\1\\2" + WORD_JOINER),
    (re.compile(r"(?i)\b(www)(\\?\.)"), "\\1" + WORD_JOINER + "\\2"),
    (re.compile("@"), "@" + WORD_JOINER),
)


def one_line(text: Any, limit: int = 200) -> str:
    """Text from a file as one line of at most `limit` characters: for places Streamlit shows as plain
    text (a select box's options), where markdown escapes would show as backslashes."""
    text = " ".join(str(text).split())
    return text[: limit - 1] + "…" if len(text) > limit else text


def plain(text: Any, limit: int = 200) -> str:
    """The one way text that is not the app's own (an uploaded file's names and settings, a link's
    values, a visitor's name) enters Streamlit markdown: one line, at most `limit` characters, every
    character markdown, its directives (:red[…]) or LaTeX ($…$) would act on escaped, and autolinks
    broken, so it reads as written and can neither link, load an image, style nor typeset."""
    escaped = "".join("\\" + ch if ch in _MARKDOWN else ch for ch in one_line(text, limit))
    for pattern, replacement in _AUTOLINKS:
        escaped = pattern.sub(replacement, escaped)
    return escaped


def text_only(text: Any, limit: int = 200) -> str:
    """A name for places that are text in one spot and markdown in another (a machine's name is a
    chart legend and a sentence): one line with the characters markdown acts on left out and
    autolinks broken, so it needs no escape anywhere. GPU and CPU names never hold those characters."""
    kept = "".join(ch for ch in one_line(text, limit) if ch not in _MARKDOWN)
    for pattern, replacement in _AUTOLINKS:
        kept = pattern.sub(replacement, kept)
    return kept


_NAME_FIELDS = ("label", "cpu_model", "driver", "torch", "cuda", "python", "platform", "date", "app_version")


def _safe_machine(machine: Fingerprint) -> Fingerprint:
    fields = machine.fields
    changes = {k: text_only(fields[k]) for k in _NAME_FIELDS if isinstance(fields.get(k), str)}
    if isinstance(fields.get("gpus"), list):
        changes["gpus"] = [text_only(g, 100) for g in fields["gpus"]]
    return Fingerprint(fields.with_(**changes))


def session_pack(pack: Pack) -> JsonObject:
    """An uploaded pack as every lesson page of the session reads it (the sidebar offers its GPU):
    its machine's names and its rows' machine labels through text_only, since those pages put them
    into sentences and legends alike. Your results shows the file itself, escaped with plain()."""
    names: dict[str, str] = {}  # each distinct name made safe once

    def safe(name: str) -> str:
        if name not in names:
            names[name] = text_only(name)
        return names[name]

    def row(r: JsonObject) -> JsonObject:
        changed = {
            k: safe(r[k]) for k in ("machine", "device_name") if isinstance(r.get(k), str) and safe(r[k]) != r[k]
        }
        return {**r, **changed} if changed else r  # most rows need no change: the same object, not a copy

    return replace(
        pack,
        machine=_safe_machine(pack.machine),
        rows=[row(r) for r in pack.rows],
        machines=tuple(_safe_machine(m) for m in pack.machines),
    ).to_json()
