"""Shared Streamlit helpers for the app's pages (lib/ stays free of Streamlit).

A lesson page, top to bottom:

    from lib.workloads import get_workload
    from ui.measure import measure_sweep, cached_measurement
    from ui.sources import current_source, live_devices, recorded_pack, recorded_rows
    from lib.recorded.sources import series_label
    from ui.url_settings import UrlSettings
    from ui.downloads import download_buttons

    url = UrlSettings("jacobian")                      # also reroutes a cold first visit through the router
    val = url.select_slider("val", "Batch of inputs", [10, 100, 1000], 100)
    url.show_notes()                                   # what a link's bad values were changed to
    url.sync_url()                                     # the view's settings into the URL
    source = current_source()                          # the sidebar's choice: live GPU / recorded machine / none
    rows = measure_sweep(workload, "val", [10, 100, 1000], fixed, live_devices(source), current=val)
    gpu, note = recorded_rows(source, workload, "val", settings)
    ... lib.charts.time_chart(frame, "val", ...) with series_label(...) legends ...
    download_buttons(rows, [(recorded_pack(source), gpu)], file_stem="jacobian")

- ui.url_settings.UrlSettings: widgets whose values round-trip through the URL, clamped or ignored
  with a visible note when a link carries bad values.
- ui.measure.measure_sweep / cached_measurement: live measurement cached per settings (st.cache_data),
  one at a time per server (lib.core.measure_lock.MEASURE_LOCK; waiting visitors are told), with a progress bar.
- ui.sources: live vs recorded GPU results, series labels, recorded rows matching a view.
- ui.downloads.download_buttons: the rows on screen as CSV and as a result pack.
- ui.sidebar.render_sidebar: devices, GPU source, CPU threads (called by streamlit_app.py).
- ui.pages: the page registry used by the router and the Home page.
- ui.router.ensure_router: for a page that uses neither UrlSettings nor current_source.
"""
