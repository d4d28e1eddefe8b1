"""The gallery's caps, its pace and its rate limits, and who a visitor is for them.

    limits = Limits.from_env()                         # caps and rates (environment variables override them)
    who = Visitor(session=token, client=client_key(ip, forwarded_for, proxy_hops=1), browser=browser_key(cookie))
    check_rate(conn, limits, who)                      # GalleryError when one of the visitor's counters is full
    held = over_pace(conn, limits, course)             # True: a new entry waits for the instructor's approval
    record_event(conn, limits, who, Act.ADD, course)

Counters kept in the gallery's own table (gallery_events), so several app servers share them and a
restart resets nothing: this browser session; this browser (Streamlit's own XSRF cookie, which every
tab of one browser shares); the client's address (a script that opens a new session per add still
comes from one address); each course and the whole site. Only sha256
digests of the keys are stored. A class behind one school router shares an address, so that counter
is a few times the session's.

When no address is known (a local visitor, or a proxy without GPUWIN_PROXY_HOPS) every visitor looks
the same, and a script can make up a new session and cookie for each add (a few dozen such
sessions would fill the public gallery and the site's hourly limit, and every later add be refused for an
hour). So the site never refuses an add for being busy: past its pace (a course's shown adds per
window, and everyone's together) a new entry is stored but held until an instructor approves it, and
only a course's queue of held entries is bounded. Wrong admin codes from visitors without an address
count per course, whichever session they come from.
"""

from __future__ import annotations

import binascii
import hashlib
import ipaddress
import os
import time
from dataclasses import dataclass
from enum import Enum

from sqlalchemy import delete, func, insert, select
from sqlalchemy.engine import Connection

from lib.recorded.gallery.entry import GalleryError
from lib.recorded.gallery.schema import events

SITE = "site"  # the one key every action of everyone counts under


class Act(str, Enum):
    """What a counter counts (its value is what gallery_events.kind stores)."""

    ADD = "add"  # an entry added and shown at once
    HELD = "held"  # an entry added past the pace: stored, shown once an instructor approves it
    COURSE = "course"  # a course created
    ADMIN_FAIL = "admin_fail"  # a wrong admin code


ACTIONS = (Act.ADD, Act.HELD, Act.COURSE)  # what a visitor's own limit counts


@dataclass(frozen=True)
class Limits:
    """Caps that keep one visitor from filling the database. Environment variables override them."""

    max_pack_bytes: int = 1_000_000  # GPUWIN_GALLERY_MAX_PACK_KB
    max_rows: int = 200  # rows of the gallery sweep in one entry
    max_per_course: int = (
        300  # visible entries in one course (the public gallery is one too): GPUWIN_GALLERY_COURSE_CAP
    )
    max_total: int = 20_000  # visible entries in the whole database
    # Entries kept, hidden ones included. Hiding frees a place under max_total (what an instructor
    # who hides spam expects); the hidden rows stay, so a hide can be undone, until the course's
    # admin deletes them for good; this bound keeps the database finite meanwhile.
    max_stored: int = 40_000
    max_courses: int = 500  # courses in the database: GPUWIN_GALLERY_MAX_COURSES
    max_actions: int = (
        10  # adds and course creations per session, and per browser, per window: GPUWIN_GALLERY_RATE ('10/3600')
    )
    max_client_actions: int = 40  # the same per client address (a class behind one router): GPUWIN_GALLERY_CLIENT_RATE
    max_client_courses: int = 3  # course creations per client address per window
    # The pace: entries shown at once per course per window (a class of 30 adding twice); later ones
    # wait for the instructor's approval: GPUWIN_GALLERY_PACE
    pace: int = 60
    # shown adds and course creations of everyone together per window: later adds wait for approval,
    # later courses are refused: GPUWIN_GALLERY_SITE_RATE
    max_site_actions: int = 300
    max_held: int = 300  # entries waiting for approval in one course: GPUWIN_GALLERY_MAX_HELD
    max_admin_failures: int = (
        5  # wrong admin codes per session, browser and address (or course, without one) per window
    )
    window_s: float = 3600.0
    page_size: int = 30  # entries (and their packs) one gallery view reads: GPUWIN_GALLERY_PAGE_SIZE

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Limits:
        environ = dict(os.environ if environ is None else environ)
        values: dict[str, int | float] = {}  # Limits field -> the value the environment sets
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
        for name, key in (
            ("GPUWIN_GALLERY_CLIENT_RATE", "max_client_actions"),
            ("GPUWIN_GALLERY_SITE_RATE", "max_site_actions"),
            ("GPUWIN_GALLERY_PACE", "pace"),
            ("GPUWIN_GALLERY_MAX_HELD", "max_held"),
        ):
            if environ.get(name):
                values[key] = int(environ[name].partition("/")[0])
        return cls(**values)


@dataclass(frozen=True)
class Visitor:
    """Who acts: this browser session's random token, the client's address key and the browser's
    key ('' where unknown)."""

    session: str
    client: str = ""
    browser: str = ""


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


