"""Issue 39 item 2, thin pages: a page lays out its lesson's screen object and declares its widgets; what it
computes lives in its lesson package (lib/lessons/<page>/) or its ui helper. Done when: at most 100 lines a page
and no lambda in it (a format_func maps a key to its words with a dict's .get or a lesson function). Every page."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
THIN = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))


@pytest.mark.parametrize("page", THIN)
def test_a_thin_page_is_at_most_100_lines_with_no_lambda(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 100
    lambdas = [node.lineno for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Lambda)]
    assert not lambdas, f"{page}: a lambda on line(s) {lambdas}: move what it computes into the lesson"
