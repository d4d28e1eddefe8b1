"""Measurement core of "When does the GPU win?".

Everything here runs without Streamlit (a GPU box used only for recording has torch,
pandas and scikit-learn); only lib.charts needs Altair.
"""

APP_VERSION = "0.1.0"
