#!/usr/bin/env python3
"""What a new visitor's browser pays for this app's frame before any page's own words and widgets:
the floor under benchmarks/browser_share.py's ratios (issue 25's goal: a page's first chart within
1.3x a bare one-chart page's).

    .venv/bin/python benchmarks/browser_floor.py --out docs/browser_floor.txt

Served at once (CPU 0, as a one-CPU host runs them), opened by chromium on CPU 1 in shuffled rounds,
each visit a new visitor, each the bare page's title and three-point chart plus one part of the app:
  bare page         benchmarks/floor_app.py
  + page list       the app's st.navigation (every page listed in the sidebar), the page style
  + sidebar         the app's sidebar (ui.sidebar.render_sidebar: this server, the GPU results picker)
  + both            the app's frame around the bare chart: what every page but an embedded one draws
  <page>'s chart    the bare title and the page's own first chart (its spec as a new visitor's first
                    view sends it, read through AppTest; datasets inline instead of Arrow) instead of
                    the three-point one
  + its widgets     that chart and, under it, the widgets the page's first view draws in its main area
                    (same kinds, labels and options, no help text, no columns, no words)
  + its expanders   and the page's expanders, closed, with their labels and nothing inside
  <page> whole      the page itself, served by this checkout's app (its frame, words and all)
With --parts, the rows between a page's chart and the whole page say what its controls cost a new
visitor against what its words and the rest cost.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from browser_share import DEFAULT_PAGES, GOAL, pin_servers, pinned_chromium, quartiles, visit_rounds  # noqa: E402
from page_speed import LINKS, server  # noqa: E402

FLOOR = """import altair as alt
import pandas as pd
import streamlit as st

st.title("Floor")
st.altair_chart(alt.Chart(pd.DataFrame({"x": [1, 2, 3], "y": [1, 4, 9]})).mark_line().encode(x="x", y="y"))
"""

FRAME = """import sys
sys.path.insert(0, {root!r})
import altair as alt
import pandas as pd
import streamlit as st
from ui.pages import existing_pages
from ui.router import routed
from ui.scaffold import page_style
from ui.sidebar import render_sidebar


def floor():
{floor}

if {nav}:
    page = st.navigation([st.Page(floor, title="Home", default=True)] +
                         [st.Page({root!r} + "/" + p.path, title=p.title, icon=p.icon) for p in existing_pages()
                          if not p.default])
    page_style()
if {sidebar}:
    with routed():
        render_sidebar()
page.run() if {nav} else floor()
"""

CHART = """import json
import streamlit as st

st.title("Floor")
st.vega_lite_chart(json.loads(open({spec!r}, encoding="utf-8").read()), width="stretch")
"""


PARTS = """import json
import streamlit as st

st.title("Floor")
st.vega_lite_chart(json.loads(open({spec!r}, encoding="utf-8").read()), width="stretch")
for n, (kind, label, options) in enumerate(json.loads(open({parts!r}, encoding="utf-8").read())):
    if kind == "select_slider":
        st.select_slider(label, options, key=n)
    elif kind in ("radio", "selectbox", "pills"):
        getattr(st, kind)(label, options, key=n)
    elif kind == "toggle":
        st.toggle(label, key=n)
    elif kind == "page_link":
        st.page_link("https://example.com/" + str(n), label=label, icon=options[0])
    elif kind == "expander":
        st.expander(label)
"""


def first_view(page: str):
    """A new visitor's first view of `page`, run through AppTest."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300).run()
    if page != "home":
        at.switch_page(f"pages/{page}.py").run()
    return at


def page_parts(at, expanders: bool) -> list[tuple[str, str, list]]:
    """The widgets (and with `expanders`, the expanders) of a first view's main area, in kind order."""
    parts = []
    for kind, drawn in (
        ("select_slider", "select_slider"),
        ("radio", "radio"),
        ("selectbox", "selectbox"),
        ("pills", "button_group"),
        ("toggle", "toggle"),
    ):
        parts += [
            (kind, w.label, [str(o) for o in w.options] if kind != "toggle" else []) for w in getattr(at.main, drawn)
        ]
    parts += [("page_link", e.proto.label, [e.proto.icon]) for e in at.main.get("page_link")]
    if expanders:
        parts += [("expander", e.label, []) for e in at.main.expander]
    return parts


