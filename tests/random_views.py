"""Support for tests/test_random_views.py: random views of every page, read back as a visitor sees them.

Three parts, each usable alone:

- `NoisyCpu` (with `stand_in_timeline` for the one-step timeline): the live CPU replaced by a seeded, noisy stand-in at the seam every live measurement
  goes through (lib.core.sweep's `_timed` / `_profiled`, with `light_step` for the build: the
  step's phases and units from the workload's own arithmetic; the gate's refusals are real). Each point's time is a smooth function of its
  FLOPs and bytes times a factor drawn from a generator seeded by (seed, point): most points within
  ±5 %, some (NOISY_SHARE) anywhere within ±50 % with an IQR to match. The measuring process is
  replaced by an in-process runner of the same interface, so the stand-in is what the job calls. The Seed cases'
  loss curves are real training, once a process for each case (`trained_once`).
- `Declared`: each page's own settings, as the page declares them to ui.url_settings.UrlSettings
  (every select_slider, slider, toggle, radio, selectbox and pills, with their options, the
  sidebar's GPU included), and `draw_view` which picks one value of each with a seeded RNG.
- `Reading`: what an opened page says (its sentences) and draws (every row of every Vega-Lite
  dataset of every chart), which the checkers in tests/view_checks.py compare.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from lib.core.point import Point
from lib.core.rows import Status

NOISY_SHARE = 0.25  # points whose time is off by up to ±50 %
WILD = 0.5
CALM = 0.05


def _unit_draw(seed: int, *parts: Any) -> random.Random:
    digest = hashlib.sha256(json.dumps([seed, *parts], sort_keys=True, default=str).encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def stand_in_seconds(row: dict[str, Any], seed: int) -> tuple[float, float]:
    """(median, IQR) of one point: launch-ish overhead + FLOPs at 20 GFLOP/s + bytes at 5 GB/s, times noise."""
    base = 30e-6 + float(row.get("flops") or 0.0) / 20e9 + float(row.get("bytes") or 0.0) / 5e9
    point = {
        k: v
        for k, v in row.items()
        if k
        not in ("median_s", "iqr_s", "repeats", "status", "message", "flops", "bytes", "peak_memory_estimate_bytes")
    }
    rng = _unit_draw(seed, point)
    if rng.random() < NOISY_SHARE:
        factor, spread = 1.0 + rng.uniform(-WILD, WILD), rng.uniform(0.1, WILD)
    else:
        factor, spread = 1.0 + rng.uniform(-CALM, CALM), rng.uniform(0.005, CALM)
    median = base * factor
    return median, median * spread


class NoisyCpu:
    """The seeded stand-in for lib.core.sweep's timing and profiling of one built step."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.points = 0

    def timed(self, point: Point, step, device: str, timing) -> Point:
        # the same fields, in the same way, as lib.core.sweep._timed puts them in the point
        self.points += 1
        median, iqr = stand_in_seconds(point.to_row(), self.seed)
        point = replace(point, median_s=median, iqr_s=iqr, repeats=5, cold_s=median * 3)
        point = point.with_counts(calls_per_repeat=1, num_threads=timing.num_threads or 1)
        if median > 0:
            point = point.with_counts(achieved_flops_per_s=point.counts.flops / median)
        point = point.reported(step.units)
        if "steps_per_epoch" in step.units:
            point = replace(point, epoch_s=median * step.units["steps_per_epoch"])
        if timing.with_phases and step.phases:
            share = 0.8 / len(step.phases)
            point = replace(
                point,
                phases=point.phases.with_(**{name: median * share for name in step.phases}, overhead=median * 0.2),
            )
        point = point.reported({k: v for k, v in step.extras.fields().items() if not point.carries(k)})
        if iqr / median > 0.5:
            point = replace(point, message=f"noisy: the spread (IQR) is {iqr / median:.0%} of the median")
        return point

    def profiled(self, point: Point, step, device: str, num_threads: int | None) -> Point:
        rng = _unit_draw(self.seed, "profile", point.workload, point.device, point.median_s)
        return point.with_counts(
            kernels=float(rng.randint(20, 200)), device_busy_s=float(point.median_s * rng.uniform(0.3, 0.9))
        )


