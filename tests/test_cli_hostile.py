"""Issue 40, items 6, 7, 8 and the CLI's half of 10: each reproduction of the probe, run as the real
`python -m lib` in a process of its own, ends with one line saying what is wrong (no traceback) and
loses no measured row. Inputs are tiny (hidden width 8, 64 samples, budgets of hundredths of a second)."""

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "GPUWIN_LOAD_CHECK": "0"}
SMALL = ["--set", "hidden_width=8", "--set", "dataset_size=64", "--budget", "0.02", "--no-phases"]
MACHINE = {"cpu_model": "x", "torch": "y", "date": "2026-11-28"}


def cli(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lib", *map(str, args)], cwd=cwd, env=ENV, capture_output=True, text=True, timeout=300
    )


def one_line_refusal(out: subprocess.CompletedProcess, *words: str) -> str:
    """Exit 2, stderr's last line says it (argparse puts its usage above), no traceback, nothing measured."""
    err = out.stderr.strip()
    assert out.returncode == 2, (out.returncode, err)
    assert "Traceback" not in err and "measuring" not in err and out.stdout == "", err
    last = err.splitlines()[-1]
    for w in words:
        assert w in last, (w, last)
    return last


def row(batch, **extra) -> dict:
    return {
        "workload": "mlp",
        "device": "cpu",
        "median_s": 1e-3 * batch,
        "iqr_s": 0.0,
        "repeats": 3,
        "status": "ok",
        "message": "",
        "batch_size": batch,
        "swept": "batch_size",
        **extra,
    }


def pack_file(path: Path, rows: list[dict]) -> Path:
    path.write_text(json.dumps({"schema_version": 1, "machine": MACHINE, "rows": rows}))
    return path


# -- item 6: crossover on hostile packs ----------------------------------------------------------------
def test_crossover_on_100000_nested_brackets_says_so_in_one_line(tmp_path):
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    one_line_refusal(cli("crossover", nested), "nested.json", "nested too deeply")


def test_crossover_on_rows_swept_over_a_setting_they_lack_names_the_field(tmp_path):
    bad = pack_file(tmp_path / "nope.json", [row(1), row(2, swept="nope")])
    one_line_refusal(cli("crossover", bad), "nope.json: rows[1].swept", "'nope'")


def test_crossover_on_a_swept_value_that_is_not_a_number_names_the_field(tmp_path):
    bad = pack_file(tmp_path / "abc.json", [row(1), row(2), {**row(4), "batch_size": "abc"}])
    one_line_refusal(cli("crossover", bad), "abc.json: rows[2].batch_size", "must be a number", "'abc'")


