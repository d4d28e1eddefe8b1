"""The gallery on a SQLAlchemy engine: add, list, hide; courses with admin codes; caps and a rate limit.

    gallery = Gallery(engine)                                  # creates the tables on first use
    code, admin = gallery.create_course("ML101", session=token)
    entry = gallery.add("my_machine.json", data, name="Ada", course="ML101", session=token)
    gallery.entries(course="ML101")                            # visible entries, newest first
    gallery.packs([entry.id])                                  # {id: validated pack}
    gallery.set_hidden(entry.id, "ML101", admin, hidden=True, session=token)
    entry.held                                                 # added past the pace: shown once approved

Every write is one transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: the course's row locked), so
two visitors adding at once both land and a cap cannot be overrun. Every refusal is a GalleryError
whose message a page can show as it is. `session` is a random token the page keeps per browser
session, `browser` the browser's key and `client` the visitor's address key
(lib.recorded.gallery.limits: the rate limits count each, a course's pace and the whole site's);
only their sha256 digests are stored. An entry added past the pace is stored but held: shown once
the course's instructor (the public gallery's: the site's administrator) shows it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
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
from lib.recorded.gallery.limits import Act, Limits, Visitor, admin_failures, check_rate, over_pace, record_event
from lib.recorded.gallery.schema import PUBLIC, courses, ensure_schema, entries, write_transaction
from lib.recorded.pack import Pack

__all__ = ["Entry", "Gallery", "Limits", "Visitor"]

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud in a classroom
HASH_ITERATIONS = 100_000


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
    held: bool = False  # waiting for an instructor's approval (added past the pace)


_ENTRY_COLUMNS = [entries.c[f.name] for f in fields(Entry)]
_SHOWN = entries.c.hidden.is_(False) & entries.c.held.is_(False)  # what visitors see


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

    # -- admin codes ---------------------------------------------------------------------------------
    def _admin_ok(self, conn: Connection, course: str, admin_code: str, who: Visitor) -> None:
        """Nothing when `admin_code` opens `course` (its own code, or the site's); else the failure
        is recorded and GalleryError says so. Codes are compared as bytes: hmac.compare_digest
        refuses text that is not ASCII."""
        if admin_failures(conn, self.limits, who, course) >= self.limits.max_admin_failures:
            minutes = max(1, round(self.limits.window_s / 60))
            raise GalleryError(
                "rate_limited",
                f"Too many wrong admin codes in the last {minutes} minutes; please wait a while before trying again.",
            )
        code = str(admin_code or "")
        stored = conn.execute(select(courses.c.admin_hash).where(courses.c.code == course)).scalar()
        site = self.site_admin_code is not None and hmac.compare_digest(code.encode(), self.site_admin_code.encode())
        if not site and (not stored or not admin_code_matches(code, stored)):
            record_event(conn, self.limits, who, Act.ADMIN_FAIL, course)
            raise _WrongCode(course)

    def _as_admin(self, course: str, admin_code: str, who: Visitor, action) -> Any:
        """Run action(conn) in one write transaction once the admin code opens the course. A wrong
        code is committed as a failure (so it counts) and raised after the transaction."""
        result = None
        with write_transaction(self.engine) as conn:
            try:
                self._admin_ok(conn, course, admin_code, who)
            except _WrongCode:
                failed = True
            else:
                failed = False
                result = action(conn)
        if failed:
            where = f"course {course}" if course else "the public gallery"
            raise GalleryError("bad_admin_code", f"That admin code does not open {where}.")
        return result

    def check_admin(self, course: str, admin_code: str, *, session: str, client: str = "", browser: str = "") -> None:
        """GalleryError unless the code opens the course (a form asks before it lists hidden entries)."""
        self._as_admin(normalize_course(course), admin_code, Visitor(session, client, browser), lambda conn: None)

    # -- courses -----------------------------------------------------------------------------------
    def course_exists(self, code: str) -> bool:
        code = normalize_course(code)
        with self.engine.connect() as conn:
            return conn.execute(select(courses.c.code).where(courses.c.code == code)).first() is not None

    def create_course(
        self, code: str | None = None, *, session: str, client: str = "", browser: str = ""
    ) -> tuple[str, str]:
        """A new course: (its code, its admin code). The admin code is returned once and stored
        only as a salted hash. Without a code, a free six-character one is made up."""
        wanted = normalize_course(code) if code and str(code).strip() else None
        admin = secrets.token_urlsafe(9)
        who = Visitor(session, client, browser)
        for _ in range(20):
            new = wanted or "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
            try:
                with write_transaction(self.engine) as conn:
                    check_rate(conn, self.limits, who, Act.COURSE)
                    taken = conn.execute(select(courses.c.code).where(courses.c.code == new)).first() is not None
                    if not taken:
                        self._check_course_cap(conn)
                        conn.execute(
                            insert(courses).values(code=new, admin_hash=hash_admin_code(admin), created_at=time.time())
                        )
                        record_event(conn, self.limits, who, Act.COURSE)
            except IntegrityError:  # another server created it between our check and our insert
                taken = True
            if not taken:
                return new, admin
            if wanted:
                raise GalleryError("course_exists", f"The course code {wanted} is taken; pick another.")
        raise GalleryError("course_exists", "Could not find a free course code; try again.")

    def _check_course_cap(self, conn: Connection) -> None:
        # PostgreSQL: the public course's row locked, so two servers creating courses at once take
        # turns and the cap holds (SQLite's BEGIN IMMEDIATE already serialises every writer)
        conn.execute(select(courses.c.code).where(courses.c.code == PUBLIC).with_for_update())
        made = conn.execute(select(func.count()).select_from(courses).where(courses.c.code != PUBLIC)).scalar_one()
        if made >= self.limits.max_courses:
            raise GalleryError(
                "too_many_courses",
                f"The gallery holds its maximum of {self.limits.max_courses} courses; "
                "ask the site's administrator to remove old ones.",
            )

    # -- entries -----------------------------------------------------------------------------------
    def prepare(self, file_name: str, data: bytes) -> Candidate:
        """Check an upload without storing it (GalleryError says what is wrong)."""
        return prepare_upload(file_name, data, self.limits.max_pack_bytes, self.limits.max_rows)

    def add(
        self,
        file_name: str,
        data: bytes,
        *,
        name: str,
        course: str = PUBLIC,
        session: str,
        client: str = "",
        browser: str = "",
    ) -> Entry:
        """Store an upload as a new entry, or GalleryError (malformed, too big, a duplicate, the
        course full or unknown, the visitor over its rate, the course's queue of held entries full).
        Past the pace the entry is stored held (Entry.held): shown once an instructor approves it."""
        display = clean_name(name)
        who = Visitor(session, client, browser)
        course = normalize_course(course)
        candidate = self.prepare(file_name, data)
        for stem, pack in shipped_gallery_packs():
            if candidate.content_key == content_key(pack):
                raise GalleryError(
                    "duplicate", f"These are the results shipped with the app ({stem}); the gallery shows them already."
                )
        try:
            with write_transaction(self.engine) as conn:
                check_rate(conn, self.limits, who)
                row = conn.execute(select(courses.c.code).where(courses.c.code == course).with_for_update()).first()
                if row is None:
                    raise GalleryError(
                        "no_course",
                        f"There is no course {course} here: check the code, or ask your "
                        "instructor for the gallery link.",
                    )
                self._check_duplicate(conn, course, candidate.content_key)
                self._check_caps(conn, course)
                held = over_pace(conn, self.limits, course)
                if held:
                    self._check_held(conn, course)
                new_id = conn.execute(
                    insert(entries)
                    .values(
                        course=course,
                        name=display,
                        machine=clean_text(candidate.machine.label, 200),
                        hardware=candidate.hardware,
                        cpu_model=clean_text(candidate.machine.text("cpu_model"), 200),
                        gpus=clean_text(", ".join(candidate.gpus), 400),
                        torch=clean_text(candidate.machine.text("torch"), 80),
                        recorded_at=clean_text(candidate.machine.date, 40),
                        added_at=time.time(),
                        devices=clean_text(", ".join(candidate.devices), 200),
                        rows=len(candidate.pack.rows),
                        content_key=candidate.content_key,
                        pack_json=candidate.pack_json,
                        hidden=False,
                        held=held,
                    )
                    .returning(entries.c.id)
                ).scalar_one()
                record_event(conn, self.limits, who, Act.HELD if held else Act.ADD, course)
        except IntegrityError:  # the unique (course, content) constraint: another visitor was faster
            raise GalleryError("duplicate", "The same results are already in this gallery.") from None
        return self.entry(new_id)

    def _check_duplicate(self, conn: Connection, course: str, key: str) -> None:
        same = conn.execute(
            select(entries.c.id, entries.c.name, entries.c.hidden).where(
                entries.c.course == course, entries.c.content_key == key
            )
        ).first()
        if same is not None:
            where = f"course {course}" if course else "the gallery"
            state = " (hidden by the instructor)" if same.hidden else ""
            raise GalleryError(
                "duplicate",
                f"The same results are already in {where} as entry #{same.id} "
                f"'{same.name}'{state}; each pack is added once.",
            )

    def _check_held(self, conn: Connection, course: str) -> None:
        waiting = conn.execute(
            select(func.count()).select_from(entries).where(entries.c.course == course, entries.c.held.is_(True))
        ).scalar_one()
        if waiting >= self.limits.max_held:
            who = "the instructor" if course else "the site's administrator"
            raise GalleryError(
                "held_full",
                f"{waiting} entries already wait for {who} to approve them, the most that "
                f"can wait; please try again once {who} has looked at them.",
            )

    def _check_caps(self, conn: Connection, course: str) -> None:
        visible = conn.execute(
            select(func.count()).select_from(entries).where(entries.c.course == course, _SHOWN)
        ).scalar_one()
        if visible >= self.limits.max_per_course:
            where = f"Course {course}" if course else "The public gallery"
            most = self.limits.max_per_course
            raise GalleryError(
                "course_full",
                f"{where} is full (at most {most} visible "
                f"{'entry' if most == 1 else 'entries'}); ask the instructor for a new "
                "course code.",
            )
        shown = conn.execute(select(func.count()).select_from(entries).where(_SHOWN)).scalar_one()
        if shown >= self.limits.max_total:
            raise GalleryError("gallery_full", f"The gallery holds its maximum of {self.limits.max_total} entries.")
        kept = conn.execute(select(func.count()).select_from(entries)).scalar_one()
        if kept >= self.limits.max_stored:
            raise GalleryError(
                "gallery_full",
                f"The gallery keeps at most {self.limits.max_stored} entries, hidden ones "
                "included; an instructor can delete hidden entries for good.",
            )

    def entry(self, entry_id: int) -> Entry:
        with self.engine.connect() as conn:
            row = conn.execute(select(*_ENTRY_COLUMNS).where(entries.c.id == int(entry_id))).first()
        if row is None:
            raise GalleryError("no_entry", f"There is no entry #{entry_id}.")
        return Entry(**row._asdict())

    def _listing(self, query, course: str | None, include_hidden: bool):
        if course is not None:
            query = query.where(entries.c.course == normalize_course(course))
        if not include_hidden:
            query = query.where(_SHOWN)
        return query

    def entries(
        self, course: str | None = None, include_hidden: bool = False, *, limit: int | None = None, offset: int = 0
    ) -> list[Entry]:
        """Entries newest first: every course's when `course` is None, else that course's only;
        `limit` entries from `offset` on (a page of them), or all."""
        query = self._listing(select(*_ENTRY_COLUMNS), course, include_hidden)
        query = query.order_by(entries.c.added_at.desc(), entries.c.id.desc()).offset(max(0, int(offset)))
        if limit is not None:
            query = query.limit(max(0, int(limit)))
        with self.engine.connect() as conn:
            return [Entry(**row._asdict()) for row in conn.execute(query)]

    def count(self, course: str | None = None, include_hidden: bool = False) -> int:
        """How many entries entries() would list without a limit."""
        with self.engine.connect() as conn:
            return conn.execute(
                self._listing(select(func.count()).select_from(entries), course, include_hidden)
            ).scalar_one()

    def entries_by_id(self, ids: Iterable[int]) -> list[Entry]:
        """The visible entries among these ids (a link names at most a few)."""
        ids = [int(i) for i in ids]
        if not ids:
            return []
        query = select(*_ENTRY_COLUMNS).where(entries.c.id.in_(ids), _SHOWN)
        with self.engine.connect() as conn:
            return [Entry(**row._asdict()) for row in conn.execute(query)]

    def packs(self, ids: Iterable[int]) -> dict[int, Pack]:
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
                out[entry_id] = Pack.from_json(validate_pack(json.loads(text)))
            except (PackError, ValueError):
                continue
        return out

    def set_hidden(
        self,
        entry_id: int,
        course: str,
        admin_code: str,
        *,
        hidden: bool = True,
        session: str,
        client: str = "",
        browser: str = "",
    ) -> Entry:
        """Hide (or show: again, or approved) an entry of `course`, given that course's admin code."""
        if (
            self.hide_entries(
                [entry_id], course, admin_code, hidden=hidden, session=session, client=client, browser=browser
            )
            != 1
        ):
            raise GalleryError("no_entry", f"Entry #{entry_id} is not in course {normalize_course(course)}.")
        return self.entry(entry_id)

    def hide_entries(
        self,
        ids: Iterable[int],
        course: str,
        admin_code: str,
        *,
        hidden: bool = True,
        session: str,
        client: str = "",
        browser: str = "",
    ) -> int:
        """Hide, or show, several entries of `course` at once; how many it changed. Showing approves
        held entries too; it is refused, changing nothing, where it would pass the caps."""
        course, ids = normalize_course(course), [int(i) for i in ids]

        def act(conn: Connection) -> int:
            if not ids:
                return 0
            done = conn.execute(
                update(entries)
                .where(entries.c.id.in_(ids), entries.c.course == course)
                .values(hidden=hidden, held=False)
            ).rowcount
            if not hidden:
                self._check_shown(conn, course)
            return done

        return self._as_admin(course, admin_code, Visitor(session, client, browser), act)

    def _check_shown(self, conn: Connection, course: str) -> None:
        """After showing entries: GalleryError (the transaction rolls back) where a cap is passed."""
        shown = conn.execute(
            select(func.count()).select_from(entries).where(entries.c.course == course, _SHOWN)
        ).scalar_one()
        if shown > self.limits.max_per_course:
            raise GalleryError(
                "course_full",
                f"That would show {shown} entries, more than the "
                f"{self.limits.max_per_course} a course shows; hide some first.",
            )
        total = conn.execute(select(func.count()).select_from(entries).where(_SHOWN)).scalar_one()
        if total > self.limits.max_total:
            raise GalleryError(
                "gallery_full",
                f"That would show more than the gallery's {self.limits.max_total} entries; hide some first.",
            )

    def waiting(self, course: str | None = None) -> int:
        """Entries held for approval (in `course`, or in every course)."""
        query = select(func.count()).select_from(entries).where(entries.c.held.is_(True))
        if course is not None:
            query = query.where(entries.c.course == normalize_course(course))
        with self.engine.connect() as conn:
            return conn.execute(query).scalar_one()

    def delete_hidden(
        self, course: str, admin_code: str, *, waiting: bool = False, session: str, client: str = "", browser: str = ""
    ) -> int:
        """Delete the course's hidden entries (waiting=True: those held for approval) for good, after a
        flood; how many went."""
        course = normalize_course(course)
        which = entries.c.held.is_(True) if waiting else entries.c.hidden.is_(True)
        return self._as_admin(
            course,
            admin_code,
            Visitor(session, client, browser),
            lambda conn: conn.execute(delete(entries).where(entries.c.course == course, which)).rowcount,
        )


class _WrongCode(Exception):
    """Inside a transaction: the admin code was wrong (recorded; raised as GalleryError after it)."""
