"""What the Seed case studies page computes for one experiment (lib.lessons.seed_cases.view): the table beside
the seed, the words, and the loss curves on screen, from hand-made rows and packs: no Streamlit.

The pieces under them (compare_sentence, find_seed_recording, ...) are tested in test_app_seed_cases.py."""

from __future__ import annotations

from lib.core.point import points_of
from lib.core.rows import Origin
from lib.lessons.seed_cases import curves as seed_curves
from lib.lessons.seed_cases import screen, times
from lib.lessons.seed_cases import view as cases
from lib.recorded.pack import Fingerprint
from lib.recorded.recording import recording_of
from lib.recorded.sources import GpuSource
from lib.workloads.presets import get_preset

MACHINE = {"gpus": ["NVIDIA H200"], "date": "2026-11-21", "cpu_model": "Xeon", "torch_threads": 8}
BOSTON, MINIBATCH, MATMUL = get_preset("boston_like"), get_preset("mnist_minibatch"), get_preset("big_matmul")
REC = "recorded on NVIDIA H200, 2026-11-21"


def row(preset, device, median, status="ok", **extra):
    return {
        "workload": preset.workload,
        "variant": preset.name,
        "device": device,
        "median_s": median,
        "iqr_s": 0.0,
        "repeats": 5,
        "status": status,
        "message": "" if status == "ok" else "why",
        **extra,
    }


def pack(rows, path="/p/h200_seeds.json"):
    return {"schema_version": 1, "machine": MACHINE, "rows": rows, "path": path}


def entry(device, losses, status="ok", **extra):
    """A curve as the curves file keeps it."""
    return {
        "preset": "mnist_minibatch",
        "device": device,
        "status": status,
        "message": "" if status == "ok" else "x",
        "losses": losses,
        "epochs": seed_curves.CURVE_EPOCHS["mnist_minibatch"],
        "settings": cases.live_params(MINIBATCH),
        "data_note": "",
        **extra,
    }


def curve(device, losses, status="ok", **extra):
    """A curve trained live here."""
    return seed_curves.Curve.from_entry(entry(device, losses, status, **extra))


def measured(rows=(), curves=None):
    """What the page measured live: the rows as points."""
    return cases.Measured(tuple(points_of(rows)), curves or {})


def case_of(preset, live, found, rec_rows):
    """A case with the recorded rows as the points the page reads."""
    return screen.Case(preset, live, recording_of(found) if found else None, points_of(rec_rows))


def boston(live_cpu=1e-3, rec=(1e-3, 2e-3), live_gpu=None):
    rec_rows = [row(BOSTON, "cpu", rec[0]), row(BOSTON, "cuda:0", rec[1])] if rec else []
    live = [row(BOSTON, "cpu", live_cpu)] + ([row(BOSTON, "cuda:0", live_gpu)] if live_gpu else [])
    return case_of(BOSTON, measured(live), pack(rec_rows) if rec else None, rec_rows)


def test_the_case_line_request_and_recording_command():
    assert screen.seed_line(BOSTON).startswith("**Seed 000** (run on an Intel Core i7-9700K CPU")
    assert "(hardware not stated in the seed)" in screen.seed_line(MATMUL)
    request = screen.live_request(MINIBATCH, ["cpu"], threads=1, budget_s=0.1)
    assert request.args[0] is MINIBATCH and request.kwargs == {"budget_s": 0.1, "num_threads": 1}
    assert cases.live_params(request.args[0])["dataset_size"] == 3000
    assert screen.measure_label(MINIBATCH, ["cpu"]) == "seed case MNIST MLP, DataLoader batch 100 (seed 000) on cpu"
    assert screen.record_command(BOSTON) == (
        "python3 scripts/seed_experiments.py --only boston_like --curves --out lib/recorded/seeds_boston_like.json"
    )
    assert "--include-slow" in screen.record_command(get_preset("jacobian_val1000"))


def test_the_table_sets_the_seed_beside_the_recording_and_this_server():
    case = boston()
    assert case.machine == "NVIDIA H200, 2026-11-21" and case.cut == {} and case.rec_cut == {}
    assert case.rec_ratio == 2.0 and case.live_total == 10.0 and case.covers == "10 000 epochs in total"
    table, bars = screen.comparison(case)
    assert [t.where for t in table] == [
        "reported in seed 000 (an Intel Core i7-9700K CPU and an RTX 2070 SUPER GPU)",
        f"{REC} (the seed's sizes)",
        "live on this server (the seed's sizes)",
    ]
    assert table[1].cpu == "10 s" and table[1].ratio == "2.00×" and table[2].cpu == "10 s"
    assert table[1].row()["GPU ÷ CPU"] == "2.00×"  # the table's column heading on screen
    assert [b.comparison for b in bars] == ["reported in seed 000", REC, f"GPU {REC} ÷ CPU live here"]
    assert bars[2].ratio == 2.0
    _, bars = screen.comparison(boston(live_gpu=5e-4))
    live = Origin.LIVE
    assert bars[-1] == screen.RatioBar(
        "live on this server", 0.5, screen.Timed(5e-4, 0.0, 5, live), screen.Timed(1e-3, 0.0, 5, live)
    )
    no_times = case_of(get_preset("mnist_100rows"), measured(), None, [])
    (line,), bars = screen.comparison(no_times)
    assert line.covers == "the seed printed no times" and bars == []
    assert no_times.covers == "the seed's 1,000 calls"


