"""One Streamlit session over its websocket, opened the way the browser's frontend opens it.

    async with open_session("http://127.0.0.1:8501") as session:
        timings = await session.visit("training", "over=batch_size&depth=2", done_texts=("Measured live",))

It sends the same first message a browser sends (rerun the script for this page and query string)
and times the messages that come back (the first chart, the end of the run). Used by
benchmarks/classroom.py (thirty chromium tabs on the server's own 2 cores would mostly time
chromium starting Streamlit's frontend; this times the server's share) and by scripts/warm_server.py
(the server's first visit, made at start so that no visitor pays for it).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

CHART_TYPES = ("arrow_vega_lite_chart", "vega_lite_chart")


@dataclass
class Visit:
    """What one visit of a page sent back, in seconds after the visit's first message."""

    first_chart_s: float | None = None
    finished_s: float | None = None  # the script run that drew the page ended
    texts: list[str] = field(default_factory=list)  # every markdown, caption, alert, progress text
    exceptions: list[str] = field(default_factory=list)

    def says(self, text: str) -> bool:
        return any(text in t for t in self.texts)


def _texts_of(element) -> list[str]:
    kind = element.WhichOneof("type")
    if kind == "exception":
        return []
    part = getattr(element, kind, None)
    return [getattr(part, name) for name in ("body", "text", "label") if isinstance(getattr(part, name, None), str)]


class Session:
    def __init__(self, socket) -> None:
        self._socket = socket

    async def visit(
        self, page: str, query: str = "", *, done_texts: Sequence[str] = (), timeout_s: float = 600.0
    ) -> Visit:
        """Ask for `page` with `query` (no '?') as a browser's first load does; return when the run
        that draws it finished and, if done_texts are given, one of them was sent (the page may run
        again, e.g. after a live measurement), or after timeout_s."""
        message = BackMsg()
        message.rerun_script.query_string = query
        message.rerun_script.page_name = page
        start = time.perf_counter()
        await self._socket.send(message.SerializeToString())
        visit = Visit()
        deadline = start + timeout_s
        while time.perf_counter() < deadline:
            try:
                raw = await asyncio.wait_for(self._socket.recv(), timeout=deadline - time.perf_counter())
            except asyncio.TimeoutError:
                break
            forward = ForwardMsg()
            forward.ParseFromString(raw)
            now = time.perf_counter() - start
            kind = forward.WhichOneof("type")
            if kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = forward.delta.new_element
                if element.WhichOneof("type") in CHART_TYPES and visit.first_chart_s is None:
                    visit.first_chart_s = now
                if element.WhichOneof("type") == "exception":
                    visit.exceptions.append(element.exception.message)
                visit.texts.extend(_texts_of(element))
            elif kind == "script_finished":
                visit.finished_s = now
                if not done_texts or any(visit.says(t) for t in done_texts):
                    break
        return visit


@contextlib.asynccontextmanager
async def open_session(url: str) -> AsyncIterator[Session]:
    """A websocket session on the server at `url` (http://host:port), closed on exit."""
    ws_url = url.replace("http://", "ws://", 1).rstrip("/") + "/_stcore/stream"
    async with websockets.connect(
        ws_url, subprotocols=["streamlit"], max_size=None, ping_interval=None, open_timeout=120
    ) as socket:
        yield Session(socket)
