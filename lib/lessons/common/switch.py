"""What a switch costs where the step carries no profile to split (loss.item() every step, batches copied
in from host memory): the step against the same step recorded without it, and for a copy, its bytes at the
GPU's measured host-to-device rate (lib.recorded.ceilings) apart from the rest, which is said plainly.

    switch_sentence(row, plain, "GPU · H200", ceilings, pinned)   # None where no switch is on

No Streamlit here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lib.core.devices import is_cuda
from lib.core.fmt import fmt_bytes, fmt_s
from lib.core.rows import is_ok
from lib.core.same import Sameness, rows_sameness
from lib.lessons.common.verdict import FIX_WORDS, Fix, rate_bytes
from lib.recorded.ceilings import Ceilings
from lib.workloads import execution
from lib.workloads.mlp_terms import copied_bytes

RECORDED = ("recorded", "derived")  # a row's origin that was timed (a derived epoch is a recorded step's)


def switch_sentence(
    row: Mapping[str, Any],
    plain: Mapping[str, Any] | None,
    label: str,
    ceilings: Ceilings | None = None,
    pinned: Mapping[str, Any] | None = None,
) -> str | None:
    """For a step with loss.item() every step or its batches copied in, which carries no profile to split:
    what the switch costs, read from the same step recorded without it, and the change that removes it. A
    copy's added time is split into its bytes at the GPU's measured host-to-device rate (`ceilings`) and
    the rest; `pinned`: the same step copying from pinned memory, where the row's copy is pageable."""
    if not (is_ok(row) and is_ok(plain) and is_cuda(str(row.get("device", "")))):
        return None
    if row.get("item_every_step"):
        fix, what = Fix.NO_ITEM, "loss.item() every step"
    elif row.get("data_resident") is False:
        fix, what = (
            Fix.DATA_ON_DEVICE,
            "every batch copied in from "
            + ("pinned" if row.get("pin_memory") else "pageable (not pinned)")
            + " host memory",
        )
    else:
        return None
    t, base = float(row["median_s"]), float(plain["median_s"])
    head = f"**{label}**: one step takes {fmt_s(t)} with {what}, against {fmt_s(base)} for the same step without it"
    said = rows_sameness(row, plain)  # the one rule (lib.core.same), each step's own spread
    if said is Sameness.SAME:
        return f"{head}: within their spread, so here the switch costs about nothing."
    if said is Sameness.TOO_NOISY:  # a tie only on a noisy step: no cost, and no 'costs nothing', can be said
        return f"{head}: the repeats are too noisy here to say what the switch costs."
    if t < base:
        return f"{head}: faster with it, so here the switch costs nothing."
    if fix == Fix.NO_ITEM:
        why = (
            f"the {fmt_s(t - base)} it adds is the CPU waiting for the GPU to finish before it can queue the next step"
        )
    else:
        why = _copy_words(row, t - base, ceilings, pinned, base)
    return f"{head}: {why}. What would move it: {_data_fix(row) if fix == Fix.DATA_ON_DEVICE else FIX_WORDS[fix]}"


def copied_bytes_of(row: Mapping[str, Any]) -> float | None:
    """The bytes one step of `row` copies in from host memory (the MLP's batch: features and labels), None
    where the row's workload does not say."""
    if row.get("workload") != "mlp" or not row.get("input_features"):
        return None
    try:
        rows = min(int(row["batch_size"]), int(row["dataset_size"]))
        return copied_bytes(row, rows)
    except (KeyError, TypeError, ValueError):
        return None


def _copy_words(
    row: Mapping[str, Any], added: float, c: Ceilings | None, pinned: Mapping[str, Any] | None, base: float
) -> str:
    """The copy's added time: its bytes at the measured link rate, and the rest said plainly."""
    nbytes = copied_bytes_of(row)
    if not nbytes or c is None or not c.link_bytes_per_s:
        what = f"its {fmt_bytes(nbytes)} batch" if nbytes else "its batch"
        return (
            f"the {fmt_s(added)} it adds is copying {what} in and whatever the copy makes the step wait for; no "
            "host-to-device copy rate of this GPU is recorded, so this page cannot say how much of it is the "
            "bytes moving"
        )
    moving = nbytes / c.link_bytes_per_s
    said = (
        f"of the {fmt_s(added)} it adds, moving its {fmt_bytes(nbytes)} batch at this GPU's measured "
        f"host-to-device rate ({rate_bytes(c.link_bytes_per_s)}: {c.link_from}) takes about {fmt_s(moving)}"
    )
    rest = added - moving
    if rest <= 0:
        return said + ": the bytes moving account for all of it"
    if rest <= moving:
        return said + f": the bytes moving account for most of it (the other {fmt_s(rest)} was not timed apart)"
    said += f"; the other {fmt_s(rest)} is not the bytes moving"
    if row.get("pin_memory") or execution.graphed(row.get("mode")):
        # a CUDA graph's step copies into its static inputs with non_blocking=True: the stall below is eager's
        return said + ": this page did not time what it is apart"
    said += (
        ": a copy from pageable memory is synchronous (.to(device) with non_blocking=False), so the CPU stops "
        "until the GPU has run all the work queued before it and the copy, instead of queuing the next work "
        "while the GPU runs"
    )
    if (
        is_ok(pinned)
        and pinned.get("pin_memory")
        and pinned.get("origin", "recorded") in RECORDED
        and float(pinned["median_s"]) < base + added
    ):
        said += (
            f" (the same step copying from pinned memory was recorded at {fmt_s(float(pinned['median_s']))}, "
            f"against {fmt_s(base)} without the copy)"
        )
    return said


def _data_fix(row: Mapping[str, Any]) -> str:
    """The copy's fix, without the switch already on: pinning is offered only to a pageable copy."""
    if row.get("pin_memory"):
        return FIX_WORDS[Fix.DATA_ON_DEVICE]
    return FIX_WORDS[Fix.DATA_ON_DEVICE][:-1] + (
        ", or copy each batch from pinned memory (pin_memory=True), which queues the copy without stopping the CPU."
    )
