"""Multi-GPU training step with DistributedDataParallel (seed 002), launched through torchrun.

Seed 002 found that 2 GPUs pay off only at large batches. The reason: every step, each GPU
computes gradients on its own share of the data, then all GPUs average their gradients with an
all-reduce. The gradient is as big as the model whatever the batch, so the all-reduce is a fixed
cost per step that only enough work per step can hide.

One measured point = one `torchrun` launch of `gpus` processes (one per GPU; on the CPU, one per
core with the gloo backend), each running `lib.workloads.ddp_worker`. Several points that share a
process count run in the same launch (the launch costs seconds). Rank 0 writes a JSON file that
this module turns into one result row per point:

    median_s, iqr_s, repeats   step time of the whole group (slowest rank per timed block)
    samples_per_s              global throughput: gpus x batch_size / median_s
    scaling_efficiency         samples_per_s at N / (N x samples_per_s at 1), when the gpus=1 point
                               with the same other settings is among the rows (lib.lessons.scaling)
    phase_compute_s            the same step under DDP's no_sync(): no gradient exchange
    phase_comm_s               communication the step could not hide: step - no-sync step (>= 0)
    grad_bytes                 bytes of gradient all-reduced every step
    allreduce_s, allreduce_gbps  one all-reduce of a buffer that size, timed alone, and
                               grad_bytes / allreduce_s in GB/s (what one exchange costs unhidden)
    peak_memory_bytes          torch.cuda.max_memory_allocated, largest over the GPUs (CUDA only)

`batch_size` is per process (per GPU); the global batch of a step is gpus x batch_size. The data
are random tensors already on the device (CIFAR-10-shaped 3x32x32 images for the CNN): the input
pipeline is not part of this lesson.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import torch
from torch import nn

from lib.core.devices import is_cuda
from lib.workloads import mlp
from lib.core.workload import Setting, SettingError, Step, Workload

ROOT = Path(__file__).resolve().parents[2]
WORKER_MODULE = "lib.workloads.ddp_worker"
BYTES_PER_FLOAT = 4
IMAGE_SHAPE = (3, 32, 32)

# Mandatory for every child: NVLink multicast (NVLS) can break GPUs shared with other jobs.
NCCL_SAFE_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}

ProgressFn = Callable[[float, str], None]


# -- the models ------------------------------------------------------------------------------------
def _mlp_params(params: dict[str, Any]) -> dict[str, Any]:
    """The settings lib.workloads.mlp expects, from ours."""
    return {
        "input_features": int(params["input_features"]), "hidden_layers": "",
        "hidden_width": int(params["hidden_width"]), "depth": int(params["depth"]),
        "outputs": int(params["classes"]), "seed": int(params["seed"]),
    }


def cnn_stages(params: dict[str, Any]) -> list[tuple[int, int, int]]:
    """(in_channels, out_channels, resolution) of every 3x3 convolution: three stages of three
    convolutions at 32, 16 and 8 pixels (width, 2 x width, 4 x width channels), each stage ending
    in a 2x2 max-pool; with the final linear layer, a 10-layer CNN like seed 002's."""
    width = int(params["width"])
    convs, cin = [], IMAGE_SHAPE[0]
    for stage, cout in enumerate((width, 2 * width, 4 * width)):
        for _ in range(3):
            convs.append((cin, cout, IMAGE_SHAPE[1] >> stage))
            cin = cout
    return convs


def build_cnn(params: dict[str, Any]) -> nn.Sequential:
    generator_state = torch.random.get_rng_state()
    torch.manual_seed(int(params["seed"]))
    layers: list[nn.Module] = []
    convs = cnn_stages(params)
    for i, (cin, cout, _) in enumerate(convs):
        layers += [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(inplace=True)]
        if i % 3 == 2:
            layers.append(nn.MaxPool2d(2))
    final_channels, final_side = convs[-1][1], IMAGE_SHAPE[1] >> 3
    layers += [nn.Flatten(), nn.Linear(final_channels * final_side * final_side, int(params["classes"]))]
    model = nn.Sequential(*layers)
    torch.random.set_rng_state(generator_state)
    return model


def build_model(params: dict[str, Any]) -> nn.Module:
    """The model, initialised from `seed` on the CPU: every process starts from the same weights."""
    if params["model"] == "cnn":
        return build_cnn(params)
    return mlp.build_model(_mlp_params(params))


