"""What goes into the gallery: an uploaded file checked and reduced to the gallery sweep, before
any database is touched. No SQLAlchemy here.

    candidate = prepare_upload("my_machine.json", data, max_bytes=...)   # GalleryError says what is wrong
    candidate.pack, candidate.content_key, candidate.hardware, ...
    shipped_gallery_packs()       # the shipped packs that hold the sweep (H200, H100), read-only

Display names and machine strings are stored as plain text (control characters removed, length
capped) and escaped where they are rendered (lib.recorded.uploads.plain, st.dataframe).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lib.core.results import (
    MACHINE_COUNT_FIELDS,
    MACHINE_NUMBER_FIELDS,
    MACHINE_TEXT_FIELDS,
    OPTIONAL_NUMBER_FIELDS,
    ROW_FIELDS,
    SCHEMA_VERSION,
    PackError,
    validate_pack,
)
from lib.core.rows import Status
from lib.recorded import load_recordings, machine_recordings, recorded_dir
from lib.recorded.gallery.sweep import GALLERY_SWEEP, gallery_rows
from lib.recorded.pack import Fingerprint, JsonObject, Pack
from lib.recorded.uploads import parse_upload

MAX_NAME_CHARS = 40
# What an entry keeps of a row: its numbers and settings, nothing a file may pad it with.
ROW_TEXT_KEPT = ("swept", "machine", "device_name", "variant", "origin")
PHASES_KEPT = ("phase_transfer_s", "phase_compute_s", "phase_overhead_s", "phase_loading_s", "phase_comm_s")
MACHINE_KEPT = (
    tuple(k for k in MACHINE_TEXT_FIELDS if k != "path") + MACHINE_COUNT_FIELDS + MACHINE_NUMBER_FIELDS + ("gpus",)
)
COURSE_CODE = re.compile(r"^[A-Z0-9][A-Z0-9-]{2,23}$")
REFERENCE_DIR = "gallery"  # lib/recorded/gallery/*.json: packs shown in the gallery only (not in the sidebar)


class GalleryError(ValueError):
    """A request the gallery refuses; `kind` says which rule (for tests and icons), the message why."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def clean_text(value: Any, limit: int) -> str:
    """One line of printable text, at most `limit` characters (NUL and other control characters go:
    PostgreSQL refuses NUL, and a name must not carry line breaks or direction overrides)."""
    text = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in str(value if value is not None else ""))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clean_name(name: Any) -> str:
    """The display name as stored, or GalleryError when nothing readable is left."""
    text = clean_text(name, 10_000)
    if not text:
        raise GalleryError("bad_name", "Give a display name (any nickname; no real name needed).")
    if len(text) > MAX_NAME_CHARS:
        raise GalleryError("bad_name", f"The display name is {len(text)} characters; at most {MAX_NAME_CHARS}, please.")
    return text


def normalize_course(code: Any) -> str:
    """'ml101 ' -> 'ML101'; '' (no course) stays ''; anything else that is not 3-24 letters, digits
    or dashes is a GalleryError."""
    text = str(code or "").strip().upper()
    if text and not COURSE_CODE.match(text):
        raise GalleryError("bad_course", "A course code is 3 to 24 letters, digits or dashes (like ML101-2026).")
    return text


