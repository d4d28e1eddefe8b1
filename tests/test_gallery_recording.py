"""Recording for the gallery anywhere: the one-line script and the notebook (run top to bottom in a
real Jupyter kernel on this CPU), and their packs accepted by the gallery."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import sqlalchemy
import torch
from gallery_support import H200_PACK, ROOT, sqlite_url

from lib.recorded.gallery.store import Gallery
from lib.recorded.gallery.sweep import GALLERY_SWEEP, gallery_rows

NOTEBOOK = ROOT / "notebooks" / "record_your_machine.ipynb"


def test_the_gallery_sweep_is_the_one_the_shipped_h200_pack_recorded():
    rows = gallery_rows(json.loads(H200_PACK.read_text())["rows"])
    assert sorted({r["batch_size"] for r in rows}) == list(GALLERY_SWEEP.values)
    assert {r["device"] for r in rows} == {"cpu", "cuda:0"}
    assert GALLERY_SWEEP.command().startswith("python -m lib sweep mlp --over batch_size=1,4,16,64,256,1024,4096,8192 ")


@pytest.mark.slow
def test_the_script_records_the_sweep_and_prints_where_to_upload(tmp_path):
    out = tmp_path / "laptop.json"
    done = subprocess.run(
        [
            sys.executable,
            "scripts/record_for_gallery.py",
            "--out",
            str(out),
            "--budget",
            "0.01",
            "--threads",
            "1",
            "--quiet",
            "--course",
            "ml101",
            "--app-url",
            "https://app.example/",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert "Upload it on the app's Gallery page: https://app.example/gallery?course=ML101" in done.stdout
    assert f"wrote {out.resolve()} (" in done.stdout
    if not torch.cuda.is_available():
        assert "No CUDA GPU here: recording the CPU only" in done.stdout
    entry = Gallery(sqlalchemy.create_engine(sqlite_url(tmp_path))).add(
        out.name, out.read_bytes(), name="laptop", session="s"
    )
    assert entry.rows == len(GALLERY_SWEEP.values) * (2 if torch.cuda.is_available() else 1)


def run_notebook(tmp_path, monkeypatch, **env: str):
    import nbformat
    from nbclient import NotebookClient

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    return "\n".join(str(o.get("text", "")) for c in notebook.cells if c.cell_type == "code" for o in c.outputs)


@pytest.mark.slow
def test_the_notebook_runs_top_to_bottom_here_and_its_pack_joins_the_gallery(tmp_path, monkeypatch):
    out = tmp_path / "my_machine.json"
    printed = run_notebook(
        tmp_path,
        monkeypatch,
        GPUWIN_SKIP_INSTALL="1",
        GPUWIN_PROJECT_DIR=str(ROOT),
        GPUWIN_BUDGET_S="0.01",
        GPUWIN_THREADS="1",
        GPUWIN_OUT=str(out),
        GPUWIN_COURSE="ml101",
        GPUWIN_APP_URL="https://app.example",
    )
    assert "GPUWIN_SKIP_INSTALL=1: using the project" in printed
    if torch.cuda.is_available():
        assert "GPU found:" in printed
    else:
        assert "No GPU in this runtime, so the GPU part is skipped" in printed
    assert f"Your pack: {out}" in printed  # no google.colab here: the path instead of a download
    assert "Upload it on the app's Gallery page: https://app.example/gallery?course=ML101" in printed
    gallery = Gallery(sqlalchemy.create_engine(sqlite_url(tmp_path)))
    code, _ = gallery.create_course("ML101", session="teacher")
    entry = gallery.add(out.name, out.read_bytes(), name="notebook", course=code, session="s")
    assert entry.rows == len(GALLERY_SWEEP.values) * (2 if torch.cuda.is_available() else 1)


def test_the_notebook_stops_with_a_message_until_its_repository_address_is_set(tmp_path, monkeypatch):
    from nbclient.exceptions import CellExecutionError

    monkeypatch.delenv("GPUWIN_SKIP_INSTALL", raising=False)
    monkeypatch.delenv("GPUWIN_REPO_URL", raising=False)
    with pytest.raises(CellExecutionError, match="Set REPO_URL in the settings cell"):
        run_notebook(tmp_path, monkeypatch, GPUWIN_PROJECT_DIR=str(tmp_path / "nowhere"))


@pytest.mark.slow
def test_recording_needs_neither_sqlalchemy_nor_streamlit(tmp_path):
    """A GPU box or a notebook records with torch alone (DESIGN.md: lib runs without Streamlit)."""
    out = tmp_path / "pack.json"
    code = (
        f"import sys; sys.path.insert(0, 'scripts'); import record_for_gallery\n"
        f"record_for_gallery.main(['--out', {str(out)!r}, '--budget', '0.005', '--threads', '1', '--quiet'])\n"
        "print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & {'sqlalchemy', 'streamlit', 'altair'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stdout and out.is_file(), done.stdout
