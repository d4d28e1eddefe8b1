#!/usr/bin/env python3
"""The server's first visit, made as soon as it answers, so that no visitor pays for it.

    python scripts/warm_server.py http://127.0.0.1:8501      # dev.py app starts this beside the server

Streamlit runs no app code before the first session. That first run imports Altair and pandas
(torch only in the measuring process), draws Home, then starts the app's warm-up
(ui.warm_up.start_warm_up: the measuring process, the shipped packs parsed, the Training page's cost
models fitted or loaded from .cache/). This opens the Home page once over the
session websocket and leaves; the warm-up goes on in the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from st_session import open_session


def wait_healthy(url: str, timeout_s: float = 120.0, starting: Callable[[], bool] = lambda: True) -> bool:
    """Whether the server at `url` answers its health check within timeout_s (False at once when
    `starting()` says the server process has ended)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and starting():
        with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
            if reply.status == 200:
                return True
        time.sleep(0.05)
    return False


async def visit_home(url: str) -> None:
    async with open_session(url) as session:
        await session.visit("", "", timeout_s=120)


def main(argv: list[str]) -> int:
    url = (argv[0] if argv else "http://127.0.0.1:8501").rstrip("/")
    if not wait_healthy(url):
        print(f"warm_server: {url} did not answer; no first visit made", file=sys.stderr)
        return 1
    try:
        asyncio.run(visit_home(url))
    except Exception as err:  # the server serves anyway; its first visitor pays the warm-up
        print(f"warm_server: the first visit failed ({type(err).__name__}: {err})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
