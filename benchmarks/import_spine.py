"""The house's import graph as the code has it, for docs/ARCHITECTURE.md: read from the source, nothing imported.

    .venv/bin/python benchmarks/import_spine.py          # print them
    .venv/bin/python benchmarks/import_spine.py --doc    # and write them into docs/ARCHITECTURE.md's two listings

Four listings:

  floors      module-level imports between the floors (lib/core ... pages), each arrow with how many module pairs
              import across it; an arrow up a floor would be a bug (tests/test_architecture.py fails on one)
  spine       the path of a Training request from the page down to the sweep and the packs and back up to the
              chart, each hop checked against the imports
  pages       every page, the lib and ui modules it pulls in (module-level imports, followed through) and
              their lines, by floor
  caches      every result kept behind lib.core.cache: the function, @kept's entries or @on_disk's name
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the floors, lowest first: a module imports only its own floor or a lower one
FLOORS = ["lib.core", "lib.workloads", "lib.recorded", "lib.lessons", "lib.charts", "lib.__main__", "ui", "pages"]
# the path of a Training request, hop by hop: (importer, imported, what the importer calls there); each hop is
# checked against the importer's imports (inside functions too), so a renamed or moved room shows as "missing"
HOPS = [
    ("pages.training", "lib.lessons.training.scene", "Scene: the view, the machines, the threads"),
    ("pages.training", "ui.sources", "load_recordings, recorded_recording"),
    ("ui.sources", "lib.recorded", "load_recordings: every shipped pack, parsed once"),
    ("lib.recorded", "lib.core.results", "load_pack: the pack file, checked"),
    ("lib.recorded", "lib.recorded.recording", "Recording: a pack's rows as typed Points"),
    ("lib.recorded.recording", "lib.core.point", "Point"),
    ("lib.lessons.training.scene", "lib.lessons.training.screen", "compose: one Screen"),
    ("lib.lessons.training.screen", "lib.lessons.training.step_tables", "recorded, derived, predicted steps"),
    ("pages.training", "ui.training_live", "measure_live, ChartBox"),
    ("ui.training_live", "ui.measure", "measure_sweep: queued, cached"),
    ("ui.measure", "lib.core.worker", "MEASURE_WORKER: the measuring process"),
    ("ui.measure", "lib.lessons.common.live", "live_sweep, run in that process"),
    ("lib.lessons.common.live", "lib.core.sweep", "run_sweep: the gate, then each point"),
    ("lib.core.sweep", "lib.core.timing", "time_step"),
    ("lib.core.sweep", "lib.core.point", "Point"),
    ("ui.training_live", "lib.lessons.training.live_point", "live_points: the sweep's Points as the lesson's"),
    ("ui.training_live", "lib.charts.provenance", "curve_chart: the Screen's curves drawn"),
    ("pages.training", "ui.scaffold", "results_on_screen: the rows as a table and downloads"),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def sources() -> dict[str, Path]:
    """Every module of lib, ui and pages by its dotted name."""
    paths = [*(ROOT / "lib").rglob("*.py"), *(ROOT / "ui").glob("*.py"), *(ROOT / "pages").glob("*.py")]
    return {module_name(p): p for p in sorted(paths)}


def floor_of(module: str) -> str:
    return (
        next(f for f in reversed(FLOORS) if module == f or module.startswith(f + ".")) if module != "lib" else FLOORS[0]
    )


def top_level_imports(path: Path, known: set[str]) -> set[str]:
    """The modules of `known` a file imports at module level (`from a import b` names a.b when it is a module)."""
    return top_level_imports_of(ast.parse(path.read_text(encoding="utf-8")), known)


def top_level_imports_of(tree: ast.Module, known: set[str]) -> set[str]:
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{a.name}" for a in node.names} & known
            found |= subs
            if node.module in known and len(subs) < len(node.names):
                found.add(node.module)
    return found


def all_imports(path: Path, known: set[str]) -> set[str]:
    """As top_level_imports, with the imports inside functions too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = ast.Module(
        body=[n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))], type_ignores=[]
    )
    return top_level_imports_of(module, known)


def graph() -> tuple[dict[str, set[str]], dict[str, Path]]:
    mods = sources()
    known = set(mods)
    return {m: top_level_imports(p, known) - {m} for m, p in mods.items()}, mods


