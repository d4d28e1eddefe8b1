"""The floor under every page's time in benchmarks/page_speed.py: a bare Streamlit page with one small
Altair chart, served and opened the same way. What remains above it is this app's own work."""

import altair as alt
import pandas as pd
import streamlit as st

st.title("Floor")
st.altair_chart(alt.Chart(pd.DataFrame({"x": [1, 2, 3], "y": [1, 4, 9]})).mark_line().encode(x="x", y="y"))
