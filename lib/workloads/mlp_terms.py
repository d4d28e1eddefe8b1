"""What an MLP's batch copied from host memory weighs: the one MLP-specific part of its cost terms.

Everything else one step asks of the machine (kernels per mode, how the CPU issues them, the
switches' copies and synchronisations) is counted from the traced step (lib.workloads.traced), as
for every Training family; the MLP's hand-written formulas (18 + 6 x depth for eager) were retired
once the trace gave the same counts (tests/test_traced.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

BYTES_PER_FLOAT = 4


def copied_bytes(settings: Mapping[str, Any], rows: int) -> float:
    """Bytes of one batch copied from host memory: float features and int64 labels (or float targets)."""
    target = 8 if settings.get("task", "classification") == "classification" else BYTES_PER_FLOAT * int(settings["outputs"])
    return float(rows * (int(settings["input_features"]) * BYTES_PER_FLOAT + target))
