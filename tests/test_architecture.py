"""The house rules of docs/ARCHITECTURE.md, checked on the source tree itself.

lib/, ui/ and pages/ are built in floors; a module may import from its own floor or lower, never higher:
core (0) < workloads (1) < recorded (2) < lessons (3) < charts (4) < the CLI entry (5); ui/ and
pages/ sit above all of lib. Only lib/charts imports Altair; nothing in lib imports Streamlit.
"""

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOORS = {
    "lib": 0,
    "lib.core": 0,
    "lib.workloads": 1,
    "lib.recorded": 2,
    "lib.lessons": 3,
    "lib.charts": 4,
    "lib.__main__": 5,
    "ui": 6,
    "pages": 7,
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def floor_of(module: str) -> int | None:
    best = None
    for prefix, floor in FLOORS.items():
        if module == prefix or module.startswith(prefix + "."):
            best = floor
    return best


LIB = sorted(p for p in (ROOT / "lib").rglob("*.py"))
MODULES = {module_name(p) for p in LIB}


def syntax(path: Path) -> tuple[ast.Module, tuple[ast.AST, ...]]:
    """A file's tree and every node in it. Each file is parsed once a process (the checks below read every
    module three or four ways), keyed by its text so a file written anew is parsed anew."""
    return _syntax(path.read_text(encoding="utf-8"))


@functools.cache
def _syntax(source: str) -> tuple[ast.Module, tuple[ast.AST, ...]]:
    tree = ast.parse(source)
    return tree, tuple(ast.walk(tree))


def imports(path: Path, top_level_only: bool = False) -> list[str]:
    """The modules a file imports; `from package import module` names the module, not the package."""
    tree, every = syntax(path)
    out = []
    for node in tree.body if top_level_only else every:
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            submodules = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in MODULES]
            out += submodules if len(submodules) == len(node.names) else [node.module, *submodules]
    return out


PAGES = sorted((ROOT / "pages").glob("*.py"))
UI = sorted((ROOT / "ui").glob("*.py"))
MODULES |= {module_name(p) for p in UI}  # `from ui import sources` names the module ui.sources


