import json

import pytest

from lib.core.devices import machine_fingerprint
from lib.core.results import (
    PackError,
    build_pack,
    csv_to_pack,
    load_pack,
    loads_pack,
    merge_packs,
    pack_to_csv,
    save_pack,
    setting_keys,
    validate_pack,
)
from lib.core.rows import Status
from lib.core.sweep import measure_point
from lib.workloads import get_workload


@pytest.fixture(scope="module")
def real_points():
    mlp = get_workload("mlp")
    return [measure_point(mlp, {"batch_size": b, "hidden_width": 16}, "cpu", budget_s=0.05) for b in (4, 32)]


def test_a_real_pack_round_trips_through_json(tmp_path, real_points):
    pack = build_pack(real_points)
    path = save_pack(pack, tmp_path / "p.json")
    loaded = load_pack(path)
    assert loaded["rows"] == json.loads(json.dumps(pack["rows"]))
    assert loaded["machine"]["cpu_model"]
    assert loaded["rows"][0]["machine"] == pack["machine"]["label"]
    assert set(setting_keys(loaded["rows"][0])) >= {"batch_size", "hidden_width", "depth", "dataset_size"}
    assert loaded["rows"][0]["status"] == "ok" and loaded["rows"][0]["median_s"] > 0


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda p: p.pop("schema_version"), "schema_version"),
        (lambda p: p.update(schema_version=99), "schema_version"),
        (lambda p: p.pop("machine"), "machine"),
        (lambda p: p["machine"].pop("torch"), "machine.torch"),
        (lambda p: p.update(rows="nope"), "rows"),
        (lambda p: p["rows"][1].pop("median_s"), "rows[1].median_s"),
        (lambda p: p["rows"][0].update(median_s="fast"), "rows[0].median_s"),
        (lambda p: p["rows"][0].update(median_s=-1.0), "rows[0].median_s"),
        (lambda p: p["rows"][1].update(status="great"), "rows[1].status"),
        (lambda p: p["rows"][0].update(repeats=1.5), "rows[0].repeats"),
        (lambda p: p["rows"][0].update(phase_compute_s="x"), "rows[0].phase_compute_s"),
        (lambda p: p["rows"][0].update(batch_size=[1, 2]), "rows[0].batch_size"),
    ],
)
def test_a_bad_pack_is_rejected_naming_the_field(real_points, mutate, field):
    pack = json.loads(json.dumps(build_pack(real_points)))
    mutate(pack)
    with pytest.raises(PackError) as err:
        validate_pack(pack)
    assert str(err.value).startswith(field)


def test_non_json_is_rejected_plainly():
    with pytest.raises(PackError, match="not valid JSON"):
        loads_pack(b"{not json")
    with pytest.raises(PackError, match="expected a JSON object"):
        loads_pack("[1, 2]")


def test_failed_rows_may_have_no_time(real_points):
    point = real_points[0].refused(Status.OOM, "ran out")
    assert validate_pack(build_pack([point]))["rows"][0]["status"] == "oom"


def test_csv_round_trip_keeps_numbers_and_flags(real_points):
    pack = build_pack(real_points)
    again = csv_to_pack(pack_to_csv(pack))
    for before, after in zip(pack["rows"], again["rows"]):
        assert after["batch_size"] == before["batch_size"]
        assert after["data_resident"] is before["data_resident"]
        assert after["median_s"] == pytest.approx(before["median_s"])
    assert again["machine"]["label"] == pack["machine"]["label"]


def test_csv_with_a_missing_column_names_it(real_points):
    text = pack_to_csv(build_pack(real_points))
    header, *lines = text.splitlines()
    columns = header.split(",")
    keep = [i for i, c in enumerate(columns) if c != "median_s"]
    broken = "\n".join(",".join(line.split(",")[i] for i in keep) for line in [header])
    with pytest.raises(PackError, match="median_s"):
        csv_to_pack(broken + "\n")


def test_merging_packs_from_two_machines_labels_every_row(real_points):
    a = build_pack(real_points)
    other = {**machine_fingerprint(), "gpus": ["Imaginary GPU"], "label": "other box (2026-01-01)"}
    b = build_pack(real_points, machine=other)
    merged = merge_packs([a, b])
    assert len(merged["rows"]) == 4
    assert {r["machine"] for r in merged["rows"]} == {a["machine"]["label"], "other box (2026-01-01)"}
    assert len(merged["machines"]) == 2
    assert merge_packs([a])["machine"] == a["machine"]
    with pytest.raises(PackError):
        merge_packs([])


def test_a_kept_result_is_built_once_per_objects_and_again_for_new_ones():
    from lib.core.cache import kept

    built = []

    @kept(2)
    def table(rows: list, machine: str = "") -> dict:
        built.append(machine)
        return {"n": len(built)}

    rows = [{"a": 1}]
    first = table(rows)
    assert table(rows) is first and len(built) == 1
    equal_copy = [{"a": 1}]  # equal but not the same list: a new upload is built anew
    assert table(equal_copy) == {"n": 2}
    assert table(rows, "other machine") == {"n": 3}
    assert table(rows) == {"n": 4}  # two entries: the least recently used was dropped
