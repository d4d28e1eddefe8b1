"""The result pack: one schema for live runs, recorded packs, uploads, downloads and the CLI.

    {"schema_version": 1,
     "machine": {...fingerprint...},          # where the rows were measured
     "machines": [{...}, ...],                # only in merged packs: every source machine
     "rows": [{"workload": "mlp", "batch_size": 64, ..., "device": "cuda:0",
               "median_s": 0.0012, "iqr_s": 0.0001, "repeats": 40, "status": "ok",
               "message": "", "machine": "NVIDIA H200 (2026-11-21)",
               "phase_transfer_s": ..., "epoch_s": ...}, ...]}

Every row names its own machine and day in `machine`: the `label` of the fingerprint it was
measured on ('NVIDIA H200 (2026-11-21)'). A pack merged from several machines (merge_packs,
`python -m lib merge` of different machines' packs) keeps each source's full fingerprint, date
included, in `machines` (a row's `machine` is one of their labels), and its `machine` only sums
them up ('several', the newest date, 'merged: A; B'). Packs without `machines` (every pack of one
machine, and every pack written before merging kept them) read as before.

A row's settings are its keys that are not reserved fields (ROW_FIELDS, OPTIONAL_NUMBER_FIELDS,
and anything starting with 'phase_').
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lib.core.files import NotReadable, TooLarge, count_items, read_bounded, write_file
from lib.core.host import HOST_COUNT_FIELDS, HOST_FLAG_FIELDS, HOST_NUMBER_FIELDS, host_over_runs
from lib.core.load import LoadFields
from lib.core.point import Point

SCHEMA_VERSION = 1
STATUSES = ("ok", "oom", "skipped", "error")

# Every row has these; median_s / iqr_s may be null unless status is ok.
ROW_FIELDS = ("workload", "device", "median_s", "iqr_s", "repeats", "status", "message")
# Measured or derived numbers a row may carry.
OPTIONAL_NUMBER_FIELDS = (
    "cold_s",
    "epoch_s",
    "steps_per_epoch",
    "flops",
    "bytes",
    "peak_memory_estimate_bytes",
    "num_threads",
    "calls_per_repeat",
    "kernels",
    "device_busy_s",
    "achieved_flops_per_s",
    # multi-GPU (ddp): throughput, scaling, gradient exchange, measured peak memory
    "samples_per_s",
    "scaling_efficiency",
    "grad_bytes",
    "allreduce_s",
    "allreduce_gbps",
    "peak_memory_bytes",
    # workloads: DataLoader batches in one epoch (one call), checksum of the initial weights
    "batches_per_epoch",
    "initial_weights_abs_sum",
    # derived and predicted points: the band of a prediction, the model's share of issuing work
    "epoch_s_low",
    "epoch_s_high",
    "median_s_low",
    "median_s_high",
    "launch_share",
)
# data_note: what data really ran (fallbacks, subsets); note: other remarks on the point
OPTIONAL_TEXT_FIELDS = ("machine", "device_name", "variant", "origin", "origin_note", "swept", "data_note", "note")
RESERVED = set(ROW_FIELDS) | set(OPTIONAL_NUMBER_FIELDS) | set(OPTIONAL_TEXT_FIELDS)
REQUIRED_MACHINE_FIELDS = ("cpu_model", "torch", "date")
# The most JSON one pack file may hold, compressed or not (the largest shipped pack is ~1.5 MB).
MAX_PACK_BYTES = 64_000_000
# The most JSON values one pack may hold (lib.core.files.count_items; the largest shipped pack has
# about 70,000): each costs up to ~100 bytes parsed, so a pack stays within a few hundred MB.
MAX_PACK_VALUES = 2_000_000
# A machine's fingerprint (lib.core.devices.machine_fingerprint): each field's type is checked, so a
# page never meets `"gpus": 5`. Other fields (a later app's) must be plain values.
MACHINE_TEXT_FIELDS = (
    "cpu_model",
    "torch",
    "date",
    "label",
    "driver",
    "cuda",
    "python",
    "platform",
    "app_version",
    "path",
)
MACHINE_COUNT_FIELDS = ("cpu_cores", "torch_threads", *HOST_COUNT_FIELDS)
MACHINE_NUMBER_FIELDS = (
    "host_memory_gb",
    "load_other_cpu_share",
    "load_avg_before",
    "load_avg_after",
    "load_reference_before_s",
    "load_reference_after_s",
    "load_reference_best_s",
    "load_wall_s",
    *HOST_NUMBER_FIELDS,  # how fast the host itself was (lib.core.host)
)
# Whether the machine was quiet while it recorded (lib.core.load), and whether its host was slow for its kind
# (lib.core.host_verdict): true, false, or null (not known)
MACHINE_FLAG_FIELDS = ("load_quiet", *HOST_FLAG_FIELDS)
MAX_GPUS = 64
# The largest magnitude any number in a pack may have: far above any time, size or FLOP count a
# machine records, and small enough to be a float without overflow (a 400-digit int is not).
MAX_NUMBER = 10**18


class PackError(ValueError):
    """A pack (or CSV) that does not validate; the message names the bad field."""


def setting_keys(row: dict[str, Any]) -> list[str]:
    return [k for k in row if k not in RESERVED and not k.startswith("phase_")]


def phase_keys(row: dict[str, Any]) -> list[str]:
    return [k for k in row if k.startswith("phase_") and k.endswith("_s")]


def _is_number(value: Any) -> bool:
    """A finite int or float no larger than MAX_NUMBER (a huge int would overflow float())."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):
        return -MAX_NUMBER <= value <= MAX_NUMBER
    return math.isfinite(value) and abs(value) <= MAX_NUMBER


