"""Home's answer as the page shows it, built once per process and kept on disk: the screen object
(lib.lessons.home.screen) with its chart's finished spec, and the sentence for a sidebar machine it cannot
answer with.

    home = home_answer()     # .screen, .spec (None without a recorded sweep), .cannot
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from lib.charts.provenance import CurveAxes, curve_chart
from lib.core.cache import kept, on_disk
from lib.lessons.home.screen import HomeScreen, answers, home_screen
from ui import scaffold
from ui.sources import current_source, load_recorded, recorded_pack, unanswered
from ui.specs import frozen_spec

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class HomeAnswer:
    screen: HomeScreen | None  # None: no pack of the sidebar's choice holds a recorded sweep of both devices
    spec: dict[str, Any] | None  # the chart, built once (ui.specs.frozen_spec)
    cannot: str | None = None  # the sidebar's machine cannot answer: what to say instead
    packs: tuple = ()  # kept alive with the cached value: the cache key names them by identity


# Home's answer kept on disk as well, keyed by the packs, every line of lib/, ui/ and the page, and the
# libraries that draw it: a host woken from sleep draws Home's chart without building it
@on_disk("home-answer", code=[ROOT / "lib", ROOT / "ui", ROOT / "pages" / "home.py"])
def _built(
    plot_height: int, beside: bool, packs: tuple, libraries: tuple[str, ...]
) -> tuple[HomeScreen | None, dict[str, Any] | None]:
    screen = home_screen(packs)
    if screen is None:
        return None, None
    chart = screen.chart
    axes = CurveAxes(chart.over, y=chart.y, x_title=chart.setting, y_title=chart.y_title)
    return screen, frozen_spec(
        curve_chart(screen.rows, axes, crossover=screen.crossover, height=plot_height, legend_beside=beside)
    )


@kept(16)
def _cached(key: tuple, plot_height: int, beside: bool, _packs: tuple) -> HomeAnswer:
    """The answer and the chart's spec: the same for every visitor of these packs, so built once per process
    (a revisit is a lookup). `key` names the packs by the identity of their parsed objects, which the cached
    value keeps alive (lib.recorded parses each file version once)."""
    libraries = tuple(version(name) for name in ("streamlit", "altair", "pandas", "pyarrow"))
    screen, spec = _built(plot_height, beside, _packs, libraries)
    return HomeAnswer(screen, spec, packs=_packs)


def home_answer() -> HomeAnswer:
    """The one chart: a recorded sweep with both devices from the same GPU machine. The sidebar's recorded
    machine only: another machine's chart is never drawn under its name."""
    source = current_source()
    packs = (recorded_pack(source),) if source.recorded else tuple(load_recorded()[0])
    found = _cached(
        (source.key, *((p["path"], id(p["rows"])) if p else None for p in packs)),
        scaffold.plot_height(),
        scaffold.embedded(),
        packs,
    )
    if found.screen:
        return found
    return HomeAnswer(None, None, unanswered(answers)[1], packs)
