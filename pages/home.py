"""Home: the question, the Training page's answer at its default view, and a link to each lesson.

Answer first: the title, Training's one sentence, its chart; the link to explore it on the Training page, the
explanation behind 'Why?', the lessons below. Layout and words only: lib.lessons.home.screen takes the answer
from the Training lesson, ui.home_answer keeps it with its chart for every visitor.
"""

from __future__ import annotations

import streamlit as st

from lib.lessons.home.screen import refusal
from lib.lessons.home.words import EXPLORE, NO_RESULTS, NO_RESULTS_NOTE, WHY
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
    top.answer.markdown(home.screen.headline)
    if home.spec:
        top.chart.vega_lite_chart(home.spec, width="stretch")
    top.note.caption(home.screen.caption)
    if home.screen.notes:
        st.markdown(home.screen.notes)
    st.page_link("pages/training.py", label=EXPLORE, icon=":material/show_chart:")
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
