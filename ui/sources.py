"""Where the GPU side of a comparison comes from: live on this server, or a recorded pack.

    source = current_source()                  # chosen in the shared sidebar (URL parameter 'gpu')
    devices = live_devices(source)             # ['cpu'] or ['cpu', 'cuda:0']
    rows, note = recorded_rows(source, workload, over="batch_size", params=settings)

Series labels, used as chart legends and table columns, always say where a curve came from:
'cpu (live, this server)', 'cuda:0 (recorded on NVIDIA H200, 2026-11-20)'.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

import lib.recorded as lib_recorded
from lib.core.devices import available_devices, cuda_available, is_cuda
from lib.core.rows import is_ok
from lib.core.workload import SettingError, Workload
from ui.router import ensure_router

SOURCE_STATE_KEY = "gpu_source"  # session-state key where the sidebar leaves its choice


@dataclass(frozen=True)
class GpuSource:
    """Live on this server, or one recorded GPU machine: every shipped pack measured on it (packs
    are recorded one per topic, e.g. h200_training.json and h200_seeds.json on the same H200)."""

    kind: str  # 'live', 'recorded' or 'none'
    key: str  # its value in the URL: 'live', a slug of the machine ('nvidia-h200-2026-11-21'), or 'none'
    label: str  # for people: 'live on this server', 'NVIDIA H200, 2026-11-20'
    device: str | None = None  # the live GPU ('cuda:0') when kind == 'live'
    pack_paths: tuple[str, ...] = ()

    @property
    def pack_path(self) -> str | None:
        """The first of the machine's packs (several packs: see pack_paths)."""
        return self.pack_paths[0] if self.pack_paths else None

    @property
    def live(self) -> bool:
        return self.kind == "live"

    @property
    def recorded(self) -> bool:
        return self.kind == "recorded"

    @property
    def files(self) -> str:
        return ", ".join(Path(p).name for p in self.pack_paths)

    def describe(self) -> str:
        if self.kind == "live":
            return f"live on this server ({self.device})"
        if self.kind == "recorded":
            return f"recorded on {self.label} ({self.files})"
        return "no recorded GPU results shipped yet, and no GPU on this server: CPU only"


NO_GPU = GpuSource("none", "none", "no GPU results")


def machine_text(machine: dict[str, Any]) -> str:
    """'NVIDIA H200, 2026-11-20' (or '2 × NVIDIA H200, ...') from a pack's machine fingerprint."""
    gpus = list(machine.get("gpus") or [])
    names = []
    for name in dict.fromkeys(gpus):
        count = gpus.count(name)
        names.append(f"{count} × {name}" if count > 1 else name)
    hardware = ", ".join(names) or str(machine.get("label") or machine.get("cpu_model") or "unknown machine")
    day = str(machine.get("date") or "")[:10]
    return f"{hardware}, {day}" if day else hardware


def series_label(device: str, source: str, machine: str | None = None) -> str:
    """Legend name of one curve: the device and where its numbers came from."""
    if source == "live":
        return f"{device} (live, this server)"
    return f"{device} (recorded on {machine})" if machine else f"{device} (recorded)"


def load_recorded() -> tuple[list[dict], list[str]]:
    """Every shipped pack (lib.recorded), and a message per pack that failed to load."""
    return lib_recorded.load_recorded()


def recorded_pack(source: GpuSource) -> dict | None:
    """All rows of the source's packs as one pack (the machine of the first), or None."""
    if not source.recorded:
        return None
    packs = [p for p in load_recorded()[0] if p["path"] in source.pack_paths]
    if not packs:
        return None
    if len(packs) == 1:
        return packs[0]
    return {**packs[0], "rows": [r for p in packs for r in p["rows"]], "path": source.files}


def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def gpu_sources() -> list[GpuSource]:
    """Live GPU first (when this server has one), then each recorded GPU machine (fewest GPUs first)."""
    sources = []
    if cuda_available():
        sources.append(GpuSource("live", "live", "live on this server", device=available_devices()[1]))
    machines: dict[str, list[dict]] = {}
    for pack in load_recorded()[0]:
        if any(is_cuda(r["device"]) for r in pack["rows"]):
            machines.setdefault(machine_text(pack["machine"]), []).append(pack)
    recorded = [GpuSource("recorded", _slug(label), label, pack_paths=tuple(p["path"] for p in packs))
                for label, packs in machines.items()]
    gpu_count = {label: len(packs[0]["machine"].get("gpus") or []) for label, packs in machines.items()}
    return sources + sorted(recorded, key=lambda s: (gpu_count[s.label], s.label))


def current_source() -> GpuSource:
    """The source chosen in the sidebar; the first available one when a page runs on its own."""
    ensure_router()
    sources = gpu_sources()
    chosen = st.session_state.get(SOURCE_STATE_KEY)
    for s in sources:
        if s.key == chosen:
            return s
    return sources[0] if sources else NO_GPU


