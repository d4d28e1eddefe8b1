"""The Data pipeline page (seeds 000 and 001) through AppTest: real Streamlit, real torch, real DataLoader.

CUDA is absent here. The GPU side is either missing (an empty recorded-pack directory) or a TEST
FIXTURE pack: the page's own "Record this view on a GPU machine" commands run with the real CLI on
the CPU (the same commands, cut to the page's three live x values and a short budget), each CPU row
then copied under the device name 'cuda:0' (tests/app_support.py explains the fixture). Identical
copies make the two devices equal, so the page must say the device does not matter.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from app_support import FIXTURE_GPU_NAME, PY, ROOT, env, open_page, open_whys, page_text, visit

from lib.core.point import Point, points_of
from lib.core.rows import Status
from lib.lessons.data_pipeline.view import ceiling_sentence, device_sentence, loading_share, phase_note, sweep_summary
from ui.scaffold import RECORD_KEY

PAGE = "pages/data_pipeline.py"
LOADING = "data_pipeline.loading"  # pages/data_pipeline.py LOADING_KEY: the DataLoader settings expander's open state
NS = "data_pipeline."
CPU_LABEL = "cpu (live, this server)"
LIVE_GRID = "8,64,512"  # the page's default live x values (batch size)


def chart_specs(at) -> list[str]:
    """Each chart's Vega-Lite spec as text, non-ASCII characters unescaped (×, ÷, →)."""
    return [json.dumps(json.loads(e.proto.spec), ensure_ascii=False) for e in at.get("vega_lite_chart")]


# -- the sentences, from hand-written rows ----------------------------------------------------------


def row(device, median, loading, compute, **extra):
    """A point as the sentences read it, from a row as a file holds it."""
    return Point.from_row(
        {
            "workload": "dataloader",
            "device": device,
            "median_s": median,
            "iqr_s": median / 50,
            "repeats": 5,
            "status": "ok",
            "message": "",
            "phase_loading_s": loading,
            "phase_compute_s": compute,
            **extra,
        }
    )


def test_device_sentence_says_when_the_device_does_not_matter_and_when_it_does():
    cpu, gpu = row("cpu", 1.00, 0.95, 0.05), row("cuda:0", 0.96, 0.94, 0.01)
    assert loading_share(cpu) == pytest.approx(0.95)
    text = device_sentence(cpu, gpu, "cpu X", "cuda:0 X", "DataLoader over images")
    assert "the device does not matter" in text and "95%" in text and "99%" in text and "by only 4%" in text
    fast_gpu = row("cuda:0", 0.10, 0.01, 0.08)
    text = device_sentence(row("cpu", 1.0, 0.1, 0.9), fast_gpu, "cpu X", "cuda:0 X", "tensors already on the device")
    assert "the device matters" in text and "GPU's epoch is 10.0× as fast" in text
    assert "compute 900 ms and 80 ms" in text
    assert device_sentence(cpu, replace(gpu, status=Status.OOM, median_s=None), "a", "b", "x") is None


def test_ceiling_sentence_bounds_what_any_device_could_save():
    text = ceiling_sentence(row("cpu", 1.0, 0.97, 0.03), "cpu X", "DataLoader over images")
    assert "970 ms of the 1 s epoch" in text and "at most 3% less" in text and "can hardly matter" in text
    # issue 37: 'hardly matter' is the one rule's 'the same' (lib.core.same), not this page's old 20 %
    text = ceiling_sentence(row("cpu", 1.0, 0.9, 0.1), "cpu X", "DataLoader over images")
    assert "up to 10% of the epoch" in text and "the device can matter" in text
    text = ceiling_sentence(row("cpu", 1.0, 0.1, 0.9), "cpu X", "tensors already on the device")
    assert "up to 90% of the epoch" in text and "the device can matter" in text
    assert "cannot matter" in ceiling_sentence(row("cpu", 1.0, 1.05, 0.01), "cpu X", "images")
    no_loading = row("cpu", 1.0, 0.9, 0.1)
    no_loading = replace(no_loading, phases=no_loading.phases.with_(loading=None))
    assert ceiling_sentence(no_loading, "cpu", "images") is None


