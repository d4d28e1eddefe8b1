"""When the GPU source chosen in the sidebar has nothing for this page, use one that has.

    source, note = source_for_workload(current_source(), get_workload("jacobian"))

The sidebar picks one recorded GPU machine for the whole app; a machine recorded for one lesson
only (e.g. the 4-GPU machine, which holds only multi-GPU results) has no rows for the others. Then
a page that needs GPU rows of its workload takes the first other recorded machine that has them,
and shows `note`, which says so.
"""

from __future__ import annotations

from pathlib import Path

from lib.core.devices import is_cuda
from lib.core.workload import Workload
from ui.sources import GpuSource, gpu_sources, recorded_pack


def _has_gpu_rows(pack: dict | None, workload: Workload) -> bool:
    return bool(pack) and any(r.get("workload") == workload.name and is_cuda(str(r.get("device", "")))
                              for r in pack["rows"])


def _files(source: GpuSource) -> str:
    return getattr(source, "files", None) or Path(source.pack_path or "").name


def source_for_workload(source: GpuSource, workload: Workload) -> tuple[GpuSource, str | None]:
    """The chosen source, unless it is recorded without GPU rows of `workload` while another
    recorded source has them: then that one, and a sentence saying so."""
    if not source.recorded or _has_gpu_rows(recorded_pack(source), workload):
        return source, None
    for other in gpu_sources():
        if other.recorded and other.key != source.key and _has_gpu_rows(recorded_pack(other), workload):
            return other, (f"The GPU results chosen in the sidebar ({source.label}: {_files(source)}) hold no "
                           f"{workload.name} results, so this page shows the ones recorded on {other.label} "
                           f"({_files(other)}).")
    return source, None