def live_devices(source: GpuSource) -> list[str]:
    """What this server times live for a comparison: the CPU, plus the GPU when it is the source."""
    return ["cpu", source.device] if source.live and source.device else ["cpu"]


def _canonical(workload: Workload, row: dict[str, Any]) -> dict[str, Any] | None:
    given = {s.name: row[s.name] for s in workload.settings if s.name in row and row[s.name] is not None}
    try:
        return workload.resolve(given)
    except SettingError:
        return None


def matching_rows(rows: Sequence[dict], workload: Workload, over: str, params: dict[str, Any],
                  device_prefix: str = "cuda") -> list[dict]:
    """Rows of `workload` on matching devices from a sweep over `over`, whose other settings all
    equal `params` (compared after parsing, so '64' from a CSV equals 64)."""
    wanted = workload.resolve({k: v for k, v in params.items() if k != over})
    out = []
    for row in rows:
        if row.get("workload") != workload.name or not str(row.get("device", "")).startswith(device_prefix):
            continue
        if row.get("swept") not in (None, "", over) or over not in row:
            continue
        canonical = _canonical(workload, row)
        if canonical is None:
            continue
        if all(canonical[k] == wanted[k] for k in wanted if k != over):
            out.append(row)
    return out


def recorded_groups(rows: Sequence[dict], workload: Workload, device_prefix: str = "cuda") -> list[dict[str, Any]]:
    """The distinct sweeps in a pack for one workload: [{'over': ..., 'params': {...}, 'points': n}]."""
    groups: dict[tuple, dict[str, Any]] = {}
    for row in rows:
        if row.get("workload") != workload.name or not str(row.get("device", "")).startswith(device_prefix):
            continue
        over = row.get("swept")
        canonical = _canonical(workload, row)
        if not over or canonical is None:
            continue
        fixed = {k: v for k, v in canonical.items() if k != over}
        key = (over, tuple(sorted((k, str(v)) for k, v in fixed.items())))
        group = groups.setdefault(key, {"over": over, "params": {**fixed, over: canonical[over]}, "points": 0})
        group["points"] += 1
    return list(groups.values())


def recorded_rows(source: GpuSource, workload: Workload, over: str, params: dict[str, Any]
                  ) -> tuple[list[dict], str | None]:
    """GPU rows of the chosen recorded pack matching the page's settings, and a plain note when
    there are none (or None when rows were found or the source is not a recorded pack)."""
    pack = recorded_pack(source)
    if pack is None:
        return [], None
    rows = matching_rows(pack["rows"], workload, over, params)
    if rows:
        return rows, None
    if not any(r.get("workload") == workload.name for r in pack["rows"]):
        return [], f"The recorded pack ({source.label}) has no {workload.name} results, so there is no GPU curve here."
    return [], (f"The recorded pack ({source.label}) has no {workload.name} sweep over {over} with these other "
                f"settings, so there is no GPU curve for this view: only the live CPU is shown.")


def best_recorded_sweep(pack: dict, workload: Workload, prefer: str = "batch_size") -> tuple[str, list[dict]] | None:
    """The sweep in a pack with the most points measured on both the CPU and a GPU (preferring
    one over `prefer`): (swept setting, its rows on both devices), or None."""
    best: tuple[tuple, str, list[dict]] | None = None
    for group in recorded_groups(pack["rows"], workload):
        over = group["over"]
        both = [r for r in pack["rows"] if str(r.get("device", "")).startswith(("cpu", "cuda"))]
        rows = matching_rows(both, workload, over, group["params"], device_prefix="c")
        gpus = sorted({r["device"] for r in rows if is_cuda(r["device"])})
        if not gpus:
            continue
        rows = [r for r in rows if r["device"] in ("cpu", gpus[0])]
        xs = {d: {r[over] for r in rows if r["device"] == d and is_ok(r)} for d in ("cpu", gpus[0])}
        score = (over == prefer, len(xs["cpu"] & xs[gpus[0]]))
        if score[1] and (best is None or score > best[0]):
            best = (score, over, rows)
    return (best[1], best[2]) if best else None


def recorded_cpu_toggle(url, pack: dict | None, workload: Workload) -> bool:
    """The switch that adds the recording machine's own CPU curve (the seeds' same-machine
    comparison); shown only when the pack holds CPU rows of this workload."""
    if not pack or not any(r.get("workload") == workload.name and r.get("device") == "cpu" for r in pack["rows"]):
        return False
    machine = pack["machine"]
    return url.toggle(
        "recorded_cpu", "Also show the recording machine's own CPU", False,
        help=f"The CPU of the machine the GPU results come from ({machine.get('cpu_model', '?')}, "
             f"{machine.get('torch_threads', '?')} threads): the same-machine comparison.")
