"""No visitor can wipe the server's caches (issue 40, probe finding 5): a hand-made websocket client
sends Streamlit's `clear_cache` back-message. Behind serve.py (the public server) the caches keep
their entries; streamlit_app.py alone, which has no guard, loses them to the same message, which shows
the probe really reaches Streamlit's cache-clearing. The caches are read from Streamlit's own
/_stcore/metrics (its cache_memory_bytes family), filled by one real browser visit of Home."""

from __future__ import annotations

import asyncio
import time
import urllib.request

import pytest
from test_browser import CHART, CHROMIUM, CHROMIUM_ARGS, _unavailable, streamlit_server

from ui.cache_guard import refused_kind

pytestmark = [pytest.mark.browser, pytest.mark.slow]
METRICS_TTL_S = 5.0  # Streamlit computes cache_memory_bytes at most once per 5 s


def _message(**fields) -> bytes:
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    for name, value in fields.items():
        setattr(msg, name, value)
    return msg.SerializeToString()


def test_only_the_clear_cache_message_is_refused():
    assert refused_kind(_message(clear_cache=True)) == "clear_cache"
    assert refused_kind(_message(stop_script=True)) is None
    assert refused_kind(_message(app_heartbeat=True)) is None
    assert refused_kind(b"\xff\xff not a message") is None  # Streamlit answers malformed bytes itself


def _cached_functions(url: str) -> set[str]:
    text = urllib.request.urlopen(url + "/_stcore/metrics?families=cache_memory_bytes", timeout=10).read().decode()
    # st.cache_data / st.cache_resource only: the media file storage (the favicon's 490 bytes since it is a file of
    # the app's own) is reported as a cache of no name, and no clear-cache message empties it
    return {
        line.split("cache=", 1)[1].split('"')[1]
        for line in text.splitlines()
        if line.startswith('cache_memory_bytes{cache_type="st_cache_')
    }


async def _send_clear_cache(url: str) -> None:
    import websockets

    async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"]) as ws:
        await ws.send(_message(clear_cache=True))
        await asyncio.sleep(1.0)  # Streamlit handles a back-message as it arrives; give it the time to


def _caches_after_a_wipe_attempt(script: str) -> tuple[set[str], set[str]]:
    from playwright.sync_api import sync_playwright

    env = {"GPUWIN_NO_WARM_UP": "1", "GPUWIN_LIVE_POINT_BUDGET_S": "0.05"}
    with streamlit_server(env, script=script) as url:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                page.goto(url + "/")
                page.wait_for_selector(CHART, timeout=90_000)
            finally:
                browser.close()
        before = _cached_functions(url)
        asyncio.run(_send_clear_cache(url))
        time.sleep(METRICS_TTL_S + 1.0)
        return before, _cached_functions(url)


@pytest.fixture(scope="module")
def chromium():
    if CHROMIUM is None:
        _unavailable("no chromium on this machine (Debian: apt-get install chromium)")


def test_behind_serve_py_a_browser_cannot_wipe_the_caches(chromium):
    before, after = _caches_after_a_wipe_attempt("serve.py")
    assert before, "Home's first visit filled no cache: nothing to protect was measured"
    assert after == before


def test_without_the_guard_the_same_message_wipes_them(chromium):
    before, after = _caches_after_a_wipe_attempt("streamlit_app.py")
    assert before and not after