def test_sweep_summary_counts_the_points_within_the_line():
    rows = points_of(
        {"workload": "dataloader", "device": d, "batch_size": b, "median_s": t, "iqr_s": t / 10, "status": "ok"}
        for b, c, g in ((8, 1.0, 0.95), (64, 1.0, 0.5), (512, 1.0, 0.2))
        for d, t in (("cpu", c), ("cuda:0", g))
    )
    text = sweep_summary(rows, "batch_size", "batch size", "tensors", "cpu", "cuda:0")
    assert "at 1 of the 3 batch size values" in text and "(batch size 8)" in text
    assert "from 0.20× at 512 to 0.95× at 8" in text
    assert sweep_summary(rows[:1], "batch_size", "batch size", "tensors", "cpu", "cuda:0") is None


def test_phase_note_explains_overlap_only_where_something_can_overlap():
    assert "noise" in phase_note(row("cpu", 0.5, 0.5, 0.2, num_workers=0, source="images"), "cpu")
    assert "worker processes" in phase_note(row("cpu", 0.5, 0.5, 0.2, num_workers=2, source="images"), "cpu")
    assert "the GPU trains" in phase_note(row("cuda:0", 0.5, 0.5, 0.2), "gpu")
    assert "about loading plus compute" in phase_note(row("cpu", 0.7, 0.5, 0.2), "cpu")


# -- the page ----------------------------------------------------------------------------------------

_FIXTURE: dict[str, Path] = {}


def record_commands() -> list[str]:
    """The CLI commands the page shows for its default view (read from the page itself)."""
    with env(GPUWIN_RECORDED_DIR=str(Path(__file__).parent / "__no_such_dir__"), GPUWIN_LIVE_POINT_BUDGET_S="0.03"):
        at = open_page(PAGE, opened=(RECORD_KEY,))  # the commands are in its lazy 'Record this view'
        assert not at.exception, [e.value for e in at.exception]
        return [c.value for c in at.code if "python -m lib sweep dataloader" in c.value]


def fixture_dir(tmp_root: Path) -> Path:
    """A directory holding a TEST FIXTURE pack from the page's own commands, CPU rows renamed cuda:0."""
    if "dir" in _FIXTURE:
        return _FIXTURE["dir"]
    commands = record_commands()
    assert (
        len(commands) == 2
        and any("source=images" in c for c in commands)
        and any("source=tensors" in c for c in commands)
    )
    rows, machine = [], None
    for i, command in enumerate(commands):
        args = shlex.split(command)[1:]  # drop 'python'
        args = ["cpu" if a == "cpu,cuda" else a for a in args]
        over = args.index("--over") + 1
        args[over] = args[over].split("=")[0] + "=" + LIVE_GRID
        raw = tmp_root / f"raw_{i}.json"
        args[args.index("--out") + 1] = str(raw)
        args += ["--budget", "0.03", "--threads", "1", "--quiet"]
        subprocess.run([PY, *args], cwd=ROOT, check=True, capture_output=True, text=True, timeout=300)
        pack = json.loads(raw.read_text())
        machine, rows = pack["machine"], rows + pack["rows"]
    machine.update(gpus=[FIXTURE_GPU_NAME], label=FIXTURE_GPU_NAME)
    fixture_rows = []
    for r in rows:
        fixture_rows.append({**r, "machine": FIXTURE_GPU_NAME})
        fixture_rows.append({**r, "device": "cuda:0", "device_name": FIXTURE_GPU_NAME, "machine": FIXTURE_GPU_NAME})
    directory = tmp_root / "recorded"
    directory.mkdir()
    (directory / "test_fixture_dataloader.json").write_text(
        json.dumps({"schema_version": 1, "machine": machine, "rows": fixture_rows})
    )
    _FIXTURE["dir"] = directory
    return directory


@pytest.fixture
def no_pack(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")


@pytest.fixture
def with_pack(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")
    directory = fixture_dir(tmp_path_factory.mktemp("dataloader_fixture"))
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(directory))


def assert_view(at, at_text: str) -> str:
    """The page ran, drew the phase bars and both sweep charts, and said whether the device matters."""
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    assert len(specs) == 3, "phase bars and one sweep chart per feed expected"  # the sweep's 'Why?' is drawn closed
    text = page_text(open_whys(at))
    assert "loading (decode, batch, copy in)" in specs[0] and "compute (forward, backward, step)" in specs[0]
    assert "time of one epoch" in specs[0]
    assert "DataLoader over images" in specs[1] and "Tensors already on the device" in specs[2]
    assert all(CPU_LABEL in s for s in specs)
    assert "Does the device matter at these settings?" in text and "Where one epoch's time went" in text
    assert f"At {at_text}:" in text
    assert (
        text.count("With the DataLoader over images") >= 1 and text.count("With the tensors already on the device") >= 1
    )
    return text


@pytest.mark.cpu_view
def test_default_view_without_a_gpu(no_pack):
    at = open_page(PAGE, opened=("data_pipeline.results",))
    text = assert_view(at, "batch size = 64")
    # without a GPU: what no device could save, from the CPU's own phases
    assert "loading alone took" in text and "of the timed phases" in text
    assert "an epoch over images takes" in text and "as long as one over tensors" in text
    infos = "\n".join(str(i.value) for i in at.info)
    assert "No GPU on this server and no recorded data-pipeline results shipped" in infos
    assert at.query_params["over"] == "batch_size" and at.query_params["batch_size"] == "64"
    assert at.query_params["dataset_size"] == "256" and at.query_params["num_workers"] == "0"
    assert at.query_params["pin_memory"] == "false" and at.query_params["model"] == "linear"
    assert len(at.get("download_button")) == 2
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown).replace("\\", "")  # as read
    assert "No GPU on this server" in sidebar


