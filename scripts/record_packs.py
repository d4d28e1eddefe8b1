#!/usr/bin/env python3
"""Record the result packs the app ships, with the project's own CLI: dense grids, so that every
view a visitor can pick on a server without a GPU has recorded (or exactly derived) points.

    python3 scripts/record_packs.py --out lib/recorded                     # every job, CPU and CUDA
    python3 scripts/record_packs.py --out lib/recorded --minutes 9         # stop starting jobs after 9 min
    python3 scripts/record_packs.py --out lib/recorded --small-server      # this CPU only: a hosted box
    python3 scripts/record_packs.py --list                                 # the jobs and their commands

Every job is one `python -m lib sweep ...` (or `python -m lib timeline ...`) call, printed as it
runs, writing <out>/<prefix>_<job>.json.gz. Jobs are resumable: a job whose file is complete is
skipped, a grid cut off half way goes on with --resume (its rows are saved every 50 points). So a
recording can be spread over several calls of a few minutes each, on a lent GPU machine. The
prefix names the machine (h200, h100, gpu on other GPUs, cpu<N> on a CPU-only box with N cores).
Needs torch (and pandas/scikit-learn for some data sources), not Streamlit.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the execution modes' records (standard library only to import)
from lib.workloads import FAMILIES  # noqa: E402  (the Training page's model families: lib.workloads.family)
from lib.workloads.execution import MODES, Recording  # noqa: E402
from lib.workloads.family import TrainingFamily  # noqa: E402

MLP = FAMILIES[0]  # the default family: the execution modes' grids, timelines and pitfalls are recorded on it
BATCHES = list(MLP.axes["batch_size"].steps)  # the Training page's batch sizes, 1 .. 65,536
WIDTHS = list(MLP.axes[MLP.width].steps)  # 4 .. 8,192
DEPTHS = list(MLP.axes[MLP.depth].steps)
GRID_DATASET = 65536  # at least every batch: each batch size is its own step; other dataset sizes are derived
DEFAULTS = {k: MLP.default(k) for k in MLP.axes}  # the Training page's
DEFAULT_SWEEPS = {k: list(v) for k, v in MLP.recorded_sweeps.items()}
# A data pipeline row takes 2-3 s on a GPU host (an epoch per repeat, worker processes started): saved
# every 10 rows, a call cut off by its time limit loses under half a minute, not the 2 minutes of 50.
PIPELINE_SAVE_EVERY = 10


def over(name: str, values) -> list[str]:
    return ["--over", f"{name}={','.join(str(v) for v in values)}"]


def sets(**settings) -> list[str]:
    out = []
    for key, value in settings.items():
        out += ["--set", f"{key}={str(value).lower() if isinstance(value, bool) else value}"]
    return out


@dataclass
class Job:
    name: str  # file: <prefix>_<name>.json.gz
    args: list[str]  # after `python -m lib`
    devices: str  # 'cuda', 'cpu' or 'cpu,cuda'
    gpu_only: bool = False  # skipped on a machine without CUDA
    small_server: bool = False  # also recorded on a small CPU-only box
    extra: list[str] = field(default_factory=list)
    save_every: int = 50  # points between saves: 1 where each point takes long (a compile), so a cut-off call keeps it

    def command(self, out: Path, prefix: str, devices: str) -> list[str]:
        kind = self.args[0]
        # timelines are not result packs: they live in their own folder, read by lib.recorded.timelines
        path = (out / "timelines" if kind == "timeline" else out) / f"{prefix}_{self.name}.json.gz"
        tail = ["--devices", devices, "--out", str(path)]
        if kind == "sweep":
            tail += ["--resume", "--save-every", str(self.save_every), "--quiet"]
        return [sys.executable, "-m", "lib", *self.args, *tail, *self.extra]


def with_memory_cap(command: list[str], cap_gb: float | None) -> list[str]:
    """The command with `--memory-cap-gb cap_gb` (replacing a job's own): one cap that fits the GPU for
    every job, since the CLI's 2.7 GB default is the small server's and refuses a GPU's large points."""
    if cap_gb is None:
        return command
    out: list[str] = []
    skip = False
    for a in command:
        if skip:
            skip = False
        elif a == "--memory-cap-gb":
            skip = True
        else:
            out.append(a)
    return [*out, "--memory-cap-gb", f"{cap_gb:g}"]


def training_grid(
    mode: str,
    depths,
    widths,
    batches,
    memory_cap_gb: float | None = 60,
    family: TrainingFamily = MLP,
    cpu_gflop: float = 20,
    dataset_size: int = GRID_DATASET,
    **switches,
) -> list[str]:
    cap = ["--memory-cap-gb", str(memory_cap_gb)] if memory_cap_gb else []
    return [
        "sweep",
        family.name,
        *over(family.width, widths),
        *(over(family.depth, depths) if family.depth else []),
        *over("batch_size", batches),
        *sets(dataset_size=dataset_size, mode=mode, **switches),
        "--budget",
        "0.05",
        "--no-phases",
        *cap,
        "--max-gflop",
        "cuda=10000",
        "--max-gflop",
        f"cpu={cpu_gflop:g}",
    ]


def mode_job(mode: str, recording: Recording) -> Job:
    """The job of one grid a mode's record asks for, on the GPU."""
    widths, batches = recording.widths or WIDTHS, recording.batches or BATCHES
    args = training_grid(
        mode, list(recording.depths), list(widths)[:: recording.every], list(batches)[:: recording.every]
    )
    return Job(
        f"training_{recording.pack}",
        args + (["--profile"] if recording.profile else []),
        "cuda",
        gpu_only=True,
        save_every=recording.save_every,
    )


def grid_jobs(family: TrainingFamily) -> list[Job]:
    """A family's coarse recording (its record's Grid): each mode on the GPU over batches x widths x depths,
    profiled after timing, and the CPU's eager steps at the same points (the host's, and at 1 thread within
    the live page's limits: the small server's curve), for each choice it records (a torchvision network)."""
    grid, jobs = family.grid, []
    for pick in grid.picks:
        name = "_".join([family.name, *(str(v) for v in pick.values())]) + "_"
        args = {
            "depths": grid.depths,
            "widths": grid.widths,
            "batches": grid.batches,
            "family": family,
            "dataset_size": max(grid.batches),
            **pick,
        }
        jobs += [
            Job(
                f"{name}training_{mode}",
                training_grid(mode, **args) + ["--profile"],
                "cuda",
                gpu_only=True,
                save_every=1 if mode.startswith("compile") else 50,
            )
            for mode in grid.modes
        ]
        jobs += [
            Job(f"{name}training_cpu", training_grid("eager", **args), "cpu"),
            Job(
                f"{name}training_cpu1",
                training_grid("eager", **args, memory_cap_gb=None, cpu_gflop=3) + ["--threads", "1"],
                "cpu",
                small_server=True,
            ),
        ]
    return jobs


def family_jobs(family: TrainingFamily) -> list[Job]:
    """A model family's Training recordings, from its record: its step on the page's grid (every batch x
    width x depth, eager, data resident: the page's default switches) and its default 1-D sweeps; a family
    with a coarse Grid, that grid (grid_jobs). The MLP's jobs keep their names (the shipped packs');
    another family's are named after it."""
    if family.grid is not None:
        return grid_jobs(family)
    name = "" if family is MLP else f"{family.name}_"
    batches, widths, depths = (list(family.axes[k].steps) for k in ("batch_size", family.width, family.depth))
    defaults = {k: family.default(k) for k in family.axes}
    return [
        Job(
            f"{name}training_gpu",
            training_grid("eager", depths, widths, batches, family=family) + ["--profile"],
            "cuda",
            gpu_only=True,
        ),
        # The host CPU at its own threads, and at 1 thread (the 'recording machine's CPU' curve).
        Job(f"{name}training_cpu", training_grid("eager", depths, widths, batches, family=family), "cpu"),
        # ... and at 1 thread within the live page's limits (3 GFLOP a step, the default memory cap): on a
        # small hosted box this is the CPU curve drawn before its own CPU is measured live.
        Job(
            f"{name}training_cpu1",
            training_grid("eager", depths, widths, batches, memory_cap_gb=None, family=family, cpu_gflop=3)
            + ["--threads", "1"],
            "cpu",
            small_server=True,
        ),
        # The Training page's default 1-D sweeps (for the MLP: batch, width, dataset, depth through batch 64,
        # width 64, depth 3, dataset 8,192; phases timed), as the shipped <gpu>_training.json packs hold
        # them: recorded again on another lease, they show how far one day's curve moves from another's.
        *[
            Job(
                f"{name}defaults_{swept}",
                [
                    "sweep",
                    family.name,
                    *over(swept, values),
                    *sets(**{k: v for k, v in defaults.items() if k != swept}),
                    "--budget",
                    "0.5",
                ],
                "cpu,cuda",
                gpu_only=True,
            )
            for swept, values in family.recorded_sweeps.items()
        ],
    ]


JOBS: list[Job] = [
    # Training, for every model family: its grids and default sweeps.
    *[job for family in FAMILIES for job in family_jobs(family)],
    # Execution modes: each mode's record names its grids (lib/workloads/execution.py): every batch x
    # width at depth 3, compile on a subgrid (each point compiles afresh), fused and the CUDA graph also at
    # depths 1 and 12, coarse (checks that the cost model's depth terms, fitted at depth 3, hold there).
    *[mode_job(mode.value, r) for mode in MODES for r in mode.recordings],
    # Pitfall switches on a coarser subgrid: every batch x every other width, depth 3, phases timed.
    *[
        Job(
            f"training_{name}",
            [a for a in training_grid("eager", [3], WIDTHS[::2], BATCHES, **switches) if a != "--no-phases"],
            "cuda",
            gpu_only=True,
        )
        for name, switches in (
            ("copied", {"data_resident": False}),
            ("copied_pinned", {"data_resident": False, "pin_memory": True}),
            ("item", {"item_every_step": True}),
        )
    ],
    # Timelines of the Training page's main points (the step's CPU thread against its GPU stream).
    *[
        Job(
            f"{'' if f is MLP else f.name + '_'}timeline_{mode}_b{b}_w{w}",
            [
                "timeline",
                f.name,
                *sets(batch_size=b, **{f.width: w}, dataset_size=GRID_DATASET, mode=mode),
                "--memory-cap-gb",
                "60",
            ],
            "cpu,cuda" if mode == "eager" else "cuda",
            gpu_only=True,
        )
        for f in FAMILIES
        for mode in (m.value for m in MODES if m.timelines)
        for b in f.timeline_batches
        for w in f.timeline_widths
    ],
    # Data pipeline: every batch x dataset x model x workers x pinned memory, images and tensors.
    Job(
        "pipeline_images",
        [
            "sweep",
            "dataloader",
            *over("model", ["linear", "mlp"]),
            *over("num_workers", [0, 1, 2, 4]),
            *over("pin_memory", ["false", "true"]),
            *over("dataset_size", [256, 512, 1024, 2048]),
            *over("batch_size", [8, 16, 32, 64, 128, 256, 512]),
            *sets(source="images"),
            "--budget",
            "0.2",
        ],
        "cpu,cuda",
        small_server=True,
        save_every=PIPELINE_SAVE_EVERY,
    ),
    Job(
        "pipeline_tensors",
        [
            "sweep",
            "dataloader",
            *over("model", ["linear", "mlp"]),
            *over("dataset_size", [256, 512, 1024, 2048]),
            *over("batch_size", [8, 16, 32, 64, 128, 256, 512]),
            *sets(source="tensors"),
            "--budget",
            "0.2",
        ],
        "cpu,cuda",
        small_server=True,
        save_every=PIPELINE_SAVE_EVERY,
    ),
    # ... a coarse subset of the images grid (a first pass on a GPU with none of it: 2 of each switch)
    Job(
        "pipeline_coarse_images",
        [
            "sweep",
            "dataloader",
            *over("model", ["linear", "mlp"]),
            *over("num_workers", [0, 2]),
            *over("pin_memory", ["false", "true"]),
            *over("dataset_size", [256, 2048]),
            *over("batch_size", [8, 64, 512]),
            *sets(source="images"),
            "--budget",
            "0.2",
        ],
        "cpu,cuda",
        gpu_only=True,
        save_every=PIPELINE_SAVE_EVERY,
    ),
    # Jacobian (seed 004): every method x val; the loop stops where one call takes minutes.
    Job(
        "jacobian",
        [
            "sweep",
            "jacobian",
            *over("method", ["vectorize", "vmap_jacrev", "vmap_jacfwd"]),
            *over("val", [1, 3, 10, 30, 100, 300, 1000, 3000, 10000]),
            "--budget",
            "0.3",
            "--memory-cap-gb",
            "60",
        ],
        "cpu,cuda",
        small_server=True,
    ),
    Job(
        "jacobian_loop",
        [
            "sweep",
            "jacobian",
            *over("val", [1, 3, 10, 30, 100, 300]),
            *sets(method="loop"),
            "--budget",
            "0.3",
            "--slow-call-s",
            "2",
        ],
        "cpu,cuda",
        small_server=True,
    ),
    # Timing pitfalls (seed 003): every size x synchronise x TF32 x copy counted.
    Job(
        "timing",
        [
            "sweep",
            "matmul",
            *over("sync", ["true", "false"]),
            *over("dtype", ["fp32", "tf32"]),
            *over("transfer", ["false", "true"]),
            *over("size", [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]),
            "--budget",
            "0.3",
            "--max-gflop",
            "cpu=200",
        ],
        "cpu,cuda",
        small_server=True,
    ),
    # ... the large synced matmuls alone (fp32 and TF32, copy counted or not): the peak flop rate the
    # roofline reads (lib/recorded/ceilings.py), for a machine whose timing grid skipped them under a
    # smaller cap; the unsynchronised variants at these sizes take 35-45 s a point and say nothing new.
    Job(
        "timing_large",
        [
            "sweep",
            "matmul",
            *over("dtype", ["fp32", "tf32"]),
            *over("transfer", ["false", "true"]),
            *over("size", [8192, 16384]),
            *sets(sync=True),
            "--budget",
            "0.3",
        ],
        "cuda",
        gpu_only=True,
    ),
    # ... and the unsynchronised ones at 16,384 (35-45 s a point): the H200's timing grid holds them only as
    # refusals under the small server's 2.7 GB cap, which the Timing page showed (issue 23)
    Job(
        "matmul_nosync_16384",
        [
            "sweep",
            "matmul",
            *over("dtype", ["fp32", "tf32"]),
            *over("transfer", ["false", "true"]),
            *over("size", [16384]),
            *sets(sync=False),
            "--budget",
            "0.3",
        ],
        "cuda",
        gpu_only=True,
    ),
    # Memory bandwidth: y = x + 1 from 256 kB to 8 GB of traffic a call (1 MB to 4 GB tensors), so the
    # largest sizes sit on the bandwidth plateau (bytes / median_s, the roofline's sloped roof).
    Job(
        "stream",
        ["sweep", "stream", *over("size", [2**i for i in range(15, 31)]), "--budget", "0.2"],
        "cpu,cuda",
        gpu_only=True,
    ),
]


# The order jobs run in on a GPU machine: what the Training page needs most first, so a call cut short
# (or a device budget spent) still leaves the most-visited views covered; the slow data pipeline last.
RUN_ORDER = [
    "stream",
    "training_gpu",
    "training_graph",
    "training_fused",
    "timeline_",
    "training_copied",
    "training_item",
    "timing",
    "jacobian",
    "training_compile",
    "defaults_",
    "training_cpu",
    "pipeline_tensors",
    "pipeline_coarse",
    "pipeline_images",
]


def run_order(job: Job) -> int:
    return next((i for i, start in enumerate(RUN_ORDER) if job.name.startswith(start)), len(RUN_ORDER))


JOBS.sort(key=run_order)  # stable: jobs of one group keep their order


def machine_prefix(cuda: bool) -> str:
    import torch

    if cuda:
        name = torch.cuda.get_device_name(0)
        return next((p.lower() for p in ("H200", "H100", "A100", "L4", "T4") if p in name), "gpu")
    return f"cpu{os.cpu_count() or 1}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "lib" / "recorded"))
    parser.add_argument("--jobs", default="", help="comma-separated job names or prefixes (default: all)")
    parser.add_argument("--exclude", default="", help="comma-separated job names or prefixes to leave out")
    parser.add_argument("--prefix", default=None, help="file name prefix (default: from the machine)")
    parser.add_argument("--minutes", type=float, default=None, help="start no job after this many minutes")
    parser.add_argument("--small-server", action="store_true", help="only the jobs a small CPU-only server records")
    parser.add_argument(
        "--training-depths",
        default="",
        help="depths of the eager Training grids, e.g. 1,3 (default: every depth on the slider)",
    )
    parser.add_argument(
        "--memory-cap-gb",
        type=float,
        default=None,
        help="one memory cap for every job, replacing each job's own (e.g. 60 on an 80 GB GPU)",
    )
    parser.add_argument("--list", action="store_true", help="print the jobs and their commands, run nothing")
    args = parser.parse_args(argv)

    import torch

    cuda = torch.cuda.is_available()
    prefix = args.prefix or machine_prefix(cuda)
    out = Path(args.out)  # made only when a job runs: --list writes nothing
    wanted = [w for w in args.jobs.split(",") if w]
    unwanted = [w for w in args.exclude.split(",") if w]
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GPUWIN_REUSE_INIT": "1", "PYTHONUNBUFFERED": "1"}
    for job in JOBS:
        if wanted and not any(job.name.startswith(w) for w in wanted) or any(job.name.startswith(w) for w in unwanted):
            continue
        if args.small_server and not job.small_server:
            continue
        devices = job.devices if cuda else "cpu"
        if job.gpu_only and not cuda:
            continue
        command = job.command(out, prefix, devices)
        if args.training_depths and job.name in ("training_gpu", "training_cpu", "training_cpu1"):
            # a shorter device call: fewer depths (the page predicts between recorded ones and says so)
            command = [f"depth={args.training_depths}" if a.startswith("depth=") else a for a in command]
        command = with_memory_cap(command, args.memory_cap_gb)
        if args.small_server and "--threads" not in command:
            command += ["--threads", "1"]  # as the live page measures on a small server: a core stays free
        shown = "python -m lib " + " ".join(command[3:])
        if args.list:
            print(shown)
            continue
        Path(command[command.index("--out") + 1]).parent.mkdir(parents=True, exist_ok=True)
        if args.minutes is not None and time.perf_counter() - started > args.minutes * 60:
            print(f"time is up: {job.name} and the jobs after it are left for the next run (they resume)")
            break
        done = out / ".record_progress" / f"{prefix}_{job.name}.done"  # git-ignored
        done.parent.mkdir(exist_ok=True)
        if done.exists():
            print(f"{job.name}: done earlier, skipped")
            continue
        print(f"$ {shown}", flush=True)
        t = time.perf_counter()
        result = subprocess.run(command, cwd=ROOT, env=env)
        print(f"  ({time.perf_counter() - t:.0f} s, exit {result.returncode})", flush=True)
        if result.returncode == 0:
            done.write_text("")
    return 0


if __name__ == "__main__":
    sys.exit(main())
