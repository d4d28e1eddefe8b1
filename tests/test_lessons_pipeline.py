"""What the Data pipeline page computes (lib.lessons.data_pipeline.view): its view, the recorded side, the rows on
screen and the words read from them, on hand-made rows and packs: no Streamlit.

The sentences themselves (device_sentence, ceiling_sentence, ...) are tested in test_app_data_pipeline.py."""

from __future__ import annotations

from dataclasses import replace

from lib.core.point import Point, points_of
from lib.lessons.common.live import LiveBudget
from lib.lessons.data_pipeline import screen as feeds
from lib.recorded.pack import Fingerprint
from lib.recorded.recording import recording_of
from lib.recorded.sources import GpuSource

SETTINGS = feeds.Settings(batch_size=64, dataset_size=256, model="linear", num_workers=0, pin_memory=True)
VIEW = feeds.View(SETTINGS, "batch_size", gpu_live=False)
MACHINE = {"gpus": ["NVIDIA H200"], "date": "2026-11-21", "cpu_model": "Xeon", "torch_threads": 8}
H200 = GpuSource("recorded", "nvidia-h200", "NVIDIA H200, 2026-11-21", pack_paths=("/p/h200.json",))
OTHER = GpuSource("recorded", "other", "Other GPU", pack_paths=("/p/other.json",))


def row(device, feed, batch, median, loading=None, compute=None, **extra):
    # recorded as SETTINGS asks: pinned memory on where the DataLoader copies images to a GPU (tensors never pin)
    r = {
        "workload": "dataloader",
        "device": device,
        "source": feed,
        "batch_size": batch,
        "dataset_size": 256,
        "model": "linear",
        "num_workers": 0,
        "pin_memory": feed == "images",
        "swept": "batch_size",
        "median_s": median,
        "iqr_s": median / 50,
        "repeats": 5,
        "status": "ok",
        "message": "",
    }
    if loading is not None:
        r.update(phase_loading_s=loading, phase_compute_s=compute)
    return {**r, **extra}


def machine_rows(batches=(8, 64), **extra):
    """A recording machine's CPU and two GPUs, both feeds: the GPU's epoch equal to the CPU's."""
    return [
        row(d, feed, b, 0.02, 0.019, 0.001, **extra)
        for feed in ("images", "tensors")
        for b in batches
        for d in ("cpu", "cuda:0", "cuda:1")
    ]


def pack(rows, path="/p/h200.json", machine=MACHINE):
    """A recording of `rows` as lib.recorded loads one from `path`."""
    return recording_of({"schema_version": 1, "machine": machine, "rows": rows, "path": path})


def live_rows():
    return [
        row("cpu", "images", 8, 0.08, 0.075, 0.01, origin="live"),
        row("cpu", "images", 64, 0.08, 0.075, 0.01, origin="live"),
        row("cpu", "tensors", 8, 0.004, 0.0005, 0.003, origin="live"),
        row("cpu", "tensors", 64, 0.004, 0.0005, 0.003, origin="live", message="noisy"),
    ]


def test_view_settings_per_feed_and_the_live_request():
    assert VIEW.current == 64 and VIEW.at == "batch size = 64" and 64 in VIEW.grid and 8 in VIEW.grid
    images, tensors = VIEW.feeds()
    assert images.settings.pin_memory is False  # no GPU to copy to: the CPU is measured without pinning
    assert feeds.View(SETTINGS, "batch_size", gpu_live=True).feeds()[0].settings.pin_memory is True
    assert (images.feed, tensors.feed) == ("images", "tensors")
    assert tensors.workload_settings() == {
        "batch_size": 64,
        "dataset_size": 256,
        "model": "linear",
        "source": "tensors",
        "num_workers": 0,
        "pin_memory": False,
    }
    assert "batch_size" not in images.workload_settings(skip="batch_size")
    request = feeds.live_request(VIEW, ["cpu"], LiveBudget(0.1, 30.0, 1))
    assert request.args == ("batch_size", VIEW.grid, VIEW.feeds(), ["cpu"]) and request.kwargs["current"] == 64
    # the job's total budget is in its key: a shorter budget measures fewer points, so it is another answer
    other = feeds.live_request(VIEW, ["cpu"], LiveBudget(0.1, 60.0, 1))
    assert other != request and other.key != request.key
    label = feeds.measure_label(VIEW, ["cpu"])
    assert label == (
        "data pipeline over batch size on cpu; Linear 784→10 (seed 001), dataset size 256, 0 workers, pinned memory off"
    )
    assert "batch_size" not in label and "=" not in label


