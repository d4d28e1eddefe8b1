"""What the Timing pitfalls page computes (lib.lessons.timing.view), on hand-written rows: no Streamlit."""

from __future__ import annotations

from made_rows import matmul_rows

from lib.core.crossover import CrossKind
from lib.lessons.common import onscreen
from lib.lessons.timing import screen as S
from lib.lessons.timing import view as lesson
from lib.lessons.timing import words
from lib.lessons.timing.answer import timing_answer, timing_notes
from lib.lessons.timing.timed import Timed

HONEST = lesson.BASELINE
NAIVE = lesson.Variant(sync=False)
GPU = "cuda:0 (recorded on X)"


def rows(device: str, times: dict[int, float], **variant) -> list[dict]:
    return matmul_rows(device, times, **variant)


def found(gpu: dict[str, list[dict]], cpu: dict[str, list[dict]] | None = None) -> onscreen.RecordedViews:
    return onscreen.RecordedViews(gpu=gpu, cpu=cpu or {}, holds_workload=True)


def test_views_name_the_timing_and_the_honest_baseline_beside_it():
    assert list(lesson.views(HONEST)) == ["synchronised, fp32"]
    assert lesson.views(NAIVE) == {"naive timer (no synchronise), fp32": NAIVE, "synchronised, fp32": HONEST}
    assert lesson.file_stem(HONEST) == "matmul_honest"
    assert lesson.file_stem(lesson.Variant(sync=False, tf32=True, transfer=True)) == "matmul_sync_tf32_transfer"
    assert lesson.line_names(HONEST) == [
        "synchronised, fp32",
        "first call (cold), synchronised, fp32",
        "honest baseline: synchronised, fp32",
    ]


def test_live_request_times_the_copy_only_at_the_slider():
    assert lesson.live_current(HONEST, 256) is None
    assert lesson.live_current(lesson.Variant(transfer=True), 256) == 256
    request = lesson.live_request(lesson.Variant(transfer=True), ["cpu"], size=256, point_budget_s=0.1, threads=1)
    assert request.job is lesson.live_rows and request.args == (lesson.Variant(transfer=True), ["cpu"])
    assert request.kwargs["current"] == 256 and request.kwargs["point_budget_s"] == 0.1
    assert lesson.measure_label(HONEST, ["cpu", "cuda:0"]) == "matmul over size (synchronised, fp32) on cpu, cuda:0"


def test_screen_puts_the_view_beside_the_baseline_with_every_series():
    live = {
        "naive timer (no synchronise), fp32": rows("cpu", {64: 1e-4}, sync=False),
        "synchronised, fp32": rows("cpu", {64: 1e-4}),
    }
    recorded = found(
        {
            "naive timer (no synchronise), fp32": rows("cuda:0", {64: 1e-5}, sync=False),
            "synchronised, fp32": rows("cuda:0", {64: 2e-5}),
        },
        {"synchronised, fp32": rows("cpu", {64: 3e-4})},
    )
    view = lesson.screen(NAIVE, lesson.live_points(live), recorded, "X")
    assert view.differs and len(view.current) == 2 and len(view.baseline) == 3 and len(view.points) == 5
    assert view.order == ["cpu (live, this server)", "cpu (recorded on X)", GPU]
    assert view.gpu_series == GPU
    same = lesson.screen(HONEST, lesson.live_points({"synchronised, fp32": rows("cpu", {64: 1e-4})}), found({}), "X")
    assert not same.differs and same.baseline is same.current and same.gpu_series is None


def test_chart_lines_add_cold_calls_and_the_baseline():
    live = {
        "naive timer (no synchronise), fp32": rows("cpu", {64: 1e-4, 128: 2e-4}, sync=False),
        "synchronised, fp32": rows("cpu", {64: 1e-4, 128: 2e-4}),
    }
    view = lesson.screen(NAIVE, lesson.live_points(live), found({}), None)
    lines = lesson.time_lines(view, show_cold=True)
    assert [ln["line"] for ln in lines].count("first call (cold), naive timer (no synchronise), fp32") == 2
    cold = next(ln for ln in lines if ln["line"].startswith("first call"))
    assert cold["median_s"] == cold["cold_s"] and cold["iqr_s"] is None
    assert sum(ln["line"] == "honest baseline: synchronised, fp32" for ln in lines) == 2
    assert len(lesson.time_lines(view, show_cold=False)) == 4
    assert {ln["line"] for ln in lesson.rate_lines(view)} == {
        "naive timer (no synchronise), fp32",
        "honest baseline: synchronised, fp32",
    }


