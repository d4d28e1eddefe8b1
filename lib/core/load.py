"""How busy the machine was while it recorded: a timing taken while other work runs is a wrong number
with a real date on it, so every recording keeps this beside its rows and is judged by it.

    watch = LoadWatch.start()           # before the first point: a reference kernel timed, the CPU counters read
    ... measure ...
    load = watch.finish()               # after the last: the kernel again, the other processes' share meanwhile
    load.quiet, load.reasons()          # False, ['other processes used 47% of the 2 cores while it recorded']
    GPUWIN_LOAD_CHECK=0                 # a recording made beside other work on purpose (the tests' own): load_quiet null
    machine.update(load.fields().as_machine())  # flat fields of the pack's machine (lib.core.results validates them)

Three pieces of evidence, each independent of the recording itself (in the manner of pyperf's `system`
checks):
- the other processes' share of the machine's cores over the whole recording (/proc/stat's busy time,
  steal included, less this process's own CPU time): the direct measure;
- the 1-minute load average before and after (includes this process);
- a short pure-Python reference kernel timed before and after, in a few short bursts apart: the fastest
  burst's median against the fastest repeat of both samples (the machine's quiet figure for it, as near as
  one run can tell), which also catches a busy host under a virtual machine that the counters do not show.
  Bursts, because on these virtual machines the kernel alone moves between two speeds about 2x apart for
  a fraction of a second at a time with nothing else running: a busy machine slows every burst.

No torch, no Streamlit: the web server may call it too.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import time
from dataclasses import dataclass, fields

from lib.core.devices import MachineObject, machine_fingerprint

# Other processes may use at most this share of the machine's cores while a recording runs: a tenth of a
# 2-core box is an editor or a shell; a recording beside a test suite ran 1.3-5x slow.
QUIET_OTHER_SHARE = 0.10
# The reference kernel's median may be at most this much slower than its fastest repeat, before and after: on
# the 2-core server it alone moves between two speeds about 1.6x apart with nothing else running (3.0 and
# 4.8 ms in consecutive processes), while two other busy processes made it 2.6x slow.
QUIET_SLOWDOWN = 2.0
# 5 bursts of 5 repeats, 0.1 s apart: one burst's median alone, 25 repeats in a row (about 0.1 s), came out 1.8-2.2x
# its best on an idle 16-core H200 host, after a recording with other processes at 0.1 % of its cores
REFERENCE_REPEATS = 5
REFERENCE_BURSTS = 5
REFERENCE_GAP_S = 0.1
REFERENCE_WARMUP = 10


@dataclass(frozen=True)
class LoadFields:
    """A recording's load as its pack's machine keeps it, each as `load_<name>` (None where unknown)."""

    quiet: bool | None
    other_cpu_share: float | None
    avg_before: float | None
    avg_after: float | None
    reference_before_s: float | None
    reference_after_s: float | None
    reference_best_s: float | None
    wall_s: float | None

    def as_machine(self) -> dict[str, bool | float | None]:
        """The flat fields of the pack's machine."""
        return {f"load_{f.name}": getattr(self, f.name) for f in fields(self)}

    @classmethod
    def of(cls, machine: MachineObject) -> LoadFields | None:
        """The load a pack's machine kept; None for a pack recorded before its load was kept."""
        if not any(key in machine for key in LOAD_FIELDS):
            return None
        return cls(**{f.name: machine.get(f"load_{f.name}") for f in fields(cls)})

    def after(self, earlier: LoadFields | None) -> LoadFields:
        """The load of a recording resumed across calls, this call after `earlier`: quiet only if every call
        was, the worst of each figure."""
        if earlier is None:
            return dataclasses.replace(self, quiet=None)  # an earlier part of unknown load: nobody can say it was quiet
        bests = [x for x in (earlier.reference_best_s, self.reference_best_s) if x is not None]
        return LoadFields(
            quiet=None if earlier.quiet is None or self.quiet is None else bool(earlier.quiet and self.quiet),
            other_cpu_share=_worse(earlier.other_cpu_share, self.other_cpu_share),
            avg_before=_worse(earlier.avg_before, self.avg_before),
            avg_after=_worse(earlier.avg_after, self.avg_after),
            reference_before_s=_worse(earlier.reference_before_s, self.reference_before_s),
            reference_after_s=_worse(earlier.reference_after_s, self.reference_after_s),
            reference_best_s=min(bests) if bests else None,
            wall_s=(earlier.wall_s or 0) + (self.wall_s or 0),
        )


