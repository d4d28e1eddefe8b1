"""Rename one-letter module aliases (`from lib.lessons.training import view as T`) to readable names.

    python scripts/drop_aliases.py [paths...]      # default: lib ui pages

A merge that brings back a one-letter alias (tests/test_architecture.py then fails) is mended by taking
the other side's file and running this again. It never takes a name the file already uses.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The readable names of each module that was imported under one letter: the first not already a name in the file.
NAMES = {
    "lib.lessons.training.view": ("view", "training_view"),
    "lib.lessons.training.words": ("words", "training_words"),
    "lib.lessons.training.live": ("live", "training_live"),
    "lib.lessons.training.scene": ("scene", "lesson", "training_scene"),
    "lib.lessons.training.screen": ("screen", "training_screen"),
    "lib.lessons.training.model": ("cost_model", "training_model"),
    "lib.workloads.vision": ("vision",),
    "lib.lessons.timing.screen": ("screen", "timing_screen"),
    "lib.lessons.jacobian.screen": ("screen", "jacobian_screen"),
    "lib.lessons.home.screen": ("screen", "home_screen"),
    "lib.core.costmodel": ("costmodel",),
}


def one_letter(name: str | None) -> bool:
    return name is not None and len(name) == 1 and name.isupper()


def names_used(tree: ast.AST) -> set[str]:
    """Every name a file binds or reads, so a new name never shadows or is shadowed by one of them."""
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.arg):
            used.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            used.add(node.name)
        elif isinstance(node, ast.alias):
            used.add(node.asname or node.name.split(".")[0])
    return used


def rewrite(path: Path) -> int:
    """Rewrite one file in place; the number of aliases renamed."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    used = names_used(tree)
    renames: dict[str, str] = {}
    edits: list[tuple[int, int, int, str]] = []  # (line, start column, end column, new text)
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level:
            continue
        for alias in node.names:
            if not one_letter(alias.asname):
                continue
            module = f"{node.module}.{alias.name}"
            free = [n for n in NAMES.get(module, ()) if n not in used]
            if not free or alias.asname in renames:
                raise SystemExit(
                    f"{path}: no free readable name for {module} (add one to NAMES), or {alias.asname} is bound twice"
                )
            new = free[0]
            used.add(new)
            renames[alias.asname] = new
            as_text = alias.name if new == alias.name else f"{alias.name} as {new}"
            edits.append((alias.lineno, alias.col_offset, alias.end_col_offset, as_text))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in renames:
            if not isinstance(node.ctx, ast.Load):
                raise SystemExit(f"{path}:{node.lineno}: {node.id} is assigned, not only read")
            edits.append((node.lineno, node.col_offset, node.end_col_offset, renames[node.id]))
    lines = text.splitlines(keepends=True)
    for line, start, end, new_text in sorted(edits, reverse=True):
        raw = lines[line - 1].encode("utf-8")  # ast's columns count UTF-8 bytes
        lines[line - 1] = (raw[:start] + new_text.encode("utf-8") + raw[end:]).decode("utf-8")
    if renames:
        path.write_text("".join(lines), encoding="utf-8")
    return len(renames)


def main(args: list[str]) -> None:
    roots = [Path(a) for a in args] or [ROOT / d for d in ("lib", "ui", "pages")]
    files = sorted(p for r in roots for p in ([r] if r.is_file() else r.rglob("*.py")))
    for path in files:
        if n := rewrite(path):
            print(f"{path}: {n} alias(es) renamed")


if __name__ == "__main__":
    main(sys.argv[1:])
