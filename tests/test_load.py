"""A recording keeps how busy its machine was (lib.core.load), and a busy one is never drawn as recorded
(issue 37: 'Recordings prove their machine was quiet')."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import time

import pytest

from lib.core import load
from lib.core.load import Load, LoadFields, LoadWatch, pack_quiet
from lib.core.results import PackError, build_pack, load_pack, merge_packs, save_pack, validate_machine
from lib.workloads.ddp.efficiency import merge_runs

MACHINE = {
    "cpu_model": "AMD EPYC",
    "cpu_cores": 2,
    "torch": "2.11.0",
    "date": "2026-11-28T00:00:00+00:00",
    "label": "AMD EPYC (2026-11-28)",
}

# one measured row of a pack, for tests of what a pack's machine keeps (tests/test_host.py too)
ROW = {
    "workload": "matmul",
    "size": 64,
    "device": "cpu",
    "median_s": 1e-3,
    "iqr_s": 0.0,
    "repeats": 3,
    "status": "ok",
    "message": "",
}


def tiny_sweep(out, batches: str) -> int:
    """`python -m lib sweep` of a one-layer, 8-wide MLP over these batch sizes, written to `out`: its exit code."""
    from lib.__main__ import main

    args = ["--set", "hidden_width=8", "--set", "depth=1", "--budget", "0.02", "--no-phases", "--quiet"]
    return main(["sweep", "mlp", "--over", f"batch_size={batches}", *args, "--out", str(out)])


def _load(other=0.02, before=3.0e-3, after=3.1e-3, best=2.9e-3) -> Load:
    return Load(other, 0.5, 0.6, before, after, best, 100.0, 2)


def test_a_quiet_recording_says_so_and_a_busy_one_says_why():
    assert _load().quiet and _load().reasons() == []
    busy = _load(other=0.47)
    assert not busy.quiet and busy.reasons() == [
        "other processes used 47% of the 2 cores while it recorded (at most 10% is quiet)"
    ]
    slow_host = _load(after=2.9e-3 * (load.QUIET_SLOWDOWN + 0.1))
    assert not slow_host.quiet and "reference kernel ran" in slow_host.reasons()[0]
    # what the pack keeps is enough to say it again
    assert Load.reasons_of({**MACHINE, **busy.fields().as_machine()}) == busy.reasons()
    assert Load.reasons_of(MACHINE) == []  # a pack from before the load was kept: nothing to say


def test_a_resumed_recording_is_quiet_only_if_every_call_was():
    quiet, busy = _load().fields(), _load(other=0.5).fields()
    assert quiet.after(quiet).quiet is True
    merged = busy.after(quiet)
    assert merged.quiet is False and merged.other_cpu_share == 0.5
    assert merged.wall_s == 200.0
    assert LoadFields.of(MACHINE) is None and quiet.after(None).quiet is None  # an earlier part of unknown load
    # what the pack keeps of a resumed recording reads back as it was written
    assert LoadFields.of({**MACHINE, **merged.as_machine()}) == merged


def test_a_merge_of_one_machines_runs_is_quiet_only_if_every_run_was():
    # `python -m lib merge` of sweeps recorded minutes apart on one machine: one fingerprint, the worst load
    quiet, busy = _load().fields(), _load(other=0.5).fields()
    packs = [build_pack([ROW], {**MACHINE, **quiet.as_machine()}), build_pack([ROW], {**MACHINE, **busy.as_machine()})]
    for merge in (merge_packs, merge_runs):  # merge_runs: what `python -m lib merge` calls
        for order in (packs, packs[::-1]):
            merged = merge(order)["machine"]
            assert merged["load_quiet"] is False and merged["load_other_cpu_share"] == 0.5
            assert merged["load_wall_s"] == 200.0
    assert merge_packs([packs[0], packs[0]])["machine"]["load_quiet"] is True
    unknown = build_pack([ROW], dict(MACHINE))  # a run from before the load was kept: nobody can say it was quiet
    assert merge_packs([packs[0], unknown])["machine"]["load_quiet"] is None
    assert merge_packs([unknown, packs[0]])["machine"]["load_quiet"] is None
    assert "load_quiet" not in merge_packs([unknown, unknown])["machine"]


def test_the_pack_validates_the_load_fields_and_names_a_bad_one():
    validate_machine({**MACHINE, **_load().fields().as_machine()})
    with pytest.raises(PackError, match="machine.load_quiet: must be true, false or null"):
        validate_machine({**MACHINE, "load_quiet": "yes"})
    with pytest.raises(PackError, match="machine.load_other_cpu_share"):
        validate_machine({**MACHINE, "load_other_cpu_share": -1})


@pytest.mark.slow
def test_other_processes_busy_while_recording_make_it_busy():
    """Two processes spinning beside the watch: the other processes' share is read from /proc/stat (they are
    read before they are waited for: a waited child's time counts as the recording's own, as a DataLoader
    worker's should)."""
    watch = LoadWatch.start()
    spin = [
        subprocess.Popen([sys.executable, "-c", "import time\nt=time.time()\nwhile time.time()-t<3: pass"])
        for _ in range(2)
    ]
    time.sleep(1.5)
    found = watch.finish()
    for p in spin:
        p.kill()
        p.wait()
    assert found.other_cpu_share is not None and found.other_cpu_share > load.QUIET_OTHER_SHARE, found
    assert not found.quiet and "other processes used" in found.reasons()[0]


