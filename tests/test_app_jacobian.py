"""The Jacobian page (seed 004) through streamlit.testing's AppTest: real Streamlit, real torch.

CUDA is absent here. The GPU side is either missing (an empty recorded-pack directory) or a
test-fixture pack (tests/lesson_fixtures.py: real CPU rows from the CLI, renamed cuda:0).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app_support import FIXTURE_GPU_NAME, chart_specs, open_page, open_whys, page_text, pick_gpu
from lesson_support import chart_frames, fixture_dir
from made_rows import jacobian_rows

from lib.core.crossover import CrossKind
from lib.lessons.jacobian.points import MethodPoint
from lib.recorded.sources import slug
from ui.scaffold import RECORD_KEY

PAGE = "pages/jacobian.py"
NS = "jacobian."
CPU_LABEL = "cpu (live, this server)"
GPU_LABEL = f"cuda:0 (recorded on {FIXTURE_GPU_NAME}"
# lib.lessons.common.voice's words for each kind: live CPU rows on a loaded box may land on any of them
CROSSOVER_WORDS = ("catches up", "at every val", "trade the lead", "Too few points")


@pytest.fixture
def no_pack(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")


@pytest.fixture
def with_pack(monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(fixture_dir("jacobian")))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")


MEMORY_KEY = "jacobian.memory"  # the lazy expander 'Why? The memory each method needs'


def markdown(at) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


def assert_view(at, val: int) -> str:
    """The page ran, drew the time and memory charts, and said what happened at `val`, with numbers.
    'The memory each method needs' is lazy: closed, the page draws the time chart alone; a visitor opens it."""
    assert not at.exception, [e.value for e in at.exception]
    if not (MEMORY_KEY in at.session_state and at.session_state[MEMORY_KEY]):
        assert len(chart_specs(at)) <= 1, "a closed lazy expander drew its chart"
        at.session_state[MEMORY_KEY] = True
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    open_whys(at)  # the 'Why?' sections below the chart, which a reader opens
    specs = chart_specs(at)
    assert len(specs) == 2, "time chart and memory chart expected"
    assert CPU_LABEL in specs[0] and "time per Jacobian" in specs[0]
    assert "estimated peak memory" in specs[1]
    text = page_text(at)
    assert "What the measurements say at the chosen val" in text and f"At val = {val:,}:" in text
    assert f"On **{CPU_LABEL}** at val = {val:,}:" in markdown(at)
    assert "block-diagonal" in text and f"only the {val:,} diagonal blocks" in text
    return text


def refused_table(at) -> list[dict]:
    frames = [d.value for d in at.dataframe if "why" in d.value.columns]
    return frames[0].to_dict("records") if frames else []


ALL_FOUR = "loop,vectorize,vmap_jacrev,vmap_jacfwd"


@pytest.mark.cpu_view
def test_the_first_chart_compares_the_seeds_loop_with_vmap_jacrev(no_pack):
    """Issue 37: the first chart drew all eight lines (four methods, two devices); it opens on the two a student
    compares first, and the pills hold the other two."""
    at = open_page(PAGE)
    assert at.query_params["methods"] == "loop,vmap_jacrev"
    drawn = {m for f in chart_frames(at, 0) for m in f.get("d", [])}  # "d": the line style, one per method
    assert drawn == {"loop", "vmap(jacrev)"}
    assert "the chart opens on the seed's loop and vmap(jacrev)" in page_text(open_whys(at))


@pytest.mark.cpu_view
def test_all_four_methods_without_a_gpu(no_pack):
    at = open_page(PAGE, {"methods": ALL_FOUR}, opened=("jacobian.results", "jacobian.memory", RECORD_KEY))
    text = assert_view(at, 100)
    md = markdown(at)
    # the loop cannot run at val = 100 here; the page compares where it did run, in numbers
    assert "The loop was not timed at val = 100; at val = 1, the largest val where it was" in md
    assert "faster** than the seed's loop" in md
    assert "400 × 100 = **40,000 backward passes**" in md
    assert "(400 × 100)² = 1,600,000,000 numbers, 6.4 GB in fp32" in md
    assert "forward mode (jacfwd)** needs one pass per sample" in md and "needs 400 (one per output)" in md
    assert "There is no GPU curve on screen, so there is no crossover to show." in text
    assert "No GPU on this server and no recorded GPU results shipped yet" in text
    # refused points are on screen with their reasons: a table, and crosses on the memory chart
    refused = refused_table(at)
    reasons = {(r["method"], r["val"]): r["why"] for r in refused}
    assert "more than the 2.7 GB memory cap" in reasons[("loop", 100)]
    assert "more than the 2.7 GB memory cap" in reasons[("vectorize", 100)]
    assert "backward passes per call" in reasons[("loop", 10)]
    assert all(r["status"] == "refused" for r in refused)
    memory = chart_frames(at, 1)
    marks = next(f for f in memory if "detail" in f.columns)
    crossed = marks[marks["s"] == "not measured"]
    assert {(c, int(x)) for c, x in zip(crossed["c"], crossed["x"])} == set(reasons)
    assert any("memory cap for live runs here: 2.7 GB" in list(f.get("label", [])) for f in memory)
    assert "it was not run from val = 100 on: needs about" in md  # vectorize's refusal, read from the rows
    assert at.query_params["val"] == "100"
    assert at.query_params["methods"] == ALL_FOUR
    assert len(at.get("download_button")) == 2
    assert any("python -m lib sweep jacobian --over val=1,10,100,1000 --set method=loop" in c.value for c in at.code)


@pytest.mark.slow
def test_every_control_moves_and_the_url_follows(no_pack):
    at = open_page(PAGE)
    assert_view(at, 100)

    at.select_slider(key=NS + "val").set_value(3).run()
    assert_view(at, 3)
    md = markdown(at)
    assert at.query_params["val"] == "3"
    line = next(m for m in md.splitlines() if m.startswith(f"On **{CPU_LABEL}** at val = 3:"))
    assert "loop" in line and "faster** than the seed's loop" in line and "was not timed at val = 3" not in line
    assert "400 × 3 = **1,200 backward passes**" in md

    at.pills(key=NS + "methods").set_value(["vmap_jacrev", "vmap_jacfwd"]).run()
    assert_view(at, 3)
    assert at.query_params["methods"] == "vmap_jacrev,vmap_jacfwd"
    assert "Add the loop to the methods to compare with the seed's method." in markdown(at)
    assert "vectorize=True" not in markdown(at)
    domain = json.dumps(json.loads(chart_specs(at)[0]))
    assert "vmap(jacfwd)" in domain and '"loop"' not in domain

    at.pills(key=NS + "methods").set_value([]).run()
    assert not at.exception
    assert "Pick at least one method below" in page_text(at)
    assert not chart_specs(at)

    at.pills(key=NS + "methods").set_value(["loop", "vmap_jacfwd"]).run()
    at.select_slider(key=NS + "val").set_value(1000).run()
    assert_view(at, 1000)
    link = dict(at.query_params)
    assert link == {"val": "1000", "methods": "loop,vmap_jacfwd"}

    # the URL of this view reopens the same view
    again = open_page(PAGE, link)
    assert_view(again, 1000)
    assert again.pills(key=NS + "methods").value == ["loop", "vmap_jacfwd"]
    assert not again.warning


def test_bad_link_values_get_a_note_not_a_traceback(no_pack):
    at = open_page(PAGE, {"val": "50", "methods": "loop,bogus"})
    assert not at.exception, [e.value for e in at.exception]
    note = "\n".join(str(w.value) for w in at.warning).replace("\\", "")  # as read: markdown escapes gone
    assert "Some settings in the link were adjusted" in note
    assert "val=50 is not one of this slider's steps; using the nearest, 30" in note
    assert "'bogus' is not one of loop, vectorize, vmap_jacrev, vmap_jacfwd; left out" in note
    assert at.pills(key=NS + "methods").value == ["loop"]
    assert at.query_params["val"] == "30" and at.query_params["methods"] == "loop"
    assert_view(at, 30)

    at = open_page(PAGE, {"val": "abc", "methods": "nothing"})
    assert not at.exception, [e.value for e in at.exception]
    note = "\n".join(str(w.value) for w in at.warning).replace("\\", "")  # as read: markdown escapes gone
    assert "val='abc' is not a number; using the default, 100" in note
    assert "methods='nothing' names none of" in note
    assert at.query_params["methods"] == "loop,vmap_jacrev"  # the default pair


@pytest.mark.cpu_view
@pytest.mark.serial  # live CPU rows against the fixture's: on a loaded box a method's words changed
@pytest.mark.slow  # its recorded pack is made by the CLI (seconds of sweeps), outside the everyday loop
def test_recorded_pack_is_the_gpu_side_method_by_method(with_pack):
    at = open_page(PAGE, {"methods": ALL_FOUR})
    text = assert_view(at, 100)
    specs = chart_specs(at)
    assert GPU_LABEL in specs[0] and "a GPU" in specs[1]  # the GPU's memory estimate beside the CPU's
    md = markdown(at)
    assert f"On **{GPU_LABEL}" in md
    crossovers = [m for m in md.splitlines() if any(w in m for w in CROSSOVER_WORDS)]
    assert len(crossovers) == 4, crossovers
    for method in ("loop", "vectorize", "vmap(jacrev)", "vmap(jacfwd)"):
        assert any(c.startswith(f"**{method}**:") for c in crossovers), method
    assert f"On {GPU_LABEL}" in md and "passes:" in md  # the loop's time per pass, on the recorded GPU too
    assert "No GPU on this server and no recorded GPU results" not in text
    sidebar = "\n".join(str(m.value) for m in at.sidebar.markdown).replace("\\", "")  # as read
    assert f"recorded on {FIXTURE_GPU_NAME}" in sidebar

    # the recording machine's own CPU: a third curve, and the same-machine crossover per method
    at.toggle(key=NS + "recorded_cpu").set_value(True).run()
    assert_view(at, 100)
    assert f"cpu (recorded on {FIXTURE_GPU_NAME}" in chart_specs(at)[0]
    md = markdown(at)
    assert "On the recording machine itself" in md
    same = [m for m in md.splitlines() if m.startswith("- **") and any(w in m for w in CROSSOVER_WORDS)]
    assert len(same) == 4, same
    assert at.query_params["recorded_cpu"] == "true"


@pytest.mark.cpu_view
@pytest.mark.slow  # its recorded pack is made by the CLI (seconds of sweeps), outside the everyday loop
def test_pack_without_jacobian_rows_says_so(monkeypatch):
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(fixture_dir("matmul64")))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")
    at = open_page(PAGE, {"methods": "vmap_jacfwd"})
    assert_view(at, 100)
    infos = "\n".join(str(i.value) for i in at.info).replace("\\", "")  # as read: markdown escapes removed
    assert "were recorded for the Timing pitfalls lesson only, so this page shows no GPU curve" in infos
    assert "no other recorded GPU has results for this page." in infos
    assert GPU_LABEL not in chart_specs(at)[0]


@pytest.mark.cpu_view
@pytest.mark.slow  # its recorded pack is made by the CLI (seconds of sweeps), outside the everyday loop
def test_a_machine_without_jacobian_rows_is_said_plainly_and_no_other_machine_drawn(tmp_path, monkeypatch):
    """The machine chosen in the sidebar holds only matmul rows; the page says so, names the machine
    that has jacobian rows, and never draws that machine's curve in the chosen one's place (issue 26). That machine
    holds the sweep of the method the view shows (the CLI's, one command): the four methods' pack is recorded by the
    serial part, quiet, for the test that draws it."""
    timing = json.loads(next(fixture_dir("matmul64").glob("*.json")).read_text())
    jacobian = json.loads(next(fixture_dir("vmap_jacfwd").glob("*.json")).read_text())
    other = "TEST FIXTURE B (CPU rows renamed cuda:0)"
    jacobian["machine"] = {**jacobian["machine"], "gpus": [other], "label": other}
    jacobian["rows"] = [{**r, "machine": other} for r in jacobian["rows"]]
    (tmp_path / "a_timing.json").write_text(json.dumps(timing))
    (tmp_path / "b_jacobian.json").write_text(json.dumps(jacobian))
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    monkeypatch.setenv("GPUWIN_LIVE_POINT_BUDGET_S", "0.03")
    chosen = slug("TEST FIXTURE (CPU rows renamed cuda:0)")  # the machine without jacobian rows, by link
    at = open_page(PAGE, {"methods": "vmap_jacfwd"})
    pick_gpu(at, chosen)  # picked in the sidebar
    assert_view(at, 100)
    infos = "\n".join(str(i.value) for i in at.info).replace("\\", "")  # as read: markdown escapes removed
    assert "were recorded for the Timing pitfalls lesson only, so this page shows no GPU curve" in infos
    # the note names no machine (about what is not drawn); the sidebar's list names the one to pick
    assert "pick another machine under “GPU results from” for one" in infos and "TEST FIXTURE B" not in infos
    assert "recorded on" not in chart_specs(at)[0]
    assert Path(tmp_path / "b_jacobian.json").exists()


# -- the sentences on GPU-like numbers (hand-written rows: the CPU fixture cannot behave like a GPU) --------
def jac_rows(series: str, device: str, method: str, times: dict[int, float | None]) -> list[MethodPoint]:
    return [MethodPoint.of_row(r) for r in jacobian_rows(series, device, method, times)]


def test_crossover_and_loop_sentences_read_the_numbers():
    from lib.lessons.jacobian import view as lesson

    cpu, gpu = "cpu (live, this server)", "cuda:0 (recorded on X)"
    rows = (
        jac_rows(cpu, "cpu", "loop", {1: 0.02, 10: 0.5, 100: None})
        + jac_rows(gpu, "cuda:0", "loop", {1: 0.05, 10: 0.25, 100: 20.0})
        + jac_rows(cpu, "cpu", "vmap_jacfwd", {1: 1e-3, 10: 1.2e-3, 100: 1.5e-3})
        + jac_rows(gpu, "cuda:0", "vmap_jacfwd", {1: 2e-3, 10: 2e-3, 100: 2e-3})
    )
    text = lesson.crossover_sentence(rows, "loop", cpu, gpu)
    assert text.about.kind == CrossKind.CROSSES and text.about.bracket == (1, 10)
    assert text.markdown().startswith("**loop**: the GPU ") and "the CPU between val 1 and 10" in text.plain()
    text = lesson.crossover_sentence(rows, "vmap_jacfwd", cpu, gpu)
    assert text.about.kind == CrossKind.CPU_WINS and text.about.span == (1, 100)
    assert "the CPU is faster than the GPU at every val both curves have, from 1 to 100" in text.plain()
    cpu_line, gpu_line = lesson.at_val_sentences(rows, 100, [cpu, gpu])
    assert "not timed: loop" in cpu_line
    assert (
        "at val = 10, the largest val where it was, the fastest method, vmap(jacfwd) (1.2 ms), is **417× faster**"
    ) in cpu_line
    assert "vmap(jacfwd) (2 ms), is **10,000× faster** than the seed's loop (20 s)" in gpu_line
    why = "\n".join(lesson.why_sentences(rows, 100, ["loop", "vmap_jacfwd"], [cpu, gpu]))
    assert "On cuda:0 (recorded on X) it took 20 s at val = 100 for 40,000 passes: 500 µs per pass." in why
