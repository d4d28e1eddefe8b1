"""A cached revisit is a lookup (issue 25): what a page run reads from the shipped packs is read once
per process, and the server does no full garbage collection after every run; a server woken from
sleep loads Home's answer from the disk. Counted, not timed (the seconds are benchmarks/host_demo.py's,
in docs/host_demo.txt)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from training_fixture import write_packs

import lib.recorded.recording as recording
import lib.recorded.sources as sources
from lib.core.cache import on_disk
from lib.lessons.training import step_tables
from lib.lessons.training import view as T
from lib.recorded import load_recordings
from lib.recorded.sources import machine_text
from tests.app_support import ROOT


@pytest.fixture(scope="module")
def gpu_table(tmp_path_factory):
    recordings, problems = load_recordings(write_packs(tmp_path_factory.mktemp("revisit_packs")))
    assert not problems
    recording = next(r for r in recordings if r.machine.gpus)
    return step_tables.tables(recording, machine_text(recording.machine))["cuda"]


def test_streamlit_reads_no_gc_after_every_run_from_the_repo_config():
    # a full gc.collect() after each run walks every object the server holds (0.05-0.15 s on one CPU);
    # read as Streamlit reads it, from the repo's .streamlit/config.toml, so a misspelt key fails here
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from streamlit import config; config.get_config_options(force_reparse=True); "
            "print(config.get_option('runner.postScriptGC'))",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip().splitlines()[-1] == "False", done.stderr[-2000:]


def test_a_curve_is_read_once_per_view_and_table_and_no_caller_changes_anothers(gpu_table, monkeypatch):
    calls = []
    real_point = T.point
    monkeypatch.setattr(T, "point", lambda *a, **k: (calls.append(a[0]), real_point(*a, **k))[1])
    view = T.View(hidden_width=96)  # a view no other test of this process asked for
    first = T.curve(view, gpu_table, "cuda:0", "m")
    read = len(calls)
    assert read == len(view.axis.steps) and first
    with pytest.raises(dataclasses.FrozenInstanceError):  # the points are shared: none can be changed
        first[0].epoch_s = -1.0
    first.pop(0)  # a caller changing its list changes nobody else's
    again = T.curve(view, gpu_table, "cuda:0", "m")
    assert len(calls) == read  # looked up, not read again
    assert len(again) == len(first) + 1 and again == [
        real_point(view.at(p.settings["batch_size"]), gpu_table, "cuda:0", "m") for p in again
    ]
    T.curve(T.View(hidden_width=96, mode="fused"), gpu_table, "cuda:0", "m")
    assert len(calls) == 2 * read  # another view is read anew


def test_a_tables_span_is_what_covers_read_from_every_step(gpu_table):
    keys = [k for steps in gpu_table.steps.values() for k in steps]
    assert gpu_table.span == tuple(frozenset(axis) for axis in zip(*keys))
    empty = step_tables.StepTable([], "cuda", "m")
    assert empty.span is None and not empty.covers(("eager",), 64, 64, 3)


def test_whether_a_pack_holds_gpu_rows_is_read_once_per_pack(monkeypatch, tmp_path):
    recordings = load_recordings(write_packs(tmp_path))[0]  # recordings of their own: none has been asked before
    seen = []
    monkeypatch.setattr(recording, "is_cuda", lambda device: (seen.append(device), device.startswith("cuda"))[1])
    first = sources.recorded_sources(recordings)
    read = len(seen)
    assert read and sources.recorded_sources(recordings) == first and len(seen) == read


HOME_IN_A_FRESH_PROCESS = """
import json, os, sys
sys.path.insert(0, os.getcwd())
os.environ["GPUWIN_NO_WARM_UP"] = "1"
import lib.lessons.home.screen as home
if sys.argv[1] == "loaded":  # the answer must come from the disk: building it fails here
    home.first_answer = lambda *a, **k: (_ for _ in ()).throw(AssertionError("Home's answer built again"))
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("streamlit_app.py", default_timeout=120).run()
assert not at.exception, [e.value for e in at.exception]
charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
print(json.dumps({"spec": charts[0].proto.spec, "text": [m.value for m in at.markdown]}))
"""


def home_in_a_fresh_process(cache: Path, how: str) -> dict:
    env = {**os.environ, "GPUWIN_CACHE_DIR": str(cache)}
    env.pop("GPUWIN_RECORDED_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", HOME_IN_A_FRESH_PROCESS, how],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_woken_server_draws_homes_answer_from_the_disk_and_draws_the_same(tmp_path):
    built = home_in_a_fresh_process(tmp_path, "built")
    assert list(tmp_path.glob("home-answer-*.pkl"))
    assert home_in_a_fresh_process(tmp_path, "loaded") == built


def test_a_value_keyed_by_a_folder_of_code_is_built_again_when_any_file_there_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_CACHE_DIR", str(tmp_path / "cache"))
    code = tmp_path / "code"
    (code / "deep").mkdir(parents=True)
    (code / "deep" / "words.py").write_text("SAY = 'one'\n")
    builds = []

    def fresh(value: str):  # what a cold process starts with: nothing in memory
        return on_disk("t", code=[code])(lambda n: builds.append(n) or value)

    assert fresh("one")(1) == "one"
    assert fresh("two")(1) == "one"  # loaded
    (code / "deep" / "words.py").write_text("SAY = 'two'\n")
    assert fresh("two")(1) == "two"
    assert len(builds) == 2
