"""Your results' screen value (lib.lessons.your_results.screen), without Streamlit."""

from __future__ import annotations

from lib.lessons.your_results.screen import Notice, nothing_yet, screen
from lib.recorded.pack import Fingerprint, Pack
from lib.recorded.uploads import Source

PACK = Pack(Fingerprint.from_json({"label": "box"}), [{"workload": "mlp"}, {"workload": "mlp"}])


def test_each_unused_file_says_why_in_order_and_only_the_visitors_own_packs_are_remembered():
    sources = [
        Source("bad.json", error="its field median is not a number"),
        Source("mine.json", pack=PACK),
        Source("again.json", pack=PACK, note="the same rows as mine.json"),
        Source("shipped: h200.json", pack=PACK, shipped=True),
    ]
    on = screen(sources, None, [], more=5)
    assert on.notices == (
        Notice("Not used: its field median is not a number", True),
        Notice("the same rows as mine.json", False),
    )
    assert on.uploads == ([PACK], ["mine.json"])  # the shipped pack is not the visitor's
    assert on.used == r"Using: mine.json (2 rows); shipped\: h200.json (2 rows)"  # names escaped for markdown
    assert on.answer is None  # nothing combined: the page says there is nothing to compare yet


def test_nothing_yet_offers_the_shipped_packs_only_when_there_are_some():
    assert nothing_yet(0) == "Nothing to compare yet: upload a result pack below."
    assert nothing_yet(3).endswith(", or switch on the shipped packs.")
