"""The gallery's limits that a new browser session does not reset (issue 26, probe finding 1): per
client address and for the whole site, kept in the database so two servers share them; a cap on
courses; small stored packs; one page of entries per view; hidden entries and the caps. Real
SQLite files, no Streamlit."""

from __future__ import annotations

import json

import pytest
import sqlalchemy
from gallery_support import fixture_bytes, gpu_fixture_bytes, sqlite_url

from lib.recorded.gallery.entry import GalleryError
from lib.recorded.gallery.limits import client_key
from lib.recorded.gallery.store import Gallery, Limits

CLIENT = "203.0.113.5"  # TEST-NET-3: documentation addresses


@pytest.fixture
def url(tmp_path) -> str:
    return sqlite_url(tmp_path)


def gallery(url: str, **limits) -> Gallery:
    return Gallery(sqlalchemy.create_engine(url), Limits(**limits))


def kind_of(call, *args, **kwargs) -> tuple[str, str]:
    with pytest.raises(GalleryError) as info:
        call(*args, **kwargs)
    return info.value.kind, str(info.value)


def test_a_new_session_per_add_does_not_reset_the_limit_of_its_address(url):
    g = gallery(url, max_client_actions=3)
    for n in range(3):
        g.add(f"{n}.json", fixture_bytes(n), name=f"bot {n}", session=f"fresh-{n}", client=CLIENT)
    kind, words = kind_of(g.add, "x.json", fixture_bytes(9), name="bot", session="fresh-9", client=CLIENT)
    assert kind == "rate_limited" and "from your network" in words
    kind, _ = kind_of(g.create_course, "BOT-1", session="fresh-10", client=CLIENT)
    assert kind == "rate_limited"
    assert g.add("y.json", fixture_bytes(10), name="someone else", session="s", client="198.51.100.7").id


def test_past_the_site_wide_pace_adds_wait_for_approval_and_courses_are_refused(url):
    one, two = gallery(url, max_site_actions=3), gallery(url, max_site_actions=3)  # two servers, one database
    a = one.add("a.json", fixture_bytes(1), name="a", session="a", client="198.51.100.1")
    b = two.add("b.json", fixture_bytes(2), name="b", session="b", client="198.51.100.2")
    one.create_course("SITE-1", session="c", client="198.51.100.3")
    d = two.add("d.json", fixture_bytes(4), name="d", session="d", client="198.51.100.4")  # stored, not refused
    assert (a.held, b.held, d.held) == (False, False, True)
    assert [e.id for e in one.entries()] == [b.id, a.id] and one.waiting() == 1  # held: not shown yet
    kind, words = kind_of(two.create_course, "SITE-2", session="e", client="198.51.100.5")
    assert kind == "rate_limited" and "from everyone" in words


def test_courses_are_capped_in_all_and_per_address(url):
    g = gallery(url, max_courses=2, max_client_courses=1)
    g.create_course("CAP-A", session="t1", client=CLIENT)
    kind, _ = kind_of(g.create_course, "CAP-B", session="t2", client=CLIENT)  # a new session, the same address
    assert kind == "rate_limited"
    g.create_course("CAP-C", session="t3", client="198.51.100.9")
    kind, words = kind_of(g.create_course, "CAP-D", session="t4", client="198.51.100.10")
    assert kind == "too_many_courses" and "maximum of 2 courses" in words


def test_an_entry_keeps_only_its_rows_numbers_and_settings(url):
    pack = json.loads(gpu_fixture_bytes())
    plain_size = len(gallery(url).prepare("plain.json", json.dumps(pack).encode()).pack_json)
    for row in pack["rows"]:
        row.update({f"pad_{k}": k for k in range(400)}, phase_padding_s=1.0, message="m" * 5000)
    pack["machine"].update({f"pad_{k}": "x" * 20 for k in range(400)})
    data = json.dumps(pack).encode()
    assert len(data) > 10 * plain_size
    g = gallery(url)
    entry = g.add("padded.json", data, name="padded", session="s")
    stored = g.packs([entry.id])[entry.id]
    with g.engine.connect() as conn:
        text = conn.execute(sqlalchemy.text("SELECT pack_json FROM gallery_entries")).scalar_one()
    assert len(text) < plain_size + 320 * len(pack["rows"])  # the messages, capped at 300 characters
    keys = {k for r in stored.rows for k in r} | set(stored.machine.fields)
    assert not [k for k in keys if k.startswith("pad_")] and "phase_padding_s" not in keys
    assert [r["median_s"] for r in stored.rows] == [r["median_s"] for r in pack["rows"]]
    assert list(stored.machine.gpus) == pack["machine"]["gpus"]


