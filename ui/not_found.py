"""The app's own "no such page" for paths Streamlit cannot route (served by serve.py).

Streamlit answers every unknown path with its page (index.html), whose scripts load from paths
relative to the URL: at /training they resolve to /static/..., but at a nested path (/a/b/c,
/pages/training.py) to /a/b/static/..., which is index.html again, so the browser shows a blank
page. A one-segment unknown path (/nope) loads, but Streamlit then opens Home under a dialog of its
own. This ASGI middleware answers both, outside Streamlit's own routes and files, with a short 404
page that says so and links to every page (and to the page a file name such as pages/training.py
names). No Streamlit import: it runs in the web server, before any script.
"""

from __future__ import annotations

import html
from pathlib import PurePosixPath

from ui.pages import existing_pages

# First path segments Streamlit itself serves below the root (its API, media, components, assets).
# "~" and "-": prefixes some hosts' proxies put in front of an app's own paths.
STREAMLIT_ROUTES = frozenset({"_stcore", "media", "component", "static", "app", "~", "-"})


def is_unroutable(path: str) -> bool:
    """A nested path outside Streamlit's own routes, or one segment that is neither a page of the app
    nor a file (favicon.png, manifest.json: a name with a dot is left to Streamlit)."""
    parts = [p for p in path.split("/") if p]
    if len(parts) > 1:
        return parts[0] not in STREAMLIT_ROUTES
    if not parts or "." in parts[0] or parts[0] in STREAMLIT_ROUTES:
        return False
    return parts[0].lower() not in {p.url_path.lower() for p in existing_pages()}


def not_found_html(path: str) -> str:
    """The page: what was asked, a link to the page a file name names (pages/training.py), every page."""
    pages = existing_pages()
    stem = PurePosixPath(path).stem
    meant = next((p for p in pages if p.url_path and p.url_path == stem), None)
    links = "".join(f'<li><a href="/{p.url_path}">{html.escape(p.title)}</a></li>' for p in pages)
    hint = f'<p>Did you mean <a href="/{meant.url_path}">{html.escape(meant.title)}</a>?</p>' if meant else ""
    shown = html.escape(path[:200])
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>No such page</title>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'></head>"
        "<body style='font-family: sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem'>"
        f"<h1>No such page</h1><p>This app has no page at <code>{shown}</code>.</p>{hint}"
        f"<p>Its pages:</p><ul>{links}</ul></body></html>"
    )


class NotFoundMiddleware:
    """ASGI middleware: a GET or HEAD of an unroutable path gets the 404 page; everything else passes."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope.get("method") in ("GET", "HEAD") and is_unroutable(scope.get("path", "")):
            body = not_found_html(scope["path"]).encode("utf-8")
            await send(
                {
                    "type": "http.response.start",
                    "status": 404,
                    "headers": [
                        (b"content-type", b"text/html; charset=utf-8"),
                        (b"content-length", str(len(body)).encode()),
                        (b"cache-control", b"no-cache"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body if scope["method"] == "GET" else b""})
            return
        await self.app(scope, receive, send)