@pytest.mark.slow
def test_every_control_moves_and_the_url_follows(no_pack):
    at = open_page(PAGE, opened=(LOADING,))
    assert_view(at, "batch size = 64")
    # a helper process last: each of its view's live epochs starts a DataLoader worker (seconds), the others none
    moves = [
        ("select_slider", "batch_size", 128, "batch size = 128"),
        ("toggle", "pin_memory", True, "batch size = 128"),
        ("radio", "model", "mlp", "batch size = 128"),
        ("select_slider", "dataset_size", 512, "batch size = 128"),
        ("radio", "over", "dataset_size", "dataset size = 512"),
        ("select_slider", "num_workers", 1, "dataset size = 512"),
    ]
    for kind, key, value, shown in moves:
        getattr(at, kind)(key=NS + key).set_value(value).run()
        text = assert_view(at, shown)
        expected = {True: "true", False: "false"}[value] if isinstance(value, bool) else str(value)
        assert at.query_params[key] == expected, (key, dict(at.query_params))
    assert "MLP 784-400-200-100-10" in text or at.radio(key=NS + "model").value == "mlp"
    # the link of this view reopens it, with nothing to adjust
    link = dict(at.query_params)
    again = open_page(PAGE, link, opened=(LOADING,))
    assert_view(again, "dataset size = 512")
    assert again.select_slider(key=NS + "num_workers").value == 1 and again.toggle(key=NS + "pin_memory").value is True
    assert not again.warning


def test_bad_link_values_are_clamped_or_ignored_with_a_note(no_pack):
    at = open_page(
        PAGE,
        {
            "batch_size": "100",
            "dataset_size": "1",
            "num_workers": "x",
            "pin_memory": "maybe",
            "model": "cnn",
            "over": "depth",
        },
    )
    assert not at.exception, [e.value for e in at.exception]
    note = "\n".join(str(w.value) for w in at.warning).replace("\\", "")  # as read: markdown escapes gone
    for fragment in (
        "batch_size=100",
        "using the nearest, 128",
        "dataset_size=1 is outside",
        "using 256",
        "num_workers='x'",
        "pin_memory='maybe'",
        "model='cnn'",
        "over='depth'",
    ):
        assert fragment in note, fragment
    assert_view(at, "batch size = 128")
    assert at.query_params["dataset_size"] == "256" and at.query_params["model"] == "linear"
    big = open_page(PAGE, {"num_workers": "-3", "batch_size": "1e9"})
    note = "\n".join(str(w.value) for w in big.warning).replace("\\", "")  # as read: markdown escapes gone
    assert "num_workers=-3 is outside" in note and "using 0" in note and "using 512" in note
    assert_view(big, "batch size = 512")


