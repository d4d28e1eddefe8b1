"""A recording keeps how fast its host was (lib.core.host), judged against the best of its machine kind on
record (lib.core.host_verdict): a host slow throughout passes every load check (issue 37, 2026-11-28)."""

from __future__ import annotations

import pytest

from lib.core.host import HostFigure, HostSpeed, Reading, host_over_runs
from lib.core.host_verdict import (
    HOST_SLOW,
    HOST_SLOW_ONE,
    HostCheck,
    HostVerdict,
    MachineKind,
    best_on_record,
    host_slowdown,
    machines_on_record,
)
from lib.core.load import busy_warning
from lib.core.results import PackError, build_pack, load_pack, merge_packs, save_pack, validate_machine
from lib.workloads.ddp.efficiency import merge_runs
from tests.test_load import ROW

H200 = {
    "cpu_model": "Intel(R) Xeon(R) Processor",
    "cpu_cores": 16,
    "torch_threads": 16,
    "gpus": ["NVIDIA H200"],
    "torch": "2.11.0+cu130",
    "date": "2026-11-21T05:00:00+00:00",
    "label": "NVIDIA H200 (2026-11-21)",
}


def speed(matmul=1000.0, copy=40.0, dispatch=3.0, launch=5.0, h2d=20.0, threads=16) -> HostSpeed:
    """Figures as an H200 host's might be (GFLOP/s, GB/s, µs, µs, µs), each with a 5 % spread."""

    def reading(value):
        return None if value is None else Reading(value, 0.05)

    return HostSpeed(reading(matmul), reading(copy), reading(dispatch), reading(launch), reading(h2d), threads)


def machine(host: HostSpeed | None, **more) -> dict:
    return {**H200, **(host.as_machine() if host else {}), **more}


def test_the_figures_round_trip_through_a_pack(tmp_path):
    kept = speed(matmul=1234.5678, launch=None, h2d=None)
    path = save_pack(build_pack([ROW], machine(kept)), tmp_path / "p.json.gz")
    assert HostSpeed.of(load_pack(path)["machine"]) == kept
    assert HostSpeed.of(H200) is None  # a pack from before host figures were kept
    assert HostSpeed.of({**H200, "host_memory_gb": 64.0}) is None  # the fingerprint's own host_ field is no figure


def test_the_pack_validates_the_host_fields_and_names_a_bad_one():
    validate_machine(machine(speed(), host_slow=True, host_slowdown=1.4))
    with pytest.raises(PackError, match="machine.host_matmul_gflops: must be a number >= 0"):
        validate_machine({**H200, "host_matmul_gflops": "fast"})
    with pytest.raises(PackError, match="machine.host_slow: must be true, false or null"):
        validate_machine({**H200, "host_slow": "no"})
    with pytest.raises(PackError, match="machine.host_threads: must be a whole number"):
        validate_machine({**H200, "host_threads": 1.5})


def test_a_merge_keeps_the_slowest_of_each_figure():
    """`python -m lib merge` of one machine's runs (or a resumed sweep): the slowest figure of every run, slow if
    any run was; a run from before host figures were kept makes the mark unknown unless another was slow."""
    fast = machine(speed(), host_slow=False, host_slowdown=1.02)
    slow = machine(speed(matmul=600.0, dispatch=4.5, launch=4.0), host_slow=True, host_slowdown=1.67)
    packs = [build_pack([ROW], fast), build_pack([ROW], slow)]
    for merge in (merge_packs, merge_runs):
        for order in (packs, packs[::-1]):
            merged = merge(order)["machine"]
            assert HostSpeed.of(merged) == speed(matmul=600.0, dispatch=4.5, launch=5.0)
            assert merged["host_slow"] is True and merged["host_slowdown"] == 1.67
    assert merge_packs([packs[0], packs[0]])["machine"]["host_slow"] is False
    unknown = build_pack([ROW], dict(H200))
    assert merge_packs([packs[0], unknown])["machine"]["host_slow"] is None
    assert merge_packs([unknown, packs[1]])["machine"]["host_slow"] is True
    assert "host_slow" not in merge_packs([unknown, unknown])["machine"]
    assert host_over_runs(H200, H200) == {}


