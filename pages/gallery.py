"""Class gallery: every visitor's machine on the same sweep, kept in a database; filtered by course.

Layout and words only. Storage (caps, duplicates, the rate limit, admin codes) is
lib.recorded.gallery.store; the rows, crossovers and sorting lib.lessons.gallery.view; the chart
lib.charts.gallery; the connection ui.gallery. Names and machine strings come from visitors:
they go through plain() in markdown and are shown as text in the table. Answer first: the title, one
sentence (where the machines' GPUs catch up), the speed-up chart; below them the course box, the
add form (closed), the table and the pickers.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from lib.charts.gallery import speedups_chart
from lib.core.fmt import fmt_value, plural
from lib.lessons.gallery.answer import gallery_answer, gallery_notes
from lib.lessons.gallery.view import (
    SORTS,
    compare_query,
    crossover_points,
    entry_machines,
    gallery_comparison,
    shipped_machines,
    sort_machines,
    speedup_frame,
    table_rows,
)
from lib.recorded.gallery.entry import shipped_gallery_packs
from lib.recorded.gallery.sweep import GALLERY_SWEEP
from lib.recorded.uploads import plain
from ui import scaffold
from ui.chart_cache import chart_spec
from ui.gallery import GalleryUnavailable, app_base_url, open_gallery, unavailable, where_stored
from ui.gallery_forms import add_form, course_filter, instructor_forms
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
        top.answer.markdown("The course code below is not one this gallery knows, so there is nothing to show yet.")
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
shipped = shipped_machines(shipped_gallery_packs())
shared = entry_machines(entries, packs)
machines = shipped + shared
comparison = gallery_comparison(machines)
top.answer.markdown(gallery_answer(machines, comparison))
frame = speedup_frame(comparison)
crossings = crossover_points(comparison)
scaffold.chart_or_why(
    top.chart,
    chart_spec(speedups_chart, frame, crossings, plot_height=160 if scaffold.embedded() else 220)
    if not frame.empty else None,
    "No machine here has both CPU and GPU results yet, so there is no speed-up line to draw.", key=f"{NS}.chart")
if notes := gallery_notes(machines, comparison):  # what the answer leaves out, under the chart (issue 37)
    top.note.markdown(notes)
if not frame.empty:
    cpu_only = [m.line for m in machines if m.line not in set(frame["machine"])]
    top.note.caption("One line per machine: its CPU time divided by its GPU time at each batch size (above 1× the GPU "
                     "is faster); "
                     + ("a diamond marks where it catches up." if len(crossings) else
                        "no diamond is drawn: no line's crossing can be placed closer than the range the answer gives.")
                     + (f" CPU only, so no line: {plain('; '.join(cpu_only), limit=600)}." if cpu_only else ""))

with scaffold.why("What the gallery is") as opened:
    if opened:
        st.markdown(
            "Every machine visitors chose to share, measured on **the same sweep**: "
            f"{plain(GALLERY_SWEEP.describe(), limit=300)}. Each line is one machine's GPU speed-up over its own CPU, "
            "so you can see where your GPU starts to win beside your class's machines and the shipped H200 and H100.")

# -- add a machine ---------------------------------------------------------------------------------
with st.expander("Add your machine", expanded=False):
    add_form(gallery, course, app_base_url())

# -- the machines ----------------------------------------------------------------------------------
st.header(f"The machines of course {plain(course)}" if course else "Every machine")
st.caption(plural(total, "shared entry", "shared entries")
           + (f" in course {plain(course)}" if course else "")
           + (f" (page {page} of {pages}: {len(shared)} of them here)" if pages > 1 else "")
           + f", and {fmt_value(len(shipped))} shipped with the app. Stored in {where_stored(gallery)}."
           + (f" {plural(waiting, 'more waits', 'more wait')} for the instructor's approval (many were added in "
              "the last hour)." if waiting else ""))
SORT_NAMES = {"crossover": "where the GPU catches up (smallest first)", "newest": "newest first",
              "name": "who named it", "machine": "GPU or CPU name"}
order = url.selectbox("sort", "Sort by", list(SORTS), "crossover", format_func=SORT_NAMES.get)
url.show_notes()
url.sync_url()
machines = sort_machines(machines, comparison, order)
table = pd.DataFrame(table_rows(machines, comparison))
st.dataframe(table, hide_index=True, width="stretch", column_order=[c for c in table.columns if c != "key"],
             column_config={"GPU catches up at batch size": st.column_config.NumberColumn(format="%.0f")})
st.caption("Click a column's header to sort by it. 'GPU catches up at batch size' compares each machine's GPU "
           "with its own CPU, interpolated between the two measured batch sizes around the crossing and rounded to "
           "the digits they support; it is left empty where they are more than 4× apart (the crossover column gives "
           "them).")

# -- compare two -----------------------------------------------------------------------------------
st.header("Compare two machines")
lines = {m.key: m.line for m in machines}
# no 'Select all' entry: on a box that takes two it would pick the first two in the table's order
picks = st.multiselect("Pick two machines", list(lines), key=f"{NS}.picks", max_selections=2, select_all=False,
                       format_func=lambda k: lines.get(k, k))
if len(picks) == 2:
    st.page_link("pages/your_results.py", label="Compare them on Your results: both machines' CPU and GPU "
                 "curves, their fingerprints, a download", icon=":material/compare_arrows:",
                 query_params=compare_query(picks))
else:
    st.caption("Pick two (yours and the H200, say) to open them together on the Your results page.")

instructor_forms(gallery, course, app_base_url())
