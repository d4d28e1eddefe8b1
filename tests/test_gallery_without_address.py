"""The gallery when every visitor looks the same (issue 40, finding 4): no client address (a local
visitor, or a reverse proxy without GPUWIN_PROXY_HOPS), so a script can open a new session for each
add. 30 sessions added 300 entries in 111 s, filled the public gallery and the site's hourly limit,
and every later add was refused for an hour; a new session also started the admin code's five tries
over. Real SQLite files, no Streamlit; the app's side is in test_app_gallery.py."""

from __future__ import annotations

import pytest
import sqlalchemy
from gallery_support import fixture_bytes, sqlite_url
from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

from lib.recorded.gallery.entry import GalleryError
from lib.recorded.gallery.limits import browser_key
from lib.recorded.gallery.store import Gallery, Limits

SITE_CODE = "site-operator-code"


@pytest.fixture
def url(tmp_path) -> str:
    return sqlite_url(tmp_path)


def gallery(url: str, **limits) -> Gallery:
    return Gallery(sqlalchemy.create_engine(url), Limits(**limits), site_admin_code=SITE_CODE)


def refused(call, *args, **kwargs) -> GalleryError:
    with pytest.raises(GalleryError) as info:
        call(*args, **kwargs)
    return info.value


@pytest.mark.slow  # 300 real adds: about 4 s on the 2-core development box
def test_thirty_sessions_of_ten_adds_no_longer_lock_everyone_out(url):
    g = gallery(url)  # the shipped limits: a pace of 60 shown per course per hour
    held = [g.add(f"{n}.json", fixture_bytes(n), name=f"bot {n}", session=f"bot-{n // 10}").held for n in range(300)]
    assert held == [False] * 60 + [True] * 240  # the pace shows a class's worth, the rest waits; none refused
    assert g.count() == 60 and g.waiting("") == 240
    student = g.add("s.json", fixture_bytes(300), name="a student", session="student")  # an hour is not needed
    assert student.held and student.id not in [e.id for e in g.entries(limit=500)]
    assert g.set_hidden(student.id, "", SITE_CODE, hidden=False, session="operator").held is False  # approved
    assert student.id in [e.id for e in g.entries(limit=500)]
    assert g.delete_hidden("", SITE_CODE, waiting=True, session="operator") == 240 and g.waiting() == 0
    # a class in its own course is not held back by the public gallery's flood
    code, _ = g.create_course("CLASS-1", session="teacher")
    assert not any(
        g.add(f"c{n}.json", fixture_bytes(400 + n), name=f"s{n}", course=code, session=f"c{n}").held for n in range(30)
    )


def test_past_the_pace_entries_wait_and_the_instructor_approves_them(url):
    g = gallery(url, pace=2)
    code, admin = g.create_course("PACE-1", session="teacher")
    shown = [g.add(f"{n}.json", fixture_bytes(n), name=f"n{n}", course=code, session=f"s{n}") for n in range(2)]
    late = [g.add(f"{n}.json", fixture_bytes(n), name=f"n{n}", course=code, session=f"s{n}") for n in range(2, 5)]
    assert [e.held for e in shown + late] == [False, False, True, True, True]
    assert [e.id for e in g.entries(code)] == [e.id for e in shown[::-1]] and g.count(code) == 2
    assert {e.id for e in g.entries(code, include_hidden=True)} == {e.id for e in shown + late}  # the admin's list
    assert g.entries_by_id([late[0].id]) == [] and g.waiting(code) == 3
    assert g.add("p.json", fixture_bytes(9), name="public", session="p").held is False  # another course's pace
    assert refused(g.hide_entries, [late[0].id], code, "guess", hidden=False, session="x").kind == "bad_admin_code"
    assert g.hide_entries([late[0].id, late[1].id], code, admin, hidden=False, session="teacher") == 2
    assert g.count(code) == 4 and g.waiting(code) == 1
    assert g.delete_hidden(code, admin, waiting=True, session="teacher") == 1 and g.waiting(code) == 0
    assert g.count(code, include_hidden=True) == 4  # only the waiting one went


