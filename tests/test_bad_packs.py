"""Bad packs and hostile cells, without Streamlit (issue 26, probe findings 4 and 7): validation
checks the type of every machine field and the range of every number, the readers that follow it
never raise on what it lets through, and every CSV the app writes keeps formulas inert."""

from __future__ import annotations

import copy
import csv
import io
import json

import pytest
from gallery_support import H100_PACK

from lib.core.results import PackError, csv_to_pack, rows_to_csv, spreadsheet_cell, validate_pack
from lib.lessons.gallery.view import parse_picks
from lib.lessons.your_results.compare import compare_machines, sweep_x
from lib.recorded.uploads import combine, machine_table, read_uploads


def h100() -> dict:
    return json.loads(H100_PACK.read_text())


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("gpus", 5, "machine.gpus: must be a list"),
        ("gpus", "H100", "machine.gpus: must be a list"),
        ("gpus", [1, 2], "machine.gpus[0]: a GPU name must be text"),
        ("gpus", ["x"] * 65, "machine.gpus: must be a list of at most 64"),
        ("cpu_model", 7, "machine.cpu_model: must be text"),
        ("label", {"a": 1}, "machine.label: must be text"),
        ("cpu_cores", "many", "machine.cpu_cores: must be a whole number"),
        ("cpu_cores", -1, "machine.cpu_cores: must be a whole number"),
        ("torch_threads", 10**400, "machine.torch_threads: must be a whole number"),
        ("host_memory_gb", float("inf"), "machine.host_memory_gb: must be a number"),
        ("something_new", [1], "machine.something_new: a machine field must be a plain value"),
        ("something_new", 10**400, "machine.something_new: a machine field must be a finite number"),
    ],
)
def test_every_machine_field_is_checked(field, value, words):
    pack = h100()
    pack["machine"][field] = value
    with pytest.raises(PackError, match=words.replace("[", r"\[").replace("]", r"\]")):
        validate_pack(pack)


@pytest.mark.parametrize(
    ("key", "value"),
    [("batch_size", 10**400), ("batch_size", -(10**19)), ("flops", 1e300), ("phase_transfer_s", 10**30)],
)
def test_numbers_out_of_range_are_refused_and_named(key, value):
    pack = h100()
    pack["rows"][0][key] = value
    with pytest.raises(PackError, match=rf"rows\[0\]\.{key}"):
        validate_pack(pack)


def test_a_pack_with_a_number_for_its_gpus_is_an_error_naming_the_field_not_a_crash():
    pack = h100()
    pack["machine"]["gpus"] = 5
    [source] = read_uploads([("five.json", json.dumps(pack).encode())])
    assert source.pack is None and "five.json: machine.gpus: must be a list" in source.error


def test_what_validation_lets_through_reads_without_raising():
    """The readers behind Your results take a pack as validation leaves it (no list of GPUs at all,
    a merged pack's machines), and a row made by hand with a huge swept value is left off the chart."""
    pack = h100()
    pack["machine"]["gpus"] = None
    del pack["machine"]["label"]
    [source] = read_uploads([("plain.json", json.dumps(pack).encode())])
    combined = combine([source])
    assert machine_table(combined.machines)[0].gpu == "none"
    row = copy.deepcopy(pack["rows"][0])
    row.update(swept="batch_size", batch_size=10**400)
    assert sweep_x(row) is None and compare_machines([row]) == []


@pytest.mark.parametrize("raw", ["²", "١٢", "1²", "#", "99999999999999999999"])
def test_gallery_picks_take_ascii_digits_only(raw):
    ids, stems, notes = parse_picks(raw)
    assert ids == [] and stems == [] and len(notes) == 1


def test_gallery_picks_still_read_entry_numbers():
    assert parse_picks("12,#3,shipped:h100_training") == ([12, 3], ["h100_training"], [])


FORMULAS = [
    '=HYPERLINK("https://evil.example","x")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "'=already quoted",
]


def test_csv_cells_that_would_run_as_formulas_start_with_a_quote_and_read_back_unchanged():
    pack = h100()
    rows = [dict(pack["rows"][i], message=text, note=text) for i, text in enumerate(FORMULAS)]
    rows[0]["batch_size"] = -5  # a negative number stays a number
    rows[1]["variant"] = "-5"  # and so does text that reads as one
    text = rows_to_csv(rows)
    cells = [cell for line in csv.reader(io.StringIO(text, newline="")) for cell in line]
    assert not [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r") or (c[:1] == "-" and not _number(c))]
    assert "-5" in cells
    back = csv_to_pack(text)["rows"]
    assert [r["message"] for r in back] == FORMULAS and [r["note"] for r in back] == FORMULAS
    assert back[0]["batch_size"] == -5 and back[1]["variant"] == "-5"


def test_a_formula_as_a_column_name_is_quoted_too():
    text = rows_to_csv([{"workload": "mlp", "=cmd": 1}])
    assert text.splitlines()[0].endswith(",'=cmd")


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_spreadsheet_cell_leaves_numbers_alone():
    assert spreadsheet_cell(-1.5) == -1.5 and spreadsheet_cell("-1e3") == "-1e3" and spreadsheet_cell("") == ""
    assert spreadsheet_cell("-inf") == "'-inf" and spreadsheet_cell("plain") == "plain"
