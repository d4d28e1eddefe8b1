"""What every lesson page lays out around its own charts, the same way on every page.

    top = answer_first("Jacobian: when the algorithm beats the hardware")   the title, then slots filled later:
                                                            top.answer (one sentence), top.chart, top.note
    chart_or_why(top.chart, chart, why)                     the chart, or a sentence saying why there is none
    plot_height(220)                                        a chart's own plot height (its legends add to it),
                                                            smaller inside an iframe (?embed=true)
    chart_height(380)                                       the same for a chart given as one total height
    page_style()                                            smaller headings on a phone and inside an iframe
    why(label) as open_                                     a closed expander 'Why? …' for the long words (lazy)
    why_lines(label, lines)                                 the same, one paragraph per line of lines() (built when open)
    why_words(label, paragraphs, caption)                   the same, holding only words
    paragraphs(texts, caption=False)                        each text its own markdown (or caption)
    why_said(label, make, *args)                            a lazy 'Why? …' of a lesson's words (Said), made when open
    lazy_expander(label, key) as open_                      a closed expander whose contents run only while open
    source_caption(source, threads)                         where each device's numbers come from
    notice(text)                                            an info box (nothing when text is None)
    point_notes(rows, describe)                             expander 'Notes on 3 points' (or 'Points not measured (3)')
    refused_table(refused)                                  'Points not measured (3)' as a table, each with why
    results_on_screen(rows, columns, live, pack, recorded, file_stem=..., key=...)   the rows, their downloads (lazy)
    record_view(commands, caption)                          lazy expander 'Record this view on a GPU machine'
    sweep_offers(namespace, offers)                         buttons that put a recorded sweep's settings in the widgets

The words and numbers come from lib.lessons.common.onscreen (tested without Streamlit); this module only
places them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from lib.core.fmt import age_words, fmt_value
from lib.core.point import rows_of
from lib.lessons.common import onscreen
from lib.lessons.common.live import DEFAULT_CPU_THREADS
from lib.lessons.common.results_shown import ResultsShown
from lib.lessons.common.said import Said, Style
from lib.recorded.pack import Fingerprint
from lib.recorded.sources import GpuSource
from ui.downloads import RecordedShown, download_buttons

INFO = ":material/info:"
NO_CHART = ":material/info:"
EMBEDDED_CHART_HEIGHT = 260  # an 800 × 600 iframe: the title, the answer and the chart with its legend, with
# room to spare for an answer one line longer (the data pipeline's chart ended 0.16 px past the frame once)
PHONE_SAFE_CHART_HEIGHT = 340  # fits under the title and the answer on a 390 × 844 phone
PLOT_HEIGHT, EMBEDDED_PLOT_HEIGHT = 200, 140  # a first chart's plot, without its legends and x axis
# Streamlit's title is 2.75rem under 6rem of padding: on a phone a title of three words wraps into four
# lines and pushes the chart off the first screen, and an iframe has no room for it either. 4rem still
# clears the header bar.
STYLE = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 4rem; }
@media (max-width: 640px) {
  [data-testid="stHeading"] h1 { font-size: 1.9rem; padding-top: 0.5rem; }
}
.streamlit-embedded [data-testid="stHeading"] h1 { font-size: 1.9rem; padding-top: 0; }
.streamlit-embedded [data-testid="stMainBlockContainer"] { padding-top: 1.5rem; }
</style>"""
RECORD_TITLE = "Record this view on a GPU machine"


@dataclass
class AnswerFirst:
    """The slots of a page's first screen, made before its widgets and filled once they are read."""

    answer: Any  # the one-sentence answer (one element: a later answer replaces an earlier one)
    chart: Any  # the chart (or why there is none)
    note: Any  # one short caption under it: where the numbers came from


def answer_first(title: str) -> AnswerFirst:
    """The page's title, then empty slots for the answer and the chart: the widgets come below them,
    so the first screen shows the answer whatever the page's controls (Streamlit draws containers
    in the order they were made, and fills them whenever the script writes to them)."""
    st.title(title)
    return AnswerFirst(st.container(key="answer").empty(), st.container(key="first_chart"), st.container())


def embedded() -> bool:
    """Whether the page is shown inside an iframe (?embed=true), as course material shows it."""
    return bool(getattr(st.context, "is_embedded", False))


def page_style() -> None:
    """Smaller headings and less space above them on a phone and inside an iframe (CSS only: nothing is
    drawn). The router calls it once per run, for every page."""
    st.html(STYLE)


def plot_height(height: int = PLOT_HEIGHT) -> int:
    """A first chart's plot height (the chart builders add its legends' rows): smaller inside an iframe."""
    return min(height, EMBEDDED_PLOT_HEIGHT) if embedded() else height


def chart_height(height: int, *, first: bool = True) -> int:
    """A chart's height: the page's first chart no taller than fits a phone's first screen under the
    title and the answer, and smaller still inside an iframe (800 × 600)."""
    if embedded():
        return min(height, EMBEDDED_CHART_HEIGHT)
    return min(height, PHONE_SAFE_CHART_HEIGHT) if first else height


