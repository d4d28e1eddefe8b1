"""Helpers for the Jacobian and Timing pitfalls page tests: recorded-pack fixtures, chart data.

Made the way tests/app_support.py makes the Training fixture: the real CLI sweep on the CPU (the
commands the pages print under "Record this view on a GPU machine", with fewer values and a short
budget), every row copied under the device name 'cuda:0', the machine named FIXTURE_GPU_NAME.
They are TEST FIXTURES, written only to temporary directories, never shipped in lib/recorded/.
"""

from __future__ import annotations

import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from app_support import make_fixture_pack

from lib.lessons.jacobian import view as jacobian_lesson
from lib.lessons.timing import view as timing_lesson

# The CPU runs the fixtures at these values (the pages' real commands sweep further).
JACOBIAN_VALS = {"loop": [1, 3], "vectorize": [1, 10], "vmap_jacrev": [1, 10, 100], "vmap_jacfwd": [1, 10, 100, 1000]}
TIMING_SIZES = [64, 128, 256, 512]
TIMING_VARIANTS = [
    timing_lesson.BASELINE,
    timing_lesson.Variant(sync=False),
    timing_lesson.Variant(tf32=True),
    timing_lesson.Variant(transfer=True),
]


def jacobian_commands() -> list[str]:
    return [jacobian_lesson.record_command(m, vals) for m, vals in JACOBIAN_VALS.items()]


def timing_commands() -> list[str]:
    return [timing_lesson.record_command(v, TIMING_SIZES) for v in TIMING_VARIANTS]


def _folder(prefix: str) -> Path:
    """A new folder under the test process's own (tests/conftest.py TEST_TMP, removed when the process ends)."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=os.environ.get("GPUWIN_TEST_TMP")))


def build_pack(directory: Path, name: str, commands: list[str]) -> Path:
    """Run each command through app_support.make_fixture_pack (two at a time, one CPU thread each)
    and merge their rows into directory/<name>.json."""
    base = _folder(f"gpuwin_{name}_")
    with ThreadPoolExecutor(max_workers=2) as pool:
        paths = list(pool.map(lambda ic: make_fixture_pack(base / str(ic[0]) / "recorded", ic[1]), enumerate(commands)))
    packs = [json.loads(p.read_text()) for p in paths]
    merged = {**packs[0], "rows": [row for pack in packs for row in pack["rows"]]}
    directory.mkdir(parents=True, exist_ok=True)
    out = directory / f"{name}.json"
    out.write_text(json.dumps(merged))
    return out


_MADE: dict[str, Path] = {}


def fixture_dir(*which: str) -> Path:
    """A directory holding the fixture packs named ('jacobian', 'timing', 'matmul64': one matmul point, a pack with
    no jacobian rows, or 'vmap_jacfwd': that method's sweep alone, a machine with jacobian rows for a test that never
    draws them), each made once per process."""
    builders = {
        "jacobian": jacobian_commands,
        "vmap_jacfwd": lambda: [jacobian_lesson.record_command("vmap_jacfwd", JACOBIAN_VALS["vmap_jacfwd"])],
        "timing": timing_commands,
        "matmul64": lambda: [timing_lesson.record_command(timing_lesson.BASELINE, [64])],
    }
    for name in which:
        if name not in _MADE:
            home = _folder(f"gpuwin_fixture_{name}_")
            _MADE[name] = build_pack(home, f"test_fixture_{name}", builders[name]())
    directory = _folder("gpuwin_fixture_dir_")
    for name in which:
        (directory / _MADE[name].name).write_bytes(_MADE[name].read_bytes())
    return directory


def chart_frames(at, index: int) -> list:
    """The data sets of the index-th chart on the page, as DataFrames (they travel as Arrow)."""
    import pyarrow as pa

    element = at.get("vega_lite_chart")[index]
    return [pa.ipc.open_stream(d.data.data).read_all().to_pandas() for d in element.proto.datasets]
