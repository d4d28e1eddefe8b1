"""What every lesson page shows around its charts (lib.lessons.common.onscreen), and the pack queries under it
(lib.recorded.sources.view_rows, cpu_text), on hand-made rows: no Streamlit."""

from __future__ import annotations

from lib.core.crossover import analyse_rows
from lib.core.point import OtherRecording
from lib.lessons.common import onscreen
from lib.recorded.recording import recording_of
from lib.recorded.sources import NO_GPU, GpuSource, cpu_text, recorded_sources, source_recording, view_rows
from lib.workloads import get_workload

MATMUL = get_workload("matmul")
LIVE = GpuSource("live", "live", "live on this server", device="cuda:0")
H200 = GpuSource("recorded", "nvidia-h200", "NVIDIA H200, 2026-11-21", pack_paths=("h200.json",))


def row(device, size, median=1e-3, status="ok", message="", **extra):
    return {
        "workload": "matmul",
        "device": device,
        "size": size,
        "dtype": "fp32",
        "sync": True,
        "transfer": False,
        "swept": "size",
        "median_s": median if status == "ok" else None,
        "iqr_s": 0.0,
        "repeats": 5,
        "status": status,
        "message": message,
        **extra,
    }


def pack(*rows):
    return {"machine": {"cpu_model": "Xeon", "torch_threads": 8}, "rows": list(rows), "path": "h200.json"}


def test_source_sentence_says_where_each_device_comes_from():
    assert onscreen.source_sentence(LIVE, 1) == (
        "CPU: measured live on this server with 1 thread. GPU: measured live on this server."
    )
    assert onscreen.source_sentence(H200, 2).endswith("2 threads. GPU: recorded on NVIDIA H200, 2026-11-21.")
    assert onscreen.source_sentence(H200, 1, age="3 min ago").startswith(
        "CPU: measured live on this server with 1 thread (3 min ago). GPU: recorded on NVIDIA H200"
    )
    assert "GPU: none here, and no recorded GPU results shipped yet" in onscreen.source_sentence(NO_GPU, 1)
    assert onscreen.source_sentence(H200, 1, not_live="from a pack").endswith("GPU: from a pack.")
    assert onscreen.source_sentence(LIVE, 1, not_live="from a pack").endswith("GPU: measured live on this server.")


def test_source_sentence_says_measured_live_only_when_a_cpu_point_was():
    refused = [{"device": "cpu", "status": "skipped"}, {"device": "cpu", "status": "oom"}]
    measured = refused + [{"device": "cpu", "status": "ok"}]
    gpu_only = [{"device": "cuda:0", "status": "ok"}, {"device": "cpu", "status": "skipped"}]
    assert onscreen.source_sentence(H200, 1, live_rows=refused, age="now").startswith(
        "CPU: no point of this view could be measured live on this server (the points not measured say why"
    )
    assert onscreen.source_sentence(H200, 1, live_rows=gpu_only).startswith("CPU: no point of this view")
    assert onscreen.source_sentence(H200, 1, live_rows=measured, age="now").startswith(
        "CPU: measured live on this server with 1 thread (now)."
    )
    assert onscreen.source_sentence(H200, 1, live_rows=[]).startswith("CPU: not measured live on this server")


def test_gpu_side_note_speaks_only_when_something_is_missing():
    assert onscreen.gpu_side_note(H200, "no sweep", "no GPU") == "no sweep"
    assert onscreen.gpu_side_note(H200, None, "no GPU") is None
    assert onscreen.gpu_side_note(NO_GPU, None, "no GPU") == "no GPU"
    assert onscreen.gpu_side_note(LIVE, "ignored", "no GPU") is None


def test_recording_machine_is_named_by_its_cpu_and_threads():
    assert cpu_text({"cpu_model": "Xeon", "torch_threads": 1}) == "Xeon, 1 thread"
    assert cpu_text({}) == "?, ? threads"
    assert onscreen.same_machine_intro({"cpu_model": "Xeon", "torch_threads": 96}) == (
        "On the recording machine itself (Xeon, 96 threads)"
    )