def test_crossover_sentences_read_the_synchronised_timings():
    live = {
        "naive timer (no synchronise), fp32": rows("cpu", {64: 1e-5, 4096: 1.0}, sync=False),
        "synchronised, fp32": rows("cpu", {64: 1e-5, 4096: 1.0}),
    }
    recorded = found(
        {
            "naive timer (no synchronise), fp32": rows("cuda:0", {64: 1e-6, 4096: 1e-6}, sync=False),
            "synchronised, fp32": rows("cuda:0", {64: 1e-4, 4096: 1e-2}),
        },
        {"synchronised, fp32": rows("cpu", {64: 1e-5, 4096: 1.0})},
    )
    view = lesson.screen(NAIVE, lesson.live_points(live), recorded, "X")
    analysis, same_machine = lesson.crossovers(view)
    assert analysis.measured.kind == CrossKind.CROSSES and same_machine.measured.kind == CrossKind.CROSSES
    first, second = lesson.crossover_sentences(
        view, onscreen.same_machine_intro({"cpu_model": "Xeon", "torch_threads": 8})
    )
    assert first.plain().startswith("From the synchronised timings: ") and first.about == analysis.measured
    assert second.plain().startswith("On the recording machine itself (Xeon, 8 threads): ")
    assert second.about == same_machine.measured
    no_gpu = lesson.screen(HONEST, lesson.live_points({"synchronised, fp32": rows("cpu", {64: 1e-5})}), found({}), None)
    assert lesson.crossovers(no_gpu) == (None, None) and lesson.crossover_sentences(no_gpu, None) == []


def test_recorded_finds_each_timing_through_the_slider_size():
    pack = {"machine": {}, "path": "x.json", "rows": rows("cuda:0", {64: 1e-5, 128: 2e-5}) + rows("cpu", {64: 1e-4})}
    found = lesson.recorded(pack, "X", NAIVE, 64, with_cpu=True)
    assert len(found.gpu_rows("synchronised, fp32")) == 2 and found.missing == ["naive timer (no synchronise), fp32"]
    assert len(found.cpu_rows()) == 1


def test_missing_note_names_the_timings_the_pack_lacks():
    lacking = onscreen.RecordedViews(missing=["naive timer (no synchronise), fp32"], note="n", holds_workload=True)
    text = lesson.missing_note(lacking, "X")
    assert "(X) has no matmul sweep over size for “naive timer (no synchronise), fp32”" in text
    assert "combinations are not recorded" in text
    assert lesson.missing_note(onscreen.RecordedViews(missing=["a"], note="hold nothing"), "X") == "hold nothing"
    assert lesson.missing_note(onscreen.RecordedViews(), "X") is None


def test_points_are_placed_in_words_and_shares_are_percentages():
    point = {**rows("cpu", {16384: 1.0})[0], "series": "cpu (live, this server)"}
    assert lesson.point_where(point) == "cpu (live, this server), size 16,384, synchronised, fp32"

    def timed(median_s: float) -> Timed:
        return Timed.of_row({**rows("cpu", {64: median_s})[0], "series": "cpu (live, this server)"})

    assert words.copy_share(timed(4.0), timed(1.0)) == 0.75
    assert words.copy_share(timed(1.0), timed(2.0)) == 0.0


def shipped_screen(variant: lesson.Variant, machine: str) -> lesson.Screen:
    """The view as the page builds it from a shipped pack (no live rows): lib/recorded/ as it ships."""
    from lib.recorded import RECORDED_DIR, load_recordings
    from lib.recorded.sources import recorded_sources, source_recording

    recordings, _ = load_recordings(RECORDED_DIR)
    source = next(s for s in recorded_sources(recordings) if machine in s.label)
    pack = source_recording(source, recordings).pack
    return lesson.screen(variant, {}, lesson.recorded(pack, source.label, variant, 256, with_cpu=False), source.label)


