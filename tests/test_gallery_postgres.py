"""The gallery on a real PostgreSQL server, started for this module (initdb into a temporary folder,
pg_ctl on a free port, as the 'postgres' user when the tests run as root), through psycopg 3.

Without PostgreSQL's binaries the tests are skipped, unless GPUWIN_REQUIRE_POSTGRES=1 (CI: .ci/run),
where they fail instead. Debian: apt-get install postgresql (python3 dev.py test does it as root).
"""

from __future__ import annotations

import glob
import itertools
import multiprocessing
import os
import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy
from app_support import open_page, page_text
from gallery_support import add_many, fixture_bytes, gpu_fixture_bytes
from sqlalchemy import text

from lib.recorded.gallery.entry import GalleryError
from lib.recorded.gallery.schema import SCHEMA_VERSION
from lib.recorded.gallery.store import Gallery, Limits

pytestmark = pytest.mark.postgres


def _unavailable(reason: str) -> None:
    if os.environ.get("GPUWIN_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"GPUWIN_REQUIRE_POSTGRES=1 but {reason}")
    pytest.skip(reason)


def postgres_bin() -> Path | None:
    """The folder with initdb and pg_ctl: Debian keeps them in /usr/lib/postgresql/<version>/bin."""
    versioned = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[4]))
    found = versioned[-1] if versioned else shutil.which("pg_ctl")
    return Path(found).resolve().parent if found else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """A throwaway PostgreSQL server; yields its base URL (without a database name)."""
    bin_dir = postgres_bin()
    if bin_dir is None or not (bin_dir / "initdb").exists():
        _unavailable("PostgreSQL's initdb/pg_ctl are not installed (Debian: apt-get install postgresql)")
    as_user: list[str] = []
    base = Path(tempfile.mkdtemp(prefix="gpuwin_pg_", dir="/tmp"))
    os.chmod(base, 0o755)
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        if not shutil.which("runuser"):
            _unavailable("running as root without runuser to start PostgreSQL as another user")
        shutil.chown(base, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    port, data = free_port(), base / "data"
    run = lambda *args: subprocess.run(
        [*as_user, *map(str, args)], check=True, capture_output=True, text=True, timeout=120
    )
    try:
        run(bin_dir / "initdb", "-D", data, "-U", "gallery", "-A", "trust", "-E", "UTF8", "--no-sync")
        run(
            bin_dir / "pg_ctl",
            "-D",
            data,
            "-l",
            base / "server.log",
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        )
    except subprocess.CalledProcessError as err:
        shutil.rmtree(base, ignore_errors=True)
        pytest.fail(f"could not start PostgreSQL: {err.stderr or err.stdout}")
    ctl = lambda *args: subprocess.run(
        [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), *args], capture_output=True, timeout=120
    )
    _CONTROL.update(
        stop=lambda: ctl("-m", "immediate", "-w", "stop"),  # as if killed: no goodbye to clients
        start=lambda: ctl(
            "-l",
            str(base / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        ),
    )
    try:
        yield f"postgresql+psycopg://gallery@127.0.0.1:{port}"
    finally:
        subprocess.run(
            [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(base, ignore_errors=True)


_numbers = itertools.count()
_CONTROL: dict = {}  # stop() and start() of the module's server (the outage test)


@pytest.fixture
def pg_url(server) -> str:
    """A fresh, empty database on the server for one test."""
    name = f"gallery_{next(_numbers)}"
    admin = sqlalchemy.create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    admin.dispose()
    return f"{server}/{name}"


def test_the_gallery_on_postgresql_keeps_entries_across_a_restart(pg_url):
    engine = sqlalchemy.create_engine(pg_url)
    assert engine.dialect.name == "postgresql" and engine.dialect.driver == "psycopg"
    gallery = Gallery(engine)
    code, admin = gallery.create_course("PG-1", session="teacher")
    a = gallery.add("a.json", fixture_bytes(1), name="<b>Ada</b>\x00", course=code, session="s")
    b = gallery.add("gpu.json", gpu_fixture_bytes(), name="Lab", session="s")
    with pytest.raises(GalleryError, match="already in course PG-1"):
        gallery.add("a.json", fixture_bytes(1), name="again", course=code, session="s")
    stored = gallery.packs([a.id, b.id])
    engine.dispose()

    again = Gallery(sqlalchemy.create_engine(pg_url))
    assert [e.id for e in again.entries()] == [b.id, a.id] and again.packs([a.id, b.id]) == stored
    assert again.entry(a.id).name == "<b>Ada</b>" and again.entries(code)[0].id == a.id
    assert again.set_hidden(a.id, code, admin, session="teacher").hidden
    with again.engine.connect() as conn:
        assert conn.execute(text("SELECT version FROM gallery_schema_version")).scalars().all() == [SCHEMA_VERSION]
        tables = set(conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars())
    assert {"gallery_schema_version", "gallery_courses", "gallery_entries", "gallery_events"} <= tables


def test_writers_racing_on_postgresql_all_land_and_the_cap_holds(pg_url):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Manager().Barrier(3)
    with ctx.Pool(3) as pool:  # three servers start on an empty database at once: the schema is made once
        results = [
            pool.apply_async(add_many, (pg_url, [fixture_bytes(10 * w + i) for i in range(3)], f"w{w}", barrier))
            for w in range(3)
        ]
        ids = [i for r in results for i in r.get(timeout=120)]
    assert sorted(ids) == list(range(1, 10))
    Gallery(sqlalchemy.create_engine(pg_url)).create_course("RACE-2", session="teacher")
    barrier = ctx.Manager().Barrier(2)
    with ctx.Pool(2) as pool:
        results = [
            pool.apply_async(
                add_many, (pg_url, [fixture_bytes(100 + 10 * w + i) for i in range(3)], f"c{w}", barrier, "RACE-2", 4)
            )
            for w in range(2)
        ]
        outcomes = [o for r in results for o in r.get(timeout=120)]
    assert sorted(map(str, outcomes)).count("course_full") == 2
    gallery = Gallery(sqlalchemy.create_engine(pg_url), Limits())
    assert len(gallery.entries("RACE-2")) == 4 and len(gallery.entries()) == 13


def test_the_app_uses_postgresql_when_given_its_url(pg_url, monkeypatch):
    monkeypatch.setenv("GPUWIN_GALLERY_URL", pg_url)
    at = open_page("pages/gallery.py")
    at.file_uploader(key="gallery.file").set_value([("mine.json", fixture_bytes(1), "application/json")])
    at.text_input(key="gallery.name").set_value("on postgres")
    at.button(key="gallery.add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "as entry #1" in at.success[0].value
    assert "Stored in PostgreSQL." in page_text(at)
    with sqlalchemy.create_engine(pg_url).connect() as conn:
        assert conn.execute(text("SELECT name FROM gallery_entries")).scalars().all() == ["on postgres"]


def test_an_outage_is_the_apps_note_and_the_first_visitor_after_it_gets_the_gallery(pg_url, monkeypatch):
    """Issue 26, finding 5: with PostgreSQL killed, /gallery and /your_results?gallery=1,2 showed
    sqlalchemy.exc.OperationalError; after it came back the first visitor of the idle server got the
    same error from a pooled connection that had died with the server."""
    monkeypatch.setenv("GPUWIN_GALLERY_URL", pg_url)
    at = open_page("pages/gallery.py")
    at.file_uploader(key="gallery.file").set_value([("mine.json", fixture_bytes(1), "application/json")])
    at.text_input(key="gallery.name").set_value("before the outage")
    at.button(key="gallery.add").click().run()
    assert "as entry #1" in at.success[0].value  # the app's engine now holds a pooled connection
    assert _CONTROL["stop"]().returncode == 0 and _CONTROL["start"]().returncode == 0  # nobody visits meanwhile
    back = open_page("pages/gallery.py")  # the first visitor after the restart
    assert not back.exception and not back.error, [e.value for e in back.exception] + [e.value for e in back.error]
    assert "before the outage" in page_text(back)
    assert _CONTROL["stop"]().returncode == 0
    try:
        down = open_page("pages/gallery.py")
        assert not down.exception, [e.value for e in down.exception]
        assert "The gallery's database could not be opened just now" in down.error[0].value
        # issue 40, finding 9: it said 'connection to server at "127.0.0.1", port 55432 failed'
        assert not re.search(r"127\.0\.0\.1|\bport\b|OperationalError|psycopg", page_text(down))
        picked = open_page("pages/your_results.py", {"gallery": "1,2"})
        assert not picked.exception, [e.value for e in picked.exception]
        assert "could not be opened just now" in " ".join(w.value for w in picked.warning).replace("\\", "")
        assert "127.0.0.1" not in page_text(picked)
    finally:
        assert _CONTROL["start"]().returncode == 0


def test_held_entries_and_the_schema_1_migration_on_postgresql(pg_url):
    """Issue 40: entries past the pace are held; a database of schema 1 gains the column."""
    gallery = Gallery(sqlalchemy.create_engine(pg_url), Limits(pace=1))
    kept = gallery.add("a.json", fixture_bytes(1), name="a", session="s")
    with gallery.engine.begin() as conn:  # as the app before issue 40 left it
        conn.execute(text("ALTER TABLE gallery_entries DROP COLUMN held"))
        conn.execute(text("UPDATE gallery_schema_version SET version = 1"))
    gallery.engine.dispose()
    again = Gallery(sqlalchemy.create_engine(pg_url), Limits(pace=1), site_admin_code="site")
    assert [(e.id, e.held) for e in again.entries()] == [(kept.id, False)]
    late = again.add("b.json", fixture_bytes(2), name="b", session="t")
    assert late.held and again.count() == 1 and again.waiting("") == 1
    assert not again.set_hidden(late.id, "", "site", hidden=False, session="operator").held and again.count() == 2
    with again.engine.connect() as conn:
        assert conn.execute(text("SELECT version FROM gallery_schema_version")).scalars().all() == [SCHEMA_VERSION]
