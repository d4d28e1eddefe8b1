"""The Class gallery page through AppTest: real uploads (st.file_uploader), a real SQLite file per test
(GPUWIN_DATA_DIR, see conftest.py), the shipped H200 and H100 packs. Adding, listing, course links,
the caps, bad inputs, hiding, and picking two machines for the Your results page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from app_support import chart_specs, open_page, page_text
from gallery_support import H200_PACK, fixture_bytes, gpu_fixture_bytes

PAGE = "pages/gallery.py"
SHIPPED = 2  # the H200 (lib/recorded/h200_training.json) and the H100 (lib/recorded/h100_training.json)
HTML_NAME = "<b onclick=alert(1)>Ada</b> **[x](js:1)"  # 38 characters: the box takes 40
CROSSOVER_CELL = r"≈ [\d,.]+|between [\d,]+ and [\d,]+"  # a crossover cell: its value, or its bracket (issue 37)


def add(at, name: str, data: bytes | None, file_name: str = "my_machine.json"):
    """Choose the file and the name, as a visitor would, and press 'Add to the gallery'."""
    if data is not None:
        at.file_uploader(key="gallery.file").set_value([(file_name, data, "application/json")])
    at.text_input(key="gallery.name").set_value(name)
    at.button(key="gallery.add").click()
    return at.run()


def table(at):
    return next(d.value for d in at.dataframe if "named by" in d.value.columns)


def chart_text(at) -> str:
    """The first chart's Vega-Lite spec as text, non-ASCII characters kept (the lines' '·')."""
    return json.dumps(json.loads(chart_specs(at)[0]), ensure_ascii=False)


def said(at, kind: str) -> list[str]:
    return [str(e.value) for e in getattr(at, kind)]


def assert_clean(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    for kind in ("markdown", "success", "error", "warning", "info", "caption"):
        for text in said(at, kind):
            assert not re.search(r"(?<!\\)[<>]|(?<!\\)\]\(", text), text  # visitors' text arrives escaped


def create_course(at, code: str = "") -> tuple[str, str]:
    at.text_input(key="gallery.new_course").set_value(code)
    at.button(key="gallery.create").click().run()
    assert_clean(at)
    shown = next(c.value for c in at.code if "admin code:" in c.value)
    link, admin = shown.splitlines()
    return link.rsplit("=", 1)[1], admin.split(": ", 1)[1]


def test_the_empty_gallery_shows_the_shipped_gpus_and_how_to_record():
    at = open_page(PAGE)
    assert_clean(at)
    rows = table(at)
    assert list(rows["named by"]) == ["shipped with the app"] * SHIPPED
    assert set(rows["GPU or CPU"]) == {"NVIDIA H200", "NVIDIA H100 80GB HBM3"}
    # issue 37: a value where the bracket names one, else the bracket (the shipped sweeps step 16×: 256 to 4,096)
    assert all(rows["crossover"].str.fullmatch(CROSSOVER_CELL))
    assert "NVIDIA H200 · shipped" in chart_text(at) and "NVIDIA H100 80GB HBM3 · shipped" in chart_text(at)
    assert any(c.value.startswith("python3 scripts/record_for_gallery.py --app-url ") for c in at.code)
    assert [b.label for b in at.get("download_button")] == ["record_your_machine.ipynb"]
    text = page_text(at)
    assert "0 shared entries, and 2 shipped with the app. Stored in SQLite." in text


def test_a_machine_added_is_listed_charted_kept_and_its_name_shown_as_text(tmp_path):
    at = add(open_page(PAGE), HTML_NAME, gpu_fixture_bytes())
    assert_clean(at)
    assert said(at, "error") == []
    assert "as entry #1 to the public gallery" in said(at, "success")[0]
    assert "Added **\\<b onclick=alert(1)\\>Ada\\</b\\> \\*\\*\\[x\\](js\\:1)** (NVIDIA H100" in said(at, "success")[0]
    rows = table(at)
    mine = rows[rows["entry"] == "#1"].iloc[0]
    assert mine["named by"] == HTML_NAME and mine["GPU or CPU"] == "NVIDIA H100 80GB HBM3"  # text, never markup
    assert re.fullmatch(CROSSOVER_CELL, mine["crossover"])
    assert json.dumps(f"{HTML_NAME} · NVIDIA H100 80GB HBM3 (#1)", ensure_ascii=False) in chart_text(at)
    other = open_page(PAGE)  # another visitor, another session: the entry is in the database
    assert list(table(other)["entry"]).count("#1") == 1
    assert "1 shared entry, and 2 shipped" in page_text(other)


@pytest.mark.parametrize(
    "case, words",
    [
        ("malformed", "Not a result pack: my_machine.json: not valid JSON"),
        ("huge", "larger than the gallery's 0.03 MB limit per pack"),
        ("twice", "The same results are already in the gallery as entry #1"),
        ("shipped", "These are the results shipped with the app (h200_training)"),
        ("no name", "Give a display name"),
        ("no file", "Choose your result pack first"),
    ],
)
@pytest.mark.slow
def test_a_bad_input_gets_a_message_and_changes_nothing(monkeypatch, case, words):
    if case == "huge":
        monkeypatch.setenv("GPUWIN_GALLERY_MAX_PACK_KB", "30")
    at = open_page(PAGE)
    if case == "twice":
        at = add(at, "first", fixture_bytes(1))
        assert said(at, "success")
    data = {
        "malformed": b'{"schema_version": 1, "machine": {',
        "huge": fixture_bytes(1) + b" " * 40_000,
        "twice": fixture_bytes(1),
        "shipped": H200_PACK.read_bytes(),
        "no name": fixture_bytes(2),
        "no file": None,
    }[case]
    before = len(table(at))
    at = add(at, "" if case == "no name" else "Ada", data)
    assert_clean(at)
    assert len(said(at, "error")) == 1 and words in said(at, "error")[0].replace("\\", ""), said(at, "error")
    assert said(at, "success") == [] and len(table(at)) == before


def test_a_course_link_shows_only_that_class():
    code, _ = create_course(open_page(PAGE), "ml101")
    assert code == "ML101"
    student = open_page(PAGE, {"course": "ml101"})
    assert student.text_input(key="gallery.course").value == "ml101" and student.query_params["course"] == "ML101"
    student = add(student, "in class", fixture_bytes(1))
    assert "to course **ML101**" in said(student, "success")[0]
    assert "added to course **ML101**" in " ".join(said(student, "caption"))
    add(open_page(PAGE), "not in class", fixture_bytes(2))

    in_class = open_page(PAGE, {"course": "ML101"})
    assert_clean(in_class)
    assert "The machines of course ML101" in page_text(in_class)
    assert [n for n in table(in_class)["named by"] if n != "shipped with the app"] == ["in class"]
    everyone = open_page(PAGE)
    assert sorted(n for n in table(everyone)["named by"] if n != "shipped with the app") == ["in class", "not in class"]
    for query, words in (
        ({"course": "NOPE"}, "There is no course NOPE in this gallery"),
        ({"course": "<b>x"}, "is not a course code"),
    ):
        lost = open_page(PAGE, query)
        assert_clean(lost)
        assert words in said(lost, "warning")[0].replace("\\", "") and not lost.dataframe


def test_the_course_cap_and_the_session_rate_limit(monkeypatch):
    monkeypatch.setenv("GPUWIN_GALLERY_COURSE_CAP", "1")
    monkeypatch.setenv("GPUWIN_GALLERY_RATE", "2/3600")
    at = add(open_page(PAGE), "one", fixture_bytes(1))
    at = add(at, "two", fixture_bytes(2))
    assert "The public gallery is full (at most 1 visible entry)" in said(at, "error")[0]
    code, _ = create_course(at, "CAP-2")  # the session's second action
    at = add(open_page(PAGE, {"course": code}), "three", fixture_bytes(3))  # a new session
    assert said(at, "success")
    at.text_input(key="gallery.new_course").set_value("CAP-3")
    at.button(key="gallery.create").click().run()
    at = add(at, "four", fixture_bytes(4))
    assert "already added 2 things" in said(at, "error")[0]
    assert_clean(at)


def unlock(at, code: str):
    at.text_input(key="gallery.admin_code").set_value(code)
    at.button(key="gallery.unlock").click()
    return at.run()


def test_an_instructor_hides_an_entry_with_the_admin_code():
    code, admin = create_course(open_page(PAGE), "HIDE-2")
    at = add(open_page(PAGE, {"course": code}), "spam", fixture_bytes(1))
    at = add(at, "keep", fixture_bytes(2))
    assert {"spam", "keep"} <= set(table(at)["named by"])
    at = unlock(at, "guess")
    assert "That admin code does not open course HIDE-2" in said(at, "error")[0]
    assert not [w for w in at.multiselect if w.key == "gallery.hide_pick"] and "spam" in list(table(at)["named by"])
    at = unlock(at, admin)
    at.multiselect(key="gallery.hide_pick").set_value([1])
    at.button(key="gallery.hide_apply").click().run()
    assert_clean(at)
    assert "1 of 1 entries (#1) hidden." in said(at, "success")
    assert "spam" not in list(table(at)["named by"])
    assert "spam" not in list(table(open_page(PAGE))["named by"])  # gone for every visitor
    at.button(key="gallery.delete_hidden").click().run()
    assert "1 hidden entry deleted for good." in said(at, "success")
    assert [e.label for e in at.button if e.key == "gallery.delete_hidden"] == []


def test_hidden_entries_and_the_admin_form_stay_with_whoever_has_the_code(monkeypatch):
    """Issue 26, finding 8: a visitor of ?course=CODE saw the hidden entries' names in the hide box,
    and with a site admin code set the public gallery showed that form to everyone."""
    code, admin = create_course(open_page(PAGE), "SEEN-1")
    at = add(open_page(PAGE, {"course": code}), "secret spam name", fixture_bytes(1))
    at = unlock(at, admin)
    at.multiselect(key="gallery.hide_pick").set_value([1])
    at.button(key="gallery.hide_apply").click().run()
    visitor = open_page(PAGE, {"course": code})
    options = [o for w in visitor.multiselect for o in w.options] + [o for w in visitor.selectbox for o in w.options]
    assert not any("secret spam name" in str(o) for o in options)
    assert [t.key for t in visitor.text_input if t.key == "gallery.admin_code"] == ["gallery.admin_code"]
    monkeypatch.setenv("GPUWIN_GALLERY_ADMIN_CODE", "sïte-cöde")  # not ASCII: compared as bytes
    public = add(open_page(PAGE), "public entry", fixture_bytes(2))
    assert not [t for t in public.text_input if t.key == "gallery.admin_code"]
    site = unlock(open_page(PAGE, {"admin": "1"}), "sïte-cöde")
    assert not site.exception and not said(site, "error")
    assert any("public entry" in str(o) for o in site.multiselect(key="gallery.hide_pick").options)
    wrong = unlock(open_page(PAGE, {"admin": "1"}), "wrong-ü")
    assert "does not open the public gallery" in said(wrong, "error")[0] and not wrong.exception


def test_two_picked_machines_open_together_on_your_results():
    at = add(open_page(PAGE), "Ada", fixture_bytes(1))
    at.multiselect(key="gallery.picks").set_value(["1", "shipped:h200_training"]).run()
    links = [link.proto for link in at.get("page_link")]
    assert [(link.page, link.query_string) for link in links] == [
        ("your_results", "gallery=1%2Cshipped%3Ah200_training")
    ]

    results = open_page("pages/your_results.py", {"gallery": "1,shipped:h200_training,99"})
    assert not results.exception, [e.value for e in results.exception]
    machines = next(d.value for d in results.dataframe if "machine" in d.value.columns)
    ada = next(m for m in machines["machine"] if m.startswith("Ada · "))
    assert list(machines["machine"]) == ["NVIDIA H200 · shipped", ada]
    spec = chart_text(results)
    assert "NVIDIA H200 · shipped" in spec and ada in spec
    assert "entry #99 is not in the gallery" in said(results, "warning")[0].replace("\\", "")


def test_sorting_comes_from_the_link():
    at = add(open_page(PAGE), "zed", fixture_bytes(1))
    at = add(at, "amy", fixture_bytes(2))
    by_name = open_page(PAGE, {"sort": "name"})
    assert list(table(by_name)["named by"])[:2] == ["amy", "zed"]
    newest = open_page(PAGE, {"sort": "newest"})
    assert list(table(newest)["named by"])[:2] == ["amy", "zed"]
    odd = open_page(PAGE, {"sort": "price"})
    assert "sort='price' is not one of" in said(odd, "warning")[0]


def test_the_database_file_is_where_the_data_dir_says(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_DATA_DIR", str(tmp_path / "data"))
    add(open_page(PAGE), "Ada", fixture_bytes(1))
    assert (Path(tmp_path) / "data" / "gallery.sqlite").is_file()


def test_the_database_comes_from_secrets_toml_and_the_environment_overrides_it(tmp_path, monkeypatch):
    import os

    import sqlalchemy
    from app_support import APP_TIMEOUT_S, ROOT
    from streamlit.testing.v1 import AppTest

    from lib.recorded.gallery.store import Gallery

    def names(url: str) -> list[str]:
        return [e.name for e in Gallery(sqlalchemy.create_engine(url)).entries()]

    def page_with_secrets(url: str):
        at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=APP_TIMEOUT_S)
        at.secrets["connections"] = {"gallery": {"url": url}}  # what [connections.gallery] in secrets.toml gives
        at.run()
        at.switch_page(PAGE).run()
        return at

    from_secrets = f"sqlite:///{tmp_path / 'from_secrets.sqlite'}"
    at = add(page_with_secrets(from_secrets), "via secrets", fixture_bytes(1))
    assert said(at, "success") and names(from_secrets) == ["via secrets"]
    assert not (Path(os.environ["GPUWIN_DATA_DIR"]) / "gallery.sqlite").exists()

    from_env = f"sqlite:///{tmp_path / 'from_env.sqlite'}"
    monkeypatch.setenv("GPUWIN_GALLERY_URL", from_env)
    at = add(page_with_secrets(from_secrets), "via env", fixture_bytes(2))
    assert said(at, "success") and names(from_env) == ["via env"] and names(from_secrets) == ["via secrets"]


SERVER_DETAILS = re.compile(
    r"127\.0\.0\.1|\bport\b|secretpw|psycopg|OperationalError|connection to server|/tmp/|"
    r"gallery\.sqlite|Errno",
    re.IGNORECASE,
)


def test_an_unreachable_database_is_a_note_that_says_what_not_where(monkeypatch, caplog):
    """Issue 40, finding 9: the outage note showed 'connection to server at "127.0.0.1", port 55432
    failed'. Visitors read that the database could not be opened; the server's log has the rest."""
    monkeypatch.setenv("GPUWIN_GALLERY_URL", "postgresql+psycopg://gallery:secretpw@127.0.0.1:1/gallery")
    at = open_page(PAGE)
    assert not at.exception, [e.value for e in at.exception]
    errors = said(at, "error")
    assert (
        errors
        == [
            "The gallery's database could not be opened just now, so the gallery is not shown. Please try "
            "again in a few minutes."
        ]
        and not at.dataframe
    )
    assert not SERVER_DETAILS.search(page_text(at)), page_text(at)
    results = open_page("pages/your_results.py", {"gallery": "1"})  # a compare link meets the same note
    assert not results.exception and "could not be opened just now" in said(results, "warning")[0]
    assert not SERVER_DETAILS.search(page_text(results))
    log = caplog.text
    assert 'connection to server at "127.0.0.1", port 1 failed' in log and "OperationalError" in log
    assert "secretpw" not in log  # SQLAlchemy's own messages carry no password


def test_a_data_folder_that_cannot_be_made_is_a_note_without_its_path(tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a file where the data folder should be")
    monkeypatch.setenv("GPUWIN_DATA_DIR", str(blocker / "data"))
    at = open_page(PAGE)
    assert not at.exception and "could not be opened just now" in said(at, "error")[0]
    assert str(tmp_path) not in page_text(at) and not SERVER_DETAILS.search(page_text(at))
    assert str(blocker) in caplog.text  # the operator sees where


def test_a_database_failing_under_an_add_is_a_message(monkeypatch, caplog):
    import os
    import sqlite3

    at = add(open_page(PAGE), "first", fixture_bytes(1))
    assert said(at, "success")
    with sqlite3.connect(Path(os.environ["GPUWIN_DATA_DIR"]) / "gallery.sqlite") as raw:
        raw.execute("DROP TABLE gallery_events")  # damaged behind the running app's back
    at = add(at, "second", fixture_bytes(2))
    assert not at.exception, [e.value for e in at.exception]
    assert said(at, "error") == [
        "The gallery's database failed, so nothing was changed. Please try again in a few minutes."
    ]
    assert "gallery_events" in caplog.text and not SERVER_DETAILS.search(page_text(at))
    assert [n for n in table(at)["named by"] if n != "shipped with the app"] == ["first"]  # nothing half-added


def test_machine_strings_from_a_pack_are_shown_as_text():
    pack = json.loads(gpu_fixture_bytes())
    pack["machine"]["gpus"] = ["<i onmouseover=alert(1)>Evil</i> GPU [x](js:1)"]  # TEST FIXTURE: a hostile pack
    at = add(open_page(PAGE), "Eve", json.dumps(pack).encode())
    assert_clean(at)
    assert "(\\<i onmouseover=alert(1)\\>Evil\\</i\\> GPU \\[x\\](js\\:1)) as entry #1" in said(at, "success")[0]
    assert "<i onmouseover=alert(1)>Evil</i> GPU [x](js:1)" in list(table(at)["GPU or CPU"])


def test_a_view_reads_one_page_of_entries_and_the_page_is_in_the_link(monkeypatch):
    """Issue 26, finding 1: every /gallery view loaded every visible entry's pack of every course."""
    monkeypatch.setenv("GPUWIN_GALLERY_PAGE_SIZE", "2")
    at = open_page(PAGE)
    for n in range(3):
        at = add(at, f"n{n}", fixture_bytes(n))
    first = open_page(PAGE)
    assert sorted(n for n in table(first)["named by"] if n != "shipped with the app") == ["n1", "n2"]
    assert "3 shared entries (page 1 of 2: 2 of them here)" in page_text(first)
    first.slider(key="gallery.page").set_value(2).run()
    assert first.query_params["page"] == "2"
    assert [n for n in table(first)["named by"] if n != "shipped with the app"] == ["n0"]
    again = open_page(PAGE, {"page": "2"})
    assert [n for n in table(again)["named by"] if n != "shipped with the app"] == ["n0"]


