"""Command-line values checked where they enter (`python -m lib`), before anything is measured.

argparse types that refuse what no run can use (a negative budget, NaN, zero threads, an empty
list of values), so a typo ends at once with exit 2 and argparse's own message, instead of a
traceback, rows of errors, or a run that is measured and then lost. Plain Python: no torch.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

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


def repeated_key(pairs: list[tuple[str, object]] | None) -> str | None:
    """The first key given twice (the later value would silently replace the earlier), or None."""
    seen: set[str] = set()
    for key, _ in pairs or []:
        if key in seen:
            return key
        seen.add(key)
    return None


def output_problem(path: str | os.PathLike) -> str | None:
    """Why a pack cannot be written at `path`, asked before measuring so no result is lost; or None."""
    target = Path(path)
    if str(path).strip() == "":
        return "the output file name is empty"
    if target.is_dir():
        return f"{path} is a folder; give a file name in it, e.g. {target / 'pack.json'}"
    folder = target.parent
    if not folder.exists():
        return f"the folder {folder} does not exist (create it first)"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write in the folder {folder}"
    if target.exists() and not os.access(target, os.W_OK):
        return f"{path} exists and cannot be written"
    return None
