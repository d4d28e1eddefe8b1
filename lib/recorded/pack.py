"""A validated result pack as typed values: the fingerprint of each machine it names, and its rows.

    pack = Pack.from_json(validate_pack(obj))     # lib.core.results read and validated the file
    pack.machine.label, pack.machine.gpus, pack.rows
    pack.to_json()                                 # the file's shape again, for lib.core.results

A fingerprint keeps every field its file gave (a later app's extra fields too), so a pack written back
holds what was read; the fields the app reads are its properties.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lib.core.point import Frozen
from lib.core.results import SCHEMA_VERSION

JsonObject = dict[str, Any]  # a JSON object as a pack file holds it: lib.core.results reads, checks and writes it
_PACK_FIELDS = ("schema_version", "machine", "machines", "rows")
CSV_MACHINE = "unknown (from CSV)"  # the cpu_model lib.core.results.csv_to_pack gives a CSV's machine


def gpu_names(machine: object) -> list[str]:
    """The GPU names of a fingerprint as text, whatever the file held there (a pack validated by
    lib.core.results has a list of text; a pack from elsewhere may not, and must not break a page)."""
    if isinstance(machine, Fingerprint):
        machine = machine.fields
    gpus = machine.get("gpus") if isinstance(machine, Mapping) else None
    if isinstance(gpus, str):
        gpus = [gpus]
    return [str(g) for g in gpus if g] if isinstance(gpus, (list, tuple)) else []


@dataclass(frozen=True)
class Fingerprint:
    """A machine as its pack describes itself: CPU, cores, GPUs, driver, versions, the day it measured."""

    fields: Frozen  # every field of the file's object, as it was

    @classmethod
    def from_json(cls, machine: Mapping[str, Any]) -> Fingerprint:
        return cls(Frozen(machine))

    def text(self, key: str) -> str:
        """A field as text, '' where the file gave none."""
        value = self.fields.get(key)
        return "" if value is None else str(value)

    @property
    def label(self) -> str:
        return self.text("label")

    @property
    def date(self) -> str:
        return self.text("date")

    @property
    def gpus(self) -> tuple[str, ...]:
        return tuple(gpu_names(self.fields))

    def count(self, key: str) -> int | None:
        """A whole-number field (cpu_cores, torch_threads), None where the file gave none or something else."""
        value = self.fields.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def cpu_cores(self) -> int | None:
        return self.count("cpu_cores")

    @property
    def torch_threads(self) -> int | None:
        return self.count("torch_threads")

    @property
    def from_csv(self) -> bool:
        """A CSV's stand-in: the file named no machine."""
        return self.fields.get("cpu_model") == CSV_MACHINE

    @property
    def identity(self) -> str:
        """The same hardware and software, whenever it measured (packs recorded minutes apart differ only in date)."""
        return json.dumps(
            {k: v for k, v in self.fields.items() if k not in ("label", "date")}, sort_keys=True, default=str
        )

    def named(self, label: str | None) -> Fingerprint:
        return Fingerprint(self.fields.with_(label=label))

    def to_json(self) -> JsonObject:
        return dict(self.fields)


@dataclass(frozen=True)
class Pack:
    """A result pack lib.core.results validated: its machine, the machines a merged pack holds, its rows."""

    machine: Fingerprint
    rows: list[JsonObject]  # each row a point's shape in the file (lib.core.rows), as validated
    machines: tuple[Fingerprint, ...] = ()  # a merged pack's machines, each named by its rows' 'machine'
    schema_version: int = SCHEMA_VERSION
    extra: Frozen = Frozen()  # the file's other top-level fields (a seeds pack's 'curves'), as they were

    @classmethod
    def from_json(cls, pack: Mapping[str, Any]) -> Pack:
        """The pack from a validated JSON object (its rows are the object's, not copies)."""
        return cls(
            Fingerprint.from_json(pack["machine"]),
            pack["rows"],
            tuple(Fingerprint.from_json(m) for m in pack.get("machines") or () if isinstance(m, Mapping)),
            pack["schema_version"],
            Frozen((k, v) for k, v in pack.items() if k not in _PACK_FIELDS),
        )

    @property
    def fingerprints(self) -> tuple[Fingerprint, ...]:
        """Every machine the pack describes: a merged pack's list, else its one machine."""
        return self.machines or (self.machine,)

    def to_json(self) -> JsonObject:
        """The pack as lib.core.results writes it (its fields in the order merge_packs gives them)."""
        out: JsonObject = {"schema_version": self.schema_version, "machine": self.machine.to_json()}
        if self.machines:
            out["machines"] = [m.to_json() for m in self.machines]
        return {**out, "rows": self.rows, **self.extra}
