"""A hostile visitor's uploads stay bounded (issue 40, items 1, 2 and the upload half of 10).

Item 2: one 4.99 MB upload of a row with 581,750 keys held a core for 22 minutes, because the CSV
writer checked its column list in time growing with the square of the keys. The linearity tests
count comparisons of keys instead of timing them: with a list's `in` a 40,000-key row makes about
800 million of them, with a dict about none, and the counting key stops the test as soon as the
count passes a linear bound, so a regression fails in a second rather than hanging.

Item 1: uploads are capped per file, per session and per server (lib.recorded.upload_budget): every
file over a cap is refused with one line naming the cap, the others are kept, and a session's share
goes back when it ends. benchmarks/upload_memory.py measures the memory on a real server.
"""

from __future__ import annotations

import json

import pytest
from gallery_support import H100_PACK

from lib.core.results import PackError, csv_to_pack, dumps_pack, rows_to_csv, validate_pack, validate_row
from lib.lessons.your_results.compare import compare_machines, comparison_titles, fastest_line
from lib.recorded.pack import Fingerprint
from lib.recorded.recording import Recording
from lib.recorded.upload_budget import Ledger, SessionUploads
from lib.recorded.uploads import UploadLimits, parse_upload

KEYS = 40_000


class CountingKey(str):
    """A key that counts how often it is compared for equality (a hash lookup rarely does; a list
    scan does once per element), and stops the test once the total passes `limit`."""

    compared = 0
    limit = 10 * KEYS

    def __eq__(self, other):
        CountingKey.compared += 1
        if CountingKey.compared > CountingKey.limit:
            raise AssertionError(f"over {CountingKey.limit:,} key comparisons for {KEYS:,} keys: not linear")
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def wide_row(n: int, key=str) -> dict:
    row = {
        "workload": "mlp",
        "device": "cpu",
        "median_s": 0.001,
        "iqr_s": 0.0001,
        "repeats": 3,
        "status": "ok",
        "message": "",
    }
    row.update((key(f"k{i}"), i) for i in range(n))
    return row


def test_a_40000_key_row_goes_through_validation_and_the_csv_in_linear_work():
    CountingKey.compared = 0
    row = wide_row(KEYS, CountingKey)
    validate_row(row, "rows[0]")
    text = rows_to_csv([row, row])
    assert CountingKey.compared <= CountingKey.limit
    header = text.split("\r\n", 1)[0].split(",")
    assert len(header) == KEYS + 7 and header[:7] == [
        "workload",
        "device",
        "median_s",
        "iqr_s",
        "repeats",
        "status",
        "message",
    ]
    assert len(csv_to_pack(text)["rows"]) == 2  # and the CSV reads back in


@pytest.mark.slow
def test_titles_of_many_sweeps_with_many_settings_are_found_in_one_pass():
    """comparison_titles once compared every setting of every sweep with every sweep of its kind."""
    CountingKey.compared = 0
    rows = []
    for i in range(400):  # 400 sweeps of one setting, each with 100 settings of its own: 40,000 keys
        for x in (1, 2):
            row = {
                "workload": "unknown_thing",
                "device": "cpu",
                "median_s": 0.001 * x,
                "iqr_s": 0.0,
                "repeats": 1,
                "status": "ok",
                "message": "",
                "swept": "size",
                "size": x,
                "machine": "box",
            }
            row.update((CountingKey(f"s{i}_{j}"), j) for j in range(100))
            rows.append(row)
    comparisons = compare_machines(rows)
    assert len(comparisons) == 400
    titles = comparison_titles(comparisons)
    assert CountingKey.compared <= CountingKey.limit
    assert len(set(titles)) == 400  # each names what sets it apart


def test_the_fastest_line_over_two_long_curves_is_linear():
    rows = [
        {
            "workload": "w",
            "device": d,
            "median_s": 0.001,
            "iqr_s": 0.0,
            "repeats": 1,
            "status": "ok",
            "message": "",
            "swept": "size",
            "size": x,
            "machine": m,
        }
        for m, d in (("a", "cpu"), ("b", "cpu"))
        for x in range(1, 20_001)
    ]
    [comp] = compare_machines(rows)
    assert fastest_line(comp).startswith("At size 1 the fastest of 2 curves")  # list scans made this 800 million steps


