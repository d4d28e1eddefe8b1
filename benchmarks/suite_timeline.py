"""A pytest plugin for benchmarks/suite_cpu.py --idle: each test's start and end (wall clock, and the test process's
own CPU so far), one JSON line each, in the file $GPUWIN_SUITE_TIMELINE (every pytest process appends its own)."""

from __future__ import annotations

import json
import os
import time

import pytest


def _log(nodeid: str, event: str) -> None:
    path = os.environ.get("GPUWIN_SUITE_TIMELINE")
    if path:
        line = json.dumps(
            {"test": nodeid, "event": event, "t": time.time(), "cpu": time.process_time(), "pid": os.getpid()}
        )
        with open(path, "a") as out:
            out.write(line + "\n")


# the protocol hook runs where the test runs (an xdist process), not also in xdist's controller as logstart does
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _log(item.nodeid, "start")
    yield
    _log(item.nodeid, "end")
