"""A cold server draws recorded rows without torch (issue 25).

The first visitor of a sleeping hosted demo waits for whatever the server imports before Home's
chart; torch alone is seconds of it. Only the measuring process (lib.core.worker) needs torch, so
each check runs in a fresh interpreter where importing torch raises, the way a server that has not
measured anything yet would have to live without it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import torch

from tests.app_support import ROOT

BLOCK_TORCH = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    os.environ["GPUWIN_NO_WARM_UP"] = "1"

    class NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ImportError("torch imported by a view that only draws recorded rows")

    sys.meta_path.insert(0, NoTorch())
""")


def run_without_torch(body: str) -> subprocess.CompletedProcess:
    code = (
        BLOCK_TORCH.format(root=str(ROOT))
        + textwrap.dedent(body)
        + "\nassert 'torch' not in sys.modules\nprint('NO TORCH')\n"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_every_module_a_page_imports_loads_no_torch():
    done = run_without_torch("""
        import importlib, pkgutil
        import lib.charts, lib.lessons, lib.recorded, ui
        for package in (lib.lessons, lib.charts, lib.recorded, ui):
            for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
                importlib.import_module(info.name)
        import lib.recorded.sources, lib.recorded.uploads, lib.recorded.timelines
    """)
    assert "NO TORCH" in done.stdout, done.stderr[-3000:]


@pytest.mark.cpu_view
def test_home_draws_its_recorded_chart_without_torch():
    done = run_without_torch("""
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file("streamlit_app.py", default_timeout=120).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"), "Home drew no chart"
    """)
    assert "NO TORCH" in done.stdout, done.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.cpu_view
def test_no_page_loads_torch_in_the_server():
    """Live points are measured in the measuring process; the server only draws them."""
    done = run_without_torch("""
        os.environ["GPUWIN_LIVE_POINT_BUDGET_S"] = "0.005"
        from streamlit.testing.v1 import AppTest
        from ui.pages import existing_pages
        at = AppTest.from_file("streamlit_app.py", default_timeout=240).run()
        for page in existing_pages():
            at.switch_page(page.path).run()
            assert not at.exception, (page.path, [e.value for e in at.exception])
    """)
    assert "NO TORCH" in done.stdout, done.stderr[-3000:]


@pytest.mark.parametrize("cpus", [None, "0"])
def test_torch_default_threads_is_what_torch_picks(cpus):
    """The sidebar's 'PyTorch would use N threads' and the live thread policy read it without torch."""
    prefix = ["taskset", "-c", cpus] if cpus else []
    if cpus and subprocess.run(["which", "taskset"], capture_output=True).returncode:
        pytest.skip("no taskset here")
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r})\nfrom lib.core.devices import torch_default_threads\n"
        "guess = torch_default_threads()\nimport torch\nprint(guess, torch.get_num_threads())"
    )
    out = subprocess.run(
        [*prefix, sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    ).stdout.split()
    assert out and out[0] == out[1], out


def test_cuda_available_needs_no_torch_without_a_driver():
    from lib.core.devices import cuda_available, nvidia_driver_present

    assert cuda_available() == torch.cuda.is_available()
    if not nvidia_driver_present():
        done = run_without_torch("from lib.core.devices import cuda_available\nassert cuda_available() is False\n")
        assert "NO TORCH" in done.stdout, done.stderr[-3000:]


def test_the_fingerprint_without_torch_is_the_one_with_torch():
    """A download of live rows names this machine (torch's version, threads) before torch is loaded here."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT)!r})\nfrom lib.core.devices import machine_fingerprint\n"
        "before = machine_fingerprint(); loaded = 'torch' in sys.modules\nimport torch\nafter = machine_fingerprint()\n"
        "print(json.dumps([loaded, *({k: v for k, v in m.items() if k not in ('date', 'label')} for m in (before, after))]))"
    )
    import json

    loaded, before, after = json.loads(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    )
    assert not loaded or torch.cuda.is_available()
    assert before == after


@pytest.mark.slow  # about 5-10 s: a fresh interpreter fits the H200's CNN, Transformer and torchvision cost models
def test_recorded_views_of_every_family_are_drawn_without_torch(tmp_path):
    """Their FLOPs, bytes and peak memory come from lib/workloads/traced_work.json (lib.workloads.counted), not
    from tracing their steps in the server (which loaded torch there, about 0.6 GB, before issue 38's shipped
    counts). A fresh cache folder: every recorded step's terms are counted for the fit, none read from disk."""
    done = run_without_torch(f"""
        os.environ["GPUWIN_CACHE_DIR"] = {str(tmp_path)!r}
        from lib.lessons.training import screen as S, step_tables, view as T
        from lib.recorded import load_recordings
        from lib.recorded.ceilings import ceilings_for
        from lib.recorded.sources import hardware_text, machine_text, recorded_sources, small_server_recording
        from lib.recorded.sources import source_recording
        recordings = load_recordings()[0]
        packs = [r.pack for r in recordings]
        source = next(s for s in recorded_sources(recordings) if "H200" in s.label)
        pack = source_recording(source, recordings)
        gpu_name, machine = hardware_text(pack.machine), machine_text(pack.machine)
        for family in (T.BY_NAME["cnn"], T.BY_NAME["transformer"], T.BY_NAME["torchvision"].pick(model="vit_tiny")):
            small_pack = small_server_recording(recordings, family.workload)
            small = small_pack and S.Machine(
                step_tables.tables(small_pack, machine_text(small_pack.machine), family), "2-core server",
                machine_text(small_pack.machine))
            gpu = S.Machine(step_tables.tables(pack, machine, family), gpu_name, machine, ceilings_for(gpu_name, packs))
            for mode in ("eager", "cuda_graph"):
                screen = S.compose(T.View(family=family, mode=mode), S.Machines(gpu, small_cpu=small or None))
                assert screen.curves.get(screen.gpu_label), (family, mode, screen.headline)
                assert S.roofline(screen, T.View(family=family, mode=mode)), (family, mode)  # the counted work
    """)
    assert "NO TORCH" in done.stdout, done.stderr[-3000:]
