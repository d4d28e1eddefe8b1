import pytest
import torch

from lib.core.rows import Origin, Status
from lib.core.sweep import measure_point, memory_refusal, run_sweep
from lib.core.workload import Setting, Step, Workload
from lib.workloads import get_workload

MLP = get_workload("mlp")


class Greedy(Workload):
    """Tries to allocate what it claims is small: the OOM that happens despite the estimate."""

    name = "greedy"
    settings = (Setting("elements", 10, "how many floats to allocate", 1),)

    def flops(self, p):
        return 1.0

    def bytes_moved(self, p):
        return 4.0 * p["elements"]

    def peak_memory_bytes(self, p, device):
        return 1.0  # a wrong estimate on purpose

    def build(self, p, device):
        x = torch.empty(int(p["elements"]), device=device)
        return Step(run=lambda: x.add_(1))


class Broken(Workload):
    name = "broken"
    settings = (Setting("n", 1, "", 1),)

    def flops(self, p):
        return 1.0

    def bytes_moved(self, p):
        return 1.0

    def peak_memory_bytes(self, p, device):
        return 1.0

    def build(self, p, device):
        if p["n"] == 2:
            raise ValueError("n=2 is cursed")
        return Step(run=lambda: None)


def test_mlp_point_has_time_phases_and_epoch():
    point = measure_point(MLP, {"batch_size": 32, "dataset_size": 256, "data_resident": False}, "cpu", budget_s=0.1)
    assert point.status == Status.OK, point.message
    assert point.median_s > 0 and point.repeats >= 3
    assert point.counts.steps_per_epoch == 8
    assert point.epoch_s == pytest.approx(point.median_s * 8)
    assert point.phases["transfer"] >= 0 and point.phases["compute"] > 0
    assert point.cold_s > 0 and point.counts.num_threads == torch.get_num_threads()


def test_a_point_over_the_memory_cap_is_skipped_before_allocating():
    big = {"hidden_width": 4096, "depth": 8}
    assert memory_refusal(MLP, MLP.resolve(big), "cpu", cap_gb=0.1)
    point = measure_point(MLP, big, "cpu", memory_cap_gb=0.1)
    assert point.status == Status.SKIPPED
    assert "GB" in point.message and "0.1 GB memory cap" in point.message
    assert point.median_s is None


def test_a_real_out_of_memory_marks_the_point_and_the_sweep_goes_on():
    points = run_sweep(Greedy(), "elements", [10, 10**14, 100], {}, ["cpu"], point_budget_s=0.02)
    assert [p.status for p in points] == [Status.OK, Status.OOM, Status.OK]
    assert "out of memory" in points[1].message


def test_other_errors_are_kept_with_their_message():
    points = run_sweep(Broken(), "n", [1, 2, 3], {}, ["cpu"], point_budget_s=0.02)
    assert [p.status for p in points] == [Status.OK, Status.ERROR, Status.OK]
    assert "cursed" in points[1].message


def test_bad_settings_become_error_points_not_exceptions():
    point = measure_point(MLP, {"task": "classification", "outputs": 1}, "cpu")
    assert point.status == Status.ERROR and "outputs" in point.message


def test_time_budget_keeps_unreached_points_as_skipped():
    progress = []
    points = run_sweep(
        MLP,
        "batch_size",
        [1, 2, 4, 8, 16, 32],
        {"dataset_size": 64},
        ["cpu"],
        point_budget_s=0.1,
        total_budget_s=0.3,
        with_phases=False,
        progress=lambda f, m: progress.append((f, m)),
    )
    assert len(points) == 6
    statuses = [p.status for p in points]
    assert statuses[0] == Status.OK and statuses[-1] == Status.SKIPPED
    assert "time budget" in points[-1].message
    assert all(p.swept == "batch_size" for p in points)
    assert points[-1].settings["batch_size"] == 32
    fractions = [f for f, _ in progress]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert "batch_size=1 on cpu" in progress[0][1]


@pytest.mark.cuda
def test_mlp_on_cuda_with_copies_per_batch_has_a_transfer_phase():
    point = measure_point(MLP, {"batch_size": 256, "data_resident": False, "pin_memory": True}, "cuda:0", budget_s=0.2)
    assert point.status == Status.OK, point.message
    assert point.phases["transfer"] > 0
    assert point.notes.device_name.startswith("NVIDIA")


@pytest.mark.cuda
def test_cuda_out_of_memory_is_survived():
    free, _ = torch.cuda.mem_get_info()
    points = run_sweep(Greedy(), "elements", [10, int(free), 10], {}, ["cuda:0"], point_budget_s=0.02)
    assert [p.status for p in points] == [Status.OK, Status.OOM, Status.OK]


def test_the_memory_cap_is_read_when_a_point_is_measured(monkeypatch):
    big = {"hidden_width": 4096, "depth": 8}  # about 0.8 GB estimated
    monkeypatch.setenv("GPUWIN_MEMORY_CAP_GB", "0.1")
    assert measure_point(MLP, big, "cpu").status == Status.SKIPPED
    monkeypatch.setenv("GPUWIN_MEMORY_CAP_GB", "0.2")
    assert "0.2 GB memory cap" in measure_point(MLP, big, "cpu").message


