"""The one gate in front of every live run: may this point be built here, and if not, why.

    gate = live_gate(budget_s=60)                   # in the measuring process, when a job starts
    refusal = gate.check(workload, settings, "cpu") # None, or Refusal(limit=Limit.WORK, message=...)

A public demo runs on a small shared server, so every path that builds a step for a visitor (a
sweep, a timeline, the phases at one point, a seed case, an expander) asks the same gate the same
questions, in this order, before anything is allocated:

- DEVICE: can this device run the point at all (the workload's own rule, e.g. CUDA graphs on a CPU);
- MEMORY: the workload's estimate of its peak, on top of what this process already holds (its RSS
  when the gate was made, on the CPU), against the memory cap and the device's free memory;
- WORK: the floating-point work of one step against the per-device cap ($GPUWIN_LIVE_MAX_GFLOP_*);
- the caller's own rule, if any (e.g. the Jacobian loop's number of passes);
- TIME: the job's time budget, counted from when the gate was made.

Each refusal is a typed Refusal whose message is written here and only here, so a point refused
by a sweep reads exactly as the same point refused by a timeline. Numbers in it are rounded so that
the two compared never read the same ("2.74 GB, more than the 2.70 GB cap"; "just over" when they
agree to the kilobyte). The CLI asks the same gate with the limits given on its command line.
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lib.core.devices import is_cuda, memory_info
from lib.core.fmt import fmt_flops, gb_apart
from lib.core.heap import process_rss_bytes  # what this process holds: the memory question's baseline

# A hosted demo box has about 2.7 GB; refuse points whose process would go above this.
FALLBACK_MEMORY_CAP_GB = 2.7
LIVE_HINT = " (see the recorded results, or run it with the CLI)"


def default_memory_cap_gb() -> float:
    """$GPUWIN_MEMORY_CAP_GB, read at every call (so a test or a server can change it), else 2.7."""
    try:
        return float(os.environ.get("GPUWIN_MEMORY_CAP_GB") or FALLBACK_MEMORY_CAP_GB)
    except ValueError:
        return FALLBACK_MEMORY_CAP_GB


def live_max_flops() -> dict[str, float]:
    """Most floating-point work one step may take in a live run, per device kind. A 2-core host does a
    few tens of GFLOP/s, so about 0.1 s per step at the CPU's cap; GPUs get a much larger allowance.
    Read at every call: the measuring process runs each job under the server's $GPUWIN_* settings."""

    def gflop(name: str, default: str) -> float:
        try:
            return float(os.environ.get(name) or default) * 1e9
        except ValueError:
            return float(default) * 1e9

    return {"cpu": gflop("GPUWIN_LIVE_MAX_GFLOP_CPU", "3"), "cuda": gflop("GPUWIN_LIVE_MAX_GFLOP_CUDA", "2000")}


def live_budget_s() -> float:
    """Seconds one live job may take at most, whatever asks for it ($GPUWIN_LIVE_BUDGET_S, default 60)."""
    try:
        return float(os.environ.get("GPUWIN_LIVE_BUDGET_S") or 60.0)
    except ValueError:
        return 60.0


class Limit(str, enum.Enum):
    DEVICE = "device"
    MEMORY = "memory"
    WORK = "work"
    RULE = "rule"  # the caller's own rule
    TIME = "time"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Refusal:
    """Why a point is not run: which limit, and the one sentence every path shows for it."""

    limit: Limit
    message: str

    def __str__(self) -> str:
        return self.message


def _more_than(what: str, amount: float, limit: float, limit_words: str) -> str:
    """'needs about 2.74 GB, more than the 2.70 GB memory cap': decimals enough to read apart
    (lib.core.fmt.gb_apart); 'just over' when they agree to the kilobyte."""
    a, b = gb_apart(amount, limit)
    if a == b:
        return f"{what} just over the {b} GB {limit_words}"
    return f"{what} about {a} GB, more than the {b} GB {limit_words}"


RefuseFn = Callable[[Any, str], "str | None"]