@pytest.mark.cpu_view
@pytest.mark.slow
def test_recorded_pack_is_the_gpu_side_and_says_the_device_does_not_matter(with_pack):
    at = open_page(PAGE, opened=(LOADING,))
    text = assert_view(at, "batch size = 64")
    specs = chart_specs(at)
    for spec in specs:
        assert f"cuda:0 (recorded on {FIXTURE_GPU_NAME}" in spec and f"cpu (recorded on {FIXTURE_GPU_NAME}" in spec
    # identical fixture copies: the page must find the two devices equal, from the rows
    assert "With the DataLoader over images, **the device does not matter**" in text
    assert "differ by under 1%" in text
    assert "count as the same at every one of the 3 batch size values" in text
    assert "the recording machine's CPU took" in text
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown).replace("\\", "")  # as read
    assert FIXTURE_GPU_NAME in sidebar
    assert not at.info

    # a setting the pack does not hold: said plainly, with a button back to a recorded sweep
    at.select_slider(key=NS + "num_workers").set_value(2).run()
    assert not at.exception
    infos = "\n".join(str(i.value) for i in at.info)
    assert "The recorded packs have no sweep over batch size for the DataLoader over images" in infos
    assert "2 workers" in infos
    assert "With the tensors already on the device, the two epochs differ" in page_text(at)
    offers = [b for b in at.button if b.label.startswith("Show the sweep over batch size")]
    assert offers and "0 workers" in offers[0].label
    offers[0].click().run()
    assert not at.exception
    assert at.select_slider(key=NS + "num_workers").value == 0 and at.query_params["num_workers"] == "0"
    assert "With the DataLoader over images, **the device does not matter**" in page_text(at)


@pytest.mark.cuda
def test_live_gpu_is_the_gpu_side(no_pack):
    """On a GPU server both devices are timed live, on the same machine, and compared in words."""
    at = open_page(PAGE)
    text = assert_view(at, "batch size = 64")
    specs = chart_specs(at)
    assert "cuda:0 (live, this server)" in specs[0] and "cuda:0 (live, this server)" in specs[1]
    assert "the device does not matter" in text or "the device matters" in text


# -- the workers slider offers what this server can run (issue 26 item 4) ------------------------------------
def test_worker_choices_stop_at_the_cores_unless_a_recording_holds_more():
    from lib.lessons.data_pipeline.view import worker_choices, workers_caption, workers_note

    assert worker_choices(2) == [0, 1, 2]
    assert worker_choices(1, recorded={0, 2}) == [0, 1, 2]
    assert worker_choices(2, recorded={0, 2, 4}) == [0, 1, 2, 4]
    assert worker_choices(64) == [0, 1, 2, 4]
    assert workers_note(2, 2) is None
    assert "This server has 2 CPU cores, so it does not run 4 workers live" in workers_note(4, 2)
    assert workers_caption(2, [0, 1, 2, 4]).endswith(
        "at most 2 workers live; 4 workers are shown from a GPU machine's recording only."
    )


@pytest.mark.cpu_view
@pytest.mark.slow  # its live view starts two DataLoader workers an epoch (about 20 s)
def test_a_two_core_server_offers_no_more_workers_than_cores(tmp_path, monkeypatch):
    import lib.core.devices

    monkeypatch.setattr(lib.core.devices, "usable_cores", lambda: 2)
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))  # nothing recorded: every choice runs live
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")
    at = open_page(PAGE, {"num_workers": "4"}, opened=(LOADING,))
    assert not at.exception
    assert at.select_slider(key=NS + "num_workers").options == ["0", "1", "2"]
    assert at.select_slider(key=NS + "num_workers").value == 2
    assert "num_workers=4 is outside this slider's range (0 to 2); using 2" in page_text(at).replace("\\", "")


@pytest.mark.cpu_view
def test_recorded_workers_beyond_the_cores_are_shown_from_the_recording_only(monkeypatch):
    import lib.core.devices

    monkeypatch.setattr(lib.core.devices, "usable_cores", lambda: 2)
    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)  # the shipped H200 pack holds 4 workers
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")
    at = open_page(PAGE, {"num_workers": "4"}, opened=(LOADING,))
    assert not at.exception
    assert at.select_slider(key=NS + "num_workers").options == ["0", "1", "2", "4"]
    text = page_text(at)
    assert "This server has 2 CPU cores, so it does not run 4 workers live" in text
    assert "4 workers are shown from a GPU machine's recording only" in text
    assert all(CPU_LABEL not in spec for spec in chart_specs(at))  # nothing measured live with 4 workers
    assert any("NVIDIA H200" in spec for spec in chart_specs(at))


