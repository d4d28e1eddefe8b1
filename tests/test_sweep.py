import pytest
import torch

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
    row = measure_point(MLP, {"batch_size": 32, "dataset_size": 256, "data_resident": False}, "cpu", budget_s=0.1)
    assert row["status"] == "ok", row["message"]
    assert row["median_s"] > 0 and row["repeats"] >= 3
    assert row["steps_per_epoch"] == 8
    assert row["epoch_s"] == pytest.approx(row["median_s"] * 8)
    assert row["phase_transfer_s"] >= 0 and row["phase_compute_s"] > 0
    assert row["cold_s"] > 0 and row["num_threads"] == torch.get_num_threads()


def test_a_point_over_the_memory_cap_is_skipped_before_allocating():
    big = {"hidden_width": 4096, "depth": 8}
    assert memory_refusal(MLP, MLP.resolve(big), "cpu", cap_gb=0.1)
    row = measure_point(MLP, big, "cpu", memory_cap_gb=0.1)
    assert row["status"] == "skipped"
    assert "GB" in row["message"] and "0.1 GB memory cap" in row["message"]
    assert row["median_s"] is None


def test_a_real_out_of_memory_marks_the_point_and_the_sweep_goes_on():
    rows = run_sweep(Greedy(), "elements", [10, 10**14, 100], {}, ["cpu"], point_budget_s=0.02)
    assert [r["status"] for r in rows] == ["ok", "oom", "ok"]
    assert "out of memory" in rows[1]["message"]


def test_other_errors_are_kept_with_their_message():
    rows = run_sweep(Broken(), "n", [1, 2, 3], {}, ["cpu"], point_budget_s=0.02)
    assert [r["status"] for r in rows] == ["ok", "error", "ok"]
    assert "cursed" in rows[1]["message"]


def test_bad_settings_become_error_rows_not_exceptions():
    row = measure_point(MLP, {"task": "classification", "outputs": 1}, "cpu")
    assert row["status"] == "error" and "outputs" in row["message"]


def test_time_budget_keeps_unreached_points_as_skipped():
    progress = []
    rows = run_sweep(
        MLP, "batch_size", [1, 2, 4, 8, 16, 32], {"dataset_size": 64}, ["cpu"],
        point_budget_s=0.1, total_budget_s=0.3, with_phases=False,
        progress=lambda f, m: progress.append((f, m)),
    )
    assert len(rows) == 6
    statuses = [r["status"] for r in rows]
    assert statuses[0] == "ok" and statuses[-1] == "skipped"
    assert "time budget" in rows[-1]["message"]
    assert all(r["swept"] == "batch_size" for r in rows)
    assert rows[-1]["batch_size"] == 32
    fractions = [f for f, _ in progress]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert "batch_size=1 on cpu" in progress[0][1]


@pytest.mark.cuda
def test_mlp_on_cuda_with_copies_per_batch_has_a_transfer_phase():
    row = measure_point(MLP, {"batch_size": 256, "data_resident": False, "pin_memory": True}, "cuda:0", budget_s=0.2)
    assert row["status"] == "ok", row["message"]
    assert row["phase_transfer_s"] > 0
    assert row["device_name"].startswith("NVIDIA")


@pytest.mark.cuda
def test_cuda_out_of_memory_is_survived():
    free, _ = torch.cuda.mem_get_info()
    rows = run_sweep(Greedy(), "elements", [10, int(free), 10], {}, ["cuda:0"], point_budget_s=0.02)
    assert [r["status"] for r in rows] == ["ok", "oom", "ok"]


def test_the_memory_cap_is_read_when_a_point_is_measured(monkeypatch):
    big = {"hidden_width": 4096, "depth": 8}  # about 0.8 GB estimated
    monkeypatch.setenv("GPUWIN_MEMORY_CAP_GB", "0.1")
    assert measure_point(MLP, big, "cpu")["status"] == "skipped"
    monkeypatch.setenv("GPUWIN_MEMORY_CAP_GB", "0.2")
    assert "0.2 GB memory cap" in measure_point(MLP, big, "cpu")["message"]


def test_refusals_come_in_order_and_keep_the_estimates():
    calls = []

    def refuse(settings, device):
        calls.append(settings["batch_size"])
        return "refused by the hook" if settings["batch_size"] == 8 else None

    rows = run_sweep(MLP, "batch_size", [4, 8], {"dataset_size": 64, "hidden_width": 4096, "depth": 8}, ["cpu"],
                     point_budget_s=0.02, memory_cap_gb=0.1, refuse=refuse)
    assert [r["status"] for r in rows] == ["skipped", "skipped"]
    assert all("memory cap" in r["message"] for r in rows) and calls == []  # memory is asked before the hook
    rows = run_sweep(MLP, "batch_size", [4, 8], {"dataset_size": 64}, ["cpu"], point_budget_s=0.02, refuse=refuse,
                     with_phases=False, origin="live")
    assert [r["status"] for r in rows] == ["ok", "skipped"] and rows[1]["message"] == "refused by the hook"
    assert rows[1]["flops"] > 0 and rows[1]["peak_memory_estimate_bytes"] > 0
    assert all(r["origin"] == "live" and r["swept"] == "batch_size" for r in rows)


@pytest.mark.slow
def test_on_row_sees_every_row_as_it_is_made():
    seen = []
    rows = run_sweep(MLP, "batch_size", [4, 8], {"dataset_size": 64}, ["cpu"], point_budget_s=0.02,
                     with_phases=False, on_row=lambda r: seen.append(dict(r)))
    assert [r["batch_size"] for r in seen] == [4, 8] and seen == rows


@pytest.mark.slow
def test_profiles_come_after_every_timing_of_a_sweep(timing_events):
    # a CUDA trace leaves the profiler attached and slows later launches: no timing may follow a profile
    import lib.core.sweep as sweep_module
    from lib.workloads import get_workload

    rows = sweep_module.run_sweep(get_workload("matmul"), "size", [64, 128, 256], {}, ["cpu"], point_budget_s=0.02,
                                  with_phases=False, with_profile=True)
    assert timing_events == ["time"] * 3 + ["profile"] * 3
    assert all(r["status"] == "ok" and r["kernels"] > 0 for r in rows)


def test_a_memory_refusal_never_reads_as_equal_numbers():
    """'needs about 2.7 GB, more than the 2.7 GB memory cap' (issue 26, finding 10): enough decimals to differ."""
    from lib.core.fmt import gb_apart

    assert gb_apart(2.74e9, 2.7e9) == ("2.74", "2.70")
    assert gb_apart(4.5e9, 2.7e9) == ("4.5", "2.7")
    assert gb_apart(2.7000001e9, 2.7e9) == ("2.700000", "2.700000")  # within a kB: about the cap itself
    big = MLP.resolve({"batch_size": 512, "hidden_width": 256, "dataset_size": 512})
    cap_gb = MLP.peak_memory_bytes(big, "cpu") / 1e9 * 0.99  # 1% under the estimate: equal at one decimal
    message = measure_point(MLP, big, "cpu", memory_cap_gb=cap_gb)["message"]
    needs, cap = message.split("about ")[1].split(" GB, more than the ")  # (in all, with what the process holds)
    assert float(needs) > float(cap.split(" GB")[0]), message