def chart_or_why(box: Any, chart: Any, why_none: str, **kwargs: Any) -> None:
    """Draw the chart (an Altair chart, or a finished spec from ui.specs.chart_spec) in `box`, or, where it would
    be empty axes, a sentence saying why there is none."""
    if chart is None:
        box.markdown(f"{NO_CHART} {why_none}")
    elif isinstance(chart, dict):
        box.vega_lite_chart(chart, width="stretch", **kwargs)
    else:
        box.altair_chart(chart, width="stretch", **kwargs)


@contextmanager
def lazy_expander(label: str, key: str) -> Iterator[bool]:
    """A closed expander whose contents run only while it is open (Streamlit's lazy expander: opening
    or closing it reruns the page), yielding whether it is open. Its charts and tables cost the server
    and, above all, a new visitor's browser (it draws every chart of a closed expander too) nothing
    until someone opens it. Its open state is st.session_state[key] (is_open), which a test sets."""
    box = st.expander(label, expanded=False, key=key, on_change="rerun")
    with box:
        yield bool(box.open)


def is_open(key: str) -> bool:
    """Whether the lazy expander of `key` is open, read before it is laid out (a page that measures
    more for it decides so before its chart)."""
    return bool(st.session_state.get(key))


WHY_KEY = "why."  # a 'Why?' section's open state: st.session_state[WHY_KEY + its label]


@contextmanager
def why(label: str, *, drawn: bool = False) -> Iterator[bool]:
    """A closed 'Why? …' expander for the long explanations, lazy (yields whether it is open; the caller
    writes its words only then): a closed expander's contents are otherwise sent and drawn by a new
    visitor's browser before the page's first chart is. Its label must not change with the
    view: it is part of the expander's identity, and its key. `drawn`: its contents are always sent
    (yields True), for a chart whose numbers words outside it quote: they must be on the page."""
    label = label if label.startswith("Why") else f"Why? {label}"
    if drawn:
        with st.expander(label, expanded=False):
            yield True
        return
    with lazy_expander(label, WHY_KEY + label) as open_:
        yield open_


def why_lines(
    label: str,
    lines: Callable[[], Iterable[str]] | Sequence[str],
    *,
    caption: Callable[[], str | None] | None = None,
    drawn: bool = False,
) -> None:
    """A 'Why? …' expander (why) holding one markdown paragraph per line of `lines` (a function's: called only
    while it is open, or always, `drawn`), then `caption()` when it says something."""
    with why(label, drawn=drawn) as opened:
        if not opened:
            return
        for line in lines() if callable(lines) else lines:
            st.markdown(line)
        if caption is not None and (text := caption()):
            st.caption(text)


def paragraphs(texts: Iterable[str | None], *, caption: bool = False, box: Any = None) -> None:
    """Each text (those not None or empty) as its own markdown element, or caption, in `box` (else here)."""
    box = box or st
    for text in texts:
        if text:
            (box.caption if caption else box.markdown)(text)


def say(said: Iterable[Said], box: Any = None) -> None:
    """Each of a lesson's words as it says it is shown (lib.lessons.common.said): markdown, a caption or an
    info box, in order."""
    box = box or st
    for one in said:
        if one.style is Style.CAPTION:
            box.caption(one.words)
        elif one.style is Style.NOTICE:
            box.info(one.words, icon=INFO)
        else:
            box.markdown(one.words)


def why_said(label: str, make: Callable[..., Iterable[Said]], *args: Any) -> None:
    """A lazy 'Why? …' expander (see why) holding the words `make(*args)` returns, made only while it is open."""
    with why(label) as opened:
        if opened:
            say(make(*args))


def why_words(
    label: str,
    paragraphs: Iterable[str] = (),
    caption: str | None = None,
    *,
    code: str | None = None,
    footnote: str | None = None,
) -> None:
    """A lazy 'Why? …' expander holding only words, written only while it is open (see why): a caption,
    a shell command (`code`), paragraphs of markdown, then a footnote (a caption), each when given."""
    with why(label) as opened:
        if opened:
            if caption:
                st.caption(caption)
            if code:
                st.code(code, language="bash")
            for paragraph in paragraphs:
                st.markdown(paragraph)
            if footnote:
                st.caption(footnote)


def source_caption(
    source: GpuSource,
    threads: int = DEFAULT_CPU_THREADS,
    *,
    not_live: str | None = None,
    box: Any = None,
    measured_at: float | None = None,
    drawn: str | None = None,
    live_rows: Sequence[dict] | None = None,
) -> None:
    """'CPU: measured live on this server with 1 thread (3 min ago). GPU: recorded on NVIDIA H200, …' (see
    lib.lessons.common.onscreen.source_sentence for `not_live`), in `box` (default: where the page is);
    `measured_at`: when the live result shown was measured (ui.measure.oldest_measured_at), if it was;
    `drawn`: the recorded machine as the curves name it (RecordedViews.machine); `live_rows`: the live rows on
    screen, so a view none of whose CPU points could run here does not say "measured live"."""
    age = age_words(time.time() - measured_at) if measured_at is not None else None
    (box or st).caption(
        onscreen.source_sentence(source, threads, not_live=not_live, age=age, drawn=drawn, live_rows=live_rows)
    )