@pytest.mark.slow
def test_the_probes_581750_key_upload_is_refused_naming_the_row():
    keys = (
        f"{a}{b}{c}{d}"
        for a in "abcdefghijklmnopqrstuvwxyz"
        for b in "abcdefghijklmnopqrstuvwxyz0123456789"
        for c in "abcdefghijklmnopqrstuvwxyz0123456789"
        for d in "abcdefghijklmnopqrstuvwxyz0123456789"
    )
    row = wide_row(0)
    for _, key in zip(range(581_750), keys):
        row[key] = 0
    data = json.dumps(
        {"schema_version": 1, "machine": {"cpu_model": "x", "torch": "x", "date": "x"}, "rows": [row]},
        separators=(",", ":"),
    ).encode()
    assert 4.9e6 < len(data) <= 5 * 1024 * 1024
    with pytest.raises(PackError, match=r"^wide\.json: rows\[0\]: 581,757 fields, more than the 200"):
        parse_upload("wide.json", data, limits=UploadLimits())


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda p: p.update(schema_version=True), "schema_version: this app reads version 1, got True"),
        (lambda p: p["rows"][0].update(epoch_s=-1.0), r"rows\[0\]\.epoch_s: must be a number >= 0"),
        (lambda p: p["rows"][0].update(cold_s=-0.5), r"rows\[0\]\.cold_s: must be a number >= 0"),
        (lambda p: p["rows"][0].update(phase_compute_s=-1e-3), r"rows\[0\]\.phase_compute_s: must be a number >= 0"),
        (lambda p: p["rows"][0].update(steps_per_epoch=-4), r"rows\[0\]\.steps_per_epoch: must be a number >= 0"),
        (
            lambda p: p["rows"][0].update(repeats=10**400),
            r"rows\[0\]\.repeats: must be a whole number from 0 to 1e\+18",
        ),
    ],
)
def test_the_probes_accepted_values_are_refused_naming_the_field(change, words):
    pack = json.loads(H100_PACK.read_text())
    validate_pack(pack)
    change(pack)
    data = json.dumps(pack).encode()  # a 400-digit repeats is written as its 400 digits
    with pytest.raises(PackError, match=rf"^bad\.json: {words}"):
        parse_upload("bad.json", data, limits=UploadLimits())


def given(*files: tuple[str, str, bytes]) -> list:
    """Files as the page hands them over: (file id, name, a getter of its bytes)."""
    return [(file_id, name, (lambda data=data: data) if data is not None else unread) for file_id, name, data in files]


def unread() -> bytes:
    raise AssertionError("a file read before was read again")


def pack_bytes(rows: int, label: str, extra_keys: int = 0) -> bytes:
    pack = json.loads(H100_PACK.read_text())
    base = pack["rows"][0]
    pack["machine"]["label"] = label
    pack["rows"] = [
        {**base, "machine": label, "batch_size": i + 1, **{f"x{label}{j}": 1 for j in range(extra_keys)}}
        for i in range(rows)
    ]
    return dumps_pack(pack).encode()


@pytest.mark.parametrize(
    ("limits", "data", "words"),
    [
        (UploadLimits(file_rows=5), pack_bytes(6, "a"), "a.json: rows: 6 rows, more than the 5 one file may hold"),
        (UploadLimits(file_keys=60), pack_bytes(2, "a", 40), "a.json: rows: more than 60 different fields"),
        (UploadLimits(file_bytes=1000), pack_bytes(2, "a"), "a.json: 0.0 MB is larger than the 0 MB limit"),
    ],
)
def test_a_file_over_a_cap_of_its_own_is_refused(limits, data, words):
    if limits.file_bytes == 1000:
        words = f"a.json: {len(data) / 1e6:.1f} MB is larger than the 0 MB limit"
    with pytest.raises(PackError, match=f"^{words}"):
        parse_upload("a.json", data, limits=limits)


def test_a_row_naming_more_machines_than_a_file_may_is_refused():
    pack = json.loads(pack_bytes(70, "a"))
    for i, row in enumerate(pack["rows"]):
        row["machine"] = f"box {i}"
    with pytest.raises(PackError, match=r"rows\[64\]\.machine: more than 64 different machines"):
        parse_upload("a.json", json.dumps(pack).encode(), limits=UploadLimits())


