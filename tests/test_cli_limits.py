"""The command line refuses what no run can use, before measuring, with exit 2 and a message
(issue 26, probe finding 9). Driven through lib.__main__.main([...]) in this process: argparse's
own refusals end in SystemExit(2) with `python -m lib ...: error: ...` on stderr."""

import gzip
import json
import os

import pytest

import lib.core.sweep
from lib.__main__ import main
from lib.core.results import SCHEMA_VERSION, PackError, build_pack, load_pack, save_pack
from lib.workloads.ddp.efficiency import merge_runs

FAST = ["--set", "hidden_width=8", "--set", "dataset_size=64", "--budget", "0.01"]


def exit_and_stderr(argv, capsys) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's refusals
        code = stop.code
    return code, capsys.readouterr().err


@pytest.fixture
def nothing_measured(monkeypatch):
    """Every way to measure a point fails the test: the refusals must come first."""

    def measured(*args, **kwargs):
        raise AssertionError("measured before the input was checked")

    monkeypatch.setattr(lib.core.sweep, "measure_point", measured)
    monkeypatch.setattr(lib.core.sweep, "run_points", measured)


REFUSED = [
    (["sweep", "mlp", "--over", "batch_size=1,2", "--max-gflop", "cpu=abc"], "expected a number"),
    (["sweep", "mlp", "--over", "batch_size=1,2", "--max-gflop", "cpu=-1"], "above 0"),
    (["sweep", "mlp", "--over", "batch_size=1,2", "--max-gflop", "tpu=3"], "cpu=G or cuda=G"),
    (["run", "mlp", "--memory-cap-gb", "-1"], "--memory-cap-gb: expected a number above 0"),
    (["run", "mlp", "--memory-cap-gb", "nan"], "--memory-cap-gb: expected a number above 0"),
    (["run", "mlp", "--threads", "0"], "--threads: expected a whole number of at least 1"),
    (["run", "mlp", "--threads", "-3"], "--threads: expected a whole number of at least 1"),
    (["run", "mlp", "--budget", "-1"], "--budget: expected a number above 0"),
    (["run", "mlp", "--budget", "nan"], "--budget: expected a number above 0"),
    (["run", "mlp", "--budget", "inf"], "--budget: expected a number above 0"),
    (["sweep", "mlp", "--over", "batch_size=1", "--total-budget", "-5"], "--total-budget"),
    (["sweep", "mlp", "--over", "batch_size="], "batch_size has no values to sweep"),
    (["sweep", "mlp", "--over", "batch_size=,,"], "batch_size has no values to sweep"),
    (["sweep", "mlp", "--over", "batch_size=1,2", "--over", "batch_size=4,8"], "--over batch_size is given twice"),
    (["run", "mlp", "--set", "batch_size=1", "--set", "batch_size=2"], "--set batch_size is given twice"),
    (["run", "mlp", "--set", "batch_size"], "expected KEY=VALUE"),
    (["timeline", "mlp", "--steps", "0"], "--steps: expected a whole number of at least 1"),
]


@pytest.mark.parametrize("argv, words", REFUSED, ids=[" ".join(a[2:]) for a, _ in REFUSED])
def test_bad_options_end_with_exit_2_and_a_message_before_measuring(argv, words, capsys, nothing_measured):
    code, err = exit_and_stderr(argv, capsys)
    assert code == 2, err
    assert words in err and "Traceback" not in err


def test_an_unknown_set_key_in_a_sweep_is_exit_2_like_run(capsys, nothing_measured):
    for argv in (["sweep", "mlp", "--over", "batch_size=1,2", "--set", "nope=1"], ["run", "mlp", "--set", "nope=1"]):
        code, err = exit_and_stderr(argv, capsys)
        assert code == 2 and "mlp has no setting 'nope'" in err, (argv, err)
    code, err = exit_and_stderr(["sweep", "mlp", "--over", "batch_size=1", "--set", "hidden_width=lots"], capsys)
    assert code == 2 and "hidden_width" in err


