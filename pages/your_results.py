"""Your results: upload result packs recorded elsewhere, compare machines, download them merged.

Layout only: the words are lib.lessons.your_results.screen's; reading the files (data only, size-capped,
validated field by field: a bad file gets one message naming the file and the field), merging and comparing
lib.lessons.your_results.compare's; the chart lib.charts.machines'. Answer first: the title, one sentence read
from the first comparison, its chart; the uploader and the switch below; the rest after them.
"""

from __future__ import annotations

import streamlit as st

from lib.core.fmt import plural
from lib.lessons.your_results import screen as lesson
from lib.recorded.uploads import plain
from ui import scaffold
from ui.compare_view import MORE_CHARTS, compared_view, download_buttons, file_notices, gallery_picks
from ui.sources import machine_recordings, remember_uploads
from ui.url_settings import UrlSettings

NS = "your_results"


def draw(n: int, comp, title: str, slots: scaffold.AnswerFirst | None = None) -> None:
    """One comparison: its title, the chart, what was held fixed, and the words computed from it; the
    first one in the page's first-screen slots (`slots`), under the answer."""
    head, body = (slots.chart, slots.note) if slots else (st.container(), st.container())
    if slots:
        head.markdown(f"**{plain(title)}**")
    else:
        head.subheader(plain(title))
    # the spec is built once per process (ui.compare_view): a revisit only sends it
    head.vega_lite_chart(view.chart(n, scaffold.plot_height() if slots else None, 2 if scaffold.embedded() else 1),
                         width="stretch", key=f"{NS}.chart.{n}")
    words = lesson.comparison_words(comp)
    body.caption(words.fixed)
    for line in (*words.lines, *filter(None, [words.fastest])):
        body.markdown(line)


top = scaffold.answer_first("Your results")
url = UrlSettings(NS)
uploaded = st.file_uploader("Result packs (.json, or .csv of their rows)", type=["json", "csv"],
                            accept_multiple_files=True, key=f"{NS}.files", max_upload_size=lesson.UPLOAD_MB,
                            help=lesson.UPLOAD_HELP)
shipped_packs, _ = machine_recordings()  # one per recording (no leases); a failed one is reported in the sidebar
shipped_label, shipped_help = lesson.shipped_toggle(len(shipped_packs))
with_shipped = url.toggle("shipped", shipped_label, False, help=shipped_help)
url.show_notes()
url.sync_url()

scaffold.why_words("How to record your own pack", [lesson.HOW_TO_RECORD], code=lesson.RECORD_COMMANDS,
                   footnote=lesson.CSV_CAPTION)

# -- read, check, merge ------------------------------------------------------------------------------
# read, validated, merged and compared once per set of packs (a revisit is a lookup), with a gallery link's picks
view = compared_view(uploaded or [], gallery_picks(), shipped_packs if with_shipped else (), widget_key=f"{NS}.files")
drawn = view.drawn  # comparisons of several machines first
on = lesson.screen(view.sources, view.combined, drawn, MORE_CHARTS)
file_notices(on.notices)
remember_uploads(*on.uploads)
if on.used:
    st.caption(on.used)
if on.answer is None:
    top.answer.markdown(lesson.nothing_yet(len(shipped_packs)))
    top.note.markdown(lesson.NOTHING_NOTE)  # under the answer
    st.stop()

# -- one chart per workload and swept setting: the first on the first screen, a few more below, any other on request
top.answer.markdown(on.answer)
if drawn:
    draw(*drawn[0], slots=top)
if drawn[1:]:
    st.header("More sweeps compared")
for n, comp, title in drawn[1:1 + MORE_CHARTS]:
    draw(n, comp, title)
if on.more:
    picked = st.selectbox(f"{plural(len(on.more), 'more sweep')}: pick one to draw", range(len(on.more)),
                          index=None, format_func=on.more.__getitem__, key=f"{NS}.more", placeholder="choose a sweep",
                          help="Every sweep is also in the download below.")
    if picked is not None:
        draw(*drawn[1 + MORE_CHARTS + picked])
if drawn:
    top.note.caption(lesson.POINTS_CAPTION)
if on.skipped:
    st.caption(on.skipped)

# -- the machines -----------------------------------------------------------------------------------
st.header("The machines")
st.dataframe(view.machines, hide_index=True, width="stretch")
st.caption(lesson.MACHINES_CAPTION)

# -- download ---------------------------------------------------------------------------------------
st.header("Download everything on this page")
download_buttons(view, "your_results")  # each made when clicked
st.caption(on.download)
