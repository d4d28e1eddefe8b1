"""The gallery's tables, their version, and the engine set-up that makes concurrent writers safe.

    prepare_engine(engine)        # SQLite: WAL, busy timeout, BEGIN IMMEDIATE for writes (no-op elsewhere)
    ensure_schema(engine)         # create the tables on first use; refuse a database from a newer app
    with write_transaction(engine) as conn: ...    # one transaction that may write

Packs are stored as validated JSON text (lib.core.results.validate_pack), never pickled. Times are
Unix seconds (UTC) in floats, the same in SQLite and PostgreSQL. Table names start with 'gallery_'
so the gallery can share a PostgreSQL database with other tables.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    event,
    false,
    insert,
    select,
    text,
)
from sqlalchemy.engine import Connection, Engine

SCHEMA_VERSION = 2  # 2: entries held for approval (gallery_entries.held)
PUBLIC = ""  # the course of entries added without a course code
_WRITE = "gallery_write"  # execution option: this transaction writes (SQLite: BEGIN IMMEDIATE)
_LOCK_KEY = 0x67707577696E  # PostgreSQL advisory lock held while the schema is created ('gpuwin')

metadata = MetaData()

schema_version = Table("gallery_schema_version", metadata, Column("version", Integer, nullable=False))

courses = Table(
    "gallery_courses",
    metadata,
    Column("code", String(24), primary_key=True),  # '' is the public gallery
    Column("admin_hash", String(200), nullable=False, default=""),  # pbkdf2 of the admin code; '' for public
    Column("created_at", Float, nullable=False),
)

entries = Table(
    "gallery_entries",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("course", String(24), ForeignKey("gallery_courses.code"), nullable=False),
    Column("name", String(80), nullable=False),  # the display name the uploader picked
    Column("machine", String(200), nullable=False),  # the pack's machine label
    Column("hardware", String(200), nullable=False),  # the GPU name, or the CPU model of a CPU-only pack
    Column("cpu_model", String(200), nullable=False),
    Column("gpus", String(400), nullable=False),
    Column("torch", String(80), nullable=False),
    Column("recorded_at", String(40), nullable=False),  # the pack's own date
    Column("added_at", Float, nullable=False),
    Column("devices", String(200), nullable=False),
    Column("rows", Integer, nullable=False),
    Column("content_key", String(64), nullable=False),  # sha256 of machine + rows: the same pack twice
    Column("pack_json", Text, nullable=False),
    Column("hidden", Boolean, nullable=False, default=False),
    # added past the pace (lib.recorded.gallery.limits): stored, shown once an instructor approves it
    Column("held", Boolean, nullable=False, default=False, server_default=false()),
    UniqueConstraint("course", "content_key", name="gallery_entries_once_per_course"),
)
Index("gallery_entries_by_course", entries.c.course, entries.c.hidden)

events = Table(  # what a session did, for the rate limits: lib.recorded.gallery.limits.Act
    "gallery_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("session", String(64), nullable=False),  # sha256 of whose counter: a session, browser, address, course
    Column("kind", String(16), nullable=False),
    Column("at", Float, nullable=False),
)
Index("gallery_events_by_session", events.c.session, events.c.at)


class SchemaError(RuntimeError):
    """The database cannot be used by this version of the app; the message says why."""


def data_dir() -> Path:
    """$GPUWIN_DATA_DIR, or data/ in the repository (git-ignored)."""
    return Path(os.environ.get("GPUWIN_DATA_DIR") or Path(__file__).resolve().parents[3] / "data")


def default_url() -> str:
    """$GPUWIN_GALLERY_URL, else a SQLite file in the data directory (created with its folder)."""
    if os.environ.get("GPUWIN_GALLERY_URL"):
        return os.environ["GPUWIN_GALLERY_URL"]
    directory = data_dir()
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory.resolve() / 'gallery.sqlite'}"


# -- engine set-up ----------------------------------------------------------------------------------


def _sqlite_connect(dbapi_connection, _record) -> None:
    # Python's sqlite3 opens transactions late and as DEFERRED; take over, so a write transaction
    # can start with BEGIN IMMEDIATE (two writers queue instead of failing with 'database is locked').
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout = 30000")  # wait up to 30 s for another writer
    cursor.execute("PRAGMA journal_mode = WAL")  # readers never block the writer; survives restarts
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(_WRITE) else "BEGIN")


_prepared: weakref.WeakSet[Engine] = weakref.WeakSet()
_ready: weakref.WeakSet[Engine] = weakref.WeakSet()


def prepare_engine(engine: Engine) -> Engine:
    """Give a SQLite engine WAL mode, a busy timeout and explicit transactions (once per engine)."""
    if engine in _prepared:
        return engine
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
        engine.dispose()  # connections opened before the listeners would lack them
    _prepared.add(engine)
    return engine


@contextlib.contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """One transaction that may write: committed when the block ends, rolled back if it raises."""
    prepare_engine(engine)
    with engine.connect() as conn:
        conn.execution_options(**{_WRITE: True})
        with conn.begin():
            yield conn


def ensure_schema(engine: Engine) -> int:
    """Create the tables on first use and record SCHEMA_VERSION; returns the schema version.
    Two servers starting at once both succeed (one waits for the other's transaction)."""
    prepare_engine(engine)
    if engine in _ready:
        return SCHEMA_VERSION
    with write_transaction(engine) as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
        metadata.create_all(conn)
        versions = conn.execute(select(schema_version.c.version)).scalars().all()
        if not versions:
            conn.execute(insert(schema_version).values(version=SCHEMA_VERSION))
            conn.execute(insert(courses).values(code=PUBLIC, admin_hash="", created_at=0.0))
        elif versions == [1]:
            _migrate_from_1(conn)
        elif versions != [SCHEMA_VERSION]:
            # A later schema adds its migration from the previous version here.
            raise SchemaError(
                f"the gallery database says schema version {', '.join(map(str, versions))}; this "
                f"app reads version {SCHEMA_VERSION} and knows no migration from it. Use the app "
                "that wrote it, or another database."
            )
    _ready.add(engine)
    return SCHEMA_VERSION


def _migrate_from_1(conn: Connection) -> None:
    """Version 1 had no held entries: every entry it stored was shown, so none is held."""
    conn.execute(text("ALTER TABLE gallery_entries ADD COLUMN held BOOLEAN NOT NULL DEFAULT false"))
    conn.execute(schema_version.update().values(version=SCHEMA_VERSION))
