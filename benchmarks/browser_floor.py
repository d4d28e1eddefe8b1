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
from page_speed import server  # noqa: E402

FLOOR = '''import altair as alt
import pandas as pd
import streamlit as st

st.title("Floor")
st.altair_chart(alt.Chart(pd.DataFrame({"x": [1, 2, 3], "y": [1, 4, 9]})).mark_line().encode(x="x", y="y"))
'''

FRAME = '''import sys
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
'''

CHART = '''import json
import streamlit as st

st.title("Floor")
st.vega_lite_chart(json.loads(open({spec!r}, encoding="utf-8").read()), width="stretch")
'''


def first_chart_spec(page: str) -> dict:
    """The first chart a new visitor's first view of `page` draws, as one self-contained spec."""
    import pyarrow as pa
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300).run()
    if page != "home":
        at.switch_page(f"pages/{page}.py").run()
    proto = at.get("vega_lite_chart")[0].proto

    def records(data: bytes) -> list[dict]:
        return pa.ipc.open_stream(data).read_all().to_pandas().to_dict("records")

    spec = json.loads(proto.spec)
    if proto.data.data:
        spec["data"] = {"values": records(proto.data.data)}
    spec["datasets"] = {**spec.get("datasets", {}), **{d.name: records(d.data.data) for d in proto.datasets}}
    return spec


def scripts(folder: Path, pages: list[str]) -> dict[str, Path]:
    floor = "\n".join("    " + line if line else "" for line in FLOOR.splitlines()[4:])
    out = {"bare page": FLOOR}
    for name, nav, sidebar in (("+ page list", True, False), ("+ sidebar", False, True), ("+ both", True, True)):
        out[name] = FRAME.format(root=str(ROOT), floor=floor, nav=nav, sidebar=sidebar)
    for page in pages:
        spec = folder / f"{page}.json"
        spec.write_text(json.dumps(first_chart_spec(page), default=str), encoding="utf-8")
        out[f"{page}'s chart"] = CHART.format(spec=str(spec))
    paths = {}
    for n, (name, text) in enumerate(out.items()):
        paths[name] = folder / f"floor_{n}.py"
        paths[name].write_text(text, encoding="utf-8")
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help=f"pages whose first chart to time alone (default: {' '.join(DEFAULT_PAGES)})")
    parser.add_argument("--visits", type=int, default=6, help="new visitors per variant")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    os.environ["GPUWIN_NO_PREFETCH"] = "1"  # no work done ahead, here or in the servers
    paths = scripts(Path(tempfile.mkdtemp()), args.pages or DEFAULT_PAGES)
    load = os.getloadavg()[0]
    head = (f"browser floor benchmark, {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {os.cpu_count()}-core box "
            f"(load average {load:.1f} at start), servers on CPU 0, chromium on CPU 1, {args.visits} new visitors per "
            "variant, shuffled")
    print(head, flush=True)
    with sync_playwright() as pw, ExitStack() as stack:
        served = {name: stack.enter_context(server({"GPUWIN_NO_PREFETCH": "1"}, script=str(path)))
                  for name, path in paths.items()}
        pin_servers(pid for _, pid in served.values())
        times = visit_rounds(pinned_chromium(pw), {name: url for name, (url, _) in served.items()}, args.visits)
    bare_first, bare_busy = (statistics.median(t[i] for t in times["bare page"]) for i in (0, 1))
    lines = [head, f"{'variant':24s} {'first chart: q1  median  q3':>28s}  x bare  busy  x bare"]
    for name in paths:
        q1, med, q3 = quartiles([t[0] for t in times[name]])
        busy = statistics.median(t[1] for t in times[name])
        lines.append(f"{name:24s} {q1:10.2f} {med:7.2f} {q3:5.2f} s  {med / bare_first:5.2f}x  {busy:4.2f}  "
                     f"{busy / bare_busy:4.2f}x")
    lines.append(f"(the goal: a page's first chart within {GOAL}x the bare page's, {GOAL * bare_first:.2f} s here)")
    print("\n".join(lines[1:]), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
