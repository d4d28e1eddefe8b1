"""Where the GPU starts to win: the break-even point of a sweep, and a straight line per curve.

Crossover: the smallest swept value at which the GPU is at least as fast as the CPU, found
between the two grid points that bracket it by interpolating log(time ratio) against log(x).

Work line (WorkLine), per device: time = overhead + work / throughput, fitted by least squares on
relative error (times span decades, so each point counts alike). It predicts where the lines
meet; what holds one step back (four regimes, from its profile and the GPU's measured ceilings) is
lib.lessons.common.verdict's, never this fit's two terms.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lib.core import noise
from lib.core.rows import is_ok


class CrossKind(str, enum.Enum):
    """How the two curves of a sweep relate. A str only so it reaches JSON as its value; code compares members."""

    CROSSES = "crosses"  # the CPU is faster at small values, the GPU from some value on
    CROSSES_BACK = "crosses_back"  # the GPU is faster at small values, the CPU from some value on
    MIXED = "mixed"  # the lead changes hands more than once
    GPU_WINS = "gpu_wins"  # the GPU is at least as fast at every value measured on both
    CPU_WINS = "cpu_wins"  # the CPU is faster at every value measured on both
    ONE_DEVICE = "one_device"
    TOO_FEW_POINTS = "too_few_points"

    def __str__(self) -> str:
        return self.value


class Lead(str, enum.Enum):
    """Who is faster at a point: the second curve given to find_crossover (GPU) or the first (CPU)."""

    GPU = "gpu"
    CPU = "cpu"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Crossover:
    """Where the curves cross, with how sure that is.

    x: the most likely break-even value (log-log interpolation of the medians), for CROSSES and
    CROSSES_BACK; bracket: the measured values on either side of it; sure: the range outside which
    the spread of both curves leaves no doubt who is faster (low = the last value where the trailing
    side was surely slower, high = the first value where the leading side surely leads, the ends of
    the measured range where no such value was measured); crossings: every change of lead as (x below,
    x above, who leads above); span: the first and last values measured on both; ties: the values where
    the two are too close to call (lib.core.noise.is_tie) or a point is doubtful; shared: every value measured on both;
    doubtful: the values where a point of either curve is not believed (lib.core.noise.doubtful: its own
    spread), drawn hollow, counted among the ties unless the gap is noise.NEVER_CLOSE or more;
    doubtful_cpu / doubtful_gpu: the same for each curve alone (a sentence names whose point it is);
    lone: the values whose lead neither neighbour confirms, by less than noise.CONFIRM_RATIO, counted
    among the ties."""

    kind: CrossKind
    x: float | None
    bracket: tuple[float, float] | None = None
    sure: tuple[float | None, float | None] | None = None
    crossings: tuple[tuple[float, float, Lead], ...] = ()
    span: tuple[float, float] | None = None
    ties: tuple[float, ...] = ()
    shared: tuple[float, ...] = ()
    doubtful: tuple[float, ...] = ()
    lone: tuple[float, ...] = ()
    doubtful_cpu: tuple[float, ...] = ()
    doubtful_gpu: tuple[float, ...] = ()

    @property
    def noisy_only(self) -> bool:
        """Whether every point that decides a lead here is one the noise rule does not believe: then the
        verdict rests on noise alone, and a sentence says it is too noisy to tell rather than give it."""
        clear = [x for x in self.shared if x not in self.ties]
        return bool(clear) and all(x in self.doubtful for x in clear)


def _interp_x(x0: float, x1: float, r0: float, r1: float) -> float:
    """x where the log-ratio r crosses zero between (x0, r0) and (x1, r1); log-x when possible."""
    frac = r0 / (r0 - r1) if r0 != r1 else 0.0
    if x0 > 0 and x1 > 0:
        return math.exp(math.log(x0) + frac * (math.log(x1) - math.log(x0)))
    return x0 + frac * (x1 - x0)


def _unconfirmed(judged: list[tuple[float, Lead, bool, float]]) -> set[float]:
    """The points inside the range whose clear lead differs from the clear point before or after it
    while neither neighbour on the chart shows the same lead, by less than noise.CONFIRM_RATIO: one stray point
    never makes a change of lead. Set aside one at a time, the smallest gap first."""
    lone: set[float] = set()
    while True:
        clear = [i for i, j in enumerate(judged) if j[2] and j[0] not in lone]
        mine = set(clear)
        doubtful = []
        for n, i in enumerate(clear):
            sides = [clear[m] for m in (n - 1, n + 1) if 0 <= m < len(clear)]
            if i in (0, len(judged) - 1) or not any(judged[j][1] != judged[i][1] for j in sides):
                continue  # an end of the range has one neighbour to ask; or it changes nothing
            if any(j in mine and judged[j][1] == judged[i][1] for j in (i - 1, i + 1)):
                continue  # a neighbour confirms it
            if math.exp(abs(judged[i][3])) < noise.CONFIRM_RATIO:
                doubtful.append((abs(judged[i][3]), judged[i][0]))
        if not doubtful:
            return lone
        lone.add(min(doubtful)[1])


def find_crossover(
    xs: Sequence[float],
    cpu_s: Sequence[float],
    gpu_s: Sequence[float],
    cpu_spread: Sequence[float] | None = None,
    gpu_spread: Sequence[float] | None = None,
    doubtful: Iterable[float] | None = None,
    *,
    cpu_doubtful: Iterable[float] | None = None,
    gpu_doubtful: Iterable[float] | None = None,
) -> Crossover:
    """xs with the time (and optionally the IQR) at each on both devices; points missing or not
    positive on either device are dropped. Never extrapolates: only the measured range speaks.

    The noise rule (lib.core.noise.decides) decides: a point where the two are too close to call, or
    where either curve's point is not believed and the gap is under noise.NEVER_CLOSE, leads nobody.
    Which points are not believed: `cpu_doubtful` / `gpu_doubtful` (x values of each curve), by default
    those lib.core.noise.doubtful finds on each curve's points given; `doubtful`: more x values, of
    either curve. The lead changes only between two points that each
    have a clear leader; `sure` is that pair, and the most likely value `x` is where the medians
    swap between them (None where they swap back and forth)."""
    n = len(xs)
    cs = list(cpu_spread) if cpu_spread is not None else [0.0] * n
    gs = list(gpu_spread) if gpu_spread is not None else [0.0] * n
    points = sorted(
        (float(x), float(c), float(g), float(a or 0.0), float(b or 0.0))
        for x, c, g, a, b in zip(xs, cpu_s, gpu_s, cs, gs)
        if c is not None and g is not None and c > 0 and g > 0 and not (math.isnan(c) or math.isnan(g))
    )
    if not points:
        return Crossover(CrossKind.TOO_FEW_POINTS, None)
    xs_here = [p[0] for p in points]
    if cpu_doubtful is None:
        cpu_doubtful = noise.doubtful(xs_here, [p[1] for p in points], [p[3] for p in points])
    if gpu_doubtful is None:
        gpu_doubtful = noise.doubtful(xs_here, [p[2] for p in points], [p[4] for p in points])
    doubt_cpu, doubt_gpu = {float(x) for x in cpu_doubtful}, {float(x) for x in gpu_doubtful}
    doubt = doubt_cpu | doubt_gpu | {float(x) for x in doubtful or ()}
    # (x, who leads by the medians, whether that lead is clear, log(gpu / cpu))
    judged = [
        (x, Lead.GPU if g <= c else Lead.CPU, noise.decides(c, g, a, b, x in doubt), math.log(g / c))
        for x, c, g, a, b in points
    ]
    lone = _unconfirmed(judged)
    judged = [(x, who, clear and x not in lone, r) for x, who, clear, r in judged]
    span = (points[0][0], points[-1][0])
    ties = tuple(x for x, _, clear, _ in judged if not clear)
    shared = tuple(x for x, *_ in judged)
    marked = tuple(x for x in shared if x in doubt)
    clear = [i for i, j in enumerate(judged) if j[2]]
    changes = [(a, b) for a, b in zip(clear, clear[1:]) if judged[a][1] != judged[b][1]]
    crossings = tuple((judged[a][0], judged[b][0], judged[b][1]) for a, b in changes)
    base = dict(
        span=span,
        ties=ties,
        shared=shared,
        doubtful=marked,
        lone=tuple(sorted(lone)),
        doubtful_cpu=tuple(x for x in shared if x in doubt_cpu),
        doubtful_gpu=tuple(x for x in shared if x in doubt_gpu),
    )
    if not changes:
        first = judged[clear[0]] if clear else judged[0]
        return Crossover(CrossKind.GPU_WINS if first[1] == Lead.GPU else CrossKind.CPU_WINS, None, **base)
    if len(changes) > 1:
        return Crossover(CrossKind.MIXED, None, crossings=crossings, **base)
    lo, hi = changes[0]
    kept = [i for i in range(lo, hi + 1) if judged[i][2] or judged[i][0] not in doubt]
    swaps = [(a, b) for a, b in zip(kept, kept[1:]) if judged[a][1] != judged[b][1]]
    kind = CrossKind.CROSSES if judged[hi][1] == Lead.GPU else CrossKind.CROSSES_BACK
    sure = (judged[lo][0], judged[hi][0])
    if len(swaps) != 1:  # the medians swap back and forth between the two clear points: no one value
        return Crossover(kind, None, sure, sure, crossings, **base)
    a, b = swaps[0]
    x = _interp_x(judged[a][0], judged[b][0], judged[a][3], judged[b][3])
    return Crossover(kind, x, (judged[a][0], judged[b][0]), sure, crossings, **base)


@dataclass(frozen=True)
class WorkLine:
    """One device's time as a fixed cost plus a cost per unit of work (a curve's straight-line fit);
    the machine's cost model over kernels and bytes is lib.core.costmodel.CostModel."""

    overhead_s: float
    seconds_per_work: float  # 1 / throughput

    @property
    def throughput(self) -> float:
        return 1.0 / self.seconds_per_work if self.seconds_per_work > 0 else math.inf

    def predict(self, work: float) -> float:
        return self.overhead_s + self.seconds_per_work * work


