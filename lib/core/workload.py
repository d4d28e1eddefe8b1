"""The shape every workload has, so pages, sweeps, the CLI and tests treat them alike.

A workload declares its settings (with ranges and defaults), builds one step for a device,
estimates FLOPs, bytes moved and peak memory, and checks its own result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence


class SettingError(ValueError):
    """A setting's value is missing, malformed or out of range; the message says which."""


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Setting:
    """One knob of a workload. `choices` for a fixed set; `minimum`/`maximum` for numbers.
    `log` says the range spans decades (sliders and sweeps should be log-spaced)."""

    name: str
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple | None = None
    log: bool = False

    @property
    def kind(self) -> type:
        return type(self.default)

    def parse(self, raw: Any) -> Any:
        """Coerce a value (a string from the CLI or a URL, or a Python value) and check its range."""
        kind = self.kind
        try:
            if kind is bool:
                if isinstance(raw, bool):
                    value = raw
                elif str(raw).strip().lower() in _TRUE:
                    value = True
                elif str(raw).strip().lower() in _FALSE:
                    value = False
                else:
                    raise ValueError
            elif kind is int:
                as_float = float(raw)
                if not as_float.is_integer():
                    raise ValueError
                value = int(as_float)
            elif kind is float:
                value = float(raw)
            else:
                value = str(raw).strip()
        except (TypeError, ValueError):
            raise SettingError(f"{self.name}: expected {kind.__name__}, got {raw!r}") from None
        if self.choices is not None and value not in self.choices:
            options = ", ".join(str(c) for c in self.choices)
            raise SettingError(f"{self.name}: {value!r} is not one of {options}")
        if self.minimum is not None and value < self.minimum:
            raise SettingError(f"{self.name}: {value} is below the minimum {self.minimum:g}")
        if self.maximum is not None and value > self.maximum:
            raise SettingError(f"{self.name}: {value} is above the maximum {self.maximum:g}")
        return value

    def clamp(self, raw: Any) -> tuple[Any, str | None]:
        """Like parse, but bring an out-of-range number back into range (for URL parameters).
        Returns (value, note); the note says what was changed, or is None."""
        try:
            return self.parse(raw), None
        except SettingError as err:
            if self.kind in (int, float) and self.choices is None:
                try:
                    number = self.kind(float(raw))
                except (TypeError, ValueError):
                    return self.default, f"{err}; using the default {self.default}"
                low = self.minimum if self.minimum is not None else number
                high = self.maximum if self.maximum is not None else number
                value = self.kind(min(max(number, low), high))
                return value, f"{self.name}={raw} is out of range; using {value}"
            return self.default, f"{err}; using the default {self.default}"


@dataclass
class Step:
    """One unit of work on one device, ready to time.

    run: the call that is timed (one training step, one matmul, one epoch of loading...).
    phases: optional parts of it, each timed on its own (e.g. 'transfer', 'compute').
    units: how to turn per-call time into the numbers people quote, e.g.
        {"steps_per_epoch": 469} -> epoch_s = median_s * 469.
    check: raises AssertionError if the work computed something wrong.
    extras: anything the page may show (loss curve, achieved FLOP/s...), JSON-friendly.
    synchronized: False for the deliberately naive timing variant (matmul sync=false).
    """

    run: Callable[[], Any]
    phases: dict[str, Callable[[], Any]] = field(default_factory=dict)
    units: dict[str, float] = field(default_factory=dict)
    check: Callable[[], None] | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    synchronized: bool = True
    close: Callable[[], None] | None = None


class Workload:
    """Subclass per workload; pages and the CLI use only these members."""

    name: str = ""
    title: str = ""
    description: str = ""
    settings: Sequence[Setting] = ()

    # -- settings --------------------------------------------------------------------------
    def setting(self, name: str) -> Setting:
        for s in self.settings:
            if s.name == name:
                return s
        known = ", ".join(s.name for s in self.settings)
        raise SettingError(f"{self.name} has no setting '{name}' (it has: {known})")

    def defaults(self) -> dict[str, Any]:
        return {s.name: s.default for s in self.settings}

    def resolve(self, given: dict[str, Any] | None = None) -> dict[str, Any]:
        """Defaults overlaid with `given`, each parsed and range-checked."""
        params = self.defaults()
        for key, raw in (given or {}).items():
            params[key] = self.setting(key).parse(raw)
        self.validate(params)
        return params

    def validate(self, params: dict[str, Any]) -> None:
        """Cross-setting checks; raise SettingError. Override where settings interact."""

    # -- the work --------------------------------------------------------------------------
    def build(self, params: dict[str, Any], device: str) -> Step:
        raise NotImplementedError

    def flops(self, params: dict[str, Any]) -> float:
        """Floating-point operations in one call of the step."""
        raise NotImplementedError

    def bytes_moved(self, params: dict[str, Any]) -> float:
        """Least bytes one call must read and write (memory traffic, plus host-device copies)."""
        raise NotImplementedError

    def peak_memory_bytes(self, params: dict[str, Any], device: str) -> float:
        """Estimated peak memory of building and running the step, checked before allocating."""
        raise NotImplementedError

    def work(self, params: dict[str, Any]) -> float:
        """The 'work' axis of the cost model time = overhead + work / throughput (FLOPs)."""
        return self.flops(params)
