"""Recorded step timelines (lib.core.timeline), shipped in lib/recorded/timelines/, and the one that
matches a view.

    found = find_timeline(load_timelines()[0], "mlp", settings, device_kind="cuda", machine="NVIDIA H200")

A timelines file that does not validate is left out and named; the others are still used.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lib.core.cache import kept
from lib.core.rows import Status
from lib.core.step_timeline import Timeline, TimelineError, TimelinesFile, read_timelines
from lib.recorded import recorded_dir
from lib.recorded.sources import hardware_text


def timelines_dir() -> Path:
    return recorded_dir() / "timelines"


@kept(4)
def _load(stamp: tuple) -> tuple[tuple[TimelinesFile, ...], tuple[str, ...]]:
    files, problems = [], []
    for path, _, _ in stamp:
        try:
            data = Path(path).read_bytes()
            obj = json.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
            files.append(read_timelines(obj, path))
        except (OSError, ValueError, TimelineError) as err:
            problems.append(f"{Path(path).name}: {err}")
    return tuple(files), tuple(problems)


def load_timelines(directory: Path | None = None) -> tuple[list[TimelinesFile], list[str]]:
    """Every timelines file (parsed once per process, again when a file changes)."""
    folder = directory or timelines_dir()
    paths = sorted([*folder.glob("*.json"), *folder.glob("*.json.gz")]) if folder.is_dir() else []
    files, problems = _load(tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in paths))
    return list(files), list(problems)


def find_timeline(
    files: Sequence[TimelinesFile],
    workload: str,
    settings: Mapping[str, Any],
    *,
    device_kind: str,
    hardware: str | None = None,
    keys: Sequence[str] = (),
    refused: bool = False,
) -> Timeline | None:
    """The recorded timeline of `workload` on a device of `device_kind` ('cpu' or 'cuda') whose
    settings agree with `settings` on `keys` (all given settings when empty), on the named hardware
    (any when None). With `refused`, when no such timeline was measured, the entry that was refused at
    recording (its status and message say why), so a page says why rather than 'not recorded'."""
    keys = keys or list(settings)
    found = _find(files, workload, settings, device_kind, hardware, keys, (Status.OK,))
    if found is None and refused:
        found = _find(
            files, workload, settings, device_kind, hardware, keys, tuple(s for s in Status if s != Status.OK)
        )
    return found


def _find(
    files: Sequence[TimelinesFile],
    workload: str,
    settings: Mapping[str, Any],
    device_kind: str,
    hardware: str | None,
    keys: Sequence[str],
    statuses: tuple[Status, ...],
) -> Timeline | None:
    for f in files:
        if hardware and hardware_text(f.machine) != hardware:
            continue
        for entry in f.timelines:
            kind = "cpu" if entry.device == "cpu" else "cuda"
            if entry.workload != workload or kind != device_kind or entry.status not in statuses:
                continue
            if all(entry.settings.get(k) == settings.get(k) for k in keys) and (
                "batch_size" not in keys or samples_per_step(entry.settings) == samples_per_step(settings)
            ):
                return entry
    return None


def samples_per_step(settings: Mapping[str, Any]) -> Any:
    """The samples one step holds: the batch size, or the dataset size where the batch asks for more (a batch of
    65,536 over 8,192 samples is a step of 8,192, not the recorded step of 65,536)."""
    batch, size = settings.get("batch_size"), settings.get("dataset_size")
    return min(batch, size) if isinstance(batch, int) and isinstance(size, int) else batch