def synthetic_batch(params: dict[str, Any], rank: int, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    """One batch of random inputs and labels for process `rank` (each rank gets its own data)."""
    gen = torch.Generator().manual_seed(int(params["seed"]) + 1 + rank)
    rows = int(params["batch_size"])
    shape = IMAGE_SHAPE if params["model"] == "cnn" else (int(params["input_features"]),)
    x = torch.randn(rows, *shape, generator=gen)
    y = torch.randint(0, int(params["classes"]), (rows,), generator=gen)
    return x.to(device), y.to(device)


def make_optimizer(model: nn.Module, params: dict[str, Any]) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=float(params["lr"]), momentum=0.9)


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def resolve_backend(backend: str, device: str) -> str:
    if backend == "auto":
        return "nccl" if is_cuda(device) else "gloo"
    return backend


# -- the workload ----------------------------------------------------------------------------------
class DDPTraining(Workload):
    name = "ddp"
    title = "Multi-GPU training step (DistributedDataParallel)"
    description = (
        "One optimizer step of an MLP or a small CNN on `gpus` processes with DistributedDataParallel, "
        "launched through torchrun: each process computes gradients on its own batch of `batch_size` "
        "rows, then all processes average their gradients with an all-reduce."
    )
    # The CLI and pages hand whole points or sweeps to measure_point / run_sweep below, which
    # start their own processes, instead of timing build() in this process.
    launches_processes = True

    settings = (
        Setting("model", "mlp", "the model: an MLP (hidden_width x depth) or a 10-layer CNN on 3x32x32 images", choices=("mlp", "cnn")),
        Setting("batch_size", 64, "rows per process (per GPU) per step; the global batch is gpus x batch_size", 1, 65_536, log=True),
        Setting("gpus", 1, "processes, one per GPU (on the CPU: one per core, gloo backend)", 1, 64),
        Setting("backend", "auto", "collective backend: auto = nccl on CUDA, gloo on the CPU", choices=("auto", "nccl", "gloo")),
        Setting("steps", 50, "most timed steps per measurement (fewer when the time budget runs out; at least 3 timed blocks)", 3, 100_000, log=True),
        Setting("hidden_width", 1024, "MLP: units in each hidden layer", 1, 16_384, log=True),
        Setting("depth", 4, "MLP: number of hidden layers", 1, 32),
        Setting("input_features", 1024, "MLP: features per row", 1, 65_536, log=True),
        Setting("width", 64, "CNN: channels of the first stage (then 2x and 4x)", 1, 1024, log=True),
        Setting("classes", 10, "output classes (cross-entropy loss)", 2, 100_000, log=True),
        Setting("lr", 0.01, "learning rate of SGD with momentum 0.9", 1e-6, 10.0, log=True),
        Setting("seed", 0, "random seed for weights and data", 0, 2**31 - 1),
    )

    # -- estimates (per process unless said otherwise) -------------------------------------------
    def parameter_count(self, params: dict[str, Any]) -> int:
        if params["model"] == "cnn":
            convs = sum(cin * cout * 9 + cout for cin, cout, _ in cnn_stages(params))
            final = cnn_stages(params)[-1][1] * (IMAGE_SHAPE[1] >> 3) ** 2
            return convs + final * int(params["classes"]) + int(params["classes"])
        return mlp.WORKLOAD.parameter_count(_mlp_params(params))

    def grad_bytes(self, params: dict[str, Any]) -> int:
        """Bytes each process all-reduces every step: one fp32 gradient per parameter."""
        return self.parameter_count(params) * BYTES_PER_FLOAT

    def flops_per_process(self, params: dict[str, Any]) -> float:
        rows = int(params["batch_size"])
        if params["model"] == "cnn":
            convs = sum(2 * cin * cout * 9 * side * side for cin, cout, side in cnn_stages(params))
            final = 2 * cnn_stages(params)[-1][1] * (IMAGE_SHAPE[1] >> 3) ** 2 * int(params["classes"])
            return 3.0 * (convs + final) * rows  # backward costs about twice the forward pass
        return mlp.WORKLOAD.flops({**_mlp_params(params), "batch_size": rows, "dataset_size": rows})

    def flops(self, params: dict[str, Any]) -> float:
        """FLOPs of one step of the whole group (all processes together)."""
        return self.flops_per_process(params) * int(params["gpus"])

    def activation_floats(self, params: dict[str, Any]) -> int:
        """Floats of activations one process keeps for the backward pass."""
        rows = int(params["batch_size"])
        if params["model"] == "cnn":
            per_row = sum(IMAGE_SHAPE) + sum(cout * side * side for _, cout, side in cnn_stages(params))
            return rows * per_row * 2
        return rows * sum(mlp.layer_sizes(_mlp_params(params))) * 2

    def bytes_moved(self, params: dict[str, Any]) -> float:
        """Least memory traffic of one step of the whole group, plus the gradient all-reduce."""
        per_process = self.parameter_count(params) * BYTES_PER_FLOAT * 6 + self.activation_floats(params) * BYTES_PER_FLOAT * 2
        exchange = self.grad_bytes(params) * 2 if int(params["gpus"]) > 1 else 0
        return float((per_process + exchange) * int(params["gpus"]))

    def peak_memory_bytes(self, params: dict[str, Any], device: str) -> float:
        """Per process: weights, gradients, momentum, DDP's gradient buckets, the all-reduce probe
        buffer, the batch and the activations (x2 for their gradients in the backward pass)."""
        states = self.parameter_count(params) * BYTES_PER_FLOAT * 5
        return float(states + self.activation_floats(params) * BYTES_PER_FLOAT * 2)

    # -- one process, no DDP (the interface every workload has) ------------------------------------
    def build(self, params: dict[str, Any], device: str) -> Step:
        """The same step in this process without DistributedDataParallel (one device, no
        exchange): what generic code gets; the CLI and the page use measure_point instead."""
        params = self.resolve(params)
        dev = torch.device(device)
        model = build_model(params).to(dev)
        optimizer = make_optimizer(model, params)
        loss_fn = nn.CrossEntropyLoss()
        x, y = synthetic_batch(params, 0, device)
        last: dict[str, torch.Tensor] = {}

        def run() -> None:
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            last["loss"] = loss.detach()

        def check() -> None:
            run()
            value = float(last["loss"])
            assert math.isfinite(value), f"loss became {value}"

        return Step(run=run, check=check)

    # -- many processes, through torchrun ----------------------------------------------------------
    def measure_point(
        self, params: dict[str, Any], device: str = "cpu", *, budget_s: float = 1.0,
        memory_cap_gb: float | None = None, num_threads: int | None = None, with_phases: bool = True,
        check: bool = False, timeout_s: float | None = None,
    ) -> dict[str, Any]:
        """One row for one setting: same signature as lib.core.sweep.measure_point, minus the workload."""
        rows = self.measure_points([params], device, budget_s=budget_s, memory_cap_gb=memory_cap_gb,
                                   num_threads=num_threads, with_phases=with_phases, timeout_s=timeout_s)
        return rows[0]

    def run_sweep(
        self, over: str, values: Sequence[Any], fixed: dict[str, Any] | None, devices: Sequence[str], *,
        point_budget_s: float = 1.0, total_budget_s: float | None = None, memory_cap_gb: float | None = None,
        num_threads: int | None = None, with_phases: bool = True, progress: ProgressFn | None = None,
        timeout_s: float | None = None,
    ) -> list[dict[str, Any]]:
        """Same signature as lib.core.sweep.run_sweep, minus the workload: one row per (value, device),
        points sharing a process count measured in one launch; scaling efficiency added where the
        sweep holds the gpus=1 point."""
        from lib.lessons.scaling import add_scaling_efficiency

        parsed = [self.setting(over).parse(v) for v in values]
        fixed = {k: v for k, v in (fixed or {}).items() if k != over}
        started = time.perf_counter()
        rows: list[dict[str, Any]] = []
        for device in devices:
            remaining = None if total_budget_s is None else max(0.0, total_budget_s - (time.perf_counter() - started))
            device_rows = self.measure_points(
                [{**fixed, over: value} for value in parsed], device, budget_s=point_budget_s,
                memory_cap_gb=memory_cap_gb, num_threads=num_threads, with_phases=with_phases,
                total_budget_s=remaining, progress=progress, timeout_s=timeout_s,
            )
            rows.extend(device_rows)
        # Same order as lib.core.sweep.run_sweep: by value, then device.
        order = {id(r): (i % len(parsed), i // len(parsed)) for i, r in enumerate(rows)}
        rows.sort(key=lambda r: order[id(r)])
        for row in rows:
            row["swept"] = over
        if progress:
            progress(1.0, f"done: {len(rows)} points in {time.perf_counter() - started:.1f} s")
        return add_scaling_efficiency(rows)

    def measure_points(
        self, points: Sequence[dict[str, Any]], device: str, *, budget_s: float = 1.0,
        memory_cap_gb: float | None = None, num_threads: int | None = None, with_phases: bool = True,
        total_budget_s: float | None = None, progress: ProgressFn | None = None, timeout_s: float | None = None,
    ) -> list[dict[str, Any]]:
        """One row per point, in order; never raises for the work itself."""
        kind = "cuda" if is_cuda(device) else "cpu"
        rows: list[dict[str, Any]] = []
        resolved: list[dict[str, Any] | None] = []
        launchable: dict[tuple[int, str], list[int]] = {}
        for given in points:
            row, params = self._base_row(given, kind, memory_cap_gb)
            rows.append(row)
            resolved.append(params)
            if row["status"] == "ok" and params is not None:
                launchable.setdefault((int(params["gpus"]), row["backend"]), []).append(len(rows) - 1)

        started = time.perf_counter()
        done = 0
        for (gpus, backend), indices in launchable.items():
            remaining = None if total_budget_s is None else total_budget_s - (time.perf_counter() - started)
            if remaining is not None and remaining <= 0:
                for i in indices:
                    rows[i].update(status="skipped", message=f"time budget of {total_budget_s:g} s used up before this point")
                continue
            if progress:
                progress(done / max(1, len(points)),
                         f"torchrun: {gpus} process(es) on {kind}, {len(indices)} point(s) ({done + 1}/{len(points)})")
            threads = num_threads or max(1, available_cores() // gpus)
            results = launch(
                [{**resolved[i], "backend": backend} for i in indices],
                kind, gpus, backend, budget_s=budget_s, threads=threads, with_phases=with_phases,
                deadline_s=remaining, timeout_s=timeout_s,
            )
            for i, result in zip(indices, results):
                self._finish_row(rows[i], result)
            done += len(indices)
        return rows

    def _base_row(self, given: dict[str, Any], kind: str, memory_cap_gb: float | None) -> tuple[dict[str, Any], dict | None]:
        row: dict[str, Any] = {"workload": self.name, **given, "device": kind}
        row.update(median_s=None, iqr_s=None, repeats=0, status="ok", message="")
        try:
            params = self.resolve(given)
        except SettingError as err:
            row.update(status="error", message=str(err))
            return row, None
        backend = resolve_backend(params["backend"], kind)
        row = {"workload": self.name, **params, "backend": backend, "device": kind,
               **{k: row[k] for k in ("median_s", "iqr_s", "repeats", "status", "message")}}
        row["flops"] = float(self.flops(params))
        row["bytes"] = float(self.bytes_moved(params))
        row["grad_bytes"] = float(self.grad_bytes(params))
        row["peak_memory_estimate_bytes"] = float(self.peak_memory_bytes(params, kind))
        gpus = int(params["gpus"])
        if kind == "cuda":
            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
            if count == 0:
                row.update(status="skipped", message=f"gpus={gpus} on CUDA asked for, but CUDA is not available on this machine; not run")
            elif gpus > count:
                row.update(status="skipped", message=f"gpus={gpus} asked for, but this machine has {count} GPU(s); not run")
        else:
            if backend == "nccl":
                row.update(status="error", message="backend nccl needs CUDA GPUs; use gloo (or auto) on the CPU")
            elif gpus > available_cores():
                row.update(status="skipped", message=f"gpus={gpus} processes on the CPU need {gpus} cores, this machine has {available_cores()}; not run")
        if row["status"] != "ok":
            return row, params
        estimate = self.peak_memory_bytes(params, kind) * (gpus if kind == "cpu" else 1)
        where = "in all processes together" if kind == "cpu" else "per GPU"
        if memory_cap_gb is not None and estimate > memory_cap_gb * 1e9:
            row.update(status="skipped", message=f"needs about {estimate / 1e9:.1f} GB {where}, more than the {memory_cap_gb:g} GB memory cap; not run")
        elif kind == "cpu":
            from lib.core.devices import memory_info

            free, _ = memory_info("cpu")
            if estimate > free:
                row.update(status="skipped", message=f"needs about {estimate / 1e9:.1f} GB {where}, more than the {free / 1e9:.1f} GB free; not run")
        return row, params

    def _finish_row(self, row: dict[str, Any], result: dict[str, Any]) -> None:
        for key, value in result.items():
            if key == "status" or value is not None:
                row[key] = value
        if row["status"] != "ok":
            row.update(median_s=None, iqr_s=None, repeats=0)
            return
        median = row["median_s"]
        if median and median > 0:
            row["samples_per_s"] = int(row["gpus"]) * int(row["batch_size"]) / median
            row["achieved_flops_per_s"] = row["flops"] / median
            if row.get("iqr_s", 0) / median > 0.5 and not row.get("message"):
                row["message"] = f"noisy: the spread (IQR) is {row['iqr_s'] / median:.0%} of the median"


WORKLOAD = DDPTraining()


# -- the launcher ------------------------------------------------------------------------------------
def child_env(threads: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(NCCL_SAFE_ENV)
    env["OMP_NUM_THREADS"] = str(threads)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
    return env


def default_timeout_s(points: int, budget_s: float) -> float:
    """Start-up (interpreter, torch, rendezvous, NCCL) plus, per point, three timed loops with
    warm-up and a generous allowance for slow cold steps."""
    return 90.0 + points * (6.0 * budget_s + 45.0)


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip() and not set(ln.strip()) <= set("=*-")]
    return lines[-1][:300] if lines else ""


def _child_stderr_line(log_dir: Path) -> str:
    """The last line a child wrote to its stderr (torchrun keeps one log per rank)."""
    for path in sorted(log_dir.glob("**/stderr.log"), key=lambda p: p.parent.name):
        try:
            line = last_line(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        if line:
            return line
    return ""


def _stop(proc: subprocess.Popen) -> None:
    """End torchrun and the children it started (they share its new session)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


def launch(
    points: list[dict[str, Any]], device: str, gpus: int, backend: str, *, budget_s: float, threads: int,
    with_phases: bool = True, deadline_s: float | None = None, timeout_s: float | None = None,
) -> list[dict[str, Any]]:
    """Measure `points` (resolved settings sharing `gpus`) in torchrun launches of `gpus` processes;
    return one result dict per point (status, message and the measured fields).

    A point that fails in a child (out of memory, an exception) ends that launch; the points after
    it are measured in a fresh launch. A launch that fails before naming a point, or runs past its
    timeout, marks every point it had left as an error with the child's last stderr line."""
    results: list[dict[str, Any] | None] = [None] * len(points)
    started = time.perf_counter()
    while True:
        todo = [i for i, r in enumerate(results) if r is None]
        if not todo:
            return results  # type: ignore[return-value]
        left = None if deadline_s is None else deadline_s - (time.perf_counter() - started)
        if left is not None and left <= 0:
            for i in todo:
                results[i] = {"status": "skipped", "message": "time budget used up before this point"}
            continue
        outcome = _launch_once([points[i] for i in todo], device, gpus, backend, budget_s=budget_s, threads=threads,
                               with_phases=with_phases, deadline_s=left, timeout_s=timeout_s)
        progressed = False
        for i, result in zip(todo, outcome):
            if result is not None:
                results[i] = result
                progressed = True
        if not progressed:  # nothing learnt: do not launch again
            for i in todo:
                results[i] = {"status": "error", "message": "the launch ended before measuring this point"}


def _launch_once(
    points: list[dict[str, Any]], device: str, gpus: int, backend: str, *, budget_s: float, threads: int,
    with_phases: bool, deadline_s: float | None, timeout_s: float | None,
) -> list[dict[str, Any] | None]:
    """One torchrun launch; None for points it did not reach (to be launched again)."""
    timeout = timeout_s if timeout_s is not None else default_timeout_s(len(points), budget_s)
    with tempfile.TemporaryDirectory(prefix="gpuwin-ddp-") as tmp:
        tmpdir = Path(tmp)
        config = {
            "points": points, "device": device, "backend": backend, "budget_s": budget_s, "threads": threads,
            "with_phases": with_phases, "deadline_s": deadline_s, "collective_timeout_s": min(120.0, timeout),
            "result_path": str(tmpdir / "result.json"), "error_dir": str(tmpdir),
        }
        cmd = [
            sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={gpus}",
            "--log-dir", str(tmpdir / "logs"), "--redirects", "3",
            "-m", WORKER_MODULE, "--json-args", json.dumps(config),
        ]
        timed_out = False
        try:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=child_env(threads), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, start_new_session=True)
        except OSError as err:
            return [{"status": "error", "message": f"could not start torchrun: {err}"} for _ in points]
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _stop(proc)
            _, stderr = proc.communicate()

        done = _read_json(tmpdir / "result.json") or {}
        measured = done.get("points", [])
        out: list[dict[str, Any] | None] = [None] * len(points)
        for i, result in enumerate(measured[: len(points)]):
            out[i] = result
        if proc.returncode == 0 and not timed_out and len(measured) >= len(points):
            return out
        failed = sorted(
            (e for e in (_read_json(p) for p in tmpdir.glob("error.rank*.json")) if e),
            key=lambda e: (e.get("index") is None, e.get("rank", 0)),
        )
        current = done.get("current")
        if timed_out:
            at = current if current is not None else len(measured)
            for i in range(len(measured), len(points)):
                out[i] = {"status": "error", "message": (
                    f"timed out after {timeout:.0f} s" if i == at else "not run: the launch timed out at an earlier point")}
            return out
        if failed and failed[0].get("index") is not None and failed[0]["index"] < len(points):
            index = failed[0]["index"]
            out[index] = {"status": failed[0].get("status", "error"),
                          "message": failed[0].get("message", "") or _child_stderr_line(tmpdir / "logs")}
            return out  # points after `index` stay None: launched again
        child_line = _child_stderr_line(tmpdir / "logs") or last_line(stderr)
        message = (failed[0].get("message") if failed else "") or child_line or f"torchrun exited with status {proc.returncode}"
        for i in range(len(measured), len(points)):
            out[i] = {"status": "error", "message": message[:300]}
        return out


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None



# -- the page's live demo -------------------------------------------------------------------------------
# Small enough for a 2-core server (one launch, a few seconds); on a server with several GPUs,
# the recording's MLP over 1, 2 (and 4) GPUs.
DEMO_CPU = {
    "mlp": {"settings": {"model": "mlp", "hidden_width": 256, "depth": 2, "input_features": 256, "steps": 30},
            "batch_sizes": [8, 32, 128]},
    "cnn": {"settings": {"model": "cnn", "width": 8, "steps": 20}, "batch_sizes": [4, 16, 64]},
}
DEMO_CUDA = {
    "mlp": {"settings": {"model": "mlp", "hidden_width": 2048, "depth": 8, "input_features": 1024, "steps": 50},
            "batch_sizes": [16, 64, 256, 1024]},
    "cnn": {"settings": {"model": "cnn", "width": 64, "steps": 30}, "batch_sizes": [16, 64, 256, 1024]},
}


def demo_plan(model: str) -> dict[str, Any]:
    """What the live demo runs here: CPU with one gloo process unless this server has 2+ GPUs."""
    gpus_here = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if gpus_here >= 2:
        plan = DEMO_CUDA[model]
        return {"device": "cuda", "gpus": [n for n in (1, 2, 4) if n <= gpus_here], **plan}
    return {"device": "cpu", "gpus": [1], **DEMO_CPU[model]}


def demo_threads(gpus: int) -> int:
    """CPU threads per process in the live demo: one core is left for the web server (on a 2-core
    host two busy threads stall whenever the server takes a core); $GPUWIN_LIVE_THREADS overrides."""
    override = os.environ.get("GPUWIN_LIVE_THREADS")
    if override:
        return max(1, int(override))
    return max(1, (available_cores() - 1) // max(1, gpus))


def run_demo(model: str, progress: ProgressFn | None = None, budget_s: float = 0.3) -> list[dict[str, Any]]:
    """The live demo's rows (source 'live'), scaling efficiency added; holds the app's
    measurement lock when there is one, so it never runs beside another live measurement."""
    import contextlib

    from lib.lessons.scaling import add_scaling_efficiency

    plan = demo_plan(model)
    points = [{**plan["settings"], "gpus": n, "batch_size": b} for n in plan["gpus"] for b in plan["batch_sizes"]]
    try:
        from lib.core.measure_lock import MEASURE_LOCK

        lock = MEASURE_LOCK.hold(f"ddp demo ({model})")
    except ImportError:
        lock = contextlib.nullcontext()
    with lock:
        threads = demo_threads(max(plan["gpus"])) if plan["device"] == "cpu" else None
        rows = WORKLOAD.measure_points(points, plan["device"], budget_s=budget_s, progress=progress,
                                       num_threads=threads, total_budget_s=120.0)
    for row in rows:
        row.update(swept="batch_size", origin="live")
    return add_scaling_efficiency(rows)
