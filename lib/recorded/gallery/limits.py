"""The gallery's caps and rate limits, and who a visitor is for them.

    limits = Limits.from_env()                         # caps and rates (environment variables override them)
    who = Visitor(session=token, client=client_key(ip, forwarded_for, proxy_hops=1))
    check_rate(conn, limits, who)                      # GalleryError when any of its counters is full
    record_event(conn, limits, who, "add")

Three counters, all kept in the gallery's own table (gallery_events), so several app servers share
them and a restart resets nothing: this browser session; the client's address (a script that opens
a new session per add, as the probe of issue 26 did, still comes from one address); and the whole
site (many addresses at once). Only sha256 digests of the session token and the address are stored.
A class behind one school router shares an address, so that counter is a few times the session's.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy.engine import Connection

from lib.recorded.gallery.entry import GalleryError
from lib.recorded.gallery.schema import events

SITE = "site"  # the one key every action of everyone counts under


@dataclass(frozen=True)
class Limits:
    """Caps that keep one visitor from filling the database. Environment variables override them."""

    max_pack_bytes: int = 1_000_000  # GPUWIN_GALLERY_MAX_PACK_KB
    max_rows: int = 200  # rows of the gallery sweep in one entry
    max_per_course: int = 300  # visible entries in one course (the public gallery is one too): GPUWIN_GALLERY_COURSE_CAP
    max_total: int = 20_000  # visible entries in the whole database
    # Entries kept, hidden ones included. Hiding frees a place under max_total (what an instructor
    # who hides spam expects); the hidden rows stay, so a hide can be undone, until the course's
    # admin deletes them for good; this bound keeps the database finite meanwhile.
    max_stored: int = 40_000
    max_courses: int = 500  # courses in the database: GPUWIN_GALLERY_MAX_COURSES
    max_actions: int = 10  # adds and course creations per session per window: GPUWIN_GALLERY_RATE ('10/3600')
    max_client_actions: int = 40  # the same per client address (a class behind one router): GPUWIN_GALLERY_CLIENT_RATE
    max_client_courses: int = 3  # course creations per client address per window
    max_site_actions: int = 300  # adds and course creations of everyone together per window: GPUWIN_GALLERY_SITE_RATE
    max_admin_failures: int = 5  # wrong admin codes per session, and per address, per window
    window_s: float = 3600.0
    page_size: int = 30  # entries (and their packs) one gallery view reads: GPUWIN_GALLERY_PAGE_SIZE

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Limits:
        environ = dict(os.environ if environ is None else environ)
        values: dict[str, Any] = {}
        if environ.get("GPUWIN_GALLERY_MAX_PACK_KB"):
            values["max_pack_bytes"] = int(float(environ["GPUWIN_GALLERY_MAX_PACK_KB"]) * 1000)
        if environ.get("GPUWIN_GALLERY_COURSE_CAP"):
            values["max_per_course"] = int(environ["GPUWIN_GALLERY_COURSE_CAP"])
        if environ.get("GPUWIN_GALLERY_MAX_COURSES"):
            values["max_courses"] = int(environ["GPUWIN_GALLERY_MAX_COURSES"])
        if environ.get("GPUWIN_GALLERY_RATE"):
            count, _, window = environ["GPUWIN_GALLERY_RATE"].partition("/")
            values["max_actions"] = int(count)
            values["window_s"] = float(window or cls.window_s)
        if environ.get("GPUWIN_GALLERY_PAGE_SIZE"):
            values["page_size"] = max(1, int(environ["GPUWIN_GALLERY_PAGE_SIZE"]))
        for name, key in (("GPUWIN_GALLERY_CLIENT_RATE", "max_client_actions"),
                          ("GPUWIN_GALLERY_SITE_RATE", "max_site_actions")):
            if environ.get(name):
                values[key] = int(environ[name].partition("/")[0])
        return cls(**values)


@dataclass(frozen=True)
class Visitor:
    """Who acts: this browser session's random token, and the client's address key ('' unknown)."""

    session: str
    client: str = ""


def client_key(ip: str | None, forwarded_for: str | None = None, proxy_hops: int = 0) -> str:
    """The address a visitor's actions count under. Behind `proxy_hops` trusted proxies the client
    is that many entries from the right of X-Forwarded-For (what the visitor wrote further left
    is not trusted). An IPv6 client counts by its /64 network: one home or phone has a whole /64.
    '' when unknown (a local visitor: Streamlit reports none for localhost)."""
    text = ip or ""
    if proxy_hops > 0 and forwarded_for:
        chain = [part.strip() for part in forwarded_for.split(",") if part.strip()]
        if len(chain) >= proxy_hops:
            text = chain[-proxy_hops]
    try:
        address = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return ""
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def _key(kind: str, value: str) -> str:
    return hashlib.sha256(f"gpuwin-gallery-{kind}:{value}".encode()).hexdigest()


def _keys(who: Visitor) -> dict[str, str]:
    keys = {"session": _key("session", who.session), "site": _key(SITE, SITE)}
    if who.client:
        keys["client"] = _key("client", who.client)
    return keys


def count_events(conn: Connection, limits: Limits, key: str, kinds: tuple[str, ...]) -> int:
    since = time.time() - limits.window_s
    return conn.execute(select(func.count()).select_from(events).where(
        events.c.session == key, events.c.kind.in_(kinds), events.c.at >= since)).scalar_one()


def check_rate(conn: Connection, limits: Limits, who: Visitor, kind: str = "add") -> None:
    """GalleryError('rate_limited') when this session, this address or the whole site has done its
    window's share of adds and course creations (and, creating a course, the address its courses)."""
    keys, acts = _keys(who), ("add", "course")
    minutes = max(1, round(limits.window_s / 60))
    if count_events(conn, limits, keys["session"], acts) >= limits.max_actions:
        raise GalleryError("rate_limited", f"This session has already added {limits.max_actions} things in the "
                                           f"last {minutes} minutes; please wait a while before adding more.")
    if "client" in keys:
        if count_events(conn, limits, keys["client"], acts) >= limits.max_client_actions:
            raise GalleryError("rate_limited", f"{limits.max_client_actions} things were added from your network in "
                                               f"the last {minutes} minutes; please wait a while before adding more.")
        if kind == "course" and count_events(conn, limits, keys["client"], ("course",)) >= limits.max_client_courses:
            raise GalleryError("rate_limited", f"{limits.max_client_courses} courses were created from your network "
                                               f"in the last {minutes} minutes; please wait a while.")
    if count_events(conn, limits, keys["site"], acts) >= limits.max_site_actions:
        raise GalleryError("rate_limited", f"The gallery took {limits.max_site_actions} additions from everyone in the "
                                           f"last {minutes} minutes, its most; please try again later.")


def admin_failures(conn: Connection, limits: Limits, who: Visitor) -> int:
    """Wrong admin codes of this session or this address in the window, whichever is more."""
    keys = _keys(who)
    return max(count_events(conn, limits, keys[k], ("admin_fail",)) for k in ("session", "client") if k in keys)


def record_event(conn: Connection, limits: Limits, who: Visitor, kind: str) -> None:
    """Count one action under the session, the address, and (adds and courses) the site."""
    now = time.time()
    conn.execute(delete(events).where(events.c.at < now - max(limits.window_s, 86_400)))
    keys = _keys(who)
    if kind == "admin_fail":
        keys.pop("site")
    for key in keys.values():
        conn.execute(insert(events).values(session=key, kind=kind, at=now))