def validate_row(row: Any, where: str) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise PackError(f"{where}: expected an object, got {type(row).__name__}")
    for key in ROW_FIELDS:
        if key not in row:
            raise PackError(f"{where}.{key}: missing")
    if not isinstance(row["workload"], str) or not row["workload"]:
        raise PackError(f"{where}.workload: must be a non-empty string")
    if not isinstance(row["device"], str) or not row["device"]:
        raise PackError(f"{where}.device: must be a non-empty string")
    if row["status"] not in STATUSES:
        raise PackError(f"{where}.status: must be one of {', '.join(STATUSES)}, got {row['status']!r}")
    if not isinstance(row["message"], str):
        raise PackError(f"{where}.message: must be a string")
    if not (isinstance(row["repeats"], int) and _is_number(row["repeats"]) and row["repeats"] >= 0):  # not 400 digits
        raise PackError(
            f"{where}.repeats: must be a whole number from 0 to {MAX_NUMBER:.0e}, got {_short(row['repeats'])}"
        )
    for key in ("median_s", "iqr_s"):
        value = row[key]
        if row["status"] == "ok":
            if not _is_number(value) or value < 0:
                raise PackError(f"{where}.{key}: must be a number >= 0 when status is ok, got {value!r}")
        elif value is not None and (not _is_number(value) or value < 0):
            raise PackError(f"{where}.{key}: must be null or a number >= 0, got {value!r}")
    if row["status"] == "ok" and row["repeats"] < 1:
        raise PackError(f"{where}.repeats: an ok row needs at least one repeat")
    # every measured or derived number is a time, a count, a size, a rate or a share: none is below 0
    for key in list(OPTIONAL_NUMBER_FIELDS) + phase_keys(row):
        if key in row and row[key] is not None and not (_is_number(row[key]) and row[key] >= 0):
            raise PackError(f"{where}.{key}: must be a number >= 0 or null, got {_short(row[key])}")
    for key in OPTIONAL_TEXT_FIELDS:
        if key in row and row[key] is not None and not isinstance(row[key], str):
            raise PackError(f"{where}.{key}: must be text or null, got {type(row[key]).__name__}")
    for key in setting_keys(row):
        _check_plain(row[key], f"{where}.{key}", "a setting")
    return row


