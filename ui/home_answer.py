"""Home's answer as the page shows it, built once per process and kept on disk: the Training page's screen at
its default view (lib.lessons.home.screen) with its chart's finished spec, and the sentence for a sidebar
machine it cannot answer with.

    home = home_answer()     # .screen, .spec (None without a recorded GPU machine to answer with), .cannot
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from lib.charts.compiled import VegaSpec
from lib.charts.provenance import CurveAxes, curve_chart
from lib.core.cache import kept, on_disk
from lib.lessons.home.screen import DEFAULT, HomeScreen, answers, first_answer
from lib.recorded import load_recordings
from lib.recorded.recording import Recording
from ui import scaffold
from ui.sources import current_source, gpu_sources, recorded_recording, unanswered
from ui.specs import frozen_spec

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class HomeAnswer:
    screen: HomeScreen | None  # None: no GPU machine of the sidebar's choice answers at Training's defaults
    spec: VegaSpec | None  # the chart, built once (ui.specs.frozen_spec); None: no curve to draw
    cannot: str | None = None  # the sidebar's machine cannot answer: what to say instead
    packs: tuple = ()  # kept alive with the cached value: the cache key names them by identity


# Home's answer kept on disk as well, keyed by the packs, every line of lib/, ui/ and the page, and the
# libraries that draw it: a host woken from sleep draws Home's chart without building it
@on_disk("home-answer", code=[ROOT / "lib", ROOT / "ui", ROOT / "pages" / "home.py"])
def _built(
    plot_height: int,
    beside: bool,
    contents: tuple[str, ...],
    libraries: tuple[str, ...],
    _candidates: tuple,
    _recordings: tuple,
) -> tuple[HomeScreen | None, VegaSpec | None]:
    screen = first_answer(_candidates, _recordings)
    if screen is None:
        return None, None
    # the axes the Training page draws its chart on (ui.training_live.ChartBox), at its default view
    axes = CurveAxes(DEFAULT.over, x_title=DEFAULT.axis.label, ticks=DEFAULT.axis.steps[::4])
    rows = screen.rows()
    if not rows:
        return screen, None
    chart = curve_chart(rows, axes, crossover=screen.crossover, height=plot_height, legend_beside=beside)
    return screen, frozen_spec(chart)


def _content(recording: Recording | None) -> str:
    """What a recording holds, as text that is the same in every process: the disk cache's key (a pickle of
    the Recording is not: it depends on which of its strings share one object, which differs between a
    recording parsed here and one loaded from the disk cache)."""
    if recording is None:
        return ""
    held = json.dumps([recording.path, recording.pack["machine"], recording.pack["rows"]], sort_keys=True, default=str)
    return hashlib.sha256(held.encode()).hexdigest()


@kept(16)
def _cached(key: tuple, plot_height: int, beside: bool, _candidates: tuple, _recordings: tuple) -> HomeAnswer:
    """The answer and the chart's spec: the same for every visitor of these packs, so built once per process
    (a revisit is a lookup). `key` names the packs by the identity of their parsed objects, which the cached
    value keeps alive (lib.recorded parses each file version once)."""
    libraries = tuple(version(name) for name in ("streamlit", "altair", "pandas", "pyarrow"))
    contents = tuple(_content(r) for r in (*_candidates, *_recordings))
    screen, spec = _built(plot_height, beside, contents, libraries, _candidates, _recordings)
    return HomeAnswer(screen, spec, packs=(*_candidates, *_recordings))


def home_answer() -> HomeAnswer:
    """Training's answer at its defaults for the sidebar's recorded GPU machine: another machine's chart is never
    drawn under its name. A live GPU or none in the sidebar: the first recorded machine that answers (Home
    measures nothing live)."""
    source = current_source()
    candidates = (
        (recorded_recording(source),)
        if source.recorded
        else tuple(recorded_recording(s) for s in gpu_sources() if s.recorded)
    )
    recordings = tuple(load_recordings()[0])
    found = _cached(
        (source.key, *((r.path, id(r.points)) if r else None for r in (*candidates, *recordings))),
        scaffold.plot_height(),
        scaffold.embedded(),
        candidates,
        recordings,
    )
    if found.screen:
        return found
    return HomeAnswer(None, None, unanswered(answers)[1], found.packs)
