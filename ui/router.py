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
from collections.abc import Iterator

import streamlit as st

_local = threading.local()


@contextlib.contextmanager
def routed() -> Iterator[None]:
    """streamlit_app.py runs the chosen page inside this."""
    before = getattr(_local, "active", False)
    _local.active = True
    try:
        yield
    finally:
        _local.active = before


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
