"""When does the GPU win? -- the router: page list, shared sidebar, then the chosen page.

    streamlit run streamlit_app.py

Pages are listed only when their file exists (see ui/pages.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from ui.cache import bind  # noqa: E402
from ui.pages import existing_pages  # noqa: E402
from ui.router import routed  # noqa: E402
from ui.scaffold import page_style  # noqa: E402
from ui.sidebar import render_sidebar  # noqa: E402

# Embedded in course material (an iframe with ?embed=true): no sidebar, no page menu, just the page;
# the link's own parameters (gpu=..., the sliders) still choose the view.
embedded = bool(st.context.is_embedded)
st.set_page_config(
    page_title="When does the GPU win?",
    # a file of the app's own: ':material/speed:' made every visitor's browser fetch it from fonts.gstatic.com
    # (an offline server's console showed the failed request on every page)
    page_icon=str(Path(__file__).with_name("ui") / "favicon.png"),
    layout="centered",
    initial_sidebar_state="collapsed" if embedded else "auto",
)

pages = [st.Page(p.path, title=p.title, icon=p.icon, default=p.default) for p in existing_pages()]
page = st.navigation(pages, position="hidden" if embedded else "sidebar")
bind()  # Streamlit's "clear cache" clears the results kept in lib.core.cache too
page_style()  # smaller headings on a phone and in an iframe, so a page's chart and answer fit its first screen
if not embedded:
    render_sidebar()
with routed():
    page.run()
# after the page, not before: on a one-CPU host the measuring process's torch import and the cost
# models' fitting would otherwise share the core with the first visitor's first chart. Imported here too:
# ui.measure (the measuring process's client, 0.09 s to import) is not needed to draw Home
from ui.warm_up import start_warm_up  # noqa: E402

start_warm_up()