def test_view_rows_finds_the_sweep_or_says_plainly_why_not():
    p = pack(row("cpu", 64), row("cuda:0", 64), row("cuda:0", 128))
    rows, note = view_rows(p, "X", MATMUL, "size", {"dtype": "fp32", "sync": True, "transfer": False, "size": 64})
    assert [r["device"] for r in rows] == ["cuda:0", "cuda:0"] and note is None
    rows, note = view_rows(p, "X", MATMUL, "size", {"dtype": "tf32", "sync": True, "transfer": False})
    assert rows == [] and "have no sweep with these settings" in note and "(X)" in note
    other = {**p, "rows": [{**row("cuda:0", 64), "workload": "mlp"}]}
    assert "hold nothing for this lesson" in view_rows(other, "X", MATMUL, "size", {})[1]
    assert view_rows(None, "X", MATMUL, "size", {}) == ([], None)


def test_recorded_views_keep_the_first_gpu_and_the_recording_cpu():
    p = pack(row("cpu", 64), row("cuda:0", 64), row("cuda:1", 64), row("cpu", 64, dtype="tf32"))
    views = {
        "honest": {"dtype": "fp32", "sync": True, "transfer": False, "size": 64},
        "tf32": {"dtype": "tf32", "sync": True, "transfer": False, "size": 64},
    }
    found = onscreen.recorded_views(p, "X", MATMUL, "size", views, with_cpu=True)
    assert [r["device"] for r in found.gpu_rows("honest")] == ["cuda:0"]
    assert found.missing == ["tf32"] and "no sweep" in found.note and found.holds_workload
    assert [r["dtype"] for r in found.cpu_rows()] == ["fp32", "tf32"]
    assert len(found.all_rows()) == 3
    assert onscreen.recorded_views(None, "X", MATMUL, "size", views, with_cpu=True).all_rows() == []
    assert onscreen.first_device([]) == []


def test_series_are_labelled_and_ordered_live_cpu_recording_cpu_gpu():
    rows = onscreen.labelled([row("cpu", 64)], [row("cuda:0", 64)], [row("cpu", 64)], "M")
    assert [r["series"] for r in rows] == ["cpu (live, this server)", "cpu (recorded on M)", "cuda:0 (recorded on M)"]
    assert onscreen.series_order(rows, "M") == [r["series"] for r in rows]
    assert onscreen.series_order(rows[:1], "M") == ["cpu (live, this server)"]
    assert onscreen.gpu_series(rows) == "cuda:0 (recorded on M)" and onscreen.gpu_series(rows[:2]) is None


def test_repeats_and_crossing_read_the_rows():
    rows = [row("cpu", 64, repeats=3), row("cpu", 128, repeats=11), row("cpu", 256, status="skipped", repeats=0)]
    assert onscreen.repeats_span(rows) == "3–11"
    assert onscreen.repeats_span(rows[:1]) == "3" and onscreen.repeats_span(rows[2:]) is None
    crossing = [row("cpu", 64, 1e-4), row("cuda:0", 64, 1e-3), row("cpu", 256, 1e-2), row("cuda:0", 256, 1e-3)]
    x = onscreen.crossing_x(analyse_rows(crossing, "size"))
    assert 64 < x < 256 and onscreen.crossing_label(analyse_rows(crossing, "size")).startswith("crossover ≈ ")
    assert onscreen.crossing_x(None) is None and onscreen.crossing_label(None) is None


def test_point_notes_say_what_became_of_each_point_in_words():
    rows = [
        row("cpu", 64),
        row("cpu", 128, message="noisy: the spread is 60% of the median"),
        row("cpu", 256, status="skipped", message="about 9 GFLOP per step"),
        row("cpu", 512, status="oom"),
    ]
    lines = onscreen.point_notes(rows, lambda r: f"size {r['size']}")
    assert lines == [
        "size 128: measured — noisy: the spread is 60% of the median",
        "size 256: not run — about 9 GFLOP per step",
        "size 512: out of memory",
    ]
    assert len(onscreen.point_notes(rows, lambda r: "", remarks=False)) == 2
    assert onscreen.notes_title(1) == "Notes on 1 point" and onscreen.notes_title(3) == "Notes on 3 points"
    assert onscreen.notes_title(2, remarks=False) == "Points not measured (2)"
    assert onscreen.status_words({"status": "error", "message": "bad"}) == "failed — bad"
    assert onscreen.cli_value(True) == "true" and onscreen.cli_value(64) == "64"


