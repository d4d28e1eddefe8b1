"""One warm process that runs the app's live measurements, apart from the web server.

    points = MEASURE_WORKER.run(functools.partial(live_sweep, LiveSweep(workload, "batch_size", values, fixed, ["cpu"])),
                                progress=lambda fraction, message: ..., on_point=lambda point: ...)

A web server's visitors share one Python interpreter. A timing taken in it while other visitors'
scripts draw charts waits for the interpreter lock (GIL) behind them, and a launch-bound step, which
is mostly Python, comes out slower than it is. So every live measurement runs here, in a process of
its own that does nothing else, fed one job at a time (the caller holds MEASURE_LOCK). The server
keeps a core for itself; the worker times with the threads the job asks for.

A job is a picklable callable (the pages send a lib.core.request.LiveRequest, which is also its
cache key; a functools.partial of a module-level function does too, of a module other than the main
script: the worker does not run the main script); when the caller
wants progress reports or points as they come, it is called with `progress=` or `on_point=`, relayed
back through a pipe (a lib.core.point.Point pickles whole); it runs under the caller's $GPUWIN_*
settings of the moment. When a callback raises here (Streamlit stops the script of a visitor who
left), the job is cancelled at its next report. If the worker dies (killed for memory, a crash),
`run` raises WorkerStopped and the next job starts a new one.

After every job the worker gives its memory back (lib.core.heap: the job's garbage collected, the
C heap's free pages returned), so the next visitor's memory gate counts what the process needs, not
what an earlier view left behind. If it still holds more than its idle size plus RECYCLE_MARGIN_BYTES
(a job kept something), it is recycled: a fresh process takes its place at once and imports what the
old one had imported before the next job arrives. Its idle size is what it held after starting, and
after each job that imported modules or started CUDA (imported code and a CUDA context, with the GPU
libraries it loads, stay in any process that runs such a job: recycling them would start CUDA afresh
for every GPU job).
Each job's figures are kept in `MeasureWorker.held` (a Held). The worker is spawned (fork would copy the server's
threads and CUDA state), but a job starts its own processes (DataLoader workers) as a script on this platform does,
as the CLI that records the packs does.

Standard library only (and lib.core.gc_scope, lib.core.heap); the worker imports what the job's function needs.
"""

from __future__ import annotations

import atexit
import contextlib
import enum
import gc
import importlib
import multiprocessing
import os
import pickle
import sys
import threading
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lib.core.heap import give_back, process_rss_bytes

if TYPE_CHECKING:  # a name for the annotations only: the worker imports what its jobs need, nothing more
    from lib.core.point import Point

ProgressFn = Callable[[float, str], None]
PointFn = Callable[["Point"], None]
POLL_S = 0.1
ENV_PREFIX = "GPUWIN_"
PROCESS_NAME = "gpuwin-measure"
# Held after a job's memory is given back, over the idle size, that makes the worker start afresh: well
# inside the 0.2 GB a job may leave behind, and over the few megabytes a job's first calls add (caches of torch's
# dispatcher, a data set kept on the host: lib.workloads.datasets)
RECYCLE_MARGIN_BYTES = 0.1e9


class Outcome(enum.Enum):
    """How a job ended: its last message is (Outcome, payload, Held, modules to preload if recycled)."""

    DONE = "done"
    ERROR = "error"
    CANCELLED = "cancelled"


FINAL = frozenset(Outcome)


@dataclass(frozen=True)
class Held:
    """What the measuring process held after a job, in bytes: its garbage collected (after_job), its
    allocator's free pages given back (after_trim), its idle size then (idle), and whether it was
    replaced by a fresh process because after_trim stayed over idle + RECYCLE_MARGIN_BYTES."""

    after_job: float
    after_trim: float
    idle: float
    recycled: bool


class WorkerStopped(RuntimeError):
    """The measuring process ended before it answered (killed for memory, or crashed)."""


class Cancelled(Exception):
    """Raised inside a job whose caller gave up on it."""


