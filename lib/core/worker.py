"""One warm process that runs the app's live measurements, apart from the web server.

    rows = MEASURE_WORKER.run(functools.partial(live_sweep, workload, "batch_size", values, fixed, ["cpu"]),
                              progress=lambda fraction, message: ..., on_row=lambda row: ...)

A web server's visitors share one Python interpreter. A timing taken in it while other visitors'
scripts draw charts waits for the interpreter lock (GIL) behind them, and a launch-bound step, which
is mostly Python, comes out slower than it is. So every live measurement runs here, in a process of
its own that does nothing else, fed one job at a time (the caller holds MEASURE_LOCK). The server
keeps a core for itself; the worker times with the threads the job asks for.

A job is a picklable callable (the pages send a lib.core.request.LiveRequest, which is also its
cache key; a functools.partial of a module-level function does too); when the caller
wants progress reports or rows as they come, it is called with `progress=` or `on_row=`, relayed back
through a pipe; it runs under the caller's $GPUWIN_* settings of the moment. When a callback raises
here (Streamlit stops the script of a visitor who left), the job is cancelled at its next report. If
the worker dies (killed for memory, a crash), `run` raises WorkerStopped and the next job starts a
new one.

Standard library only (and lib.core.gc_scope); the worker imports what the job's function needs.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import pickle
import threading
import traceback
from collections.abc import Callable
from typing import Any

ProgressFn = Callable[[float, str], None]
RowFn = Callable[[dict[str, Any]], None]
POLL_S = 0.1
ENV_PREFIX = "GPUWIN_"
PROCESS_NAME = "gpuwin-measure"


class WorkerStopped(RuntimeError):
    """The measuring process ended before it answered (killed for memory, or crashed)."""


class Cancelled(Exception):
    """Raised inside a job whose caller gave up on it."""


def _serve(conn, cancel) -> None:
    """The worker's loop: run each job it is sent, reporting progress and rows as it goes."""
    from lib.core.gc_scope import frozen_heap

    def progress(fraction: float, message: str) -> None:
        if cancel.is_set():
            raise Cancelled
        conn.send(("progress", fraction, message))

    def on_row(row: dict[str, Any]) -> None:
        if cancel.is_set():
            raise Cancelled
        conn.send(("row", row))

    while True:
        try:
            job, wants_progress, wants_rows, environment = conn.recv()
        except EOFError:  # the server went away
            return
        _adopt(environment)
        callbacks = {**({"progress": progress} if wants_progress else {}), **({"on_row": on_row} if wants_rows else {})}
        try:
            with frozen_heap():  # each collection walks only the job's own objects, not the imports
                result = job(**callbacks)
            conn.send(("done", result))
        except Cancelled:
            conn.send(("cancelled",))
        except Exception as err:  # sent back whole, so the caller raises it as if it ran there ...
            try:
                pickle.loads(pickle.dumps(err))
            except Exception:  # ... unless it cannot be rebuilt there: then its text
                err = RuntimeError(f"{type(err).__name__}: {err}")
            conn.send(("error", err, traceback.format_exc()))


def _app_environment() -> dict[str, str]:
    """The app's settings from the environment ($GPUWIN_*: memory cap, data folder, ...), as the caller has them now."""
    return {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIX)}


def _adopt(environment: dict[str, str]) -> None:
    """Run the next job under the caller's $GPUWIN_* settings, not those the worker started with."""
    for key in [k for k in os.environ if k.startswith(ENV_PREFIX) and k not in environment]:
        del os.environ[key]
    os.environ.update(environment)


class MeasureWorker:
    def __init__(self) -> None:
        self._context = multiprocessing.get_context("spawn")  # fork would copy the server's threads and CUDA state
        self._process = None
        self._conn = None
        self._cancel = self._context.Event()
        self._start_lock = threading.Lock()
        self._stop_at_exit = False

    def start(self) -> None:
        """Start the process (imports take seconds) unless it runs; the server's warm-up calls this."""
        if multiprocessing.current_process().name == PROCESS_NAME:
            # a spawned worker re-runs its parent's main script first: one without a __main__ guard that
            # measures would start a worker from the worker, and so on without end
            raise RuntimeError("the measuring process cannot start another: is the main script missing "
                               "`if __name__ == '__main__':`?")
        with self._start_lock:
            if self._process is not None and self._process.is_alive():
                return
            parent, child = self._context.Pipe()
            # not a daemon: a job may start processes of its own (DataLoader workers); stopped at exit instead,
            # and a worker whose server is gone ends when its pipe closes
            process = self._context.Process(target=_serve, args=(child, self._cancel), name=PROCESS_NAME)
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

    def run(self, job: Callable[..., Any], *, progress: ProgressFn | None = None, on_row: RowFn | None = None) -> Any:
        """job([progress=...], [on_row=...]) in the worker (each passed when given here); its result,
        or its exception raised here.
        One job at a time: the caller holds MEASURE_LOCK. If progress or on_row raise here (Streamlit
        stops a script whose visitor left), the job is cancelled and the exception goes on."""
        self.start()
        conn = self._conn
        self._cancel.clear()
        conn.send((job, progress is not None, on_row is not None, _app_environment()))
        try:
            while True:
                message = self._receive(conn)
                if message[0] == "progress" and progress is not None:
                    progress(message[1], message[2])
                elif message[0] == "row" and on_row is not None:
                    on_row(message[1])
                elif message[0] in ("done", "error", "cancelled"):
                    break
        except WorkerStopped:
            raise
        except BaseException:  # a callback raised: the caller is gone
            self._finish_cancelled(conn)
            raise
        if message[0] == "error":
            raise message[1]
        if message[0] == "cancelled":
            raise Cancelled("the measurement was cancelled")
        return message[1]

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
        raise WorkerStopped(f"the measuring process stopped (exit code {code})"
                            + (": probably killed for lack of memory" if code == -9 else ""))

    def _finish_cancelled(self, conn) -> None:
        """Stop the job and read what it still sends, so the next job's answers are its own."""
        self._cancel.set()
        try:
            while self._receive(conn)[0] not in ("done", "error", "cancelled"):
                pass
        except WorkerStopped:
            pass
        finally:
            self._cancel.clear()


# The one worker of this server process.
MEASURE_WORKER = MeasureWorker()