def _check_plain(value: Any, where: str, what: str) -> None:
    """A setting (or an unknown machine field): null, text, true/false or a number in range."""
    if value is None or isinstance(value, (str, bool)):
        return
    if isinstance(value, (int, float)):
        if not _is_number(value):
            raise PackError(
                f"{where}: {what} must be a finite number of at most {MAX_NUMBER:.0e} in size, got {_short(value)}"
            )
        return
    raise PackError(f"{where}: {what} must be a plain value, got {type(value).__name__}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}… ({len(text)} characters)"


def validate_machine(machine: Any, where: str = "machine") -> dict[str, Any]:
    if not isinstance(machine, dict):
        raise PackError(f"{where}: expected an object describing the machine")
    for key in REQUIRED_MACHINE_FIELDS:
        if key not in machine:
            raise PackError(f"{where}.{key}: missing")
    for key, value in machine.items():
        at = f"{where}.{key}"
        if key in MACHINE_TEXT_FIELDS:
            if not (isinstance(value, str) or (value is None and key not in REQUIRED_MACHINE_FIELDS)):
                raise PackError(f"{at}: must be text, got {_short(value)}")
        elif key in MACHINE_COUNT_FIELDS:
            if value is not None and not (isinstance(value, int) and _is_number(value) and value >= 0):
                raise PackError(f"{at}: must be a whole number >= 0 or null, got {_short(value)}")
        elif key in MACHINE_NUMBER_FIELDS:
            if value is not None and not (_is_number(value) and value >= 0):
                raise PackError(f"{at}: must be a number >= 0 or null, got {_short(value)}")
        elif key in MACHINE_FLAG_FIELDS:
            if value is not None and not isinstance(value, bool):
                raise PackError(f"{at}: must be true, false or null, got {_short(value)}")
        elif key == "gpus":
            if value is None:
                continue
            if not isinstance(value, list) or len(value) > MAX_GPUS:
                raise PackError(f"{at}: must be a list of at most {MAX_GPUS} GPU names, got {_short(value)}")
            for i, name in enumerate(value):
                if not isinstance(name, str):
                    raise PackError(f"{at}[{i}]: a GPU name must be text, got {_short(name)}")
        else:
            _check_plain(value, at, "a machine field")
    return machine


def validate_pack(pack: Any) -> dict[str, Any]:
    """Return the pack if it validates, else raise PackError naming the first bad field."""
    if not isinstance(pack, dict):
        raise PackError(f"pack: expected a JSON object, got {type(pack).__name__}")
    if "schema_version" not in pack:
        raise PackError("schema_version: missing")
    # `true == 1` in Python: the version must be the whole number itself, not a value equal to it
    if type(pack["schema_version"]) is not int or pack["schema_version"] != SCHEMA_VERSION:
        raise PackError(f"schema_version: this app reads version {SCHEMA_VERSION}, got {pack['schema_version']!r}")
    validate_machine(pack.get("machine"), "machine")
    for i, machine in enumerate(pack.get("machines", []) or []):
        validate_machine(machine, f"machines[{i}]")
    rows = pack.get("rows")
    if not isinstance(rows, list):
        raise PackError("rows: missing or not a list")
    for i, row in enumerate(rows):
        validate_row(row, f"rows[{i}]")
    return pack


def build_pack(points: Iterable[Point | dict[str, Any]], machine: dict[str, Any] | None = None) -> dict[str, Any]:
    """A validated pack of these points (or rows) measured on `machine` (default: this one's fingerprint)."""
    if machine is None:
        from lib.core.devices import machine_fingerprint

        machine = machine_fingerprint()
    rows = [p.to_row() if isinstance(p, Point) else dict(p) for p in points]
    for row in rows:
        row.setdefault("machine", machine.get("label", ""))
    return validate_pack({"schema_version": SCHEMA_VERSION, "machine": machine, "rows": rows})


def pack_points(pack: dict[str, Any]) -> list[Point]:
    """A validated pack's rows as points."""
    return [Point.from_row(r) for r in pack["rows"]]


def dumps_pack(pack: dict[str, Any]) -> str:
    return json.dumps(validate_pack(pack), indent=1, sort_keys=False)


def save_pack(pack: dict[str, Any], path: str | Path) -> Path:
    """Write the pack as JSON; gzip-compressed when the name ends in .gz (the shipped grids are
    large and repetitive). Written to a temporary file first, so a cut-off run never leaves half a pack."""
    path = Path(path)
    if path.suffix == ".gz":
        data = gzip.compress(json.dumps(validate_pack(pack), separators=(",", ":")).encode("utf-8"), mtime=0)
    else:
        data = dumps_pack(pack).encode("utf-8")
    return write_file(path, data)


def loads_pack(text: str | bytes) -> dict[str, Any]:
    """Parse JSON text as data only (no pickle, no torch.load) and validate it. Bounded before it is
    parsed: at most MAX_PACK_VALUES values (lib.core.files.count_items), and nesting no deeper than
    the parser's own limit (a pack's values are three levels deep; 100,000 brackets are refused)."""
    if count_items(text) > MAX_PACK_VALUES:
        raise PackError(f"holds more than {MAX_PACK_VALUES:,} values, more than a pack may hold; not read")
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise PackError(f"not valid JSON: {err}") from None
    except RecursionError:
        raise PackError("nested too deeply: a pack's rows hold plain values, not lists in lists") from None
    return validate_pack(obj)


def load_pack(path: str | Path, max_bytes: int = MAX_PACK_BYTES) -> dict[str, Any]:
    """A validated pack from a .json or .json.gz file. At most `max_bytes` of JSON and MAX_PACK_VALUES
    values are read, counted as the file is read (and inflated): a few kilobytes of gzip can expand to
    gigabytes (a 'gzip bomb'), so reading stops past either bound, before anything is parsed."""
    path = Path(path)
    try:
        return loads_pack(read_bounded(path, max_bytes, MAX_PACK_VALUES))
    except (PackError, TooLarge, NotReadable) as err:
        raise PackError(f"{path.name}: {err}") from None  # the file's name, not the server's folders


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: Any) -> Any:
    """A value as a CSV cell a spreadsheet shows as data: text starting with = + - @, a tab or a
    carriage return would run as a formula (=HYPERLINK(...), +cmd|...), so it gets a leading single
    quote, as spreadsheets themselves write it; numbers (a negative one too) and text that reads as
    a number stay as they are. Text whose quotes are followed by such a character gets one more
    quote too, so csv_to_pack takes exactly one away again."""
    if not isinstance(value, str) or not value:
        return value
    if not value.lstrip("'").startswith(FORMULA_STARTS):
        return value
    try:
        if math.isfinite(float(value)):
            return value
    except ValueError:
        pass
    return "'" + value


