"""A cost model of a step, fitted to recorded points, that predicts the points nobody recorded.

    model = fit(points)                    # points: [(launch terms, work terms, seconds)], one device and mode
    seconds, low, high = model.predict(launch, work)
    model.error                            # cross-validated: median and 90th percentile of |log(pred/true)|

The form follows how a step spends its time: issuing the work (a fixed cost plus a cost per
launch-like term: layers, backward passes, batches) and doing it (FLOPs over a throughput plus
bytes over a bandwidth). On a GPU the two overlap (the CPU queues kernels while the GPU runs
earlier ones), so the step takes about the larger of the two; on a CPU they add up. A smooth
maximum ((a^p + b^p)^(1/p)) covers both: p near 1 is a sum, a large p the larger term. Every
coefficient is >= 0, fitted by least squares on log time (times span decades: each point counts
alike). What the form misses is then taken from the nearest recorded points: each prediction is
corrected by a distance-weighted mean of their residuals, shrunk to nothing far from any of them.
The band is the cross-validated error (k-fold): the 90th percentile of |log error| either side.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

Terms = Mapping[str, float]
Point = tuple[Terms, Terms, float]  # launch terms, work terms, measured seconds

MIN_POINTS = 4
FOLDS = 5
NEIGHBOUR_SCALE = 0.75  # kernel width of the residual correction, in standard deviations of the log terms
SHRINK = 0.3  # weight of "no correction" against the neighbours' residuals


@dataclass(frozen=True)
class Error:
    """Cross-validated error of the model: |log(predicted / measured)| over held-out points."""

    median: float
    p90: float
    points: int  # how many held-out predictions these come from

    @property
    def median_factor(self) -> float:
        return math.exp(self.median)

    @property
    def p90_factor(self) -> float:
        return math.exp(self.p90)


@dataclass(frozen=True)
class CostModel:
    launch_names: tuple[str, ...]
    work_names: tuple[str, ...]
    launch_coef: tuple[float, ...]
    work_coef: tuple[float, ...]
    sharpness: float  # p of the smooth maximum
    coords: np.ndarray  # log terms of the fitted points (for the residual correction)
    residuals: np.ndarray  # log(measured / form) at the fitted points
    scale: np.ndarray  # standard deviation of each log term
    error: Error
    points: int

    def form(self, launch: Terms, work: Terms) -> float:
        a = sum(c * float(launch.get(n, 0.0)) for n, c in zip(self.launch_names, self.launch_coef))
        b = sum(c * float(work.get(n, 0.0)) for n, c in zip(self.work_names, self.work_coef))
        return _smooth_max(a, b, self.sharpness)

    def correction(self, launch: Terms, work: Terms) -> float:
        """The log-residual the nearest recorded points suggest here (0 far from all of them)."""
        if not len(self.residuals):
            return 0.0
        x = _coords([launch], [work], self.launch_names, self.work_names)[0]
        d2 = (((self.coords - x) / self.scale) ** 2).sum(axis=1)
        w = np.exp(-d2 / (2 * NEIGHBOUR_SCALE**2))
        return float((w * self.residuals).sum() / (w.sum() + SHRINK))

    def predict(self, launch: Terms, work: Terms) -> tuple[float, float, float]:
        """(seconds, low, high): the prediction and its band."""
        seconds = self.form(launch, work) * math.exp(self.correction(launch, work))
        return seconds, seconds * math.exp(-self.error.p90), seconds * math.exp(self.error.p90)


def _smooth_max(a: float, b: float, p: float) -> float:
    if a <= 0 or b <= 0:
        return max(a, b, 1e-12)
    hi = max(a, b)
    return hi * ((a / hi) ** p + (b / hi) ** p) ** (1.0 / p)


def _coords(launches: Sequence[Terms], works: Sequence[Terms], launch_names, work_names) -> np.ndarray:
    rows = [[math.log(max(float(l.get(n, 0.0)), 1e-30)) for n in launch_names if n != "1"]
            + [math.log(max(float(w.get(n, 0.0)), 1e-30)) for n in work_names if n != "1"]
            for l, w in zip(launches, works)]
    return np.asarray(rows, dtype=float).reshape(len(rows), -1)


def _fit_form(points: Sequence[Point], launch_names: tuple[str, ...], work_names: tuple[str, ...]):
    from scipy.optimize import least_squares

    L = np.array([[float(l.get(n, 0.0)) for n in launch_names] for l, _, _ in points])
    W = np.array([[float(w.get(n, 0.0)) for n in work_names] for _, w, _ in points])
    t = np.array([s for _, _, s in points])
    # Coefficients in units that make every term about 1 at a typical point: well conditioned.
    unit_l = np.where(L.max(axis=0) > 0, np.median(t) / np.maximum(L.max(axis=0), 1e-30), 1.0)
    unit_w = np.where(W.max(axis=0) > 0, np.median(t) / np.maximum(W.max(axis=0), 1e-30), 1.0)

    def model(theta: np.ndarray) -> np.ndarray:
        a = L @ (theta[: L.shape[1]] * unit_l)
        b = W @ (theta[L.shape[1]: -1] * unit_w)
        p = theta[-1]
        hi = np.maximum(np.maximum(a, b), 1e-30)
        return hi * ((a / hi) ** p + (b / hi) ** p) ** (1.0 / p)

    def residual(theta: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(model(theta), 1e-30)) - np.log(t)

    start = np.concatenate([np.full(L.shape[1], 0.5), np.full(W.shape[1], 0.5), [2.0]])
    lower = np.concatenate([np.zeros(L.shape[1] + W.shape[1]), [1.0]])
    upper = np.concatenate([np.full(L.shape[1] + W.shape[1], np.inf), [16.0]])
    fit = least_squares(residual, start, bounds=(lower, upper), loss="soft_l1", f_scale=0.2, max_nfev=400)
    theta = fit.x
    return (tuple(theta[: L.shape[1]] * unit_l), tuple(theta[L.shape[1]: -1] * unit_w), float(theta[-1]),
            residual(theta))


def fit(points: Sequence[Point], *, cross_validate: bool = True) -> CostModel:
    """Fit the form, keep the residuals for the correction, and cross-validate (k-fold)."""
    points = [p for p in points if p[2] and p[2] > 0 and math.isfinite(p[2])]
    if len(points) < MIN_POINTS:
        raise ValueError(f"a cost model needs at least {MIN_POINTS} measured points, got {len(points)}")
    launch_names = tuple(sorted({n for l, _, _ in points for n in l}))
    work_names = tuple(sorted({n for _, w, _ in points for n in w}))
    lc, wc, p, res = _fit_form(points, launch_names, work_names)
    coords = _coords([l for l, _, _ in points], [w for _, w, _ in points], launch_names, work_names)
    scale = np.maximum(coords.std(axis=0), 0.25) if coords.size else np.ones(0)
    model = CostModel(launch_names, work_names, lc, wc, p, coords, -res, scale, Error(0.0, 0.0, 0), len(points))
    if not cross_validate:
        return model
    errors = holdout_errors(points)
    error = Error(float(np.median(errors)), float(np.quantile(errors, 0.9)), len(errors)) if errors else Error(0, 0, 0)
    return CostModel(launch_names, work_names, lc, wc, p, coords, -res, scale, error, len(points))


def holdout_errors(points: Sequence[Point], folds: int = FOLDS, seed: int = 0) -> list[float]:
    """|log(predicted / measured)| of every point, each predicted by a model fitted without its fold."""
    order = np.random.default_rng(seed).permutation(len(points))
    folds = min(folds, len(points))
    errors = []
    for k in range(folds):
        held = set(order[k::folds].tolist())
        train = [p for i, p in enumerate(points) if i not in held]
        if len(train) < MIN_POINTS:
            continue
        model = fit(train, cross_validate=False)
        for i in held:
            launch, work, seconds = points[i]
            errors.append(abs(math.log(model.predict(launch, work)[0] / seconds)))
    return errors
