"""The class gallery: packs that visitors chose to share, kept in a SQL database, and the one
sweep every gallery machine is compared on.

    sweep    the gallery's sweep (mlp over batch size at the Training page's defaults) and how to
             record it; torch only, so a notebook or a laptop can import it without SQLAlchemy
    schema   the tables, their schema_version, engine set-up (SQLite WAL and busy timeout)
    store    add / list / hide entries, courses and their admin codes, caps and the rate limit

Imports nothing itself, so `lib.recorded.gallery.sweep` stays free of SQLAlchemy. May import
lib.core, lib.workloads and lib.recorded; never lessons, charts or Streamlit.
"""