def stand_in_timeline(seed: int):
    """lib.core.timeline.record_timeline's stand-in: a seeded CPU thread of operators and gaps, reduced by
    the real lib.core.timeline.figures (so the page's words about it come from the real code)."""
    from lib.core.step_timeline import EventKind, TimelineEvent, TimelineStep
    from lib.core.timeline import figures

    def record(run, device: str, *, steps: int = 3, warmup: int = 3, before_step=None) -> list[TimelineStep]:
        reduced = []
        for i in range(steps):
            if before_step:
                before_step(warmup + i, warmup + steps)
            rng = _unit_draw(seed, "timeline", device, i)
            events, at = [], 0.0
            for n in range(rng.randint(20, 120)):
                at += rng.uniform(0.5, 8.0)
                length = rng.uniform(1.0, 30.0)
                events.append(TimelineEvent("CPU: thread", f"aten::op{n % 7}", EventKind.OPERATOR, at, at + length))
                at += length
            reduced.append(TimelineStep(tuple(events), figures(events, at + 2.0, []), at + 2.0))
        return reduced

    return record


def _noop() -> None:
    pass


@contextmanager
def light_step(workload, settings, device: str):
    """lib.core.workload.built_step's stand-in: the step's shape (its phases and units, as each workload's
    build gives them, from the workload's own arithmetic) without its tensors, which the stand-in never runs.
    Building real steps (matrices of 8,192², datasets of a million rows) made a view take seconds here."""
    from lib.core.workload import Step

    phases: dict[str, Any] = {}
    units: dict[str, float] = {}
    if workload.name == "mlp":
        units["steps_per_epoch"] = workload.steps_per_epoch(settings)
        phases = {"compute": _noop} if settings["data_resident"] else {"transfer": _noop, "compute": _noop}
    elif workload.name == "dataloader":
        units["batches_per_epoch"] = workload.batches_per_epoch(settings)
        phases = {"loading": _noop, "compute": _noop}
    elif workload.name == "matmul" and settings["transfer"] and str(device).startswith("cuda"):
        phases = {"transfer": _noop, "compute": _noop}
    yield Step(run=_noop, phases=phases, units=units)


_TRAINED: dict[tuple[str, str, int | None], Any] = {}  # (case, device, threads) -> its loss curve, per process


def trained_once(run_curve):
    """lib.lessons.seed_cases.curves.run_curve, trained once a test process for each case, device and thread count:
    a curve is real training from seeded weights, so a second view of the same case would train the same losses
    again (1-2 s a view on the 2-core box). A curve the gate refused or that failed is not kept."""

    def train(preset, device: str, num_threads: int | None = None, gate=None):
        key = (getattr(preset, "name", preset), device, num_threads)
        if key not in _TRAINED:
            curve = run_curve(preset, device, num_threads=num_threads, gate=gate)
            if curve.status != Status.OK:
                return curve
            _TRAINED[key] = curve
        return _TRAINED[key]

    return train


class InProcessWorker:
    """lib.core.worker.MeasureWorker's interface, running the job here (so the stand-in above is what it times)."""

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def run(self, job, progress=None, on_point=None):
        return job(**({"progress": progress} if progress else {}), **({"on_point": on_point} if on_point else {}))


@contextmanager
def noisy_live_cpu(seed: int) -> Iterator[NoisyCpu]:
    """Every live measurement in the body is timed by NoisyCpu(seed), in this process; a Seed cases loss curve is
    trained for real, once a process for each case (trained_once)."""
    import pytest

    import lib.core.sweep as sweep
    import lib.core.timeline as timeline
    import lib.core.workload as workload

    # Modules that bind built_step by name when first imported: imported here first, or a first import inside
    # the patch below keeps the stand-in for the rest of the process. Seed cases' live loss curves (real
    # training, not timing) then failed as 'keeps no loss per epoch' in one run and trained in another,
    # depending on which test imported lib.workloads.training first.
    import lib.lessons.common.live
    import lib.lessons.seed_cases.view as seed_cases
    import lib.workloads.training  # noqa: F401
    import ui.measure

    cpu = NoisyCpu(seed)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(seed_cases, "run_curve", trained_once(seed_cases.run_curve))
        mp.setattr(sweep, "_timed", cpu.timed)
        mp.setattr(sweep, "_profiled", cpu.profiled)
        mp.setattr(timeline, "record_timeline", stand_in_timeline(seed))
        mp.setattr(sweep, "built_step", light_step)
        mp.setattr(workload, "built_step", light_step)
        mp.setattr(ui.measure, "MEASURE_WORKER", InProcessWorker())
        mp.setenv("GPUWIN_NO_WARM_UP", "1")
        yield cpu


