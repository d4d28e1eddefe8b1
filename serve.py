"""The public server: streamlit_app.py behind the app's own "no such page" for paths Streamlit
cannot route (ui/not_found.py says why a nested unknown path is otherwise a blank page), and with
no browser able to wipe the shared caches (ui/cache_guard.py) or upload past its caps (ui/upload_guard.py).

    streamlit run serve.py            # what `python3 dev.py app` starts; streamlit_app.py still runs alone
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
from starlette.middleware import Middleware  # noqa: E402

from ui.cache_guard import CacheGuardMiddleware  # noqa: E402
from ui.not_found import NotFoundMiddleware  # noqa: E402
from ui.upload_guard import UploadGuardMiddleware  # noqa: E402

app = st.App(
    str(ROOT / "streamlit_app.py"),
    middleware=[Middleware(CacheGuardMiddleware), Middleware(NotFoundMiddleware), Middleware(UploadGuardMiddleware)],
)
