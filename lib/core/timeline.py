"""The timeline of a few warm steps: what the CPU thread did and what the GPU stream did, when.

    timeline = record_timeline(step.run, "cuda:0", steps=3)
    timeline["steps"][i]["events"]    # [{lane, name, kind, start_us, end_us}], times from that step's start
    timeline["figures"]               # of the middle step: busy fraction, idle between kernels, ...

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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: torch is imported where it runs, so a page of recorded rows loads none
    from torch.profiler import profile

from lib.core.devices import is_cuda, synchronize

STEP_LABEL = "gpuwin step"
GPU_KINDS = {"kernel": "kernel", "gpu_memcpy": "copy", "gpu_memset": "memset"}
SYNC_NAMES = ("Synchronize", "cudaMemcpy", "cudaEventSynchronize")  # runtime calls that wait for the GPU


def record_timeline(
    run: Callable[[], object],
    device: str,
    *,
    steps: int = 3,
    warmup: int = 3,
    before_step: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Profile `steps` warm calls of `run` on `device`; the events of each step and the figures
    of the middle one. before_step(i, of), if given, is called before every call (warm-up ones too):
    it may raise to stop (a time budget used up, a visitor who left)."""
    from torch.profiler import ProfilerActivity, profile, record_function

    total = warmup + steps
    for i in range(warmup):
        if before_step:
            before_step(i, total)
        run()
    synchronize(device)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if is_cuda(device) else [])
    walls = []
    with profile(activities=activities) as prof:
        for i in range(steps):
            if before_step:
                before_step(warmup + i, total)
            start = time.perf_counter()
            with record_function(f"{STEP_LABEL} {i}"):
                run()
                synchronize(device)
            walls.append(time.perf_counter() - start)
    trace = _chrome_trace(prof)
    reduced = reduce_trace(trace)
    for step, wall in zip(reduced, walls):
        step["wall_us"] = wall * 1e6
    middle = reduced[len(reduced) // 2] if reduced else None
    return {"device": device, "steps": reduced, "figures": middle["figures"] if middle else {}}


def _chrome_trace(prof: profile) -> list[dict[str, Any]]:
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path, encoding="utf-8") as f:
            return json.load(f).get("traceEvents", [])
    finally:
        os.unlink(path)


