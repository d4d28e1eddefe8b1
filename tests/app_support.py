"""Shared helpers for the app tests (tests/test_app_*.py, tests/test_browser.py).

The recorded-pack fixture: this machine has no GPU, so a "recorded GPU pack" for tests is made
by running the real CLI sweep on the CPU (the very command a page prints under "Record this view
on a GPU machine": tests/lesson_support.py's) and copying each CPU row under the device name 'cuda:0'.
It is a TEST FIXTURE, written only to a temporary directory, and its machine says so in its
name; it is never shipped in lib/recorded/.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
FIXTURE_GPU_NAME = "TEST FIXTURE (CPU rows renamed cuda:0)"
APP_TIMEOUT_S = 180
# every way lib.lessons.common.voice words two curves: live CPU rows on a loaded 2-core box may land on any
# of them (cross, cross back, one device ahead throughout, trading the lead), so a page test accepts each
CROSSOVER_WORDS = ("catches up", " on the chart", "trade the lead")


@contextlib.contextmanager
def env(**values: str | None) -> Iterator[None]:
    """Set (or with None, unset) environment variables for the body."""
    before = {k: os.environ.get(k) for k in values}
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def make_fixture_pack(directory: Path, command: str) -> Path:
    """Run the page's recording command on the CPU (real measurements, short budget), then add a
    copy of every row named 'cuda:0'. Returns the pack's path inside `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    raw = directory.parent / "fixture_raw.json"
    args = shlex.split(command)[1:]  # drop 'python'
    args = ["cpu" if a == "cpu,cuda" else a for a in args]
    args[args.index("--out") + 1] = str(raw)
    args += ["--budget", "0.03", "--threads", "1", "--quiet"]
    subprocess.run([PY, *args], cwd=ROOT, check=True, capture_output=True, text=True, timeout=300)
    pack = json.loads(raw.read_text())
    pack["machine"]["gpus"] = [FIXTURE_GPU_NAME]
    pack["machine"]["label"] = FIXTURE_GPU_NAME
    rows = []
    for row in pack["rows"]:
        rows.append({**row, "machine": FIXTURE_GPU_NAME})
        rows.append({**row, "device": "cuda:0", "device_name": FIXTURE_GPU_NAME, "machine": FIXTURE_GPU_NAME})
    pack["rows"] = rows
    path = directory / "test_fixture_mlp.json"
    path.write_text(json.dumps(pack))
    return path


def open_page(page: str | None = None, query: dict[str, str] | None = None, opened: Sequence[str] = ()):
    """Open the app through its router (streamlit_app.py) at `page` (None: Home) with `query` in the URL and the
    lazy expanders of the keys `opened` open (ui.scaffold.lazy_expander), as a visitor's first run of a link does.
    No run of Home first: all it left the page was the sidebar's GPU, the first source (a link without 'gpu'
    gets the same), and a page's file name is its URL path (ui.pages), so no run is needed to find it."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=APP_TIMEOUT_S)
    at.query_params.update(query or {})
    for key in opened:
        at.session_state[key] = True
    if page is not None:
        at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def pick_gpu(at, key: str):
    """Choose the GPU results `key` in the sidebar as a visitor does: open "GPU results from" (a lazy
    expander), pick, rerun."""
    from ui.sidebar import PICK_KEY

    at.session_state[PICK_KEY] = True
    at.run()
    return at.radio(key="app.gpu").set_value(key).run()


def open_whys(at):
    """Open every 'Why?' section on the page (ui.scaffold.why: lazy, its words written only while open),
    as a reader who opens each does, and rerun (until no new one appears)."""
    from ui.scaffold import WHY_KEY

    opened: set[str] = set()
    while new := [e.label for e in at.expander if e.label.startswith("Why") and e.label not in opened]:
        for label in new:
            at.session_state[WHY_KEY + label] = True
            opened.add(label)
        at.run()
    return at


HOME = "pages/home.py"


def visit(page: str, query: dict[str, str], opened: tuple[str, ...] = (), *, whys: bool = True):
    """Open `page` with `query` as a fresh browser session would: the sidebar's GPU read from the link on
    the session's first run; the lazy expanders of the keys `opened` open (ui.scaffold.lazy_expander), and with
    `whys` every 'Why?' section (ui.scaffold.why), as a reader who reads the whole page opens them. Home is run
    twice, a first run and a rerun (its answer kept for the rerun can draw other rows); another page once, as
    open_page opens it (Home's run before it changed nothing the page says or draws)."""
    from streamlit.testing.v1 import AppTest

    if page != HOME:
        at = open_page(page, query, opened)
    else:
        at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=APP_TIMEOUT_S)
        at.query_params.update(query)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        at.query_params.clear()
        at.query_params.update(query)
        for key in opened:
            at.session_state[key] = True
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
    if whys:
        open_whys(at)
        assert not at.exception, [e.value for e in at.exception]
    return at


class Visits:
    """visit() kept for the tests of one module that only read what a view says (a module-scoped fixture holds
    it): the same page, link and open expanders, under the module's one environment, are opened once. A test
    that moves a widget or reruns opens its own."""

    def __init__(self) -> None:
        self._opened: dict[tuple[str, tuple[tuple[str, str], ...], tuple[str, ...]], AppTest] = {}

    def __call__(self, page: str, query: dict[str, str], opened: tuple[str, ...] = ()) -> AppTest:
        key = (page, tuple(sorted(query.items())), tuple(opened))
        if key not in self._opened:
            self._opened[key] = visit(page, query, opened)
        return self._opened[key]


def page_text(at) -> str:
    """Every piece of text on the page (markdown, captions, notes, headers, the labels of the 'Why?'
    expanders that hold the longer words), one string."""
    parts = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [str(e.label) for e in at.expander]
    return "\n".join(parts)


def chart_specs(at) -> list[str]:
    return [e.proto.spec for e in at.get("vega_lite_chart")]