def test_settings_in_words():
    assert feeds.settings_words(replace(SETTINGS, num_workers=1)) == (
        "Linear 784→10 (seed 001), batch size 64, dataset size 256, 1 worker, pinned memory on"
    )
    assert feeds.settings_words(SETTINGS, skip=("model", "batch_size", "num_workers", "pin_memory")) == (
        "dataset size 256"
    )


def test_the_recorded_side_is_one_machine_the_sidebars_first():
    first, chosen = pack(machine_rows(), "/p/other.json"), pack(machine_rows())
    found, recorded = feeds.find_recorded([first, chosen], H200.pack_paths, VIEW)
    assert found is chosen
    assert {p.device for p in recorded["images"]} == {"cpu", "cuda:0"}  # the CPU and the first GPU only
    found, _ = feeds.find_recorded([first, chosen], ("/p/none.json",), VIEW)
    assert found is first
    assert feeds.find_recorded([chosen], (), feeds.View(SETTINGS, "batch_size", gpu_live=True)) == (
        None,
        feeds.FeedPoints({"images": (), "tensors": ()}, {"images": None, "tensors": None}),
    )
    assert feeds.find_recorded([pack([r for r in machine_rows() if r["device"] == "cpu"])], (), VIEW)[0] is None
    assert feeds.elsewhere_sentence(H200, chosen) is None
    text = feeds.elsewhere_sentence(OTHER, chosen)
    assert text == (
        "No recording of the GPU chosen in the sidebar holds this view of the data pipeline, so the "
        "recorded side drawn comes from another machine: NVIDIA H200, 2026-11-21."
    )
    assert "Other GPU" not in text  # the sidebar's machine and its dates hold no row on the page (issue 23)
    assert feeds.has_recorded_sweeps([chosen]) and not feeds.has_recorded_sweeps([pack([])])


def test_each_feed_comes_from_the_sidebar_machines_pack_that_holds_it_labelled_with_that_packs_day():
    """A server with no GPU, the H200 chosen, 4 workers: the H200's tensors sweep (2026-11-21) was found first, its
    images feed was empty, and the page said 'DataLoader over images: nothing was timed' while the H200's images
    grid of another day (2026-11-24) held the view. Each feed now comes from the machine's first pack holding it."""
    tensors_only = pack([r for r in machine_rows() if r["source"] == "tensors"], "/p/h200.json")
    images_grid = pack(
        [r for r in machine_rows() if r["source"] == "images"], "/p/h200_images.json", {**MACHINE, "date": "2026-11-24"}
    )
    sidebar = ("/p/h200.json", "/p/h200_images.json")
    found, recorded = feeds.find_recorded([tensors_only, images_grid], sidebar, VIEW)
    assert found is images_grid  # the images feed's pack: the page's subject
    assert recorded.recordings == {"images": images_grid, "tensors": tensors_only}
    assert {p.settings["source"] for p in recorded["images"]} == {"images"} and recorded["tensors"]
    on = feeds.screen(VIEW, [], found, recorded)
    series = {feed: {s.series for s in on.shown[feed]} for feed in ("images", "tensors")}
    assert all("2026-11-24" in s for s in series["images"]) and all("2026-11-21" in s for s in series["tensors"])


def screen(rows=None, gpu_live=False):
    view = feeds.View(SETTINGS, "batch_size", gpu_live=gpu_live)
    found, recorded = feeds.find_recorded([pack(machine_rows() if rows is None else rows)], (), view)
    return feeds.screen(view, points_of(live_rows()), found, recorded)


def test_the_screen_pairs_one_machines_devices_at_the_point():
    on = screen()
    assert [s.series for s in on.here("images")] == [
        "cpu (live, this server)",
        "cpu (recorded on NVIDIA H200, 2026-11-21)",
        "cuda:0 (recorded on NVIDIA H200, 2026-11-21)",
    ]
    cpu, gpu = on.pair("images")
    assert cpu.series == "cpu (recorded on NVIDIA H200, 2026-11-21)" and gpu.point.device == "cuda:0"
    assert on.at_point("tensors").median_s == 0.004
    assert (
        on.missing == [] and len(on.results([]).recorded) == 8 and len(on.rows()) == 12 and len(on.rows("images")) == 6
    )


