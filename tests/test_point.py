"""The typed Point: every shipped row survives the trip to a Point and back, and a Point says what a row did."""

import pickle
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from lib.core import results
from lib.core.point import COUNT_FIELDS, NOTE_FIELDS, Frozen, OtherRecording, Point, rows_of
from lib.core.rows import Origin, Status, is_ok

RECORDED = Path(__file__).resolve().parent.parent / "lib" / "recorded"
PACKS = sorted(
    p for pattern in ("**/*.json", "**/*.json.gz") for p in RECORDED.glob(pattern) if "timelines" not in p.parts
)  # timelines/ hold traces of steps, not rows


def test_the_round_trip_covers_the_shipped_packs():
    assert len(PACKS) > 70 and any(p.parent.name == "leases" for p in PACKS)


def test_the_point_knows_every_field_a_pack_reserves():
    assert set(COUNT_FIELDS) | {"cold_s", "epoch_s"} == set(results.OPTIONAL_NUMBER_FIELDS)
    assert set(NOTE_FIELDS) | {"machine", "origin", "swept"} == set(results.OPTIONAL_TEXT_FIELDS)


@pytest.mark.parametrize("path", PACKS, ids=lambda p: p.name)
def test_every_shipped_row_comes_back_whole_from_a_point(path):
    rows = results.load_pack(path)["rows"]  # h200_seeds_curves.json holds none: its curves are elsewhere
    for i, row in enumerate(rows):
        point = Point.from_row(row)
        assert point.to_row() == row, f"{path.name} rows[{i}]"
        assert dict(point.settings) == {k: row[k] for k in results.setting_keys(row)}
        assert point.ok == is_ok(row)


def test_a_point_reads_its_row_into_types():
    row = {
        "workload": "mlp",
        "batch_size": 64,
        "device": "cuda:0",
        "median_s": 1e-3,
        "iqr_s": 1e-5,
        "repeats": 40,
        "status": "ok",
        "message": "",
        "origin": "live",
        "machine": "NVIDIA H200 (2026-11-21)",
        "flops": 2e9,
        "kernels": 120.0,
        "phase_transfer_s": 2e-4,
        "note": "warm",
        "swept": "batch_size",
        "epoch_s": 0.5,
    }
    point = Point.from_row(row)
    assert point.status is Status.OK and point.origin is Origin.LIVE and point.origin_text is None
    assert point.settings == {"batch_size": 64} and point.phases == {"transfer": 2e-4}
    assert point.counts.flops == 2e9 and point.counts.kernels == 120.0 and point.notes.note == "warm"
    assert (
        point.machine == "NVIDIA H200 (2026-11-21)"
        and point.day == "2026-11-21"
        and point.swept == "batch_size"
        and point.epoch_s == 0.5
    )
    assert point.to_row() == row and list(point.to_row())[:3] == ["workload", "batch_size", "device"]


def test_an_origin_that_names_no_origin_is_kept_as_text():
    row = {
        "workload": "mlp",
        "device": "cpu",
        "median_s": None,
        "iqr_s": None,
        "repeats": 0,
        "status": "error",
        "message": "bad",
        "origin": "scripts/seed_experiments.py",
    }
    point = Point.from_row(row)
    assert point.origin is None and point.origin_text == "scripts/seed_experiments.py" and not point.ok
    assert point.machine is None and point.day is None
    assert point.to_row() == row


def test_a_point_is_frozen_hashable_and_travels_through_a_pipe():
    point = Point.new("mlp", {"batch_size": 8}, "cpu").with_counts(flops=1.0).with_notes(note="n")
    with pytest.raises(FrozenInstanceError):
        point.median_s = 1.0
    with pytest.raises(TypeError):
        point.settings["batch_size"] = 9
    assert pickle.loads(pickle.dumps(point)) == point and hash(point) == hash(pickle.loads(pickle.dumps(point)))
    assert isinstance(point.settings, Frozen)


def test_refused_clears_the_time_and_says_why():
    point = Point.new("mlp", {"batch_size": 8}, "cpu")
    measured = point.reported({"median_s": 1e-3, "iqr_s": 1e-4, "repeats": 5})
    assert measured.ok
    skipped = measured.refused(Status.SKIPPED, "over the cap")
    assert (skipped.median_s, skipped.iqr_s, skipped.repeats, skipped.status, skipped.message) == (
        None,
        None,
        0,
        Status.SKIPPED,
        "over the cap",
    )
    assert rows_of([skipped]) == [skipped.to_row()]


def test_a_merged_rows_day_and_other_recordings_are_the_points_own_not_settings():
    row = {
        "workload": "mlp",
        "batch_size": 64,
        "device": "cuda:0",
        "median_s": 1e-3,
        "iqr_s": 1e-5,
        "repeats": 40,
        "status": "ok",
        "message": "",
        "machine": "NVIDIA H200 (2026-11-23)",
        "recorded_on": "2026-11-23",
        "other_recordings": (("NVIDIA H200 (2026-11-21)", 1.2e-3),),
    }
    point = Point.from_row(row)
    assert point.settings == {"batch_size": 64} and point.recorded_on == "2026-11-23"
    assert point.other_recordings == (OtherRecording("NVIDIA H200 (2026-11-21)", 1.2e-3),)
    assert point.to_row() == row and list(point.to_row())[-2:] == ["recorded_on", "other_recordings"]
    assert pickle.loads(pickle.dumps(point)) == point