def browser_key(xsrf_cookie: str | None) -> str:
    """This browser's key: the random token in Streamlit's XSRF cookie (_streamlit_xsrf), which every
    tab of the browser sends until it quits (Streamlit re-masks it on each page load, so the token is
    unmasked here). '' without a readable cookie. Any client can send a cookie it made up, so this
    bounds a browser, not a script."""
    parts = str(xsrf_cookie or "").strip('"').split("|")
    try:
        if parts[0] == "2" and len(parts) == 4:  # 2|mask|masked token|timestamp, all hex but the time
            mask, masked = binascii.unhexlify(parts[1]), binascii.unhexlify(parts[2])
            if len(mask) != 4 or not 8 <= len(masked) <= 64:
                return ""
            return bytes(b ^ mask[i % 4] for i, b in enumerate(masked)).hex()
        if len(parts) == 1 and 16 <= len(parts[0]) <= 128:  # version 1: the token's hex itself
            return binascii.unhexlify(parts[0]).hex()
    except (binascii.Error, ValueError):
        return ""
    return ""


def _key(kind: str, value: str) -> str:
    return hashlib.sha256(f"gpuwin-gallery-{kind}:{value}".encode()).hexdigest()


def _keys(who: Visitor) -> dict[str, str]:
    """The visitor's own counters (the site's and the courses' are apart)."""
    keys = {"session": _key("session", who.session)}
    if who.browser:
        keys["browser"] = _key("browser", who.browser)
    if who.client:
        keys["client"] = _key("client", who.client)
    return keys


def _course_key(course: str) -> str:
    return _key("course", course)


def _nowhere_key(course: str) -> str:
    """Wrong admin codes for `course` from every visitor without an address, together."""
    return _key("no-address-admin", course)


def count_events(conn: Connection, limits: Limits, key: str, kinds: tuple[Act, ...]) -> int:
    since = time.time() - limits.window_s
    return conn.execute(
        select(func.count())
        .select_from(events)
        .where(events.c.session == key, events.c.kind.in_([k.value for k in kinds]), events.c.at >= since)
    ).scalar_one()


def check_rate(conn: Connection, limits: Limits, who: Visitor, kind: Act = Act.ADD) -> None:
    """GalleryError('rate_limited') when this session, this browser or this address has done its
    window's share of adds and course creations (and, creating a course, the address its courses,
    or everyone together theirs). A busy site holds adds (over_pace), it never refuses them."""
    keys = _keys(who)
    minutes = max(1, round(limits.window_s / 60))
    wait = "please wait a while before adding more."
    for name, whose in (("session", "This session has"), ("browser", "This browser has")):
        if name in keys and count_events(conn, limits, keys[name], ACTIONS) >= limits.max_actions:
            raise GalleryError(
                "rate_limited",
                f"{whose} already added {limits.max_actions} things in the last {minutes} minutes; {wait}",
            )
    if "client" in keys:
        if count_events(conn, limits, keys["client"], ACTIONS) >= limits.max_client_actions:
            raise GalleryError(
                "rate_limited",
                f"{limits.max_client_actions} things were added from your network in "
                f"the last {minutes} minutes; {wait}",
            )
        if (
            kind == Act.COURSE
            and count_events(conn, limits, keys["client"], (Act.COURSE,)) >= limits.max_client_courses
        ):
            raise GalleryError(
                "rate_limited",
                f"{limits.max_client_courses} courses were created from your network "
                f"in the last {minutes} minutes; please wait a while.",
            )
    if kind == Act.COURSE and _site_busy(conn, limits):
        raise GalleryError(
            "rate_limited",
            f"The gallery took {limits.max_site_actions} additions from everyone in the "
            f"last {minutes} minutes, its most; please try again later.",
        )


def _site_busy(conn: Connection, limits: Limits) -> bool:
    return count_events(conn, limits, _key(SITE, SITE), (Act.ADD, Act.COURSE)) >= limits.max_site_actions


def over_pace(conn: Connection, limits: Limits, course: str) -> bool:
    """Whether a new entry of `course` waits for approval: the course has shown its pace of entries
    in the window, or everyone together the site's."""
    return count_events(conn, limits, _course_key(course), (Act.ADD,)) >= limits.pace or _site_busy(conn, limits)


def admin_failures(conn: Connection, limits: Limits, who: Visitor, course: str) -> int:
    """Wrong admin codes of this session, browser or address in the window, whichever is most;
    without an address, also every addressless visitor's for this course (a new session, which a
    script gets for free, does not start the tries over)."""
    keys = list(_keys(who).values()) + ([] if who.client else [_nowhere_key(course)])
    return max(count_events(conn, limits, key, (Act.ADMIN_FAIL,)) for key in keys)


def record_event(conn: Connection, limits: Limits, who: Visitor, kind: Act, course: str = "") -> None:
    """Count one action under the visitor's keys; a shown add also under its course and the site,
    a course creation under the site, a wrong code (without an address) under its course."""
    now = time.time()
    conn.execute(delete(events).where(events.c.at < now - max(limits.window_s, 86_400)))
    keys = list(_keys(who).values())
    if kind == Act.ADD:
        keys += [_course_key(course), _key(SITE, SITE)]
    elif kind == Act.COURSE:
        keys.append(_key(SITE, SITE))
    elif kind == Act.ADMIN_FAIL and not who.client:
        keys.append(_nowhere_key(course))
    for key in keys:
        conn.execute(insert(events).values(session=key, kind=kind.value, at=now))
