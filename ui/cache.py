"""The results cache (lib.core.cache) bound to Streamlit: the one module here that names st.cache_resource.

    bind()                                       # each run: Streamlit's "clear cache" clears lib.core.cache
    @per_session(on_release=SessionUploads.release)
    def session_uploads() -> SessionUploads: ...  # held by the visitor's session, let go with its tab

Results are kept by lib.core.cache, not by Streamlit; two things need Streamlit's lifetimes: a visitor's
own uploads, released when their session ends, and Streamlit's "clear cache" (a developer's menu item;
ui.cache_guard refuses a visitor's), which reaches lib.core.cache through the one resource bind() holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from lib.core import cache

F = TypeVar("F", bound=Callable[..., Any])


def _forget(_bound: str) -> None:
    cache.clear_all()


@st.cache_resource(show_spinner=False, on_release=_forget)
def _bound() -> str:
    return "lib.core.cache"


def bind() -> None:
    """Hold the resource whose release (Streamlit clearing its caches) clears every result kept here."""
    _bound()


def per_session(on_release: Callable[[Any], None]) -> Callable[[F], F]:
    """One value per visitor's session, released (on_release(value)) when the session ends."""
    return st.cache_resource(scope="session", on_release=on_release, show_spinner=False)