def test_refusals_come_in_order_and_keep_the_estimates():
    calls = []

    def refuse(settings, device):
        calls.append(settings["batch_size"])
        return "refused by the hook" if settings["batch_size"] == 8 else None

    points = run_sweep(
        MLP,
        "batch_size",
        [4, 8],
        {"dataset_size": 64, "hidden_width": 4096, "depth": 8},
        ["cpu"],
        point_budget_s=0.02,
        memory_cap_gb=0.1,
        refuse=refuse,
    )
    assert [p.status for p in points] == [Status.SKIPPED, Status.SKIPPED]
    assert all("memory cap" in p.message for p in points) and calls == []  # memory is asked before the hook
    points = run_sweep(
        MLP,
        "batch_size",
        [4, 8],
        {"dataset_size": 64},
        ["cpu"],
        point_budget_s=0.02,
        refuse=refuse,
        with_phases=False,
        origin=Origin.LIVE,
    )
    assert [p.status for p in points] == [Status.OK, Status.SKIPPED] and points[1].message == "refused by the hook"
    assert points[1].counts.flops > 0 and points[1].counts.peak_memory_estimate_bytes > 0
    assert all(p.origin is Origin.LIVE and p.swept == "batch_size" for p in points)


@pytest.mark.slow
def test_on_point_sees_every_point_as_it_is_made():
    seen = []
    points = run_sweep(
        MLP,
        "batch_size",
        [4, 8],
        {"dataset_size": 64},
        ["cpu"],
        point_budget_s=0.02,
        with_phases=False,
        on_point=seen.append,
    )
    assert [p.settings["batch_size"] for p in seen] == [4, 8] and seen == points


@pytest.mark.slow
def test_profiles_come_after_every_timing_of_a_sweep(timing_events):
    # a CUDA trace leaves the profiler attached and slows later launches: no timing may follow a profile
    import lib.core.sweep as sweep_module
    from lib.workloads import get_workload

    points = sweep_module.run_sweep(
        get_workload("matmul"),
        "size",
        [64, 128, 256],
        {},
        ["cpu"],
        point_budget_s=0.02,
        with_phases=False,
        with_profile=True,
    )
    assert timing_events == ["time"] * 3 + ["profile"] * 3
    assert all(p.status == Status.OK and p.counts.kernels > 0 for p in points)


def test_a_memory_refusal_never_reads_as_equal_numbers():
    """'needs about 2.7 GB, more than the 2.7 GB memory cap' (issue 26, finding 10): enough decimals to differ."""
    from lib.core.fmt import gb_apart

    assert gb_apart(2.74e9, 2.7e9) == ("2.74", "2.70")
    assert gb_apart(4.5e9, 2.7e9) == ("4.5", "2.7")
    assert gb_apart(2.7000001e9, 2.7e9) == ("2.700000", "2.700000")  # within a kB: about the cap itself
    big = MLP.resolve({"batch_size": 512, "hidden_width": 256, "dataset_size": 512})
    cap_gb = MLP.peak_memory_bytes(big, "cpu") / 1e9 * 0.99  # 1% under the estimate: equal at one decimal
    message = measure_point(MLP, big, "cpu", memory_cap_gb=cap_gb).message
    needs, cap = message.split("about ")[1].split(" GB, more than the ")  # (in all, with what the process holds)
    assert float(needs) > float(cap.split(" GB")[0]), message


def test_a_built_step_is_freed_walking_its_own_objects_and_its_cycles_still_go():
    """built_step freezes the heap it found (lib.core.gc_scope): freeing the step collects the step's objects, a
    reference cycle among them included, without walking every import's (a full walk: 0.2-0.3 s a point); the heap is
    unfrozen after, and a caller's frozen scope (the measuring process's job) is left frozen."""
    import gc
    import weakref

    from lib.core.gc_scope import frozen_heap
    from lib.core.workload import built_step

    class Cycle:
        pass

    seen = {}
    settings = MLP.resolve({"batch_size": 4, "dataset_size": 16})
    with built_step(MLP, settings, "cpu") as step:
        seen["frozen"] = gc.get_freeze_count()
        cycle = Cycle()
        cycle.me, cycle.step = cycle, step  # garbage only a collection frees, holding the step's tensors
        seen["cycle"] = weakref.ref(cycle)
        del cycle
    assert seen["frozen"] > 10_000  # torch's objects and the rest imported: frozen while the step ran
    assert seen["cycle"]() is None  # collected when the step was freed, though only the heap's young part is walked
    assert gc.get_freeze_count() == 0

    with frozen_heap():
        with built_step(MLP, settings, "cpu"):
            pass
        assert gc.get_freeze_count() > 10_000  # the caller's scope still frozen
    assert gc.get_freeze_count() == 0


def test_a_heap_the_interpreter_froze_at_start_is_still_frozen_around_a_step():
    """Python 3.12 starts with a few hundred objects frozen (gc.get_freeze_count() 375): read as 'frozen by
    someone already', no step was frozen there (the H200 machine's 3.12: a full walk after every point)."""
    import gc

    from lib.core.gc_scope import frozen_heap

    gc.freeze()  # as the interpreter left it: something frozen before anything here ran
    made_since = [[i] for i in range(50_000)]  # objects gc tracks, made after that freeze
    try:
        before = gc.get_freeze_count()
        with frozen_heap():
            assert gc.get_freeze_count() >= before + len(made_since)
    finally:
        gc.unfreeze()
