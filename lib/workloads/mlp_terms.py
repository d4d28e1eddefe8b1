"""What one MLP training step asks of the machine beyond its kernels: its FLOPs and bytes as its traced step
counts them, and the batch copied from host memory.

Kernels per mode, how the CPU issues them and the switches' copies and synchronisations are counted from
the traced step (lib.workloads.traced), as for every Training family. FLOPs and bytes are the trace's too,
without tracing: each is exactly a linear form in the layer sizes and the rows (no operator of an MLP's step
mixes sizes but the matmuls, whose counts are in x out), so a few traces of small MLPs per optimizer and
loss fit its coefficients once (lib.workloads.mlp_fit; scripts/trace_counts.py writes COUNTS_FILE), and any setting, a slider's or a
live point's, is counted from them in the web server, which never traces (a trace patches process-wide state:
lib.workloads.traced). tests/test_traced.py traces other settings and finds the same numbers.

    flops(settings, sizes, rows), bytes_moved(settings, sizes, rows), copied_bytes(settings, rows)

FLOPs are the matmul class (torch.utils.flop_counter), bytes every operand of every kernel, read and written
(TracedStep.bytes), both at eager's step with the data resident, as every family's are (lib.workloads.counted).
The fit is lib.workloads.mlp_fit's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lib.core.cache import kept

BYTES_PER_FLOAT = 4
COUNTS_FILE = Path(__file__).with_name("mlp_counts.json")
# what a count is a linear form in: each layer's in x out and out, the first layer's apart (its input asks for
# no gradient), and the rows times the sizes they meet
FEATURES = (
    "1",
    "layers",
    "weights",
    "biases",
    "first_weights",
    "rows",
    "rows_x_input",
    "rows_x_output",
    "rows_x_hidden",
    "rows_x_first_hidden",
    "rows_x_weights",
    "rows_x_first_weights",
)
# the settings that change the form: the optimizer's kernels and the loss
FORM_KEYS = ("optimizer", "optimizer_impl", "task")
FORMS = tuple(
    (o, i, t)
    for o in ("adam", "sgd")
    for i in ("default", "for-loop", "foreach", "fused")
    for t in ("classification", "regression")
)


def features(sizes: Sequence[int], rows: int) -> tuple[int, ...]:
    """The values of FEATURES for an MLP of these layer sizes (input, hidden..., output) at `rows` rows."""
    pairs = list(zip(sizes[:-1], sizes[1:]))
    weights, first = sum(i * o for i, o in pairs), pairs[0][0] * pairs[0][1]
    return (
        1,
        len(pairs),
        weights,
        sum(o for _, o in pairs),
        first,
        rows,
        rows * sizes[0],
        rows * sizes[-1],
        rows * sum(sizes[1:-1]),
        rows * sizes[1],
        rows * weights,
        rows * first,
    )


def form_key(settings: Mapping[str, Any]) -> str:
    return "/".join(str(settings[k]) for k in FORM_KEYS)


@kept(1)
def forms() -> dict[str, dict[str, list[float]]]:
    return json.loads(COUNTS_FILE.read_text())["forms"]


def _count(what: str, settings: Mapping[str, Any], sizes: Sequence[int], rows: int) -> float:
    coefficients = forms()[form_key(settings)][what]
    return float(sum(c * f for c, f in zip(coefficients, features(sizes, rows))))


def flops(settings: Mapping[str, Any], sizes: Sequence[int], rows: int) -> float:
    """FLOPs of one step of an MLP of these layer sizes at `rows` rows, as its traced step counts them (matmuls)."""
    return _count("flops", settings, sizes, rows)


def bytes_moved(settings: Mapping[str, Any], sizes: Sequence[int], rows: int) -> float:
    """Bytes of one step of an MLP of these layer sizes at `rows` rows, the data resident, as its trace counts them."""
    return _count("bytes", settings, sizes, rows)


def copied_bytes(settings: Mapping[str, Any], rows: int) -> float:
    """Bytes of one batch copied from host memory: float features and int64 labels (or float targets)."""
    target = (
        8 if settings.get("task", "classification") == "classification" else BYTES_PER_FLOAT * int(settings["outputs"])
    )
    return float(rows * (int(settings["input_features"]) * BYTES_PER_FLOAT + target))
