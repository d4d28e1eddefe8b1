"""The Your results page's screen: every sentence it shows, read from the packs on the page; the page lays
them out and declares its widgets.

    on = screen(sources, combined, drawn, more=5)     the files' notices, the answer, the captions, the rest's labels
    words = comparison_words(comparison)              one chart's caption and the lines under it
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from lib.core.fmt import plural
from lib.lessons.your_results.answer import machines_answer
from lib.lessons.your_results.compare import (
    Comparison,
    Drawn,
    crossover_lines,
    describe_fixed,
    fastest_line,
    uncharted_rows,
)
from lib.recorded.pack import Pack
from lib.recorded.upload_budget import LIMITS
from lib.recorded.uploads import MAX_UPLOAD_BYTES, Combined, Source, one_line, plain

RECORD_COMMANDS = """\
# on the machine to measure (it needs torch, pandas and scikit-learn, not Streamlit):
python3 scripts/record_packs.py --out mypacks        # the app's standard sweeps, CPU and CUDA: mypacks/*.json

# or one sweep of your own choosing:
python -m lib sweep mlp --over batch_size=1,16,256,4096 --set hidden_width=256 --devices cpu,cuda --out my.json"""
HOW_TO_RECORD = (
    "Run it from a copy of this project on the machine you want to measure. The pack is a JSON file: the "
    "rows (median time, spread, repeats, status per point) and the machine's fingerprint (CPU, cores, threads, "
    "GPUs, driver, torch/CUDA/Python versions, date). Then either **upload it here** (drag the file onto the "
    "box above; it is held for your session only, never written to disk), or **ship it with your copy of the "
    "app** by putting it in `lib/recorded/`: the sidebar then offers it as the source of every page's GPU "
    "curves (when it holds GPU rows)."
)
CSV_CAPTION = "A CSV of the rows works too, but only the JSON pack carries the machine's fingerprint."
UPLOAD_MB = max(1, MAX_UPLOAD_BYTES // (1024 * 1024))
UPLOAD_HELP = (
    f"Data only: JSON or CSV, at most {MAX_UPLOAD_BYTES // (1024 * 1024)} MB each, {LIMITS.session_files} "
    f"files and {LIMITS.session_rows:,} rows in all. Files are read, never run, and let go when you close "
    "the tab."
)
NOTHING_NOTE = "**How to record your own pack** says how to make one."
NO_SWEEP = (
    "None of these rows is a measured point of a sweep (a setting varied over several values), so there is "
    "no curve to draw; the table and the download below still hold them."
)
POINTS_CAPTION = (
    "Each point: the median time of one step (one call of the workload) over its timed repeats; bars "
    "span the interquartile range. Colour says what a curve is (CPU blue or purple, GPU orange then "
    "red), dash which machine. A crossover compares a machine's GPU with its own CPU, from its "
    "measured points only."
)
MACHINES_CAPTION = (
    "From each pack's fingerprint, as recorded by the machine itself. 'threads in CPU rows' is what "
    "the CPU measurements really used; 'torch threads' is PyTorch's default there."
)


def shipped_toggle(shipped: int) -> tuple[str, str]:
    """The shipped packs' switch: its label and its help."""
    return (
        f"Compare with the {plural(shipped, 'pack')} shipped with the app",
        "Packs recorded on real GPUs with this project's command line."
        if shipped
        else "No packs are shipped with this copy of the app yet.",
    )


def nothing_yet(shipped: int) -> str:
    return "Nothing to compare yet: upload a result pack below" + (
        ", or switch on the shipped packs." if shipped else "."
    )


@dataclass(frozen=True)
class Notice:
    """One file's message: why it was not used (`error`) or why a readable file was still left out."""

    text: str
    error: bool


@dataclass(frozen=True, eq=False)
class ComparisonWords:
    fixed: str  # what was held fixed, and how many machines and curves
    lines: tuple[str, ...]  # markdown: one line per machine, then the fastest curve
    fastest: str | None


def comparison_words(comp: Comparison) -> ComparisonWords:
    return ComparisonWords(
        f"Held fixed: {plain(describe_fixed(comp.workload, comp.fixed), limit=600)}. "
        f"{plural(len(comp.machines), 'machine')}, {plural(len(comp.curves), 'curve')}.",
        tuple(f"- {line.markdown()}" for line in crossover_lines(comp)),
        fastest_line(comp),
    )


class Uploads(NamedTuple):
    """The visitor's own packs used (as read from their files), and those files' names."""

    packs: list[Pack]
    names: list[str]


@dataclass(frozen=True, eq=False)
class Screen:
    notices: tuple[Notice, ...]  # one per file not used, in the files' order
    used: str | None  # 'Using: a.json (12 rows); …'
    uploads: Uploads
    answer: str | None  # None: nothing to compare (no pack used)
    more: tuple[str, ...]  # the label of each comparison past the first `more` + 1, for the picker
    skipped: str | None  # the rows no chart holds, by reason
    download: str | None  # what the download holds


def screen(sources: Sequence[Source], combined: Combined | None, drawn: Sequence[Drawn], more: int) -> Screen:
    notices = tuple(
        Notice(f"Not used: {plain(s.error, limit=400)}", True) if s.error else Notice(plain(s.note, limit=400), False)
        for s in sources
        if s.error or s.note
    )
    used = [s for s in sources if s.used]
    own = [s for s in used if not s.shipped]
    using = (
        "Using: " + "; ".join(f"{plain(s.name)} ({plural(len(s.pack.rows), 'row')})" for s in used) if used else None
    )
    if combined is None:
        return Screen(notices, using, Uploads([s.pack for s in own], [s.name for s in own]), None, (), None, None)
    rows = combined.pack.rows
    skipped = uncharted_rows(rows)
    return Screen(
        notices,
        using,
        Uploads([s.pack for s in own], [s.name for s in own]),
        machines_answer(drawn[0].comparison) if drawn else NO_SWEEP,
        tuple(f"{one_line(d.title)} ({plural(len(d.comparison.machines), 'machine')})" for d in drawn[1 + more :]),
        "Not on the charts: " + "; ".join(f"{plural(k, 'row')} with {reason}" for reason, k in skipped.items()) + "."
        if skipped
        else None,
        f"{plural(len(rows), 'row')} from {plural(len(combined.machines), 'machine')}; every row names its machine, "
        "and the JSON keeps every machine's fingerprint. Upload it here again to see this page.",
    )