def test_a_view_reads_one_page_of_entries(url):
    g = gallery(url)
    ids = [g.add(f"{n}.json", fixture_bytes(n), name=f"n{n}", session="s").id for n in range(5)]
    assert g.count() == 5
    assert [e.id for e in g.entries(limit=2)] == ids[::-1][:2]
    assert [e.id for e in g.entries(limit=2, offset=4)] == [ids[0]]
    assert [e.id for e in g.entries_by_id([ids[1], 999])] == [ids[1]]


def test_hidden_entries_free_their_place_and_can_be_deleted_for_good(url):
    g = gallery(url, max_total=2, max_stored=3)
    code, admin = g.create_course("FLOOD-1", session="teacher")
    spam = [g.add(f"{n}.json", fixture_bytes(n), name=f"spam {n}", course=code, session=f"b{n}").id for n in range(2)]
    assert kind_of(g.add, "x.json", fixture_bytes(7), name="x", course=code, session="x")[0] == "gallery_full"
    assert g.hide_entries(spam, code, admin, session="teacher") == 2  # several at once
    g.add("ok.json", fixture_bytes(8), name="a student", course=code, session="student")  # hidden ones do not count
    kind, words = kind_of(g.add, "y.json", fixture_bytes(9), name="y", course=code, session="y")
    assert kind == "gallery_full" and "hidden ones included" in words  # but the database has a bound
    assert kind_of(g.delete_hidden, code, "wrong", session="x")[0] == "bad_admin_code"
    assert g.delete_hidden(code, admin, session="teacher") == 2 and g.count(code, include_hidden=True) == 1
    assert g.add("y.json", fixture_bytes(9), name="y", course=code, session="y").id


def test_admin_codes_that_are_not_ascii_are_compared_without_an_error(url):
    g = Gallery(sqlalchemy.create_engine(url), Limits(), site_admin_code="sïte-cöde")
    entry = g.add("a.json", fixture_bytes(1), name="a", session="s")
    assert kind_of(g.set_hidden, entry.id, "", "wröng", session="x")[0] == "bad_admin_code"
    assert g.set_hidden(entry.id, "", "sïte-cöde", session="admin").hidden


def test_wrong_admin_codes_count_per_address_too(url):
    g = gallery(url, max_admin_failures=2)
    code, admin = g.create_course("GUESS-1", session="teacher")
    for n in range(2):
        kind_of(g.check_admin, code, f"guess {n}", session=f"new-{n}", client=CLIENT)
    kind, words = kind_of(g.check_admin, code, admin, session="new-3", client=CLIENT)
    assert kind == "rate_limited"
    g.check_admin(code, admin, session="teacher", client="198.51.100.20")


@pytest.mark.parametrize(
    ("ip", "forwarded", "hops", "key"),
    [
        ("198.51.100.7", None, 0, "198.51.100.7"),
        (None, None, 0, ""),  # a local visitor: Streamlit reports no address
        ("10.0.0.2", "1.2.3.4, 203.0.113.9", 1, "203.0.113.9"),  # the proxy's view of the client, not what it wrote
        ("10.0.0.2", "203.0.113.9", 0, "10.0.0.2"),  # without trusted proxies the header is ignored
        ("2001:db8:1:2:3:4:5:6", None, 0, "2001:db8:1:2::/64"),
        ("::ffff:198.51.100.7", None, 0, "198.51.100.7"),
        ("not an address", None, 0, ""),
    ],
)
def test_the_client_key(ip, forwarded, hops, key):
    assert client_key(ip, forwarded, hops) == key
