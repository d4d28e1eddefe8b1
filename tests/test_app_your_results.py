"""The Your results page through AppTest, with real uploads.

Streamlit 1.67's AppTest drives st.file_uploader itself: `at.file_uploader[0].set_value([(name, bytes,
mime), ...])` registers the files with the uploaded-file manager and the page reads them through the
same st.file_uploader call a browser upload goes through (UploadedFile objects, .name/.getvalue()).
No session-state injection and no second code path.

The packs: the first is recorded by the real CLI (`python -m lib sweep ...`) on this CPU. The second
machine is a TEST FIXTURE: the same sweep re-measured here in-process, packed with
lib.core.results.build_pack(rows, machine=...) under a made-up fingerprint that says it is a fixture.
Downloads are read back by wrapping Streamlit's in-memory media storage (the real one still runs).
"""

from __future__ import annotations

import json
import subprocess

import pytest
from app_support import PY, ROOT, chart_specs, env, open_page, open_whys, page_text

from lib.core.devices import machine_fingerprint
from lib.core.results import build_pack, csv_to_pack, dumps_pack, loads_pack, pack_to_csv
from lib.core.sweep import run_sweep
from lib.recorded.uploads import MAX_UPLOAD_BYTES
from lib.workloads import get_workload

PAGE = "pages/your_results.py"
MORE_CHARTS = 5  # drawn below the first one (ui/compare_view.py)
VALUES = [2, 16, 128]
SECOND = "TEST FIXTURE second machine (this CPU, re-measured)"
FIXTURE_GPU = "TEST FIXTURE GPU (CPU rows renamed cuda:0)"


