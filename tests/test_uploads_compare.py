"""lib.lessons.your_results.compare' multi-file helpers and lib.charts.machines, on small hand-written packs.

The times here are made-up numbers chosen to cross (or not) at known points: these functions only
read rows, so their words and labels can be checked exactly. The page itself is tested with
measured packs in test_app_your_results.py.
"""

from __future__ import annotations

import json

import pytest

from lib.core.crossover import CrossKind

pytest.importorskip("altair")  # the GPU machine has no Altair; its `pytest -m cuda` must still collect

from lib.charts.machines import machines_chart, machines_frame
from lib.core.results import SCHEMA_VERSION, pack_to_csv, validate_pack
from lib.lessons.your_results.compare import (
    compare_machines,
    comparison_titles,
    crossover_lines,
    describe_fixed,
    fastest_line,
    order_comparisons,
    uncharted_rows,
)
from lib.recorded.pack import Pack
from lib.recorded.uploads import Source, combine, drop_duplicates, machine_table, plain, read_uploads

XS = [1, 10, 100, 1000]


def machine(label: str, cpu: str = "CPU A", date: str = "2026-11-20T10:00:00+00:00", gpus=()) -> dict:
    return {
        "label": label,
        "cpu_model": cpu,
        "cpu_cores": 8,
        "torch_threads": 8,
        "gpus": list(gpus),
        "driver": "580" if gpus else None,
        "torch": "2.11.0",
        "cuda": "13.0",
        "python": "3.12.3",
        "date": date,
    }


def row(x: float, device: str, seconds: float, label: str, **settings) -> dict:
    return {
        "workload": "mlp",
        "batch_size": x,
        "hidden_width": 64,
        **settings,
        "device": device,
        "median_s": seconds,
        "iqr_s": seconds / 10,
        "repeats": 5,
        "status": "ok",
        "message": "",
        "swept": "batch_size",
        "machine": label,
        "num_threads": 4 if device == "cpu" else None,
    }


def pack(m: dict, cpu_times=None, gpu_times=None, **settings) -> dict:
    rows = [row(x, "cpu", t, m["label"], **settings) for x, t in zip(XS, cpu_times or [])]
    rows += [row(x, "cuda:0", t, m["label"], **settings) for x, t in zip(XS, gpu_times or [])]
    return validate_pack({"schema_version": SCHEMA_VERSION, "machine": m, "rows": rows})


CPU = [1e-4, 1e-3, 1e-2, 1e-1]  # grows with the work
GPU = [1e-3, 3e-3, 3e-3, 4e-3]  # nearly flat (launch overhead)
# GPU/CPU time ratio: 3 at batch 10, 0.3 at batch 100; log-log interpolation puts the crossover at 10^(1 + log10 3) = 30


def test_a_machine_whose_gpu_catches_up_gets_its_crossover_in_words_and_on_the_chart():
    combined = combine([Source("a.json", Pack.from_json(pack(machine("box A", gpus=["GPU A"]), CPU, GPU)))])
    [comp] = compare_machines(combined.pack.rows)
    assert comp.crossovers["box A"].kind == CrossKind.CROSSES
    [line] = crossover_lines(comp)
    assert line.about is comp.crossovers["box A"]
    assert line.markdown().startswith("**box A**: its GPU ") and "its CPU between batch size 10 and 100" in line.plain()
    spec = json.dumps(machines_chart(comp, x_title="batch size").to_dict(), ensure_ascii=False)
    # issue 37: 10 to 100 is a 10× bracket, too wide to name one value: the words give the bracket, the chart no rule
    assert "the points measured place it no closer" in line.plain()
    assert "crossover ≈" not in spec and '"type": "log"' in spec
    frame = machines_frame(comp)
    assert len(frame) == 8 and set(frame["device"]) == {"cpu", "cuda:0"}
    # each curve by its legend name: the reader finds both on the chart
    assert fastest_line(comp) == (
        "At batch size 1 the fastest of 2 curves is **CPU · box A** (100 µs a step; the "
        "slowest, **GPU · box A**, takes 1 ms); at batch size 1,000 the fastest of 2 curves "
        "is **GPU · box A** (4 ms a step; the slowest, **CPU · box A**, takes 100 ms)."
    )
    assert '"CPU · box A"' in spec and '"GPU · box A"' in spec


@pytest.mark.parametrize("gpu, words", [([1e-5] * 4, CrossKind.GPU_WINS), ([1.0] * 4, CrossKind.CPU_WINS)])
def test_no_crossover_is_said_plainly(gpu, words):
    combined = combine([Source("a.json", Pack.from_json(pack(machine("box A", gpus=["GPU A"]), CPU, gpu)))])
    [comp] = compare_machines(combined.pack.rows)
    assert crossover_lines(comp)[0].about.kind == words
    assert "crossover ≈" not in json.dumps(machines_chart(comp).to_dict(), ensure_ascii=False)


