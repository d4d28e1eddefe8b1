"""lib.core.cache: on_disk, a value built once, loaded by the next process, built again when its
inputs or the code that builds it change (a cold process loads fitted cost models); kept, the process
cache: keyed by value and identity, bounded, expiring, one build per key at a time."""

from __future__ import annotations

import importlib.util

import pytest

from lib.core import cache as kept_results


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

    first = kept_results.on_disk("t", code=[fit])(build)
    assert first((1.0, 2.0)) == {"sum": 3.0}
    fresh = kept_results.on_disk("t", code=[fit])(build)  # what a cold process starts with: nothing in memory
    assert fresh((1.0, 2.0)) == {"sum": 3.0}
    assert built == [(1.0, 2.0)]
    assert fresh((1.0, 5.0)) == {"sum": 6.0}  # other inputs: another pack
    assert built == [(1.0, 2.0), (1.0, 5.0)]


def test_changed_fitting_code_builds_again(cache, tmp_path):
    old = _module(tmp_path, "fit_b", "def fit(points):\n    return 'old rule'\n")
    kept_results.on_disk("t", code=[old])(old.fit)((1.0,))
    new = _module(tmp_path, "fit_c", "def fit(points):\n    return 'new rule'\n")
    assert kept_results.on_disk("t", code=[new])(new.fit)((1.0,)) == "new rule"


def test_a_torn_file_is_built_again(cache, tmp_path):
    fit = _module(tmp_path, "fit_d", "X = 1\n")
    kept_results.on_disk("t", code=[fit])(lambda n: "value")(1)
    (only,) = cache.glob("t-*.pkl")
    only.write_bytes(b"\x80\x05torn")
    assert kept_results.on_disk("t", code=[fit])(lambda n: "rebuilt")(1) == "rebuilt"


class SeesCollector:
    """Unpickled, says whether garbage collection was on while it was."""

    def __init__(self) -> None:
        self.collecting = None

    def __setstate__(self, state) -> None:
        import gc

        self.collecting = gc.isenabled()


def test_a_value_is_loaded_with_collection_off_and_it_is_back_on_after(cache, tmp_path):
    import gc

    fit = _module(tmp_path, "fit_gc", "X = 1\n")
    kept_results.on_disk("gc", code=[fit])(lambda n: SeesCollector())(1)
    loaded = kept_results.on_disk("gc", code=[fit])(lambda n: pytest.fail("built again"))(1)
    assert loaded.collecting is False and gc.isenabled()
    gc.disable()
    try:  # off before: left off
        kept_results.on_disk("gc", code=[fit])(lambda n: pytest.fail("built again"))(1)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_folder_that_cannot_be_made_keeps_values_in_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("")  # a read-only checkout, as far as mkdir is concerned (root writes anywhere else)
    monkeypatch.setenv("GPUWIN_CACHE_DIR", str(blocker / "cache"))
    fit = _module(tmp_path, "fit_e", "X = 1\n")
    made = iter(["value", "not again"])
    box = kept_results.on_disk("t", code=[fit])(lambda n: next(made))
    assert box(1) == "value"
    assert box(1) == "value"


def test_training_models_come_back_the_same_from_disk(cache):
    import sys

    from lib.core import costmodel
    from lib.lessons.training import model as M
    from lib.lessons.training import step_tables
    from lib.lessons.training import view as T
    from lib.recorded import load_recordings
    from lib.workloads import execution, traced

    recordings, _ = load_recordings()
    recording = next(
        r for r in recordings if any(p.device.startswith("cuda") and p.workload == "mlp" for p in r.points)
    )
    table = step_tables.StepTable(recording.points, "cuda", "m")
    fitted = table.model().model
    obs = M.observations(table.steps, "cuda")
    code = [costmodel, execution, sys.modules[M.__name__], traced]  # every family's terms (traced)

    def fit_again(family_key, observations, device_kind, validated):
        pytest.fail("fitted again")

    loaded = kept_results.on_disk("costmodel-machine", code=code)(fit_again)(T.MLP_FAMILY.key, obs, "cuda", True)
    assert repr(loaded.coef) == repr(fitted.coef) and loaded.errors == fitted.errors  # the same model
    assert list(cache.glob("costmodel-machine-*.pkl"))


