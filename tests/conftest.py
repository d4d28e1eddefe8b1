"""Shared fixtures and collection rules.

- Tests that need Streamlit (every page through AppTest, the browser) live in test_app_*.py and
  test_browser.py; on a machine without Streamlit (the GPU recording box) they are not collected,
  so `python3 -m pytest -m cuda` runs the CUDA tests of lib there.
- `cuda` tests are skipped without a GPU; `cpu_view` tests (what a server without CUDA shows) are
  skipped where CUDA is present.
- `python3 dev.py test` runs the suite in two parts (dev.py explains why): `--part parallel`, every test not
  marked `serial`, spread over the cores by pytest-xdist; then `--part serial`, the tests marked `serial`
  (they time real work live and assert on what they measured), one at a time on an otherwise quiet box.
  A plain `pytest` run (no --part) runs everything in one process, as before.
- `app_url` and `browser` (end of this file): one `streamlit run` with the shipped packs per test process, and one
  chromium per module, shared by the browser tests; a module that needs its own server or browser defines its own.
"""

import importlib.util
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The tests record their own fixture packs with the CLI while the suite runs beside them: such a pack says its load
# was not judged (load_quiet null) and is drawn as any pack without a load is (lib.core.load). test_load sets it back.
os.environ.setdefault("GPUWIN_LOAD_CHECK", "0")
# The class gallery's SQLite file of this test process goes to a folder of its own, never the repository's data/:
# a server or command started before the per-test fixture below (a module's server, a module-level env copy) would
# otherwise write data/gallery.sqlite, shared by every test process of a parallel run.
# Every folder the tests make outside pytest's tmp_path (that data folder, lesson_support's recorded fixture packs)
# goes under one folder of this test process, removed when the process ends (pytest_unconfigure): they were left in
# /tmp, a few hundred folders a day of runs.
TEST_TMP = Path(tempfile.mkdtemp(prefix="gpuwin_tests_"))
os.environ["GPUWIN_TEST_TMP"] = str(TEST_TMP)
os.environ.setdefault("GPUWIN_DATA_DIR", tempfile.mkdtemp(prefix="gpuwin_test_data_", dir=TEST_TMP))

STREAMLIT = importlib.util.find_spec("streamlit") is not None
if STREAMLIT:
    # Every AppTest's first run scans every installed distribution's metadata for Streamlit components
    # (components.v2's manifest scanner): about 0.24 s of CPU an open, a third of a random view's. The installed
    # packages do not change while the tests run, so each test process scans once; every AppTest still registers
    # what the scan found, as a server does at its start.
    import functools

    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)
collect_ignore_glob = [] if STREAMLIT else ["test_app_*.py", "test_browser*.py", "test_charts*.py", "test_gallery*.py"]


PARTS = ("parallel", "serial")
# How dev.py's parallel part (pytest-xdist, --dist loadscope) hands out tests: a module's tests go to one process
# together, so its module fixtures (packs recorded by the CLI, servers) are built once; modules that use another's
# fixture go with it (SAME_PROCESS); the modules in SPREAD, many independent tests with cheap fixtures, are dealt out
# test by test, last, so the processes finish together.
SAME_PROCESS = {
    "tests/test_app_multi_gpu.py": "tests/test_ddp.py",  # test_ddp's recorded pack, made once
    # the shipped app's server (app_url below): started once, its cold first pages paid once
    **{
        f"tests/test_browser_{name}.py": "tests/test_browser_views.py"
        for name in ("modes", "pictures", "roofline", "timeline")
    },
}
SPREAD = {"tests/test_random_views.py"}


def pytest_unconfigure(config):
    shutil.rmtree(TEST_TMP, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return nodeid if module in SPREAD else SAME_PROCESS.get(module, module)

    return ModuleScheduling(config, log)


def pytest_addoption(parser):
    parser.addoption(
        "--part",
        choices=PARTS,
        default=None,
        help="run only the tests not marked serial (parallel: they may share the machine) or only those "
        "marked serial (they time real work and need it quiet); dev.py test runs both, in turn",
    )


def pytest_ignore_collect(collection_path, config):
    """--part serial: a test module that never names the `serial` mark holds no serial test, so it is not imported
    (the part runs alone: importing the whole suite for its few tests would be seconds of wall time)."""
    if config.getoption("--part") != "serial" or collection_path.suffix != ".py":
        return None
    if collection_path.name.startswith("test_") and "serial" not in collection_path.read_text(encoding="utf-8"):
        return True
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    part = config.getoption("--part")
    if part is not None:
        wanted = part == "serial"
        dropped = [item for item in items if ("serial" in item.keywords) != wanted]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = [item for item in items if ("serial" in item.keywords) == wanted]
    if torch.cuda.is_available():
        # These assert the CPU-only view (recorded GPU side, "no GPU on this server"); with CUDA
        # present the pages measure both devices live, which the other page tests exercise.
        skip = pytest.mark.skip(reason="asserts the view of a server without CUDA")
        marker = "cpu_view"
    else:
        skip = pytest.mark.skip(reason="needs CUDA: run on the GPU machine")
        marker = "cuda"
    for item in items:
        if marker in item.keywords:
            item.add_marker(skip)
        started = item.path.name.startswith("test_browser") or "browser" in item.keywords or "postgres" in item.keywords
        if started and "slow" not in item.keywords:
            item.add_marker(pytest.mark.slow)  # a server and a browser (or a database) started: seconds each


TALLIED = ("passed", "failed", "error", "skipped", "xfailed", "xpassed", "deselected")


def pytest_terminal_summary(terminalreporter, config):
    """With $GPUWIN_TEST_TALLY set (dev.py test), add this run's counts to that file, one JSON line, so dev.py can
    close its two parts with one line of totals."""
    path = os.environ.get("GPUWIN_TEST_TALLY")
    if not path or hasattr(config, "workerinput"):  # an xdist worker: the controller tallies the whole part
        return
    stats = terminalreporter.stats
    counts = {key: len([r for r in stats.get(key, []) if getattr(r, "count_towards_summary", True)]) for key in TALLIED}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({"part": config.getoption("--part"), **counts}) + "\n")


