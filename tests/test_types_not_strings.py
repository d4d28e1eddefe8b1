"""Statuses, crossover kinds and series origins are compared as enums (lib.core.rows.Status, Origin,
lib.core.crossover.CrossKind), never as strings: strings stay at the file boundary (lib/core/results.py
reads and writes JSON and CSV). A comparison against one of their values anywhere else in lib/, ui/
or pages/ fails here, so a typo ('sucess', 'crosses-back') cannot hide as a branch never taken."""

from __future__ import annotations

import re
from pathlib import Path

from lib.core.crossover import CrossKind
from lib.core.rows import Origin, Status

ROOT = Path(__file__).resolve().parents[1]
BOUNDARY = {"lib/core/results.py"}  # JSON and CSV in and out: the strings' one home
# a comparison that matches a value but is about something else, with why
NOT_THESE = {("lib/charts/provenance.py", "datum.label == 'predicted'"): "a Vega expression the browser runs: the edge"}

VALUES = sorted({m.value for enum in (Status, CrossKind, Origin) for m in enum}, key=len, reverse=True)
_V = "|".join(map(re.escape, VALUES))
PATTERNS = [
    re.compile(rf"""(==|!=)\s*["']({_V})["']"""),  # x == "ok"
    re.compile(rf"""["']({_V})["']\s*(==|!=)"""),  # "ok" == x
    re.compile(rf"""\bin\s*[(\[{{]\s*["']({_V})["']"""),  # x in ("skipped", "oom")
    re.compile(rf"""["']\(({_V})\)["']\s+(not\s+)?in\b"""),  # "(live)" in name: identity parsed from a label
    re.compile(rf"""["'][^"']*\b({_V})\b[^"']*["']\s+(not\s+)?in\s+\w*(series|label|name)"""),  # "live" in series
]


def offenders(text: str) -> list[str]:
    code = (line.split("  # ")[0] for line in text.splitlines() if not line.lstrip().startswith("#"))
    return [line.strip() for line in code if any(p.search(line) for p in PATTERNS)]


def test_no_status_kind_or_origin_is_compared_as_a_string():
    found = []
    for folder in ("lib", "ui", "pages"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in BOUNDARY:
                continue
            found += [
                f"{rel}: {line}"
                for line in offenders(path.read_text(encoding="utf-8"))
                if not any(rel == where and what in line for where, what in NOT_THESE)
            ]
    assert not found, "compare with Status / CrossKind / Origin instead:\n" + "\n".join(found)


def test_the_grep_catches_each_form():
    caught = [
        'if row["status"] == "ok":',
        'if r.get("status") != "skipped":',
        'if "(live)" in n:',
        'if found.kind == "crosses":',
        'x = [r for r in rows if r.get("status") in ("skipped", "oom")]',
        "ok = 'predicted' != r['origin']",
        'if "live" in series_name:',
    ]
    passed = [
        'if row["status"] == Status.OK:',
        "if found.kind == CrossKind.CROSSES:",
        'return {"status": "ok"}',
        "origin=Origin.LIVE",
        'if message[0] == "done":',
        '# kind == "crosses" in a comment',
    ]
    assert [line for line in caught if not offenders(line)] == []
    assert [line for line in passed if offenders(line)] == []
