"""Files read and written whole, within bounds: what `python -m lib` and the packs' loaders read and write.

    read_bounded(path, max_bytes, max_items)   the bytes of a file (gunzipped if it is gzip), refused
                                               while it is read once it passes either bound
    count_items(data)                          how many JSON values text can at most hold
    write_file(path, data)                     written to PATH.partial first, then renamed

A few kilobytes of gzip can inflate to gigabytes, and 60 MB of `{},` parse into 20 million dicts
(1.5 GB) before any check sees the first one; so the bounds are counted on the bytes as they come,
never on what they parse into. Plain Python: no torch.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

GZIP_MAGIC = b"\x1f\x8b"
CHUNK = 1 << 20


class TooLarge(ValueError):
    """A file past a bound; the message says which, without the file's name (the caller adds it)."""


class NotReadable(ValueError):
    """A gzip file that does not inflate; the message says why, without the file's name."""


def partial_path(path: str | os.PathLike) -> Path:
    """Where a file is written before it replaces `path`."""
    target = Path(path)
    return target.with_name(target.name + ".partial")


def count_items(data: bytes | str) -> int:
    """An upper bound on the JSON values in `data` past the first: each value of an array or an object
    but its first follows a comma, and each object or array opens with a bracket (commas or brackets
    inside strings only make the count larger). What parsed JSON costs in memory grows with it."""
    marks = (b",", b"{", b"[") if isinstance(data, bytes) else (",", "{", "[")
    return sum(data.count(mark) for mark in marks)  # type: ignore[arg-type]


def read_bounded(path: str | os.PathLike, max_bytes: int, max_items: int) -> bytes:
    """The file's bytes, gunzipped when they start with gzip's magic number (whatever the name).
    TooLarge once the file, or what it inflates to, passes `max_bytes` or `max_items` (count_items),
    found while reading: at most one chunk past a bound is ever held."""
    path = Path(path)
    size = path.stat().st_size
    if size > max_bytes:
        raise TooLarge(f"{size / 1e6:.0f} MB is more than a pack may hold ({max_bytes / 1e6:.0f} MB); not read")
    with open(path, "rb") as raw:
        zipped = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        if not zipped:
            return _read_chunks(raw, max_bytes, max_items, "holds")
        try:
            with gzip.GzipFile(fileobj=raw) as unzipped:
                return _read_chunks(unzipped, max_bytes, max_items, "expands to")
        except (OSError, EOFError, zlib.error) as err:
            raise NotReadable(f"not a readable gzip file: {err}") from None


def _read_chunks(stream, max_bytes: int, max_items: int, verb: str) -> bytes:
    chunks: list[bytes] = []
    size = items = 0
    while chunk := stream.read(CHUNK):
        size += len(chunk)
        items += count_items(chunk)
        if size > max_bytes:
            raise TooLarge(f"{verb} more than {max_bytes / 1e6:.0f} MB, more than a pack may hold; not read")
        if items > max_items:
            raise TooLarge(f"{verb} more than {max_items:,} values, more than a pack may hold; not read")
        chunks.append(chunk)
    return b"".join(chunks)


def write_file(path: str | os.PathLike, data: bytes) -> Path:
    """Write `data` to PATH.partial, then rename it to PATH: a write cut off (a full disk, Ctrl-C)
    leaves the earlier file whole and no stray .partial."""
    path = Path(path)
    partial = partial_path(path)
    try:
        partial.write_bytes(data)
        partial.replace(path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path
