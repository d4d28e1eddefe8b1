import json
from pathlib import Path

import pytest

from lib.core.devices import machine_fingerprint
from lib.core.results import PackError, build_pack, dumps_pack, merge_packs, pack_to_csv
from lib.core.sweep import run_sweep
from lib.lessons.your_results.compare import compare_machines
from lib.recorded.uploads import parse_upload
from lib.workloads import get_workload


@pytest.fixture(scope="module")
def sweep_points():
    return run_sweep(
        get_workload("mlp"),
        "batch_size",
        [2, 8, 32],
        {"hidden_width": 16},
        ["cpu"],
        point_budget_s=0.05,
        with_phases=False,
    )


def test_json_and_csv_uploads_parse(sweep_points):
    pack = build_pack(sweep_points)
    from_json = parse_upload("a.json", dumps_pack(pack).encode())
    from_csv = parse_upload("a.csv", pack_to_csv(pack).encode())
    assert len(from_json.rows) == len(from_csv.rows) == 3


@pytest.mark.parametrize(
    "name, data, words",
    [
        ("big.json", b"{" + b" " * (6 * 1024 * 1024) + b"}", "larger than the 5 MB limit"),
        ("empty.json", b"   ", "empty"),
        ("broken.json", b'{"schema_version": 1, "rows": [', "not valid JSON"),
        ("rows.csv", b"workload,device,median_s\nmlp,cpu,0.1\n", "CSV column iqr_s: missing"),
        ("pickle.pkl", b"\x80\x04\x95", "expected a .json result pack"),
        ("binary.csv", b"\x80\x04\x95", "not UTF-8 text"),
    ],
)
def test_bad_uploads_name_the_problem(name, data, words):
    with pytest.raises(PackError) as err:
        parse_upload(name, data)
    assert words in str(err.value) and str(err.value).startswith(name)


@pytest.mark.slow
def test_two_machines_compare_on_one_chart(sweep_points):
    here = build_pack(sweep_points)
    other_machine = {**machine_fingerprint(), "label": "second box (2026-11-20)"}
    # The second machine's rows are this machine's rows re-measured, not copied numbers.
    again = run_sweep(
        get_workload("mlp"),
        "batch_size",
        [2, 8, 32],
        {"hidden_width": 16},
        ["cpu"],
        point_budget_s=0.05,
        with_phases=False,
    )
    there = build_pack(again, machine=other_machine)
    merged = merge_packs([here, there])
    comparisons = compare_machines(merged["rows"])
    assert len(comparisons) == 1
    comp = comparisons[0]
    assert comp.workload == "mlp" and comp.setting == "batch_size"
    assert {c.machine for c in comp.curves} == {here["machine"]["label"], "second box (2026-11-20)"}
    assert all(c.xs == [2.0, 8.0, 32.0] for c in comp.curves)
    assert comp.crossovers == {}  # CPU-only machines: no crossover to report
    assert json.loads(dumps_pack(merged))["machines"][1]["label"] == "second box (2026-11-20)"


def test_a_pack_writes_back_as_it_was_read():
    """Pack.to_json gives the file's object again: a merged download, its machines and any other field."""
    from lib.core.results import load_pack
    from lib.recorded.pack import Pack

    folder = Path(__file__).resolve().parents[1] / "lib" / "recorded"
    merged = merge_packs(
        [load_pack(folder / "h200_training_gpu.json.gz"), load_pack(folder / "h100_training_gpu.json.gz")]
    )
    assert len(merged["machines"]) == 2
    assert dumps_pack(Pack.from_json(merged).to_json()) == dumps_pack(merged)
    with_curves = {**merged, "curves": [{"preset": "iris"}]}
    assert Pack.from_json(with_curves).to_json() == with_curves