def test_shipped_packs_parse_once_and_again_when_a_file_changes(cache, tmp_path, monkeypatch):
    import json

    import lib.recorded as recorded

    folder = tmp_path / "packs"
    folder.mkdir()
    pack = json.loads((recorded.RECORDED_DIR / "h100_training.json").read_text())
    (folder / "p.json").write_text(json.dumps(pack))
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(folder))
    monkeypatch.setattr(recorded, "RESCAN_S", 0.0)
    (first,), problems = recorded.load_recordings()
    assert not problems and len(first.pack["rows"]) == len(pack["rows"])

    # a cold process: nothing in memory, and parsing would fail: the pack comes from the cache folder
    recorded._parsed_once.clear()
    recorded._load.clear()
    monkeypatch.setattr(recorded, "load_pack", lambda path: pytest.fail("parsed again"))
    (recording,), _ = recorded.load_recordings()  # its points came from the cache folder with it
    assert recording.pack["rows"] == first.pack["rows"]
    assert [p.to_row() for p in recording.points] == first.pack["rows"]

    # an edited pack is parsed again
    monkeypatch.undo()
    monkeypatch.setenv("GPUWIN_CACHE_DIR", str(cache))
    monkeypatch.setenv("GPUWIN_RECORDED_DIR", str(folder))
    monkeypatch.setattr(recorded, "RESCAN_S", 0.0)
    (folder / "p.json").write_text(json.dumps({**pack, "rows": pack["rows"][:3]}))
    (edited,), _ = recorded.load_recordings()
    assert len(edited.pack["rows"]) == 3


# -- the process cache ---------------------------------------------------------------------------------------------


def test_a_kept_function_holds_at_most_its_entries_and_counts_hits_and_builds():
    @kept_results.kept(3)
    def square(x: int) -> int:
        return x * x

    for x in range(10):
        square(x)
    assert square(9) == 81
    info = square.info()
    assert (info.entries, info.max_entries, info.misses, info.hits) == (3, 3, 10, 1)
    square.clear()
    assert square.info().entries == 0


def test_a_parameter_with_a_leading_underscore_is_handed_over_but_not_keyed():
    @kept_results.kept(4)
    def stored(key: str, _value: object = None) -> object:
        if _value is None:
            raise LookupError(key)  # an exception is never kept: a call with the key alone only looks
        return _value

    with pytest.raises(LookupError):
        stored("a")
    assert stored("a", _value=[1]) == [1]
    assert stored("a") == [1] and stored("a", _value=[2]) == [1]  # the key is "a" alone


def test_a_result_expires_after_its_ttl_and_copies_are_each_callers_own(monkeypatch):
    now = [1_000.0]
    monkeypatch.setattr(kept_results.time, "time", lambda: now[0])
    built = []

    @kept_results.kept(8, ttl_s=60.0, copies=True)
    def rows(key: str) -> list[dict]:
        built.append(key)
        return [{"x": len(built)}]

    first = rows("k")
    first[0]["x"] = -1  # a caller changing its copy changes nobody else's
    assert rows("k") == [{"x": 1}] and built == ["k"]
    now[0] += 61.0
    assert rows("k") == [{"x": 2}]  # measured again after its ttl


def test_thirty_callers_of_one_key_at_once_wait_for_one_build():
    import threading
    import time

    started = threading.Event()
    built = []

    @kept_results.kept(4)
    def chart(key: str) -> str:
        built.append(key)
        started.set()
        time.sleep(0.2)
        return f"spec of {key}"

    got = []
    threads = [threading.Thread(target=lambda: got.append(chart("home"))) for _ in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert built == ["home"] and got == ["spec of home"] * 30


def test_lists_and_dicts_are_keyed_by_identity_items_of_a_tuple_each_so():
    built = []

    @kept_results.kept(8)
    def merged(packs: tuple[dict, ...], machine: str) -> int:
        built.append(machine)
        return len(built)

    a, b = {"rows": [1]}, {"rows": [2]}
    assert merged((a, b), "m") == merged(tuple([a, b]), "m") == 1  # a new tuple of the same packs: found
    assert merged((a, {"rows": [2]}), "m") == 2  # an equal but new pack: built anew
    rows = [{"x": 1}]
    assert merged((rows,), "m") == merged((rows,), "m") == 3  # a list: by its identity
    assert merged(([{"x": 1}],), "m") == 4  # an equal list is another list
    assert kept_results.entries() >= merged.info().entries == 4
    kept_results.clear_all()
    assert merged.info().entries == 0
