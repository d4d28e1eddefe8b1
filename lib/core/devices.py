"""Which devices this process can time, their names and memory, and a machine fingerprint."""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from lib import APP_VERSION


class DeviceUnavailable(ValueError):
    """Asked for a device this process does not have (e.g. cuda on a CPU-only machine)."""


def cuda_available() -> bool:
    """Whether PyTorch can use a GPU here. Without an NVIDIA driver it cannot, and saying so needs no
    torch: a server that only draws recorded rows (a GPU-less host) never imports it."""
    if "torch" not in sys.modules and not nvidia_driver_present():
        return False
    import torch

    return torch.cuda.is_available()


def nvidia_driver_present() -> bool:
    """An NVIDIA kernel driver is loaded (Linux: /proc/driver/nvidia, /dev/nvidia0). Elsewhere we
    cannot tell without torch, so say yes and let torch decide."""
    if not sys.platform.startswith("linux"):
        return True
    return os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/nvidia0")


def torch_default_threads() -> int:
    """PyTorch's default intra-op CPU threads, without importing torch when it is not loaded yet:
    one per physical core this process may run on (the cores of its CPU affinity, taskset's too).
    tests/test_cold_start.py checks it against torch.get_num_threads() in fresh processes."""
    if "torch" in sys.modules:
        return sys.modules["torch"].get_num_threads()
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))
    cores = set()
    for cpu in allowed:
        topology = f"/sys/devices/system/cpu/cpu{cpu}/topology"
        try:
            with open(f"{topology}/physical_package_id") as package, open(f"{topology}/core_id") as core:
                cores.add((package.read().strip(), core.read().strip()))
        except OSError:
            cores.add(("?", str(cpu)))  # no topology to read: count the logical CPU
    return max(1, len(cores))


def available_devices() -> list[str]:
    """'cpu' plus 'cuda:N' for every GPU present."""
    import torch

    devices = ["cpu"]
    if cuda_available():
        devices += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    return devices


def resolve_devices(spec: str | list[str]) -> list[str]:
    """Turn 'cpu,cuda' into ['cpu', 'cuda:0']; refuse what is absent, saying so plainly."""
    import torch

    names = spec.split(",") if isinstance(spec, str) else list(spec)
    resolved = []
    for raw in (n.strip().lower() for n in names):
        if not raw:
            continue
        if raw == "cpu":
            device = "cpu"
        elif raw == "cuda" or raw.startswith("cuda:"):
            if not cuda_available():
                raise DeviceUnavailable(
                    f"'{raw}' was asked for, but CUDA is not available on this machine "
                    f"(torch {torch.__version__}); only the CPU can be timed here."
                )
            index = 0 if raw == "cuda" else int(raw.split(":", 1)[1])
            if index >= torch.cuda.device_count():
                raise DeviceUnavailable(
                    f"'{raw}' was asked for, but this machine has {torch.cuda.device_count()} GPU(s)."
                )
            device = f"cuda:{index}"
        else:
            raise DeviceUnavailable(f"unknown device '{raw}': use cpu, cuda or cuda:N")
        if device not in resolved:
            resolved.append(device)
    if not resolved:
        raise DeviceUnavailable("no device given: use cpu, cuda or cuda:N")
    return resolved


def is_cuda(device: str) -> bool:
    return str(device).startswith("cuda")


def synchronize(device: str) -> None:
    """Wait until all work queued on the device has finished (a no-op on the CPU)."""
    import torch

    if is_cuda(device):
        torch.cuda.synchronize(device)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def device_name(device: str) -> str:
    import torch

    if is_cuda(device):
        return torch.cuda.get_device_name(torch.device(device))
    return f"{cpu_model()} ({torch.get_num_threads()} threads)"


def _host_memory() -> tuple[int, int]:
    """(available, total) host RAM in bytes, from /proc/meminfo where there is one."""
    try:
        info = {}
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                key, value = line.split(":", 1)
                info[key] = int(value.split()[0]) * 1024
        return info.get("MemAvailable", info["MemFree"]), info["MemTotal"]
    except (OSError, KeyError, ValueError):
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        return pages, pages


def memory_info(device: str) -> tuple[int, int]:
    """(free, total) bytes on the device; host RAM for the CPU."""
    import torch

    if is_cuda(device):
        free, total = torch.cuda.mem_get_info(torch.device(device))
        return int(free), int(total)
    return _host_memory()


def _nvidia_driver() -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
        return out.stdout.strip().splitlines()[0] or None
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity, which a container may narrow), else all."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


MachineObject = dict[str, Any]  # a machine's fingerprint as a pack's or a timelines file's "machine" holds it (JSON)


def machine_fingerprint() -> MachineObject:
    """What a result was measured on: enough to tell two machines apart and to reproduce."""
    if cuda_available():  # torch is loaded by now
        import torch

        gpus = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    else:
        gpus = []
    torch_version, cuda_version = torch_versions()
    _, host_total = _host_memory()
    fingerprint = {
        "cpu_model": cpu_model(),
        "cpu_cores": os.cpu_count() or 0,
        "torch_threads": torch_default_threads(),
        "host_memory_gb": round(host_total / 1e9, 1),
        "gpus": gpus,
        "driver": _nvidia_driver() if gpus else None,
        "torch": torch_version,
        "cuda": cuda_version,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "app_version": APP_VERSION,
    }
    fingerprint["label"] = machine_label(fingerprint)
    return fingerprint


def torch_versions() -> tuple[str, str | None]:
    """torch.__version__ and torch.version.cuda. A server that has not measured yet has no torch
    loaded: they are read from the installed torch/version.py (plain assignments) instead."""
    if "torch" not in sys.modules:
        try:
            namespace: dict[str, Any] = {}
            source = Path(importlib.metadata.distribution("torch").locate_file("torch/version.py")).read_text()
            exec(source, namespace)  # torch's own generated file: a few plain assignments
            return str(namespace["__version__"]), namespace.get("cuda")
        except (OSError, TypeError, KeyError, SyntaxError, ImportError, importlib.metadata.PackageNotFoundError):
            pass
    import torch

    return torch.__version__, torch.version.cuda


def machine_label(fingerprint: dict) -> str:
    """A short human name for a machine: its GPU (or CPU) and the day it was measured."""
    gpus = list(fingerprint.get("gpus") or [])
    counts = {name: gpus.count(name) for name in dict.fromkeys(gpus)}
    hardware = ", ".join(f"{n}× {name}" if n > 1 else name for name, n in counts.items())
    hardware = hardware or fingerprint.get("cpu_model", "unknown")
    day = str(fingerprint.get("date", ""))[:10]
    return f"{hardware} ({day})" if day else hardware
