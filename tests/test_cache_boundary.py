"""One cache boundary: results are kept only through lib.core.cache (and ui.cache, its binding to
Streamlit's lifetimes). Read from the source tree itself: no module outside those two calls
st.cache_data / st.cache_resource or a functools cache, or imports from them what is not a declaration
(`kept`, `on_disk`); a page imports neither (it calls a function, the boundary decides)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CACHE_MODULES = {"lib/core/cache.py", "ui/cache.py"}
DECLARATIONS = {"lib.core.cache": {"kept", "on_disk"}, "ui.cache": {"bind", "per_session"}}
STREAMLIT_CACHES = {"cache_data", "cache_resource", "experimental_memo", "experimental_singleton"}
FUNCTOOLS_CACHES = {"lru_cache", "cache"}
# functools caches that keep no result: (file, function) -> why
NOT_RESULTS = {("lib/core/heap.py", "_malloc_trim"): "a handle on the C library's malloc_trim, looked up once"}
SOURCES = sorted(
    [
        *(ROOT / "lib").rglob("*.py"),
        *(ROOT / "ui").glob("*.py"),
        *(ROOT / "pages").glob("*.py"),
        ROOT / "streamlit_app.py",
        ROOT / "serve.py",
    ]
)


def _decorated_name(tree: ast.AST, node: ast.AST) -> str | None:
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            node is sub for dec in fn.decorator_list for sub in ast.walk(dec)
        ):
            return fn.name
    return None


def cache_violations(source: str, path: str) -> list[str]:
    """Where `source` (the file at `path`, relative to the repository) keeps results outside the boundary."""
    if path in CACHE_MODULES:
        return []
    tree = ast.parse(source)
    functools_names = {"functools"}
    found = []
    for node in ast.walk(tree):
        where = f"{path}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            found += [
                f"{where} imports {a.name}" for a in node.names if a.name in DECLARATIONS or a.name == "lib.core.memo"
            ]
            functools_names |= {a.asname for a in node.names if a.name == "functools" and a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = {a.name for a in node.names}
            if node.module == "functools" and names & FUNCTOOLS_CACHES:
                found.append(f"{where} imports functools' {sorted(names & FUNCTOOLS_CACHES)}")
            elif node.module == "streamlit" and names & STREAMLIT_CACHES:
                found.append(f"{where} imports Streamlit's {sorted(names & STREAMLIT_CACHES)}")
            elif node.module == "lib.core.memo" or (node.module == "lib.core" and "memo" in names):
                found.append(f"{where} imports lib.core.memo")
            elif node.module in ("lib.core", "ui") and "cache" in names:
                found.append(f"{where} imports the cache module itself (declare with its decorators)")
            elif node.module in DECLARATIONS:
                if path.startswith("pages/"):
                    found.append(f"{where} a page names a cache ({node.module})")
                elif names - DECLARATIONS[node.module]:
                    found.append(f"{where} imports {sorted(names - DECLARATIONS[node.module])} from {node.module}")
        elif isinstance(node, ast.Attribute):
            if node.attr in STREAMLIT_CACHES:
                found.append(f"{where} uses Streamlit's {node.attr}")
            elif (
                node.attr in FUNCTOOLS_CACHES
                and isinstance(node.value, ast.Name)
                and node.value.id in functools_names
                and (path, _decorated_name(tree, node)) not in NOT_RESULTS
            ):
                found.append(f"{where} uses functools.{node.attr}")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_results_are_kept_only_behind_the_cache_boundary(path):
    relative = path.relative_to(ROOT).as_posix()
    assert cache_violations(path.read_text(encoding="utf-8"), relative) == []


PLANTED = {
    "st.cache_resource": "import streamlit as st\n@st.cache_resource(max_entries=2)\ndef f(x):\n    return x\n",
    "st.cache_data call": "import streamlit as st\ng = st.cache_data(ttl=5)(len)\n",
    "from streamlit": "from streamlit import cache_data\n",
    "lru_cache": "import functools\n@functools.lru_cache(maxsize=8)\ndef f(x):\n    return x\n",
    "aliased functools": "import functools as ft\n@ft.cache\ndef f(x):\n    return x\n",
    "from functools": "from functools import lru_cache\n",
    "old memo": "from lib.core.memo import IdentityMemo\n",
    "a cache's inside": "from lib.core.cache import _Kept\n",
    "the module": "from lib.core import cache\n",
}


@pytest.mark.parametrize("name", list(PLANTED))
def test_the_boundary_check_catches_a_planted_cache(name):
    assert cache_violations(PLANTED[name], "lib/lessons/planted.py")


def test_the_boundary_check_lets_declarations_and_the_cache_modules_through():
    declared = "from lib.core.cache import kept, on_disk\n@kept(4)\ndef f(rows):\n    return rows\n"
    assert cache_violations(declared, "lib/lessons/planted.py") == []
    assert cache_violations(declared, "pages/planted.py")  # a page never names a cache
    assert cache_violations(PLANTED["lru_cache"], "lib/core/cache.py") == []
    assert cache_violations(PLANTED["st.cache_resource"], "ui/cache.py") == []
    malloc = "import functools\n@functools.cache\ndef _malloc_trim():\n    return None\n"
    assert cache_violations(malloc, "lib/core/heap.py") == []
    assert cache_violations(malloc, "lib/core/other.py")