def test_two_machines_with_one_label_are_kept_apart_and_one_machine_on_two_days_is_not():
    a = pack(machine("same name", cpu="CPU A"), CPU)
    b = pack(machine("same name", cpu="CPU B"), [t * 2 for t in CPU])
    a_later = pack(machine("same name", cpu="CPU A", date="2026-11-20T11:00:00+00:00"), [t * 3 for t in CPU], depth=4)
    combined = combine(
        [
            Source("a.json", Pack.from_json(a)),
            Source("b.json", Pack.from_json(b)),
            Source("a2.json", Pack.from_json(a_later)),
        ]
    )
    assert [m.label for m in combined.machines] == ["same name", "same name · b.json"]
    assert combined.machines[0].sources == ("a.json", "a2.json")
    table = machine_table(combined.machines)
    assert [t.cpu for t in table] == ["CPU A", "CPU B"] and table[0].cpu_row_threads == "4"
    comps = compare_machines(combined.pack.rows)
    assert [len(c.machines) for c in comps] == [2, 1]
    # rows that do not name the depth have the default one (3): packs older than a setting still compare
    assert comparison_titles(comps) == [
        "MLP training step — time against batch size (depth 3)",
        "MLP training step — time against batch size (depth 4)",
    ]
    assert validate_pack(combined.pack.to_json())["machines"][1]["label"] == "same name · b.json"


def test_a_csv_never_borrows_another_machines_fingerprint():
    a = pack(machine("box A"), CPU)
    from_csv = read_uploads([("a.csv", pack_to_csv(a).encode())])[0]
    combined = combine([Source("a.json", Pack.from_json(a)), from_csv])
    assert [m.label for m in combined.machines] == ["box A", "box A · a.csv"]
    assert machine_table(combined.machines)[1].cpu == "not in the file"


def test_duplicates_count_once_and_bad_files_do_not_stop_the_rest():
    a = json.dumps(pack(machine("box A"), CPU)).encode()
    sources = drop_duplicates(
        read_uploads(
            [("a.json", a), ("deep.json", b"[" * 100_000), ("copy.json", a), ("bad.csv", b"workload,device\n")]
        )
    )
    assert [s.used for s in sources] == [True, False, False, False]
    assert sources[1].error.startswith("deep.json: ")
    assert sources[2].note == "copy.json: the same results as a.json, so used once"
    assert sources[3].error.startswith("bad.csv: CSV column median_s: missing")


def test_rows_that_cannot_be_charted_are_counted_not_fatal():
    rows = pack(machine("box A"), CPU)["rows"]
    rows += [
        {**rows[0], "swept": "no_such_setting"},
        {**rows[0], "swept": "hidden_layers", "hidden_layers": "64,64"},
        {**rows[0], "status": "oom", "median_s": None},
        {k: v for k, v in rows[0].items() if k != "swept"},
    ]
    comps = compare_machines(rows)
    assert len(comps) == 1 and comps[0].curves[0].xs == [1.0, 10.0, 100.0, 1000.0]
    assert uncharted_rows(rows) == {
        "the swept setting is not a positive number": 2,
        "status oom (not measured)": 1,
        "a single run, not part of a sweep": 1,
    }


def test_settings_are_described_against_the_workload_defaults():
    assert (
        describe_fixed("mlp", {"hidden_width": 64, "depth": 3, "input_features": 32})
        == "other settings at their defaults"
    )
    assert (
        describe_fixed("mlp", {"hidden_width": 256, "data_resident": False, "hidden_layers": None})
        == "hidden width 256; data resident off; the rest at their defaults"
    )
    assert describe_fixed("someone_elses", {"size": 4096}) == "size 4,096"


def test_uploaded_machines_come_first_among_equals():
    combined = combine(
        [
            Source("shipped: s.json", Pack.from_json(pack(machine("shipped box"), CPU, depth=8))),
            Source("mine.json", Pack.from_json(pack(machine("my box"), CPU))),
        ]
    )
    comps = compare_machines(combined.pack.rows)
    assert [c.machines for c in order_comparisons(comps, first=["my box"])] == [["my box"], ["shipped box"]]


def test_text_from_a_file_cannot_become_markdown():
    assert (
        plain("[click](https://x.example) $x$ :red[a] **b**")
        == "\\[click\\](https\\:\u2060//x.example) \\$x\\$ \\:red\\[a\\] \\*\\*b\\*\\*"
    )  # a word joiner: no autolink
    assert plain("a\nb" + "c" * 500, limit=10) == "a bcccccc…"  # one line, 10 characters
