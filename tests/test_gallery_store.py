"""The gallery's storage (lib.recorded.gallery) on real SQLite files: schema, restarts, concurrent
writers, duplicates, caps, the rate limit, courses and admin codes, bad uploads. No Streamlit."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import threading
import time

import pytest
import sqlalchemy
from gallery_support import H200_PACK, add_many, cpu_pack, fixture_bytes, gpu_fixture_bytes, relabelled, sqlite_url
from sqlalchemy import text

from lib.recorded.gallery.entry import GalleryError, clean_name, normalize_course
from lib.recorded.gallery.schema import SCHEMA_VERSION as GALLERY_SCHEMA
from lib.recorded.gallery.schema import SchemaError, ensure_schema
from lib.recorded.gallery.store import Gallery, Limits


@pytest.fixture
def url(tmp_path) -> str:
    return sqlite_url(tmp_path)


def open_gallery(url: str, **limits) -> Gallery:
    return Gallery(sqlalchemy.create_engine(url), Limits(**limits))


def refused(kind: str, call, *args, **kwargs) -> str:
    with pytest.raises(GalleryError) as info:
        call(*args, **kwargs)
    assert info.value.kind == kind, (info.value.kind, str(info.value))
    return str(info.value)


def test_first_use_creates_the_schema_and_a_restart_keeps_every_entry(url, tmp_path):
    first = open_gallery(url)
    a = first.add("mine.json", fixture_bytes(1), name="Ada", session="s")
    b = first.add("gpu.json", gpu_fixture_bytes(), name="Lab GPU", session="s")
    stored = first.packs([a.id, b.id])
    first.engine.dispose()  # the server stops

    again = open_gallery(url)  # a new process would open the same file
    assert [e.id for e in again.entries()] == [b.id, a.id]
    assert again.packs([a.id, b.id]) == stored
    assert b.hardware == "NVIDIA H100 80GB HBM3" and b.devices == "cpu, cuda:0" and b.rows == 16
    assert a.hardware == cpu_pack()["machine"]["cpu_model"] and a.devices == "cpu"
    with sqlite3.connect(tmp_path / "gallery.sqlite") as raw:
        assert raw.execute("SELECT version FROM gallery_schema_version").fetchall() == [(GALLERY_SCHEMA,)]
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        text_stored = raw.execute("SELECT pack_json FROM gallery_entries WHERE id = ?", (a.id,)).fetchone()[0]
    assert json.loads(text_stored)["rows"] == stored[a.id].rows  # JSON text, not a pickle


def test_a_database_from_a_newer_app_is_refused_and_left_alone(url):
    gallery = open_gallery(url)
    gallery.add("mine.json", fixture_bytes(1), name="Ada", session="s")
    with gallery.engine.begin() as conn:
        conn.execute(text("UPDATE gallery_schema_version SET version = :v"), {"v": GALLERY_SCHEMA + 1})
    with pytest.raises(SchemaError, match=f"schema version {GALLERY_SCHEMA + 1}"):
        ensure_schema(sqlalchemy.create_engine(url))
    with sqlalchemy.create_engine(url).connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM gallery_entries")).scalar() == 1


def test_a_database_of_schema_1_gains_held_entries_and_keeps_its_own(url, tmp_path):
    gallery = open_gallery(url)
    kept = gallery.add("mine.json", fixture_bytes(1), name="Ada", session="s")
    gallery.engine.dispose()
    with sqlite3.connect(tmp_path / "gallery.sqlite") as raw:  # as the app before issue 40 left it
        raw.execute("ALTER TABLE gallery_entries DROP COLUMN held")
        raw.execute("UPDATE gallery_schema_version SET version = 1")
    again = open_gallery(url, pace=1)
    assert [(e.id, e.held) for e in again.entries()] == [(kept.id, False)]  # shown as before
    assert again.add("b.json", fixture_bytes(2), name="b", session="t").held  # its add counted, so the next waits
    with sqlite3.connect(tmp_path / "gallery.sqlite") as raw:
        assert raw.execute("SELECT version FROM gallery_schema_version").fetchall() == [(GALLERY_SCHEMA,)]


@pytest.mark.slow
def test_two_processes_adding_at_once_both_land(url):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Manager().Barrier(2)
    payloads = [[fixture_bytes(10 + i) for i in range(4)], [fixture_bytes(20 + i) for i in range(4)]]
    open_gallery(url)  # the schema exists before the race on entries (creating it concurrently: next test)
    with ctx.Pool(2) as pool:
        results = [pool.apply_async(add_many, (url, payloads[w], f"w{w}", barrier)) for w in range(2)]
        ids = [r.get(timeout=120) for r in results]
    assert len(set(ids[0] + ids[1])) == 8
    assert sorted(e.id for e in open_gallery(url).entries()) == sorted(ids[0] + ids[1])


@pytest.mark.slow
def test_two_servers_creating_the_schema_at_once_both_start(url):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Manager().Barrier(3)
    with ctx.Pool(3) as pool:
        results = [pool.apply_async(add_many, (url, [fixture_bytes(30 + w)], f"w{w}", barrier)) for w in range(3)]
        ids = [r.get(timeout=120) for r in results]
    assert sorted(i for found in ids for i in found) == [1, 2, 3]
    with sqlalchemy.create_engine(url).connect() as conn:
        assert conn.execute(text("SELECT version FROM gallery_schema_version")).scalars().all() == [GALLERY_SCHEMA]


@pytest.mark.slow
def test_a_course_cap_holds_when_writers_race_for_the_last_places(url):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Manager().Barrier(2)
    open_gallery(url).create_course("RACE-1", session="teacher")
    payloads = [[fixture_bytes(40 + 10 * w + i) for i in range(3)] for w in range(2)]
    with ctx.Pool(2) as pool:
        results = [pool.apply_async(add_many, (url, payloads[w], f"w{w}", barrier, "RACE-1", 4)) for w in range(2)]
        outcomes = [o for r in results for o in r.get(timeout=120)]
    assert sorted(map(str, outcomes)).count("course_full") == 2 and len(open_gallery(url).entries("RACE-1")) == 4


def test_two_threads_on_one_engine_both_land(url):
    gallery = open_gallery(url, max_actions=100)  # one engine shared by every session, as st.connection does
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def writer(w: int) -> None:
        try:
            start.wait()
            for i in range(5):
                gallery.add("p.json", fixture_bytes(100 + 10 * w + i), name=f"t{w}", session=f"t{w}")
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert len(gallery.entries()) == 10


def test_the_same_pack_twice_is_refused_in_a_course_but_joins_another(url):
    gallery = open_gallery(url)
    code, _ = gallery.create_course("ML101", session="teacher")
    first = gallery.add("a.json", fixture_bytes(1), name="Ada", course=code, session="s")
    words = refused("duplicate", gallery.add, "again.json", fixture_bytes(1), name="Bob", course="ml101", session="t")
    assert f"entry #{first.id} 'Ada'" in words and "course ML101" in words
    assert gallery.add("a.json", fixture_bytes(1), name="Ada", session="s").course == ""  # the public gallery
    assert len(gallery.entries()) == 2 and len(gallery.entries("ML101")) == 1


def test_the_shipped_packs_are_not_added_again(url):
    words = refused(
        "duplicate", open_gallery(url).add, "h200_training.json", H200_PACK.read_bytes(), name="x", session="s"
    )
    assert "shipped with the app (h200_training)" in words


@pytest.mark.parametrize(
    "case, kind, words",
    [
        ("broken", "malformed", "not valid JSON"),
        ("field", "malformed", "rows[0].median_s: must be a number >= 0 when status is ok"),
        ("huge", "too_big", "larger than the gallery's 0.05 MB limit"),
        ("csv", "no_fingerprint", "A CSV has no machine fingerprint"),
        ("merged", "several_machines", "holds several machines"),
        ("other_sweep", "not_gallery_sweep", "needs at least two"),
        ("empty", "malformed", "the file is empty"),
    ],
)
def test_a_bad_upload_is_refused_saying_why(url, case, kind, words):
    from lib.core.results import merge_packs, pack_to_csv

    pack = cpu_pack()
    data = {
        "broken": lambda: b'{"schema_version": 1, "rows": [',
        "field": lambda: json.dumps({**pack, "rows": [{**pack["rows"][0], "median_s": "fast"}]}).encode(),
        "huge": lambda: fixture_bytes(1) + b" " * 50_000,
        "csv": lambda: pack_to_csv(pack).encode(),
        "merged": lambda: json.dumps(merge_packs([pack, relabelled(pack, "TEST FIXTURE other")])).encode(),
        "other_sweep": lambda: json.dumps(
            {**pack, "rows": [{**r, "swept": "hidden_width"} for r in pack["rows"]]}
        ).encode(),
        "empty": lambda: b"  ",
    }[case]()
    gallery = open_gallery(url, max_pack_bytes=50_000)
    name = "rows.csv" if case == "csv" else f"{case}.json"
    assert words in refused(kind, gallery.add, name, data, name="Ada", session="s")
    assert gallery.entries() == []


def test_only_the_gallery_sweep_is_kept_from_a_bigger_pack(url):
    pack = relabelled(json.loads(H200_PACK.read_text()), "TEST FIXTURE: the shipped H200 training pack relabelled")
    gallery = open_gallery(url)
    candidate = gallery.prepare("training.json", json.dumps(pack).encode())
    assert len(candidate.pack.rows) == 16 and candidate.left_out == len(pack["rows"]) - 16
    assert {r["batch_size"] for r in candidate.pack.rows} == {1, 4, 16, 64, 256, 1024, 4096, 8192}
    entry = gallery.add("training.json", json.dumps(pack).encode(), name="H200 again", session="s")
    assert entry.rows == 16 and entry.hardware == "NVIDIA H200"


def test_names_are_kept_as_plain_text(url):
    gallery = open_gallery(url)
    entry = gallery.add("a.json", fixture_bytes(1), name="  <b>Ada</b>\n**bold** [x](javascript:1)\x00 ", session="s")
    assert entry.name == "<b>Ada</b> **bold** [x](javascript:1)"  # escaped where shown, not here
    assert refused("bad_name", clean_name, " \n\t ").startswith("Give a display name")
    assert "at most 40" in refused("bad_name", clean_name, "x" * 41)


def test_a_course_is_full_at_its_cap_and_hidden_entries_free_a_place(url):
    gallery = open_gallery(url, max_per_course=2)
    code, admin = gallery.create_course("CAP-1", session="teacher")
    first = gallery.add("a.json", fixture_bytes(1), name="a", course=code, session="s1")
    gallery.add("b.json", fixture_bytes(2), name="b", course=code, session="s2")
    assert "Course CAP-1 is full (at most 2 visible entries)" in refused(
        "course_full", gallery.add, "c.json", fixture_bytes(3), name="c", course=code, session="s3"
    )
    assert gallery.add("c.json", fixture_bytes(3), name="c", session="s3").course == ""  # other courses are not full
    gallery.set_hidden(first.id, code, admin, session="teacher")
    assert gallery.add("d.json", fixture_bytes(4), name="d", course=code, session="s4").course == code


def test_a_session_is_rate_limited_and_others_are_not(url):
    gallery = open_gallery(url, max_actions=2, window_s=2.0)
    gallery.create_course("RATE-1", session="busy")
    gallery.add("a.json", fixture_bytes(1), name="a", session="busy")
    words = refused("rate_limited", gallery.add, "b.json", fixture_bytes(2), name="b", session="busy")
    assert "already added 2 things" in words
    refused("rate_limited", gallery.create_course, "RATE-2", session="busy")
    assert gallery.add("b.json", fixture_bytes(2), name="b", session="calm").id  # another visitor is not limited
    time.sleep(2.1)
    assert gallery.add("c.json", fixture_bytes(3), name="c", session="busy").id  # the window has passed


def test_an_instructor_hides_an_entry_with_the_course_admin_code_only(url):
    gallery = Gallery(sqlalchemy.create_engine(url), Limits(max_admin_failures=3), site_admin_code="site-secret")
    code, admin = gallery.create_course("HIDE-1", session="teacher")
    other, other_admin = gallery.create_course(session="teacher")
    assert normalize_course(other) == other and len(other) == 6
    entry = gallery.add("a.json", fixture_bytes(1), name="spam", course=code, session="s")
    assert "does not open course HIDE-1" in refused(
        "bad_admin_code", gallery.set_hidden, entry.id, code, "guess", session="x"
    )
    refused("bad_admin_code", gallery.set_hidden, entry.id, code, other_admin, session="x")  # another course's code
    refused("no_entry", gallery.set_hidden, entry.id, other, other_admin, session="y")  # not that course's entry
    assert [e.id for e in gallery.entries(code)] == [entry.id]
    assert gallery.set_hidden(entry.id, code, admin, session="teacher").hidden
    assert gallery.entries(code) == [] and [e.hidden for e in gallery.entries(code, include_hidden=True)] == [True]
    assert not gallery.set_hidden(entry.id, code, admin, hidden=False, session="teacher").hidden
    refused("bad_admin_code", gallery.set_hidden, entry.id, code, "guess", session="x")
    assert "Too many wrong admin codes" in refused(
        "rate_limited", gallery.set_hidden, entry.id, code, admin, session="x"
    )
    public = gallery.add("b.json", fixture_bytes(2), name="public spam", session="s")
    refused("bad_admin_code", gallery.set_hidden, public.id, "", admin, session="teacher")
    assert gallery.set_hidden(public.id, "", "site-secret", session="site").hidden  # the site's own code


def test_course_codes_are_checked_and_the_admin_code_is_stored_only_as_a_hash(url, tmp_path):
    gallery = open_gallery(url)
    code, admin = gallery.create_course(" ml101-2026 ", session="teacher")
    assert code == "ML101-2026" and gallery.course_exists("ml101-2026")
    assert "taken" in refused("course_exists", gallery.create_course, "ML101-2026", session="other")
    assert "3 to 24 letters" in refused("bad_course", gallery.create_course, "a b<c>", session="other")
    assert "no course NOPE" in refused(
        "no_course", gallery.add, "a.json", fixture_bytes(1), name="a", course="nope", session="s"
    )
    gallery.engine.dispose()
    assert admin.encode() not in (tmp_path / "gallery.sqlite").read_bytes()
    with sqlite3.connect(tmp_path / "gallery.sqlite") as raw:
        stored = raw.execute("SELECT admin_hash FROM gallery_courses WHERE code = 'ML101-2026'").fetchone()[0]
    assert stored.startswith("pbkdf2_sha256$") and admin not in stored


def test_a_pack_changed_by_hand_in_the_database_is_left_out(url):
    gallery = open_gallery(url)
    good = gallery.add("a.json", fixture_bytes(1), name="a", session="s")
    bad = gallery.add("b.json", fixture_bytes(2), name="b", session="s")
    with gallery.engine.begin() as conn:
        conn.execute(
            text("UPDATE gallery_entries SET pack_json = :t WHERE id = :i"),
            {"t": '{"schema_version": 1, "rows": "x"}', "i": bad.id},
        )
    assert list(gallery.packs([good.id, bad.id])) == [good.id]


def test_limits_come_from_the_environment():
    limits = Limits.from_env(
        {"GPUWIN_GALLERY_COURSE_CAP": "5", "GPUWIN_GALLERY_RATE": "3/60", "GPUWIN_GALLERY_MAX_PACK_KB": "200"}
    )
    assert (limits.max_per_course, limits.max_actions, limits.window_s, limits.max_pack_bytes) == (5, 3, 60.0, 200_000)
    paced = Limits.from_env(
        {"GPUWIN_GALLERY_PACE": "12", "GPUWIN_GALLERY_MAX_HELD": "7", "GPUWIN_GALLERY_SITE_RATE": "99"}
    )
    assert (paced.pace, paced.max_held, paced.max_site_actions) == (12, 7, 99)
    assert Limits.from_env({}) == Limits()


def test_the_whole_gallery_has_a_cap_too(url):
    gallery = open_gallery(url, max_total=2)
    gallery.add("a.json", fixture_bytes(1), name="a", session="s")
    gallery.add("b.json", fixture_bytes(2), name="b", session="s")
    assert "maximum of 2 entries" in refused(
        "gallery_full", gallery.add, "c.json", fixture_bytes(3), name="c", session="s"
    )