def test_an_add_past_the_pace_waits_and_the_instructor_approves_it(monkeypatch):
    """Issue 40, finding 4: without a client address, one visitor's flood refused every later add for
    an hour. Past the pace an add is kept, said to wait, and the instructor shows it."""
    monkeypatch.setenv("GPUWIN_GALLERY_PACE", "1")
    code, admin = create_course(open_page(PAGE), "PACE-2")
    at = add(open_page(PAGE, {"course": code}), "first", fixture_bytes(1))
    assert "Many machines" not in said(at, "success")[0]
    late = add(open_page(PAGE, {"course": code}), "late student", fixture_bytes(2))  # another session
    assert_clean(late)
    assert (
        said(late, "error") == []
        and "as entry #2 to course **PACE-2**. Many machines were added in the last "
        "hour, so it is kept but shown only once your instructor approves it."
        in said(late, "success")[0]
    )
    assert "late student" not in list(table(late)["named by"])
    assert "1 more waits for the instructor's approval" in page_text(late)
    teacher = unlock(open_page(PAGE, {"course": code}), admin)
    pick = teacher.multiselect(key="gallery.hide_pick")
    assert pick.options[0].startswith("#2 late student · ") and pick.options[0].endswith(" (waiting for approval)")
    pick.set_value([2])
    teacher.radio(key="gallery.hide_action").set_value("Show (approves a waiting one)")
    teacher.button(key="gallery.hide_apply").click().run()
    assert_clean(teacher)
    assert "1 of 1 entries (#2) shown." in said(teacher, "success")
    assert "late student" in list(table(open_page(PAGE, {"course": code}))["named by"])  # for every visitor


def test_a_new_session_does_not_restart_the_admin_code_tries():
    """Issue 40, finding 4: without a client address a new session got five new tries."""
    code, admin = create_course(open_page(PAGE), "TRIES-3")
    for n in range(5):  # AppTest reports no client address, like a local visitor
        assert (
            "does not open course TRIES-3" in said(unlock(open_page(PAGE, {"course": code}), f"guess {n}"), "error")[0]
        )
    fresh = unlock(open_page(PAGE, {"course": code}), admin)
    assert_clean(fresh)
    assert "Too many wrong admin codes in the last 60 minutes" in said(fresh, "error")[0]
    assert not [w for w in fresh.multiselect if w.key == "gallery.hide_pick"]
