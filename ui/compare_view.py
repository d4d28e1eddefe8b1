"""Your results' comparisons, built once per set of packs per server process (issue 25).

With the shipped packs switched on the page compares 5,000 rows: validating and merging them,
27 comparisons, their charts and a 5 MB download took seconds on every run. All of it is a pure
function of the packs on the page, so it is built once and a revisit is a lookup:

    view = compared_view(uploads, extra, shipped)   # (name, bytes) uploads; other Sources; shipped packs
    view.chart(n, plot_height)                      # comparison n's Vega-Lite spec, built once
    view.prebuild(plot_height)                      # the warm-up: what a first visit draws and offers

The key: each upload's name and bytes (hashed), each other source by its content, each shipped pack
by the identity of its parsed object (lib.recorded keeps one per file version; the cached view holds
it, so that id cannot be reused while the view is kept).
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from lib.charts.machines import machines_chart
from lib.core.results import dumps_pack, pack_to_csv
from lib.lessons.your_results.compare import (
    Comparison,
    compare_machines,
    comparison_titles,
    order_comparisons,
    setting_name,
)
from lib.recorded.uploads import Combined, Source, combine, drop_duplicates, machine_table, read_uploads
from ui.specs import frozen_spec

MORE_CHARTS = 5  # a pack may hold hundreds of sweeps: a few are drawn, any other on request (each costs time to draw)


@dataclass
class ComparedView:
    sources: list[Source]  # every file, with its error or note
    combined: Combined | None
    drawn: list[tuple[int, Comparison, str]]  # comparisons of several machines first, each with its title
    _charts: dict[tuple, dict[str, Any]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def chart(self, n: int, plot_height: int | None = None, legend_columns: int = 1) -> dict[str, Any]:
        """Comparison n's chart as a Vega-Lite spec, built once per shape (visitors share it: read only)."""
        key = (n, plot_height, legend_columns)
        with self._lock:
            if key not in self._charts:
                comp = self.drawn[n][1]
                self._charts[key] = frozen_spec(machines_chart(comp, x_title=setting_name(comp.setting),
                                                               plot_height=plot_height, legend_columns=legend_columns))
            return self._charts[key]

    def prebuild(self, first_plot_height: int) -> None:
        """What a visit draws and offers outside an iframe (the first chart at `first_plot_height`, MORE_CHARTS
        more, the downloads), built now: on one CPU the shipped packs' six charts took 2.2 s and the 12 MB of
        downloads 2.4 s of their first visitor's wait."""
        for n in range(min(len(self.drawn), 1 + MORE_CHARTS)):
            self.chart(n, first_plot_height if n == 0 else None)
        if self.combined is not None:
            self.downloads  # noqa: B018 (a cached property, built here)

    @functools.cached_property
    def downloads(self) -> tuple[str, str]:
        """The merged pack as JSON and its rows as CSV."""
        return dumps_pack(self.combined.pack), pack_to_csv(self.combined.pack)

    @functools.cached_property
    def machines(self) -> pd.DataFrame:
        return pd.DataFrame(machine_table(self.combined.machines))


def compared_view(uploads: Sequence[tuple[str, bytes]], extra: Sequence[Source] = (),
                  shipped: Sequence[dict[str, Any]] = ()) -> ComparedView:
    key = ("extra", *((s.name, s.error, s.pack and hashlib.sha256(repr(s.pack).encode()).hexdigest()) for s in extra),
           "uploads", *((n, hashlib.sha256(d).hexdigest()) for n, d in uploads),
           "shipped", *((p["path"], id(p["rows"])) for p in shipped))
    return _build(key, tuple(uploads), tuple(extra), tuple(shipped))


@st.cache_resource(max_entries=8, show_spinner=False)
def _build(key: tuple, _uploads: tuple, _extra: tuple, _shipped: tuple) -> ComparedView:
    sources = [*_extra, *read_uploads(_uploads)]
    sources += [Source(f"shipped: {Path(p['path']).name}", pack={k: v for k, v in p.items() if k != "path"},
                       shipped=True) for p in _shipped]
    sources = drop_duplicates(sources)
    combined = combine([s for s in sources if s.used])
    if combined is None:
        return ComparedView(sources, None, [])
    uploaded = [m["label"] for m in combined.machines if any(not s.startswith("shipped: ") for s in m["sources"])]
    comparisons = order_comparisons(compare_machines(combined.pack["rows"]), first=uploaded)
    ordered = [c for c in comparisons if len(c.machines) > 1] + [c for c in comparisons if len(c.machines) == 1]
    return ComparedView(sources, combined, list(zip(range(len(ordered)), ordered, comparison_titles(ordered))))