@pytest.fixture(autouse=True)
def _default_memory_cap(monkeypatch):
    """Tests never rely on the shell's GPUWIN_MEMORY_CAP_GB (lib.core.sweep reads it at every call)."""
    monkeypatch.delenv("GPUWIN_MEMORY_CAP_GB", raising=False)
    # The server's warm-up measures each page's default view ahead (ui.prefetch): in the test process that
    # would time in the background beside the tests and answer their first visits from its store.
    # tests/test_prefetch.py runs it on purpose.
    monkeypatch.setenv("GPUWIN_NO_PREFETCH", "1")


@pytest.fixture(autouse=True)
def _main_module_back():
    """Streamlit's script runner installs the page script as __main__ and leaves it there: a process a later
    test spawns (a multiprocessing Pool) would re-run streamlit_app.py first, the app's imports included
    (1-17 s a spawn here). Each test starts with pytest's own."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


@pytest.fixture
def timing_events(monkeypatch):
    """'time' and 'profile' in the order lib.core.sweep times and profiles points (the real ones run)."""
    import lib.core.sweep as sweep_module

    events = []
    real_timed, real_profiled = sweep_module._timed, sweep_module._profiled
    monkeypatch.setattr(
        sweep_module, "_timed", lambda point, *a, **k: (events.append("time"), real_timed(point, *a, **k))[1]
    )
    monkeypatch.setattr(
        sweep_module, "_profiled", lambda point, *a, **k: (events.append("profile"), real_profiled(point, *a, **k))[1]
    )
    return events


@pytest.fixture
def mlp():
    from lib.workloads import get_workload

    return get_workload("mlp")


@pytest.fixture
def no_recorded_packs(monkeypatch, tmp_path):
    """A server with no shipped packs: GPUWIN_RECORDED_DIR points at an empty folder."""
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture(autouse=True)
def _gallery_in_tmp(tmp_path_factory, monkeypatch):
    """The class gallery's SQLite file goes to a fresh folder per test, never into the repository's data/."""
    monkeypatch.setenv("GPUWIN_DATA_DIR", str(tmp_path_factory.mktemp("gallery_data")))
    monkeypatch.delenv("GPUWIN_GALLERY_URL", raising=False)
    yield


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """file name -> bytes of every download button a page makes (Streamlit's real storage still stores them);
    shared by the page tests that read what a visitor downloads."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    seen: dict[str, bytes] = {}
    real = MemoryMediaFileStorage.load_and_get_id

    def keep(self, path_or_data, mimetype, kind, filename=None):
        if filename and isinstance(path_or_data, (bytes, str)):
            seen[filename] = path_or_data.encode() if isinstance(path_or_data, str) else path_or_data
        return real(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", keep)

    # a download made when clicked (data=callable): what a click would get, read as the button is made
    from streamlit.runtime.media_file_manager import MediaFileManager

    real_deferred = MediaFileManager.add_deferred

    def keep_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        if file_name:
            data = data_callable()
            seen[file_name] = data.encode() if isinstance(data, str) else data
        return real_deferred(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", keep_deferred)
    return seen


# -- the real browser: one server with the shipped packs per test process, one chromium per module ---------------


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """One `streamlit run` with the shipped packs (the GPU side recorded), short live budgets, shared by every browser
    module of this test process that reads the app as shipped: its start and its cold first pages are paid once, not
    once a module. A module needing another server (tests/test_browser.py: no packs) defines its own app_url."""
    from test_browser import require_browser, streamlit_server

    require_browser()
    with streamlit_server({"GPUWIN_LIVE_POINT_BUDGET_S": "0.05", "GPUWIN_NO_WARM_UP": "1"}) as url:
        yield url


@pytest.fixture(scope="module")
def chromium_process() -> Iterator:
    """One headless chromium for a module's browser tests (tests take it through `browser`). Not one per process:
    Playwright's sync API holds an event loop in the main thread while it runs, under which asyncio.run (Streamlit's
    caches, a websocket test) fails, so it ends with its module."""
    from test_browser import launched_chromium

    with launched_chromium() as launched:
        yield launched


@pytest.fixture
def browser(chromium_process) -> Iterator:
    """The module's chromium; each test opens contexts of its own (own cookies and storage), and any it leaves
    open are closed after it, so the next test starts with none."""
    yield chromium_process
    for context in chromium_process.contexts:
        context.close()