@dataclass(frozen=True)
class Gate:
    """Limits for one job. max_flops: per device kind ('cpu', 'cuda'), a missing kind has no work cap;
    memory_cap_gb: None for no cap (free device memory still counts); budget_s: None for no time limit;
    baseline_bytes: what this process held when the gate was made (counted against the cap on the CPU)."""

    max_flops: Mapping[str, float] = field(default_factory=dict)
    memory_cap_gb: float | None = None
    budget_s: float | None = None
    baseline_bytes: float = 0.0
    started: float = field(default_factory=time.perf_counter)
    work_words: str = "a live run on {kind} may take here"
    hint: str = LIVE_HINT

    # -- the questions, in order ----------------------------------------------------------------------
    def check(
        self, workload, settings, device: str, *, rule: RefuseFn | None = None, timed: bool = True
    ) -> Refusal | None:
        """The first limit this point breaks on `device`, or None (then it may be built)."""
        reason = workload.refusal(settings, device)
        if reason:
            return Refusal(Limit.DEVICE, reason)
        refusal = self.memory(workload, settings, device) or self.work(workload, settings, device)
        if refusal:
            return refusal
        reason = rule(settings, device) if rule else None
        if reason:
            return Refusal(Limit.RULE, reason)
        return self.time() if timed else None

    def memory(self, workload, settings, device: str) -> Refusal | None:
        estimate = float(workload.peak_memory_bytes(settings, device))
        free, _ = memory_info(device)
        cuda = is_cuda(device)
        held = 0.0 if cuda else self.baseline_bytes
        if self.memory_cap_gb is not None and self.memory_cap_gb * 1e9 - held < free:
            cap = self.memory_cap_gb * 1e9
            if estimate + held <= cap:
                return None
            if held > 0:  # what the process holds moves by megabytes between calls: one decimal keeps it the same
                held_words = (
                    f" ({_gb(estimate)} for this point on top of the {held / 1e9:.1f} GB this process already holds)"
                )
                return Refusal(
                    Limit.MEMORY, _more_than("needs", estimate + held, cap, "memory cap") + held_words + "; not run"
                )
            return Refusal(Limit.MEMORY, _more_than("needs", estimate, cap, "memory cap") + "; not run")
        if estimate <= free:
            return None
        return Refusal(Limit.MEMORY, _more_than("needs", estimate, free, f"free on {device}") + "; not run")

    def work(self, workload, settings, device: str) -> Refusal | None:
        kind = "cuda" if is_cuda(device) else "cpu"
        cap = self.max_flops.get(kind)
        flops = float(workload.flops(settings))
        if cap is None or flops <= cap:
            return None
        shown = fmt_flops(flops)
        if shown == fmt_flops(cap):
            shown = f"just over {shown}"
        return Refusal(
            Limit.WORK,
            f"about {shown} per {getattr(workload, 'call', 'step')}, more than the {fmt_flops(cap)} "
            f"{self.work_words.format(kind=device)}; not run{self.hint}",
        )

    def time(self, what: str = "this point") -> Refusal | None:
        """Whether the job's time budget is used up (asked before each point, and between steps)."""
        if self.budget_s is not None and self.elapsed_s() >= self.budget_s:
            return Refusal(Limit.TIME, f"time budget of {self.budget_s:g} s used up before {what}; not run")
        return None

    def elapsed_s(self) -> float:
        return time.perf_counter() - self.started


def _gb(n: float) -> str:
    return f"{n / 1e9:.2f} GB"


def live_gate(
    *, budget_s: float | None = None, memory_cap_gb: float | None = None, max_flops: Mapping[str, float] | None = None
) -> Gate:
    """The gate of a live run in the app, made where the job runs (its baseline is that process's
    memory now): the live work caps, the memory cap, and the job's time budget (at most the
    server's live_budget_s())."""
    budget = live_budget_s() if budget_s is None else min(budget_s, live_budget_s())
    return Gate(
        max_flops=dict(live_max_flops() if max_flops is None else max_flops),
        memory_cap_gb=default_memory_cap_gb() if memory_cap_gb is None else memory_cap_gb,
        budget_s=budget,
        baseline_bytes=process_rss_bytes(),
    )


def recording_gate(
    *, memory_cap_gb: float | None, budget_s: float | None = None, max_flops: Mapping[str, float] | None = None
) -> Gate:
    """The gate of a recording (the CLI, scripts): only the limits its caller gives, same questions and words."""
    return Gate(
        max_flops=dict(max_flops or {}),
        memory_cap_gb=memory_cap_gb,
        budget_s=budget_s,
        baseline_bytes=process_rss_bytes(),
        work_words="this recording allows on {kind}",
        hint="",
    )
