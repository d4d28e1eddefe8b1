"""Download what is on screen: the rows as CSV, and as a result pack (lib.core.results schema)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import streamlit as st

from lib.core.cache import kept
from lib.core.results import (
    SCHEMA_VERSION,
    PackError,
    build_pack,
    dumps_pack,
    merge_packs,
    rows_to_csv,
    spreadsheet_csv,
)
from lib.recorded.pack import Fingerprint, JsonObject

# Columns pages add for display only; they are not settings and must not enter a pack.
# drawn or worded, not part of the result schema: the other days a recorded point was recorded on
# stay in its origin_note (a download holds the row shown, of the day drawn)
DISPLAY_ONLY = ("series", "epoch_iqr_s", "noisy", "other_recordings", "recordings", "epoch_s_by_recording")


@kept(1)
def _this_machine() -> Fingerprint:
    from lib.core.devices import machine_fingerprint

    return Fingerprint.from_json(machine_fingerprint())


def clean(rows: Sequence[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in DISPLAY_ONLY} for r in rows]


class RecordedShown(NamedTuple):
    """Recorded rows on screen and the machine that recorded them (a download names it)."""

    machine: Fingerprint
    rows: Sequence[dict]


def results_pack(live_rows: Sequence[dict], recorded: Sequence[RecordedShown] = ()) -> JsonObject | None:
    """One pack of the live rows (this machine) and the recorded rows shown (each with its machine)."""
    packs = []
    if live_rows:
        packs.append(build_pack(clean(live_rows), _this_machine().to_json()))
    for shown in recorded:
        if shown.rows:
            packs.append(
                {"schema_version": SCHEMA_VERSION, "machine": shown.machine.to_json(), "rows": clean(shown.rows)}
            )
    if not packs:
        return None
    return merge_packs(packs)


def download_buttons(
    live_rows: Sequence[dict], recorded: Sequence[RecordedShown] = (), *, file_stem: str, container: Any = None
) -> None:
    """Two buttons: the rows shown as CSV, and as a result pack that 'Your results' can load."""
    where = container or st
    try:
        pack = results_pack(live_rows, recorded)
    except PackError as err:  # should not happen: say so rather than fail the page
        where.warning(f"Could not build a result pack of these rows: {err}")
        return
    if pack is None:
        where.caption("Nothing measured yet to download.")
        return
    left, right = where.columns(2)
    left.download_button(
        "Download CSV",
        rows_to_csv(pack["rows"]),
        file_name=f"{file_stem}.csv",
        mime="text/csv",
        icon=":material/table:",
        on_click="ignore",
    )
    right.download_button(
        "Download result pack (JSON)",
        dumps_pack(pack),
        file_name=f"{file_stem}.json",
        mime="application/json",
        icon=":material/download:",
        on_click="ignore",
    )


def csv_download(label: str, rows: Sequence[dict], file_name: str, icon: str) -> Callable[[], None] | None:
    """A button that downloads `rows` as CSV, laid out when the returned function is called (the CSV made
    then, not before: e.g. inside a lazy expander); None without rows."""
    if not rows:
        return None

    def button() -> None:
        st.download_button(
            label, spreadsheet_csv(rows), file_name=file_name, mime="text/csv", icon=icon, on_click="ignore"
        )

    return button