def test_the_live_bar_carries_both_times_and_says_it_is_live_and_how_long_ago():
    case = boston(live_cpu=6.45e-4, rec=(1.29e-3, 2.077e-3))
    case.measured_at = 1000.0
    bar = screen.comparison(case)[1][-1]
    assert bar.gpu == screen.Timed(2.077e-3, 0.0, 5, Origin.RECORDED)
    assert bar.cpu == screen.Timed(6.45e-4, 0.0, 5, Origin.LIVE)
    assert bar.row()["cpu_s"] == 6.45e-4 and bar.row()["gpu_origin"] == "recorded"
    assert screen.live_ratio_note(case, now=1000.0 + 190) == (
        f"GPU {REC} ÷ CPU live here: 3.22×, the GPU's 2.08 ms a call (recorded, median of 5 timed repeats, spread "
        "0 ns) over the CPU's 645 µs a call (measured live here 3 min ago, median of 5 timed repeats, spread 0 ns)."
    )
    assert screen.verdict_sentences(case, now=1190.0)[-1] == screen.live_ratio_note(case, 1190.0)


def test_a_live_time_the_noise_rule_does_not_believe_draws_no_bar_and_says_why():
    """Issue 37: the live bar read 0.231x from one warm call with no spread; it is withheld, with a short note."""
    one = [row(BOSTON, "cpu", 9e-3, repeats=1)]
    rec = [row(BOSTON, "cpu", 1.29e-3), row(BOSTON, "cuda:0", 2.077e-3)]
    case = case_of(BOSTON, measured(one), pack(rec), rec)
    assert [b.comparison for b in screen.comparison(case)[1]] == ["reported in seed 000", REC]
    assert screen.comparison(case)[0][-1].cpu == "90 s"  # the table still says what was timed
    assert screen.live_ratio_note(case, 0.0) == (
        f"GPU {REC} ÷ CPU live here: not drawn, too noisy here to say (this server's CPU was timed over 1 timed "
        "repeat only)."
    )
    noisy = case_of(BOSTON, measured([row(BOSTON, "cpu", 1e-3, iqr_s=0.6e-3)]), pack(rec), rec)
    assert len(screen.comparison(noisy)[1]) == 2
    assert screen.live_ratio_note(noisy, 0.0).endswith("(the 5 timed repeats of this server's CPU spread too wide).")
    waiting = case_of(BOSTON, measured(), pack(rec), rec)
    assert (
        screen.live_ratio_note(waiting, 0.0)
        == f"GPU {REC} ÷ CPU live here: not drawn, still measuring this server's CPU."
    )
    assert screen.live_ratio_note(boston(rec=None), 0.0) is None  # nothing to set this CPU beside: no bar to withhold


def test_the_results_on_screen_hold_the_live_points_and_the_recordings_with_its_machine():
    case = boston()
    results = case.results()
    assert results.shown == case.shown() and results.live == case.live.points  # the table; this machine's download
    assert [p.device for p in results.recorded] == ["cpu", "cuda:0"]
    assert results.recorded_by == Fingerprint.from_json(MACHINE)  # the recorded download names its machine
    alone = boston(rec=None).results()
    assert alone.recorded == () and alone.recorded_by is None and len(alone.live) == 1


def test_a_recorded_gpu_not_measured_is_said_in_words():
    rows = [row(BOSTON, "cpu", 1e-3), row(BOSTON, "cuda:0", None, status="skipped")]
    case = case_of(BOSTON, measured([row(BOSTON, "cpu", 1e-3)]), pack(rows), rows)
    assert screen.comparison(case)[0][1].gpu == "not run"
    assert (
        screen.missing_note(case) == f"The recorded pack ({case.machine}) did not measure this experiment on the "
        "GPU: not run — why."
    )
    assert screen.missing_note(boston(rec=None)).startswith("No recorded seeds pack holds this experiment's GPU row")
    assert screen.missing_note(boston()) is None


