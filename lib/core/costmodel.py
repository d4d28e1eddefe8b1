"""One cost model per recorded machine and device: how a step spends its time, with the way it runs
(mode, switches) carried as terms, fitted jointly to every recorded step of that machine.

    obs = [Observation(config, terms, seconds, busy_s, where), ...]   # one per recorded step
    model = fit(obs, "cuda")                                         # validate(obs, "cuda") adds its errors
    seconds, low, high = model.predict(config, terms, where)

The form follows how a step spends its time. The CPU issues the work:

    A = fixed + python_step × (the Python of an eager step: module calls, the optimizer's loop)
        + ops × (one eager dispatch) + compiled_launches × (one launch from compiled code)
        + calls × (a compiled call's guards) + replays × (one graph replay) + copies × (one copy call)
        + staged_bytes / (the CPU's copy of pageable memory into a staging buffer)

and the device does it, its kernels run back to back:

    B = kernels × (one kernel's latency) + flops / throughput + bytes / bandwidth + copy_bytes / host link

A kernel costs the GPU the same whichever way it was launched: a CUDA graph's kernels and eager's are
priced alike, so a graph is priced from eager's recordings. What the way of launching changes is the
GPU-busy time a profile records. Kernels launched one at a time from the CPU (terms in LAUNCHED) reach
a GPU that sits idle between them, and each takes longer on the GPU's own clock than the same kernel
in a graph replayed back to back: on both recorded GPUs the same step's eager busy time is close to
√(B × step time) (stretched_busy): B itself when the GPU is the bottleneck, three to five times B on
a launch-bound step that leaves the GPU idle three quarters of the time. Of the steps recorded both
ways at the same shape, the graph's busy time is within ×1.5 of eager's read this way for 56 % (H200)
and 87 % (H100), of eager's as recorded for 28 % and 21 %. (An idle GPU runs slower: lower clocks,
cold caches; the profiles do not say which.) So the fit compares a launched step's recorded busy
time with √(B × step), and B stays the back-to-back work a graph replays.

On a GPU the two overlap (the CPU queues kernels while the GPU runs earlier ones), so a step takes
about the larger: a smooth maximum (A^p + B^p)^(1/p). On a CPU nothing overlaps (p near 1 is a sum).

A synchronisation (item(), or a copy from pageable memory, which waits for the stream) is priced by
the regime: the CPU waits for what the GPU still has queued when it asks, then one round trip. When
the CPU's issuing sets the pace (A > B) the GPU trails it by a kernel and the wait is the round trip
alone; when the GPU is behind, the wait is the rest of B (B - A), which the smooth maximum already
holds. So a step with synchronisations is smooth_max(A, B) + syncs × round trip, not A + B plus a
fixed round trip (that summed what overlaps: at depth 6, item() every step measured ×0.88-1.06 of
the plain eager step where the sum said up to ×1.9). What a synchronisation does take out of the
overlap is the pageable copy itself: the CPU's staging (staged_bytes) and the transfer (copy_bytes)
run while nothing else does, so they are added, not overlapped (SERIAL).

Which term each configuration adds (counted from the family's traced step, lib.workloads.traced): eager
adds its Python step and one op per kernel; fused fewer kernels and ops; a CUDA graph one replay instead of the ops (its kernels are eager's
and the capturable optimizer's, priced alike, with no launches to stretch their busy time); torch.compile compiled launches and three guarded calls (reduce-overhead: three
replays instead of the launches); data copied per batch two copies and their bytes (pageable: staged bytes and one
synchronisation); item() every step a copy and a synchronisation.

Every coefficient is positive, fitted by least squares on log time (times span decades) with a weak
prior pulling it toward a physical value, so a term no recording varies (a mode never recorded on
this machine) is priced by the prior and by the others, not left at an arbitrary number. Where a
recording carries its GPU-busy time, the device side B is fitted to it too. What the form misses is
taken from the nearest recorded steps: a distance-weighted mean of their residuals (steps of other
configurations count less), shrunk to nothing far from all of them. The band is the held-out error:
per configuration (k-fold), and for a configuration never recorded, its error when each recorded
configuration is left out in turn.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

ISSUE = ("fixed", "python_step", "ops", "compiled_launches", "calls", "replays", "copies", "staged_bytes")
WORK = ("kernels", "flops", "bytes", "copy_bytes")
SYNC = "syncs"
SERIAL = ("staged_bytes", "copy_bytes")  # with a synchronisation, the pageable copy overlaps nothing
# seconds per unit of each term: where the fit starts, and what it is pulled toward (weakly)
PRIOR = {
    "cuda": {
        "fixed": 1e-5,
        "python_step": 8e-5,
        "ops": 6e-6,
        "compiled_launches": 4e-6,
        "calls": 3e-5,
        "replays": 1e-5,
        "copies": 6e-6,
        "staged_bytes": 1 / 5e9,
        "kernels": 1.5e-6,
        "flops": 1 / 3e13,
        "bytes": 1 / 2e12,
        "copy_bytes": 1 / 2e10,
        SYNC: 1.5e-5,
    },
    "cpu": {"fixed": 1e-5, "ops": 5e-6, "flops": 1 / 1e11, "bytes": 1 / 3e10},
}
PRIOR_WEIGHT = 0.05  # one prior counts like a twentieth of a recorded step
BUSY_WEIGHT = 0.5  # a recorded GPU-busy time counts half as much as the step time it comes with
MIN_POINTS = 4
FOLDS = 5
NEIGHBOUR_SCALE = 0.75  # kernel width of the residual correction, in standard deviations of the coordinates
SHRINK = 0.3  # weight of "no correction" against the neighbours' residuals
OTHER_CONFIG = 0.3  # a neighbour recorded another way counts this much
LAUNCHED = ("ops", "compiled_launches")  # a step with these terms launches its kernels one at a time
STRETCH = 0.5  # a launched step's busy time: B^STRETCH × step^(1 - STRETCH) (0.47-0.59 fitted to the pairs)


@dataclass(frozen=True)
class Observation:
    """One recorded step: its configuration, its terms, its time (and GPU-busy time when profiled),
    and where it lies for the neighbour correction (log rows, log width, log layers) among the steps
    of its group (one model family: another family's width and layers are other things)."""

    config: Hashable
    terms: Mapping[str, float]
    seconds: float
    busy_s: float | None = None
    where: tuple[float, ...] = ()
    group: Hashable = None  # the model family it trains: the residual correction reads its own group only


@dataclass(frozen=True)
class Error:
    """Held-out error: |log(predicted / measured)| over held-out points."""

    median: float
    p90: float
    points: int

    @property
    def median_factor(self) -> float:
        return math.exp(self.median)

    @property
    def p90_factor(self) -> float:
        return math.exp(self.p90)

    @staticmethod
    def of(errors: Sequence[float]) -> Error:
        if not errors:
            return Error(0.0, 0.0, 0)
        return Error(float(np.median(errors)), float(np.quantile(errors, 0.9)), len(errors))


@dataclass(frozen=True)
class CostModel:
    device_kind: str
    coef: Mapping[str, float]  # seconds per unit of each term (SYNC: per synchronisation)
    sharpness: float  # p of the smooth maximum
    configs: tuple  # the configuration of each fitted point
    coords: np.ndarray
    residuals: np.ndarray  # log(measured / form) at the fitted points
    scale: np.ndarray
    points: int
    errors: Mapping[Hashable, Error] = field(default_factory=dict)  # held out, per recorded configuration
    unseen: Error | None = None  # held out, a configuration never recorded
    groups: tuple = ()  # the group of each fitted point (empty: all one group)

    def parts(self, terms: Mapping[str, float]) -> tuple[float, float]:
        """(issue, device): the CPU's time to issue the step and the device's time to do it."""
        a = sum(self.coef[n] * float(terms.get(n, 0.0)) for n in ISSUE if n in self.coef)
        b = sum(self.coef[n] * float(terms.get(n, 0.0)) for n in WORK if n in self.coef)
        return a, b

    def form(self, terms: Mapping[str, float]) -> float:
        a, b = self.parts(terms)
        syncs = float(terms.get(SYNC, 0.0))
        if syncs <= 0:
            return _smooth_max(a, b, self.sharpness)
        serial = [self.coef.get(n, 0.0) * float(terms.get(n, 0.0)) for n in SERIAL]
        return _synced(a - serial[0], b - serial[1], sum(serial), self.coef.get(SYNC, 0.0) * syncs, self.sharpness)

    @cached_property
    def _masks(self) -> tuple[dict[Hashable, np.ndarray], dict[Hashable, np.ndarray]]:
        """The fitted points of each group and of each configuration, found once: correction() runs for every
        prediction (every held-out one of validate() too), and comparing each point's labels there was a third
        of a fit's time."""

        def masks(labels: Sequence[Hashable]) -> dict[Hashable, np.ndarray]:
            return {label: np.array([x == label for x in labels], dtype=bool) for label in dict.fromkeys(labels)}

        return masks(self.groups), masks(self.configs)

    def correction(self, config: Hashable, where: Sequence[float], group: Hashable = None) -> float:
        """The log-residual the nearest recorded steps of the group suggest here (0 far from all of them,
        and for a group never recorded)."""
        if not len(self.residuals) or not len(where):
            return 0.0
        groups, configs = self._masks
        none = np.zeros(len(self.residuals), bool)
        mine = groups.get(group, none) if self.groups else np.ones(len(self.residuals), bool)
        if not mine.any():
            return 0.0
        coords, residuals = self.coords[mine], self.residuals[mine]
        d2 = (((coords - np.asarray(where, dtype=float)) / self.scale) ** 2).sum(axis=1)
        same = configs.get(config, none)[mine]
        w = np.exp(-d2 / (2 * NEIGHBOUR_SCALE**2)) * np.where(same, 1.0, OTHER_CONFIG)
        return float((w * residuals).sum() / (w.sum() + SHRINK))

    def error_for(self, config: Hashable) -> Error:
        return self.errors.get(config) or self.unseen or Error(0.0, 0.0, 0)

    def recorded(self, config: Hashable) -> bool:
        return config in set(self.configs)

    def predict(
        self, config: Hashable, terms: Mapping[str, float], where: Sequence[float] = (), group: Hashable = None
    ) -> tuple[float, float, float]:
        """(seconds, low, high): the prediction and its band (the held-out 90th percentile)."""
        seconds = self.form(terms) * math.exp(self.correction(config, where, group))
        spread = self.error_for(config).p90
        return seconds, seconds * math.exp(-spread), seconds * math.exp(spread)


def launched(terms: Mapping[str, float]) -> bool:
    """Whether the CPU launches this step's kernels one at a time (eager, torch.compile without
    graphs): its recorded GPU-busy time is stretched by the idle GPU between them."""
    return bool(terms.get("kernels")) and any(terms.get(n) for n in LAUNCHED)


def stretched_busy(device_s: float, step_s: float) -> float:
    """The GPU-busy time a profile records for a step whose kernels are launched one at a time,
    from B (the same kernels back to back) and the step's time: √(B × step) with STRETCH = 0.5, never
    less than B (a GPU-bound step records B)."""
    return device_s**STRETCH * max(step_s, device_s) ** (1 - STRETCH)


def _smooth_max(a: float, b: float, p: float) -> float:
    if a <= 0 or b <= 0:
        return max(a, b, 1e-12)
    hi = max(a, b)
    return hi * ((a / hi) ** p + (b / hi) ** p) ** (1.0 / p)


def _synced(a: float, b: float, serial: float, round_trips: float, p: float) -> float:
    """A step that synchronises: issue (a) and device work (b) overlap as in any step, the CPU then
    waits for what the GPU still has queued (the smooth maximum's excess over a), and the pageable
    copy's serial part and the round trips come on top."""
    return _smooth_max(max(a, 0.0), max(b, 0.0), p) + serial + round_trips


def sync_cost(model: CostModel, terms: Mapping[str, float]) -> float:
    """What the step's synchronisations add to the same step without them: a round trip each when
    the CPU sets the pace, plus the pageable copy's part that no longer overlaps."""
    plain = {n: v for n, v in terms.items() if n != SYNC}
    return model.form(terms) - model.form(plain)


def fit(observations: Sequence[Observation], device_kind: str) -> CostModel:
    """The form fitted jointly to every observation, with the residuals kept for the correction
    (no held-out errors: validate() adds them)."""
    from scipy.optimize import least_squares

    obs = [o for o in observations if o.seconds and o.seconds > 0 and math.isfinite(o.seconds)]
    if len(obs) < MIN_POINTS:
        raise ValueError(f"a cost model needs at least {MIN_POINTS} measured points, got {len(obs)}")
    prior = PRIOR[device_kind]
    issue = [n for n in ISSUE if n in prior]
    work = [n for n in WORK if n in prior]
    names = issue + work + ([SYNC] if SYNC in prior else [])
    I = np.array([[float(o.terms.get(n, 0.0)) for n in issue] for o in obs])
    W = np.array([[float(o.terms.get(n, 0.0)) for n in work] for o in obs])
    S = np.array([float(o.terms.get(SYNC, 0.0)) for o in obs])
    # the pageable copy's staging (an issue term) and transfer (a work term), taken out of the overlap when synced
    serial_i = np.array(
        [[float(o.terms.get(n, 0.0)) if n == SERIAL[0] and o.terms.get(SYNC) else 0.0 for n in issue] for o in obs]
    )
    serial_w = np.array(
        [[float(o.terms.get(n, 0.0)) if n == SERIAL[1] and o.terms.get(SYNC) else 0.0 for n in work] for o in obs]
    )
    t = np.log(np.array([o.seconds for o in obs]))
    busy_at = np.array([i for i, o in enumerate(obs) if o.busy_s and o.busy_s > 0], dtype=int)
    busy = np.log(np.array([obs[i].busy_s for i in busy_at])) if len(busy_at) else np.zeros(0)
    stretched = np.array([launched(obs[i].terms) for i in busy_at], dtype=bool)
    log_prior = np.log(np.array([prior[n] for n in names]))

    def parts(theta: np.ndarray):
        c = np.exp(theta[: len(names)])
        a = I @ c[: len(issue)]
        b = W @ c[len(issue) : len(issue) + len(work)]
        sync = c[-1] * S if SYNC in prior else 0.0
        return a, b, sync

    def form(theta: np.ndarray) -> np.ndarray:
        a, b, sync = parts(theta)
        c = np.exp(theta[: len(names)])
        serial_a, serial_b = serial_i @ c[: len(issue)], serial_w @ c[len(issue) : len(issue) + len(work)]
        a, b = a - serial_a, b - serial_b  # what overlaps (all of it without a synchronisation)
        p = theta[-1]
        hi = np.maximum(np.maximum(a, b), 1e-30)
        smooth = hi * ((a / hi) ** p + (b / hi) ** p) ** (1.0 / p)
        return smooth + serial_a + serial_b + sync  # _synced(), for every step at once

    def residual(theta: np.ndarray) -> np.ndarray:
        own = np.log(np.maximum(form(theta), 1e-30)) - t
        _, b, _ = parts(theta)
        log_b = np.log(np.maximum(b[busy_at], 1e-30))
        # in logs, stretched_busy(): a launched step's busy time follows its measured step time halfway
        log_b = np.where(stretched, STRETCH * log_b + (1 - STRETCH) * np.maximum(t[busy_at], log_b), log_b)
        devices = BUSY_WEIGHT * (log_b - busy)
        return np.concatenate([own, devices, PRIOR_WEIGHT * (theta[: len(names)] - log_prior)])

    start = np.concatenate([log_prior, [2.0]])
    lower = np.concatenate([log_prior - 12, [1.0]])
    upper = np.concatenate([log_prior + 12, [16.0]])
    theta = least_squares(
        residual,
        start,
        bounds=(lower, upper),
        loss="soft_l1",
        f_scale=0.2,
        max_nfev=200,
        tr_solver="lsmr",
        x_scale="jac",
    ).x
    coef = dict(zip(names, np.exp(theta[: len(names)]).tolist()))
    coords = np.array([o.where for o in obs], dtype=float).reshape(len(obs), -1)
    scale = np.maximum(coords.std(axis=0), 0.25) if coords.size else np.ones(0)
    res = t - np.log(np.maximum(form(theta), 1e-30))
    groups = tuple(o.group for o in obs) if any(o.group is not None for o in obs) else ()
    return CostModel(
        device_kind, coef, float(theta[-1]), tuple(o.config for o in obs), coords, res, scale, len(obs), groups=groups
    )


def held_out(train: Sequence[Observation], test: Sequence[Observation], device_kind: str) -> list[float]:
    """|log(predicted / measured)| of every test step, from a model fitted to the train steps."""
    if len(train) < MIN_POINTS or not test:
        return []
    model = fit(train, device_kind)
    return [abs(math.log(model.predict(o.config, o.terms, o.where, o.group)[0] / o.seconds)) for o in test]


def validate(observations: Sequence[Observation], device_kind: str, folds: int = FOLDS, seed: int = 0) -> CostModel:
    """fit(), with held-out errors: per configuration from k-fold (each step predicted by a model
    fitted without its fold), and for unrecorded configurations by leaving each one out whole."""
    obs = [o for o in observations if o.seconds and o.seconds > 0 and math.isfinite(o.seconds)]
    model = fit(obs, device_kind)
    order = np.random.default_rng(seed).permutation(len(obs))
    per_config: dict[Hashable, list[float]] = {}
    for k in range(min(folds, len(obs))):
        held = set(order[k::folds].tolist())
        test = [obs[i] for i in sorted(held)]
        for o, e in zip(test, held_out([o for i, o in enumerate(obs) if i not in held], test, device_kind)):
            per_config.setdefault(o.config, []).append(e)
    unseen: list[float] = []
    configs = list(dict.fromkeys(o.config for o in obs))
    if len(configs) > 1:
        for config in configs:
            unseen += held_out(
                [o for o in obs if o.config != config], [o for o in obs if o.config == config], device_kind
            )
    return CostModel(
        model.device_kind,
        model.coef,
        model.sharpness,
        model.configs,
        model.coords,
        model.residuals,
        model.scale,
        model.points,
        {c: Error.of(e) for c, e in per_config.items()},
        Error.of(unseen) if unseen else None,
        model.groups,
    )
