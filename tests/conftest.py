import os
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def pytest_collection_modifyitems(config, items):
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


@pytest.fixture(autouse=True)
def _small_memory_cap(monkeypatch):
    """Tests never rely on the shell's GPUWIN_MEMORY_CAP_GB."""
    monkeypatch.delenv("GPUWIN_MEMORY_CAP_GB", raising=False)
    yield


@pytest.fixture(autouse=True)
def _gallery_in_tmp(tmp_path_factory, monkeypatch):
    """The class gallery's SQLite file goes to a fresh folder per test, never into the repository's data/."""
    monkeypatch.setenv("GPUWIN_DATA_DIR", str(tmp_path_factory.mktemp("gallery_data")))
    monkeypatch.delenv("GPUWIN_GALLERY_URL", raising=False)
    yield
