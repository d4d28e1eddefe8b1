"""The torchrun launch of the ddp workload: start `gpus` processes running lib.workloads.ddp.worker,
wait for them within a timeout, stop them all if they hang, and read what rank 0 wrote.

    launch(points, device, gpus, backend, budget_s=..., threads=...)   one DDPResult per point

Every child runs with NCCL_SAFE_ENV (NVLink multicast off: it can break GPUs shared with other
jobs) and with this repository on its PYTHONPATH. Rank 0 writes a JSON file after each point; a
rank that fails writes error.rank<R>.json naming the point (see the worker).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from lib.core.rows import Status
from lib.workloads.ddp.messages import DDPResult, Failure, JsonObject, LaunchConfig, Progress
from lib.workloads.ddp.models import DDPSettings

ROOT = Path(__file__).resolve().parents[3]
WORKER_MODULE = "lib.workloads.ddp.worker"

# Mandatory for every child: NVLink multicast (NVLS) can break GPUs shared with other jobs.
NCCL_SAFE_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


def available_cores() -> int:
    """Cores this process may run on: at most one CPU process per core."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


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
    points: Sequence[DDPSettings],
    device: str,
    gpus: int,
    backend: str,
    *,
    budget_s: float,
    threads: int,
    with_phases: bool = True,
    deadline_s: float | None = None,
    timeout_s: float | None = None,
) -> list[DDPResult]:
    """Measure `points` (settings sharing `gpus`) in torchrun launches of `gpus` processes; return
    one result per point (status, message and what was measured).

    A point that fails in a child (out of memory, an exception) ends that launch; the points after
    it are measured in a fresh launch. A launch that fails before naming a point, or runs past its
    timeout, marks every point it had left as an error with the child's last stderr line."""
    results: list[DDPResult | None] = [None] * len(points)
    started = time.perf_counter()
    while True:
        todo = [i for i, r in enumerate(results) if r is None]
        if not todo:
            return results  # type: ignore[return-value]
        left = None if deadline_s is None else deadline_s - (time.perf_counter() - started)
        if left is not None and left <= 0:
            for i in todo:
                results[i] = DDPResult(Status.SKIPPED, "time budget used up before this point")
            continue
        outcome = _launch_once(
            [points[i] for i in todo],
            device,
            gpus,
            backend,
            budget_s=budget_s,
            threads=threads,
            with_phases=with_phases,
            deadline_s=left,
            timeout_s=timeout_s,
        )
        progressed = False
        for i, result in zip(todo, outcome):
            if result is not None:
                results[i] = result
                progressed = True
        if not progressed:  # nothing learnt: do not launch again
            for i in todo:
                results[i] = DDPResult(Status.ERROR, "the launch ended before measuring this point")


def _launch_once(
    points: Sequence[DDPSettings],
    device: str,
    gpus: int,
    backend: str,
    *,
    budget_s: float,
    threads: int,
    with_phases: bool,
    deadline_s: float | None,
    timeout_s: float | None,
) -> list[DDPResult | None]:
    """One torchrun launch; None for points it did not reach (to be launched again)."""
    timeout = timeout_s if timeout_s is not None else default_timeout_s(len(points), budget_s)
    with tempfile.TemporaryDirectory(prefix="gpuwin-ddp-") as tmp:
        tmpdir = Path(tmp)
        config = LaunchConfig(
            points=tuple(points),
            device=device,
            backend=backend,
            budget_s=budget_s,
            threads=threads,
            with_phases=with_phases,
            deadline_s=deadline_s,
            collective_timeout_s=min(120.0, timeout),
            result_path=str(tmpdir / "result.json"),
            error_dir=str(tmpdir),
        )
        cmd = [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            f"--nproc_per_node={gpus}",
            "--log-dir",
            str(tmpdir / "logs"),
            "--redirects",
            "3",
            "-m",
            WORKER_MODULE,
            "--json-args",
            json.dumps(config.as_json()),
        ]
        timed_out = False
        try:
            proc = subprocess.Popen(
                cmd,
                cwd=ROOT,
                env=child_env(threads),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        except OSError as err:
            return [DDPResult(Status.ERROR, f"could not start torchrun: {err}") for _ in points]
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _stop(proc)
            _, stderr = proc.communicate()
        return _outcome(tmpdir, len(points), proc.returncode, stderr, timed_out, timeout)


def _outcome(
    tmpdir: Path, count: int, returncode: int | None, stderr: str, timed_out: bool, timeout: float
) -> list[DDPResult | None]:
    """What one launch left in `tmpdir`: rank 0's results, else the failing rank's error file,
    else the children's last stderr line; None for points to launch again."""
    written = _read_json(tmpdir / "result.json")
    done = Progress.from_json(written) if written else Progress((), None)
    measured = done.results
    out: list[DDPResult | None] = [None] * count
    for i, result in enumerate(measured[:count]):
        out[i] = result
    if returncode == 0 and not timed_out and len(measured) >= count:
        return out
    failed = sorted(
        (Failure.from_json(e) for e in (_read_json(p) for p in tmpdir.glob("error.rank*.json")) if e),
        key=lambda f: (f.index is None, f.rank),
    )
    if timed_out:
        at = done.current if done.current is not None else len(measured)
        for i in range(len(measured), count):
            why = f"timed out after {timeout:.0f} s" if i == at else "not run: the launch timed out at an earlier point"
            out[i] = DDPResult(Status.ERROR, why)
        return out
    if failed and failed[0].index is not None and failed[0].index < count:
        first = failed[0]
        out[first.index] = DDPResult(first.status, first.message or _child_stderr_line(tmpdir / "logs"))
        return out  # points after the failed one stay None: launched again
    child_line = _child_stderr_line(tmpdir / "logs") or last_line(stderr)
    message = (failed[0].message if failed else "") or child_line or f"torchrun exited with status {returncode}"
    for i in range(len(measured), count):
        out[i] = DDPResult(Status.ERROR, message[:300])
    return out


def _read_json(path: Path) -> JsonObject | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