@pytest.mark.parametrize("path", LIB + UI + PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_runs_up_a_floor(path):
    assert floor_of(module_name(path)) is not None, f"{path} is in no floor: lib/ holds only packages and the CLI"
    assert upward(module_name(path), imports(path)) == []


def upward(module: str, imported: list[str]) -> list[str]:
    """The modules of `imported` on a floor above `module`'s."""
    own = floor_of(module)
    return [name for name in imported if (floor := floor_of(name)) is not None and own is not None and floor > own]


def test_the_floor_check_finds_an_import_up_a_floor(tmp_path):
    """The check above can fail: core importing a lesson inside a function, ui importing a page."""
    (tmp_path / "lib" / "core").mkdir(parents=True)
    planted = tmp_path / "lib" / "core" / "planted.py"
    planted.write_text(
        "import streamlit\nfrom lib.core import fmt\ndef f():\n    from lib.lessons.training import view\n"
    )
    assert upward("lib.core.planted", imports(planted)) == ["lib.lessons.training.view"]
    assert upward("ui.sidebar", ["pages.training", "lib.charts.curves"]) == ["pages.training"]


@pytest.mark.parametrize("path", LIB, ids=lambda p: str(p.relative_to(ROOT)))
def test_lib_never_imports_streamlit_and_only_charts_import_altair(path):
    names = {n.split(".")[0] for n in imports(path)}
    assert "streamlit" not in names
    if "altair" in names:
        assert module_name(path).startswith("lib.charts")


def ancestors(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the import graph (its modules in order, the first again at the end), or None."""
    state: dict[str, int] = {}

    def visit(m: str, trail: list[str]) -> list[str] | None:
        state[m] = 1
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                return trail + [m, d]
            if d not in state and (found := visit(d, trail + [m])):
                return found
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m, [])):
            return found
    return None


def import_graph(paths: list[Path]) -> dict[str, set[str]]:
    """Who imports whom among `paths`, counting imports inside functions too (they run, later: a circle
    through one still ties two modules together). A module importing its own package is no edge: Python
    loads the package before any module in it anyway."""
    graph = {module_name(p): set(imports(p)) for p in paths}
    return {m: {d for d in deps if d in graph and d != m and d not in ancestors(m)} for m, deps in graph.items()}


def test_no_import_circles_in_lib_or_ui():
    circle = find_circle(import_graph(LIB + UI))
    assert circle is None, "import circle: " + " -> ".join(circle or [])


def test_the_circle_check_finds_a_circle_through_a_function_level_import(tmp_path):
    """The check above can fail: a function-level import back to a module's importer is a circle."""
    (tmp_path / "ui").mkdir()
    (tmp_path / "ui" / "a.py").write_text("import ui.b\n")
    (tmp_path / "ui" / "b.py").write_text("def f():\n    from ui.a import x\n")
    graph = {"ui.a": set(imports(tmp_path / "ui" / "a.py")), "ui.b": set(imports(tmp_path / "ui" / "b.py"))}
    assert find_circle(graph) in (["ui.a", "ui.b", "ui.a"], ["ui.b", "ui.a", "ui.b"])


def test_lib_holds_only_packages_init_and_the_cli_entry():
    loose = sorted(p.name for p in (ROOT / "lib").glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"]


def one_letter_aliases(path: Path) -> list[str]:
    """`import x as T` / `from x import y as T`: a capital letter a reader must look up at the top of the file."""
    return [
        f"{path.name}:{node.lineno}: {a.name} as {a.asname}"
        for node in syntax(path)[1]
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for a in node.names
        if a.asname and len(a.asname) == 1 and a.asname.isupper()
    ]


@pytest.mark.parametrize("path", LIB + UI + PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_are_imported_under_readable_names(path):
    assert one_letter_aliases(path) == []


def test_the_alias_check_finds_a_one_letter_alias(tmp_path):
    """The check above can fail: both import forms, inside a function too; `import numpy as np` passes."""
    source = tmp_path / "m.py"
    source.write_text(
        "import numpy as np\nimport lib.core.fmt as F\n"
        "def f():\n    from lib.lessons.training import view as T, words\n"
    )
    assert one_letter_aliases(source) == ["m.py:2: lib.core.fmt as F", "m.py:4: view as T"]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_pages_are_layout_and_words_at_most_100_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 100  # a page lays out its screen object


# A function takes at most this many parameters (self and cls aside; *args and **kwargs count one each): more,
# and its call sites mix what is computed with how and with callbacks; group them in a frozen request object.
MOST_PARAMETERS = 8
# Each to take request objects in a later pass (entry: its count today), and why not yet.
WIDE_FOR_NOW = {
    # mirrors st.radio's own keywords plus the link's key: the page author's Streamlit vocabulary, not ours
    "ui/url_settings.py::UrlSettings.radio": 9,
    # the rest are owned by other helpers of issue 39, whose passes change these signatures anyway:
    # lib/core/sweep.py, lib/core/timing.py, ui/measure.py, lib/workloads/ddp: the typed Point from the sweep
    "lib/core/sweep.py::measure_point": 12,
    "lib/core/timing.py::time_step": 12,
    "ui/measure.py::measure_sweep": 10,
    "ui/measure.py::sweep_request": 9,
    "lib/workloads/ddp/launch.py::launch": 9,
    "lib/workloads/ddp/launch.py::_launch_once": 9,
    # the data pipeline's lesson: its dicts become types first
}


def parameter_counts(path: Path, root: Path = ROOT) -> dict[str, int]:
    """'file::Class.function' -> how many parameters it takes, for every function of the file."""
    return _parameter_counts(path.relative_to(root).as_posix(), path.read_text(encoding="utf-8"))


@functools.cache
def _parameter_counts(name: str, source: str) -> dict[str, int]:
    counts: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = child.args
                names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
                bound = 1 if names and names[0] in ("self", "cls") else 0
                counts[f"{name}::{prefix}{child.name}"] = (
                    len(names) - bound + (a.vararg is not None) + (a.kwarg is not None)
                )
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(_syntax(source)[0], "")
    return counts


def too_wide(paths: list[Path], root: Path = ROOT, allowed: dict[str, int] | None = None) -> dict[str, int]:
    """The functions taking more than MOST_PARAMETERS parameters, beyond what `allowed` lets each take."""
    allowed = WIDE_FOR_NOW if allowed is None else allowed
    return {
        name: n
        for p in paths
        for name, n in parameter_counts(p, root).items()
        if n > max(MOST_PARAMETERS, allowed.get(name, 0))
    }


def test_no_function_takes_too_many_parameters():
    assert too_wide(LIB + UI + PAGES) == {}, (
        "group them in frozen request objects by meaning, as "
        "lib.charts.layout.Layout or lib.lessons.common.live.LiveSweep do"
    )


def test_every_wide_function_allowed_for_now_still_exists_and_is_still_wide():
    """An entry is dropped as soon as its function takes a request object: the list only shrinks."""
    counts = {name: n for p in LIB + UI + PAGES for name, n in parameter_counts(p).items()}
    assert {name: counts.get(name) for name in WIDE_FOR_NOW} == WIDE_FOR_NOW


def test_the_parameter_check_catches_a_wide_function_and_a_wide_method(tmp_path):
    (tmp_path / "ui").mkdir()
    planted = tmp_path / "ui" / "wide.py"
    planted.write_text(
        "def narrow(a, b, *, c=1, **rest):\n    pass\n\n\n"
        "def wide(a, b, c, d, e, f, g, *, h=1, i=2):\n    pass\n\n\n"
        "class Box:\n    def draw(self, a, b, c, d, e, f, g, h, *more):\n        pass\n"
    )
    assert too_wide([planted], tmp_path, allowed={}) == {"ui/wide.py::wide": 9, "ui/wide.py::Box.draw": 9}
    assert too_wide([planted], tmp_path, allowed={"ui/wide.py::wide": 9}) == {"ui/wide.py::Box.draw": 9}


# -- docs/ARCHITECTURE.md names only what exists ---------------------------------------------------------------------

DOC = ROOT / "docs" / "ARCHITECTURE.md"
# where a name the doc quotes may be defined
NAMED_IN = ("lib", "ui", "pages", "scripts", "tests", "benchmarks")
# the first word of a span quoting another project's API (Streamlit's, Python's), not ours
OTHER_PROJECTS = {"st", "streamlit", "functools", "torch", "alt", "altair", "pytest", "python"}


FENCED = re.compile(r"^```.*?^```", flags=re.S | re.M)


def quoted_spans(markdown: str) -> list[str]:
    """The `inline code` spans of a markdown text and, in its fenced blocks (diagrams, listings, shell sessions),
    every dotted name of lib, ui or pages (`lib.core.sweep.run_sweep`)."""
    prose = FENCED.sub("", markdown)
    fenced = "\n".join(m.group(0) for m in FENCED.finditer(markdown))
    dotted = [m.rstrip(".") for m in re.findall(r"(?<![\w/.])(?:lib|ui|pages)\.[A-Za-z_][\w.]*", fenced)]
    return re.findall(r"`([^`\n]+)`", prose) + dotted


def names_defined(paths: list[Path]) -> set[str]:
    """Every name the code defines (modules, classes, functions, parameters, assigned names and attributes) and every
    identifier-shaped string (a setting's name, an environment variable)."""
    names: set[str] = set()
    for path in paths:
        names.add(path.stem)
        for node in syntax(path)[1]:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.alias):
                names.add(node.asname or node.name.split(".")[-1])
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                names.add(node.value)
    return names


def module_defines(path: Path, name: str) -> bool:
    """Whether a module defines `name` at its top level (a class, function, assignment or import)."""
    for node in syntax(path)[0].body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (a.asname or a.name.split(".")[0]) == name for a in node.names
        ):
            return True
    return False


def module_file(dotted: str, root: Path) -> Path | None:
    base = root.joinpath(*dotted.split("."))
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


def unknown_names(spans: list[str], root: Path, defined: set[str]) -> list[str]:
    """The spans naming a file, module or name the tree does not have. A span holding a placeholder (`<page>`,
    `*_answer`) or a shell command is no name; a call's arguments and a keyword's value are dropped."""
    unknown = []
    for span in spans:
        if any(c in span for c in "<>*"):
            continue
        words = span.split()
        if len(words) > 1:  # a command or code: only a script it runs is checked
            if not (words[0].endswith(".py") or "/" in words[0]):
                continue
            span = words[0]
        name = span.split("(")[0].split("=")[0]
        if "/" not in name:
            name = name.strip(".")  # `.about`: an attribute
        if not name:
            continue
        if "/" in name or re.search(r"\.(py|json|toml|ini|sh|md)$", name):
            if not ((root / name).exists() or ("/" not in name and any(root.rglob(name)))):
                unknown.append(span)
            continue
        parts = name.split(".")
        if not all(p.isidentifier() for p in parts) or parts[0] in OTHER_PROJECTS:
            continue
        if parts[0] in ("lib", "ui", "pages"):
            modules = [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
            found = next(((m, f) for m in modules if (f := module_file(m, root))), None)
            rest = parts[len(found[0].split(".")) :] if found else parts
            if found is None or (rest and not module_defines(found[1], rest[0])) or not set(rest[1:]) <= defined:
                unknown.append(span)
        elif not set(parts) <= defined:
            unknown.append(span)
    return unknown


def test_the_architecture_doc_names_only_what_exists():
    paths = [p for d in NAMED_IN for p in (ROOT / d).rglob("*.py")] + list(ROOT.glob("*.py"))
    assert unknown_names(quoted_spans(DOC.read_text(encoding="utf-8")), ROOT, names_defined(paths)) == []


def test_the_doc_check_finds_a_made_up_file_module_and_name(tmp_path):
    """The check above can fail: a file, a module, a module's name and a bare name that do not exist, quoted in
    the prose or named in a fenced block."""
    (tmp_path / "lib" / "core").mkdir(parents=True)
    (tmp_path / ".ci").mkdir()
    (tmp_path / "lib" / "core" / "fmt.py").write_text("class Sentence:\n    about = None\n\ndef plural(n):\n    pass\n")
    doc = (
        "`lib/core/fmt.py`, `lib.core.fmt.Sentence`, `lib.core.fmt.Sentence.about`, `plural(3)`, `.about`, `.ci/`,\n"
        "`lib/lessons/<page>/`, `python -m lib predict`, `st.cache_data`\n"
        "```\n`lib/core/in_a_listing.py` lib.core.fmt.Sentence.about and lib.<page> lib.core.fmt.Missing\n```\n"
        "`lib/core/gone.py`, `lib.core.gone`, `lib.core.fmt.Paragraph`, `lib.core.fmt.Sentence.words`, `Gone`,\n"
        "`scripts/gone.py --all`\n"
    )
    defined = names_defined([tmp_path / "lib" / "core" / "fmt.py"])
    assert unknown_names(quoted_spans(doc), tmp_path, defined) == [
        "lib/core/gone.py",
        "lib.core.gone",
        "lib.core.fmt.Paragraph",
        "lib.core.fmt.Sentence.words",
        "Gone",
        "scripts/gone.py",
        "lib.core.fmt.Missing",
    ]
