"""The gallery on a SQLAlchemy engine: add, list, hide; courses with admin codes; caps and a rate limit.

    gallery = Gallery(engine)                                  # creates the tables on first use
    code, admin = gallery.create_course("ML101", session=token)
    entry = gallery.add("my_machine.json", data, name="Ada", course="ML101", session=token)
    gallery.entries(course="ML101")                            # visible entries, newest first
    gallery.packs([entry.id])                                  # {id: validated pack}
    gallery.set_hidden(entry.id, "ML101", admin, hidden=True, session=token)

Every write is one transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: the course's row locked), so
two visitors adding at once both land and a cap cannot be overrun. Every refusal is a GalleryError
whose message a page can show as it is. `session` is a random token the page keeps per browser
session; only its sha256 is stored.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from lib.core.results import PackError, validate_pack
from lib.recorded.gallery.entry import (
    Candidate,
    GalleryError,
    clean_name,
    clean_text,
    content_key,
    normalize_course,
    prepare_upload,
    shipped_gallery_packs,
)
from lib.recorded.gallery.schema import PUBLIC, courses, ensure_schema, entries, events, write_transaction

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud in a classroom
HASH_ITERATIONS = 100_000


@dataclass(frozen=True)
class Limits:
    """Caps that keep one visitor from filling the database. Environment variables override them."""

    max_pack_bytes: int = 1_000_000  # GPUWIN_GALLERY_MAX_PACK_KB
    max_rows: int = 200  # rows of the gallery sweep in one entry
    max_per_course: int = 300  # visible entries in one course (the public gallery is one too): GPUWIN_GALLERY_COURSE_CAP
    max_total: int = 20_000  # entries in the whole database, hidden included
    max_actions: int = 10  # adds and course creations per session per window: GPUWIN_GALLERY_RATE ('10/3600')
    max_admin_failures: int = 5  # wrong admin codes per session per window
    window_s: float = 3600.0

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Limits:
        environ = dict(os.environ if environ is None else environ)
        values: dict[str, Any] = {}
        if environ.get("GPUWIN_GALLERY_MAX_PACK_KB"):
            values["max_pack_bytes"] = int(float(environ["GPUWIN_GALLERY_MAX_PACK_KB"]) * 1000)
        if environ.get("GPUWIN_GALLERY_COURSE_CAP"):
            values["max_per_course"] = int(environ["GPUWIN_GALLERY_COURSE_CAP"])
        if environ.get("GPUWIN_GALLERY_RATE"):
            count, _, window = environ["GPUWIN_GALLERY_RATE"].partition("/")
            values["max_actions"] = int(count)
            values["window_s"] = float(window or cls.window_s)
        return cls(**values)


@dataclass(frozen=True)
class Entry:
    id: int
    course: str
    name: str
    machine: str
    hardware: str
    cpu_model: str
    gpus: str
    torch: str
    recorded_at: str
    added_at: float
    devices: str
    rows: int
    hidden: bool


_ENTRY_COLUMNS = [entries.c[f.name] for f in fields(Entry)]


def _hash_session(session: str) -> str:
    return hashlib.sha256(f"gpuwin-gallery-session:{session}".encode()).hexdigest()


def hash_admin_code(code: str, salt: str | None = None) -> str:
    salt = salt or secrets.token_hex(8)
    digest = hashlib.pbkdf2_hmac("sha256", code.encode(), salt.encode(), HASH_ITERATIONS).hex()
    return f"pbkdf2_sha256${HASH_ITERATIONS}${salt}${digest}"


def admin_code_matches(code: str, stored: str) -> bool:
    try:
        _, iterations, salt, digest = stored.split("$")
    except ValueError:
        return False
    given = hashlib.pbkdf2_hmac("sha256", code.encode(), salt.encode(), int(iterations)).hex()
    return hmac.compare_digest(given, digest)


class Gallery:
    def __init__(self, engine: Engine, limits: Limits | None = None, site_admin_code: str | None = None) -> None:
        self.engine = engine
        self.limits = limits or Limits()
        self.site_admin_code = site_admin_code or None  # may hide entries of any course
        ensure_schema(engine)

    # -- the rate limit ----------------------------------------------------------------------------
    def _count_events(self, conn: Connection, session: str, kinds: Iterable[str]) -> int:
        since = time.time() - self.limits.window_s
        return conn.execute(select(func.count()).select_from(events).where(
            events.c.session == _hash_session(session), events.c.kind.in_(list(kinds)), events.c.at >= since)).scalar_one()

    def _check_rate(self, conn: Connection, session: str) -> None:
        if self._count_events(conn, session, ("add", "course")) >= self.limits.max_actions:
            minutes = max(1, round(self.limits.window_s / 60))
            raise GalleryError("rate_limited", f"This session has already added {self.limits.max_actions} things in "
                                               f"the last {minutes} minutes; please wait a while before adding more.")

    def _record_event(self, conn: Connection, session: str, kind: str) -> None:
        now = time.time()
        conn.execute(delete(events).where(events.c.at < now - max(self.limits.window_s, 86_400)))
        conn.execute(insert(events).values(session=_hash_session(session), kind=kind, at=now))

    # -- courses -----------------------------------------------------------------------------------
    def course_exists(self, code: str) -> bool:
        code = normalize_course(code)
        with self.engine.connect() as conn:
            return conn.execute(select(courses.c.code).where(courses.c.code == code)).first() is not None

    def create_course(self, code: str | None = None, *, session: str) -> tuple[str, str]:
        """A new course: (its code, its admin code). The admin code is returned once and stored
        only as a salted hash. Without a code, a free six-character one is made up."""
        wanted = normalize_course(code) if code and str(code).strip() else None
        admin = secrets.token_urlsafe(9)
        for _ in range(20):
            new = wanted or "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
            try:
                with write_transaction(self.engine) as conn:
                    self._check_rate(conn, session)
                    taken = conn.execute(select(courses.c.code).where(courses.c.code == new)).first() is not None
                    if not taken:
                        conn.execute(insert(courses).values(code=new, admin_hash=hash_admin_code(admin),
                                                            created_at=time.time()))
                        self._record_event(conn, session, "course")
            except IntegrityError:  # another server created it between our check and our insert
                taken = True
            if not taken:
                return new, admin
            if wanted:
                raise GalleryError("course_exists", f"The course code {wanted} is taken; pick another.")
        raise GalleryError("course_exists", "Could not find a free course code; try again.")

    # -- entries -----------------------------------------------------------------------------------
    def prepare(self, file_name: str, data: bytes) -> Candidate:
        """Check an upload without storing it (GalleryError says what is wrong)."""
        return prepare_upload(file_name, data, self.limits.max_pack_bytes, self.limits.max_rows)

    def add(self, file_name: str, data: bytes, *, name: str, course: str = PUBLIC, session: str) -> Entry:
        """Store an upload as a new entry, or GalleryError (malformed, too big, a duplicate, the
        course full or unknown, the session over its rate)."""
        display = clean_name(name)
        course = normalize_course(course)
        candidate = self.prepare(file_name, data)
        for stem, pack in shipped_gallery_packs():
            if candidate.content_key == content_key(pack["machine"], pack["rows"]):
                raise GalleryError("duplicate", f"These are the results shipped with the app ({stem}); the gallery "
                                                "shows them already.")
        try:
            with write_transaction(self.engine) as conn:
                self._check_rate(conn, session)
                row = conn.execute(select(courses.c.code).where(courses.c.code == course).with_for_update()).first()
                if row is None:
                    raise GalleryError("no_course", f"There is no course {course} here: check the code, or ask your "
                                                    "instructor for the gallery link.")
                self._check_duplicate(conn, course, candidate.content_key)
                self._check_caps(conn, course)
                new_id = conn.execute(insert(entries).values(
                    course=course, name=display, machine=clean_text(candidate.machine.get("label"), 200),
                    hardware=candidate.hardware, cpu_model=clean_text(candidate.machine.get("cpu_model"), 200),
                    gpus=clean_text(", ".join(candidate.gpus), 400), torch=clean_text(candidate.machine.get("torch"), 80),
                    recorded_at=clean_text(candidate.machine.get("date"), 40), added_at=time.time(),
                    devices=clean_text(", ".join(candidate.devices), 200), rows=len(candidate.pack["rows"]),
                    content_key=candidate.content_key, pack_json=candidate.pack_json, hidden=False,
                ).returning(entries.c.id)).scalar_one()
                self._record_event(conn, session, "add")
        except IntegrityError:  # the unique (course, content) constraint: another visitor was faster
            raise GalleryError("duplicate", "The same results are already in this gallery.") from None
        return self.entry(new_id)

    def _check_duplicate(self, conn: Connection, course: str, key: str) -> None:
        same = conn.execute(select(entries.c.id, entries.c.name, entries.c.hidden).where(
            entries.c.course == course, entries.c.content_key == key)).first()
        if same is not None:
            where = f"course {course}" if course else "the gallery"
            state = " (hidden by the instructor)" if same.hidden else ""
            raise GalleryError("duplicate", f"The same results are already in {where} as entry #{same.id} "
                                            f"'{same.name}'{state}; each pack is added once.")

    def _check_caps(self, conn: Connection, course: str) -> None:
        visible = conn.execute(select(func.count()).select_from(entries).where(
            entries.c.course == course, entries.c.hidden.is_(False))).scalar_one()
        if visible >= self.limits.max_per_course:
            where = f"Course {course}" if course else "The public gallery"
            most = self.limits.max_per_course
            raise GalleryError("course_full", f"{where} is full (at most {most} visible "
                                              f"{'entry' if most == 1 else 'entries'}); ask the instructor for a new "
                                              "course code.")
        total = conn.execute(select(func.count()).select_from(entries)).scalar_one()
        if total >= self.limits.max_total:
            raise GalleryError("gallery_full", f"The gallery holds its maximum of {self.limits.max_total} entries.")

    def entry(self, entry_id: int) -> Entry:
        with self.engine.connect() as conn:
            row = conn.execute(select(*_ENTRY_COLUMNS).where(entries.c.id == int(entry_id))).first()
        if row is None:
            raise GalleryError("no_entry", f"There is no entry #{entry_id}.")
        return Entry(**row._asdict())

    def entries(self, course: str | None = None, include_hidden: bool = False) -> list[Entry]:
        """Entries newest first: every course's when `course` is None, else that course's only."""
        query = select(*_ENTRY_COLUMNS).order_by(entries.c.added_at.desc(), entries.c.id.desc())
        if course is not None:
            query = query.where(entries.c.course == normalize_course(course))
        if not include_hidden:
            query = query.where(entries.c.hidden.is_(False))
        with self.engine.connect() as conn:
            return [Entry(**row._asdict()) for row in conn.execute(query)]

    def packs(self, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        """The stored packs of these entries, validated again on the way out (a row edited in the
        database by hand is left out rather than shown)."""
        ids = [int(i) for i in ids]
        if not ids:
            return {}
        with self.engine.connect() as conn:
            found = conn.execute(select(entries.c.id, entries.c.pack_json).where(entries.c.id.in_(ids))).all()
        out = {}
        for entry_id, text in found:
            try:
                out[entry_id] = validate_pack(json.loads(text))
            except (PackError, ValueError):
                continue
        return out

    def set_hidden(self, entry_id: int, course: str, admin_code: str, *, hidden: bool = True, session: str) -> Entry:
        """Hide (or show again) an entry of `course`, given that course's admin code."""
        course = normalize_course(course)
        with write_transaction(self.engine) as conn:
            if self._count_events(conn, session, ("admin_fail",)) >= self.limits.max_admin_failures:
                raise GalleryError("rate_limited", "Too many wrong admin codes from this session; wait a while.")
            stored = conn.execute(select(courses.c.admin_hash).where(courses.c.code == course)).scalar()
            site = self.site_admin_code is not None and hmac.compare_digest(admin_code, self.site_admin_code)
            if not site and (not stored or not admin_code_matches(admin_code, stored)):
                self._record_event(conn, session, "admin_fail")
                failure = True
            else:
                failure = False
                done = conn.execute(update(entries).where(entries.c.id == int(entry_id), entries.c.course == course)
                                    .values(hidden=hidden))
        if failure:  # outside the block, so the failure is committed and counts
            where = f"course {course}" if course else "the public gallery"
            raise GalleryError("bad_admin_code", f"That admin code does not open {where}.")
        if done.rowcount != 1:
            raise GalleryError("no_entry", f"Entry #{entry_id} is not in course {course}.")
        return self.entry(entry_id)

