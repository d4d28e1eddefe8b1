"""A cap on the files Streamlit stores for a visitor before any script reads them (served by serve.py).

Streamlit keeps every file PUT to /_stcore/upload_file/<session>/<file> in memory for the session,
5 MB each at most but with no limit on how many: three visitors each dropping 40 packs on Your results
put 600 MB in its store before the page could refuse a single one. This ASGI
middleware answers such a PUT with 413 when the session already holds as many files or bytes as a
visitor's uploads may (lib.recorded.upload_budget's caps), or all sessions together hold the server's
share; the browser marks that file as failed and the page's help says the caps. No Streamlit import
at module level: it runs in the web server, before any script.
"""

from __future__ import annotations

import threading

from lib.recorded.upload_budget import LIMITS
from lib.recorded.uploads import UploadLimits

UPLOAD_ROUTE = "/_stcore/upload_file/"  # after the server's base path, if it has one


def upload_refusal(session_id: str, limits: UploadLimits = LIMITS, in_flight: int = 0) -> str | None:
    """Why a new file for this session may not be stored now (one line), or None. `in_flight`: this
    session's uploads let through and not yet stored (a browser sends several at once)."""
    from streamlit import runtime

    if not runtime.exists():
        return None
    store = getattr(runtime.get_instance().uploaded_file_mgr, "file_storage", None)
    if not isinstance(store, dict):  # another kind of store than Streamlit's in-memory one: not ours to cap
        return None
    files = list(store.get(session_id, {}).values())
    if len(files) + in_flight >= limits.session_files:
        return f"This page reads at most {limits.session_files} files at a time; remove one to add another."
    if sum(len(f.data) for f in files) + in_flight * limits.file_bytes > limits.session_bytes:
        return f"Your files already hold {limits.session_bytes / 1e6:.0f} MB, the most one visitor's uploads may."
    held = sum(len(f.data) for session in list(store.values()) for f in list(session.values()))
    if held >= limits.server_bytes:
        return "The server holds as many uploaded files as it can right now; try again in a few minutes."
    return None


class UploadGuardMiddleware:
    """ASGI middleware: a file upload past the caps gets 413 and one line; everything else passes."""

    def __init__(self, app) -> None:
        self.app = app
        self._in_flight: dict[str, int] = {}  # session id -> uploads let through, not yet answered
        self._lock = threading.Lock()

    async def __call__(self, scope, receive, send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and scope.get("method") == "PUT" and UPLOAD_ROUTE in path:
            session_id = path.split(UPLOAD_ROUTE, 1)[1].split("/", 1)[0]
            with self._lock:  # checked and counted at once: uploads sent together cannot all pass the check
                refusal = upload_refusal(session_id, in_flight=self._in_flight.get(session_id, 0))
                if not refusal:
                    self._in_flight[session_id] = self._in_flight.get(session_id, 0) + 1
            if refusal:
                await send(
                    {
                        "type": "http.response.start",
                        "status": 413,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8")],
                    }
                )
                await send({"type": "http.response.body", "body": refusal.encode("utf-8")})
                return
            try:
                await self.app(scope, receive, send)
            finally:
                with self._lock:
                    left = self._in_flight.pop(session_id, 1) - 1
                    if left:
                        self._in_flight[session_id] = left
            return
        await self.app(scope, receive, send)
