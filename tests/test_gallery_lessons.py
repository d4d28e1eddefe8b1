"""What the Gallery page computes (lib.lessons.gallery.view) and draws (lib.charts.gallery), from the shipped
H200 and H100 packs (real GPU recordings) and a CPU pack measured here."""

from __future__ import annotations

import json

import pytest
from gallery_support import cpu_pack

from lib.core.crossover import analyse_rows
from lib.lessons.common.voice import likely_about
from lib.lessons.gallery.view import (
    compare_query,
    crossover_points,
    crossover_words,
    entry_machines,
    gallery_comparison,
    labelled_pack,
    parse_picks,
    shipped_machines,
    sort_machines,
    speedup_frame,
    table_rows,
)
from lib.recorded.gallery.entry import prepare_pack, shipped_gallery_packs
from lib.recorded.gallery.store import Entry
from lib.recorded.pack import Pack


def entry(entry_id: int, name: str, pack: Pack, added: float, course: str = "") -> Entry:
    machine = pack.machine.fields
    return Entry(
        entry_id,
        course,
        name,
        machine["label"],
        machine["cpu_model"],
        machine["cpu_model"],
        "",
        machine["torch"],
        machine["date"],
        added,
        "cpu",
        len(pack.rows),
        False,
    )


@pytest.fixture(scope="module")
def machines():
    shipped = shipped_gallery_packs()
    assert [stem for stem, _ in shipped] == ["h100_training", "h200_training"]
    mine = prepare_pack(Pack.from_json(cpu_pack())).pack
    entries = [entry(7, "<b>Ada</b>", mine, 2000.0, "ML101"), entry(9, "Bob", mine, 3000.0)]
    return shipped_machines(shipped) + entry_machines(entries, {7: mine, 9: mine})


def test_each_machine_gets_its_own_line_even_on_the_same_hardware(machines):
    lines = [m.line for m in machines]
    assert lines[:2] == ["NVIDIA H100 80GB HBM3 · shipped", "NVIDIA H200 · shipped"]
    assert lines[2].startswith("<b>Ada</b> · ") and lines[2].endswith("(#7)") and lines[3].endswith("(#9)")
    assert len(set(lines)) == 4
    comparison = gallery_comparison(machines)
    assert comparison.machines == lines  # one curve set per machine, the two identical CPU packs included


def test_the_crossover_of_each_machine_is_the_one_the_cli_reads_from_its_rows(machines):
    comparison = gallery_comparison(machines)
    rows = {r.key: r for r in table_rows(machines, comparison)}
    for key, stem in (("shipped:h200_training", "h200_training"), ("shipped:h100_training", "h100_training")):
        pack = dict(shipped_gallery_packs())[stem]
        expected = analyse_rows(pack.rows, "batch_size").measured
        assert expected.kind == "crosses"
        # issue 37: the number and the words show only the digits the bracket supports (none past 4×)
        about = likely_about(expected)
        shown = rows[key].catches_up_at
        assert shown == (float(about.replace(",", "")) if about else None)
        assert rows[key].crossover == (
            f"≈ {about}" if about else "between {:,} and {:,}".format(*(int(v) for v in expected.sure))
        )
    assert rows["7"].crossover == "CPU only" and rows["7"].catches_up_at is None
    assert rows["7"].named_by == "<b>Ada</b>" and rows["7"].course == "ML101" and rows["9"].course == "none"
    assert rows["shipped:h200_training"].named_by == "shipped with the app"
    assert rows["shipped:h200_training"].devices == "cpu, cuda:0"


