"""What each page computes from result rows: frames, sentences, regimes. No Streamlit, no Altair.

    explain         sentences shared by every lesson (who wins, where they cross, why)
    onscreen        what every page shows around its charts (sources, series, notes on points)
    live            the app's live-measurement policy (threads, work caps, grids)
    home   training   pipeline   timing_pitfalls   jacobian   seed_cases   scaling   compare

Every number a sentence states is read from the rows passed in, so each is unit-tested without a
browser. May import lib.core, lib.workloads and lib.recorded; never charts, ui or pages.
"""
