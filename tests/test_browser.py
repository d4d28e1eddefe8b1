"""A real browser against `streamlit run`: the Training page opened from a link draws its chart,
shows the link's settings, keeps them in the URL, and renders cleanly embedded (?embed=true).

Uses Debian's chromium (never downloads one). Without chromium or playwright the test is
skipped, unless GPUWIN_REQUIRE_BROWSER=1 (CI), where it fails instead.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CHART = "[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg"
# where a failing browser test leaves a picture of its page (GPUWIN_BROWSER_SHOTS, else the temp folder)
SHOTS = Path(os.environ.get("GPUWIN_BROWSER_SHOTS") or Path(tempfile.gettempdir()) / "gpuwin_browser_shots")

pytestmark = pytest.mark.browser


def _unavailable(reason: str) -> None:
    if os.environ.get("GPUWIN_REQUIRE_BROWSER") == "1":
        pytest.fail(f"GPUWIN_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}: {proc.stdout.read() if proc.stdout else ''}")
        with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            if response.status == 200:
                return
        time.sleep(0.3)
    raise TimeoutError(f"{url}/_stcore/health did not answer within {timeout_s} s")


PORT_TAKEN = "is not available"  # what streamlit says, and exits, when its --server.port is bound already
PORT_TRIES = 3


@contextlib.contextmanager
def streamlit_server(env: dict[str, str], script: str = "streamlit_app.py") -> Iterator[str]:
    for attempt in range(1, PORT_TRIES + 1):
        port = free_port()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                script,
                "--server.headless",
                "true",
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--browser.gatherUsageStats",
                "false",
            ],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, proc)
            break
        except RuntimeError as exited:
            _stop(proc)
            # another test process (pytest-xdist runs two or more) bound the free port between its pick and here
            if PORT_TAKEN not in str(exited) or attempt == PORT_TRIES:
                raise
        except BaseException:
            _stop(proc)
            raise
    try:
        yield url
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


@contextlib.contextmanager
def screenshot_on_failure(page, name: str) -> Iterator[None]:
    """A failing step leaves a full-page screenshot and the page's URL, so a failure on a machine
    nobody watched can still be seen."""
    try:
        yield
    except Exception:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        with contextlib.suppress(Exception):
            page.screenshot(path=str(path), full_page=True)
            print(f"screenshot of the failing page ({page.url}): {path}")
        raise


def wait_for_run(page, text: str, timeout_ms: int = 90_000) -> None:
    """The script run finished: the given words are on the page and a chart is drawn."""
    page.get_by_text(text, exact=False).first.wait_for(timeout=timeout_ms)
    page.wait_for_selector(CHART, timeout=timeout_ms)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout_ms)


@contextlib.contextmanager
def launched_chromium() -> Iterator:
    """Debian's chromium under Playwright, for a test's own browser (skipped where either is missing)."""
    if CHROMIUM is None:
        _unavailable("no chromium on this machine (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def require_browser() -> None:
    """Skip (or fail, under GPUWIN_REQUIRE_BROWSER=1) where chromium or playwright is missing."""
    if CHROMIUM is None:
        _unavailable("no chromium on this machine (Debian: apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _unavailable("the playwright package is not installed")


@pytest.fixture(scope="module")
def app_url(tmp_path_factory) -> Iterator[str]:
    """One `streamlit run` for this module: no recorded packs (CPU only), short live budget."""
    require_browser()
    env = {
        "GPUWIN_RECORDED_DIR": str(tmp_path_factory.mktemp("no_packs")),
        "GPUWIN_LIVE_POINT_BUDGET_S": "0.1",
        "GPUWIN_NO_WARM_UP": "1",
    }
    with streamlit_server(env) as url:
        yield url


def test_training_page_from_a_link_in_a_real_browser(browser, app_url):
    url = app_url
    query = "over=depth&depth=4&hidden_width=32&data_resident=false"
    page = browser.new_page(viewport={"width": 1200, "height": 1600})
    page.set_default_timeout(90_000)  # clicks and reads too: a loaded 2-core box takes its time
    page.goto(f"{url}/training?{query}")
    wait_for_run(page, "At depth 4 (")
    body = page.inner_text("body")
    # the settings shown came from the URL
    assert page.get_by_role("radio", name="depth", exact=True).is_checked()
    page.get_by_text("Pitfalls: the habits of the seed experiments").first.click()  # closed by default
    assert not page.get_by_role("switch", name="Data already on the device", exact=True).is_checked()
    sliders = {
        s.get_attribute("aria-label"): s.get_attribute("aria-valuetext")
        for s in page.query_selector_all("[data-testid='stSlider'] input[type='range']")
    }
    assert sliders["Hidden width"] == "32" and sliders["Batch size"] == "64", sliders
    assert sliders["Depth (the point explained below)"] == "4", sliders
    assert "No GPU on this server" in body and "per epoch" in body
    assert "There is no GPU curve for this view" in body  # no packs: said, not a blank chart
    assert not page.query_selector("[data-testid='stException']")
    # the URL now holds every setting, so copying it reopens this view
    params = {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert params["over"] == "depth" and params["depth"] == "4" and params["hidden_width"] == "32"
    assert params["data_resident"] == "false" and "batch_size" in params

    # embedded, as course material would show it
    embedded = browser.new_page(viewport={"width": 800, "height": 1400})
    embedded.goto(f"{url}/training?{query}&embed=true")
    wait_for_run(embedded, "At depth 4 (")
    assert not embedded.query_selector("[data-testid='stSidebar']")  # no sidebar when embedded
    assert not embedded.query_selector("[data-testid='stException']")
    assert not embedded.query_selector("[data-testid='stToolbar']") or not embedded.is_visible(
        "[data-testid='stToolbar']"
    )
    assert "embed=true" in embedded.url


def test_three_visitors_at_once_in_real_browsers(browser, app_url):
    """Three tabs open the Training page at the same moment with different settings: each gets its
    own chart; those who found another measurement running were told they waited."""
    url = app_url
    views = {"hidden_width": "16", "depth": "2", "dataset_size": "2048"}  # not measured by the test above
    pages = {key: browser.new_page(viewport={"width": 1000, "height": 1400}) for key in views}  # a context each
    for key, value in views.items():  # all three navigate at once, none waits for the others
        pages[key].evaluate(f"location.href = '{url}/training?{key}={value}'")
    waited = 0
    for key, value in views.items():
        page = pages[key]
        wait_for_run(page, "At batch size 64 (", timeout_ms=150_000)
        body = page.inner_text("body")
        assert not page.query_selector("[data-testid='stException']")
        assert f"{key}={value}" in page.url
        waited += "in line (number" in body and "for other measurements on this server" in body
    print(f"{waited} of 3 visitors waited")
    assert waited >= 1, "nobody was told to wait: the three measurements did not overlap in time"
