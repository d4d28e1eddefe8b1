"""Live measurement for pages: cached per settings, one at a time per server, with progress.

    curve = measure_sweep(workload, "batch_size", [1, 8, 64, ...], fixed, ["cpu"], current=64)

or, for any other measurement a lesson needs:

    result = cached_measurement(LiveRequest.of(lesson.live_rows, method, grid, ...), label="jacobian val=100")

The request (lib.core.request.LiveRequest) is both the job and its cache key: it runs in the
measuring process (lib.core.worker), away from the visitors' scripts, called with a
progress=(fraction, message) callback (unless reports_progress=False). Results are kept by
lib.core.cache (shared by every visitor of this server process, a copy each) under the request's key,
made from every argument the job gets. While a measurement runs it holds lib.core.measure_lock.MEASURE_LOCK: a second visitor is
told it waits, and gets its result when the first is done (or the first's result, if they asked for
the same thing).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import streamlit as st

from lib import APP_VERSION
from lib.core.cache import kept
from lib.core.fmt import fmt_s, plural
from lib.core.measure_lock import MEASURE_LOCK, Holding
from lib.core.point import Point
from lib.core.request import LiveRequest
from lib.core.worker import MEASURE_WORKER, WorkerStopped
from lib.core.workload import SettingValue, Workload
from lib.lessons.common.live import LiveBudget, LiveCurve, LiveSweep, live_sweep

T = TypeVar("T")

DEFAULT_POINT_BUDGET_S = 0.1  # seconds of timed repeats per point: a page must answer in seconds
DEFAULT_TOTAL_BUDGET_S = 60.0
NOTE_REFRESH_S = 1.0  # the queue note is sent again at least this often (a visitor who left is noticed then)
# A live result describes this server as it was when measured (its load, other visitors, its clock speed):
# after half an hour it is measured again rather than shown as today's. The cache's expiry (ttl_s) does
# it; each stored result keeps the time it was measured, so the words say its age.
LIVE_TTL_S = 30 * 60


def live_point_budget_s() -> float:
    """Seconds of timed repeats per live point: $GPUWIN_LIVE_POINT_BUDGET_S (tests use less), else 0.1."""
    try:
        return float(os.environ.get("GPUWIN_LIVE_POINT_BUDGET_S") or DEFAULT_POINT_BUDGET_S)
    except ValueError:
        return DEFAULT_POINT_BUDGET_S


class _NotCached(Exception):
    """Raised inside the cached function to ask 'is it there?' without storing anything."""


@kept(500, ttl_s=LIVE_TTL_S, copies=True)
def _store(key: str, _value: Any = None) -> Any:
    # an exception is never kept, so calling with only the key is a pure look-up;
    # calling with _value (not hashed: leading underscore) stores it under the key. Stored: (when, result).
    if _value is None:
        raise _NotCached
    return _value


def _keep(key: str, result: Any) -> None:
    """Store a live result with the time it was measured (what measured_at reads)."""
    _store(key, _value=(time.time(), result))


def measured_at(request: LiveRequest) -> float | None:
    """When the live result stored for `request` was measured (seconds since the epoch), None if none is."""
    try:
        return _store(cache_key(request))[0]
    except _NotCached:
        return None


def oldest_measured_at(requests: Iterable[LiveRequest]) -> float | None:
    """When the oldest of the live results stored for `requests` was measured (None if none is stored):
    a page's words say how old its live side is (a result measured ahead by the warm-up, or for another
    visitor, may be up to LIVE_TTL_S old)."""
    stamps = [at for at in map(measured_at, requests) if at is not None]
    return min(stamps) if stamps else None


def cache_key(request: LiveRequest) -> str:
    return f"{APP_VERSION} {request.key}"


def is_cached(request: LiveRequest) -> bool:
    """Whether cached_measurement(request, ...) would answer at once (someone measured this view already)."""
    try:
        _store(cache_key(request))
        return True
    except _NotCached:
        return False


class _GaveUp(Exception):
    """Raised inside the wait when the line is too long: the view keeps its recorded answer."""


def max_wait_s() -> float:
    """How long a visitor may wait in line before the live measurement is skipped ($GPUWIN_MAX_WAIT_S, default 60)."""
    try:
        return float(os.environ.get("GPUWIN_MAX_WAIT_S") or 60.0)
    except ValueError:
        return 60.0


def cached_measurement(
    request: LiveRequest[T],
    *,
    label: str,
    reports_progress: bool = True,
    on_point: Callable[[Point], None] | None = None,
) -> T | None:
    """request(progress=...) once per distinct request per server, in the measuring process, one at a time,
    first come first served; on_point, if given, gets each point the job reports as it comes.

    Returns None when the measurement was skipped: the line ahead is longer than max_wait_s(), or
    this visitor waited that long, or the measuring process died (out of memory). The page then keeps
    its recorded answer, and a note says why.
    While waiting, the visitor sees their place in line; leaving or changing the view gives it up
    (Streamlit stops the waiting script at the next update of the note)."""
    key = cache_key(request)
    try:
        return _store(key)[1]
    except _NotCached:
        pass
    note = st.empty()
    limit = max_wait_s()
    if MEASURE_LOCK.expected_wait_s() > limit:
        note.info(
            f"This server is busy measuring for {plural(MEASURE_LOCK.waiting() + 1, 'other view')} (about "
            f"{fmt_s(MEASURE_LOCK.expected_wait_s())} of work), so this view is not measured live now: the "
            "recorded answer stands. Reload in a minute to add this server's own measurement.",
            icon=":material/hourglass_disabled:",
        )
        return None

    shown = {"text": "", "at": 0.0}

    def on_wait(holder: Holding | None, place: int, waited_s: float) -> None:
        if waited_s > limit:
            raise _GaveUp
        eta = max(1.0, round(place * MEASURE_LOCK.typical_hold_s() - waited_s))
        text = (
            f"The recorded answer is shown. This server measures one view at a time, and yours is number "
            f"{place} in line (about {fmt_s(eta)} to go). Leaving the page gives up your place."
        )
        # sent when it reads differently, or every NOTE_REFRESH_S: a note redrawn four times a second in thirty
        # browsers costs them more than the page. Each send is where Streamlit stops a script whose visitor left.
        if text != shown["text"] or waited_s - shown["at"] >= NOTE_REFRESH_S:
            note.info(text, icon=":material/hourglass_top:")
            shown.update(text=text, at=waited_s)

    try:
        with MEASURE_LOCK.hold(label, on_wait=on_wait) as holding:
            note.empty()
            result = _measure_once(key, request, label, reports_progress, on_point)
    except WorkerStopped as err:
        note.warning(
            f"This server's measuring process stopped before it finished ({err}), so this view is not "
            "measured live now: the recorded answer stands. Smaller settings may fit.",
            icon=":material/error:",
        )
        return None
    except _GaveUp:
        note.info(
            f"This view waited {fmt_s(limit)} in line without its turn, so it is not measured live now: the "
            "recorded answer stands. Reload to try again.",
            icon=":material/hourglass_disabled:",
        )
        return None
    if holding.waited_s >= 0.05:
        st.caption(
            f"This view waited {fmt_s(holding.waited_s)} in line (number {holding.place} when it arrived) for "
            "other measurements on this server to finish: one at a time keeps the timings honest."
        )
    return result


def progress_to(bar: Any) -> Callable[[float, str], None]:
    """A job's progress(fraction, message) callback that moves `bar` (an st.progress), held within 0..1."""

    def progress(fraction: float, message: str) -> None:
        bar.progress(min(max(float(fraction), 0.0), 1.0), text=message)

    return progress


