"""Whether a recording's host was slow: its figures (lib.core.host) against the best on record for its kind.

    kind = MachineKind.of(machine)                        # GPU name, CPU model, cores
    best = best_on_record(machines_on_record(packs), kind)  # the fastest of each figure the shipped packs kept
    check = HostCheck(kind, speed, best)
    check.verdict, check.sentence()                       # HostVerdict.SLOW, 'host check: this host ran 1.62x slower ...'
    machine.update(check.fields())                        # host_slow, host_slowdown: the pack is marked

Interference only ever slows work down, so the fastest figure on record is the nearest to the kind's quiet
speed. Where the kind's host figures on record come from fewer than MIN_DAYS_ON_RECORD days the verdict is
UNKNOWN, never "as fast".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, NamedTuple

from lib.core.devices import MachineObject
from lib.core.host import HostFigure, HostSpeed

# The host is slow when its figures together (their geometric mean) are this much slower than the best on record:
# the slow H200 host of 2026-11-28 ran the CPU's work 1.3-2.2x slower than the same kind's of 2026-11-21, while on
# the quiet 2-core server 104 of 105 start-and-end pairs of 15 checks came within 1.25x of the best of them
# together, the last at 1.252x (docs/host_check_cpu2.txt); two runs on one quiet H200 lease, seconds apart, came
# 1.24x apart together (docs/host_check_h200.txt): at its edge there, so more leases must calibrate it
HOST_SLOW = 1.25
# ... or when any one figure is this much slower (a host slow in one way only, e.g. memory bandwidth): one figure
# alone moved up to 1.36x between those quiet checks (the memory copy), and eager dispatch 1.74x between the two
# quiet runs on one H200 lease, so one figure short of 2x is no evidence
HOST_SLOW_ONE = 2.0
# ... and only against figures of this many days: on one quiet H200 lease of 2026-11-28 eager dispatch read 2.85 us,
# then 5.81 us six minutes later, and another lease's 5.61 us; against one day's best, a typical quiet lease read
# 1.26x together (docs/host_check_h200.txt): one day's best is not yet the kind's quiet speed
MIN_DAYS_ON_RECORD = 3


class HostVerdict(Enum):
    AS_FAST = "as fast"
    SLOW = "slow"
    UNKNOWN = "unknown"


class MachineKind(NamedTuple):
    """What makes two hosts comparable: the same GPU (none: ''), CPU model and core count."""

    gpu: str
    cpu_model: str
    cores: int | None

    @classmethod
    def of(cls, machine: MachineObject) -> MachineKind:
        gpus = machine.get("gpus")
        gpu = str(gpus[0]) if isinstance(gpus, list) and gpus else ""
        cores = machine.get("cpu_cores")
        return cls(gpu, str(machine.get("cpu_model") or ""), cores if isinstance(cores, int) else None)

    def words(self) -> str:
        """'NVIDIA H200 with Intel(R) Xeon(R) Processor, 16 cores'; 'AMD EPYC, 2 cores, no GPU'."""
        cores = f", {self.cores} cores" if self.cores else ""
        return f"{self.gpu} with {self.cpu_model}{cores}" if self.gpu else f"{self.cpu_model}{cores}, no GPU"


def machines_on_record(packs: Iterable[Mapping[str, Any]]) -> list[MachineObject]:
    """Every machine the packs name (a merged pack names each of its sources in `machines`)."""
    out = []
    for pack in packs:
        machines = pack.get("machines") or [pack.get("machine")]
        out += [m for m in machines if isinstance(m, dict)]
    return out


def best_on_record(machines: Iterable[MachineObject], kind: MachineKind) -> HostSpeed | None:
    """The fastest of each host figure that machines of this kind kept (a busy one's aside); None where they
    come from fewer than MIN_DAYS_ON_RECORD days."""
    best, days = None, set()
    for machine in machines:
        speed = HostSpeed.of(machine)
        if speed is None or MachineKind.of(machine) != kind or machine.get("load_quiet") is False:
            continue
        best = speed if best is None else best.faster(speed)
        days.add(str(machine.get("date") or "")[:10])
    return best if len(days) >= MIN_DAYS_ON_RECORD else None


def host_slowdown(speed: HostSpeed, best: HostSpeed) -> dict[HostFigure, float]:
    """How many times slower each figure is than the best (below 1: faster), for the figures both have; a
    threaded figure only at the same thread count."""
    out = {}
    for figure, reading in speed.readings():
        on_record = best.reading(figure)
        if on_record is None or (figure.uses_threads and speed.threads != best.threads):
            continue
        out[figure] = reading.slowdown_against(on_record, figure)
    return out


@dataclass(frozen=True)
class HostCheck:
    """A recording's host figures against the best on record for its kind."""

    kind: MachineKind
    speed: HostSpeed
    best: HostSpeed | None

    @property
    def ratios(self) -> dict[HostFigure, float]:
        return host_slowdown(self.speed, self.best) if self.best is not None else {}

    @property
    def worst(self) -> float | None:
        return max(self.ratios.values()) if self.ratios else None

    @property
    def together(self) -> float | None:
        """The figures' slowdowns together: their geometric mean (one noisy figure moves it a little)."""
        ratios = list(self.ratios.values())
        return math.prod(ratios) ** (1 / len(ratios)) if ratios else None

    @property
    def verdict(self) -> HostVerdict:
        if self.together is None or self.worst is None:
            return HostVerdict.UNKNOWN
        slow = self.together > HOST_SLOW or self.worst > HOST_SLOW_ONE
        return HostVerdict.SLOW if slow else HostVerdict.AS_FAST

    def fields(self) -> dict[str, bool | float | None]:
        """The mark the pack's machine keeps: slow or not (null: no figures of its kind on record), and how much
        slower its figures were together."""
        together = self.together
        slow = None if self.verdict is HostVerdict.UNKNOWN else self.verdict is HostVerdict.SLOW
        return {"host_slow": slow, "host_slowdown": None if together is None else round(together, 3)}

    def sentence(self) -> str:
        """The comparison in one sentence, as a recording run prints it."""
        kind = f"this machine kind ({self.kind.words()})"
        if self.verdict is HostVerdict.UNKNOWN:
            figures = ", ".join(f"{f.words} {r.value:.3g} {f.unit_words}" for f, r in self.speed.readings())
            return (
                f"host check: fewer than {MIN_DAYS_ON_RECORD} days of host figures of {kind} are on record, so "
                f"nobody can say whether this host is slow; its own ({figures}) are kept in the pack."
            )
        ratios = ", ".join(f"{f.words} x{ratio:.2f}" for f, ratio in self.ratios.items())
        rule = f"slow: over {HOST_SLOW:.2f}x together or {HOST_SLOW_ONE:.2f}x on one figure"
        if self.verdict is HostVerdict.SLOW:
            return (
                f"host check: this host ran {self.together:.2f}x slower than the best on record of {kind}, its "
                f"figures together ({ratios}; {rule})."
            )
        return f"host check: as fast as the best on record of {kind} ({ratios}; {rule})."