def _worse(earlier: float | None, now: float | None) -> float | None:
    """The larger of two figures where both are known, else this call's."""
    both = isinstance(earlier, (int, float)) and isinstance(now, (int, float))
    return max(earlier, now) if both else now


LOAD_FIELDS = tuple(f"load_{f.name}" for f in fields(LoadFields))


def reference_kernel() -> int:
    """About 5 ms of one core's integer arithmetic and Python dispatch on a 2-core server."""
    total = 0
    for i in range(60_000):
        total += (i * i) % 7
    return total


def _reference(repeats: int = REFERENCE_REPEATS, bursts: int = REFERENCE_BURSTS) -> list[list[float]]:
    """The kernel's times, burst by burst."""
    for _ in range(REFERENCE_WARMUP):  # a new process's first calls run ~1.6x slow (the interpreter warming up)
        reference_kernel()
    samples = []
    for burst in range(bursts):
        if burst:
            time.sleep(REFERENCE_GAP_S)
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            reference_kernel()
            times.append(time.perf_counter() - t)
        samples.append(times)
    return samples


def _fastest_burst(samples: list[list[float]]) -> float:
    return min(statistics.median(times) for times in samples)


def _fastest_repeat(*samples: list[list[float]]) -> float:
    return min(t for sample in samples for times in sample for t in times)