def test_words_for_the_seed_the_cut_the_first_call_and_this_cpu():
    assert "Measured on NVIDIA H200, 2026-11-21, the GPU took 2.00× as long" in screen.verdict_sentences(boston())[0]
    case = boston()
    assert times.live_cpu_sentence(case, times.time_bars(case), 1) == (
        "This server's CPU (1 thread) takes 10 s for 10 000 epochs in total, against 12 s on the seed's CPU."
    )
    cut_rows = [row(MINIBATCH, d, 1.0, dataset_size=3000) for d in ("cpu", "cuda:0")]
    cut = case_of(MINIBATCH, measured([row(MINIBATCH, "cpu", 2.0)]), pack(cut_rows), cut_rows)
    assert cut.rec_cut == {"dataset_size": (3000, 60000)}
    assert screen.verdict_sentences(cut)[1] == (
        "The recorded rows ran at a cut size (dataset size 3,000 instead of "
        "the seed's 60,000), so their ratio is for that size."
    )
    assert times.live_cpu_sentence(cut, times.time_bars(cut), 2) == (
        "This server's CPU (2 threads) was timed at a cut size (dataset size 3,000 instead of the seed's 60,000): its "
        "time per call, in the table, is not comparable with times for the seed's size, so it is not drawn."
    )
    failed = case_of(BOSTON, measured([row(BOSTON, "cpu", None, status="error")]), None, [])
    assert times.live_cpu_sentence(failed, [], 1) == "This server's CPU was not timed: failed — why."
    gpu = row(MATMUL, "cuda:0", 0.46, cold_s=0.55, size=15360)
    matmul = case_of(MATMUL, measured(), pack([gpu]), [gpu])
    assert times.cold_sentence(matmul, times.time_bars(matmul)) == (
        f"On {matmul.machine} the GPU's first call of this experiment in the recording run took 550 ms, a warm one "
        "460 ms, 1.20× as long (the seed saw 0.55 s against 0.46 s). Only warm calls count in the ratio."
    )
    assert times.cold_sentence(boston(), times.time_bars(boston())) is None


def test_a_live_time_the_noise_rule_doubts_is_neither_a_bar_nor_quoted():
    """The times chart's live bars follow the rule the ratio bars follow (lib.core.noise.believed): one call
    timed, or repeats spread over half the time, is no bar, and the sentence says why instead of a time."""
    for live, why in (
        (row(BOSTON, "cpu", 1e-3, repeats=1), "this server's CPU was timed over 1 timed repeat only"),
        (row(BOSTON, "cpu", 1e-3, iqr_s=0.8e-3), "the 5 timed repeats of this server's CPU spread too wide"),
    ):
        rec = [row(BOSTON, "cpu", 1e-3), row(BOSTON, "cuda:0", 2e-3)]
        case = case_of(BOSTON, measured([live]), pack(rec), rec)
        bars = times.time_bars(case)
        assert not [b for b in bars if b.where == times.Where.LIVE], bars
        said = times.live_cpu_sentence(case, bars, 1)
        assert said == f"This server's CPU (1 thread) is not drawn yet, too noisy here to say: {why}.", said
    assert [b.where for b in times.time_bars(boston())].count(times.Where.LIVE) == 1  # believed: drawn


def test_every_time_a_seed_sentence_quotes_is_a_bar_of_its_times_chart():
    """Issue 23: the recorded first and warm calls (143 ms / 142 ms on the H200) and this server's call at a cut
    size (7.83 ms) were quoted and drawn nowhere. Now each quoted time is a bar, and the cut-size call is not
    quoted."""
    gpu = row(MATMUL, "cuda:0", 0.142, cold_s=0.143, size=15360)
    matmul = case_of(MATMUL, measured(), pack([gpu]), [gpu])
    bars = times.time_bars(matmul)
    drawn = {(b.where, b.call): b.seconds for b in bars}
    assert drawn == {
        (times.Where.SEED, times.Call.CPU): 296.9,
        (times.Where.SEED, times.Call.GPU): 0.46,
        (times.Where.SEED, times.Call.FIRST): 0.55,
        (times.Where.RECORDED, times.Call.GPU): 0.142,
        (times.Where.RECORDED, times.Call.FIRST): 0.143,
    }
    assert [b.row()["label"] for b in bars][-1] == f"{REC} · GPU, first call"
    assert "143 ms, a warm one 142 ms" in times.cold_sentence(matmul, bars)
    assert times.cold_sentence(matmul, [b for b in bars if b.call != times.Call.FIRST]) is None  # not drawn: not said
    linear = get_preset("linear_mnist_dataloader")
    cut = case_of(linear, measured([row(linear, "cpu", 7.83e-3, dataset_size=2500)]), None, [])
    bars = times.time_bars(cut)
    assert all(b.where == times.Where.SEED for b in bars)  # a call at a cut size is no bar...
    assert "7.83" not in times.live_cpu_sentence(cut, bars, 1)  # ...and no sentence quotes it
    recorded_cut = [row(MINIBATCH, d, 1.0, dataset_size=3000) for d in ("cpu", "cuda:0")]
    cut = case_of(MINIBATCH, measured(), pack(recorded_cut), recorded_cut)
    assert {b.where for b in times.time_bars(cut)} == {times.Where.SEED}
    assert times.times_title(boston()) == "Time for 10 000 epochs in total, at the seed's sizes"
    linear = case_of(get_preset("linear_mnist_dataloader"), measured(), None, [])
    assert times.times_title(linear) == "Time per epoch, at the seed's sizes"