def fit_work_line(work: Sequence[float], times_s: Sequence[float]) -> WorkLine:
    """Least squares on relative error of t ≈ a + b·w with a, b >= 0."""
    # below a femtosecond no step was timed, and 1/t² would overflow (a pack saying 1e-300 s)
    pts = [
        (float(w), float(t)) for w, t in zip(work, times_s) if t is not None and t >= 1e-15 and w is not None and w >= 0
    ]
    if not pts:
        raise ValueError("no measured points to fit")
    lo, hi = min(w for w, _ in pts), max(w for w, _ in pts)
    if hi <= 0 or (hi - lo) <= 1e-9 * hi:
        # Every point did the same work (e.g. dataset_size at a fixed batch): only a fixed cost fits.
        return WorkLine(sum(1 / t for _, t in pts) / sum(1 / t**2 for _, t in pts), 0.0)
    pts = [(w / hi, t) for w, t in pts]  # work in units of the largest: keeps the equations well conditioned
    model = _fit_scaled(pts)
    return WorkLine(model.overhead_s, model.seconds_per_work / hi)


def _fit_scaled(pts: list[tuple[float, float]]) -> WorkLine:
    # Weighted normal equations with weights 1/t²: minimise Σ((a + b w - t) / t)².
    sw = sum(1 / t**2 for _, t in pts)
    swx = sum(w / t**2 for w, t in pts)
    swxx = sum(w * w / t**2 for w, t in pts)
    swy = sum(1 / t for _, t in pts)
    swxy = sum(w / t for w, t in pts)
    det = sw * swxx - swx * swx
    if len(pts) >= 2 and det > 0:
        a = (swxx * swy - swx * swxy) / det
        b = (sw * swxy - swx * swy) / det
    else:
        a, b = -1.0, -1.0
    if a >= 0 and b >= 0:
        return WorkLine(a, b)
    # Boundary solutions: pure overhead (b = 0) or pure throughput (a = 0); keep the better one.
    only_a = WorkLine(swy / sw, 0.0)
    only_b = WorkLine(0.0, swxy / swxx if swxx > 0 else 0.0)

    def loss(m: WorkLine) -> float:
        return sum(((m.predict(w) - t) / t) ** 2 for w, t in pts)

    return min((only_a, only_b), key=loss)


