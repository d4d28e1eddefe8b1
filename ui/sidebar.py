"""The shared sidebar: what this server can time, where the GPU side comes from, CPU threads."""

from __future__ import annotations

import os

import streamlit as st

from lib.core.devices import available_devices, cpu_model, cuda_available, device_name
from lib.core.fmt import plural
from lib.lessons.common.live import DEFAULT_CPU_THREADS, TORCH_DEFAULT_THREADS
from lib.recorded.sources import NO_GPU, GpuSource, load_words
from lib.recorded.uploads import plain
from ui.scaffold import lazy_expander
from ui.sources import SOURCE_STATE_KEY, gpu_sources, load_recordings, recorded_problems
from ui.url_settings import UrlSettings

PICK_LABEL = "GPU results from"  # the pages' notes send readers to it by this name
PICK_KEY = "app.gpu_pick"  # its lazy expander's open state


def device_lines() -> list[str]:
    """Plain sentences about this server's devices."""
    lines = []
    if cuda_available():
        gpus = [f"{d}: {device_name(d)}" for d in available_devices()[1:]]
        lines.append("**GPU:** " + "; ".join(gpus))
    else:
        lines.append(
            "**No GPU on this server**: PyTorch finds no NVIDIA GPU here (CUDA is not available), "
            "so only the CPU is timed live."
        )
    cores = plural(os.cpu_count(), "core") if os.cpu_count() else "? cores"
    lines.append(
        f"**CPU:** {cpu_model()}, {cores}. PyTorch would use "
        f"{plural(TORCH_DEFAULT_THREADS, 'thread')}; live measurements here use "
        f"{plural(DEFAULT_CPU_THREADS, 'thread')} unless a page says otherwise"
        + (" (one core is left for the web server)." if DEFAULT_CPU_THREADS < TORCH_DEFAULT_THREADS else ".")
    )
    return lines


def source_line(source: GpuSource) -> str:
    if source.live:
        return f"**GPU results:** measured live on this server ({source.device})."
    if source.recorded:
        how = "uploaded by you" if source.files.startswith("uploaded") else "shipped with the app"
        load = load_words(source, load_recordings())  # the shipped packs: an upload keeps no load
        return f"**GPU results:** recorded on {plain(source.label)}, {how}; the CPU is measured live here." + (
            f" {load}" if load else ""
        )
    return "**GPU results:** no recorded GPU results shipped yet, so the pages show the CPU only."


def render_sidebar() -> GpuSource:
    """Draw the sidebar and return the chosen GPU source (also left in st.session_state for pages)."""
    sources = gpu_sources()
    url = UrlSettings("app")
    with st.sidebar:
        # one block: each element costs a new visitor's one-core browser time before the page's chart
        st.markdown("\n\n".join(["#### This server", *device_lines()]))
        source_box = st.empty()  # the line saying which GPU results the pages show, above the picker
        if len(sources) > 1:
            keys = [s.key for s in sources]
            labels = {
                s.key: (
                    "live on this server"
                    if s.live
                    else f"your upload: {s.label}"
                    if s.files.startswith("uploaded")
                    else f"recorded: {s.label}"
                )
                for s in sources
            }
            # The choice is a radio in a closed lazy expander: a new visitor's browser would load a selectbox's or
            # a radio's code before every page's chart (docs/browser_floor.txt), and most keep the default. The line above it says which results the pages show.
            with lazy_expander(PICK_LABEL, PICK_KEY) as open_:
                if open_:
                    chosen = url.radio(
                        "gpu",
                        PICK_LABEL,
                        keys,
                        keys[0],
                        format_func=labels.get,
                        horizontal=False,
                        label_visibility="collapsed",
                    )
                    st.caption(
                        "Live when this server has a GPU; otherwise results recorded on a real GPU and shipped "
                        "with the app, or uploaded by you on the Your results page."
                    )
                else:
                    chosen = url.held("gpu", keys, keys[0], format_func=labels.get)
            source = next(s for s in sources if s.key == chosen)
        else:
            source = sources[0] if sources else NO_GPU
        source_box.markdown(source_line(source))
        for error in recorded_problems():
            st.warning(f"A recorded pack could not be read and is left out: {error}")
        url.show_notes()
    if len(sources) > 1:
        url.sync_url()
    st.session_state[SOURCE_STATE_KEY] = source.key
    return source
