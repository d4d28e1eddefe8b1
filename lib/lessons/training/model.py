"""The Training page's cost model: one per recorded machine and device, fitted to every step that
machine recorded (every mode, switch, depth and recording day), predicting any view of the page.

    model = MachineModel.of(steps_by_config, "cuda")
    seconds, low, high = model.predict(settings)       # settings: View.settings() with the page defaults
    model.kernels(settings)                             # kernels per step, structural and calibrated

Everything about the model family (an MLP: lib.workloads.mlp.FAMILY) comes from its record: which
settings key a step, and the counted terms (every family's from its traced step: lib.workloads.traced). Kernels per step
come from the recorded profiles where a step was profiled; elsewhere from the family's structural
count, calibrated against the profiles of the same shape, or of the nearest profiled shape:
a shape where cuBLAS splits a matmul into more kernels has more in every mode (a profiled step's
count minus its structural count, at the nearest profiled depth, scaled by depth).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from typing import Any

from lib.core import costmodel
from lib.core.cache import on_disk
from lib.core.point import Point
from lib.core.workload import Settings, SettingValue
from lib.workloads import FAMILIES, execution
from lib.workloads.family import TrainingFamily

Steps = Mapping[tuple, Mapping[tuple[int, int, int], Point]]  # config -> (rows, width, depth) -> its recorded point


def settings_of(point: Point, family: TrainingFamily = FAMILIES[0]) -> dict[str, SettingValue]:
    """The point's settings of the family's workload (a recorded step's, as the model reads them)."""
    settings = point.settings
    return {k: settings[k] for k in family.workload.defaults() if settings.get(k) is not None}


class KernelCounts:
    """Kernels per step: profiled where recorded, else structural plus the profiles' excess at this shape."""

    def __init__(self, steps: Steps, family: TrainingFamily = FAMILIES[0]) -> None:
        self.family = family
        self.excess: dict[tuple[int, int], dict[int, list[float]]] = {}
        self.profiled: dict[tuple, float] = {}
        for config, table in steps.items():
            for (rows, width, depth), point in table.items():
                if point.counts.kernels is None:
                    continue
                kernels = float(point.counts.kernels)
                self.profiled[(config, rows, width, depth)] = kernels
                extra = kernels - family.structural_kernels(settings_of(point, family))
                self.excess.setdefault((rows, width), {}).setdefault(depth, []).append(extra)

    def __call__(self, config: tuple, settings: Mapping[str, Any], rows: int) -> float:
        width, depth = int(settings[self.family.width]), self.family.depth_of(settings)
        if (config, rows, width, depth) in self.profiled:
            return self.profiled[(config, rows, width, depth)]
        base = self.family.structural_kernels(settings)
        if not self.excess:
            return base
        # the profiles' excess at this shape, else at the nearest profiled shape (in log rows, then log width):
        # a shape between profiled ones launches what they do (a torchvision network's cuDNN kernels, 2-3 per
        # convolution where the trace counts one, are there at every batch; read as none between the profiled
        # batches, every other point of its curve was priced at half its kernels: the page's sawtooth)
        near = min(self.excess, key=lambda s: (abs(math.log(s[0] / rows)) + abs(math.log(s[1] / width)), s))
        by_depth = self.excess[near]
        nearest = min(by_depth, key=lambda d: (abs(math.log(d / depth)), d))
        extras = sorted(by_depth[nearest])
        return base + max(0.0, extras[len(extras) // 2] * depth / nearest)


def where(rows: int, width: int, depth: int) -> tuple[float, float, float]:
    """A step's place for the neighbour correction."""
    return math.log(rows), math.log(width), math.log(depth + 1)


def terms_of(
    settings: Mapping[str, Any],
    device_kind: str,
    kernels: float | None,
    family: TrainingFamily = FAMILIES[0],
    bytes_of: Callable[[Settings], float] | None = None,
) -> dict[str, float]:
    """The step's counted terms. bytes_of: another count of its bytes (benchmarks/cost_model_holdout.py
    asks what the MLP's would do counted as the other families' are, by its trace)."""
    work = family.workload
    resolved = work.resolve(settings)
    rows = work.batch_rows(resolved)
    bytes_moved = (bytes_of or work.bytes_moved)(resolved.replace(data_resident=True))
    return family.step_terms(
        resolved, device_kind, flops=work.flops(resolved), bytes_moved=bytes_moved, rows=rows, kernels=kernels
    )


def observations(
    steps: Steps,
    device_kind: str,
    kernels: KernelCounts | None = None,
    family: TrainingFamily = FAMILIES[0],
    bytes_of: Callable[[Settings], float] | None = None,
) -> list[costmodel.Observation]:
    """One observation per recorded step and per recording of it (a step recorded on two days is
    two observations: the model's band then holds the day-to-day spread), in the family's group (its
    key: the residual correction reads only the family's own steps)."""
    kernels = kernels or KernelCounts(steps, family)
    out = []
    for config, table in steps.items():
        for (rows, width, depth), point in table.items():
            settings = settings_of(point, family)
            terms = terms_of(
                settings,
                device_kind,
                kernels(config, settings, rows) if device_kind != "cpu" else None,
                family,
                bytes_of,
            )
            busy = point.counts.device_busy_s
            for seconds in recordings(point):
                out.append(
                    costmodel.Observation(
                        config, terms, seconds, float(busy) if busy else None, where(rows, width, depth), family.key
                    )
                )
    return out


def recordings(point: Point) -> list[float]:
    """The step's time on each recording of it (the kept point's, and the other days' when merged)."""
    return [float(point.median_s), *(float(s) for _, s in point.other_recordings)]


# fits take seconds on the dense grids (with their hold-outs): a cold process loads them, keyed by the
# recorded steps and the fitting code, and fits again only when a pack or the model's code changed (the
# mode records among it: a mode's counted terms are declared there; and each family's terms)
@on_disk(
    "costmodel-machine",
    code=[
        costmodel,
        execution,
        sys.modules[__name__],
        *dict.fromkeys(sys.modules[f.step_terms.__module__] for f in FAMILIES),
    ],
)
def fitted(
    family_key: str, observations: list[costmodel.Observation], device_kind: str, validated: bool
) -> costmodel.CostModel:
    return (costmodel.validate if validated else costmodel.fit)(observations, device_kind)


class MachineModel:
    """One machine's cost model on one kind of device, and how to feed it a page's settings."""

    def __init__(
        self,
        model: costmodel.CostModel,
        kernels: KernelCounts,
        device_kind: str,
        depths: Mapping[tuple, set[int]] | None = None,
    ) -> None:
        self.model, self.kernels, self.device_kind = model, kernels, device_kind
        self.family = kernels.family
        self.depths = depths or {}  # the depths each configuration was recorded at

    @classmethod
    def of(
        cls, steps: Steps, device_kind: str, *, validated: bool = True, family: TrainingFamily = FAMILIES[0]
    ) -> MachineModel | None:
        kernels = KernelCounts(steps, family)
        obs = observations(steps, device_kind, kernels, family)
        if len(obs) < costmodel.MIN_POINTS:
            return None
        depths = {config: {d for _, _, d in table} for config, table in steps.items()}
        model = fitted(family.key, obs, device_kind, validated)
        return cls(model, kernels, device_kind, depths)

    def terms(self, config: tuple, settings: Mapping[str, Any]) -> dict[str, float]:
        rows = self.family.workload.batch_rows(self.family.workload.resolve(settings))
        count = self.kernels(config, settings, rows) if self.device_kind != "cpu" else None
        return terms_of(settings, self.device_kind, count, self.family)

    def predict(self, config: tuple, settings: Mapping[str, Any]) -> tuple[float, float | None, float | None]:
        """(seconds, low, high), the band from error(); no band (None, None) where no error was measured."""
        rows, width, depth = self.family.step_key(settings)
        seconds, _, _ = self.model.predict(
            config, self.terms(config, settings), where(rows, width, depth), self.family.key
        )
        error = self.error(config, depth)
        if error is None:
            return seconds, None, None
        spread = math.exp(error.p90)
        return seconds, seconds / spread, seconds * spread

    def error(self, config: tuple, depth: int) -> costmodel.Error | None:
        """The held-out error that applies here: the configuration's own (k-fold) at a depth it was
        recorded at; elsewhere (a depth or a configuration never recorded) the larger of that and the
        error of configurations left out whole, which is what such a prediction is."""
        own = self.model.errors.get(config)
        if own is not None and depth in self.depths.get(config, ()):
            return own
        known = [e for e in (own, self.model.unseen) if e is not None]
        return max(known, key=lambda e: e.p90) if known else None  # nothing held out: untested, not exact

    def launch_share(self, config: tuple, settings: Mapping[str, Any]) -> float:
        """The part of a predicted step the model puts on issuing the work rather than doing it. The
        device's part is what a profile of it would record: for kernels launched one at a time, the
        back-to-back time stretched by the idle GPU between them (costmodel.stretched_busy), as on
        the recorded steps beside it."""
        terms = self.terms(config, settings)
        a, b = self.model.parts(terms)
        if costmodel.launched(terms):
            b = costmodel.stretched_busy(b, self.model.form(terms))
        return a / (a + b) if a + b > 0 else 0.0

    def describe(self, config: tuple, depth: int) -> str:
        """How a prediction for this configuration was made and tested, for a point's note."""
        error = self.error(config, depth)
        if error is None:
            return (
                "(not tested: too few ways of running this step were recorded on this machine to leave one out "
                "and check the prediction, so it has no band)"
            )
        depths = sorted(self.depths.get(config, ()))
        if not self.model.recorded(config):
            how = (
                "; this way of running was never recorded on this machine: its terms are counted from the "
                "step's structure, priced by the ways that were (tested by leaving each recorded way out)"
            )
        elif depth not in depths and self.family.depth:
            depth_label = self.family.axes[self.family.depth].label  # 'depth' for the MLP
            how = (
                f"; recorded this way at {depth_label} {', '.join(map(str, depths))} only: this {depth_label}'s "
                "kernels and "
                "operations are counted from the step's structure (tested by leaving whole ways out)"
            )
        else:
            how = ""
        return (
            f"(tested on held-out recordings: half within ×{error.median_factor:.2f}, nine in ten within "
            f"×{error.p90_factor:.2f}{how})"
        )
