"""Command-line values checked where they enter (`python -m lib`), before anything is measured.

argparse types that refuse what no run can use (a negative budget, NaN, zero threads, an empty
list of values), so a typo ends at once with exit 2 and argparse's own message, instead of a
traceback, rows of errors, or a run that is measured and then lost. Plain Python: no torch.
"""

from __future__ import annotations

import argparse
import errno
import math
import os
from pathlib import Path
from typing import Any

from lib.core.files import partial_path
from lib.core.workload import SettingError, Workload

WORK_CAP_DEVICES = ("cpu", "cuda")


def positive_number(text: str) -> float:
    """A finite number above zero (seconds, gigabytes)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least {least}, got {text!r}")
    return value


def positive_whole(text: str) -> int:
    """A whole number of at least 1 (threads, steps)."""
    return _whole(text, 1)


def whole(text: str) -> int:
    """A whole number of at least 0 (0 turns the thing off)."""
    return _whole(text, 0)


def key_value(text: str) -> tuple[str, str]:
    """--set KEY=VALUE -> (key, value); the value may be empty only where the setting allows it."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def axis(text: str) -> tuple[str, list[str]]:
    """--over KEY=V1,V2,... -> (key, [values]); at least one value, or the sweep would measure nothing."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=V1,V2,..., e.g. batch_size=1,16,256, got {text!r}")
    values = [v.strip() for v in raw.split(",") if v.strip()]
    if not values:
        raise argparse.ArgumentTypeError(f"{key.strip()} has no values to sweep (e.g. {key.strip()}=1,16,256)")
    return key.strip(), values


def work_cap(text: str) -> tuple[str, float]:
    """--max-gflop cpu=20 -> ('cpu', 2e10): points above it are skipped rows."""
    kind, sep, raw = text.partition("=")
    kind = kind.strip()
    if not sep or kind not in WORK_CAP_DEVICES:
        raise argparse.ArgumentTypeError(f"expected cpu=G or cuda=G (G in GFLOP per step), got {text!r}")
    try:
        return kind, positive_number(raw) * 1e9
    except argparse.ArgumentTypeError as err:
        raise argparse.ArgumentTypeError(f"{kind}: {err}") from None


def check_settings(workload: Workload, fixed: dict[str, str], axes: list[tuple[str, list[str]]]) -> None:
    """Every --set and --over key is a setting of the workload and every value parses (NaN too is
    refused), before anything is measured: a typo is exit 2 with the reason (as `run` gives), not a
    pack of error rows or a row no pack can hold. A value swept twice, or a setting both swept and
    set (the --set would be ignored), is refused too."""
    for key, value in fixed.items():
        workload.setting(key).parse(value)
    for key, values in axes:
        setting = workload.setting(key)
        if key in fixed:
            raise SettingError(
                f"--set {key}={fixed[key]} and --over {key}=... both give {key}; the sweep sets it, so drop the --set"
            )
        seen: dict[Any, str] = {}
        for value in values:
            parsed = setting.parse(value)
            if parsed in seen:
                raise SettingError(
                    f"--over {key}: {value} is given twice"
                    + (f" (as {seen[parsed]})" if seen[parsed] != value else "")
                    + "; give it once"
                )
            seen[parsed] = value


def repeated_key(pairs: list[tuple[str, object]] | None) -> str | None:
    """The first key given twice (the later value would silently replace the earlier), or None."""
    seen: set[str] = set()
    for key, _ in pairs or []:
        if key in seen:
            return key
        seen.add(key)
    return None


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says, else every core)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def threads(text: str) -> int:
    """--threads N: at least 1 and at most the cores this process may use; more only piles up
    threads (100,000 asked for: thousands of threads and hundreds of MB before the first step)."""
    value = positive_whole(text)
    cores = usable_cores()
    if value > cores:
        raise argparse.ArgumentTypeError(f"expected at most {cores} (the cores this machine lets it use), got {text!r}")
    return value


def output_problem(path: str | os.PathLike) -> str | None:
    """Why a file cannot be written at `path`, asked before measuring so no result is lost; or None.
    The folder's permissions are not enough (root may 'write' in /proc and /sys, which take no new
    files): the `.partial` file every write goes through is really created there, then removed."""
    if str(path).strip() == "":
        return "the output file name is empty"
    target = Path(path)
    try:
        return _output_problem(target) or _try_partial(partial_path(target))
    except OSError as err:
        if err.errno == errno.ENAMETOOLONG:
            return (
                f"the name {target.name[:20]}... is too long for this file system once '.partial' is added "
                f"(it is written there first); give a name of at most {_name_max(target.parent) - 8} characters"
            )
        return f"cannot write in the folder {target.parent} ({err.strerror or err})"


def _output_problem(target: Path) -> str | None:
    if target.is_dir():
        return f"{target} is a folder; give a file name in it, e.g. {target / 'pack.json'}"
    folder = target.parent
    if not folder.exists():
        return f"the folder {folder} does not exist (create it first)"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write in the folder {folder}"
    if target.exists() and not target.is_file():
        return f"{target} exists and is not a plain file; give another name"
    if target.exists() and not os.access(target, os.W_OK):
        return f"{target} exists and cannot be written"
    return None


def _try_partial(partial: Path) -> str | None:
    """Create the `.partial` file the write will use (and remove it again); OSError if it cannot be."""
    if partial.is_dir() or (partial.exists() and not partial.is_file()):
        return f"{partial} is in the way (it is not a plain file); move it or give another name"
    existed = partial.exists()
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT, 0o644))
    if not existed:
        partial.unlink()
    return None


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255
