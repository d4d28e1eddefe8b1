"""What the Jacobian page computes (lib.lessons.jacobian.view), on hand-written rows: no Streamlit."""

from __future__ import annotations

from made_rows import jacobian_rows

from lib.core.crossover import CrossKind
from lib.core.point import points_of
from lib.lessons.common import onscreen
from lib.lessons.jacobian import memory
from lib.lessons.jacobian import screen as S
from lib.lessons.jacobian import view as lesson
from lib.lessons.jacobian.points import MethodPoint

CPU, GPU, SAME = "cpu (live, this server)", "cuda:0 (recorded on X)", "cpu (recorded on X)"


def jac_rows(series: str, device: str, method: str, times: dict[int, float | None]) -> list[MethodPoint]:
    return [MethodPoint.of_row(r) for r in jacobian_rows(series, device, method, times)]


def test_methods_budget_and_the_live_request():
    assert lesson.ordered(["vmap_jacfwd", "bogus", "loop"]) == ["loop", "vmap_jacfwd"]
    assert lesson.point_budget(0.1) == lesson.POINT_BUDGET_S and lesson.point_budget(0.01) == 0.01
    request = lesson.live_request("loop", [1, 10], ["cpu"], point_budget_s=0.03, threads=1, memory_cap_gb=2.7)
    assert request.job is lesson.live_rows and request.args == ("loop", [1, 10], ["cpu"])
    assert request.kwargs["memory_cap_gb"] == 2.7 and request.kwargs["num_threads"] == 1
    assert request.kwargs["current"] is None  # the decades' views share one measurement
    assert lesson.measure_label("vmap_jacfwd", [1, 10], ["cpu"]) == "jacobian vmap(jacfwd) over val=1,10 on cpu"
    assert lesson.views(["loop"], 100) == {"loop": {"method": "loop", "val": 100}}


def test_missing_note_names_the_methods_in_words():
    one = onscreen.RecordedViews(missing=["vmap_jacfwd"], note="n", holds_workload=True)
    assert "no jacobian sweep over val for vmap(jacfwd) with the seed's network" in lesson.missing_note(one, "X")
    assert "no GPU curve for it:" in lesson.missing_note(one, "X")
    two = onscreen.RecordedViews(missing=["loop", "vectorize"], note="n", holds_workload=True)
    assert "for loop and vectorize" in lesson.missing_note(two, "X") and "for them:" in lesson.missing_note(two, "X")
    assert lesson.missing_note(onscreen.RecordedViews(missing=["loop"], note="hold nothing"), "X") == "hold nothing"
    assert lesson.missing_note(onscreen.RecordedViews(), "X") is None


def test_chart_rows_and_the_memory_cap_line():
    (row,) = lesson.time_rows(jac_rows(CPU, "cpu", "vmap_jacrev", {1: 1e-3}))
    assert row["method_label"] == "vmap(jacrev)"
    assert memory.memory_cap_rule(2.7) == (2.7e9, "memory cap for live runs here: 2.7 GB")


def test_crossover_lines_per_method_and_on_the_recording_machine():
    rows = (
        jac_rows(CPU, "cpu", "loop", {1: 0.02, 10: 0.5})
        + jac_rows(GPU, "cuda:0", "loop", {1: 0.05, 10: 0.25})
        + jac_rows(SAME, "cpu", "loop", {1: 0.01, 10: 0.1})
    )
    lines = lesson.crossover_lines(
        rows, ["loop"], "X", onscreen.same_machine_intro({"cpu_model": "Xeon", "torch_threads": 8})
    )
    assert lines[0].about.kind == CrossKind.CROSSES and lines[0].markdown().startswith("**loop**: the GPU ")
    assert lines[1].plain() == "On the recording machine itself (Xeon, 8 threads), the comparison the seed made:"
    assert lines[2].about.kind == CrossKind.CPU_WINS and lines[2].markdown().startswith(
        "- **loop**: the CPU is faster than the GPU at every val"
    )
    assert len(lesson.crossover_lines(rows[:4], ["loop"], "X", onscreen.same_machine_intro({"cpu_model": "Xeon"}))) == 1
    [none] = lesson.crossover_lines(rows[:2], ["loop"], "X", None)
    assert none.about.kind == CrossKind.ONE_DEVICE
    assert none.plain() == "There is no GPU curve on screen, so there is no crossover to show."