def reduce_trace(trace: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The profiled steps of a Chrome trace, each {'events': [...], 'figures': {...}}."""
    spans = [e for e in trace if e.get("ph") == "X" and e.get("dur") is not None]
    marks = sorted((e for e in spans if str(e.get("name", "")).startswith(STEP_LABEL)), key=lambda e: e["ts"])
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
        events = sorted(cpu + runtime + gpu_events, key=lambda e: e["start_us"])
        end = max([hi, *(e["end_us"] for e in gpu_events)])
        for e in events:
            e["start_us"] -= lo
            e["end_us"] -= lo
        out.append({"events": events, "figures": figures(events, end - lo, delays)})
    return out


def _correlation(event: dict[str, Any]) -> Any:
    return (event.get("args") or {}).get("correlation")


def _event(e: dict[str, Any], lane: str, kind: str) -> dict[str, Any]:
    return {
        "lane": lane,
        "name": str(e.get("name", "")),
        "kind": kind,
        "start_us": float(e["ts"]),
        "end_us": float(e["ts"]) + float(e["dur"]),
    }


def _runtime_kind(e: dict[str, Any]) -> str:
    name = str(e.get("name", ""))
    if any(s in name for s in SYNC_NAMES):
        return "sync"
    return "launch" if "Launch" in name else "runtime"


def _outermost_ops(spans: Sequence[dict[str, Any]], main_tid: Any) -> list[dict[str, Any]]:
    """Per CPU thread, the operators not inside another operator (an op's inner ops are part of it)."""
    ops = sorted((e for e in spans if e.get("cat") == "cpu_op"), key=lambda e: (e["tid"], e["ts"], -e["dur"]))
    out, open_end = [], {}
    for e in ops:
        start, end = float(e["ts"]), float(e["ts"]) + float(e["dur"])
        if start < open_end.get(e["tid"], float("-inf")):
            continue
        open_end[e["tid"]] = end
        lane = "CPU: Python thread" if e["tid"] == main_tid else "CPU: autograd thread"
        out.append(_event(e, lane, "operator"))
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


def figures(events: Sequence[dict[str, Any]], step_us: float, delays: Sequence[float]) -> dict[str, float]:
    """What a reader takes from one step's picture. On the GPU: how busy its stream was, the idle
    time between its first and last kernel, kernels per step, mean launch-to-start delay. On the
    CPU (no GPU lane): how busy the thread was running operators."""
    gpu = [(e["start_us"], e["end_us"]) for e in events if e["lane"].startswith("GPU")]
    ops = [(e["start_us"], e["end_us"]) for e in events if e["kind"] == "operator"]
    out = {
        "step_us": step_us,
        "operators": float(len(ops)),
        "launches": float(sum(e["kind"] == "launch" for e in events)),
        "syncs": float(sum(e["kind"] == "sync" for e in events)),
    }
    if gpu:
        busy = union_length(gpu)
        span = max(h for _, h in gpu) - min(lo for lo, _ in gpu)
        out.update(
            kernels=float(sum(e["kind"] == "kernel" for e in events)),
            gpu_busy_us=busy,
            gpu_busy_fraction=min(1.0, busy / step_us) if step_us > 0 else 0.0,
            gpu_idle_between_us=max(0.0, span - busy),
            launch_delay_us=statistics.mean(delays) if delays else 0.0,
        )
    else:
        busy = union_length(ops)
        out.update(cpu_busy_us=busy, cpu_busy_fraction=min(1.0, busy / step_us) if step_us > 0 else 0.0)
    return out


# -- one point of a workload, and files of timelines ----------------------------------------------------
TIMELINES_KIND = "gpuwin-timelines"
TIMELINES_VERSION = 1


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
) -> dict[str, Any]:
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
    entry: dict[str, Any] = {
        "workload": workload.name,
        "settings": dict(settings),
        "device": device,
        "status": "ok",
        "message": "",
    }
    refusal = gate.check(workload, settings, device)
    if refusal:
        return {**entry, "status": "skipped", "message": refusal.message, "refused": refusal.limit.value}

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
        entry["device_name"] = device_name(device)
        with built_step(workload, settings, device) as step, cpu_threads(num_threads) as threads:
            entry.update(record_timeline(step.run, device, steps=steps, before_step=before_step), num_threads=threads)
    except _CallerGone as gone:
        raise gone.original from None
    except _Stopped as stop:
        entry.update(status="skipped", message=stop.refusal.message, refused=stop.refusal.limit.value)
    except Exception as err:  # a failed point is kept with its reason; the others go on
        entry.update(
            status="error", message=f"{type(err).__name__}: {str(err).splitlines()[0][:300] if str(err) else ''}"
        )
    return entry


def timelines_file(entries: Sequence[dict[str, Any]], machine: dict[str, Any]) -> dict[str, Any]:
    return validate_timelines(
        {"kind": TIMELINES_KIND, "version": TIMELINES_VERSION, "machine": machine, "timelines": list(entries)}
    )


class TimelineError(ValueError):
    """A timelines file that does not validate; the message names the bad field."""


def validate_timelines(obj: Any) -> dict[str, Any]:
    """The object if it is a timelines file this app reads, else TimelineError naming the field."""
    if not isinstance(obj, dict) or obj.get("kind") != TIMELINES_KIND:
        raise TimelineError(f"kind: expected {TIMELINES_KIND!r}")
    if obj.get("version") != TIMELINES_VERSION:
        raise TimelineError(f"version: this app reads version {TIMELINES_VERSION}, got {obj.get('version')!r}")
    if not isinstance(obj.get("machine"), dict):
        raise TimelineError("machine: missing")
    for i, entry in enumerate(obj.get("timelines") or []):
        where = f"timelines[{i}]"
        for key in ("workload", "settings", "device", "status"):
            if key not in entry:
                raise TimelineError(f"{where}.{key}: missing")
        for j, step in enumerate(entry.get("steps", [])):
            for k, e in enumerate(step.get("events", [])):
                if not (isinstance(e, dict) and {"lane", "name", "start_us", "end_us"} <= set(e)):
                    raise TimelineError(f"{where}.steps[{j}].events[{k}]: needs lane, name, start_us, end_us")
                if not float(e["end_us"]) >= float(e["start_us"]):
                    raise TimelineError(f"{where}.steps[{j}].events[{k}]: ends before it starts")
    return obj
