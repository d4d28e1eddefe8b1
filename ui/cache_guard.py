"""Visitors cannot wipe the server's caches (served by serve.py).

Streamlit clears every cache of the process (its own, and through ui.cache every result lib.core.cache
keeps: every visitor's live measurements and drawn charts) when any browser sends the `clear_cache`
back-message on its websocket. The app's menu hides the button (client.toolbarMode = "viewer"), but a hand-made
websocket client can still send the message, and Streamlit has no option to refuse it. This ASGI
middleware reads each message a browser sends on /_stcore/stream and drops that one kind; every
other message passes untouched. A dropped message is logged on the server, not answered: the
browser's own menu never sends it.

It runs in the web server, before any script; the message class is Streamlit's own wire format.
"""

from __future__ import annotations

import logging

from google.protobuf.message import DecodeError
from streamlit.proto.BackMsg_pb2 import BackMsg

LOG = logging.getLogger("gpuwin.cache_guard")
STREAM_PATH = "/_stcore/stream"
REFUSED = frozenset({"clear_cache"})


def refused_kind(data: bytes) -> str | None:
    """The kind of a browser's back-message when it is one the server refuses; None for every other
    message, and for bytes that are not a back-message (Streamlit answers those itself)."""
    msg = BackMsg()
    try:
        msg.ParseFromString(data)
    except DecodeError:
        return None
    kind = msg.WhichOneof("type")
    return kind if kind in REFUSED else None


class CacheGuardMiddleware:
    """ASGI middleware: on the app's websocket, a `clear_cache` back-message never reaches Streamlit."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "websocket" or not scope.get("path", "").endswith(STREAM_PATH):
            await self.app(scope, receive, send)
            return

        async def guarded_receive():
            while True:
                event = await receive()
                data = event.get("bytes") if event.get("type") == "websocket.receive" else None
                kind = refused_kind(data) if data else None
                if kind is None:
                    return event
                LOG.warning("dropped a %s message from a browser: visitors cannot wipe the shared caches", kind)

        await self.app(scope, guarded_receive, send)