@pytest.mark.slow
def test_the_cli_keeps_the_load_in_the_pack(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_LOAD_CHECK", "1")  # judged, as a recording is outside the tests
    out = tmp_path / "p.json"
    assert tiny_sweep(out, "1,2") == 0
    machine = load_pack(out)["machine"]
    assert isinstance(machine["load_quiet"], bool) and machine["load_wall_s"] > 0
    assert machine["load_reference_best_s"] <= machine["load_reference_before_s"]


def test_a_busy_pack_is_never_drawn_as_recorded(tmp_path):
    from lib.recorded import load_recordings

    rows = [
        {
            "workload": "mlp",
            "device": "cpu",
            "batch_size": 1,
            "median_s": 1e-3,
            "iqr_s": 1e-5,
            "repeats": 5,
            "status": "ok",
            "message": "",
        }
    ]
    save_pack(build_pack(rows, {**MACHINE, **_load(other=0.6).fields().as_machine()}), tmp_path / "busy.json.gz")
    save_pack(build_pack(rows, {**MACHINE, **_load().fields().as_machine()}), tmp_path / "quiet.json")
    recordings, problems = load_recordings(tmp_path)
    assert [r.path.rsplit("/", 1)[-1] for r in recordings] == ["quiet.json"]
    assert len(problems) == 1 and problems[0].startswith("busy.json.gz: recorded while the machine was busy")
    assert "other processes used 60%" in problems[0]
    with gzip.open(tmp_path / "busy.json.gz") as f:
        assert pack_quiet(json.loads(f.read())["machine"]) is False


def test_every_shipped_small_server_pack_was_recorded_quiet():
    """The 2-core server's CPU curve (drawn before this server's own CPU is measured) carries its load: the
    one recorded on 2026-11-23 beside a test suite ran 1.3-5.2x slow and had none."""
    from lib.recorded import RECORDED_DIR

    path = RECORDED_DIR / "cpu2_training_cpu1.json.gz"
    machine = load_pack(path)["machine"]
    assert machine.get("load_quiet") is True, {k: v for k, v in machine.items() if k.startswith("load")}
    assert time.strptime(machine["date"][:10], "%Y-%m-%d") >= time.strptime("2026-11-28", "%Y-%m-%d")


def test_a_recording_made_beside_other_work_on_purpose_says_its_load_was_not_judged(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_LOAD_CHECK", "0")
    out = tmp_path / "p.json"
    assert tiny_sweep(out, "1") == 0
    machine = load_pack(out)["machine"]
    assert machine["load_quiet"] is None and machine["load_other_cpu_share"] is not None


def test_a_recorded_machine_says_which_of_its_packs_kept_their_load():
    """Issue 37: the GPU packs recorded before 2026-11-28 kept no load; the sidebar says how many did and
    which did not, from the packs themselves (a busy pack is never loaded, so a checked one was quiet)."""
    from lib.recorded.pack import Fingerprint
    from lib.recorded.recording import Recording
    from lib.recorded.sources import GpuSource, load_words

    def pack(path, day, quiet=None):
        machine = {"date": f"{day}T05:00:00+00:00", **({"load_quiet": quiet} if quiet is not None else {})}
        return Recording(path, Fingerprint.from_json(machine), (), {"path": path, "machine": machine, "rows": []})

    packs = [
        pack("a", "2026-11-23"),
        pack("b", "2026-11-28", True),
        pack("c", "2026-11-28", True),
        pack("z", "2026-11-28", True),
    ]
    source = GpuSource("recorded", "x", "X", pack_paths=("a", "b", "c"))
    assert load_words(source, packs) == (
        "Its machine was checked quiet while recording 2 packs (on 2026-11-28); "
        "the 1 pack recorded before kept no load."
    )
    assert load_words(GpuSource("recorded", "x", "X", pack_paths=("a",)), packs) == (
        "Its pack was recorded before the app kept how busy a machine was."
    )
    assert load_words(GpuSource("recorded", "x", "X", pack_paths=("b",)), packs) == (
        "Its machine was checked quiet while recording 1 pack (on 2026-11-28)."
    )
    assert load_words(GpuSource("recorded", "x", "X", pack_paths=("q",)), packs) is None
