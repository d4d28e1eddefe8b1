"""A recording's machine as its pack keeps it: how busy it was (lib.core.load) and how fast its host was
(lib.core.host), timed before the first point and after the last.

    watch = MachineWatch.start(devices, on_record)   # the host timed, the best of its kind on record read
    ... measure ...
    machine = watch.machine(earlier)                 # fingerprint + load_* + host_* (the host timed again)
    watch.tell(machine)     # 'host check: as fast as the best on record for ...', and lib.core.load.busy_warning's

`on_record` gives the machines of the packs on record (the caller's floor reads them: lib.recorded), read
only when the host is timed. With $GPUWIN_LOAD_CHECK=0 (a recording beside other work on purpose, the
tests') the host is not timed: figures timed beside other work would be wrong ones.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from lib.core.devices import MachineObject, machine_fingerprint
from lib.core.host import HostSpeed, host_over_runs
from lib.core.host_timing import time_host
from lib.core.host_verdict import HostCheck, MachineKind, best_on_record
from lib.core.load import LoadWatch, busy_warning, load_checked, machine_with_load


@dataclass(frozen=True)
class MachineWatch:
    """Started before a recording's first point; asked for the pack's machine after its last (or half way)."""

    load: LoadWatch
    devices: tuple[str, ...]
    host: HostSpeed | None  # timed before the first point; None: not timed
    best: HostSpeed | None  # the fastest figures on record for this machine's kind

    @classmethod
    def start(cls, devices: Sequence[str], on_record: Callable[[], Iterable[MachineObject]]) -> MachineWatch:
        host = time_host(devices) if load_checked() else None
        best = best_on_record(on_record(), MachineKind.of(machine_fingerprint())) if host is not None else None
        return cls(LoadWatch.start(), tuple(devices), host, best)

    def machine(self, earlier: MachineObject | None = None, final: bool = True) -> MachineObject:
        """This machine's fingerprint, load and host figures (the slower of the start's and the end's; a save
        half way, `final=False`, times nothing again); a recording resumed from an earlier pack (`earlier`: its
        machine) keeps the slowest of both."""
        machine = machine_with_load(self.load, earlier, final)
        speed = self.host.slower(time_host(self.devices)) if self.host is not None and final else self.host
        if speed is not None:
            machine.update(speed.as_machine())
            machine.update(HostCheck(MachineKind.of(machine), speed, self.best).fields())
        if earlier is not None:
            machine.update(host_over_runs(earlier, machine))
        return machine

    def sentence(self, machine: MachineObject) -> str | None:
        """The host's comparison with the best on record, in one sentence (None: the host was not timed)."""
        speed = HostSpeed.of(machine)
        return None if speed is None else HostCheck(MachineKind.of(machine), speed, self.best).sentence()

    def tell(self, machine: MachineObject) -> None:
        """What a recording run prints after it: the host's comparison, then the warning of a busy or slow one."""
        if sentence := self.sentence(machine):
            print(sentence)
        if warning := busy_warning(machine):
            print(warning, file=sys.stderr)