def _serve(conn, cancel, preload: tuple[str, ...] = (), give: bool = True) -> None:
    """The worker's loop: run each job it is sent, reporting progress and points as it goes, and give its
    memory back after each. `preload`: modules to import first (a recycled worker's: its successor is
    warm before the next job comes); `give`: False keeps what a job leaves (only to measure what giving
    it back saves)."""
    from lib.core.gc_scope import frozen_heap

    # spawned, this process would spawn its jobs' DataLoader workers too, each importing torch again (seconds and
    # 350 MB a worker the gate never counts: benchmarks/dataloader_workers.py): start them as a script here does
    multiprocessing.set_start_method(None, force=True)

    def progress(fraction: float, message: str) -> None:
        if cancel.is_set():
            raise Cancelled
        conn.send(("progress", fraction, message))

    def on_point(point: Point) -> None:
        if cancel.is_set():
            raise Cancelled
        conn.send(("point", point))

    started = set(sys.modules)  # what a spawned worker imports anyway: the rest a successor imports first
    for name in preload:
        with contextlib.suppress(Exception):  # what fails here fails again, with its message, in the job needing it
            importlib.import_module(name)
    if give:
        give_back()
    idle = process_rss_bytes()
    while True:
        modules = len(sys.modules)  # before the job is unpickled: that may import its module
        cuda_before = _cuda_started()
        try:
            request = conn.recv()
        except EOFError:  # the server went away
            return
        if request is None:  # recycled: a fresh worker takes over
            return
        job, wants_progress, wants_points, environment = request
        _adopt(environment)
        callbacks = {
            **({"progress": progress} if wants_progress else {}),
            **({"on_point": on_point} if wants_points else {}),
        }
        with frozen_heap():  # each collection walks only the job's own objects, not the imports
            answer = _answer(job, callbacks)
            if give:  # the job's garbage (cycles through a step's closures, a traceback's frames), before it is counted
                gc.collect()
        after_job = process_rss_bytes()
        if give:
            give_back()
        after_trim = process_rss_bytes()
        if len(sys.modules) > modules or _cuda_started() != cuda_before:
            idle = after_trim
        recycle = give and after_trim > idle + RECYCLE_MARGIN_BYTES
        imported = tuple(_roots(n for n in sys.modules if n not in started)) if recycle else ()
        conn.send((*answer, Held(after_job, after_trim, idle, recycle), imported))


def _cuda_started() -> bool:
    """Whether this process has a CUDA context (torch only if a job imported it: the worker itself does not)."""
    torch = sys.modules.get("torch")
    try:
        return bool(torch is not None and torch.cuda.is_initialized())
    except Exception:  # a half-imported torch: not started
        return False


def _answer(job: Callable[..., Any], callbacks: dict[str, ProgressFn | PointFn]) -> tuple:
    """(DONE, result), (CANCELLED, None) or (ERROR, (exception, its traceback's text))."""
    try:
        return (Outcome.DONE, job(**callbacks))
    except Cancelled:
        return (Outcome.CANCELLED, None)
    except Exception as err:  # sent back whole, so the caller raises it as if it ran there ...
        text = traceback.format_exc()
        # its frames (and the tensors in them) are freed before memory is counted; neither goes through a pipe
        err.__traceback__ = err.__cause__ = err.__context__ = None
        try:
            pickle.loads(pickle.dumps(err))
        except Exception:  # ... unless it cannot be rebuilt there: then its text
            err = RuntimeError(f"{type(err).__name__}: {err}")
        return (Outcome.ERROR, (err, text))


def _roots(names) -> list[str]:
    """What a successor imports to be as warm: each top-level package, and this app's own modules."""
    roots: dict[str, None] = {}
    for name in names:
        if name.startswith("lib."):
            roots[name] = None
        elif not name.startswith("_"):
            roots.setdefault(name.partition(".")[0], None)
    return list(roots)


def _reap(process, wait_s: float = 10.0) -> None:
    """Wait for a recycled worker to end; one still there after wait_s (stuck in a child of its own) is killed."""
    process.join(wait_s)
    if process.is_alive():
        process.kill()
        process.join(5)


def _app_environment() -> dict[str, str]:
    """The app's settings from the environment ($GPUWIN_*: memory cap, data folder, ...), as the caller has them now."""
    return {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIX)}


def _adopt(environment: dict[str, str]) -> None:
    """Run the next job under the caller's $GPUWIN_* settings, not those the worker started with."""
    for key in [k for k in os.environ if k.startswith(ENV_PREFIX) and k not in environment]:
        del os.environ[key]
    os.environ.update(environment)


@contextlib.contextmanager
def _main_script_hidden():
    """A spawned process first re-runs its parent's __main__. In a Streamlit server that is the page script
    (Streamlit's script runner installs it as __main__), so the worker imported Streamlit and the app and ran
    the router's top level: 1,218 modules, 150 MB more at idle, 1-2 s more to start. Jobs are functions of
    lib, found by module name, so the worker is spawned with a bare __main__ instead."""
    main, bare = sys.modules["__main__"], types.ModuleType("__main__")
    sys.modules["__main__"] = bare
    try:
        yield
    finally:
        if sys.modules.get("__main__") is bare:  # a script run that began meanwhile installed its own: keep it
            sys.modules["__main__"] = main


