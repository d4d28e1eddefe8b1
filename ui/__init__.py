"""Shared Streamlit helpers for the app's pages (lib/ stays free of Streamlit).

- ui.url_settings.UrlSettings: widgets whose values round-trip through the URL, with notes for
  clamped or ignored link values.
- ui.measure.measure_sweep / cached_measurement: live measurement, cached per settings,
  one at a time per server (lib.measure_lock), with a progress bar.
- ui.sources: live vs recorded GPU results, series labels, recorded rows matching a view.
- ui.downloads.download_buttons: the rows shown as CSV and as a result pack.
- ui.sidebar.render_sidebar: devices, GPU source, CPU threads (called by streamlit_app.py).
- ui.pages: the page registry used by the router and the Home page.
"""
