"""The timeline of a few warm steps: what the CPU thread did and what the GPU stream did, when.

    steps = record_timeline(step.run, "cuda:0", steps=3)   # TimelineSteps (lib.core.step_timeline)
    steps[i].events                   # TimelineEvents (lane, name, kind, start_us, end_us), from that step's start
    steps[i].figures                  # busy fraction, idle between kernels, ...

Recorded with torch.profiler (its Chrome trace: CPU operators, CUDA runtime calls, GPU kernels,
memory copies, synchronisations) and reduced to a small list of events per step:
- lane 'CPU: Python thread' (and 'CPU: autograd thread' where backward runs on its own thread):
  the outermost operators only, each one bar;
- lane 'CPU: CUDA runtime': the calls that hand work to the GPU (kernel launches, graph launches,
  copies) and the ones that wait for it (synchronise);
- lane 'GPU: stream N': kernels, copies and memsets, each assigned to the step that launched it.

A profiled step is slower than an unprofiled one on the CPU side (the profiler records every
operator), so `wall_us` is reported with the profiled step and pages say so. No Streamlit here.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    from torch.profiler import profile

from lib.core.devices import is_cuda, synchronize
from lib.core.point import Frozen
from lib.core.rows import Status
from lib.core.step_timeline import (
    CpuBusy,
    EventKind,
    Figures,
    GpuBusy,
    Timeline,
    TimelineEvent,
    TimelineStep,
    median_step,
)

STEP_LABEL = "gpuwin step"
GPU_KINDS = {"kernel": EventKind.KERNEL, "gpu_memcpy": EventKind.COPY, "gpu_memset": EventKind.MEMSET}
SYNC_NAMES = ("Synchronize", "cudaMemcpy", "cudaEventSynchronize")  # runtime calls that wait for the GPU


PROFILER_WARMUP = 2  # profiled steps thrown away: the profiler's first steps stretch the trace (CUPTI starting up)


def record_timeline(
    run: Callable[[], object],
    device: str,
    *,
    steps: int = 3,
    warmup: int = 3,
    before_step: Callable[[int, int], None] | None = None,
) -> list[TimelineStep]:
    """Profile `steps` warm calls of `run` on `device`; each step's events, figures and wall time
    under the profiler. before_step(i, of), if given, is called before every call (warm-up ones too):
    it may raise to stop (a time budget used up, a visitor who left)."""
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    total = warmup + PROFILER_WARMUP + steps
    for i in range(warmup):
        if before_step:
            before_step(i, total)
        run()
    synchronize(device)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if is_cuda(device) else [])
    # A 2.5 ms step once spanned 4.6 ms in the trace of the profiler's first steps: it warms up on steps of its own.
    plan = schedule(wait=0, warmup=PROFILER_WARMUP, active=steps, repeat=1)
    walls = []
    with profile(activities=activities, schedule=plan) as prof:
        for i in range(PROFILER_WARMUP + steps):
            if before_step:
                before_step(warmup + i, total)
            start = time.perf_counter()
            with record_function(f"{STEP_LABEL} {i}"):
                run()
                synchronize(device)
            if i >= PROFILER_WARMUP:
                walls.append(time.perf_counter() - start)
            prof.step()
    return [
        replace(step, wall_us=wall * 1e6) for step, wall in zip(reduce_trace(_chrome_trace(prof)), walls, strict=True)
    ]


# One event of torch.profiler's Chrome trace, as json.load gives it: read only by the reducer below.
ChromeEvent = dict[str, Any]


def _chrome_trace(prof: profile) -> list[ChromeEvent]:
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path, encoding="utf-8") as f:
            return json.load(f).get("traceEvents", [])
    finally:
        os.unlink(path)


def reduce_trace(trace: Sequence[ChromeEvent]) -> list[TimelineStep]:
    """The profiled steps of a Chrome trace, each its events and figures."""
    spans = [e for e in trace if e.get("ph") == "X" and e.get("dur") is not None]
    # the step's own mark, not the GPU's copy of it (cat gpu_user_annotation, in the GPU's time): that copy,
    # taken as a step of its own, put every other step of a CUDA timeline on a window of the kernels' span
    marks = sorted(
        (e for e in spans if str(e.get("name", "")).startswith(STEP_LABEL) and e.get("cat") != "gpu_user_annotation"),
        key=lambda e: e["ts"],
    )
    main_tid = marks[0]["tid"] if marks else None
    launches = {_correlation(e): e for e in spans if e.get("cat") in ("cuda_runtime", "cuda_driver")}
    out = []
    for mark in marks:
        lo, hi = float(mark["ts"]), float(mark["ts"]) + float(mark["dur"])
        inside = [e for e in spans if lo <= float(e["ts"]) and float(e["ts"]) + float(e["dur"]) <= hi]
        cpu = _outermost_ops(inside, main_tid)
        runtime = [
            _event(e, "CPU: CUDA runtime", _runtime_kind(e))
            for e in inside
            if e.get("cat") in ("cuda_runtime", "cuda_driver")
        ]
        gpu = [
            e
            for e in spans
            if e.get("cat") in GPU_KINDS and lo <= float(launches.get(_correlation(e), {}).get("ts", -1)) <= hi
        ]
        gpu_events = [_event(e, f"GPU: stream {e.get('tid')}", GPU_KINDS[e["cat"]]) for e in gpu]
        delays = [float(e["ts"]) - float(launches[_correlation(e)]["ts"]) for e in gpu if e.get("cat") == "kernel"]
        events = sorted(cpu + runtime + gpu_events, key=lambda e: e.start_us)
        end = max([hi, *(e.end_us for e in gpu_events)])
        events = [e.shifted(lo) for e in events]
        out.append(TimelineStep(tuple(events), figures(events, end - lo, delays)))
    return out


def _correlation(event: ChromeEvent) -> Any:
    return (event.get("args") or {}).get("correlation")


def _event(e: ChromeEvent, lane: str, kind: EventKind) -> TimelineEvent:
    return TimelineEvent(lane, str(e.get("name", "")), kind, float(e["ts"]), float(e["ts"]) + float(e["dur"]))


def _runtime_kind(e: ChromeEvent) -> EventKind:
    name = str(e.get("name", ""))
    if any(s in name for s in SYNC_NAMES):
        return EventKind.SYNC
    return EventKind.LAUNCH if "Launch" in name else EventKind.RUNTIME


def _outermost_ops(spans: Sequence[ChromeEvent], main_tid: Any) -> list[TimelineEvent]:
    """Per CPU thread, the operators not inside another operator (an op's inner ops are part of it)."""
    ops = sorted((e for e in spans if e.get("cat") == "cpu_op"), key=lambda e: (e["tid"], e["ts"], -e["dur"]))
    out, open_end = [], {}
    for e in ops:
        start, end = float(e["ts"]), float(e["ts"]) + float(e["dur"])
        if start < open_end.get(e["tid"], float("-inf")):
            continue
        open_end[e["tid"]] = end
        lane = "CPU: Python thread" if e["tid"] == main_tid else "CPU: autograd thread"
        out.append(_event(e, lane, EventKind.OPERATOR))
    return out


def union_length(intervals: Sequence[tuple[float, float]]) -> float:
    """Total length covered by the intervals (overlaps counted once)."""
    total, reach = 0.0, float("-inf")
    for lo, hi in sorted(intervals):
        if hi <= reach:
            continue
        total += hi - max(lo, reach)
        reach = hi
    return total


def figures(events: Sequence[TimelineEvent], step_us: float, delays: Sequence[float]) -> Figures:
    """What a reader takes from one step's picture. On the GPU: how busy its stream was, the idle
    time between its first and last kernel, kernels per step, mean launch-to-start delay. On the
    CPU (no GPU lane): how busy the thread was running operators."""
    gpu = [(e.start_us, e.end_us) for e in events if e.on_gpu]
    ops = [(e.start_us, e.end_us) for e in events if e.kind == EventKind.OPERATOR]
    launches = float(sum(e.kind == EventKind.LAUNCH for e in events))
    syncs = float(sum(e.kind == EventKind.SYNC for e in events))
    if gpu:
        busy = union_length(gpu)
        span = max(h for _, h in gpu) - min(lo for lo, _ in gpu)
        on_gpu = GpuBusy(
            kernels=float(sum(e.kind == EventKind.KERNEL for e in events)),
            busy_us=busy,
            busy_fraction=min(1.0, busy / step_us) if step_us > 0 else 0.0,
            idle_between_us=max(0.0, span - busy),
            launch_delay_us=statistics.mean(delays) if delays else 0.0,
        )
        return Figures(step_us, float(len(ops)), launches, syncs, gpu=on_gpu)
    busy = union_length(ops)
    on_cpu = CpuBusy(busy, min(1.0, busy / step_us) if step_us > 0 else 0.0)
    return Figures(step_us, float(len(ops)), launches, syncs, cpu=on_cpu)


# -- one point of a workload -------------------------------------------------------------------------


class _Stopped(Exception):
    def __init__(self, refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


class _CallerGone(Exception):
    def __init__(self, original: Exception) -> None:
        super().__init__(str(original))
        self.original = original


def timeline_point(
    workload,
    settings,
    device: str,
    *,
    steps: int = 3,
    num_threads: int | None = None,
    gate=None,
    progress: Callable[[float, str], None] | None = None,
) -> Timeline:
    """The timeline of `steps` warm steps of one point: its settings, device and events; or the
    reason it was not recorded (status skipped / error, as for a result row).

    `gate` (lib.core.gate.Gate) is asked before the step is built (memory, work) and before every
    call (its time budget); without one, a recording's gate with the memory cap only. progress, if
    given, hears of each call: the measuring process cancels a job there when its visitor left."""
    from lib.core.devices import device_name
    from lib.core.gate import default_memory_cap_gb, recording_gate
    from lib.core.timing import cpu_threads
    from lib.core.workload import built_step

    gate = gate or recording_gate(memory_cap_gb=default_memory_cap_gb())
    entry = Timeline(workload.name, Frozen(settings), device)
    refusal = gate.check(workload, settings, device)
    if refusal:
        return replace(entry, status=Status.SKIPPED, message=refusal.message, refused=refusal.limit)

    def before_step(i: int, total: int) -> None:
        if progress:
            try:
                progress(i / total, f"step {i + 1} of {total} on {device}")
            except Exception as err:  # the caller gave up (lib.core.worker.Cancelled): not a failed point
                raise _CallerGone(err) from err
        refusal = gate.time(f"step {i + 1} of {total}")
        if refusal:
            raise _Stopped(refusal)

    try:
        entry = replace(entry, device_name=device_name(device))
        with built_step(workload, settings, device) as step, cpu_threads(num_threads) as threads:
            recorded = record_timeline(step.run, device, steps=steps, before_step=before_step)
            middle = median_step(recorded)
            return replace(
                entry, steps=tuple(recorded), figures=middle.figures if middle else None, num_threads=threads
            )
    except _CallerGone as gone:
        raise gone.original from None
    except _Stopped as stop:
        return replace(entry, status=Status.SKIPPED, message=stop.refusal.message, refused=stop.refusal.limit)
    except Exception as err:  # a failed point is kept with its reason; the others go on
        first = str(err).splitlines()[0][:300] if str(err) else ""
        return replace(entry, status=Status.ERROR, message=f"{type(err).__name__}: {first}")