def first_chart_spec(page: str, at=None) -> dict:
    """The first chart a new visitor's first view of `page` draws, as one self-contained spec."""
    import pyarrow as pa

    at = at or first_view(page)
    proto = at.get("vega_lite_chart")[0].proto

    def records(data: bytes) -> list[dict]:
        return pa.ipc.open_stream(data).read_all().to_pandas().to_dict("records")

    spec = json.loads(proto.spec)
    if proto.data.data:
        spec["data"] = {"values": records(proto.data.data)}
    spec["datasets"] = {**spec.get("datasets", {}), **{d.name: records(d.data.data) for d in proto.datasets}}
    return spec


def scripts(folder: Path, pages: list[str], parts: bool = False) -> dict[str, Path]:
    floor = "\n".join("    " + line if line else "" for line in FLOOR.splitlines()[4:])
    out = {"bare page": FLOOR}
    for name, nav, sidebar in (("+ page list", True, False), ("+ sidebar", False, True), ("+ both", True, True)):
        out[name] = FRAME.format(root=str(ROOT), floor=floor, nav=nav, sidebar=sidebar)
    for page in pages:
        at = first_view(page)
        spec = folder / f"{page}.json"
        spec.write_text(json.dumps(first_chart_spec(page, at), default=str), encoding="utf-8")
        out[f"{page}'s chart"] = CHART.format(spec=str(spec))
        if parts:
            for name, expanders in (("+ its widgets", False), ("+ its expanders", True)):
                listed = folder / f"{page}_{expanders}.json"
                listed.write_text(json.dumps(page_parts(at, expanders)), encoding="utf-8")
                out[f"{page} {name}"] = PARTS.format(spec=str(spec), parts=str(listed))
    paths = {}
    for n, (name, text) in enumerate(out.items()):
        paths[name] = folder / f"floor_{n}.py"
        paths[name].write_text(text, encoding="utf-8")
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "pages", nargs="*", help=f"pages whose first chart to time alone (default: {' '.join(DEFAULT_PAGES)})"
    )
    parser.add_argument("--visits", type=int, default=6, help="new visitors per variant")
    parser.add_argument(
        "--parts",
        action="store_true",
        help="also each page's chart with its widgets, with its expanders, and the whole page",
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    os.environ["GPUWIN_NO_PREFETCH"] = "1"  # no work done ahead, here or in the servers
    pages = args.pages or DEFAULT_PAGES
    paths = scripts(Path(tempfile.mkdtemp()), pages, args.parts)
    load = os.getloadavg()[0]
    head = (
        f"browser floor benchmark, {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {os.cpu_count()}-core box "
        f"(load average {load:.1f} at start), servers on CPU 0, chromium on CPU 1, {args.visits} new visitors per "
        "variant, shuffled"
    )
    print(head, flush=True)
    with sync_playwright() as pw, ExitStack() as stack:
        served = {
            name: stack.enter_context(server({"GPUWIN_NO_PREFETCH": "1"}, script=str(path)))
            for name, path in paths.items()
        }
        urls = {name: url for name, (url, _) in served.items()}
        if args.parts:  # the pages themselves, from one server of this checkout's app
            app_url, app_pid = stack.enter_context(server({"GPUWIN_NO_PREFETCH": "1"}))
            served["app"] = (app_url, app_pid)
            urls |= {f"{page} whole": f"{app_url}/{LINKS.get(page, page)}" for page in pages}
        pin_servers(pid for _, pid in served.values())
        times = visit_rounds(pinned_chromium(pw), urls, args.visits)
    bare_first, bare_busy = (statistics.median(t[i] for t in times["bare page"]) for i in (0, 1))
    lines = [head, f"{'variant':30s} {'first chart: q1  median  q3':>28s}  x bare  busy  x bare"]
    order = [n for n in paths if "'s chart" not in n and " + " not in n]
    for page in pages:
        order += [
            n
            for n in (f"{page}'s chart", f"{page} + its widgets", f"{page} + its expanders", f"{page} whole")
            if n in times
        ]
    for name in order:
        q1, med, q3 = quartiles([t[0] for t in times[name]])
        busy = statistics.median(t[1] for t in times[name])
        lines.append(
            f"{name:30s} {q1:10.2f} {med:7.2f} {q3:5.2f} s  {med / bare_first:5.2f}x  {busy:4.2f}  "
            f"{busy / bare_busy:4.2f}x"
        )
    lines.append(f"(the goal: a page's first chart within {GOAL}x the bare page's, {GOAL * bare_first:.2f} s here)")
    print("\n".join(lines[1:]), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