def notice(text: str | None, icon: str = INFO, *, box: Any = None) -> None:
    """An info box, e.g. when the recorded results hold nothing for the view on screen; None shows nothing."""
    if text:
        (box or st).info(text, icon=icon)


def markdown_or_empty(box: Any, text: str | None) -> None:
    """The text in a placeholder (st.empty), or the placeholder emptied: a redraw that has nothing to say
    there leaves nothing of the last one."""
    if text:
        box.markdown(text)
    else:
        box.empty()


def point_notes(rows: Iterable[dict], describe: Callable[[dict], str], *, remarks: bool = True) -> None:
    """A closed expander listing the rows not measured (and, with `remarks`, those measured with a
    remark), each placed by `describe(row)`; nothing when every point is clean."""
    lines = onscreen.point_notes(rows, describe, remarks=remarks)
    if not lines:
        return
    with st.expander(onscreen.notes_title(len(lines), remarks=remarks), expanded=False):
        for line in lines:
            st.markdown(f"- {line}")


def refused_table(refused: Sequence[dict]) -> None:
    """The points not measured as a table, each with its reason (a 'why' column, drawn wide); a caption
    saying every point was timed when none was refused."""
    if not refused:
        st.caption("Every point on screen was timed.")
        return
    st.markdown(f"**Points not measured** ({fmt_value(len(refused))}), each with the reason:")
    st.dataframe(
        pd.DataFrame(list(refused)),
        hide_index=True,
        width="stretch",
        column_config={"why": st.column_config.TextColumn("why", width="large")},
    )


def results_on_screen(
    rows: Sequence[dict],
    columns: Sequence[str],
    live: Sequence[dict],
    pack: Mapping[str, Any] | None = None,
    recorded: Sequence[dict] = (),
    *,
    file_stem: str,
    key: str,
    more: Callable[[], None] | None = None,
) -> None:
    """A closed lazy expander 'Results on screen' (st.session_state[key]): the rows (those of `columns`
    they have) and two downloads, the live rows and the recorded ones shown (with their pack's
    machine), then what `more()` lays out. Lazy: a table loads the frontend's grid code into a new visitor's
    browser, and each download is built as a file on every run."""
    with lazy_expander("Results on screen", key) as open_:
        if open_:
            shown = [RecordedShown(Fingerprint.from_json(pack["machine"]), recorded)] if pack and recorded else []
            _table_and_downloads(rows, columns, live, shown, file_stem, more)


def shown_results(
    results: ResultsShown, columns: Sequence[str], *, file_stem: str, key: str, more: Callable[[], None] | None = None
) -> None:
    """results_on_screen of a lesson's typed results: their rows are made here, the screen's edge, and only
    once the expander is open."""
    with lazy_expander("Results on screen", key) as open_:
        if open_:
            machine = results.recorded_by
            shown = [RecordedShown(machine, rows_of(results.recorded))] if machine else []
            rows = [s.row() for s in results.shown]
            _table_and_downloads(rows, columns, rows_of(results.live), shown, file_stem, more)


def _table_and_downloads(
    rows: Sequence[dict],
    columns: Sequence[str],
    live: Sequence[dict],
    recorded: Sequence[RecordedShown],
    file_stem: str,
    more: Callable[[], None] | None,
) -> None:
    frame = pd.DataFrame(list(rows))
    st.dataframe(frame[[c for c in columns if c in frame.columns]], hide_index=True)
    download_buttons(live, recorded, file_stem=file_stem)
    if more is not None:
        more()


RECORD_KEY = "record_view"  # the open state of a page's 'Record this view on a GPU machine' (one per page)


def record_view(commands: Sequence[str], caption: str, *, title: str = RECORD_TITLE) -> None:
    """A closed lazy expander with the command lines that record this view on a GPU machine, one code
    block each, and a caption saying what the app then does with them. Lazy: a code block loads the
    syntax highlighter (the frontend's largest chunk after Plotly's), which a new visitor's browser would
    otherwise load before the page's chart."""
    with lazy_expander(title, RECORD_KEY) as open_:
        if open_:
            for command in commands:
                st.code(command, language="bash")
            st.caption(caption)


def _use(namespace: str, settings: Mapping[str, Any]) -> None:
    for key, value in settings.items():
        st.session_state[f"{namespace}.{key}"] = value


def sweep_offers(
    namespace: str,
    offers: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    limit: int = 8,
    heading: str = "Recorded sweeps this page can show:",
) -> None:
    """A button per offer (label, {URL key: widget value}) that puts those values into the page's
    UrlSettings widgets; nothing when there is no offer."""
    if not offers:
        return
    st.markdown(heading)
    for n, (label, settings) in enumerate(offers[:limit]):
        st.button(label, key=f"{namespace}.use.{n}", on_click=_use, args=(namespace, dict(settings)))