def content_key(pack: Pack) -> str:
    """The same machine and rows: the same entry, whatever the file's other fields."""
    body = json.dumps({"machine": pack.machine.to_json(), "rows": pack.rows}, sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()


@dataclass(frozen=True)
class Candidate:
    """A validated pack holding only the gallery sweep's rows, with what the gallery lists of it."""

    pack: Pack
    pack_json: str
    content_key: str
    left_out: int  # rows of the upload that are not points of the gallery sweep

    @property
    def machine(self) -> Fingerprint:
        return self.pack.machine

    @property
    def devices(self) -> list[str]:
        return list(dict.fromkeys(str(r["device"]) for r in self.pack.rows))

    @property
    def gpus(self) -> list[str]:
        return [clean_text(g, 100) for g in self.machine.gpus]

    @property
    def hardware(self) -> str:
        """What the GPU side ran on, or the CPU for a CPU-only pack."""
        on_gpu = any(d != "cpu" for d in self.devices)
        return self.gpus[0] if on_gpu and self.gpus else clean_text(self.machine.text("cpu_model"), 200)


def _one_machine(pack: Pack) -> None:
    labels = {str(r.get("machine") or "") for r in pack.rows}
    if len(pack.machines) > 1 or len(labels) > 1:
        raise GalleryError(
            "several_machines",
            "This pack holds several machines (a merged download?). The gallery "
            "takes one machine per entry: upload each machine's own pack.",
        )


def _slim_machine(machine: Fingerprint) -> JsonObject:
    """The fingerprint's known fields, text capped: an entry is small whatever the file carried."""
    out = {k: machine.fields[k] for k in MACHINE_KEPT if k in machine.fields}
    for key in MACHINE_TEXT_FIELDS:
        if isinstance(out.get(key), str):
            out[key] = clean_text(out[key], 200)
    if isinstance(out.get("gpus"), list):
        out["gpus"] = [clean_text(g, 100) for g in out["gpus"][:16]]
    return out


def _slim_row(row: JsonObject) -> JsonObject:
    """A gallery row as its numbers and its workload's settings only (the sweep's workload knows
    them): padding keys, unknown phases and long messages are left out."""
    from lib.workloads import get_workload

    settings = [s.name for s in get_workload(GALLERY_SWEEP.workload).settings]
    out = {k: row[k] for k in (*ROW_FIELDS, *OPTIONAL_NUMBER_FIELDS, *PHASES_KEPT, *settings) if k in row}
    for key in ROW_TEXT_KEPT:
        if isinstance(row.get(key), str):
            out[key] = clean_text(row[key], 200)
    out["message"] = clean_text(row.get("message"), 300)
    return out


def prepare_pack(pack: Pack, max_rows: int = 200) -> Candidate:
    """Reduce a validated pack to the gallery sweep, or GalleryError saying why it cannot join."""
    _one_machine(pack)
    if pack.machine.from_csv:
        raise GalleryError(
            "no_fingerprint",
            "A CSV has no machine fingerprint (CPU, GPU, torch, date); upload the JSON result pack instead.",
        )
    rows = gallery_rows(pack.rows)
    measured = {r[GALLERY_SWEEP.over] for r in rows if r["status"] == Status.OK}
    if len(measured) < 2:
        raise GalleryError(
            "not_gallery_sweep",
            f"This pack has {len(measured)} measured point(s) of the gallery's sweep ({GALLERY_SWEEP.describe()}); "
            "it needs at least two. Record it with scripts/record_for_gallery.py or the notebook.",
        )
    if len(rows) > max_rows:
        raise GalleryError("too_big", f"This pack has {len(rows)} rows of the gallery sweep; at most {max_rows}.")
    machine = _slim_machine(pack.machine)
    rows = [_slim_row(r) for r in rows]
    kept = validate_pack({"schema_version": SCHEMA_VERSION, "machine": machine, "rows": rows})
    text = json.dumps(kept, sort_keys=True, separators=(",", ":"))
    slim = Pack.from_json(kept)
    return Candidate(slim, text, content_key(slim), len(pack.rows) - len(rows))


def prepare_upload(file_name: str, data: bytes, max_bytes: int, max_rows: int = 200) -> Candidate:
    """An uploaded file read as data only (lib.recorded.uploads.parse_upload), then prepare_pack."""
    shown = clean_text(file_name, 80) or "the file"
    if len(data) > max_bytes:
        raise GalleryError(
            "too_big",
            f"{shown}: {len(data) / 1e6:.2f} MB is larger than the gallery's {max_bytes / 1e6:.2f} MB limit per pack.",
        )
    try:
        pack = parse_upload(shown, data, max_bytes)
    except PackError as err:
        raise GalleryError("malformed", f"Not a result pack: {err}") from None
    except (RecursionError, ValueError, TypeError) as err:  # an untrusted file must never break the page
        raise GalleryError("malformed", f"{shown}: could not be read as a result pack ({type(err).__name__})") from None
    try:
        return prepare_pack(pack, max_rows)
    except GalleryError:
        raise
    except (PackError, ValueError, TypeError, KeyError, AttributeError, OverflowError, RecursionError) as err:
        # validation should have caught it; if a field still surprises the reduction, say which file
        raise GalleryError(
            "malformed", f"{shown}: could not be read as a result pack ({type(err).__name__}: {clean_text(err, 200)})"
        ) from None


def shipped_gallery_packs() -> list[tuple[str, Pack]]:
    """(file stem, pack reduced to the gallery sweep) for every shipped pack that holds it: the
    sidebar's packs (lib/recorded/) and those shipped for the gallery only (lib/recorded/gallery/)."""
    recordings = machine_recordings()[0]  # one shipped sweep per machine: a lease is a day of its band, not another
    extra_dir = recorded_dir() / REFERENCE_DIR
    if extra_dir.is_dir():
        recordings += load_recordings(extra_dir)[0]
    out = []
    for recording in recordings:
        try:
            candidate = prepare_pack(recording.file_pack)
        except GalleryError:
            continue
        out.append((Path(recording.path).stem, candidate.pack))
    return out