def test_a_session_keeps_each_file_once_and_refuses_past_its_caps():
    ledger = Ledger()
    held = SessionUploads(ledger, UploadLimits(session_files=3, session_rows=25))
    files = [("1", "a.json", pack_bytes(10, "a")), ("2", "b.json", pack_bytes(10, "b"))]
    sources, dropped = held.read(given(*files))
    assert [s.used for s in sources] == [True, True] and dropped == []
    assert ledger.totals()[0] == 20 == held.held()[0]
    again, _ = held.read(given(*[(i, n, None) for i, n, _ in files]))
    assert again[0] is sources[0] and again[1] is sources[1]  # read once, not on every rerun
    sources, dropped = held.read(given(*files, ("3", "c.json", pack_bytes(10, "c"))))
    assert sources[2].error == (
        "c.json: not read: its 10 rows would bring your files past 25 rows, the most one "
        "visitor's uploads may hold; remove a file to add this one"
    )
    assert dropped == ["3"] and held.held()[0] == 20
    # a removed file gives its rows back, so the refused one fits (read anew: a new file id)
    sources, _ = held.read(given(files[1], ("4", "c.json", pack_bytes(10, "c"))))
    assert [s.used for s in sources] == [True, True] and ledger.totals()[0] == 20
    b, c = ("2", "b.json", None), ("4", "c.json", None)  # known by their ids: their bytes are not read again
    sources, dropped = held.read(
        given(b, c, ("7", "f.json", b"{}"), ("5", "d.json", pack_bytes(1, "d")), ("6", "e.json", pack_bytes(1, "e")))
    )
    assert [s.used for s in sources] == [True, True, False, True, False]
    assert sources[2].error == "f.json: schema_version: missing"  # a bad file takes no place
    assert sources[4].error == "e.json: not read: this page reads at most 3 files at a time; remove one to add another"
    assert dropped == ["7", "6"]  # refused files: the caller lets their bytes go
    # the widget then returns the others only; the refusals are still said until the files change
    sources, dropped = held.read(given(b, c, ("5", "d.json", None)))
    assert [s.name for s in sources] == ["b.json", "c.json", "d.json", "f.json", "e.json"] and dropped == []
    sources, _ = held.read(given(b, c))
    assert [s.name for s in sources] == ["b.json", "c.json"] and held.held()[0] == 20
    upload = Recording("uploaded: b.json", Fingerprint.from_json({}), (), {"machine": {}, "rows": []})
    held.view, held.recordings = ("key", object()), [upload]
    let_go = []
    held.also_release["files"] = lambda: let_go.append("Streamlit's copy of the files")
    held.release()
    assert ledger.totals() == (0, 0) and held.view is None and held.recordings == [] and held.held() == (0, 0)
    assert let_go == ["Streamlit's copy of the files"]


def test_sessions_together_stay_within_the_servers_cap():
    ledger = Ledger()
    limits = UploadLimits(server_rows=30)
    first, second = SessionUploads(ledger, limits), SessionUploads(ledger, limits)
    assert first.read(given(("1", "a.json", pack_bytes(20, "a"))))[0][0].used
    [refused], dropped = second.read(given(("1", "b.json", pack_bytes(20, "b"))))
    assert refused.error == (
        "b.json: not read: the server holds as many uploaded results as it can for all its "
        "visitors right now; try again in a few minutes"
    ) and dropped == ["1"]
    first.release()  # the first visitor's tab closed
    [used], _ = second.read(given(("2", "b.json", pack_bytes(20, "b"))))
    assert used.used and ledger.totals()[0] == 20


def test_a_session_caps_the_different_fields_across_its_files():
    held = SessionUploads(Ledger(), UploadLimits(session_keys=60))
    sources, _ = held.read(given(("1", "a.json", pack_bytes(2, "a", 15)), ("2", "b.json", pack_bytes(2, "b", 15))))
    assert sources[0].used
    assert sources[1].error.startswith("b.json: not read: with it your files would have more than 60 different fields")