def test_tf32_and_the_copy_each_change_one_thing_on_the_shipped_packs():
    """Issue 23: with TF32 and the copy both on, TF32 was read against fp32 *without* the copy (0.78×)
    and the copy against fp32 without TF32 (5.17 µs). Each is now read against the view with only that
    switch set back, and that partner is drawn."""
    both = lesson.Variant(sync=True, tf32=True, transfer=True)
    assert lesson.partner(both, lesson.Switch.TF32) == lesson.Variant(sync=True, tf32=False, transfer=True)
    assert lesson.partner(both, lesson.Switch.TRANSFER) == lesson.Variant(sync=True, tf32=True, transfer=False)
    assert lesson.partner_lines(both) == ["synchronised, fp32, copy counted", "synchronised, TF32"]
    for machine in ("H200", "H100"):
        view = shipped_screen(both, machine)
        gpu = view.gpu_series
        tf, fp = (lesson.by_size(rows, gpu)[256] for rows in (view.current, view.partner_points(lesson.Switch.TF32)))
        (tf32_text,) = words.tf32_sentences(view.current, view.partner_points(lesson.Switch.TF32), both, 256, [gpu])
        ratio = tf.rate / fp.rate
        assert fp.point.settings["transfer"] and fp.dtype == "fp32"
        assert f"against {words.fmt_rate(fp.rate)} in fp32 ({words.fmt_ratio(ratio)})" in tf32_text
        (copy_text,) = words.transfer_sentences(
            view.current, view.partner_points(lesson.Switch.TRANSFER), both, 256, [gpu]
        )
        without = lesson.by_size(view.partner_points(lesson.Switch.TRANSFER), gpu)[256]
        assert without.dtype == "tf32" and not without.point.settings["transfer"]
        assert f"the copy adds {words.fmt_s(tf.median_s - without.median_s)}" in copy_text, copy_text
        drawn = {ln["line"] for ln in lesson.time_lines(view, show_cold=False)}
        assert set(lesson.partner_lines(both)) <= drawn


def test_a_refused_row_never_hides_a_measured_one_of_the_same_point_on_the_shipped_packs():
    """Issue 23: the H200 at size 16,384 read 'not run — needs about 3.3 GB, more than the 2.7 GB memory
    cap' (a later lease, capped) beside its measured time (an earlier one): merged, a point keeps its
    measured row, and a refusal only where no recording measured it. The shipped H200 packs are all measured
    there now (the capped lease was recorded again uncapped), so the capped lease is the shipped timing pack
    again, one day later, with that point refused as the cap refused it."""
    import copy

    from lib.core.rows import is_ok
    from lib.recorded import load_recordings
    from lib.recorded.recording import recording_of
    from lib.recorded.sources import _point_key, recorded_sources, source_recording

    def point(rows):
        return [
            r
            for r in rows
            if r.get("workload") == "matmul"
            and r.get("size") == 16384
            and r["device"] == "cuda:0"
            and r.get("dtype") == "fp32"
            and r.get("sync")
            and not r.get("transfer")
        ]

    packs = [r.pack for r in load_recordings()[0]]
    measured = [p for p in packs if str(p["machine"].get("label", "")).startswith("NVIDIA H200 (") and point(p["rows"])]
    newest = max(measured, key=lambda p: str(p["machine"]["date"]))
    capped = copy.deepcopy(newest)
    capped["path"] = newest["path"].replace(".json", "_capped.json")
    capped["machine"]["date"] = "2026-12-01T00:00:00+00:00"
    capped["machine"]["label"] = "NVIDIA H200 (2026-12-01)"
    for row in capped["rows"]:
        row["machine"] = "NVIDIA H200 (2026-12-01)"
    for row in point(capped["rows"]):
        row.update(status="skipped", median_s=None, iqr_s=None, repeats=0, message="not run — needs about 3.3 GB")
    recordings = [recording_of(p) for p in (*packs, capped)]

    checked = 0
    for source in recorded_sources(recordings):
        rows = source_recording(source, recordings).pack["rows"]
        keys = [_point_key(r) for r in rows]
        assert len(keys) == len(set(keys)), source.label  # every point once
        checked += len(rows)
    h200 = source_recording(
        next(s for s in recorded_sources(recordings) if s.label.startswith("NVIDIA H200")), recordings
    ).pack
    days = {str(p["machine"]["date"])[:10] for p in measured if any(is_ok(r) for r in point(p["rows"]))}
    big = point(h200["rows"])
    assert len(big) == 1 and is_ok(big[0]) and big[0]["recorded_on"] in days, (big, days)
    other = [r for r in h200["rows"] if r.get("recorded_on") == "2026-12-01"]
    assert other, "the capped lease's other points are merged in as the newest day"
    assert checked > 1000