def test_each_figure_is_a_slowdown_whichever_way_its_unit_runs():
    best = speed()
    ratios = host_slowdown(speed(matmul=500.0, copy=80.0, dispatch=6.0, launch=5.0, h2d=10.0), best)
    assert ratios == {
        HostFigure.MATMUL: 2.0,  # half the GFLOP/s: twice as slow
        HostFigure.COPY: 0.5,
        HostFigure.DISPATCH: 2.0,  # twice the µs per op
        HostFigure.LAUNCH: 1.0,
        HostFigure.H2D: 0.5,
    }
    # a CPU-only check against a GPU host's: only the figures both have
    assert set(host_slowdown(speed(launch=None, h2d=None), best)) == {
        HostFigure.MATMUL,
        HostFigure.COPY,
        HostFigure.DISPATCH,
    }
    # the threaded figures only at the same thread count
    assert set(host_slowdown(speed(threads=8), best)) == {HostFigure.DISPATCH, HostFigure.LAUNCH, HostFigure.H2D}


def test_a_slow_host_a_fast_one_and_one_of_a_kind_nobody_recorded():
    kind = MachineKind.of(H200)
    on_record = [
        machine(speed(matmul=900.0, dispatch=2.5)),  # the best of each figure is taken from any pack of the kind
        machine(speed(matmul=1000.0, dispatch=3.0), date="2026-11-24T03:00:00+00:00"),
        machine(speed(matmul=5000.0, dispatch=0.5), load_quiet=False),  # a busy pack's figures are no best
        {**machine(speed(matmul=9000.0)), "cpu_cores": 32},  # another kind: 32 cores
    ]
    # one lease's figures moved up to 2x between quiet runs: two days of them are no best yet
    assert best_on_record(on_record, kind) is None
    on_record.append(machine(speed(matmul=950.0, dispatch=2.8), date="2026-11-28T21:00:00+00:00"))
    best = best_on_record(on_record, kind)
    assert best == speed(matmul=1000.0, dispatch=2.5)

    # the slow lease's slowdowns (Training CPU x1.92, pipeline x1.66, 8,192 matmuls x1.32), GPU figures unmoved
    the_slow_lease = HostCheck(kind, speed(matmul=1000 / 1.32, copy=40 / 1.66, dispatch=2.5 * 1.92), best)
    together = (1.32 * 1.66 * 1.92) ** (1 / 5)
    assert the_slow_lease.verdict is HostVerdict.SLOW and the_slow_lease.together == pytest.approx(together)
    assert the_slow_lease.fields() == {"host_slow": True, "host_slowdown": round(together, 3)}
    assert the_slow_lease.sentence().startswith(
        "host check: this host ran 1.33x slower than the best on record of this machine kind "
        "(NVIDIA H200 with Intel(R) Xeon(R) Processor, 16 cores), its figures together (CPU matmul x1.32, "
        "memory copy x1.66, eager dispatch x1.92, kernel launch x1.00, "
    )
    assert (
        HostCheck(kind, speed(matmul=1000 / 1.3, copy=40 / 1.3, dispatch=2.5 * 1.3, launch=6.5, h2d=26.0), best).verdict
        is HostVerdict.SLOW
    )

    within = HostCheck(kind, speed(matmul=1000 / 1.2, dispatch=2.5 * 1.2), best)  # both under HOST_SLOW
    assert within.worst < HOST_SLOW and within.verdict is HostVerdict.AS_FAST and within.fields()["host_slow"] is False
    assert within.sentence().startswith("host check: as fast as the best on record of this machine kind")
    # one figure alone past HOST_SLOW, as the memory copy moved between quiet checks (x1.36): no evidence yet
    noisy_copy = HostCheck(kind, speed(copy=40 / 1.36, dispatch=2.5), best)
    assert noisy_copy.worst > HOST_SLOW and noisy_copy.verdict is HostVerdict.AS_FAST
    # one figure alone as far off as eager dispatch moved between two quiet runs on one H200 lease (x1.74): no evidence
    dispatch_swing = HostCheck(kind, speed(dispatch=2.5 * 1.74), best)
    assert dispatch_swing.worst > 1.7 and dispatch_swing.verdict is HostVerdict.AS_FAST
    # one figure far past it (memory bandwidth alone at 40 %): slow
    one_way = HostCheck(kind, speed(copy=40 / 2.5, dispatch=2.5), best)
    assert one_way.worst > HOST_SLOW_ONE and one_way.together < HOST_SLOW and one_way.verdict is HostVerdict.SLOW

    nobody = MachineKind.of({**H200, "gpus": ["NVIDIA H100 80GB HBM3"]})
    unknown = HostCheck(nobody, speed(), best_on_record(on_record, nobody))
    assert unknown.verdict is HostVerdict.UNKNOWN and unknown.fields() == {"host_slow": None, "host_slowdown": None}
    assert "fewer than 3 days of host figures of this machine kind" in unknown.sentence()
    assert "nobody can say whether this host is slow" in unknown.sentence()
    # figures of the kind, but none this check can be compared with (other threads, no GPU figures): unknown too
    cpu_only_other_threads = HostCheck(kind, speed(dispatch=None, launch=None, h2d=None, threads=8), best)
    assert cpu_only_other_threads.verdict is HostVerdict.UNKNOWN