def pulled_in(start: str, edges: dict[str, set[str]]) -> set[str]:
    """Every module `start` loads through module-level imports (its packages' __init__ too)."""
    seen, todo = {start}, [start]
    while todo:
        m = todo.pop()
        parts = m.split(".")
        for d in edges.get(m, set()) | {".".join(parts[:i]) for i in range(1, len(parts))}:
            if d in edges and d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def caches(mods: dict[str, Path]) -> list[tuple[str, str]]:
    """(module.function, its declaration) for every @kept / @on_disk in lib and ui; a function inside another
    is named through it (lib.charts.compiled.compiled.spec: one cache per chart builder it decorates)."""
    out = []

    def visit(node: ast.AST, prefix: str, source: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for dec in child.decorator_list:
                    called = dec.func if isinstance(dec, ast.Call) else dec
                    if isinstance(called, ast.Name) and called.id == "kept":
                        out.append((f"{prefix}.{child.name}", ast.get_source_segment(source, dec) or ""))
                    elif isinstance(called, ast.Name) and called.id == "on_disk" and isinstance(dec, ast.Call):
                        # its code list is long: the name says which folder of .cache/ it fills
                        out.append((f"{prefix}.{child.name}", f"on_disk({ast.unparse(dec.args[0])}, code=...)"))
                visit(child, f"{prefix}.{child.name}", source)
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}.{child.name}", source)
            else:
                visit(child, prefix, source)

    for name, path in mods.items():
        source = path.read_text(encoding="utf-8")
        visit(ast.parse(source), name, source)
    return out


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def listings() -> tuple[str, str]:
    """(floors, spine and pages; caches) as printed."""
    edges, mods = graph()
    arrows = Counter((floor_of(m), floor_of(d)) for m, ds in edges.items() for d in ds if floor_of(m) != floor_of(d))
    out = ["floors: module-level imports across floors, from -> to: how many (importer, imported) module pairs"]
    for src in reversed(FLOORS):
        row = [f"{dst} {arrows[src, dst]}" for dst in reversed(FLOORS) if arrows[src, dst]]
        up = [dst for dst in FLOORS if arrows[src, dst] and FLOORS.index(dst) > FLOORS.index(src)]
        out.append(f"  {src:<14} -> {', '.join(row) or '(nothing above lib.core)'}" + (f"   UP: {up}" if up else ""))

    out.append("\nspine: a Training request, hop by hop (each an import of the code as it is)")
    for importer, imported, what in HOPS:
        there = imported in all_imports(mods[importer], set(mods))
        out.append(f"  {importer:<28} -> {imported:<33} {what}" + ("" if there else "   MISSING"))

    out.append("\npages: modules pulled in (module-level), lines, by floor")
    for page in sorted(m for m in mods if m.startswith("pages.")):
        got = pulled_in(page, edges) - {page}
        by_floor = Counter(floor_of(m) for m in got)
        total = sum(lines(mods[m]) for m in got)
        split = ", ".join(f"{f.removeprefix('lib.')} {by_floor[f]}" for f in FLOORS if by_floor[f])
        name = page.removeprefix("pages.") + ".py"
        out.append(
            f"  {name:<20} {lines(mods[page]):>3} lines; pulls in {len(got):>3} modules, {total:>6,} lines ({split})"
        )

    kept = [f"  {function:<52} @{declared}" for function, declared in caches(mods)]
    return "\n".join(out), "\n".join(kept)


# the doc's two listings: each the first fenced block after its line
DOC = ROOT / "docs" / "ARCHITECTURE.md"
SPINE_AFTER = "each page pulls in:"
CACHES_AFTER = "Every result kept, as the code declares it"


def into_doc(text: str, after: str, listing: str) -> str:
    """`text` with the fenced block after the line holding `after` replaced by `listing`."""
    start = text.index("```\n", text.index(after)) + 4
    return text[:start] + listing + "\n" + text[text.index("```", start) :]


def main() -> None:
    spine, kept = listings()
    print(spine + "\n\ncaches: every result kept (lib.core.cache's decorators), by module\n" + kept)
    if "--doc" in sys.argv[1:]:
        DOC.write_text(into_doc(into_doc(DOC.read_text(encoding="utf-8"), SPINE_AFTER, spine), CACHES_AFTER, kept))
        print(f"\nwritten into {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
