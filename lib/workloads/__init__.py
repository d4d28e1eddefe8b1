"""Registry of workloads by their CLI name.

To add a workload: a module with a `WORKLOAD` instance of a Workload subclass, imported below
and listed in REGISTERED (one line each). A model family of the Training page is a workload module
that also declares a `FAMILY` (lib.workloads.family.TrainingFamily), listed in FAMILIES.
"""

from __future__ import annotations

from lib.core.workload import Setting, SettingError, Step, Workload
from lib.workloads import cnn, dataloader, ddp, jacobian, matmul, mlp, stream, transformer, vision
from lib.workloads.family import TrainingFamily

REGISTERED: tuple[Workload, ...] = (
    mlp.WORKLOAD,
    cnn.WORKLOAD,
    transformer.WORKLOAD,
    vision.WORKLOAD,
    dataloader.WORKLOAD,
    jacobian.WORKLOAD,
    matmul.WORKLOAD,
    stream.WORKLOAD,
    ddp.WORKLOAD,
)

# The model families the Training page switches between (lib.workloads.family), the first its default.
FAMILIES: tuple[TrainingFamily, ...] = (mlp.FAMILY, cnn.FAMILY, transformer.FAMILY, vision.FAMILY)

WORKLOADS: dict[str, Workload] = {w.name: w for w in REGISTERED}


def get_workload(name: str) -> Workload:
    try:
        return WORKLOADS[name]
    except KeyError:
        raise SettingError(f"unknown workload '{name}' (known: {', '.join(sorted(WORKLOADS))})") from None


__all__ = [
    "FAMILIES",
    "TrainingFamily",
    "Setting",
    "SettingError",
    "Step",
    "Workload",
    "WORKLOADS",
    "REGISTERED",
    "get_workload",
]