def _busy_s() -> float | None:
    """Seconds of CPU the whole machine spent busy since boot (all cores; steal counts: a busy host under a
    virtual machine takes time from the recording too). None where /proc/stat cannot be read."""
    try:
        with open("/proc/stat") as f:
            fields = [float(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _own_s() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _loadavg() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


@dataclass(frozen=True)
class Load:
    """A recording's machine load: what `fields` writes into its pack's machine, and the verdict."""

    other_cpu_share: float | None  # of all cores, over the recording (None: not readable here)
    load_avg_before: float | None
    load_avg_after: float | None
    reference_before_s: float
    reference_after_s: float
    reference_best_s: float
    wall_s: float
    cores: int
    checked: bool = True  # False: $GPUWIN_LOAD_CHECK=0, a recording made beside other work on purpose (a test's)

    @property
    def slowdown(self) -> float:
        """The worse of the reference kernel's two fastest bursts (their medians) against its fastest repeat."""
        best = self.reference_best_s or 1e-12
        return max(self.reference_before_s, self.reference_after_s) / best

    def reasons(self) -> list[str]:
        """Why this recording's machine was not quiet; empty when it was."""
        out = []
        if self.other_cpu_share is not None and self.other_cpu_share > QUIET_OTHER_SHARE:
            out.append(
                f"other processes used {self.other_cpu_share:.0%} of the {self.cores} cores while it recorded "
                f"(at most {QUIET_OTHER_SHARE:.0%} is quiet)"
            )
        if self.slowdown > QUIET_SLOWDOWN:
            out.append(
                f"a reference kernel ran {self.slowdown:.2f}x slower than its best repeat "
                f"(at most {QUIET_SLOWDOWN:.2f}x is quiet)"
            )
        return out

    @staticmethod
    def reasons_of(machine: MachineObject) -> list[str]:
        """Load.reasons of a pack's machine fields (a pack recorded before its load was kept: none)."""
        kept = LoadFields.of(machine)
        if kept is None:
            return []
        try:
            return Load(
                kept.other_cpu_share,
                None,
                None,
                float(kept.reference_before_s),  # type: ignore[arg-type]
                float(kept.reference_after_s),  # type: ignore[arg-type]
                float(kept.reference_best_s),  # type: ignore[arg-type]
                0.0,
                int(machine.get("cpu_cores") or 1),
            ).reasons()
        except (TypeError, ValueError):
            return []

    @property
    def quiet(self) -> bool:
        return not self.reasons()

    def fields(self) -> LoadFields:
        """What the pack keeps of it, rounded."""

        def r(x: float | None, n: int = 4) -> float | None:
            return None if x is None else round(x, n)

        return LoadFields(
            quiet=self.quiet if self.checked else None,
            other_cpu_share=r(self.other_cpu_share, 3),
            avg_before=r(self.load_avg_before, 2),
            avg_after=r(self.load_avg_after, 2),
            reference_before_s=r(self.reference_before_s, 6),
            reference_after_s=r(self.reference_after_s, 6),
            reference_best_s=r(self.reference_best_s, 6),
            wall_s=r(self.wall_s, 1),
        )


@dataclass(frozen=True)
class CpuCounters:
    """The machine's and this process's CPU time at one moment: the other processes' share since is read from two."""

    wall: float
    busy: float | None  # None where /proc/stat cannot be read
    own: float

    @classmethod
    def now(cls) -> CpuCounters:
        return cls(time.perf_counter(), _busy_s(), _own_s())

    def other_share_since(self, earlier: CpuCounters) -> float | None:
        """Of all cores, the share other processes used between `earlier` and this."""
        wall = self.wall - earlier.wall
        if self.busy is None or earlier.busy is None or wall <= 0:
            return None
        other = (self.busy - earlier.busy) - (self.own - earlier.own)
        return min(1.0, max(0.0, other) / (wall * (os.cpu_count() or 1)))


@dataclass
class LoadWatch:
    """Started before a recording's first point, finished after its last."""

    counters: CpuCounters
    load_avg: float | None
    reference: list[list[float]]  # the kernel's times before the first point, burst by burst

    @classmethod
    def start(cls) -> LoadWatch:
        reference = _reference()
        return cls(CpuCounters.now(), _loadavg(), reference)

    def finish(self, final: bool = True) -> Load:
        """The load so far; `final=False` (a recording saved half way) skips timing the reference again."""
        now = CpuCounters.now()
        after = _reference() if final else self.reference
        return Load(
            other_cpu_share=now.other_share_since(self.counters),
            load_avg_before=self.load_avg,
            load_avg_after=_loadavg(),
            reference_before_s=_fastest_burst(self.reference),
            reference_after_s=_fastest_burst(after),
            reference_best_s=_fastest_repeat(self.reference, after),
            wall_s=now.wall - self.counters.wall,
            cores=os.cpu_count() or 1,
            checked=load_checked(),
        )


def load_checked() -> bool:
    """False where $GPUWIN_LOAD_CHECK=0: a recording made beside other work on purpose (the tests' own), whose
    load is not judged and whose host is not timed (lib.core.host_watch)."""
    return os.environ.get("GPUWIN_LOAD_CHECK", "1") != "0"


def pack_quiet(machine: MachineObject) -> bool | None:
    """Whether a pack's machine was quiet while it recorded: True or False where the pack says, None for a
    pack recorded before its load was kept."""
    value = machine.get("load_quiet")
    return value if isinstance(value, bool) else None


def busy_warning(machine: MachineObject) -> str | None:
    """What a recording run prints when its pack's machine says it was busy, or its host slow for its kind
    (lib.core.host_verdict); None when neither."""
    warnings = []
    if machine.get("load_quiet") is False:
        warnings.append(
            "warning: the machine was busy while this recorded, so its times are slower than a quiet machine's: "
            + "; ".join(Load.reasons_of(machine))
            + ". The pack says so (load_quiet: false) and the app does "
            "not draw it as recorded; record again with nothing else running."
        )
    if machine.get("host_slow") is True:
        slowdown = machine.get("host_slowdown")
        by = f" {slowdown:.2f}x" if isinstance(slowdown, (int, float)) else ""
        warnings.append(
            f"warning: this host ran{by} slower than the best on record for its machine kind, though nothing else "
            "may have been running, so what its CPU does (the CPU's own times, and the GPU's where the CPU issues "
            "the kernels) is slower than that kind's usual. The pack says so (host_slow: true); a faster lease of "
            "the same kind gives the truer figures."
        )
    return "\n".join(warnings) or None


def machine_with_load(watch: LoadWatch, earlier: MachineObject | None, final: bool = True) -> MachineObject:
    """This machine's fingerprint with how busy it was while the recording ran; a recording resumed from an
    earlier pack (`earlier`: its machine) is quiet only if its earlier calls were too."""
    load = watch.finish(final).fields()
    if earlier is not None:
        load = load.after(LoadFields.of(earlier))
    return {**machine_fingerprint(), **load.as_machine()}