def spreadsheet_csv(rows: Iterable[dict[str, Any]], first: Iterable[str] = ()) -> str:
    """The one writer of every CSV the app offers: a column per key (`first` ones first), None as
    an empty cell, every cell through spreadsheet_cell."""
    rows = list(rows)
    # a dict keeps the order of first appearance with a constant-time lookup: a list's `in` made this
    # grow with the square of the keys (80,000 keys in one row took seconds)
    columns = dict.fromkeys(first)
    for row in rows:
        columns.update(dict.fromkeys(row))
    out = io.StringIO()
    # Lines end in CRLF (RFC 4180): Python's writer quotes a cell holding the line terminator's
    # characters only, so with a bare LF a CR inside a cell would end the row in a reader.
    writer = csv.DictWriter(
        out, fieldnames=[spreadsheet_cell(c) for c in columns], extrasaction="ignore", lineterminator="\r\n"
    )
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {spreadsheet_cell(k): ("" if row.get(k) is None else spreadsheet_cell(row.get(k))) for k in columns}
        )
    return out.getvalue()


def rows_to_csv(rows: Iterable[dict[str, Any]]) -> str:
    return spreadsheet_csv(rows, ROW_FIELDS)


def pack_to_csv(pack: dict[str, Any]) -> str:
    return rows_to_csv(validate_pack(pack)["rows"])


def _from_csv_cell(text: str) -> Any:
    if text == "":
        return None
    if text[:1] == "'" and text.lstrip("'").startswith(FORMULA_STARTS):
        return text[1:]  # written by spreadsheet_cell: one quote added
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if number.is_integer() and "." not in text and "e" not in lowered else number


