"""Home: the question, the one-chart answer from a recorded pack, and a link to each lesson.

Answer first: the title, the one sentence read from the chart, the chart; the explanation behind
'Why?', the lessons below. Layout and words only: lib.lessons.home.screen builds the answer and the words
under it, ui.home_answer keeps it with its chart for every visitor.
"""

from __future__ import annotations

import streamlit as st

from lib.lessons.home.screen import NO_RESULTS, NO_RESULTS_NOTE, refusal
from lib.lessons.home.view import WHY
from ui import scaffold
from ui.home_answer import home_answer
from ui.pages import lesson_pages

top = scaffold.answer_first("When does the GPU win?")

home = home_answer()
if home.cannot:  # what is not drawn up top, which machine to pick instead under it (one sentence)
    said, instead = refusal(home.cannot)
    top.answer.markdown(said)
    if instead:
        top.note.markdown(instead)
elif home.screen:
    top.answer.markdown(home.screen.answer)
    top.chart.vega_lite_chart(home.spec, width="stretch")
    top.note.caption(home.screen.caption)
    if home.screen.ends:
        st.markdown(home.screen.ends)
    if home.screen.modes:
        st.markdown(home.screen.modes)
else:
    top.answer.markdown(NO_RESULTS)
    scaffold.notice(NO_RESULTS_NOTE, box=top.chart)

with scaffold.why("Why is my model slower on the GPU?") as opened:
    if opened:
        st.markdown(WHY)

st.markdown("### Lessons")
for page in lesson_pages():
    st.page_link(page.path, label=page.title, icon=page.icon)
    st.caption(page.blurb)
