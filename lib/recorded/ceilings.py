"""A recorded GPU's two ceilings, its roofline: the best arithmetic rate and the best memory
bandwidth this project's CLI measured on it, never a vendor's number.

    ceilings = ceilings_for("NVIDIA H200", packs)     # None when that GPU has no matmul recorded
    ceilings.flops_per_s, ceilings.bytes_per_s        # bytes_per_s None: no stream workload recorded

Peak arithmetic: the fastest fp32 matmul row (flops / median_s) on that GPU, and separately the
fastest TF32 one. Only rows timed with a synchronise and without the copy count: an unsynchronised
row times the launch, not the work (it reads as hundreds of PFLOP/s), and a copied one times the bus.
Bandwidth: the fastest row of the 'stream' workload (bytes read + written per call / median_s) that
moves at least STREAM_MIN_BYTES a call (smaller ones may be served from the GPU's L2 cache).
Host-to-device link: the fastest copy of a matmul row timed with transfer=true (both inputs copied in from
pinned host memory, its `phase_transfer_s` timed on its own): the bytes a copy of the batch moves at the
least, not the time a copy from pageable memory takes (that one also waits on the CPU).
Every number says which row it came from (machine, date, size), so a page can label its roofline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lib.core.cache import kept
from lib.core.devices import is_cuda
from lib.core.fmt import fmt_bytes
from lib.core.rows import is_ok
from lib.recorded.sources import hardware_text
from lib.workloads.matmul import ITEMSIZE


@dataclass(frozen=True)
class Ceilings:
    """What one GPU was measured to reach: fp32 arithmetic (and TF32 where recorded) and memory
    bandwidth (None where not recorded). `*_from` say which recorded row, in words."""

    machine: str  # 'NVIDIA H200'
    date: str  # the day of the arithmetic ceiling's recording, '2026-11-23'
    flops_per_s: float  # fp32
    bytes_per_s: float | None
    flops_from: str
    bytes_from: str | None
    tf32_flops_per_s: float | None = None
    tf32_from: str | None = None
    bytes_date: str | None = None  # the day of the bandwidth ceiling's recording
    tf32_date: str | None = None  # the day of the TF32 ceiling's recording
    link_bytes_per_s: float | None = None  # host-to-device copy from pinned memory (None: not recorded)
    link_from: str | None = None

    @property
    def ridge(self) -> float | None:
        """The arithmetic intensity (flop per byte) where the two ceilings meet: below it a step with
        its work on the GPU is held by memory, above it by arithmetic."""
        return self.flops_per_s / self.bytes_per_s if self.bytes_per_s else None

    def label(self) -> str:
        """'NVIDIA H200, fp32 matmul recorded 2026-11-23; bandwidth: not recorded'."""
        bandwidth = self.bytes_from or "not recorded"
        return f"{self.machine}: arithmetic {self.flops_from}; bandwidth {bandwidth}"


def _date(pack: Mapping[str, Any], row: Mapping[str, Any]) -> str:
    """The row's own day ('NVIDIA H200 (2026-11-23)' names it), else its pack's."""
    label = str(row.get("machine") or "")
    if label.endswith(")") and "(" in label:
        return label.rsplit("(", 1)[1][:-1]
    return str(pack.get("machine", {}).get("date") or "")[:10]


def _on(machine: str, pack: Mapping[str, Any], row: Mapping[str, Any]) -> bool:
    name = str(row.get("device_name") or hardware_text(pack.get("machine", {})))
    return is_cuda(str(row.get("device", ""))) and name == machine and is_ok(row)


def _best(machine: str, packs: Sequence[Mapping[str, Any]], keep, work: str, seconds: str = "median_s"):
    """(rate, pack, row) of the fastest kept row on `machine`: rate = row[work] / row[seconds]
    (`work` a column, or a function of the row)."""
    best = None
    for pack in packs:
        for row in pack.get("rows", []):
            if not (_on(machine, pack, row) and keep(row) and row.get(seconds)):
                continue
            done = work(row) if callable(work) else row.get(work)
            if not done:
                continue
            rate = float(done) / float(row[seconds])
            if best is None or rate > best[0]:
                best = (rate, pack, row)
    return best


def _matmul(dtype: str):
    return lambda r: (
        r.get("workload") == "matmul" and r.get("dtype") == dtype and r.get("sync") is True and not r.get("transfer")
    )


# A call that moves less than this may run out of the GPU's L2 cache (50 MB on an H100 or H200, more on
# later GPUs), repeated call after call: that is the cache's bandwidth, not the memory's.
STREAM_MIN_BYTES = 512e6


def _stream(row: Mapping[str, Any]) -> bool:
    return (
        row.get("workload") == "stream"
        and row.get("sync", True) is not False
        and not row.get("transfer")
        and float(row.get("bytes") or 0) >= STREAM_MIN_BYTES
    )


def _link(row: Mapping[str, Any]) -> bool:
    return (
        row.get("workload") == "matmul"
        and row.get("transfer") is True
        and row.get("sync") is True
        and row.get("dtype") in ITEMSIZE
    )


def _copied(row: Mapping[str, Any]) -> float:
    """The bytes a matmul row with transfer=true copies in: both inputs (lib.workloads.matmul.bytes_moved)."""
    return 2.0 * int(row.get("size") or 0) ** 2 * ITEMSIZE[row["dtype"]]


def _from(what: str, pack: Mapping[str, Any], row: Mapping[str, Any]) -> str:
    if row.get("workload") == "stream":  # its size counts elements: say the bytes a call moves
        size = f" of {fmt_bytes(float(row['bytes']))} a call"
    else:
        size = f" at size {int(row['size']):,}" if row.get("size") else ""
    return f"{what}{size}, recorded {_date(pack, row)} ({Path(str(pack.get('path', '?'))).name})"


def ceilings_for(machine: str, packs: Sequence[Mapping[str, Any]]) -> Ceilings | None:
    """The ceilings of the GPU named `machine` ('NVIDIA H200'; a 'NVIDIA H200, 2026-11-23' is read
    as its hardware) from the recorded packs; None when no fp32 matmul was recorded on it."""
    machine = machine.split(",")[0].strip()
    return _found(tuple(p.get("rows") for p in packs), machine, packs)


# A page run asks on every rerun; reading every row of every pack takes ~80 ms on a small host. The
# packs come from lib.recorded's cache (the same row lists while no file changes), so key by them.
@kept(8)
def _found(rows: tuple, machine: str, _packs: Sequence[Mapping[str, Any]]) -> Ceilings | None:
    return _ceilings(machine, _packs)


def _ceilings(machine: str, packs: Sequence[Mapping[str, Any]]) -> Ceilings | None:
    fp32 = _best(machine, packs, _matmul("fp32"), "flops")
    if fp32 is None:
        return None
    tf32 = _best(machine, packs, _matmul("tf32"), "flops")
    stream = _best(machine, packs, _stream, "bytes")
    link = _best(machine, packs, _link, _copied, seconds="phase_transfer_s")
    return Ceilings(
        machine=machine,
        date=_date(fp32[1], fp32[2]),
        flops_per_s=fp32[0],
        bytes_per_s=stream[0] if stream else None,
        flops_from=_from("fp32 matmul", fp32[1], fp32[2]),
        bytes_from=_from("stream (read + write)", stream[1], stream[2]) if stream else None,
        tf32_flops_per_s=tf32[0] if tf32 else None,
        tf32_from=_from("TF32 matmul", tf32[1], tf32[2]) if tf32 else None,
        bytes_date=_date(stream[1], stream[2]) if stream else None,
        tf32_date=_date(tf32[1], tf32[2]) if tf32 else None,
        link_bytes_per_s=link[0] if link else None,
        link_from=_from("pinned host-to-device copy of matmul's inputs", link[1], link[2]) if link else None,
    )