def predicted_crossover_work(cpu: WorkLine, gpu: WorkLine) -> float | None:
    """Work at which the two fitted lines meet (GPU: more overhead, more throughput), or None."""
    if gpu.seconds_per_work >= cpu.seconds_per_work:
        return None
    work = (gpu.overhead_s - cpu.overhead_s) / (cpu.seconds_per_work - gpu.seconds_per_work)
    return work if work > 0 else None


def work_to_x(work: float, xs: Sequence[float], works: Sequence[float]) -> float | None:
    """Map a work amount back to the swept setting by log-log interpolation over the grid."""
    pts = sorted((float(w), float(x)) for x, w in zip(xs, works) if w > 0 and x > 0)
    if len(pts) < 2 or work <= 0:
        return None
    for (w0, x0), (w1, x1) in zip(pts, pts[1:]):
        if w0 <= work <= w1 and w1 > w0:
            f = (math.log(work) - math.log(w0)) / (math.log(w1) - math.log(w0))
            return math.exp(math.log(x0) + f * (math.log(x1) - math.log(x0)))
    # Outside the grid: extrapolate along the last (or first) segment.
    (w0, x0), (w1, x1) = (pts[-2], pts[-1]) if work > pts[-1][0] else (pts[0], pts[1])
    if w1 == w0:
        return None
    slope = (math.log(x1) - math.log(x0)) / (math.log(w1) - math.log(w0))
    return math.exp(math.log(x0) + slope * (math.log(work) - math.log(w0)))