def test_why_sentences_split_by_method_read_counts_and_times():
    rows = jac_rows(GPU, "cuda:0", "loop", {100: 20.0}) + jac_rows(CPU, "cpu", "vectorize", {10: 1e-3, 100: None})
    assert "400 × 100 = **40,000 backward passes**" in lesson.loop_why(rows, 100, [GPU])
    assert "it took 20 s at val = 100 for 40,000 passes: 500 µs per pass" in lesson.loop_why(rows, 100, [GPU])
    assert "of which only 1/1,000 can be non-zero" in lesson.loop_why([], 1000, [])
    text = lesson.vectorize_why(rows, 100, [CPU])
    assert "(400 × 100)² = 1,600,000,000 numbers, 6.4 GB in fp32" in text
    assert f"On {CPU} it was not run from val = 100 on: needs about 9 GB" in text
    assert "40,000 numbers instead of 4,000,000 at val = 100" in lesson.vmap_why(100)
    both = jac_rows(CPU, "cpu", "vmap_jacfwd", {10: 1e-3}) + jac_rows(CPU, "cpu", "vmap_jacrev", {10: 4e-3})
    assert "jacfwd is 4.00× faster" in lesson.modes_why(both, 10, ["vmap_jacfwd", "vmap_jacrev"], [CPU])
    assert "On " not in lesson.modes_why(both, 10, ["vmap_jacfwd"], [CPU])
    assert len(lesson.why_sentences(rows, 100, ["loop", "vectorize", "vmap_jacfwd"], [CPU, GPU])) == 4


def test_the_screen_labels_live_rows_and_reads_every_sentence_from_them():
    # live rows come unlabelled: the screen names them
    live = [
        {k: v for k, v in r.items() if k != "series"}
        for r in jacobian_rows(CPU, "cpu", "loop", {1: 1e-3, 10: 5e-3, 100: None})
    ]
    shown = S.jacobian_screen(points_of(live), onscreen.RecordedViews(), 100, ["loop"])
    assert {p.series for p in shown.points} == {onscreen.LIVE_CPU} and shown.order == [onscreen.LIVE_CPU]
    assert [r["val"] for r in shown.time_rows] == [1, 10]  # the refused point is not on the time chart
    assert shown.at_val()[0] == "At val = 100:" and shown.at_val()[1:] == lesson.at_val_sentences(
        shown.points, 100, shown.order
    )
    assert shown.not_measured() == [p.record() for p in memory.not_measured(shown.points)]
    assert shown.not_measured() == [
        {
            "measured on": onscreen.LIVE_CPU,
            "method": "loop",
            "val": 100,
            "status": "refused",
            "why": "needs about 9 GB, more than the cap",
        }
    ]
    assert shown.crossover_lines() == [lesson.crossover_lines(shown.points, ["loop"], None, None)[0].markdown()]
    assert S.jacobian_screen([], onscreen.RecordedViews(), 100, []).why_none.startswith("No method is chosen")
    requests = S.live_requests(["loop"], [1, 10], ["cpu"], live_budget_s=0.1, threads=1, memory_cap_gb=2.0)
    label, request = requests["loop"]
    assert label == lesson.measure_label("loop", [1, 10], ["cpu"])
    assert request.kwargs["point_budget_s"] == lesson.POINT_BUDGET_S  # the server's budget, at most the lesson's


def test_the_time_charts_val_axis_ticks_the_round_numbers_it_draws():
    """The val axis drew points at 1,000 with no 1,000 tick: its ticks, the drawn values thinned evenly to seven,
    kept 3 and 3,000 and dropped 10 and 1,000. Read from the spec the page draws (ui.jacobian_parts.TIME_LINES)."""
    import pandas as pd

    from lib.charts.variants import variant_chart
    from ui.jacobian_parts import TIME_LINES

    times = {v: 1e-4 * v for v in lesson.VALS}
    live = [{k: v for k, v in r.items() if k != "series"} for r in jacobian_rows(CPU, "cpu", "vmap_jacrev", times)]
    shown = S.jacobian_screen(points_of(live), onscreen.RecordedViews(), 1000, ["vmap_jacrev"])
    spec = variant_chart(pd.DataFrame(shown.time_rows), TIME_LINES).to_dict()
    ticks = next(
        layer["encoding"]["x"]["axis"]["values"] for layer in spec["layer"] if "axis" in layer["encoding"]["x"]
    )
    drawn = sorted({r["val"] for r in shown.time_rows})
    assert drawn == list(lesson.VALS)
    assert ticks == [1, 10, 100, 1000, 10000]  # every power of ten drawn, the first and the last value drawn
    assert len(ticks) <= 7


def test_a_series_with_no_timed_point_is_not_named_as_a_curve():
    """Found with every live point refused by the gate (2026-11-29): 'On **cpu (live, this server)** at val = 10: not
    timed: …' set in bold, as a curve's name, a series the chart does not draw."""
    refused = jac_rows(CPU, "cpu", "loop", {1: None, 10: None}) + jac_rows(
        CPU, "cpu", "vmap_jacrev", {1: None, 10: None}
    )
    drawn = jac_rows(GPU, "cuda:0", "loop", {1: 1e-3, 10: 5e-3}) + jac_rows(
        GPU, "cuda:0", "vmap_jacrev", {1: 1e-4, 10: 2e-4}
    )
    said = lesson.at_val_sentences(refused + drawn, 10, [CPU, GPU])
    assert said[0] == f"On {CPU}, no point on screen was timed (why: in the table of points not measured)."
    assert said[1].startswith(f"On **{GPU}** at val = 10: vmap(jacrev) 200 µs, loop 5 ms.")