# -- the settings each page declares -------------------------------------------------------------------------


@dataclass
class Setting:
    """One URL-bound widget as a page declared it: its URL key and every value it offers, as URL text."""

    key: str
    kind: str  # select_slider, slider, toggle, radio, selectbox, pills
    choices: list[str]


@dataclass
class Declared:
    """URL key -> Setting, per widget namespace ('training', 'app' for the sidebar), as pages declared them."""

    by_namespace: dict[str, dict[str, Setting]] = field(default_factory=dict)

    def add(self, namespace: str, setting: Setting) -> None:
        self.by_namespace.setdefault(namespace, {})[setting.key] = setting

    def settings(self, namespaces: Sequence[str]) -> list[Setting]:
        return [s for ns in namespaces for s in self.by_namespace.get(ns, {}).values()]


@contextmanager
def declared_settings() -> Iterator[Declared]:
    """Record every UrlSettings widget pages make in the body (the pages' own declarations)."""
    import pytest

    from ui.url_settings import UrlSettings, serialize

    declared = Declared()

    def wrap(kind: str, choices_of, method: str | None = None):
        real = getattr(UrlSettings, method or kind)

        def recording(self, key, *args, **kwargs):
            declared.add(self.namespace, Setting(key, kind, choices_of(*args, **kwargs)))
            return real(self, key, *args, **kwargs)

        return recording

    def options(label, options, default, **_):
        return [serialize(o) for o in options]

    def integers(label, min_value, max_value, default, *, step=1, **_):
        return [str(v) for v in range(min_value, max_value + 1, step)]

    with pytest.MonkeyPatch.context() as mp:
        for kind, choices_of in (
            ("select_slider", options),
            ("radio", options),
            ("selectbox", options),
            ("pills", options),
            ("slider", integers),
            ("toggle", lambda label, default, **_: ["true", "false"]),
        ):
            mp.setattr(UrlSettings, kind, wrap(kind, choices_of))
        # a radio not drawn (the sidebar's GPU picker, closed) is declared by the value it holds
        mp.setattr(
            UrlSettings, "held", wrap("radio", lambda options, default, **_: [serialize(o) for o in options], "held")
        )
        yield declared


def draw_view(rng: random.Random, settings: Sequence[Setting]) -> dict[str, str]:
    """One value of every setting: sliders, switches, modes and the GPU, each drawn evenly from what it offers."""
    query = {}
    for s in settings:
        if not s.choices:
            continue
        if s.kind == "pills":
            picked = rng.sample(s.choices, rng.randint(1, len(s.choices)))
            query[s.key] = ",".join(c for c in s.choices if c in picked)
        else:
            query[s.key] = rng.choice(s.choices)
    return query


# -- what a page says and draws --------------------------------------------------------------------------------

TEXT_KINDS = ("markdown", "caption", "info", "warning", "error", "success")


@dataclass
class Chart:
    """One chart's rows (every dataset of its spec) and the names of its series (its colour domain)."""

    rows: list[dict[str, Any]]
    series: list[str]
    hollow: bool = False  # it draws points hollow (unfilled, no shape of their own): what '(hollow)' points at
    spec: dict[str, Any] = field(default_factory=dict)  # the Vega-Lite spec: which mark draws which dataset
    datasets: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # its named datasets' rows


@dataclass
class Reading:
    """An opened view: its URL, its sentences, its charts and its settings."""

    page: str
    query: dict[str, str]
    texts: list[str]
    charts: list[Chart]
    headline: str = ""  # the answer above the first chart (every page's first markdown in the main area)

    @property
    def url(self) -> str:
        return (
            "/"
            + self.page.removeprefix("pages/").removesuffix(".py")
            + "?"
            + "&".join(f"{k}={v}" for k, v in self.query.items())
        )

    def numbers_drawn(self) -> list[float]:
        return [v for c in self.charts for r in c.rows for v in _numbers_in(r.values())]

    def words_drawn(self) -> set[str]:
        return {v for c in self.charts for r in c.rows for v in r.values() if isinstance(v, str)} | {
            s for c in self.charts for s in c.series
        }


def _numbers_in(values) -> Iterator[float]:
    for v in values:
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, (int, float)) and math.isfinite(v):
            yield float(v)


