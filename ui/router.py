"""Make sure a page runs inside the router (streamlit_app.py), sidebar included.

The page files live in pages/ (the project's contract). Streamlit treats a pages/ folder as
old-style multipage pages until some run calls st.navigation, so on a fresh server the first
visitor who opens /training directly would get pages/training.py run on its own: no sidebar, no
source choice. ensure_router() notices that and reruns the same URL through the router.
UrlSettings and current_source() call it, so pages that use them need nothing more; a page that
uses neither can call it first thing.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import streamlit as st

_local = threading.local()
_runs = {"running": 0, "ended": 0.0}  # pages running now, and when the last one ended (time.monotonic())
_runs_lock = threading.Lock()


@contextlib.contextmanager
def routed() -> Iterator[None]:
    """streamlit_app.py runs the chosen page inside this."""
    before = getattr(_local, "active", False)
    _local.active = True
    with _runs_lock:
        _runs["running"] += 1
    try:
        yield
    finally:
        _local.active = before
        with _runs_lock:
            _runs["running"] -= 1
            _runs["ended"] = time.monotonic()


def quiet_for() -> float:
    """Seconds since the last page run on this server ended (0 while one runs): work done ahead for
    visitors still to come waits for a quiet moment, so a visitor here now never shares the CPU with it."""
    with _runs_lock:
        return 0.0 if _runs["running"] else time.monotonic() - _runs["ended"]


def wait_until_quiet(quiet_s: float, poll_s: float = 0.1) -> None:
    """Return once no page has run for quiet_s seconds."""
    while (quiet := quiet_for()) < quiet_s:
        time.sleep(max(poll_s, quiet_s - quiet) if quiet else poll_s)


def is_routed() -> bool:
    return getattr(_local, "active", False)


def ensure_router() -> None:
    """Rerun through streamlit_app.py if this page was started by the pages/ folder mode."""
    if is_routed():
        return
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without it has no folder mode to escape
        return
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False  # what st.navigation itself sets
        st.rerun()