def test_a_note_about_another_machines_recording_names_only_what_is_drawn(monkeypatch, tmp_path):
    """Issue 23 (random views): with the H200 in the sidebar and a view only the H100 recorded, the note said
    'The GPU results chosen in the sidebar (NVIDIA H200, 2026-11-21, 2026-11-23 and 2026-11-24) hold no
    data-pipeline rows for this view': dates and a machine of which no row is on the page.

    The shipped packs as they were before the H200's grid was finished: every pack but the H200's later
    pipeline packs (h200_pipeline_images_<day>), so its 2026-11-24 grid (560 of 896 rows) lacks the MLP with
    workers, which the H100's grid holds."""
    import shutil

    from random_views import read_view
    from view_checks import dates_and_machines_on_chart

    shipped = ROOT / "lib" / "recorded"
    later = shutil.ignore_patterns("h200_pipeline_images_*", "__pycache__", "*.py")
    shutil.copytree(shipped, tmp_path / "recorded", ignore=later)
    assert (tmp_path / "recorded" / "h200_pipeline_images.json.gz").exists()
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path / "recorded"))
    monkeypatch.setenv("GPUWIN_LIVE_MAX_GFLOP_CPU", "0.000000001")  # the recorded side alone
    # the MLP with 4 workers: the H100's grid holds it, the H200's 2026-11-24 grid does not
    query = {
        "gpu": "nvidia-h200",
        "over": "dataset_size",
        "batch_size": "256",
        "dataset_size": "2048",
        "model": "mlp",
        "num_workers": "4",
        "pin_memory": "true",
    }
    at = visit(PAGE, query)
    text = page_text(at)
    assert (
        "No recording of the GPU chosen in the sidebar holds this view of the data pipeline, so the recorded "
        "side drawn comes from another machine: NVIDIA H100 80GB HBM3" in text
    )
    reading = read_view(at, PAGE, query)
    found = dates_and_machines_on_chart(reading)
    assert not found, "\n".join(f.line(reading.url) for f in found)


def test_the_chosen_gpus_images_grid_is_drawn_when_another_of_its_packs_holds_only_tensors(monkeypatch):
    """Issue 23 (found by the lead on the shipped packs): with the H200 in the sidebar and 4 workers, the page said
    "Nothing was measured at batch size = 64 with images fed by a DataLoader" and "DataLoader over images: nothing
    was timed" while the H200's images grid (2026-11-24; re-recorded 2026-11-29) holds that view: its older tensors
    pack was taken whole."""

    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)
    at = visit(PAGE, {"gpu": "nvidia-h200", "num_workers": "4", "model": "linear"})
    assert not at.exception, [e.value for e in at.exception]
    text = page_text(at)
    assert "nothing was timed" not in text and "Nothing was measured" not in text, text[:400]
    assert "images · cuda:0 (recorded on NVIDIA H200, 2026-11-29)" in text
    assert any("images · cuda:0 (recorded on NVIDIA H200, 2026-11-29)" in spec for spec in chart_specs(at))


def test_the_h200s_worker_rows_draw_the_epoch_the_answer_quotes(monkeypatch):
    """The H200's grid recorded on 2026-11-27 (the MLP with workers; re-recorded quiet on 2026-11-29): the GPU's bar of loading + compute, each timed on
    its own, ran past the epoch the answer quotes (workers load the next batches while the main process trains), and
    no mark drew that epoch. Now a tick draws it, the caption says why the bar is longer, and the bars say their day."""
    from test_lessons_pipeline import shipped_rows

    from lib.core.fmt import fmt_s
    from lib.lessons.data_pipeline.view import WHOLE_EPOCH

    monkeypatch.delenv("GPUWIN_RECORDED_DIR", raising=False)
    monkeypatch.setenv("GPUWIN_LIVE_MAX_GFLOP_CPU", "0.000000001")  # the recorded side alone
    where = {
        "model": "mlp",
        "num_workers": 4,
        "pin_memory": True,
        "dataset_size": 2048,
        "batch_size": 64,
        "source": "images",
        "machine": "NVIDIA H200 (2026-11-29)",
    }
    (gpu,) = [r for r in shipped_rows(**where) if r["device"] == "cuda:0" and r.get("swept")]
    assert gpu["median_s"] < 0.9 * (gpu["phase_loading_s"] + gpu["phase_compute_s"])  # the case: phases overlap
    at = visit(
        PAGE,
        {
            "gpu": "nvidia-h200",
            "over": "dataset_size",
            "batch_size": "64",
            "dataset_size": "2048",
            "model": "mlp",
            "num_workers": "4",
            "pin_memory": "true",
        },
    )
    first = chart_specs(at)[0]
    assert WHOLE_EPOCH in first and "images · cuda:0 (recorded on NVIDIA H200, 2026-11-29)" in first
    text = page_text(at)
    assert f"{fmt_s(gpu['median_s'])} on the GPU" in text  # the answer quotes the epoch the tick draws
    assert f"the whole epoch ({fmt_s(gpu['median_s'])}) took less than loading and compute timed apart" in text
    assert "No recording of the GPU chosen in the sidebar holds this view" not in text  # the H200's own rows now