def test_the_machines_on_record_include_every_source_of_a_merged_pack():
    one, two = machine(speed(matmul=800.0)), {**machine(speed()), "label": "NVIDIA H200 (2026-11-28)"}
    merged = merge_packs([build_pack([ROW], one), build_pack([ROW], {**two, "cpu_model": "other"})])
    assert [m["label"] for m in machines_on_record([merged, build_pack([ROW], one)])] == [
        "NVIDIA H200 (2026-11-21)",
        "NVIDIA H200 (2026-11-28)",
        "NVIDIA H200 (2026-11-21)",
    ]


def test_a_slow_host_is_warned_of_in_the_words_of_the_busy_machine():
    marked = machine(speed(), host_slow=True, host_slowdown=1.66)
    warning = busy_warning(marked)
    assert warning is not None and warning.startswith("warning: this host ran 1.66x slower than the best")
    assert "(host_slow: true)" in warning
    assert busy_warning(machine(speed(), host_slow=False)) is None
    assert busy_warning(machine(speed(), host_slow=None)) is None
    both = busy_warning({**marked, "load_quiet": False, "load_other_cpu_share": 0.5})
    assert both is not None and both.count("warning:") == 2


@pytest.mark.slow
def test_the_cli_times_the_host_and_marks_a_host_slower_than_its_kinds_best(tmp_path, monkeypatch, capsys):
    """A real sweep on this CPU with a pack on record of this machine's kind whose host figures no machine
    reaches: the pack keeps this host's figures, is marked slow, is saved all the same, and the run says so."""
    from lib.core.devices import machine_fingerprint
    from tests.test_load import tiny_sweep

    monkeypatch.setenv("GPUWIN_LOAD_CHECK", "1")  # timed and judged, as a recording is outside the tests
    on_record = tmp_path / "recorded"
    on_record.mkdir()
    impossible = speed(matmul=1e9, copy=1e6, dispatch=1e-3, launch=None, h2d=None, threads=None)
    this_kind = {**machine_fingerprint(), **impossible.as_machine(), "label": "fastest ever"}
    for day in ("2026-11-21", "2026-11-24", "2026-11-28"):  # the days a best on record needs (MIN_DAYS_ON_RECORD)
        save_pack(build_pack([ROW], {**this_kind, "date": f"{day}T05:00:00+00:00"}), on_record / f"fastest_{day}.json")
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(on_record))

    out = tmp_path / "p.json"
    assert tiny_sweep(out, "1,2") == 0
    kept = load_pack(out)["machine"]
    host = HostSpeed.of(kept)
    assert host is not None and host.launch is None and host.h2d is None  # a CPU-only sweep: no GPU figures
    assert 0.1 < host.matmul.value < 1e5 and 0.1 < host.copy.value < 1e4 and 0.01 < host.dispatch.value < 1e3
    assert host.threads is not None and host.threads >= 1
    # the impossible pack has no thread count: only the dispatch figure is compared, and it is far slower
    assert kept["host_slow"] is True and kept["host_slowdown"] > 1e3
    printed = capsys.readouterr()
    assert "host check: this host ran" in printed.out and "slower than the best on record" in printed.out
    assert "warning: this host ran" in printed.err


