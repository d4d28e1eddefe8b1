"""The gallery's database through Streamlit's own st.connection, and what pages need around it.

    gallery = open_gallery()          # lib.recorded.gallery.store.Gallery on the connection's engine
    token = session_token()           # this browser session's random token (for the rate limit)
    client = client_address()         # the visitor's address key (the rate limit a new session does not reset)
    browser = browser_token()         # this browser's key, shared by its tabs ('' where it sent none)
    sources, notes = gallery_sources(st.query_params.get("gallery"))   # picks for Your results

Where the gallery lives, first match wins:
  1. $GPUWIN_GALLERY_URL (any SQLAlchemy URL, e.g. postgresql+psycopg://user:pw@host/db)
  2. [connections.gallery] in .streamlit/secrets.toml (url = "...", or dialect/host/username/...)
  3. sqlite:///<data dir>/gallery.sqlite, the data dir being $GPUWIN_DATA_DIR or data/ in the repository

A database that fails is a note saying so, never where it is: a driver's message names the host,
the port or the file, so the whole error goes to the server's log only.
"""

from __future__ import annotations

import logging
import os
import secrets
from typing import NamedTuple, TypedDict
from urllib.parse import urlsplit

import streamlit as st
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from lib.lessons.gallery.view import entry_machines, labelled_pack, parse_picks, shipped_machines
from lib.recorded.gallery.entry import shipped_gallery_packs
from lib.recorded.gallery.limits import browser_key, client_key
from lib.recorded.gallery.schema import default_url
from lib.recorded.gallery.store import Gallery, Limits
from lib.recorded.uploads import Source

SESSION_KEY = "gallery.session"
XSRF_COOKIE = "_streamlit_xsrf"  # Streamlit's own cookie (server.enableXsrfProtection, on in .streamlit/config.toml)
UNAVAILABLE = (
    "The gallery's database could not be opened just now, so the gallery is not shown. Please try "
    "again in a few minutes."
)
FAILED = "The gallery's database failed, so nothing was changed. Please try again in a few minutes."
log = logging.getLogger(__name__)


class GalleryUnavailable(RuntimeError):
    """The database could not be opened; the message is safe to show (no host, port, path or password)."""


class SecretsEntry(NamedTuple):
    """[connections.gallery] in .streamlit/secrets.toml: its url, or None where Streamlit builds one from
    the section's dialect, host, ..."""

    url: str | None


def _secrets_entry() -> SecretsEntry | None:
    if not st.secrets.load_if_toml_exists():
        return None
    section = st.secrets.get("connections", {}).get("gallery")
    return SecretsEntry(section.get("url")) if section else None


class ConnectionArgs(TypedDict, total=False):
    """The keyword arguments st.connection('gallery', type='sql', ...) is given."""

    url: str
    pool_pre_ping: bool
    connect_args: dict[str, int]


def connection_kwargs() -> ConnectionArgs:
    """The keyword arguments for st.connection('gallery', type='sql', ...)."""
    secrets_entry = None if os.environ.get("GPUWIN_GALLERY_URL") else _secrets_entry()
    if os.environ.get("GPUWIN_GALLERY_URL"):
        url: str | None = os.environ["GPUWIN_GALLERY_URL"]
    elif secrets_entry is not None:
        url = secrets_entry.url
    else:
        url = default_url()
    # pool_pre_ping: a pooled connection that died with the database (a restart, an idle timeout)
    # is replaced before use, instead of failing the first visitor after the outage.
    kwargs = ConnectionArgs(url=url, pool_pre_ping=True) if url else ConnectionArgs(pool_pre_ping=True)
    if url and make_url(url).get_backend_name() == "sqlite":
        kwargs["connect_args"] = {"timeout": 30}  # sqlite3's own wait for a lock, before our PRAGMAs run
    return kwargs


def where_stored(gallery: Gallery) -> str:
    """'SQLite' or 'PostgreSQL': the kind of database only (no file name, host, user or password)."""
    url = gallery.engine.url
    return {"sqlite": "SQLite", "postgresql": "PostgreSQL"}.get(url.get_backend_name(), url.get_backend_name())


