"""Odd paths in a real browser (issue 26, probe finding 10): through serve.py, a nested unknown path
(/a/b/c, /pages/training.py) and an unknown page (/nope) show the app's own "No such page" with a
link to every page, where streamlit_app.py alone shows a blank page; the app itself still runs.
One `streamlit run serve.py` for the module; headless chromium as in tests/test_browser.py."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest
from test_browser import CHROMIUM, _unavailable, streamlit_server

from ui.not_found import is_unroutable, not_found_html


def test_which_paths_are_the_apps_own_404():
    for path in ("/a/b/c", "/pages/training.py", "/nope", "/training/x", "/TRAINING/extra"):
        assert is_unroutable(path), path
    for path in (
        "/",
        "/training",
        "/Training",
        "/gallery",
        "/_stcore/health",
        "/static/js/index.js",
        "/media/abc.png",
        "/component/x/index.html",
        "/favicon.png",
        "/manifest.json",
    ):
        assert not is_unroutable(path), path
    page = not_found_html("/pages/training.py")
    assert 'Did you mean <a href="/training">Training crossover</a>?' in page
    assert '<a href="/">Home</a>' in page and '<a href="/gallery">' in page
    assert "&lt;script&gt;" in not_found_html("/a/<script>alert(1)</script>")  # the path is shown as text


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    if CHROMIUM is None:
        _unavailable("no chromium on this machine (Debian: apt-get install chromium)")
    env = {
        "GPUWIN_RECORDED_DIR": str(tmp_path_factory.mktemp("no_packs")),
        "GPUWIN_LIVE_POINT_BUDGET_S": "0.05",
        "GPUWIN_NO_WARM_UP": "1",
    }
    with streamlit_server(env, script="serve.py") as url:
        yield url


def test_an_unknown_path_is_a_404_that_names_it_and_links_every_page(served):
    for path in ("/a/b/c", "/pages/training.py", "/nope"):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(served + path, timeout=10)
        assert err.value.code == 404
        assert "No such page" in err.value.read().decode()
    with urllib.request.urlopen(served + "/training", timeout=10) as ok:
        assert ok.status == 200  # a page of the app is Streamlit's own


def test_the_no_such_page_links_lead_back_into_the_running_app(browser, served):
    page = browser.new_page()
    page.goto(f"{served}/pages/training.py")
    page.get_by_text("No such page").wait_for(timeout=30_000)
    page.get_by_role("link", name="Home", exact=True).click()
    page.get_by_text("When does the GPU win?").first.wait_for(timeout=90_000)  # the app ran
    page.goto(f"{served}/a/b/c")
    page.get_by_text("Did you mean", exact=False).wait_for(state="detached", timeout=5_000)
    page.get_by_role("link", name="Jacobian", exact=True).click()
    page.get_by_role("heading", name="Jacobian", exact=False).first.wait_for(timeout=90_000)