def _measure_once(
    key: str, job: Callable[..., T], label: str, reports_progress: bool, on_point: Callable[[Point], None] | None
) -> T:
    """The result measured by a visitor ahead in line, if they asked for the same; else measure it now."""
    try:
        return _store(key)[1]
    except _NotCached:
        pass
    bar = st.progress(0.0, text=f"Measuring {label} …")
    progress = progress_to(bar)
    started = time.perf_counter()
    try:
        result = MEASURE_WORKER.run(job, progress=progress if reports_progress else None, on_point=on_point)
    finally:
        bar.empty()
    _keep(key, result)
    st.session_state["_last_measure_s"] = time.perf_counter() - started
    return result


def measure_ahead(request: LiveRequest, *, label: str) -> bool:
    """Measure `request` for visitors still to come (the warm-up's default views, ui.prefetch), in line like
    theirs, and store it as cached_measurement would: a visitor gets it with the time it was measured.
    Returns whether it was measured now (False: already stored)."""
    if is_cached(request):
        return False
    with MEASURE_LOCK.hold(label):
        if is_cached(request):  # a visitor ahead in line asked for the same view
            return False
        _keep(cache_key(request), MEASURE_WORKER.run(request))
    return True


def sweep_request(
    workload: Workload,
    over: str,
    values: Sequence[SettingValue],
    fixed: Mapping[str, SettingValue],
    devices: Sequence[str],
    *,
    current: SettingValue | None = None,
    point_budget_s: float | None = None,
    total_budget_s: float | None = DEFAULT_TOTAL_BUDGET_S,
    num_threads: int | None = None,
) -> tuple[str, LiveRequest]:
    """measure_sweep's label and request (its cache key), for a page and for the warm-up (ui.prefetch)."""
    point_budget_s = point_budget_s if point_budget_s is not None else live_point_budget_s()
    fixed = {k: v for k, v in fixed.items() if k != over}
    shown = ", ".join(f"{k}={v}" for k, v in fixed.items())
    label = f"{workload.name} over {over} on {', '.join(devices)}" + (f"; {shown}" if shown else "")
    return label, LiveRequest.of(
        live_sweep,
        LiveSweep(workload, over, values, fixed, devices, current=current),
        LiveBudget(point_budget_s, total_budget_s, num_threads),
    )


def measure_sweep(
    workload: Workload,
    over: str,
    values: Sequence[SettingValue],
    fixed: Mapping[str, SettingValue],
    devices: Sequence[str],
    *,
    current: SettingValue | None = None,
    point_budget_s: float | None = None,
    total_budget_s: float | None = DEFAULT_TOTAL_BUDGET_S,
    num_threads: int | None = None,
    on_points: Callable[[LiveCurve], None] | None = None,
) -> LiveCurve:
    """Live points of a sweep (lib.lessons.common.live.live_sweep), cached and locked, with a progress bar,
    and when they were measured (empty when nothing came back).

    While it measures (not when the points come from the cache), on_points(the curve so far) is called
    after every point, e.g. to redraw a chart placeholder as the curve grows."""
    label, request = sweep_request(
        workload,
        over,
        values,
        fixed,
        devices,
        current=current,
        point_budget_s=point_budget_s,
        total_budget_s=total_budget_s,
        num_threads=num_threads,
    )
    so_far: list[Point] = []

    def point_done(point: Point) -> None:
        so_far.append(point)
        if on_points is not None:
            on_points(LiveCurve(tuple(so_far)))

    points = cached_measurement(request, label=label, on_point=point_done)
    return LiveCurve(tuple(points), measured_at(request)) if points else LiveCurve()