class MeasureWorker:
    def __init__(self, *, give_back: bool = True) -> None:
        """give_back=False: the worker keeps what its jobs leave (benchmarks/worker_memory.py measures that)."""
        self._context = multiprocessing.get_context("spawn")  # fork would copy the server's threads and CUDA state
        self._process = None
        self._conn = None
        self._cancel = self._context.Event()
        self._start_lock = threading.Lock()
        self._stop_at_exit = False
        self._give_back = give_back
        self._preload: tuple[str, ...] = ()  # what a recycled worker had imported: its successor imports it first
        self.held: Held | None = None  # the last job's memory figures
        self.recycled = 0  # how many times a fresh process took over

    def start(self) -> None:
        """Start the process (imports take seconds) unless it runs; the server's warm-up calls this."""
        if multiprocessing.current_process().name == PROCESS_NAME:  # a job must not start a worker of its own
            raise RuntimeError("the measuring process cannot start another")
        with self._start_lock:
            if self._process is not None and self._process.is_alive():
                return
            parent, child = self._context.Pipe()
            # not a daemon: a job may start processes of its own (DataLoader workers); stopped at exit instead,
            # and a worker whose server is gone ends when its pipe closes
            process = self._context.Process(
                target=_serve, args=(child, self._cancel, self._preload, self._give_back), name=PROCESS_NAME
            )
            with _main_script_hidden():
                process.start()
            if not self._stop_at_exit:
                atexit.register(self.stop)
                self._stop_at_exit = True
            child.close()
            self._process, self._conn = process, parent

    def pid(self) -> int | None:
        return self._process.pid if self._process is not None and self._process.is_alive() else None

    def stop(self) -> None:
        with self._start_lock:
            if self._process is not None:
                self._process.kill()
                self._process.join(5)
            self._process = self._conn = None

    def run(
        self, job: Callable[..., Any], *, progress: ProgressFn | None = None, on_point: PointFn | None = None
    ) -> Any:
        """job([progress=...], [on_point=...]) in the worker (each passed when given here); its result,
        or its exception raised here.
        One job at a time: the caller holds MEASURE_LOCK. If progress or on_point raise here (Streamlit
        stops a script whose visitor left), the job is cancelled and the exception goes on."""
        self.start()
        conn = self._conn
        self._cancel.clear()
        conn.send((job, progress is not None, on_point is not None, _app_environment()))
        try:
            while True:
                message = self._receive(conn)
                if message[0] == "progress" and progress is not None:
                    progress(message[1], message[2])
                elif message[0] == "point" and on_point is not None:
                    on_point(message[1])
                elif message[0] in FINAL:
                    break
        except WorkerStopped:
            raise
        except BaseException:  # a callback raised: the caller is gone
            self._finish_cancelled(conn)
            raise
        kind, payload = self._settle(message)
        if kind is Outcome.ERROR:
            raise payload[0]
        if kind is Outcome.CANCELLED:
            raise Cancelled("the measurement was cancelled")
        return payload

    def _settle(self, message: tuple) -> tuple[Outcome, Any]:
        """A job's last message: keep its memory figures, and recycle the worker if it asked; (kind, payload)."""
        kind, payload, held, imported = message
        self.held = held
        if held.recycled:
            self.recycle(imported)
        return kind, payload

    def recycle(self, imported: tuple[str, ...] = ()) -> None:
        """Let the worker end and start a fresh one at once, which imports `imported` (what the old one had)
        before it takes the next job (in the background: the answer just received is not held up)."""
        with self._start_lock:
            old, conn = self._process, self._conn
            self._process = self._conn = None
            self._preload = imported
        if conn is not None:
            try:
                conn.send(None)  # it ends when it reads this
                conn.close()
            except (OSError, ValueError):
                pass
        if old is not None:
            threading.Thread(target=_reap, args=(old,), name="gpuwin-measure-reaper", daemon=True).start()
        self.recycled += 1
        self.start()

    def _receive(self, conn) -> tuple:
        try:
            while not conn.poll(POLL_S):
                if self._process is None or not self._process.is_alive():
                    break
            return conn.recv()
        except (EOFError, OSError):
            pass
        process = self._process
        if process is not None:
            process.join(5)
        code = process.exitcode if process is not None else None
        self.stop()
        raise WorkerStopped(
            f"the measuring process stopped (exit code {code})"
            + (": probably killed for lack of memory" if code == -9 else "")
        )

    def _finish_cancelled(self, conn) -> None:
        """Stop the job and read what it still sends, so the next job's answers are its own."""
        self._cancel.set()
        try:
            while (message := self._receive(conn))[0] not in FINAL:
                pass
            self._settle(message)
        except WorkerStopped:
            pass
        finally:
            self._cancel.clear()


# The one worker of this server process.
MEASURE_WORKER = MeasureWorker()