def test_the_queue_of_held_entries_is_bounded_per_course(url):
    g = gallery(url, pace=1, max_held=2)
    code, admin = g.create_course("QUEUE-1", session="teacher")
    assert [
        g.add(f"{n}.json", fixture_bytes(n), name=f"n{n}", course=code, session=f"s{n}").held for n in range(3)
    ] == [False, True, True]
    err = refused(g.add, "x.json", fixture_bytes(7), name="x", course=code, session="late")
    assert err.kind == "held_full" and "2 entries already wait for the instructor to approve them" in str(err)
    assert g.add("y.json", fixture_bytes(8), name="y", session="elsewhere").id  # the public gallery's queue is apart
    g.delete_hidden(code, admin, waiting=True, session="teacher")
    assert g.add("x.json", fixture_bytes(7), name="x", course=code, session="late").held  # the queue has room again


def test_approving_never_passes_a_cap(url):
    g = gallery(url, pace=1, max_per_course=2)
    code, admin = g.create_course("FULL-1", session="teacher")
    entries = [g.add(f"{n}.json", fixture_bytes(n), name=f"n{n}", course=code, session=f"s{n}") for n in range(3)]
    assert [e.held for e in entries] == [False, True, True]
    err = refused(g.hide_entries, [e.id for e in entries[1:]], code, admin, hidden=False, session="teacher")
    assert err.kind == "course_full" and "hide some first" in str(err)
    assert g.count(code) == 1 and g.waiting(code) == 2  # refused as a whole: nothing changed
    assert g.hide_entries([entries[1].id], code, admin, hidden=False, session="teacher") == 1


def test_the_tabs_of_one_browser_share_its_limit(url):
    g = gallery(url, max_actions=3)
    cookie = generate_xsrf_token_string(b"0123456789abcdef")
    for n in range(3):  # a new tab (a new session) for each add, the same browser
        g.add(f"{n}.json", fixture_bytes(n), name=f"tab {n}", session=f"tab-{n}", browser=browser_key(cookie))
    err = refused(g.add, "x.json", fixture_bytes(9), name="x", session="tab-9", browser=browser_key(cookie))
    assert err.kind == "rate_limited" and "This browser has already added 3 things" in str(err)
    other = browser_key(generate_xsrf_token_string(b"fedcba9876543210"))
    assert g.add("y.json", fixture_bytes(10), name="another browser", session="s", browser=other).id


def test_the_browser_key_is_streamlits_xsrf_token_unmasked():
    token = b"\x01" * 16
    first, again = generate_xsrf_token_string(token), generate_xsrf_token_string(token)  # each load masks anew
    assert first != again and browser_key(first) == browser_key(again) == token.hex()
    assert browser_key(generate_xsrf_token_string()) not in ("", token.hex())
    assert browser_key(token.hex()) == token.hex()  # version 1: the token itself
    for junk in (None, "", "2|zz|zz|1", "2|00|0000|1", "3|a|b|c", "x" * 40, "2|" + "0" * 8 + "|" + "0" * 2000 + "|1"):
        assert browser_key(junk) == ""


def test_a_new_session_without_an_address_does_not_restart_the_admin_tries(url):
    g = gallery(url, max_admin_failures=5)
    code, admin = g.create_course("TRIES-1", session="teacher")
    other, other_admin = g.create_course("TRIES-2", session="teacher")
    for n in range(5):  # a script: a new session, and no cookie, for each guess
        assert refused(g.check_admin, code, f"guess {n}", session=f"guesser-{n}").kind == "bad_admin_code"
    err = refused(g.check_admin, code, admin, session="guesser-5")
    assert err.kind == "rate_limited" and "Too many wrong admin codes" in str(err)  # even the right code, for now
    g.check_admin(other, other_admin, session="teacher")  # another course's tries are its own
    g.check_admin(code, admin, session="teacher", client="198.51.100.20")  # a visitor whose address is known
