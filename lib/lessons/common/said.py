"""A section's words in the order a page shows them, each saying how it is shown: a paragraph, a caption
(smaller, grey) or a notice (an info box). A lesson returns them; ui.scaffold.say lays them out.

    said = (Said.text("At batch size 64:"), Said.caption("Each is timed on its own."), *Said.texts(notes))
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class Style(enum.Enum):
    TEXT = "text"  # a paragraph of markdown
    CAPTION = "caption"
    NOTICE = "notice"  # an info box


@dataclass(frozen=True)
class Said:
    words: str
    style: Style = Style.TEXT

    @staticmethod
    def text(words: str) -> Said:
        return Said(words)

    @staticmethod
    def caption(words: str) -> Said:
        return Said(words, Style.CAPTION)

    @staticmethod
    def texts(words: Iterable[str | None], style: Style = Style.TEXT) -> tuple[Said, ...]:
        """Each of `words` that is not None or empty, shown alike."""
        return tuple(Said(w, style) for w in words if w)
