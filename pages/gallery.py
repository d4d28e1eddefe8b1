"""Class gallery: every visitor's machine on the same sweep, kept in a database; filtered by course.

Layout only: the words, the chart's frames and the answer are lib.lessons.gallery.screen's. Storage
(caps, duplicates, the rate limit, admin codes) is lib.recorded.gallery.store; the rows, crossovers and
sorting lib.lessons.gallery.view; the chart lib.charts.gallery; the connection ui.gallery. Names and
machine strings come from visitors: they go through plain() in markdown and are shown as text in the table.
Answer first: the title, one sentence (where the machines' GPUs catch up), the speed-up chart; below them
the course box, the add form (closed), the table and the pickers.
"""

from __future__ import annotations

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from lib.charts.gallery import speedups_chart
from lib.lessons.gallery import screen as lesson
from lib.lessons.gallery.view import SORTS, compare_query, entry_machines, shipped_machines, sort_machines, table_frame
from lib.recorded.gallery.entry import shipped_gallery_packs
from lib.recorded.uploads import plain
from ui import scaffold
from ui.gallery import GalleryUnavailable, app_base_url, open_gallery, unavailable, where_stored
from ui.gallery_forms import add_form, course_filter, instructor_forms
from ui.specs import chart_spec
from ui.url_settings import UrlSettings

NS = "gallery"

top = scaffold.answer_first("Class gallery")
url = UrlSettings(NS)
try:  # a database that is down, or went away under a pooled connection, is a note, never a traceback
    gallery = open_gallery()
    course, course_note = course_filter(gallery)
    if course_note:
        st.warning(plain(course_note, limit=300), icon=":material/link:")
    if course is None:
        top.answer.markdown(lesson.UNKNOWN_COURSE)
        st.stop()
    total = gallery.count(course=course or None)
    waiting = gallery.waiting(course or None)  # added past the pace: shown once approved
    size = gallery.limits.page_size
    pages = max(1, -(-total // size))
    # one page of entries (and only their packs) per view, however many the gallery holds
    page = url.slider("page", f"Page of entries ({size} a page, newest first)", 1, pages, 1) if pages > 1 else 1
    entries = gallery.entries(course=course or None, limit=size, offset=(page - 1) * size)
    packs = gallery.packs(e.id for e in entries)
except (GalleryUnavailable, SQLAlchemyError) as err:
    shown = err if isinstance(err, GalleryUnavailable) else unavailable(err)
    top.answer.error(plain(str(shown), limit=500), icon=":material/database:")
    st.stop()

# -- the machines: the answer and the chart first ---------------------------------------------------------
shipped, shared = shipped_machines(shipped_gallery_packs()), entry_machines(entries, packs)
on = lesson.screen(shipped, shared)
top.answer.markdown(on.answer)
scaffold.chart_or_why(
    top.chart,
    chart_spec(speedups_chart, on.frame, on.crossings, plot_height=160 if scaffold.embedded() else 220)
    if on.chart_caption else None, lesson.NO_CHART, key=f"{NS}.chart")
if on.notes:  # what the answer leaves out, under the chart
    top.note.markdown(on.notes)
if on.chart_caption:
    top.note.caption(on.chart_caption)

with scaffold.why("What the gallery is") as opened:
    if opened:
        st.markdown(lesson.what_it_is())

# -- add a machine ---------------------------------------------------------------------------------
with st.expander("Add your machine", expanded=False):
    add_form(gallery, course, app_base_url())

# -- the machines ----------------------------------------------------------------------------------
st.header(lesson.header(course))
st.caption(lesson.count_caption(total, course, page, pages, len(shared), len(shipped), where_stored(gallery), waiting))
order = url.selectbox("sort", "Sort by", list(SORTS), "crossover", format_func=lesson.SORT_NAMES.get)
url.show_notes()
url.sync_url()
machines = sort_machines(on.machines, on.comparison, order)
table = table_frame(machines, on.comparison)
st.dataframe(table, hide_index=True, width="stretch", column_order=[c for c in table.columns if c != "key"],
             column_config={"GPU catches up at batch size": st.column_config.NumberColumn(format="%.0f")})
st.caption(lesson.TABLE_CAPTION)

# -- compare two -----------------------------------------------------------------------------------
st.header("Compare two machines")
lines = {m.key: m.line for m in machines}
# no 'Select all' entry: on a box that takes two it would pick the first two in the table's order
picks = st.multiselect("Pick two machines", list(lines), key=f"{NS}.picks", max_selections=2, select_all=False,
                       format_func=lines.get)
if len(picks) == 2:
    st.page_link("pages/your_results.py", label=lesson.COMPARE_LINK, icon=":material/compare_arrows:",
                 query_params=compare_query(picks))
else:
    st.caption(lesson.PICK_TWO)

instructor_forms(gallery, course, app_base_url())
