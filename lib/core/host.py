"""How fast a recording's host itself was: a few reference figures of the CPU side, kept in its pack.

    speed = time_host(devices)            # lib.core.host_timing: about 2 s (torch, imported there)
    machine.update(speed.as_machine())    # flat host_* fields of the pack's machine (lib.core.results validates them)
    HostSpeed.of(machine)                 # what a pack kept; None for a pack recorded before host figures were kept
    speed.slower(other)                   # the slowest of each figure: two timings of one run, or a merge's runs

lib.core.load watches a recording against itself (other processes, a reference kernel against its own best
repeat), which cannot see a host that is slow throughout: on 2026-11-28 an H200 lease's host ran the CPU's
work 1.3-2.2x slower than the 2026-11-21 lease of the same machine kind while every load figure said quiet.
These figures are compared across recordings of one machine kind instead (lib.core.host_verdict).

No torch here: lib.core.results reads these fields on a server that has none.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from lib.core.devices import MachineObject


class HostFigure(Enum):
    """One host reference figure: its name in the pack, its unit there, and its words."""

    MATMUL = ("matmul", "gflops", "CPU matmul", "GFLOP/s")
    COPY = ("copy", "gbps", "memory copy", "GB/s")
    DISPATCH = ("dispatch", "us", "eager dispatch", "µs per op")
    LAUNCH = ("launch", "us", "kernel launch", "µs per launch")
    H2D = ("h2d", "us", "small copy to the GPU", "µs per copy")

    def __init__(self, key: str, unit: str, words: str, unit_words: str) -> None:
        self.key = key
        self.unit = unit
        self.words = words
        self.unit_words = unit_words

    @property
    def higher_is_faster(self) -> bool:
        """A throughput (GFLOP/s, GB/s) rather than a time per call."""
        return self in (HostFigure.MATMUL, HostFigure.COPY)

    @property
    def uses_threads(self) -> bool:
        """Run on torch's thread pool: comparable only between timings at the same thread count."""
        return self in (HostFigure.MATMUL, HostFigure.COPY)

    @property
    def value_field(self) -> str:
        return f"host_{self.key}_{self.unit}"

    @property
    def spread_field(self) -> str:
        return f"host_{self.key}_spread"


class Reading(NamedTuple):
    """One figure as timed: the median over its repeats, and their spread (interquartile range over median)."""

    value: float
    spread: float

    def slowdown_against(self, best: Reading, figure: HostFigure) -> float:
        """How many times slower this reading is than `best` (below 1: faster)."""
        return best.value / self.value if figure.higher_is_faster else self.value / best.value


@dataclass(frozen=True)
class HostSpeed:
    """A host's reference figures (None: not timed here, e.g. no GPU for the launch and the copy to it)."""

    matmul: Reading | None  # fp32 matmuls at `threads` threads, GFLOP/s
    copy: Reading | None  # a large tensor copied at `threads` threads, GB/s read and written
    dispatch: Reading | None  # a tiny eager op on the CPU, µs each: what a launch-bound step pays per op
    launch: Reading | None  # a tiny CUDA kernel launched, µs each, synchronised at the end only
    h2d: Reading | None  # a small pageable copy to the GPU, µs each
    threads: int | None  # torch's thread count while matmul and copy were timed

    def reading(self, figure: HostFigure) -> Reading | None:
        return getattr(self, figure.key)

    def readings(self) -> list[tuple[HostFigure, Reading]]:
        """The figures timed, in HostFigure's order."""
        return [(f, r) for f in HostFigure if (r := self.reading(f)) is not None]

    def as_machine(self) -> dict[str, float | int | None]:
        """The flat fields of the pack's machine."""
        out: dict[str, float | int | None] = {}
        for figure in HostFigure:
            reading = self.reading(figure)
            out[figure.value_field] = None if reading is None else round(reading.value, 4)
            out[figure.spread_field] = None if reading is None else round(reading.spread, 4)
        out["host_threads"] = self.threads
        return out

    @classmethod
    def of(cls, machine: MachineObject) -> HostSpeed | None:
        """The figures a pack's machine kept; None for a pack recorded before they were kept."""
        if not any(machine.get(f.value_field) is not None for f in HostFigure):
            return None
        threads = machine.get("host_threads")
        return cls(
            **{f.key: _reading(machine, f) for f in HostFigure},
            threads=threads if isinstance(threads, int) and not isinstance(threads, bool) else None,
        )

    def slower(self, other: HostSpeed | None) -> HostSpeed:
        """The slowest of each figure of two timings (None: only this one's)."""
        if other is None:
            return self
        return HostSpeed(
            **{f.key: _pick(f, self.reading(f), other.reading(f), slowest=True) for f in HostFigure},
            threads=self.threads if self.threads is not None else other.threads,
        )

    def faster(self, other: HostSpeed) -> HostSpeed:
        """The fastest of each figure of two timings: the best on record is built from it."""
        return HostSpeed(
            **{f.key: _pick(f, self.reading(f), other.reading(f), slowest=False) for f in HostFigure},
            threads=self.threads if self.threads is not None else other.threads,
        )


def _reading(machine: MachineObject, figure: HostFigure) -> Reading | None:
    value, spread = machine.get(figure.value_field), machine.get(figure.spread_field)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        return None
    return Reading(float(value), float(spread) if isinstance(spread, (int, float)) else 0.0)


def _pick(figure: HostFigure, a: Reading | None, b: Reading | None, slowest: bool) -> Reading | None:
    if a is None or b is None:
        return a or b
    a_slower = a.slowdown_against(b, figure) > 1
    return a if a_slower == slowest else b


def host_over_runs(first: MachineObject, later: MachineObject) -> dict[str, float | int | bool | None]:
    """The host fields of one machine over two runs, merged into one pack or one resumed after the other: the
    slowest of each figure, the worst ratio, and slow if either run was (unknown if one was, and none slow)."""
    one, two = HostSpeed.of(first), HostSpeed.of(later)
    if one is None and two is None:
        return {}
    speed = two if one is None else one.slower(two)
    marks = [first.get("host_slow"), later.get("host_slow")]
    slow = True if True in marks else (False if marks == [False, False] else None)
    ratios = [r for r in (first.get("host_slowdown"), later.get("host_slowdown")) if isinstance(r, (int, float))]
    return {**speed.as_machine(), "host_slow": slow, "host_slowdown": max(ratios) if ratios else None}


# The host fields a pack's machine may carry, by kind (lib.core.results validates each; `host_memory_gb` is the
# fingerprint's own, not a timed figure): the figures, then the verdict at recording time (lib.core.host_verdict)
HOST_NUMBER_FIELDS = tuple(name for f in HostFigure for name in (f.value_field, f.spread_field)) + ("host_slowdown",)
HOST_COUNT_FIELDS = ("host_threads",)
HOST_FLAG_FIELDS = ("host_slow",)