def test_an_output_that_cannot_be_written_is_refused_before_measuring(tmp_path, capsys, nothing_measured):
    folder = tmp_path / "already"
    folder.mkdir()
    for out, words in [
        (folder, "is a folder"),
        ("/", "is a folder"),
        (tmp_path / "missing" / "dir" / "x.json", "does not exist"),
    ]:
        for argv in (
            ["run", "mlp", *FAST, "--out", str(out)],
            ["sweep", "mlp", "--over", "batch_size=1,2", *FAST, "--out", str(out)],
            ["merge", str(out), str(tmp_path / "in.json")],
        ):
            code, err = exit_and_stderr(argv, capsys)
            assert code == 2 and words in err and "Traceback" not in err, (argv, err)
    assert list(tmp_path.iterdir()) == [folder] and list(folder.iterdir()) == []  # no stray .partial


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_folder_without_write_permission_is_refused_before_measuring(tmp_path, capsys, nothing_measured):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    code, err = exit_and_stderr(["run", "mlp", *FAST, "--out", str(locked / "p.json")], capsys)
    assert code == 2 and "cannot write in the folder" in err


def test_a_failed_save_leaves_no_partial_file(tmp_path):
    folder = tmp_path / "taken"
    folder.mkdir()
    with pytest.raises(OSError):
        save_pack(build_pack([], machine={"cpu_model": "x", "torch": "y", "date": "z"}), folder)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_crossover_of_a_folder_says_so(tmp_path, capsys):
    code, err = exit_and_stderr(["crossover", str(tmp_path)], capsys)
    assert code == 2 and err.startswith("error:") and "Is a directory" in err and str(tmp_path) in err


def test_a_gzip_bomb_is_refused_after_reading_at_most_the_cap(tmp_path, capsys):
    bomb = tmp_path / "bomb.json.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as f:
        f.write(b'{"schema_version": 1, "rows": [' + b" " * 1_000_000 + b"]}")  # valid JSON, 1 MB of spaces
    assert bomb.stat().st_size < 10_000
    with pytest.raises(PackError, match=r"bomb.json.gz: expands to more than 0 MB"):
        load_pack(bomb, max_bytes=100_000)
    code, err = exit_and_stderr(["crossover", str(bomb)], capsys)  # the real cap: read, found invalid
    assert code == 2 and "bomb.json.gz" in err and "machine" in err
    with pytest.raises(PackError, match=r"big.json: .* more than a pack may hold"):
        (tmp_path / "big.json").write_bytes(b" " * 200_001)
        load_pack(tmp_path / "big.json", max_bytes=200_000)


MACHINE = {"cpu_model": "Xeon", "torch": "2.11", "cuda": "13.0"}
H200 = {**MACHINE, "gpus": ["NVIDIA H200"], "date": "2026-11-21T05:00:00", "label": "NVIDIA H200 (2026-11-21)"}
H100 = {**MACHINE, "gpus": ["NVIDIA H100"], "date": "2026-11-23T10:00:00", "label": "NVIDIA H100 (2026-11-23)"}


def row(batch, median_s, **extra):
    return {
        "workload": "mlp",
        "batch_size": batch,
        "device": "cuda",
        "median_s": median_s,
        "iqr_s": 0.0,
        "repeats": 5,
        "status": "ok",
        "message": "",
        **extra,
    }


def test_merging_packs_of_two_machines_keeps_each_rows_machine_and_date(tmp_path, capsys):
    h200 = tmp_path / "h200.json"
    h100 = tmp_path / "h100.json"
    h200.write_text(json.dumps({"schema_version": SCHEMA_VERSION, "machine": H200, "rows": [row(1, 0.1)]}))
    h100.write_text(json.dumps({"schema_version": SCHEMA_VERSION, "machine": H100, "rows": [row(1, 0.2)]}))
    out = tmp_path / "both.json"
    assert main(["merge", str(out), str(h200), str(h100)]) == 0
    merged = load_pack(out)
    assert merged["machines"] == [H200, H100]  # every fingerprint, its date included
    assert [r["machine"] for r in merged["rows"]] == [H200["label"], H100["label"]]
    assert "NVIDIA H100" in merged["machine"]["label"] and merged["machine"]["date"] == H100["date"]
    # one machine's runs on two days stay one machine, as before
    same = merge_runs(
        [
            {"schema_version": SCHEMA_VERSION, "machine": H200, "rows": [row(1, 0.1)]},
            {"schema_version": SCHEMA_VERSION, "machine": {**H200, "label": "later"}, "rows": [row(2, 0.1)]},
        ]
    )
    assert same["machine"] == H200 and "machines" not in same