def test_a_machine_recorded_on_two_days_is_one_pack_merged_once():
    older = {**pack(row("cuda:0", 256, 2e-3), row("cuda:0", 512, 3e-3)), "path": "old.json"}
    newer = {**pack(row("cuda:0", 256, 1e-3)), "path": "new.json"}
    older["machine"] = {**older["machine"], "gpus": ["H200"], "date": "2026-11-21T10:00:00+00:00"}
    newer["machine"] = {**newer["machine"], "gpus": ["H200"], "date": "2026-11-23T10:00:00+00:00"}
    recordings = [recording_of(older), recording_of(newer)]
    [source] = recorded_sources(recordings)
    assert source.label.endswith("2026-11-21 and 2026-11-23")
    merged = source_recording(source, recordings).pack
    assert sorted((r["size"], r["median_s"]) for r in merged["rows"]) == [(256, 1e-3), (512, 3e-3)]  # newest kept
    # the same object on every page run, so what is built from it (step tables, cost models) is built once
    assert source_recording(source, recordings).pack is merged
    newer = {**newer, "rows": [row("cuda:0", 256, 5e-4)]}  # new rows (a new upload): merged again
    again = source_recording(source, [recordings[0], recording_of(newer)])
    assert [r["median_s"] for r in again.pack["rows"] if r["size"] == 256] == [5e-4]


def test_a_machine_recorded_on_two_days_is_one_recording_of_points_merged_once():
    older = {**pack(row("cuda:0", 256, 2e-3), row("cuda:0", 512, 3e-3)), "path": "old.json"}
    newer = {**pack(row("cuda:0", 256, 1e-3), row("cuda:0", 1024, status="skipped")), "path": "new.json"}
    older["machine"] = {**older["machine"], "gpus": ["H200"], "date": "2026-11-21T10:00:00+00:00"}
    newer["machine"] = {**newer["machine"], "gpus": ["H200"], "date": "2026-11-23T10:00:00+00:00"}
    recordings = [recording_of(older), recording_of(newer)]
    [source] = recorded_sources(recordings)
    merged = source_recording(source, recordings)
    by_size = {p.settings["size"]: p for p in merged.points}
    assert (by_size[256].median_s, by_size[256].recorded_on) == (1e-3, "2026-11-23")  # the newest kept
    assert by_size[256].other_recordings == (OtherRecording("H200 (2026-11-21)", 2e-3),)  # the other day, its band
    assert (by_size[512].median_s, by_size[512].recorded_on, by_size[1024].ok) == (3e-3, "2026-11-21", False)
    # the same points as the merged pack's rows, and its pack that very dict: built once for both
    assert [p.to_row() for p in merged.points] == merged.pack["rows"]
    assert source_recording(source, [recording_of(older), recording_of(newer)]) is merged


# -- a sidebar choice the page cannot answer (issue 26) ------------------------------------------------------
def test_an_unanswered_choice_names_what_it_was_recorded_for_and_what_to_pick():
    from lib.recorded.sources import GpuSource, unanswered

    def row(workload, device="cuda:0"):
        return {"workload": workload, "device": device}

    four = GpuSource("recorded", "four", "4 × GPU X, 2026-11-21", pack_paths=("four.json",), gpus=4)
    one = GpuSource("recorded", "one", "GPU X, 2026-11-21", pack_paths=("one.json",))
    bare = GpuSource("recorded", "bare", "GPU Y", pack_paths=("bare.json",))
    packs = {
        "four": {"rows": [row("ddp")]},
        "one": {"rows": [row("mlp"), row("jacobian")]},
        "bare": {"rows": [row("mlp", "cpu")]},
    }
    pack_of = lambda s: packs.get(s.key)
    holds = lambda p: any(r["workload"] == "mlp" and r["device"] != "cpu" for r in p["rows"])
    sources = [one, four, bare]
    assert unanswered(one, sources, pack_of, holds) is None
    assert unanswered(GpuSource("live", "live", "live"), sources, pack_of, holds) is None
    assert unanswered(four, sources, pack_of, holds) == (
        "The sidebar's GPU results were recorded for the Multi-GPU lesson only, so this page shows no "
        "GPU curve: pick another machine under “GPU results from” for one."
    )
    assert unanswered(bare, [bare], pack_of, holds) == (
        "The sidebar's GPU results hold nothing this page can draw, so this page shows no GPU curve: "
        "no other recorded GPU has results for this page."
    )