def test_the_results_on_screen_hold_every_point_shown_the_live_ones_and_the_recorded_ones_with_their_machine():
    live = points_of(live_rows())
    on = screen()
    results = on.results(live)
    assert [s.row() for s in results.shown] == on.rows()  # the table: every point on screen, in its series
    assert results.live == tuple(live)  # the download of this machine
    assert {p.device for p in results.recorded} == {"cpu", "cuda:0"} and len(results.recorded) == 8
    assert all("series" not in p.settings for p in results.recorded)  # as their pack holds them, unlabelled
    assert results.recorded_by == Fingerprint.from_json(MACHINE)  # the download of them names the recording machine
    bare = screen(rows=[]).results(live)
    assert bare.recorded == () and bare.recorded_by is None and bare.live == tuple(live)


def test_the_words_say_whether_the_device_matters():
    sentences, compared = feeds.device_words(screen())
    assert compared and all("**the device does not matter**" in s for s in sentences)
    alone, compared = feeds.device_words(screen(rows=[]))
    assert not compared and "loading alone took 75 ms of the 80 ms epoch" in alone[0]
    assert feeds.feed_sentence(screen()).startswith(
        "On **cpu (live, this server)**, an epoch over images takes 20.0× as long as one over tensors"
    )
    text = feeds.machines_sentence(screen())
    assert (
        "This server's CPU takes 80 ms for the same epoch over images that the recording machine's CPU took "
        "20 ms for (4.00× as long). Loading is 95% of the timed phases on the recorded GPU too" in text
    )
    # issue 23, item 7: what would move it, never a change already on (these rows ran without workers)
    assert "What would move it: DataLoader workers" in text
    assert "What would move it: decode once" in feeds._loading_fix(4)
    assert "DataLoader workers" not in feeds._loading_fix(4)
    assert feeds.machines_sentence(screen(rows=[])) is None
    (images, tensors) = feeds.summaries(screen())
    assert "count as the same at every one of the 2 batch size values" in images


def test_missing_note_and_the_recorded_sweeps_offered_instead():
    no_sweeps = screen(rows=[])
    assert feeds.missing_note(no_sweeps, []).startswith("No GPU on this server and no recorded data-pipeline")
    other_workers = machine_rows(num_workers=2)
    on = screen(rows=other_workers + [r for r in machine_rows() if r["source"] == "tensors"])
    packs = [pack(other_workers)]
    assert on.missing == ["images"]
    text = feeds.missing_note(on, packs)
    assert text == (
        "The recorded packs have no sweep over batch size for the DataLoader over images with these "
        "settings (Linear 784→10 (seed 001), dataset size 256, 0 workers, pinned memory on), so that "
        "part shows only the live CPU."
    )
    assert feeds.missing_note(screen(), packs) is None
    ((label, query),) = feeds.recorded_offers(packs, VIEW)
    assert label == (
        "Show the sweep over batch size (dataset size 256; Linear 784→10 (seed 001); 2 workers; pinned memory on)"
    )
    assert query == {
        "over": "batch_size",
        "model": "linear",
        "num_workers": 2,
        "pin_memory": True,
        "batch_size": 64,
        "dataset_size": 256,
    }
    now = feeds.View(replace(SETTINGS, num_workers=2, pin_memory=True), "batch_size", gpu_live=False)
    assert feeds.recorded_offers(packs, now) == []  # the view on screen is not offered
    assert feeds.recorded_offers([pack(machine_rows(dataset_size=999))], VIEW) == []  # not a slider step


def test_phase_bars_notes_and_the_recording_commands():
    bars = feeds.phase_bars(screen())
    assert [b.series for b in bars][:2] == [
        "images · cpu (live, this server)",
        "images · cpu (recorded on NVIDIA H200, 2026-11-21)",
    ]
    assert len(feeds.phase_notes(bars)) == len(bars)
    where = feeds.point_where("batch_size")
    assert where({"series": "cpu (live, this server)", "source": "images", "batch_size": 8}) == (
        "cpu (live, this server), DataLoader over images, batch size 8"
    )
    images, tensors = feeds.record_commands(VIEW)
    assert images == (
        "python -m lib sweep dataloader --over batch_size=8,16,32,64,128,256,512 --set dataset_size=256 "
        "--set model=linear --set source=images --set num_workers=0 --set pin_memory=true "
        "--devices cpu,cuda --out lib/recorded/dataloader_images_batch_size.json"
    )
    assert "--set source=tensors" in tensors and "--set pin_memory=false" in tensors
    assert feeds.feed_title("tensors") == "Tensors already on the device"