def open_gallery() -> Gallery:
    try:
        conn = st.connection("gallery", type="sql", **connection_kwargs())
        return Gallery(conn.engine, Limits.from_env(), os.environ.get("GPUWIN_GALLERY_ADMIN_CODE") or None)
    except Exception as err:  # a page says the gallery is unavailable, never a traceback
        raise unavailable(err) from err


def unavailable(err: Exception) -> GalleryUnavailable:
    """A database error as the note pages show: that it happened, not where. The error itself, with
    its host, port or file, goes to the server's log."""
    logged(err, "the gallery's database could not be opened")
    return GalleryUnavailable(UNAVAILABLE)


def logged(err: BaseException, what: str) -> None:
    """The whole error in the server's log (stderr), once per failure."""
    log.error("%s: %s: %s", what, type(err).__name__, err, exc_info=err)


def session_token() -> str:
    if SESSION_KEY not in st.session_state:
        st.session_state[SESSION_KEY] = secrets.token_hex(16)
    return st.session_state[SESSION_KEY]


def client_address() -> str:
    """The address this visitor's gallery actions count under: Streamlit's own view of the
    connection, or, behind $GPUWIN_PROXY_HOPS trusted proxies (a hosting platform's), the client
    that many entries from the right of X-Forwarded-For. '' for a local visitor."""
    try:
        hops = int(os.environ.get("GPUWIN_PROXY_HOPS") or 0)
    except ValueError:
        hops = 0
    headers = getattr(st.context, "headers", None) or {}
    return client_key(getattr(st.context, "ip_address", None), headers.get("X-Forwarded-For"), hops)


def browser_token() -> str:
    """This browser's key: the token of Streamlit's XSRF cookie, which every tab of the browser sends
    until it quits. A private window is another browser, and a script may send a made-up cookie or
    none ('' then: only the session, the address and the pace bound it)."""
    cookies = getattr(st.context, "cookies", None) or {}
    return browser_key(cookies.get(XSRF_COOKIE))


def app_base_url() -> str:
    """This app's address as the visitor's browser sees it (for commands that print an upload link)."""
    url = getattr(st.context, "url", None)
    if url:
        parts = urlsplit(url)
        if parts.scheme and parts.netloc:
            return f"{parts.scheme}://{parts.netloc}"
    return "http://localhost:8501"


def gallery_sources(raw: str | None) -> tuple[list[Source], list[str]]:
    """The gallery machines a link names (?gallery=12,shipped:h200_training) as Your results sources,
    each labelled with its gallery line; and a note per item that could not be used."""
    ids, stems, notes = parse_picks(raw)
    sources: list[Source] = []
    if stems:
        shipped = dict(shipped_gallery_packs())
        for stem in stems:
            if stem not in shipped:
                notes.append(f"gallery: no shipped pack {stem[:40]!r} holds the gallery sweep")
                continue
            machine = shipped_machines([(stem, shipped[stem])])[0]
            sources.append(
                Source(f"gallery: {machine.line}", pack=labelled_pack(shipped[stem], machine.line), shipped=True)
            )
    if ids:
        try:
            gallery = open_gallery()
            found = {e.id: e for e in gallery.entries_by_id(ids)}
            packs = gallery.packs(found)
        except GalleryUnavailable as err:
            return sources, notes + [str(err)]
        except SQLAlchemyError as err:  # the database went away under an open connection
            return sources, notes + [str(unavailable(err))]
        for entry_id in ids:
            if entry_id not in found or entry_id not in packs:
                notes.append(f"gallery: entry #{entry_id} is not in the gallery (or was hidden)")
                continue
            machine = entry_machines([found[entry_id]], packs)[0]
            sources.append(
                Source(f"gallery #{entry_id}: {machine.named_by}", pack=labelled_pack(packs[entry_id], machine.line))
            )
    return sources, notes
