"""Seed case studies: loss curves per device from the seeded initial weights (trained live here, recorded on the GPU machine next to the seeds pack), and the words read from them. No Streamlit."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from lib.core.fmt import fmt_num, pct
from lib.core.point import NOTHING, Frozen
from lib.core.rows import Status
from lib.recorded.pack import JsonObject
from lib.workloads.presets import Preset, get_preset, loss_curve

CURVES_KEY = "curves"


# Loss curves: the preset at its quick size, for this many epochs. Small enough to train live on a
# 2-core server in about a second; the same setting is recorded on the GPU machine, so the curves
# of both devices are comparable point for point.
CURVE_EPOCHS = {
    "boston_like": 500,
    "iris": 500,
    "mnist_minibatch": 3,
    "mnist_fullbatch": 20,
    "mnist_100rows": 200,
    "linear_mnist_dataloader": 3,
}


@dataclass(frozen=True)
class Curve:
    """One loss curve: a training preset's loss per epoch on one device, at its curve_setting. The curves
    file keeps it as a dict (entry, from_entry); `epochs` is None where a file names no whole number."""

    preset: str
    device: str
    device_name: str = ""
    epochs: int | None = 0
    settings: Frozen = NOTHING  # the workload settings it was trained at
    losses: tuple[float, ...] = ()
    data_note: str = ""
    status: Status = Status.OK
    message: str = ""
    seconds: float | None = None  # how long the training took, where it ran

    def entry(self) -> JsonObject:
        """The curve as the curves file keeps it."""
        out = {
            "preset": self.preset,
            "device": self.device,
            "device_name": self.device_name,
            "epochs": self.epochs,
            "settings": dict(self.settings),
            "losses": list(self.losses),
            "data_note": self.data_note,
            "status": self.status.value,
            "message": self.message,
        }
        return out if self.seconds is None else {**out, "seconds": self.seconds}

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> Curve:
        """A curve read from a file entry that find_curves accepted (its status known, its losses valid)."""
        epochs, settings = entry.get("epochs"), entry.get("settings")
        whole = isinstance(epochs, (int, float)) and not isinstance(epochs, bool) and float(epochs).is_integer()
        return cls(
            str(entry.get("preset")),
            str(entry.get("device")),
            str(entry.get("device_name") or ""),
            int(epochs) if whole else None,
            Frozen(settings) if isinstance(settings, Mapping) else NOTHING,
            tuple(float(v) for v in entry.get("losses") or ()),
            str(entry.get("data_note") or ""),
            Status(entry.get("status")),
            str(entry.get("message") or ""),
        )


class CurveSetting(NamedTuple):
    """What a training preset's loss curve is trained at: the workload's settings, and how many epochs."""

    settings: Frozen
    epochs: int


class LossPoint(NamedTuple):
    """One point of the loss chart: a curve's series, an epoch (from 1), its loss."""

    series: str
    epoch: int
    loss: float

    def row(self) -> dict[str, str | int | float]:
        """The point as the chart's and the download's row (their edge)."""
        return self._asdict()


def curve_setting(preset: Preset | str) -> CurveSetting | None:
    """The loss curve's setting for a training preset; None for one that trains nothing."""
    preset = get_preset(preset) if isinstance(preset, str) else preset
    if preset.name not in CURVE_EPOCHS or preset.workload not in ("mlp", "dataloader"):
        return None
    return CurveSetting(Frozen(preset.params(quick=True)), CURVE_EPOCHS[preset.name])


def data_note(params: Mapping[str, Any]) -> str:
    """What data a run really used when it is not what was asked (MNIST unreachable -> synthetic)."""
    from lib.workloads import datasets

    name = params.get("data")
    if name in datasets.IMAGES:
        try:
            datasets.load_images(name)
        except datasets.DataUnavailable as err:
            return datasets.unavailable_note(name, err)
    return ""


