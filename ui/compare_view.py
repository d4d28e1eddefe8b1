"""Your results' comparisons: built once per set of packs, and held no longer than they are needed.

With the shipped packs switched on the page compares 5,000 rows: validating and merging them,
27 comparisons, their charts and a 5 MB download took seconds on every run. All of it is
a pure function of the packs on the page, so it is built once and a revisit is a lookup:

    view = compared_view(files, extra, shipped)     # the widget's UploadedFiles; other Sources; shipped Recordings
    view.chart(n, plot_height)                      # comparison n's Vega-Lite spec, built once
    view.prebuild(plot_height)                      # the warm-up: what a first visit draws and offers

Shipped packs alone are the same for every visitor: one view per process (lib.core.cache).
A visitor's uploads (or gallery picks) are that visitor's: the view is held by the session
(ui.sources.session_uploads), within the upload caps of lib.recorded.upload_budget, and let go
with it, so a closed tab gives its memory back. The downloads are made when clicked.
"""

from __future__ import annotations

import functools
import hashlib
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from lib.charts.compiled import VegaSpec
from lib.charts.machines import machines_chart
from lib.core.cache import kept
from lib.core.results import dumps_pack, pack_to_csv
from lib.lessons.your_results.compare import Drawn, drawn_comparisons, setting_name
from lib.lessons.your_results.screen import Notice
from lib.recorded.recording import Recording
from lib.recorded.uploads import MACHINE_COLUMNS, Combined, Source, combine, drop_duplicates, machine_table, plain
from ui.sources import session_uploads
from ui.specs import frozen_spec

MORE_CHARTS = 5  # a pack may hold hundreds of sweeps: a few are drawn, any other on request (each costs time to draw)


@dataclass
class ComparedView:
    sources: list[Source]  # every file, with its error or note
    combined: Combined | None
    drawn: list[Drawn]  # comparisons of several machines first, each with its title
    _charts: dict[tuple, VegaSpec] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def chart(self, n: int, plot_height: int | None = None, legend_columns: int = 1) -> VegaSpec:
        """Comparison n's chart as a Vega-Lite spec, built once per shape (visitors share it: read only)."""
        key = (n, plot_height, legend_columns)
        with self._lock:
            if key not in self._charts:
                comp = self.drawn[n].comparison
                self._charts[key] = frozen_spec(
                    machines_chart(
                        comp, x_title=setting_name(comp.setting), plot_height=plot_height, legend_columns=legend_columns
                    )
                )
            return self._charts[key]

    def prebuild(self, first_plot_height: int) -> None:
        """What a visit draws outside an iframe (the first chart at `first_plot_height`, MORE_CHARTS more),
        built now: on one CPU the shipped packs' six charts took 2.2 s of their first visitor's wait."""
        for n in range(min(len(self.drawn), 1 + MORE_CHARTS)):
            self.chart(n, first_plot_height if n == 0 else None)

    def download_json(self) -> str:
        """The merged pack as JSON: made when clicked, never kept (a big merge is tens of MB)."""
        return dumps_pack(self.combined.pack.to_json())

    def download_csv(self) -> str:
        return pack_to_csv(self.combined.pack.to_json())

    def deferred(self, make: Callable[[ComparedView], str]) -> Callable[[], str]:
        """`make(view)` for a download button, made when clicked. Streamlit keeps the callable until the
        session is shut down, minutes after its tab closed: it holds the view weakly, so the rows go then."""
        ref = weakref.ref(self)

        def data() -> str:
            view = ref()
            return make(view) if view is not None else "These results were let go when their page closed; upload again."

        return data

    @functools.cached_property
    def machines(self) -> pd.DataFrame:
        return pd.DataFrame(machine_table(self.combined.machines), columns=MACHINE_COLUMNS)


