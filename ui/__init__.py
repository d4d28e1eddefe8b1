"""Shared Streamlit helpers for the app's pages (lib/ stays free of Streamlit).

A lesson page, top to bottom:

    from lib.workloads import get_workload
    from ui.measure import measure_sweep, cached_measurement
    from ui.sources import current_source, live_devices, recorded_pack, recorded_rows
    from lib.recorded.sources import series_label
    from ui.url_settings import UrlSettings
    from ui import scaffold

    url = UrlSettings("jacobian")                      # also reroutes a cold first visit through the router
    val = url.select_slider("val", "Batch of inputs", [10, 100, 1000], 100)
    url.show_notes()                                   # what a link's bad values were changed to
    url.sync_url()                                     # the view's settings into the URL
    source = current_source()                          # the sidebar's choice: live GPU / recorded machine / none
    live = measure_sweep(workload, "val", [10, 100, 1000], fixed, live_devices(source), current=val)  # a LiveCurve
    scaffold.source_caption(source)                    # 'CPU: measured live … GPU: recorded on …'
    gpu, note = recorded_rows(source, workload, "val", settings)
    scaffold.notice(note)                              # an info box when the recorded side lacks this view
    ... lib.charts.time_chart(frame, TimeLines("val"), ...) with series_label(...) legends ...
    scaffold.point_notes(rows, describe)               # 'Notes on 3 points': not measured, or with a remark
    scaffold.results_on_screen(rows, columns, live, recorded_pack(source), gpu,   # 'Results on screen',
                               file_stem="jacobian", key="jacobian.results")   # lazy: runs when opened
    scaffold.record_view([command], caption)           # 'Record this view on a GPU machine'

- ui.url_settings.UrlSettings: widgets whose values round-trip through the URL, clamped or ignored
  with a visible note when a link carries bad values.
- ui.measure.measure_sweep / cached_measurement: live measurement kept per settings (lib.core.cache),
  one at a time per server (lib.core.measure_lock.MEASURE_LOCK; waiting visitors are told), with a progress bar.
- ui.sources: live vs recorded GPU results, series labels, recorded rows matching a view.
- ui.scaffold: what every lesson page lays out around its charts (source caption, info boxes, notes on
  points, results on screen with downloads, recording commands, buttons to recorded sweeps); the words
  come from lib.lessons.common.onscreen.
- ui.downloads.download_buttons: the rows on screen as CSV and as a result pack.
- ui.sidebar.render_sidebar: devices, GPU source, CPU threads (called by streamlit_app.py).
- ui.pages: the page registry used by the router and the Home page.
- ui.router.ensure_router: for a page that uses neither UrlSettings nor current_source.
"""