def _ctrl_c_as_at_a_terminal() -> None:
    """SIGINT back to its default in the command, as a terminal's shell starts it: a suite started in the
    background by a shell without job control (`cmd &` in a script) can hand its processes SIGINT ignored (seen:
    a child of an xdist worker of such a run read SIG_IGN), Python keeps what it inherits ignored, and the Ctrl-C
    the test sends would never arrive (a sweep that runs to its end and exits 0, as one run here failed)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow  # two measured points and a start of torch: about 6 s
def test_ctrl_c_during_a_sweep_keeps_the_measured_rows_and_says_so_in_one_line(tmp_path):
    """SIGINT after the first row (the progress line of the second point), without --save-every. Eight points
    of about 0.85 s each: on a box loaded by other test processes this reader once saw the second point's line
    only after a four-point sweep had finished (exit 0), so six points are left to be cut."""
    out = tmp_path / "p.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lib",
            "sweep",
            "mlp",
            "--over",
            "batch_size=1,2,4,8,16,32,64,128",
            *SMALL,
            "--budget",
            "1",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ctrl_c_as_at_a_terminal,
    )
    try:
        for line in proc.stderr:
            if "(2/8)" in line:  # the first point's row is complete
                time.sleep(0.2)
                proc.send_signal(signal.SIGINT)
                break
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert stderr.startswith("stopped: ") and str(out) in stderr and "--resume" in stderr
    rows = json.loads(out.read_text())["rows"]
    assert rows[0]["batch_size"] == 1 and rows[0]["status"] == "ok" and rows[0]["median_s"] > 0
    assert not out.with_name("p.json.partial").exists()


# -- item 7: an output that cannot be written, found before the first measurement ------------------------
UNWRITABLE = [("/proc/p.json", "cannot write in the folder /proc"), ("/sys/p.json", "cannot write in the folder /sys")]


@pytest.mark.parametrize("out, words", UNWRITABLE, ids=["proc", "sys"])
def test_an_output_under_proc_or_sys_is_refused_before_measuring(out, words):
    if not Path(out).parent.is_dir():
        pytest.skip(f"no {Path(out).parent} here")
    one_line_refusal(cli("sweep", "mlp", "--over", "batch_size=1,2", *SMALL, "--out", out), "--out:", words)


def test_a_255_character_name_is_refused_before_measuring_as_partial_would_be_too_long(tmp_path):
    out = tmp_path / ("p" * 250 + ".json")  # 255 characters; with '.partial' 263
    one_line_refusal(
        cli("sweep", "mlp", "--over", "batch_size=1,2", *SMALL, "--out", out), "too long", "at most 247 characters"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_folder_named_like_the_partial_file_is_refused_before_measuring(tmp_path):
    (tmp_path / "p.json.partial").mkdir()
    one_line_refusal(
        cli("sweep", "mlp", "--over", "batch_size=1,2", *SMALL, "--out", tmp_path / "p.json"),
        "p.json.partial is in the way",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json.partial"]


def test_a_nan_among_the_swept_values_is_refused_before_measuring(tmp_path):
    one_line_refusal(
        cli("sweep", "mlp", "--over", "lr=0.01,nan", *SMALL, "--out", tmp_path / "p.json"),
        "lr: expected a finite number, got 'nan'",
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_resuming_into_a_pack_of_another_sweep_is_refused_and_the_pack_is_kept(tmp_path):
    earlier = pack_file(tmp_path / "p.json", [{**row(1), "hidden_width": 8, "dataset_size": 64}])
    before = earlier.read_bytes()
    last = one_line_refusal(
        cli(
            "sweep",
            "mlp",
            "--over",
            "hidden_width=8,16",
            "--set",
            "dataset_size=64",
            "--budget",
            "0.02",
            "--out",
            earlier,
            "--resume",
        ),
        "p.json holds rows[0]",
    )
    assert "not a point of this sweep" in last
    assert earlier.read_bytes() == before


@pytest.mark.slow  # two measured points and a start of torch: about 6 s
def test_resuming_the_same_sweep_keeps_its_rows_as_they_are(tmp_path):
    out = tmp_path / "p.json"
    assert cli("sweep", "mlp", "--over", "batch_size=1,2", *SMALL, "--quiet", "--out", out).returncode == 0
    pack = json.loads(out.read_text())
    pack["rows"][0]["median_s"] = 123.0  # a mark no measurement gives
    out.write_text(json.dumps(pack))
    done = cli("sweep", "mlp", "--over", "batch_size=1,2,4", *SMALL, "--quiet", "--out", out, "--resume")
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text())["rows"]
    assert [r["batch_size"] for r in rows] == [1, 2, 4] and rows[0]["median_s"] == 123.0


def test_a_timeline_into_proc_is_refused_before_profiling():
    if not Path("/proc").is_dir():
        pytest.skip("no /proc here")
    one_line_refusal(
        cli("timeline", "mlp", "--set", "dataset_size=64", "--out", "/proc/t.json"), "cannot write in the folder /proc"
    )


# -- item 8: bounds on threads and on what a pack inflates to ------------------------------------------
def test_more_threads_than_cores_are_refused():
    last = one_line_refusal(cli("run", "mlp", "--threads", "100000"), "--threads: expected at most")
    assert str(len(os.sched_getaffinity(0))) in last


# The CLI run as `python -m lib` is, then its peak resident memory (VmHWM: this process's own, from its
# exec on; a forked child's ru_maxrss would count the test process's memory at the fork)
PEAK = (
    "import runpy, sys\n"
    "sys.argv = ['lib', *sys.argv[1:]]\n"
    "try:\n    runpy.run_module('lib', run_name='__main__', alter_sys=True)\n"
    "finally:\n    print('peak_kb', open('/proc/self/status').read().split('VmHWM:')[1].split()[0], file=sys.stderr)\n"
)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc")
def test_a_gzip_bomb_of_empty_rows_is_refused_while_it_inflates(tmp_path):
    """58 kB of gzip inflating to 60 MB of `{}` rows: refused with a bounded peak (1.5 GB before)."""
    bomb = tmp_path / "bomb.json.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as f:
        f.write(b'{"schema_version": 1, "machine": {"cpu_model": "x", "torch": "y", "date": "z"}, "rows": [{}')
        for _ in range(100):
            f.write(b",{}" * 200_000)
        f.write(b"]}")
    assert bomb.stat().st_size < 100_000
    for argv in (["crossover", bomb], ["merge", tmp_path / "m.json", bomb]):
        out = subprocess.run(
            [sys.executable, "-c", PEAK, *map(str, argv)],
            cwd=ROOT,
            env=ENV,
            capture_output=True,
            text=True,
            timeout=120,
        )
        said, peak = out.stderr.strip().splitlines()
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
        assert said == "error: bomb.json.gz: expands to more than 2,000,000 values, more than a pack may hold; not read"
        assert int(peak.split()[1]) < 200_000, f"{argv[0]} peaked at {int(peak.split()[1]) / 1e3:.0f} MB"
    assert not (tmp_path / "m.json").exists()


# -- item 10 (the CLI's half): what would be measured twice or silently ignored -------------------------
def test_a_value_swept_twice_is_refused():
    one_line_refusal(cli("sweep", "mlp", "--over", "batch_size=1,1", *SMALL), "--over batch_size: 1 is given twice")
    one_line_refusal(cli("sweep", "mlp", "--over", "batch_size=2,2.0", *SMALL), "2.0 is given twice (as 2)")


@pytest.mark.parametrize(
    "args",
    [
        ("run", "mlp", "--set", "batch_size=lots"),
        ("sweep", "mlp", "--over", "batch_size=1,1"),
        ("sweep", "mlp", "--over", "batch_size=1,2", "--set", "batch_size=4"),
        ("timeline", "mlp", "--set", "batch_size=0"),
    ],
    ids=["run", "sweep-twice", "sweep-set-and-over", "timeline"],
)
def test_a_setting_typo_is_refused_before_torch_loads(args):
    """The refusal comes at once: torch's import (seconds) waits until the settings are known to be good."""
    probe = "import sys; from lib.__main__ import main; code = main(sys.argv[1:]); print(code, 'torch' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", probe, *args], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.split() == ["2", "False"], (out.stdout, out.stderr)


def test_a_set_beside_an_over_of_the_same_setting_is_refused():
    one_line_refusal(
        cli("sweep", "mlp", "--over", "batch_size=1,2", "--set", "batch_size=4", *SMALL),
        "--set batch_size=4 and --over batch_size",
        "drop the --set",
    )
