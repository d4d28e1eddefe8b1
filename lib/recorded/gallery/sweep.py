"""The one sweep the gallery compares machines on, and how any machine records it.

    pack = record_gallery_pack()                  # CPU, plus CUDA when present; a validated result pack
    rows = gallery_rows(pack["rows"])             # the rows of a pack that belong to the gallery sweep

The sweep is the Training page's default view swept over batch size, the same points as the
shipped H200 pack (scripts/record_packs.py, topic 'training'), so every machine in the gallery,
shipped or uploaded, is measured on identical work. Needs torch only (no SQLAlchemy, no Streamlit).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lib.core.point import Frozen
from lib.recorded.pack import JsonObject

if TYPE_CHECKING:
    from lib.core.workload import Workload

WORKLOAD = "mlp"
OVER = "batch_size"
VALUES = (1, 4, 16, 64, 256, 1024, 4096, 8192)
BUDGET_S = 0.5  # seconds of timed repeats per point, as the shipped packs were recorded


@dataclass(frozen=True)
class GallerySweep:
    workload: str = WORKLOAD
    over: str = OVER
    values: tuple = VALUES
    fixed: Frozen = Frozen()  # setting name -> value; empty: every other setting at its default

    def command(self, devices: str = "cpu,cuda", out: str = "my_machine.json") -> str:
        """The same sweep as one `python -m lib` call (for people who prefer the plain CLI)."""
        sets = "".join(f" --set {k}={v}" for k, v in self.fixed.items())
        return (
            f"python -m lib sweep {self.workload} --over {self.over}={','.join(map(str, self.values))}{sets} "
            f"--devices {devices} --budget {BUDGET_S:g} --out {out}"
        )

    def describe(self) -> str:
        return (
            f"{self.workload} training step over {self.over.replace('_', ' ')} "
            f"{', '.join(map(str, self.values))}, other settings at the Training page's defaults"
        )


GALLERY_SWEEP = GallerySweep()


def gallery_devices() -> list[str]:
    """The CPU, and the first GPU when CUDA is there."""
    import torch

    return ["cpu", "cuda:0"] if torch.cuda.is_available() else ["cpu"]


def record_gallery_pack(
    devices: Sequence[str] | None = None,
    *,
    budget_s: float = BUDGET_S,
    num_threads: int | None = None,
    progress: Callable[[float, str], None] | None = None,
    sweep: GallerySweep = GALLERY_SWEEP,
) -> JsonObject:
    """Measure the gallery sweep on this machine and return it as a validated result pack (to write to a file)."""
    from lib.core.results import build_pack
    from lib.core.sweep import run_sweep
    from lib.workloads import get_workload

    points = run_sweep(
        get_workload(sweep.workload),
        sweep.over,
        list(sweep.values),
        dict(sweep.fixed),
        list(devices or gallery_devices()),
        point_budget_s=budget_s,
        num_threads=num_threads,
        progress=progress,
    )
    return build_pack(points)


def _canonical(workload: Workload, row: JsonObject) -> Frozen | None:
    """The row's settings as the workload reads them (its defaults filled in), None if it refuses them."""
    from lib.core.workload import SettingError

    given = {s.name: row[s.name] for s in workload.settings if row.get(s.name) not in (None, "")}
    try:
        return Frozen(workload.resolve(given))
    except SettingError:
        return None


def gallery_rows(rows: Sequence[JsonObject], sweep: GallerySweep = GALLERY_SWEEP) -> list[JsonObject]:
    """The rows that are points of the gallery sweep: its workload, swept over its setting at one of
    its values, every other setting equal to the sweep's (compared after parsing, so '64' == 64)."""
    from lib.workloads import get_workload

    workload = get_workload(sweep.workload)
    wanted = workload.resolve(dict(sweep.fixed))
    out = []
    for row in rows:
        if row.get("workload") != sweep.workload or row.get("swept") != sweep.over:
            continue
        canonical = _canonical(workload, row)
        if canonical is None or canonical[sweep.over] not in sweep.values:
            continue
        if all(canonical[k] == wanted[k] for k in wanted if k != sweep.over):
            out.append(row)
    return out