def compared_view(
    files: Sequence[Any], extra: Sequence[Source] = (), shipped: Sequence[Recording] = (), widget_key: str | None = None
) -> ComparedView:
    """The view of the widget's files (anything with .file_id, .name, .getvalue()), `extra` Sources and
    the shipped packs. Files over a cap come back as a Source with its error, and Streamlit lets go of
    their bytes; the widget's file objects (`widget_key`: the uploader's key) are closed when the session ends."""
    shipped_key = tuple((r.path, id(r.file_pack.rows)) for r in shipped)
    held = session_uploads() if get_script_run_ctx() is not None else None  # none in the warm-up
    if held is not None:
        uploaded, dropped = held.read([(f.file_id, f.name, f.getvalue) for f in files])  # removed files let go
        forget_files(dropped)
        for f in files:  # read, or known: Streamlit makes new ones for a later run
            f.close()
        if widget_key:
            held.also_release["widget"] = functools.partial(
                close_widget_files, get_script_run_ctx().session_state, widget_key
            )
    if held is None or (not files and not extra):
        if held is not None:
            held.view = None
        return _shipped_view(shipped_key, tuple(shipped))
    key = (
        "extra",
        *((s.name, s.error, s.pack and hashlib.sha256(repr(s.pack).encode()).hexdigest()) for s in extra),
        "files",
        *(f.file_id for f in files),
        "shipped",
        *shipped_key,
    )
    if held.view is None or held.view[0] != key:
        held.view = None  # the old view is let go before the new one is built
        held.view = (key, build_view([*extra, *uploaded], shipped))
    return held.view[1]


def close_widget_files(state: Any, widget_key: str) -> None:
    """At the session's end, close the file objects Streamlit keeps as the widget's value: each shares its
    file's bytes, and the session's state is kept minutes after its tab closed (for a reconnect). Not
    during a run: Streamlit's test harness reads that value again to upload the files for its next run."""
    try:
        kept = state[widget_key] if widget_key in state else None  # noqa: SIM401 (SafeSessionState has no .get)
    except Exception:  # a session ending must never fail on this
        return
    for f in kept if isinstance(kept, list) else [kept]:
        if hasattr(f, "close"):
            f.close()


def forget_files(file_ids: Sequence[str]) -> None:
    """Let Streamlit's uploaded-file store drop files the page refused: it would keep their bytes for
    the session otherwise (the widget still lists them, with the message saying why they are unused)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    for file_id in file_ids:
        ctx.uploaded_file_mgr.remove_file(ctx.session_id, file_id)


@kept(2)
def _shipped_view(key: tuple, _shipped: tuple) -> ComparedView:
    """The shipped packs' view (the key: each pack's path and the identity of its parsed rows, which
    lib.recorded keeps one per file version; the view holds them, so the id is not reused meanwhile)."""
    return build_view([], _shipped)


def build_view(sources: Sequence[Source], shipped: Sequence[Recording]) -> ComparedView:
    """`shipped`: the shipped recordings as lib.recorded loads them."""
    sources = [*sources, *(Source(f"shipped: {Path(r.path).name}", pack=r.file_pack, shipped=True) for r in shipped)]
    sources = drop_duplicates(sources)
    combined = combine([s for s in sources if s.used])
    if combined is None:
        return ComparedView(sources, None, [])
    uploaded = [m.label for m in combined.machines if any(not s.startswith("shipped: ") for s in m.sources)]
    return ComparedView(sources, combined, drawn_comparisons(combined.pack.rows, first=uploaded))


def download_buttons(view: ComparedView, file_stem: str) -> None:
    """The merged pack (JSON) and its rows (CSV), side by side; each made when clicked, not on every run: a
    large merge is tens of MB the session would otherwise hold."""
    left, right = st.columns(2)
    left.download_button(
        "Merged result pack (JSON)",
        view.deferred(ComparedView.download_json),
        file_name=f"{file_stem}.json",
        mime="application/json",
        icon=":material/download:",
        on_click="ignore",
    )
    right.download_button(
        "Merged rows (CSV)",
        view.deferred(ComparedView.download_csv),
        file_name=f"{file_stem}.csv",
        mime="text/csv",
        icon=":material/table:",
        on_click="ignore",
    )


def gallery_picks() -> list[Source]:
    """The machines picked on the Class gallery page (?gallery=12,shipped:h200_training), each note about a pick
    shown as a warning; none without such a link."""
    if not st.query_params.get("gallery"):
        return []
    from ui.gallery import gallery_sources  # the database is opened only for such a link

    picked, notes = gallery_sources(st.query_params.get("gallery"))
    for note in notes:
        st.warning(plain(note, limit=400), icon=":material/groups:")
    return picked


def file_notices(notices: Sequence[Notice]) -> None:
    """Each file's message: an error where it was not used, a note where a readable file was left out."""
    for notice in notices:
        if notice.error:
            st.error(notice.text, icon=":material/error:")
        else:
            st.info(notice.text, icon=":material/content_copy:")
