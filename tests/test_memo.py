"""lib.core.memo.DiskMemo: a value built once, loaded by the next process, built again when its
inputs or the code that builds it change (issue 25: a cold process loads fitted cost models)."""

from __future__ import annotations

import importlib.util

import pytest

from lib.core import memo


def _module(tmp_path, name: str, body: str):
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("GPUWIN_CACHE_DIR", str(folder))
    return folder


def test_a_new_process_loads_what_the_last_one_built(cache, tmp_path):
    fit = _module(tmp_path, "fit_a", "def fit(points):\n    return {'sum': sum(points)}\n")
    built = []

    def build(points):
        built.append(points)
        return fit.fit(points)

    first = memo.DiskMemo("t", code=[fit])
    assert first.get((1.0, 2.0), lambda: build((1.0, 2.0))) == {"sum": 3.0}
    fresh = memo.DiskMemo("t", code=[fit])  # what a cold process starts with: nothing in memory
    assert fresh.get((1.0, 2.0), lambda: build((1.0, 2.0))) == {"sum": 3.0}
    assert built == [(1.0, 2.0)]
    assert fresh.get((1.0, 5.0), lambda: build((1.0, 5.0))) == {"sum": 6.0}  # other inputs: another pack
    assert built == [(1.0, 2.0), (1.0, 5.0)]


def test_changed_fitting_code_builds_again(cache, tmp_path):
    old = _module(tmp_path, "fit_b", "def fit(points):\n    return 'old rule'\n")
    memo.DiskMemo("t", code=[old]).get((1.0,), lambda: old.fit((1.0,)))
    new = _module(tmp_path, "fit_c", "def fit(points):\n    return 'new rule'\n")
    assert memo.DiskMemo("t", code=[new]).get((1.0,), lambda: new.fit((1.0,))) == "new rule"


def test_a_torn_file_is_built_again(cache, tmp_path):
    fit = _module(tmp_path, "fit_d", "X = 1\n")
    box = memo.DiskMemo("t", code=[fit])
    box.get((1,), lambda: "value")
    (only,) = cache.glob("t-*.pkl")
    only.write_bytes(b"\x80\x05torn")
    assert memo.DiskMemo("t", code=[fit]).get((1,), lambda: "rebuilt") == "rebuilt"


def test_a_folder_that_cannot_be_made_keeps_values_in_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("")  # a read-only checkout, as far as mkdir is concerned (root writes anywhere else)
    monkeypatch.setenv("GPUWIN_CACHE_DIR", str(blocker / "cache"))
    fit = _module(tmp_path, "fit_e", "X = 1\n")
    box = memo.DiskMemo("t", code=[fit])
    assert box.get((1,), lambda: "value") == "value"
    assert box.get((1,), lambda: "not again") == "value"


def test_training_models_come_back_the_same_from_disk(cache):
    import sys

    from lib.core import costmodel
    from lib.lessons.training import model as M
    from lib.lessons.training import view as T
    from lib.recorded import load_recorded
    from lib.workloads import execution, traced

    packs, _ = load_recorded()
    pack = next(p for p in packs if any(r.get("device", "").startswith("cuda") and r.get("workload") == "mlp"
                                        for r in p["rows"]))
    table = T.StepTable(pack["rows"], "cuda", "m")
    fitted = table.model().model
    obs = M.observations(table.steps, "cuda")
    code = [costmodel, execution, sys.modules[M.__name__], traced]  # every family's terms (traced)
    loaded = memo.DiskMemo("costmodel-machine", code=code).get((T.MLP_FAMILY.key, obs, "cuda", True),
                                                                lambda: pytest.fail("fitted again"))
    assert repr(loaded.coef) == repr(fitted.coef) and loaded.errors == fitted.errors  # the same model
    assert list(cache.glob("costmodel-machine-*.pkl"))


def test_shipped_packs_parse_once_and_again_when_a_file_changes(cache, tmp_path, monkeypatch):
    import json

    import lib.recorded as recorded
    from lib.core.memo import DiskMemo

    folder = tmp_path / "packs"
    folder.mkdir()
    pack = json.loads((recorded.RECORDED_DIR / "h100_training.json").read_text())
    (folder / "p.json").write_text(json.dumps(pack))
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(folder))
    monkeypatch.setattr(recorded, "RESCAN_S", 0.0)
    first, problems = recorded.load_recorded()
    assert not problems and len(first[0]["rows"]) == len(pack["rows"])

    # a cold process: nothing in memory, and parsing would fail: the pack comes from the cache folder
    monkeypatch.setattr(recorded, "_PARSED", DiskMemo("pack", code=[recorded.results]))
    recorded._load.cache_clear()
    monkeypatch.setattr(recorded, "load_pack", lambda path: pytest.fail("parsed again"))
    again, _ = recorded.load_recorded()
    assert again[0]["rows"] == first[0]["rows"]

    # an edited pack is parsed again
    monkeypatch.undo()
    monkeypatch.setenv("GPUWIN_CACHE_DIR", str(cache))
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(folder))
    monkeypatch.setattr(recorded, "RESCAN_S", 0.0)
    (folder / "p.json").write_text(json.dumps({**pack, "rows": pack["rows"][:3]}))
    edited, _ = recorded.load_recorded()
    assert len(edited[0]["rows"]) == 3