def test_the_smallest_size_is_said_to_lack_work_only_where_it_is_clearly_below_the_best():
    """Seen on /timing_pitfalls with a noisy live CPU: 'the best measured here (fp32) is 70.1 GFLOP/s, at
    size 64. … At size 64 only 100%: too little work per call to keep the device busy.'"""

    def rows(rates):
        return [
            Timed.of_row(
                {
                    "workload": "matmul",
                    "series": "cpu",
                    "dtype": "fp32",
                    "sync": True,
                    "transfer": False,
                    "status": "ok",
                    "size": size,
                    "device": "cpu",
                    "median_s": 2 * size**3 / rate,
                    "achieved_flops_per_s": rate,
                }
            )
            for size, rate in rates.items()
        ]

    variant = lesson.variant_of(True, False, False)
    peaked_small = rows({64: 70e9, 256: 60e9, 1024: 25e9})
    (text,) = words.flops_sentences(peaked_small, peaked_small, variant, 1024, ["cpu"])
    assert "at size 64" in text and "too little work" not in text, text
    rising = rows({64: 5e9, 256: 40e9, 1024: 60e9})
    (text,) = words.flops_sentences(rising, rising, variant, 1024, ["cpu"])
    assert "At size 64 only 8%: too little work per call" in text, text


def test_the_screen_object_holds_the_answer_the_charts_rows_and_each_expanders_words():
    flags = {"sync": False, "cold": False, "tf32": False, "transfer": False}
    requests = S.live_requests(flags, ["cpu"], size=256, point_budget_s=0.1, threads=1)
    assert list(requests) == list(lesson.views(NAIVE))  # the view and the honest baseline beside it
    label, request = requests["synchronised, fp32"]
    assert label == lesson.measure_label(HONEST, ["cpu"]) and request.args == (HONEST, ["cpu"])
    live = {
        "naive timer (no synchronise), fp32": rows("cpu", {64: 1e-4, 256: 1e-3}, sync=False),
        "synchronised, fp32": rows("cpu", {64: 1e-4, 256: 1e-3}),
    }
    shown = S.timing_screen(flags, 256, lesson.live_points(live), None, "no GPU", with_cpu=False)
    view = lesson.screen(NAIVE, lesson.live_points(live), onscreen.RecordedViews(), None)
    assert shown.answer == timing_answer(view, 256) and shown.notes == timing_notes(view, 256)
    assert shown.time_rows == lesson.time_lines(view, False) and shown.timed
    assert shown.cold_lines() == [] and shown.cold_caption() == S.COLD_OFF  # the cold call not drawn: say how
    assert not shown.tf32 and not shown.transfer and shown.file_stem == "matmul_sync"
    assert shown.sync_lines() == words.sync_sentences(
        view.current, view.partner_points(lesson.Switch.SYNC), NAIVE, 256, view.order
    )
    assert shown.repeats_caption().startswith("Warm points: the median of 9 timed repeats")


def test_a_variant_is_the_workloads_settings_and_is_read_back_from_its_rows():
    """The record command the page shows spells the settings in the workload's names and order, and a row
    measured with a variant names that variant again (point_where reads it)."""
    both = lesson.Variant(sync=False, tf32=True, transfer=True)
    assert lesson.record_command(both, [64, 128]) == (
        "python -m lib sweep matmul --over size=64,128 --set dtype=tf32 --set sync=false --set transfer=true "
        "--devices cpu,cuda --out lib/recorded/matmul_tf32_nosync_transfer.json"
    )
    for variant in (HONEST, NAIVE, both, lesson.Variant(tf32=True)):
        (row,) = rows("cpu", {64: 1e-3}, **variant.settings())
        assert lesson.Variant.of_settings(row) == variant
    assert lesson.changes(both) == list(lesson.Switch) and lesson.changes(HONEST) == []