@dataclass
class SweepAnalysis:
    setting: str
    cpu_device: str
    gpu_device: str
    measured: Crossover
    cpu_model: WorkLine | None
    gpu_model: WorkLine | None
    predicted_x: float | None


def spread(row: dict, time_key: str = "median_s") -> float:
    """How uncertain a row's time is: its prediction band where it was predicted, else its IQR
    (scaled to an epoch when the time is one)."""
    low, high = row.get(f"{time_key}_low"), row.get(f"{time_key}_high")
    if isinstance(low, (int, float)) and isinstance(high, (int, float)):
        return float(high) - float(low)
    iqr = row.get("iqr_s") or 0.0
    return float(iqr) * float(row.get("steps_per_epoch") or 1) if time_key == "epoch_s" else float(iqr)


def curve_doubt(by_x: dict[float, dict], time_key: str = "median_s") -> set[float]:
    """The x values of one curve (its rows by x) whose point the noise rule does not believe: each judged
    by its own spread (lib.core.noise.doubtful)."""
    xs = sorted(by_x)
    return noise.doubtful(xs, [by_x[x][time_key] for x in xs], [spread(by_x[x], time_key) for x in xs])


def swept_problem(rows: Iterable[tuple[int, dict]], setting: str) -> str | None:
    """Why rows (each with its index in its pack) cannot be read as a sweep over `setting`, naming the
    first bad field; or None. analyse_rows reads a number from every row's swept setting."""
    for i, row in rows:
        if setting not in row:
            if row.get("swept") == setting:
                return f"rows[{i}].swept: names '{setting}', a setting this row does not have"
            return f"rows[{i}].{setting}: missing (the crossover reads the swept setting of every row)"
        value = row[setting]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            return f"rows[{i}].{setting}: the swept setting must be a number, got {shown}"
    return None


def analyse_rows(rows: list[dict], setting: str | None = None, time_key: str = "median_s") -> SweepAnalysis:
    """Crossover and work lines for the ok rows of one sweep (one workload, one swept setting).

    The CPU is the 'cpu' device; the GPU the first other device present."""
    ok = [r for r in rows if is_ok(r, time_key)]
    if setting is None:
        swept = {r.get("swept") for r in rows if r.get("swept")}
        if len(swept) != 1:
            raise ValueError("say which setting was swept (the rows do not name exactly one)")
        setting = swept.pop()
    devices = list(dict.fromkeys(r["device"] for r in ok))
    cpu = next((d for d in devices if d == "cpu" or d.startswith("cpu")), None)
    gpu = next((d for d in devices if d != cpu), None)
    by_dev: dict[str, dict[float, dict]] = {}
    for r in ok:
        by_dev.setdefault(r["device"], {})[float(r[setting])] = r
    models: dict[str, WorkLine] = {}
    for dev, pts in by_dev.items():
        xs = sorted(pts)
        try:
            model = fit_work_line([pts[x].get("flops", x) or x for x in xs], [pts[x][time_key] for x in xs])
        except ValueError:
            continue
        models[dev] = model
    if cpu is None or gpu is None:
        kind = CrossKind.ONE_DEVICE if len(devices) == 1 else CrossKind.TOO_FEW_POINTS
        return SweepAnalysis(
            setting, cpu or "", gpu or "", Crossover(kind, None), models.get(cpu), models.get(gpu), None
        )
    common = sorted(set(by_dev[cpu]) & set(by_dev[gpu]))
    measured = find_crossover(
        common,
        [by_dev[cpu][x][time_key] for x in common],
        [by_dev[gpu][x][time_key] for x in common],
        [spread(by_dev[cpu][x], time_key) for x in common],
        [spread(by_dev[gpu][x], time_key) for x in common],
        cpu_doubtful=curve_doubt(by_dev[cpu], time_key),
        gpu_doubtful=curve_doubt(by_dev[gpu], time_key),
    )
    predicted = None
    if cpu in models and gpu in models:
        work = predicted_crossover_work(models[cpu], models[gpu])
        if work is not None:
            xs = sorted(by_dev[gpu])
            predicted = work_to_x(work, xs, [by_dev[gpu][x].get("flops", x) or x for x in xs])
    return SweepAnalysis(setting, cpu, gpu, measured, models.get(cpu), models.get(gpu), predicted)