@pytest.mark.slow
def test_the_cli_says_unknown_where_nobody_recorded_its_kind(tmp_path, monkeypatch, capsys):
    from tests.test_load import tiny_sweep

    monkeypatch.setenv("GPUWIN_LOAD_CHECK", "1")
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))  # nothing on record
    out = tmp_path / "p.json"
    assert tiny_sweep(out, "1") == 0
    kept = load_pack(out)["machine"]
    assert HostSpeed.of(kept) is not None and kept["host_slow"] is None and kept["host_slowdown"] is None
    assert "nobody can say whether this host is slow" in capsys.readouterr().out


def test_a_recording_made_beside_other_work_on_purpose_does_not_time_its_host(tmp_path, monkeypatch):
    from tests.test_load import tiny_sweep

    monkeypatch.setenv("GPUWIN_LOAD_CHECK", "0")
    out = tmp_path / "p.json"
    assert tiny_sweep(out, "1") == 0
    assert HostSpeed.of(load_pack(out)["machine"]) is None


@pytest.mark.slow
def test_a_resumed_recording_keeps_the_slowest_host_of_its_calls(tmp_path, monkeypatch):
    """`python -m lib sweep --resume`: the pack's machine is this call's, with the slowest figures of every call
    and slow if an earlier call was (lib.core.host_watch, as the CLI asks it, here half way: nothing timed twice)."""
    from lib.core.host_watch import MachineWatch

    monkeypatch.setenv("GPUWIN_LOAD_CHECK", "1")
    watch = MachineWatch.start(["cpu"], list)  # nothing on record
    assert watch.host is not None and watch.best is None
    crawling = speed(matmul=1e-3, copy=1e-3, dispatch=1e6, launch=None, h2d=None, threads=watch.host.threads)
    earlier = machine(crawling, host_slow=True, host_slowdown=2.0)
    now = watch.machine(earlier, final=False)
    assert HostSpeed.of(now) == crawling
    assert now["host_slow"] is True and now["host_slowdown"] == 2.0
    alone = watch.machine(None, final=False)
    assert HostSpeed.of(alone) == HostSpeed.of(watch.host.as_machine())  # the start's figures, as the pack rounds them
    assert alone["host_slow"] is None  # unknown: nothing of its kind on record


@pytest.mark.slow
def test_the_host_check_benchmark_prints_json_to_compare_leases(tmp_path):
    """benchmarks/host_check.py --json: the one command the lead runs on each lease, its ratio to a given pack."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    pack = save_pack(build_pack([ROW], machine(speed(matmul=100.0, copy=10.0, dispatch=3.0))), tmp_path / "p.json")
    env = {**os.environ, "GPUWIN_RECORDED_DIR": str(tmp_path / "none")}
    done = subprocess.run(
        [sys.executable, "benchmarks/host_check.py", "--runs", "2", "--json", str(pack)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(done.stdout)
    assert len(report["checks"]) == 2 and report["verdict"] == "unknown"
    assert report["median"]["host_matmul_gflops"] > 0 and report["median"]["host_launch_us"] is None
    assert set(report["between_checks"]) == {"matmul", "copy", "dispatch"}
    [against] = report["against_packs"]
    assert against["same_kind"] is False  # an H200 host's figures against this CPU-only machine's
    threaded = {"matmul", "copy"} if report["median"]["host_threads"] == 16 else set()  # the pack's were at 16
    assert set(against["ratios"]) == {"dispatch", *threaded}