def test_the_speedup_lines_are_one_per_gpu_machine_and_cross_one_where_the_table_says(machines):
    comparison = gallery_comparison(machines)
    frame = speedup_frame(comparison)
    assert sorted(frame["machine"].unique()) == sorted(["NVIDIA H200 · shipped", "NVIDIA H100 80GB HBM3 · shipped"])
    assert len(frame) == 16
    h200 = frame[frame["machine"] == "NVIDIA H200 · shipped"].set_index("x")["speedup"]
    assert h200[1.0] < 1 < h200[8192.0]  # the CPU wins the smallest batch, the GPU the largest
    points = crossover_points(comparison).set_index("machine")["x"]
    lo, hi = comparison.crossovers["NVIDIA H200 · shipped"].bracket
    assert h200[lo] < 1 <= h200[hi]
    # a mark only where the words name a value (issue 37: not inside a bracket more than 4× wide)
    if likely_about(comparison.crossovers["NVIDIA H200 · shipped"]) is None:
        assert "NVIDIA H200 · shipped" not in points
    else:
        assert lo < points["NVIDIA H200 · shipped"] < hi


def test_sorting(machines):
    comparison = gallery_comparison(machines)
    by = {
        key: [m.key for m in sort_machines(machines, comparison, key)]
        for key in ("crossover", "newest", "name", "machine")
    }
    x = {m.key: crossover_words(comparison, m)[0] for m in machines}  # the sort's key (the table shows it rounded)
    assert by["crossover"][:2] == sorted(["shipped:h200_training", "shipped:h100_training"], key=x.get)
    assert by["newest"] == ["9", "7", "shipped:h100_training", "shipped:h200_training"]
    assert by["name"] == ["7", "9", "shipped:h100_training", "shipped:h200_training"]  # '<b>Ada</b>' < 'Bob'
    assert by["machine"][-2:] == ["shipped:h100_training", "shipped:h200_training"]  # NVIDIA H100 < NVIDIA H200
    with pytest.raises(ValueError, match="sort by one of"):
        sort_machines(machines, comparison, "price")


def test_picks_for_the_comparison_view_round_trip_and_odd_items_are_named():
    query = compare_query(["12", "shipped:h200_training"])
    assert query == {"gallery": "12,shipped:h200_training"}
    assert parse_picks(query["gallery"]) == ([12], ["h200_training"], [])
    ids, stems, notes = parse_picks("#3, <script>, shipped:, 3")
    assert ids == [3] and stems == [] and len(notes) == 2 and "'<script>'" in notes[0]
    assert parse_picks("1,2,3,4,5,6") == ([1, 2, 3, 4], [], [])  # a link cannot ask for hundreds


def test_labelled_pack_copies_and_renames_every_row():
    pack = prepare_pack(Pack.from_json(cpu_pack())).pack
    before = json.dumps(pack.to_json(), sort_keys=True)
    out = labelled_pack(pack, "Ada · CPU (#7)")
    assert {r["machine"] for r in out.rows} == {"Ada · CPU (#7)"} and out.machine.label == "Ada · CPU (#7)"
    assert json.dumps(pack.to_json(), sort_keys=True) == before


def test_the_chart_draws_one_line_per_machine_on_log_axes(machines):
    from lib.charts.gallery import speedups_chart

    comparison = gallery_comparison(machines)
    spec = speedups_chart(speedup_frame(comparison), crossover_points(comparison)).to_dict()
    text = json.dumps(spec, ensure_ascii=False)
    assert "NVIDIA H200 · shipped" in text and "NVIDIA H100 80GB HBM3 · shipped" in text
    assert text.count('"type": "log"') >= 2 and "GPU as fast as its own CPU" in text
    assert "Ada" not in text  # a CPU-only machine has no speed-up line


def test_a_diamond_is_drawn_only_where_a_crossing_is_placed(machines):
    """The shipped lines cross 1× inside wide brackets: no diamond is placed, so the chart has no diamond layer (an
    empty one made Vega warn 'Infinite extent') and the page's caption does not promise one."""
    from lib.charts.gallery import speedups_chart

    comparison = gallery_comparison(machines)
    frame, crossings = speedup_frame(comparison), crossover_points(comparison)
    shapes = lambda chart: [layer.get("mark", {}).get("shape") for layer in chart.to_dict()["layer"]]
    if crossings.empty:
        assert "diamond" not in shapes(speedups_chart(frame, crossings))
    placed = crossings if len(crossings) else frame.groupby("machine", as_index=False)["x"].first()
    assert "diamond" in shapes(speedups_chart(frame, placed))
