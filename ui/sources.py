"""The GPU source a page shows, as the sidebar chose it (URL parameter 'gpu'), over lib.recorded.

    source = current_source()                  # live GPU, a recorded machine, or none
    devices = live_devices(source)             # ['cpu'] or ['cpu', 'cuda:0']
    rows, note = recorded_rows(source, workload, over="batch_size", params=settings)
    recording = recorded_recording(source)     # the same machine's packs as one Recording (its Points)

The pack queries themselves are pure functions in lib.recorded.sources, tested there.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import lib.recorded as lib_recorded
from lib.core.cache import kept
from lib.core.devices import available_devices, cuda_available
from lib.core.workload import SettingValue, Workload
from lib.recorded import sources as lib_sources
from lib.recorded.pack import Pack
from lib.recorded.recording import Recording, recording_of
from lib.recorded.sources import NO_GPU, GpuSource
from lib.recorded.upload_budget import SessionUploads
from lib.recorded.uploads import session_pack, text_only
from ui.cache import per_session
from ui.router import ensure_router

SOURCE_STATE_KEY = "gpu_source"  # session-state key where the sidebar leaves its choice


def machine_recordings() -> tuple[list[Recording], list[str]]:
    """The shipped recordings listed as machines to compare: each once (lib.recorded.machine_recordings)."""
    return lib_recorded.machine_recordings()


def load_recordings() -> list[Recording]:
    """Every shipped pack as a Recording (its points typed once, when lib.recorded parsed it)."""
    return lib_recorded.load_recordings()[0]


def recorded_problems() -> list[str]:
    """A line per shipped pack that could not be read (or was recorded busy), each left out."""
    return lib_recorded.load_recordings()[1]


@per_session(on_release=SessionUploads.release)
def session_uploads() -> SessionUploads:
    """This visitor's uploads: read on Your results, offered on every page. Held by the session, not
    in session_state: Streamlit releases a session's resources when its tab closes (session_state
    waits two minutes for a reconnect), and release() gives the rows and the server's share back.
    Streamlit's own copy of the session's files goes then too: it would keep them until the session is
    shut down, which a session dropped after its two minutes never is (Streamlit 1.67). A visitor who
    reconnects after a network blip uploads them again."""
    ctx = get_script_run_ctx()
    manager, session_id = ctx.uploaded_file_mgr, ctx.session_id
    held = SessionUploads()
    held.also_release["files"] = lambda: manager.remove_session_files(session_id)
    return held


def remember_uploads(packs: list[Pack], names: list[str]) -> None:
    """Keep this visitor's validated uploads for the session, so their GPU can be picked on every page."""
    session_uploads().recordings = [_uploaded(p, n) for p, n in zip(packs, names)]


@kept(64)
def _uploaded(pack: Pack, name: str) -> Recording:
    """An upload as the pages read it, its rows typed once per validated pack: Your results hands the session's
    same packs on every run."""
    return recording_of({**session_pack(pack), "path": f"uploaded: {text_only(name)}"})


def _uploads() -> list[Recording]:
    """This visitor's uploads (none outside a visitor's session, e.g. the warm-up)."""
    return list(session_uploads().recordings) if get_script_run_ctx() is not None else []


def all_recordings() -> list[Recording]:
    """The shipped recordings and this visitor's uploads as Recordings."""
    return load_recordings() + _uploads()


def gpu_sources(recordings: list[Recording] | None = None) -> list[GpuSource]:
    """A live GPU first (when this server has one), then each GPU machine of `recordings` (default: the
    shipped recordings and this visitor's uploads; outside a visitor's session, e.g. the warm-up, the shipped ones)."""
    live = available_devices()[1] if cuda_available() else None
    return lib_sources.recorded_sources(all_recordings() if recordings is None else recordings, live_device=live)


def current_source() -> GpuSource:
    """The source chosen in the sidebar (or, embedded without a sidebar, named by the link's 'gpu'
    parameter); the first available one otherwise."""
    ensure_router()
    sources = gpu_sources()
    chosen = st.session_state.get(SOURCE_STATE_KEY) or st.query_params.get("gpu")
    return next((s for s in sources if s.key == chosen), sources[0] if sources else NO_GPU)


def source_for(*workloads: Workload) -> tuple[GpuSource, str | None]:
    """The sidebar's source, and when it is a recorded machine without GPU rows of any of `workloads`
    (the Training page: any of its model families), the sentence saying so (never another machine
    in its place: the sidebar names what is drawn)."""
    return unanswered(lambda pack: any(lib_sources.has_gpu_rows(pack, w) for w in workloads))


def unanswered(holds) -> tuple[GpuSource, str | None]:
    """The sidebar's source, and the plain sentence for a page that cannot answer with it (`holds`
    of the source's pack is false: e.g. the 4-GPU machine, recorded for Multi-GPU only), else None."""
    source = current_source()
    return source, lib_sources.unanswered(source, gpu_sources(), recorded_pack, holds)


def recorded_pack(source: GpuSource) -> dict | None:
    """All rows of the source's packs as one pack, or None (recorded_recording's pack dict)."""
    recording = recorded_recording(source)
    return None if recording is None else recording.pack


def recorded_recording(source: GpuSource) -> Recording | None:
    """All points of the source's packs as one Recording, or None (its `pack`: recorded_pack's dict)."""
    return lib_sources.source_recording(source, all_recordings())


def live_devices(source: GpuSource) -> list[str]:
    """What this server times live for a comparison: the CPU, plus the GPU when it is the source."""
    return ["cpu", source.device] if source.live and source.device else ["cpu"]


def recorded_rows(
    source: GpuSource, workload: Workload, over: str, params: Mapping[str, SettingValue]
) -> tuple[list[dict], str | None]:
    """GPU rows of the chosen recorded pack matching the page's settings, and a plain note when
    there are none (or None when rows were found or the source is not a recorded pack)."""
    return lib_sources.view_rows(recorded_pack(source), source.label, workload, over, params)


def recorded_cpu_toggle(url, pack: dict | None, workload: Workload) -> bool:
    """The switch that adds the recording machine's own CPU curve (the seeds' same-machine
    comparison); shown only when the pack holds CPU rows of this workload."""
    if not pack or not any(r.get("workload") == workload.name and r.get("device") == "cpu" for r in pack["rows"]):
        return False
    return url.toggle(
        "recorded_cpu",
        "Also show the recording machine's own CPU",
        False,
        help=f"The CPU of the machine the GPU results come from ({lib_sources.cpu_text(pack['machine'])}): "
        "the same-machine comparison.",
    )