def _draws_hollow(spec: dict[str, Any]) -> bool:
    """Whether a layer draws points unfilled without a shape encoding (a memory chart's status shapes are
    unfilled too, but they are crosses and squares, not the hollow dots the sentences point at)."""

    def layers(node: Any) -> Iterator[dict]:
        if isinstance(node, dict):
            if "mark" in node:
                yield node
            for value in node.values():
                yield from layers(value)
        elif isinstance(node, list):
            for value in node:
                yield from layers(value)

    return any(
        isinstance(layer["mark"], dict)
        and layer["mark"].get("filled") is False
        and "shape" not in (layer.get("encoding") or {})
        for layer in layers(spec)
    )


def _series_of(spec: dict[str, Any]) -> list[str]:
    names: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            enc = node.get("encoding")
            if isinstance(enc, dict):
                for channel in ("color", "strokeDash", "shape"):
                    domain = (
                        (enc.get(channel) or {}).get("scale", {}).get("domain")
                        if isinstance(enc.get(channel), dict)
                        else None
                    )
                    if isinstance(domain, list):
                        names.extend(str(d) for d in domain)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return list(dict.fromkeys(names))


def chart_of(element) -> Chart:
    """A Vega-Lite chart element's rows: the spec's inline datasets and the element's Arrow datasets."""
    spec = json.loads(element.proto.spec)
    rows: list[dict[str, Any]] = []
    datasets: dict[str, list[dict[str, Any]]] = {}
    for name, values in (spec.get("datasets") or {}).items():
        datasets[name] = [r for r in values if isinstance(r, dict)]
        rows += datasets[name]

    def inline(node: Any) -> None:
        if isinstance(node, dict):
            data = node.get("data")
            if isinstance(data, dict) and isinstance(data.get("values"), list):
                rows.extend(r for r in data["values"] if isinstance(r, dict))
            for value in node.values():
                inline(value)
        elif isinstance(node, list):
            for value in node:
                inline(value)

    inline({k: v for k, v in spec.items() if k != "datasets"})
    for named in getattr(element.proto, "datasets", []):
        try:
            from streamlit.elements.lib.arrow_utils import convert_arrow_bytes_to_pandas_df  # type: ignore
        except ImportError:
            from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
        named_rows = convert_arrow_bytes_to_pandas_df(named.data.data).to_dict("records")
        datasets[named.name] = named_rows
        rows += named_rows
    if element.proto.HasField("data") and element.proto.data.data:
        from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

        rows += convert_arrow_bytes_to_pandas_df(element.proto.data.data).to_dict("records")
    return Chart(rows, _series_of(spec), _draws_hollow(spec), spec, datasets)


def read_view(at, page: str, query: dict[str, str]) -> Reading:
    """The main area's words (the sidebar speaks of this server, not of the view) and every chart."""
    texts = [str(e.value) for kind in TEXT_KINDS for e in getattr(at.main, kind)]
    charts = [chart_of(e) for e in at.get("vega_lite_chart")]
    headline = str(at.main.markdown[0].value) if len(at.main.markdown) else ""
    return Reading(page, dict(query), texts, charts, headline)


# -- opening views -------------------------------------------------------------------------------------------

HOME = "pages/home.py"


def open_view(page: str, query: dict[str, str]):
    """The app opened at `page` with `query` in its URL, as a fresh browser session opens a shared link: the
    router's first run is the link's page with the link's query, so the sidebar's GPU is the link's. No run of
    Home before it: that cost CPU (more than half of a Training view's) and changed nothing the other pages say or
    draw. Home itself goes through app_support.visit (a first run, then a rerun, whose rows can differ)."""
    from app_support import APP_TIMEOUT_S, ROOT, visit
    from streamlit.testing.v1 import AppTest

    if page == HOME:
        return visit(page, query, whys=False)  # the 'Why?' sections closed, as first drawn
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=APP_TIMEOUT_S)
    at.query_params.update(query)
    at.switch_page(page).run()  # the page's file name is its URL path (ui.pages), so no run is needed to find it
    return at


def page_settings(page: str) -> list[Setting]:
    """The settings a page declares when opened at its defaults (its own and the sidebar's GPU)."""
    with declared_settings() as declared:
        at = open_view(page, {})
        assert not at.exception, [e.value for e in at.exception]
    return declared.settings(list(declared.by_namespace))


def drawn_views(page: str, settings: Sequence[Setting], n: int, seed: int) -> list[dict[str, str]]:
    rng = random.Random(f"{seed}:{page}")
    return [draw_view(rng, settings) for _ in range(n)]