def test_data_notes_say_once_where_each_was_seen():
    live = [row(MINIBATCH, "cpu", 1.0, data_note="synthetic MNIST")]
    rec = [row(MINIBATCH, "cuda:0", 1.0, data_note="synthetic MNIST"), row(MINIBATCH, "cpu", 1.0, data_note="other")]
    case = case_of(MINIBATCH, measured(live, {"cpu": curve("cpu", [1.0], data_note="curve data")}), pack(rec), rec)
    notes = screen.data_notes(case)
    assert notes == {"synthetic MNIST": "live", "other": f"recorded on {case.machine}"}
    curves = screen.curves_view(case, [])
    assert screen.curve_data_notes(case, curves, notes) == ["Data (live curve): curve data"]


def test_loss_curves_live_and_recorded_with_their_words():
    recorded = {
        "schema_version": 1,
        "machine": MACHINE,
        "rows": [],
        "path": "/p/h200_seeds_curves.json",
        "curves": [entry("cuda:0", [1.0, 0.5]), entry("cuda:1", [1.0, 0.5], epochs=99)],
    }
    live = measured([], {"cpu": curve("cpu", [2.3, 1.0, 0.1]), "cuda:0": curve("cuda:0", [], "error")})
    case = case_of(MINIBATCH, live, None, [])
    curves = screen.curves_view(case, [recording_of(recorded)])
    assert list(curves.losses) == ["cpu (live, this server)", f"cuda:0 ({REC})", f"cuda:1 ({REC})"]
    assert curves.failures == ["cuda:0 (live, this server): no curve (failed — x)."]
    assert curves.differing == [f"cuda:1 ({REC})"] and curves.side_machine == "NVIDIA H200, 2026-11-21"
    points = screen.loss_points(curves)
    assert points[0] == seed_curves.LossPoint("cpu (live, this server)", 1, 2.3) and len(points) == 7
    assert points[0].row() == {"series": "cpu (live, this server)", "epoch": 1, "loss": 2.3}
    assert screen.epochs_sentence(curves, MINIBATCH) == (
        "3 epochs at a cut size (dataset size 3,000 instead of the seed's 60,000) (the seed trained 15), from the "
        "seeded initial weights on every device."
    )
    assert screen.minibatch_sentence(curves, MINIBATCH) == (
        "Seed 000's CPU run stayed at a loss of 2.3036 from its first epoch to its last. Here the CPU model has its "
        "own optimizer and learns: 2.3 → 0.1 in 3 epochs."
    )
    assert screen.minibatch_sentence(curves, BOSTON) is None
    assert screen.curves_view(case_of(MATMUL, measured(), None, []), []) is None
    assert seed_curves.pct_lower(0.995) == "more than 99%" and seed_curves.pct_lower(0.004) == "under 1%"


def test_elsewhere_is_said_when_the_pack_is_not_the_sidebars():
    from lib.lessons.common import onscreen

    chosen = GpuSource("recorded", "other", "Other GPU", pack_paths=("/p/other.json",))
    assert onscreen.elsewhere_sentence(chosen, pack([]), "this experiment") == (
        "No recording of the GPU chosen in the sidebar holds this experiment, so the recorded side drawn comes from "
        "another machine: NVIDIA H200, 2026-11-21."
    )
    assert onscreen.elsewhere_sentence(chosen, pack([], "/p/other.json"), "x") is None


def test_the_headline_is_one_short_sentence_of_the_ratios_the_chart_draws():
    """Issue 37: the answer above the chart is the seed's ratio beside the recorded one and whether they agree;
    the seed's times, the date and the cut size are said under the chart (verdict_sentences)."""
    assert screen.headline(boston()) == (
        "**Boston-like MLP, full batch (seed 000):** the GPU took 2.43× as long as the "
        "CPU in the seed and 2.00× as long on NVIDIA H200: the same direction."
    )
    assert screen.headline(boston(rec=None)) == (
        "**Boston-like MLP, full batch (seed 000):** GPU time ÷ CPU time was 2.43× in the seed; nothing was measured "
        "here on both devices to set beside it."
    )
    no_times = case_of(get_preset("mnist_100rows"), measured(), None, [])
    assert screen.headline(no_times) == (
        "**MNIST MLP, 100 rows (seed 000):** the seed printed no times for this run, "
        "and nothing was measured here on both devices."
    )
