"""Cheap garbage collection during a measurement.

lib.core.workload.free_memory() runs a full gc.collect() after every step it builds, so that the step's
tensors (and CUDA blocks) are freed before the next point. In a process with torch loaded, a full
collection walks every tracked object: 0.2-0.3 s per point on the 2-core host (more with pandas and
Streamlit too), more than the timing of most points. Inside `frozen_heap()` the objects that existed
before are frozen (gc.freeze), so each collection walks only what was made since -- the step and its
tensors, which it still frees -- in about a millisecond. They are unfrozen afterwards. Garbage that
exists when the heap is frozen is frozen with it and no collection frees it while frozen: a Training
step left in reference cycles by a cancelled timeline would stay in the measuring process (over a GB)
from one job's freeze to the next, so the worker collects each job's garbage before its body ends
(lib.core.worker).

    with frozen_heap():
        points = live_sweep(...)

Process-wide, like the thread count: lib.core.workload.built_step wraps each step in it (the CLI, a
test or a benchmark measuring in its own process), and the measuring process (lib.core.worker) each
whole job, one at a time. Scopes nest: the outermost freezes and unfreezes.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_LOCK = threading.Lock()
_depth = 0  # frozen_heap scopes open in this process: the first freezes, the last to close unfreezes


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    # Counted here, not read from gc.get_freeze_count(): Python 3.12 starts with a few hundred objects frozen,
    # which read as 'frozen already' and left every collection walking the whole heap there.
    global _depth
    with _LOCK:
        _depth += 1
        if _depth == 1:
            gc.freeze()
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            if _depth == 0:
                gc.unfreeze()  # the interpreter's start-up objects too (3.12): gc walks those few hundred again