def shipped_rows(**where):
    """The shipped packs' timed dataloader rows with phases matching `where` (lib/recorded/ as it ships)."""
    from lib.recorded import RECORDED_DIR, load_recordings

    recordings, _ = load_recordings(RECORDED_DIR)
    return [
        r
        for recording in recordings
        for r in recording.pack["rows"]
        if r.get("workload") == "dataloader"
        and r.get("status") == "ok"
        and r.get("phase_loading_s") is not None
        and all(r.get(k) == v for k, v in where.items())
    ]


def test_a_device_can_save_only_its_compute_not_the_epochs_bookkeeping_on_the_shipped_pack():
    """Issue 23: 'a device that trained in no time at all would save at most 62 %' counted the epoch's
    loss bookkeeping (in neither timed phase) as device time: no device saves more than the epoch's compute."""
    from lib.core.fmt import pct
    from lib.lessons.data_pipeline import view as pipeline

    # the case on the packs as they ship: the CPU epoch most made of bookkeeping
    def bookkeeping(point: Point) -> float:
        return (pipeline.rest_s(point) or 0.0) / point.phases["compute"]

    row = max(shipped_rows(device="cpu", source="images"), key=lambda r: bookkeeping(Point.from_row(r)))
    cpu = Point.from_row(row)
    epoch, compute = cpu.median_s, cpu.phases["compute"]
    assert pipeline.rest_s(cpu) > 10 * compute  # mostly bookkeeping: the case of the issue
    text = pipeline.ceiling_sentence(cpu, "cpu", "DataLoader over images")
    assert f"at most {pct(compute / epoch)} less" in text and "can hardly matter" in text, text
    assert pct(1 - cpu.phases["loading"] / epoch) not in text  # the old ceiling: everything but loading


def test_the_epoch_bars_end_where_the_words_say_the_epoch_ends_on_the_shipped_pack():
    """Issue 23: the words said 19.5 / 18.9 ms per epoch where the bars of loading and compute ended at
    16.3 / 15.9 ms. The rest of the epoch is its own bar, so each bar ends at the epoch's median."""
    from lib.lessons.data_pipeline import view as pipeline

    longer = [r for r in shipped_rows() if r["median_s"] > r["phase_loading_s"] + r["phase_compute_s"]]
    assert longer
    for r in longer:
        bar = pipeline.PhaseBar("cpu", Point.from_row(r)).chart_row()
        assert abs(sum(bar[k] for k in pipeline.PHASES) - r["median_s"]) < 1e-12
    bars = feeds.phase_bars(screen())
    assert all("phase_rest_s" in b.chart_row() for b in bars)


def test_the_overlap_caption_says_why_a_bar_runs_past_its_epoch():
    from lib.lessons.data_pipeline.view import PhaseBar, overlap_caption

    cpu = PhaseBar("images · cpu", Point.from_row(row("cpu", "images", 64, 0.137, loading=0.05, compute=0.013)))
    gpu_row = row("cuda:0", "images", 64, 0.0585, loading=0.083, compute=0.0095, num_workers=4)
    gpu = PhaseBar("images · cuda:0", Point.from_row(gpu_row))
    assert overlap_caption([cpu]) is None  # its bar ends at its epoch: nothing to explain
    text = overlap_caption([cpu, gpu])
    assert text.startswith("The dark tick on each bar is its whole epoch")
    assert "images · cuda:0: the whole epoch (58.5 ms) took less than loading and compute timed apart (92.5 ms)" in text
    assert "the worker processes decode the next batches" in text and "images · cpu" not in text


def test_the_pinned_memory_switch_picks_the_recorded_rows_it_names():
    """On a server without a GPU the switch 'Page-locked memory' drew the unpinned recording whatever it said: the
    recorded side was matched with the live CPU's settings, which drop pinning (there is no GPU here to copy to)."""
    pinned = machine_rows()
    unpinned = [{**r, "pin_memory": False, "median_s": r["median_s"] * 3} for r in pinned if r["source"] == "images"]
    both = pack(pinned + unpinned, "/p/h200.json")
    for pin, rows in ((True, pinned), (False, unpinned)):
        view = feeds.View(replace(SETTINGS, pin_memory=pin), "batch_size", gpu_live=False)
        assert view.feeds()[0].settings.pin_memory is False  # the live CPU: still measured without pinning
        _, found = feeds.find_recorded([both], H200.pack_paths, view)
        assert found["images"] and all(p.settings["pin_memory"] is pin for p in found["images"])
        assert sorted(p.median_s for p in found["images"]) == sorted(
            r["median_s"] for r in rows if r["source"] == "images" and r["device"] in ("cpu", "cuda:0")
        )
