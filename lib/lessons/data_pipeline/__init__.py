"""Data pipeline: where an epoch goes when data is loaded, copied and fed (view), and what the page shows (screen)."""