def csv_to_pack(text: str | bytes, source: str = "CSV upload") -> dict[str, Any]:
    """Rows from a CSV written by rows_to_csv; the machine is taken from the 'machine' column."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise PackError(f"CSV is not UTF-8 text: {err}") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    missing = [c for c in ROW_FIELDS if c not in header]
    if missing:
        raise PackError(f"CSV column {missing[0]}: missing (a result CSV needs {', '.join(ROW_FIELDS)})")
    rows = []
    for i, raw in enumerate(reader):
        row = {k: _from_csv_cell(v or "") for k, v in raw.items() if k is not None}
        row["message"] = "" if row.get("message") is None else str(row["message"])
        for key in ("workload", "device", "status"):
            row[key] = "" if row.get(key) is None else str(row[key])
        for key in OPTIONAL_TEXT_FIELDS:  # a label '2' is text, not the number 2
            if row.get(key) is not None:
                row[key] = str(row[key])
        rows.append(validate_row(row, f"CSV line {i + 2}"))
    if not rows:
        raise PackError("CSV: no rows")
    labels = sorted({str(r.get("machine") or source) for r in rows})
    machine = {"cpu_model": "unknown (from CSV)", "torch": "unknown", "date": "", "label": " / ".join(labels)}
    return validate_pack({"schema_version": SCHEMA_VERSION, "machine": machine, "rows": rows})


_IDENTITY_FIELDS = ("cpu_model", "cpu_cores", "torch_threads", "gpus", "driver", "torch", "cuda", "python")


def same_hardware(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two fingerprints of one machine and software stack, recorded on any day."""
    return all(a.get(k) == b.get(k) for k in _IDENTITY_FIELDS)


def same_machine(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two fingerprints of one machine and software stack (runs minutes apart share a label)."""
    return same_hardware(a, b) and a.get("label") == b.get("label")


def one_machine_over(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The first run's fingerprint of one machine, with the load of every run folded in (runs one after another
    on one machine, merged into one pack)."""
    machine = runs[0]
    for later in runs[1:]:
        machine = _both_runs(machine, later)
    return machine


def _both_runs(first: dict[str, Any], later: dict[str, Any]) -> dict[str, Any]:
    """One machine's fingerprint over two runs merged into one pack: quiet only if both were, the worst of
    each load figure (keeping the first run's load alone would call a pack quiet whose later rows were not),
    and the slowest of each host figure."""
    a, b = LoadFields.of(first), LoadFields.of(later)
    host = host_over_runs(first, later)
    if a is None and b is None:
        return {**first, **host} if host else first
    both = b.after(a) if a is not None and b is not None else (a or b).after(None)
    return {**first, **both.as_machine(), **host}


def merge_packs(packs: list[dict[str, Any]]) -> dict[str, Any]:
    """One pack holding every row, each row labelled with the machine it came from."""
    if not packs:
        raise PackError("nothing to merge")
    by_identity: dict[str, dict[str, Any]] = {}  # one per same_machine identity, in order: linear, not pairwise
    rows: list[dict[str, Any]] = []
    for pack in packs:
        if not (
            isinstance(pack, dict)
            and type(pack.get("schema_version")) is int
            and pack["schema_version"] == SCHEMA_VERSION
            and isinstance(pack.get("machine"), dict)
            and isinstance(pack.get("rows"), list)
        ):
            validate_pack(pack)  # says what is wrong; rows and machines are checked once, in the merged pack
        sources = pack.get("machines") or [pack["machine"]]
        for m in sources:
            key = json.dumps([m.get(k) for k in (*_IDENTITY_FIELDS, "label")], default=repr)
            by_identity[key] = _both_runs(by_identity[key], m) if key in by_identity else m
        label = pack["machine"].get("label", "")
        # a row that names its machine is kept as it is (the same object): a merge holds no second copy
        rows.extend(row if row.get("machine") else {**row, "machine": label} for row in pack["rows"])
    machines = list(by_identity.values())
    if len(machines) == 1:
        return validate_pack({"schema_version": SCHEMA_VERSION, "machine": machines[0], "rows": rows})
    merged_machine = {
        "cpu_model": "several",
        "torch": "several",
        "date": max(str(m.get("date", "")) for m in machines),
        "label": "merged: " + "; ".join(str(m.get("label", "?")) for m in machines),
    }
    return validate_pack(
        {"schema_version": SCHEMA_VERSION, "machine": merged_machine, "machines": machines, "rows": rows}
    )