@pytest.fixture(scope="module")
def packs(tmp_path_factory) -> dict[str, bytes]:
    tmp = tmp_path_factory.mktemp("your_results")
    first = tmp / "first.json"
    subprocess.run(
        [
            PY,
            "-m",
            "lib",
            "sweep",
            "mlp",
            "--over",
            f"batch_size={','.join(map(str, VALUES))}",
            "--set",
            "hidden_width=16",
            "--devices",
            "cpu",
            "--budget",
            "0.03",
            "--threads",
            "1",
            "--quiet",
            "--out",
            str(first),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    again = run_sweep(
        get_workload("mlp"),
        "batch_size",
        VALUES,
        {"hidden_width": 16},
        ["cpu"],
        point_budget_s=0.03,
        num_threads=1,
        with_phases=False,
    )
    machine = {**machine_fingerprint(), "cpu_model": "TEST FIXTURE CPU", "label": SECOND}
    second = build_pack(again, machine=machine)
    return {"first.json": first.read_bytes(), "second.json": dumps_pack(second).encode()}


@pytest.fixture
def no_shipped(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))


def upload(at, *files: tuple[str, bytes]):
    """Put the files into the page's st.file_uploader, as a browser would, and rerun."""
    mime = {"json": "application/json", "csv": "text/csv"}
    at.file_uploader[0].set_value([(name, data, mime[name.rsplit(".", 1)[-1]]) for name, data in files])
    return at.run()


def unescaped(text: str) -> str:
    """The words as a reader sees them: markdown escapes and bold markers removed."""
    return text.replace("\\", "").replace("**", "")


def errors(at) -> list[str]:
    return [unescaped(str(e.value)) for e in at.error]


def machines_table(at):
    frames = [d.value for d in at.dataframe]
    return next(f for f in frames if "machine" in f.columns and "CPU" in f.columns)


def assert_page_works(at, n_charts: int, machines: list[str]) -> None:
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    assert len(specs) == n_charts
    spec = json.loads(specs[0])
    text = json.dumps(spec)
    for machine in machines:
        assert machine in text
    assert '"type": "log"' in text and "strokeDash" in text and "shape" in text
    assert list(machines_table(at)["machine"]) == machines
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Merged result pack (JSON)", "Merged rows (CSV)"]


def test_the_page_opens_empty_and_says_how_to_record_a_pack(no_shipped):
    at = open_page(PAGE)
    assert not at.exception, [e.value for e in at.exception]
    assert at.file_uploader[0].accept_multiple_files
    assert sorted(at.file_uploader[0].allowed_type) == [".csv", ".json"]
    text = page_text(open_whys(at))
    assert "Nothing to compare yet" in text and not chart_specs(at)
    code = "\n".join(c.value for c in at.code)
    assert "python3 scripts/record_packs.py --out mypacks" in code and "python -m lib sweep" in code
    assert "lib/recorded/" in text


@pytest.mark.slow  # its packs are recorded by the CLI (module fixture `packs`)
def test_a_pack_from_the_cli_is_charted_tabled_and_downloadable(no_shipped, packs, downloads):
    at = upload(open_page(PAGE), ("first.json", packs["first.json"]))
    label = loads_pack(packs["first.json"])["machine"]["label"]
    assert_page_works(at, 1, [label])
    assert not at.error
    text = unescaped(page_text(at))
    assert "Using: first.json (3 rows)" in text
    assert "MLP training step — time against batch size" in text and "hidden width 16" in text
    assert f"{label}: CPU only, so no crossover." in text
    row = machines_table(at).iloc[0]
    fingerprint = loads_pack(packs["first.json"])["machine"]
    assert row["CPU"] == fingerprint["cpu_model"] and row["torch"] == fingerprint["torch"]
    assert row["threads in CPU rows"] == "1" and row["from"] == "first.json"
    merged = loads_pack(downloads["your_results.json"])
    assert [r["median_s"] for r in merged["rows"]] == [r["median_s"] for r in loads_pack(packs["first.json"])["rows"]]
    assert len(csv_to_pack(downloads["your_results.csv"])["rows"]) == 3


@pytest.mark.slow  # its packs are recorded by the CLI (module fixture `packs`)
def test_two_machines_on_one_chart_with_their_fingerprints(no_shipped, packs, downloads):
    at = upload(open_page(PAGE), ("first.json", packs["first.json"]), ("second.json", packs["second.json"]))
    first = loads_pack(packs["first.json"])["machine"]["label"]
    assert_page_works(at, 1, [first, SECOND])
    text = unescaped(page_text(at))
    assert "2 machines, 2 curves" in text
    assert f"{first}: CPU only, so no crossover." in text and f"{SECOND}: CPU only, so no crossover." in text
    assert "At batch size 2 the fastest of 2 curves is" in text and "at batch size 128 the fastest" in text
    table = machines_table(at)
    assert list(table["CPU"]) == [loads_pack(packs["first.json"])["machine"]["cpu_model"], "TEST FIXTURE CPU"]
    # the download holds both machines' rows and fingerprints, and reads back in as the same comparison
    merged = loads_pack(downloads["your_results.json"])
    assert {r["machine"] for r in merged["rows"]} == {first, SECOND}
    assert [m["label"] for m in merged["machines"]] == [first, SECOND]
    again = upload(open_page(PAGE), ("your_results.json", downloads["your_results.json"]))
    assert_page_works(again, 1, [first, SECOND])


@pytest.mark.parametrize(
    "name, data, words",
    [
        ("broken.json", b'{"schema_version": 1, "machine": {', "broken.json: not valid JSON"),
        (
            "rows.csv",
            b"workload,device,median_s,repeats,status,message\nmlp,cpu,0.1,3,ok,\n",
            "rows.csv: CSV column iqr_s: missing",
        ),
        ("huge.json", b"{" + b" " * MAX_UPLOAD_BYTES + b"}", "huge.json: 5.2 MB is larger than the 5 MB limit"),
        ("fields.json", None, "fields.json: rows[1].median_s: must be a number >= 0 when status is ok"),
    ],
)
@pytest.mark.slow  # its packs are recorded by the CLI (module fixture `packs`)
def test_a_bad_file_is_named_and_the_good_files_still_work(no_shipped, packs, name, data, words):
    if data is None:  # a pack whose second row lost its time
        pack = json.loads(packs["second.json"])
        pack["rows"][1]["median_s"] = "fast"
        data = json.dumps(pack).encode()
    at = upload(
        open_page(PAGE), ("first.json", packs["first.json"]), (name, data), ("second.json", packs["second.json"])
    )
    assert len(errors(at)) == 1 and errors(at)[0].startswith(f"Not used: {words}"), errors(at)
    first = loads_pack(packs["first.json"])["machine"]["label"]
    assert_page_works(at, 1, [first, SECOND])
    assert "Using: first.json (3 rows); second.json (3 rows)" in unescaped(page_text(at))


def test_all_bad_files_at_once_leave_only_their_messages(no_shipped):
    at = upload(open_page(PAGE), ("a.json", b"[1, 2"), ("b.csv", b"workload\nmlp\n"), ("c.json", b"   "))
    assert not at.exception, [e.value for e in at.exception]
    assert [e.split(":")[1].strip() for e in errors(at)] == ["a.json", "b.csv", "c.json"]
    assert "c.json: the file is empty" in errors(at)[2]
    assert "Nothing to compare yet" in page_text(at) and not chart_specs(at)


@pytest.mark.slow  # its packs are recorded by the CLI (module fixture `packs`)
def test_a_csv_upload_works_but_has_no_fingerprint(no_shipped, packs):
    csv_bytes = pack_to_csv(loads_pack(packs["first.json"])).encode()
    at = upload(open_page(PAGE), ("first.csv", csv_bytes))
    label = loads_pack(packs["first.json"])["machine"]["label"]
    assert_page_works(at, 1, [label])
    assert machines_table(at).iloc[0]["CPU"] == "not in the file"


@pytest.mark.slow  # its packs are recorded by the CLI (module fixture `packs`)
def test_shipped_packs_join_the_comparison_and_a_repeat_upload_counts_once(tmp_path, monkeypatch, packs):
    # TEST FIXTURE shipped pack: the CLI pack's CPU rows, plus the same rows renamed 'cuda:0'
    shipped = json.loads(packs["first.json"])
    shipped["machine"].update(label=FIXTURE_GPU, gpus=[FIXTURE_GPU])
    shipped["rows"] = [{**r, "device": d, "machine": FIXTURE_GPU} for r in shipped["rows"] for d in ("cpu", "cuda:0")]
    (tmp_path / "fixture.json").write_text(json.dumps(shipped))
    with env(GPUWIN_RECORDED_DIR=str(tmp_path)):
        at = open_page(PAGE, {"shipped": "true"})
        assert at.toggle(key="your_results.shipped").value is True
        assert_page_works(at, 1, [FIXTURE_GPU])
        text = unescaped(page_text(at))
        # equal times: the renamed copy takes the same time as its CPU everywhere, computed, not assumed
        assert (
            f"{FIXTURE_GPU}: its GPU and its CPU take the same time within the spread of the repeats at every "
            "batch size both curves have"
        ) in text
        at = upload(at, ("second.json", packs["second.json"]), ("fixture.json", json.dumps(shipped).encode()))
        assert_page_works(at, 1, [SECOND, FIXTURE_GPU])
        notes = [unescaped(str(i.value)) for i in at.info]
        assert "shipped: fixture.json: the same results as fixture.json, so used once" in notes
        at.toggle(key="your_results.shipped").set_value(False).run()
        assert_page_works(at, 1, [SECOND, FIXTURE_GPU])
        assert "shipped:" not in unescaped(page_text(at))


@pytest.mark.cpu_view
def test_the_real_shipped_packs_draw_a_few_sweeps_and_any_other_on_request():
    """The packs in lib/recorded/ hold dozens of sweeps: drawing them all took seconds on a 2-core server
    (benchmarks/page_speed.py); a few are drawn, every other one can be picked."""
    at = open_page(PAGE, {"shipped": "true"})
    assert not at.exception, [e.value for e in at.exception]
    more = at.selectbox(key="your_results.more")
    assert len(chart_specs(at)) == 1 + MORE_CHARTS and more.value is None
    assert len(more.options) >= 1
    assert not any("\\" in o for o in more.options)  # options are plain text: no markdown escapes shown
    last = len(more.options) - 1
    more.set_value(last).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(chart_specs(at)) == 2 + MORE_CHARTS
    assert at.selectbox(key="your_results.more").value == last


@pytest.mark.slow  # its packs are recorded by the CLI (module fixture `packs`)
def test_past_the_file_cap_a_file_is_refused_in_one_line_and_the_rest_still_work(no_shipped, packs):
    """Issue 40: a visitor's uploads are capped (lib.recorded.upload_budget); the file past the cap is named
    with what to do, the others are used, and a rerun neither reads them again nor loses the message."""
    from lib.recorded.upload_budget import LIMITS

    first = json.loads(packs["first.json"])
    files = []
    for i in range(LIMITS.session_files + 1):  # each its own machine, so none is a duplicate
        label = f"box {i}"
        files.append(
            (
                f"p{i}.json",
                json.dumps(
                    {
                        **first,
                        "machine": {**first["machine"], "label": label},
                        "rows": [{**r, "machine": label} for r in first["rows"]],
                    }
                ).encode(),
            )
        )
    at = upload(open_page(PAGE), *files)
    assert not at.exception, [e.value for e in at.exception]
    last = f"p{LIMITS.session_files}.json"
    assert errors(at) == [
        f"Not used: {last}: not read: this page reads at most {LIMITS.session_files} files at a "
        "time; remove one to add another"
    ]
    assert len(machines_table(at)) == LIMITS.session_files
    at.run()
    assert len(errors(at)) == 1 and len(machines_table(at)) == LIMITS.session_files