def run_curve(preset: Preset | str, device: str, num_threads: int | None = None, gate=None) -> Curve:
    """The loss per epoch of one training preset on `device`, at curve_setting (never raises).
    With a `gate` (lib.core.gate), a step it refuses is not built: the curve's message says why."""
    from lib.core.devices import device_name
    from lib.core.timing import cpu_threads

    preset = get_preset(preset) if isinstance(preset, str) else preset
    found = curve_setting(preset)
    curve = Curve(preset.name, device)
    if found is None:
        return replace(curve, status=Status.SKIPPED, message=f"{preset.name} trains nothing: no loss curve")
    params, epochs = found
    curve = replace(curve, settings=params, epochs=epochs)
    workload = preset.workload_obj()
    refusal = gate.check(workload, workload.resolve(params), device) if gate else None
    if refusal:
        return replace(curve, status=Status.SKIPPED, message=refusal.message)
    try:
        curve = replace(curve, device_name=device_name(device))
        curve = replace(curve, data_note=data_note(params))
        started = time.perf_counter()
        with cpu_threads(num_threads):
            losses = loss_curve(preset, device, epochs, quick=True)
        curve = replace(curve, seconds=time.perf_counter() - started, losses=tuple(float(v) for v in losses))
    except Exception as err:
        first = str(err).splitlines()[0][:300] if str(err) else ""
        curve = replace(curve, status=Status.ERROR, message=f"{type(err).__name__}: {first}")
    return curve


def curves_path(out: str | Path) -> Path:
    """Where the curves sidecar of the pack `out` goes: X.json -> X_curves.json."""
    out = Path(out)
    return out.with_name(f"{out.stem}_curves.json")


def curves_pack(
    presets: Iterable[Preset],
    devices: Sequence[str],
    *,
    num_threads: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> JsonObject:
    """A result pack with no rows and the loss curves of every training preset on every device (the file's JSON)."""
    from lib.core.results import build_pack

    curves = []
    for preset in presets:
        if curve_setting(preset) is None:
            continue
        for device in devices:
            curve = run_curve(preset, device, num_threads)
            if progress:
                progress(
                    f"curve {preset.name} on {device}: {curve.status.value} "
                    f"({len(curve.losses)} epochs{', ' + curve.message if curve.message else ''})"
                )
            curves.append(curve.entry())
    pack = build_pack([])
    pack[CURVES_KEY] = curves
    return pack


def find_curves(
    packs: Sequence[Mapping[str, Any]], name: str, prefer_stem: str | None = None
) -> tuple[Mapping[str, Any] | None, list[Curve]]:
    """The first sidecar holding curves of preset `name` (the one named <prefer_stem>_curves first)."""

    def rank(pack: Mapping[str, Any]) -> int:
        return 0 if prefer_stem and Path(str(pack.get("path", ""))).stem == f"{prefer_stem}_curves" else 1

    for pack in sorted((p for p in packs if isinstance(p.get(CURVES_KEY), list)), key=rank):
        found = [
            c
            for c in pack[CURVES_KEY]
            if isinstance(c, dict)
            and c.get("preset") == name
            and c.get("status") == Status.OK
            and valid_losses(c.get("losses"))
        ]
        if found:
            return pack, [Curve.from_entry(c) for c in found]
    return None, []


def valid_losses(losses: Any) -> bool:
    return (
        isinstance(losses, list)
        and len(losses) > 0
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in losses)
    )


def learn_sentence(losses: Sequence[float], who: str) -> str:
    """Did a loss curve go down? Numbers from the curve itself."""
    if not valid_losses(list(losses)):
        return f"{who}: no loss curve."
    first, last = float(losses[0]), float(losses[-1])
    n = len(losses)
    if last < first * 0.9:
        return (
            f"{who} learns: the epoch loss falls from {fmt_num(first)} to {fmt_num(last)} over {n} epochs "
            f"({pct_lower(1 - last / first)} lower)."
        )
    if last < first:
        return f"{who}: the epoch loss falls only a little, from {fmt_num(first)} to {fmt_num(last)} over {n} epochs."
    return f"{who} does not learn here: the epoch loss goes from {fmt_num(first)} to {fmt_num(last)} over {n} epochs."


def same_start_sentence(curves: dict[str, Sequence[float]]) -> str | None:
    """Whether every curve starts at the same first-epoch loss (same initial weights, same data)."""
    firsts = {who: float(c[0]) for who, c in curves.items() if valid_losses(list(c))}
    if len(firsts) < 2:
        return None
    values = list(firsts.values())
    spread = (max(values) - min(values)) / max(abs(max(values)), 1e-12)
    listing = ", ".join(f"{fmt_num(v, 4)} on {who}" for who, v in firsts.items())
    if spread < 0.01:
        return (
            f"They start together (first-epoch loss {listing}): the same model from the same initial weights "
            "on the same data, so the devices differ only in speed and rounding."
        )
    return (
        f"Their first-epoch losses differ ({listing}): these runs did not start from the same weights or "
        "did not see the same data."
    )


def pct_lower(fraction: float) -> str:
    """62% / more than 99% (never a rounded '100%' for a loss that did not reach zero)."""
    return "more than 99%" if 0.99 < fraction < 1 else pct(fraction)
