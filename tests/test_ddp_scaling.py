"""Scaling over GPUs without launching anything: efficiency and merging (lib.workloads.ddp.efficiency)
and what the multi-GPU lesson computes from rows (lib.lessons.scaling), on hand-made rows."""

import pytest

from lib.core.results import PackError, SCHEMA_VERSION, validate_pack
from lib.lessons import scaling
from lib.workloads.ddp.efficiency import add_scaling_efficiency, experiment_key, merge_runs, throughput

MACHINE = {"label": "box with 2 GPUs", "cpu_model": "test cpu", "torch": "2.11", "date": "2026-01-01"}


def ddp_row(gpus, batch, median_s, **extra):
    row = {"workload": "ddp", "model": "mlp", "gpus": gpus, "batch_size": batch, "steps": 50, "device": "cuda",
           "median_s": median_s, "iqr_s": 0.0, "repeats": 5, "status": "ok", "message": ""}
    row.update(extra)
    return row


def pack(rows, machine=MACHINE):
    return {"schema_version": SCHEMA_VERSION, "machine": dict(machine), "rows": rows}


# -- scaling efficiency ---------------------------------------------------------------------------------
def test_efficiency_is_throughput_over_n_times_the_one_gpu_twin():
    rows = add_scaling_efficiency([ddp_row(1, 64, 0.010), ddp_row(2, 64, 0.016), ddp_row(4, 64, 0.025)])
    # 1 GPU: 6400 samples/s; 2 GPUs: 128/0.016 = 8000 -> 8000 / (2 x 6400); 4 GPUs: 256/0.025 = 10240.
    assert [r["scaling_efficiency"] for r in rows] == pytest.approx([1.0, 0.625, 0.4])


def test_efficiency_prefers_the_rows_own_throughput_and_needs_an_ok_twin():
    assert throughput(ddp_row(2, 64, 0.016, samples_per_s=1000.0)) == 1000.0
    assert throughput(ddp_row(2, 64, 0.016)) == pytest.approx(8000.0)
    assert throughput(ddp_row(2, 64, None, status="oom")) is None
    rows = add_scaling_efficiency([ddp_row(1, 64, None, status="oom"), ddp_row(2, 64, 0.016)])
    assert all("scaling_efficiency" not in r for r in rows)


def test_efficiency_never_mixes_experiments_and_drops_stale_values():
    one = ddp_row(1, 64, 0.010)
    other_width = ddp_row(2, 64, 0.016, hidden_width=99, scaling_efficiency=0.9)  # stale, no twin
    other_machine = ddp_row(2, 64, 0.016, machine="elsewhere")
    more_steps = ddp_row(2, 64, 0.016, steps=500)  # steps does not change the experiment
    not_ddp = {"workload": "mlp", "gpus": 2, "median_s": 1.0, "status": "ok", "scaling_efficiency": 3.0}
    rows = add_scaling_efficiency([one, other_width, other_machine, more_steps, not_ddp])
    assert "scaling_efficiency" not in other_width and "scaling_efficiency" not in other_machine
    assert more_steps["scaling_efficiency"] == pytest.approx(0.625)
    assert not_ddp["scaling_efficiency"] == 3.0  # other workloads' rows are left alone
    assert experiment_key(one) == experiment_key({**one, "gpus": 4, "steps": 7})
    assert experiment_key(one) != experiment_key({**one, "batch_size": 65})


# -- merging one machine's runs --------------------------------------------------------------------------
def test_merge_runs_keeps_the_first_machine_and_scales_across_the_runs():
    first = pack([ddp_row(1, 64, 0.010), ddp_row(1, 128, 0.020)])
    second = pack([ddp_row(2, 64, 0.016), ddp_row(2, 128, 0.020, machine="named itself")],
                  machine={**MACHINE, "label": "a later label"})
    merged = merge_runs([first, second])
    validate_pack(merged)
    assert merged["machine"] == MACHINE
    assert [r["machine"] for r in merged["rows"]] == ["box with 2 GPUs"] * 3 + ["named itself"]
    effs = [r.get("scaling_efficiency") for r in merged["rows"]]
    assert effs[:3] == pytest.approx([1.0, 1.0, 0.625])
    assert effs[3] is None  # its gpus=1 twin was recorded under another machine label
    assert "machine" not in first["rows"][0]  # the inputs are not changed


def test_merge_runs_refuses_nothing_and_invalid_packs():
    with pytest.raises(PackError, match="nothing to merge"):
        merge_runs([])
    with pytest.raises(PackError):
        merge_runs([{"schema_version": SCHEMA_VERSION, "machine": MACHINE, "rows": [{"workload": "ddp"}]}])


def test_merge_files_writes_one_pack_and_summarises_each_ddp_row(tmp_path):
    from lib.core.results import load_pack, save_pack

    runs = [save_pack(pack([ddp_row(1, 64, 0.010)]), tmp_path / "g1.json"),
            save_pack(pack([ddp_row(2, 64, 0.016), ddp_row(2, 128, None, status="oom", message="out of memory")]),
                      tmp_path / "g2.json")]
    out = tmp_path / "merged.json"
    lines = scaling.merge_files(out, runs)
    merged = load_pack(out)
    assert merged["machine"]["label"] == MACHINE["label"] and len(merged["rows"]) == 3
    assert lines[0] == f"wrote {out}: 3 rows (2 ok) from 2 run(s)"
    assert len(lines) == 4
    assert "1 GPU batch     64" in lines[1] and "6400 samples/s  efficiency 1.00  ok" in lines[1]
    assert "2 GPUs batch     64" in lines[2] and "8000 samples/s  efficiency 0.62  ok" in lines[2]
    assert "2 GPUs batch    128" in lines[3] and "- samples/s  efficiency -  oom out of memory" in lines[3]


def test_cli_merge_prints_the_summary_and_names_a_bad_input(tmp_path):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    first, second = tmp_path / "g1.json", tmp_path / "g2.json"
    first.write_text(json.dumps(pack([ddp_row(1, 64, 0.010)])))
    second.write_text(json.dumps(pack([ddp_row(2, 64, 0.016)])))

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "lib", "merge", *map(str, args)], cwd=root, capture_output=True,
                              text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(root)})

    out = cli(tmp_path / "all.json", first, second)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == f"wrote {tmp_path / 'all.json'}: 2 rows (2 ok) from 2 run(s)"
    assert json.loads((tmp_path / "all.json").read_text())["rows"][1]["scaling_efficiency"] == pytest.approx(0.625)
    out = cli(tmp_path / "none.json", first, tmp_path / "missing.json")
    assert out.returncode == 2 and out.stderr.startswith("error:") and "missing.json" in out.stderr
    assert not (tmp_path / "none.json").exists()
    assert cli(tmp_path / "none.json").returncode == 2  # at least one input
