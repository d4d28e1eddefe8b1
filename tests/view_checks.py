"""Checkers for tests/test_random_views.py: does what a page says hold on what its charts draw?

Each checker takes a random_views.Reading and returns a list of Finding (empty: the page passes).

- numbers_on_chart: every time, ratio, percentage and plain number in a sentence can be read off the page's
  charts (Pool: a value, in s, ms or µs for a time; a row's total or a difference; one curve against the other
  at one x; a series' values against each other; a group's sum, span or count), or is a setting of the view, a
  product the sentence works out ('400 × 300 = 120,000'), a time divided by the count it names, a seed's
  reported number, or a number written in the page's own source. Small whole numbers (counts: "2 times",
  "5 of the 7"), how a measurement was kept ("5,765 rows", "over 1–154 timed repeats"), estimates of memory or
  work (GB, GFLOP) and a crossover's "about" (see (c)) are not checked.
- dates_and_machines_on_chart: every date (YYYY-MM-DD) and every GPU named is on a chart's rows or series;
  every curve named in bold with its origin ("(recorded)", "(live, this server)") is a series drawn.
- crossovers_between_swaps: every "between <axis> A and B" names two plotted x values where the two named
  curves really swap order, with its "about X" between them; every "leads from A (after B)" likewise.
- live_ratios_believed: a ratio bar of a live time carries its two times, is their quotient, and each live time
  is one the noise rule believes; a sentence quoting it says it is live and how long ago.
- no_contradictions: no sentence says there is no GPU curve while one is drawn; no curve is "faster at every"
  point while another sentence of the page has the other curve faster, or the two catching up.

How strict (a) is. A sentence that names curves (a series' legend name, in bold there or anywhere on the page)
is read against those curves only (`scoped`): their points one by one (no sums over a curve, no differences of a
point with its own band), the bars and stacks drawn for them, the differences of the named curves at one x, a
chart that draws no curve named on the page (a roofline, a speedup; one of many marks, a timeline, by its totals
only), the page's ratios (a curve against any value on the page) and the settings. A sentence that names none is
read against the whole page. Measured over the 305 views of tests/test_random_views.py (random "N.NN ms" put in
each sentence that names a curve, read against its pool): a made-up time passes by chance on 31 % of Training's
sentences (72 % read against the whole page), 42 % on Timing pitfalls (82 %), 31 % on Jacobian (62 %), 27 % on
Seed cases (66 %), 28 % on Data pipeline (48 %), 6 % on the Gallery (7 %): a curve drawn at every size and line
style still holds hundreds of values, each read in s, ms and µs. A made-up ratio or a two-digit percentage still
passes often (ratios are the page's: too coarse to tell). So (a) catches a number from another curve, and a
number of no curve, wherever a sentence names the curve it speaks of.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from random_views import Chart, Reading

ROOT = Path(__file__).resolve().parents[1]
SMALL_COUNT = 20  # whole numbers up to this are counts of things, not values read off a chart
REL_SLACK = 0.002  # on top of the printed rounding (a value rounded twice)

DATE = re.compile(r"\b(20\d\d-\d\d-\d\d)\b")
CODE = re.compile(r"`[^`]*`")
LINK = re.compile(r"\]\([^)]*\)")
NUMBER = re.compile(
    r"(?<![\w.\-/·])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(µs|ms|ns|s|min|%|×|GB/s|TB|GB|MB|KB|kB|GFLOP/s|TFLOP/s|PFLOP/s|kFLOP|GFLOP|TFLOP|MFLOP))?(?![\w])"
)
TIME_UNITS = {"µs", "ms", "ns", "s", "min"}
SCALED = TIME_UNITS | {"GB/s", "GFLOP/s", "TFLOP/s", "PFLOP/s"}
# a workload's own estimate of the memory or the work of a point (why it was not run), never a drawn value
ESTIMATES = {"TB", "GB", "MB", "KB", "kB", "kFLOP", "GFLOP", "TFLOP", "MFLOP"}
CURVE_FIELDS = {"t", "v", "y"}  # the value a time chart draws for its x (lib.charts: 't' or 'v')
UNIT_SCALE = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
ABOUT = re.compile(r"(?:about|≈|~)\s?[\d,.]+$")
# a machine a result came from is named as its pack names it ("NVIDIA H200"); the seeds' own GPUs and a
# notebook's T4 are prose about other machines
GPU_NAME = re.compile(r"\bNVIDIA (?:H100|H200|A100|A10G|L4|T4|V100|RTX \d{4})(?: 80GB HBM3)?\b")
BOLD = re.compile(r"\*\*([^*]+)\*\*")
MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!:|<>~])")


@dataclass(frozen=True)
class Finding:
    checker: str
    sentence: str
    why: str

    def line(self, url: str) -> str:
        return f"{url}\n    {self.checker}: {self.why}\n    sentence: {self.sentence[:300]}"


def sentences(reading: Reading) -> Iterator[str]:
    """The page's words, one paragraph or bullet at a time, without headings, code and link targets."""
    for text in reading.texts:
        for part in re.split(r"\n+", text):
            part = part.strip()
            if part and not part.startswith("#"):
                yield LINK.sub("]", CODE.sub("", part))


def _value(token: str) -> float:
    return float(token.replace(",", ""))


def _tolerance(token: str, value: float) -> float:
    decimals = len(token.split(".")[1]) if "." in token else 0
    return 0.5 * 10**-decimals + REL_SLACK * abs(value)


# -- (a) numbers ---------------------------------------------------------------------------------------------


@cache
def source_literals() -> frozenset[str]:
    """Numbers the code itself writes into a page's prose: those inside its string literals (not docstrings)
    and its number constants (a threshold, a seed's reported time), in pages, ui, lib/lessons and the seeds'
    presets."""
    import ast

    found: set[str] = set()
    files = [
        *ROOT.glob("pages/*.py"),
        *ROOT.glob("ui/*.py"),
        *ROOT.glob("lib/lessons/**/*.py"),
        ROOT / "lib/workloads/presets.py",
    ]
    for path in files:
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or id(node) in docstrings:
                continue
            if isinstance(node.value, str):
                for match in re.finditer(r"\d[\d,]*(?:\.\d+)?", node.value):
                    found |= {match.group(0), match.group(0).replace(",", "")}
            elif isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
                found |= {repr(node.value), f"{node.value:,}", f"{node.value * 100:g}"}
    return frozenset(found)


@cache
def seed_reports() -> frozenset[float]:
    """The numbers the seeds reported (lib/workloads/presets.py), which a page quotes rounded, in any unit."""
    text = (ROOT / "lib/workloads/presets.py").read_text()
    return frozenset(float(m.group(0)) for m in re.finditer(r"(?<![\w.])\d+\.\d+(?![\w.])", text))


class Pool:
    """Two pools a sentence's number is read from.

    amounts: what a time (or a rate) can be: the charts' values; within a row, differences and the row's
    total (a stacked bar); between rows at the same x, differences of one field; per series, lane or kind,
    each field's sum and span, and the row count (_groups).
    ratios: what a 'N×' or 'N%' can be: within a row, one value against another; between rows at the same x,
    the curves' values against each other; within a series, its curve's values against each other; the group
    figures against each other.

    The pairs of a long list (a curve's points) are searched, not listed (`long`): a loss curve of a few hundred
    epochs has tens of thousands of pairs, and listing them made a Seed cases view's check take seconds."""

    LISTED = 16  # a list of at most this many values has its pairs listed

    def __init__(self) -> None:
        self.amounts: set[float] = set()
        self.ratios: set[float] = set()
        self.long: list[tuple[list[float], bool]] = []  # (sorted distinct values, whether their ratios count)

    def add_pairs(self, values: Iterable[float], ratios: bool = True) -> None:
        values = sorted({v for v in values if v > 0})
        if len(values) > self.LISTED:
            self.long.append((values, ratios))
            return
        for i, a in enumerate(values):
            for b in values[:i]:
                self.amounts.add(a - b)
                if ratios:
                    self.ratios |= {a / b, b / a}


SLACK = 1e-9  # a search window's relative widening: each candidate is then checked exactly as a listed one is


def _difference_near(values: list[float], target: float, tol: float) -> bool:
    """Whether a - b, for two of the sorted distinct `values` with b < a, lies in [target - tol, target + tol]."""
    for i, a in enumerate(values):
        j = bisect.bisect_left(values, a - target - tol - SLACK * a, 0, i)
        while j < i and values[j] <= a - target + tol + SLACK * a:
            if target - tol <= a - values[j] <= target + tol:
                return True
            j += 1
    return False


def _ratio_near(values: list[float], target: float, tol: float) -> bool:
    """Whether x / y, for two different of the sorted distinct positive `values`, lies in [target - tol,
    target + tol]."""
    for k, y in enumerate(values):
        j = bisect.bisect_left(values, y * (target - tol) * (1 - SLACK))
        while j < len(values) and values[j] <= y * (target + tol) * (1 + SLACK):
            if j != k and target - tol <= values[j] / y <= target + tol:
                return True
            j += 1
    return False


@dataclass(frozen=True)
class Values:
    """A sorted pool of values, and long lists whose pairs' differences (or, `ratio`, quotients) count too."""

    listed: list[float]
    pairs: tuple[list[float], ...] = ()
    ratio: bool = False

    def near(self, target: float, tol: float) -> bool:
        i = bisect.bisect_left(self.listed, target - tol)
        if i < len(self.listed) and self.listed[i] <= target + tol:
            return True
        near = _ratio_near if self.ratio else _difference_near
        return any(near(values, target, tol) for values in self.pairs)


def _numeric(row: dict) -> dict[str, float]:
    return {
        k: float(v)
        for k, v in row.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0
    }


def series_names(reading: Reading) -> set[str]:
    """Every series a chart of the page names (its colour, dash or shape domain)."""
    return {s for c in reading.charts for s in c.series}


def named_curves(reading: Reading, sentence: str) -> frozenset[str]:
    """The series a sentence names in bold ('**GPU · H200 (recorded)**'), as the charts name them."""
    # Markdown escapes a name's '_' and ':' (h200\_jacobian); the chart names it plainly
    names = (MD_ESCAPE.sub(r"\1", n) for n in BOLD.findall(sentence))
    return frozenset(n for n in names if n in series_names(reading))


def _draws(row: dict, names: Iterable[str]) -> bool:
    """Whether a chart row is a point of one of the named series: one of its strings is the name, or holds it
    ('images · cpu (live, this server)', a bar of the curve 'cpu (live, this server)'; 'CPU · X#2', a segment)."""
    return any(name in value for value in row.values() if isinstance(value, str) for name in names)


def scoped(reading: Reading, names: frozenset[str], curves: frozenset[str]) -> Reading:
    """The page as a sentence naming `names` may read it: of a chart that draws any of the page's named
    `curves`, only the rows of `names`; a chart that draws none of them (a timeline, a roofline, the
    speedup) whole (Drawn(strict=True) reads one of many marks by its totals)."""
    charts = [
        Chart([r for r in c.rows if _draws(r, names)], c.series) if any(_draws(r, curves) for r in c.rows) else c
        for c in reading.charts
    ]
    return Reading(reading.page, reading.query, reading.texts, charts)


MANY_MARKS = 20  # a chart of more marks than this that names no curve (a timeline's events) is read by its totals


class Drawn:
    """What a page's numbers may be read from (Pool), with the view's settings, the plotted x values and the
    numbers the code itself writes (source_literals). `ratios`: given, a page's ratios (a sentence about one
    curve may compare it with any value on the page); else this reading's own. `strict`: the pool of a sentence
    naming `curves` (see the module's "How strict (a) is")."""

    def __init__(
        self, reading: Reading, ratios: Values | None = None, strict: bool = False, curves: frozenset[str] = frozenset()
    ) -> None:
        pool = Pool()
        by_x_field: dict[tuple[float, str], list[float]] = {}
        for chart in reading.charts:
            if strict and len(chart.rows) > MANY_MARKS and not any(_draws(r, curves) for r in chart.rows):
                _groups(chart.rows, pool, strict)
                continue
            for row in chart.rows:
                values = _numeric(row)
                x = values.pop("x", None)
                pool.amounts |= set(values.values()) | ({x} if x else set())
                if not strict:  # a point's value less its own band's edge, or plus it, is no value a sentence reads
                    pool.amounts.add(sum(values.values()))
                    pool.add_pairs(values.values())
                if x is not None:
                    for k, v in values.items():
                        if k in CURVE_FIELDS:
                            by_x_field.setdefault((x, k), []).append(v)
            _groups(chart.rows, pool, strict)
        for values in by_x_field.values():
            pool.add_pairs(values)
        self.settings = [_value(v) for v in reading.query.values() if re.fullmatch(r"\d+(\.\d+)?", v)]
        self.xs = sorted(
            {float(r["x"]) for c in reading.charts for r in c.rows if isinstance(r.get("x"), (int, float))}
        )
        literals = seed_reports()
        setting_ratios = {a / b for a in self.settings for b in self.settings if b}
        differences = tuple(values for values, _ in pool.long)
        self.amounts = Values(sorted(pool.amounts | literals), differences)
        self.ratios = (
            ratios
            if ratios is not None
            else Values(
                sorted(pool.ratios | literals | setting_ratios),
                tuple(values for values, quotients in pool.long if quotients),
                ratio=True,
            )
        )
        self.plain = Values(sorted(pool.amounts | literals | set(self.settings) | setting_ratios), differences)

    def holds(self, token: str, unit: str | None, per: float = 1.0) -> bool:
        """Whether the number reads as a drawn value; `per`: the sentence divided that value by a count."""
        value = _value(token) * per
        tol = _tolerance(token, value) * per
        if unit in TIME_UNITS:
            # a time against a chart in seconds, milliseconds or microseconds
            return any(
                self.amounts.near(value * UNIT_SCALE[unit] * f, tol * UNIT_SCALE[unit] * f) for f in (1.0, 1e3, 1e6)
            )
        if unit in SCALED:  # a rate: its chart's unit unknown
            return any(self.amounts.near(value * 10.0**k, tol * 10.0**k) for k in range(-12, 13, 3))
        if unit == "×":
            return self.ratios.near(value, tol)
        if unit == "%":
            # a share (a ratio) or "82% lower" (one minus a ratio)
            return self.ratios.near(value / 100, tol / 100) or self.ratios.near(1 - value / 100, tol / 100)
        return self.plain.near(value, tol)


def _groups(rows: list[dict], pool: Pool, strict: bool = False) -> None:
    """Per group of rows sharing a categorical value (a series, a lane, a kind; and all rows): each numeric
    field's sum and span (largest less smallest), the row count, a few bars' own values; their differences
    and ratios (a stacked bar's total, a timeline's busy time, its length and its share); and within the
    group, each field's values against each other (a series' spread, its ends)."""
    kinds: dict[str, set[str]] = {}
    for row in rows:
        for key, value in row.items():
            if isinstance(value, str):
                kinds.setdefault(key, set()).add(value)
    groups: dict[tuple[str, str], list[dict]] = {("", ""): rows}
    for row in rows:
        for key, value in row.items():
            if isinstance(value, str) and len(kinds[key]) <= 20:
                groups.setdefault((key, value), []).append(row)
    numeric = {id(row): _numeric(row) for row in rows}  # each row's numbers, read once for all its groups
    for members in groups.values():
        numbers = [numeric[id(r)] for r in members]
        figures = {float(len(members))}
        if len(members) <= 6:
            figures |= {v for n in numbers for v in n.values()}
        fields = {k for n in numbers for k in n}
        # strict (a sentence about named curves): a curve's many points are read one by one, not summed
        for k in fields - {"x"} if not strict or len(members) <= 6 else ():
            column = [n[k] for n in numbers if k in n]
            figures |= {sum(column), max(column) - min(column)}
            if len(members) < len(rows) and k in CURVE_FIELDS and not strict:
                pool.add_pairs(column)
        if {"start_us", "end_us"} <= fields:
            figures.add(sum(float(r["end_us"]) - float(r["start_us"]) for r in members))
            figures.add(max(float(r["end_us"]) for r in members))
        pool.amounts |= figures
        pool.add_pairs(figures)


PRODUCT = re.compile(r"\(?(\d[\d,]*(?:\.\d+)?)\s?×\s?(\d[\d,]*(?:\.\d+)?)(?:\s?×\s?(\d[\d,]*(?:\.\d+)?))?\)?(²)?")


def _worked_out(value: float, sentence: str) -> bool:
    """The number is worked out in the sentence: 'outputs × val = 400 × 300 = 120,000', '(400 × 300)²'."""
    made = set()
    for m in PRODUCT.finditer(sentence):
        product = math.prod(_value(g) for g in m.groups()[:3] if g)
        made |= {product, product**2}
    return any(math.isclose(value, m, rel_tol=REL_SLACK) for m in made)


# how a measurement was kept, not what it measured: a pack's rows, a point's timed repeats ('over 1–154 timed repeats')
BOOKKEEPING = re.compile(r"(?<![\w.,])\d[\d,]*(?:–\d[\d,]*)? (?:timed repeats|rows)\b")
COUNT_OF = re.compile(r"(?<![\w.,])(\d[\d,]*) (?:backward )?(?:passes|steps|calls|epochs|batches)\b")


def _ratio_of_stated_times(value: float, tol: float, sentence: str) -> bool:
    """'7.93× slower (1.46 ms against 184 µs)': a ratio of two times the sentence states (each checked itself)."""
    times = [_value(m.group(1)) * UNIT_SCALE[m.group(2)] for m in NUMBER.finditer(sentence) if m.group(2) in TIME_UNITS]
    return any(abs(a / b - value) <= tol for a in times for b in times if b)


def sentence_counts(sentence: str) -> list[float]:
    """What the sentence says a time was divided by ('for 400 passes', '128 steps per epoch')."""
    return [_value(m.group(1)) for m in COUNT_OF.finditer(sentence)]


def _times_settings(value: float, numbers: set[float], settings: list[float]) -> bool:
    """A count worked out from a setting or a plotted x and a number the page states ('400 outputs' × val, × val²).
    A setting or x of 1 works nothing out: times 1, every number the page states would hold itself."""
    return any(
        math.isclose(value, a * s * k, rel_tol=REL_SLACK)
        for a in numbers
        for s in settings
        for k in (1.0, s)
        if a > SMALL_COUNT and s > 1
    )


def numbers_on_chart(reading: Reading) -> list[Finding]:
    """Each number of a sentence against the page (Drawn); a sentence that names series in bold against those
    series' points only (scoped: what its curves draw, charts of no named curve, the page's ratios)."""
    page = Drawn(reading)
    literals = source_literals()
    page_numbers = {_value(m.group(1)) for t in sentences(reading) for m in NUMBER.finditer(t)}
    curves = frozenset().union(*(named_curves(reading, t) for t in sentences(reading)))
    by_names: dict[frozenset[str], Drawn] = {frozenset(): page}
    found = []
    for sentence in sentences(reading):
        # a curve named in bold somewhere on the page is named wherever it is written ('… on CPU · this server (live)')
        names = named_curves(reading, sentence) | {c for c in curves if c in sentence}
        if names not in by_names:
            by_names[names] = Drawn(scoped(reading, names, curves), ratios=page.ratios, strict=True, curves=curves)
        drawn = by_names[names]
        plain = GPU_NAME.sub("", DATE.sub("", sentence))
        kept = [m.span() for m in BOOKKEEPING.finditer(plain)]
        for match in NUMBER.finditer(plain):
            token, unit = match.group(1), match.group(2)
            value = _value(token)
            if any(a <= match.start() < b for a, b in kept):
                continue
            if unit is None and value.is_integer() and value <= SMALL_COUNT:
                continue
            if unit in (None, "×", "%") and value.is_integer() and value <= SMALL_COUNT and unit != "%":
                continue
            if unit in ESTIMATES or ABOUT.search(plain[: match.end(1)]):
                continue  # an estimate of memory or work; a crossover's "about", which (c) checks
            if token in literals or token.replace(",", "") in literals:
                continue
            if _worked_out(value, plain) or _times_settings(value, page_numbers, page.settings + page.xs):
                continue
            if unit == "×" and _ratio_of_stated_times(value, _tolerance(token, value), plain):
                continue
            counts = sentence_counts(plain) if unit in TIME_UNITS else []
            if not any(
                drawn.holds(token, unit, per) for per in [1.0, *counts]
            ):  # '3.44 ms for 400 passes: 8.6 µs per pass'
                where = f"on no point of {', '.join(sorted(names))}" if names else "on no chart of the page"
                found.append(
                    Finding(
                        "numbers",
                        sentence,
                        f"{token}{(' ' + unit) if unit else ''} is {where}, "
                        "nor a ratio of two of the page's values, nor a setting",
                    )
                )
    return found


# -- (b) dates, machines, origins ----------------------------------------------------------------------------


def dates_and_machines_on_chart(reading: Reading) -> list[Finding]:
    words = " | ".join(reading.words_drawn())
    series = {s for c in reading.charts for s in c.series}
    found = []
    for sentence in sentences(reading):
        for date in DATE.findall(sentence):
            if date not in words:
                found.append(Finding("dates", sentence, f"the date {date} is on no chart of the page"))
        for gpu in GPU_NAME.findall(sentence):
            short = gpu.removeprefix("NVIDIA ").removesuffix(" 80GB HBM3")
            if short not in words:
                found.append(Finding("machines", sentence, f"the machine {gpu} is on no chart of the page"))
        for name in BOLD.findall(sentence):
            if _names_a_curve(name) and name not in series:
                found.append(Finding("origins", sentence, f"the curve **{name}** is not a series the chart draws"))
    return found


def _names_a_curve(name: str) -> bool:
    """A bold name that is a legend entry: a device with its origin ('GPU · H200 (recorded)', 'cpu (live, ...)')."""
    return bool(re.search(r"\((recorded|live|predicted|derived)\b", name)) and bool(
        re.match(r"(CPU|GPU|cpu|cuda:\d)\b", name)
    )


# -- (c) crossovers ------------------------------------------------------------------------------------------

NUM = r"(\d[\d,]*(?:\.\d+)?)"
BETWEEN = re.compile(rf"between [a-z ]+?(?: =)? ~?{NUM} and ~?{NUM}(?:; most likely at about {NUM})?")
LEADS = re.compile(rf"the (CPU|GPU) leads from {NUM} \(after {NUM}\)")


POINT_FIELDS = {"origin", "note", "seg", "day"}


def curves(reading: Reading, name: str) -> dict[tuple, dict[float, float]]:
    """The named series' points, x -> value (its 't', 'v' or 'y'), one curve per combination of the rows'
    other categorical values (a line style: 'synchronised' or 'first call'; a method), over every chart."""
    out: dict[tuple, dict[float, float]] = {}
    for n, chart in enumerate(reading.charts):
        for row in chart.rows:
            strings = [v for v in row.values() if isinstance(v, str)]
            if name not in strings or not isinstance(row.get("x"), (int, float)):
                continue
            value = next((row[k] for k in ("t", "v", "y") if isinstance(row.get(k), (int, float))), None)
            if value is None or not math.isfinite(value):
                continue
            # a point's origin, note, segment and day describe the point, not its line: one line draws them all
            key = (
                n,
                *sorted(
                    f"{k}={v}"
                    for k, v in row.items()
                    if isinstance(v, str) and v != name and len(v) < 60 and k not in POINT_FIELDS
                ),
            )
            out.setdefault(key, {})[float(row["x"])] = float(value)
    return out


def _pairs_of_curves(reading: Reading, sentence: str) -> list[tuple[dict[float, float], dict[float, float]]]:
    """Each pair of curves the sentence's two bold series names draw alike (same chart, same line style)."""
    names = [n for n in BOLD.findall(sentence) if n in {s for c in reading.charts for s in c.series}]
    if len(names) < 2:
        return []
    one, other = curves(reading, names[0]), curves(reading, names[1])
    pairs = []
    for key_a, a in one.items():
        for key_b, b in other.items():
            if key_a[0] == key_b[0] and _style(key_a) == _style(key_b):
                pairs.append((a, b))
    return pairs


def _style(key: tuple) -> tuple:
    """A curve's line style: its categorical values other than the ones naming the series ('c=', 'series=')."""
    return tuple(k for k in key[1:] if not k.startswith(("c=", "series=", "note=", "origin=")))


def _order(a: dict[float, float], b: dict[float, float], x: float) -> int | None:
    if x not in a or x not in b or a[x] == b[x]:
        return None
    return 1 if a[x] > b[x] else -1


def _swap_fault(a: dict[float, float], b: dict[float, float], lo: float, hi: float) -> str | None:
    if lo not in a or lo not in b or hi not in a or hi not in b:
        return f"{lo:g} and {hi:g} are not points both curves draw"
    before, after = _order(a, b, lo), _order(a, b, hi)
    if before is None or after is None or before == after:
        return f"the curves do not swap order between {lo:g} and {hi:g}"
    return None


def crossovers_between_swaps(reading: Reading) -> list[Finding]:
    found = []
    for sentence in sentences(reading):
        pairs = _pairs_of_curves(reading, sentence)
        if not pairs:
            continue
        spans = []
        for match in BETWEEN.finditer(sentence):
            if "~" in match.group(0) or "trade the lead" in sentence[: match.start()]:
                continue  # a range over several days' curves, or the trading span: not one crossing
            lo, hi = _value(match.group(1)), _value(match.group(2))
            about = _value(match.group(3)) if match.group(3) else None
            spans.append((lo, hi, about, match.group(0)))
        for match in LEADS.finditer(sentence):
            spans.append((_value(match.group(3)), _value(match.group(2)), None, match.group(0)))
        for lo, hi, about, words in spans:
            # the sentence holds if one pair of like curves (one line style) bears it out
            whys = [_swap_fault(a, b, lo, hi) for a, b in pairs]
            if all(whys):
                found.append(Finding("crossovers", sentence, f"'{words}': {whys[0]}"))
            if about is not None and not (min(lo, hi) * 0.99 <= about <= max(lo, hi) * 1.01):
                found.append(Finding("crossovers", sentence, f"'{words}': about {about:g} is outside its span"))
    return found


# -- (d) contradictions ----------------------------------------------------------------------------------------

EVERY = re.compile(r"\*\*([^*]+)\*\* is faster than \*\*([^*]+)\*\* at every")
FASTER_AT = re.compile(r"\*\*([^*]+)\*\* is faster: [^;]*? against [^;]*? on ([^,;(]+\([^)]*\))")
CATCHES = re.compile(r"\*\*([^*]+)\*\* catches up with \*\*([^*]+)\*\* between")
NO_GPU_CURVE = re.compile(r"[Tt]here is no GPU curve|no GPU curve on screen")


def _gpu_drawn(reading: Reading) -> bool:
    return any(re.match(r"(GPU|cuda)", s) for c in reading.charts for s in c.series)


def no_contradictions(reading: Reading) -> list[Finding]:
    said = list(sentences(reading))
    found = []
    every: dict[frozenset[str], tuple[str, str]] = {}  # pair -> (winner, sentence)
    for sentence in said:
        for winner, loser in EVERY.findall(sentence):
            every[frozenset((winner, loser))] = (winner, sentence)
        if NO_GPU_CURVE.search(sentence) and _gpu_drawn(reading):
            found.append(Finding("contradictions", sentence, "says there is no GPU curve, while the chart draws one"))
    for sentence in said:
        for winner, loser in FASTER_AT.findall(sentence):
            held = every.get(frozenset((winner, loser.strip())))
            if held and held[0] != winner:
                found.append(Finding("contradictions", sentence, f"{winner} faster here, yet: {held[1][:160]}"))
        for one, other in CATCHES.findall(sentence):
            held = every.get(frozenset((one, other)))
            if held:
                found.append(Finding("contradictions", sentence, f"the two catch up here, yet: {held[1][:160]}"))
    return found


def hollow_points_drawn(reading: Reading) -> list[Finding]:
    """A sentence that says points are drawn '(hollow)' on a page whose charts draw no hollow point: the
    Timing pitfalls answer said 'Points at matrix size 64 and 512 (hollow) are out of line …' over a chart
    of filled dots only."""
    if any(c.hollow for c in reading.charts):
        return []
    return [
        Finding("hollow", s, "it points at hollow points, and no chart on the page draws any")
        for s in sentences(reading)
        if "(hollow)" in s
    ]


DRAWN_DAY = re.compile(r"drawn: the [^;]*?\((20\d\d-\d\d-\d\d)\) recording")
RECORDED_DAY = re.compile(r"recorded on [^;]*?\((20\d\d-\d\d-\d\d)\)")


def one_day_per_curve(reading: Reading) -> list[Finding]:
    """Every measured point of a recorded curve is one recording's (issue 37, F: a curve stitched one day's
    exact points onto another day's grid, and its crossover was no day's). A point's day is read from its note."""
    found = []
    for chart in reading.charts:
        days: dict[str, set[str]] = {}
        for row in chart.rows:
            if row.get("origin") not in ("recorded", "derived") or not isinstance(row.get("note"), str):
                continue
            day = DRAWN_DAY.search(row["note"]) or RECORDED_DAY.search(row["note"])
            if day:
                days.setdefault(str(row.get("series")), set()).add(day.group(1))
        for series, seen in days.items():
            if len(seen) > 1:
                found.append(Finding("one day", series, f"its points were recorded on {', '.join(sorted(seen))}"))
    return found


LINE_MARKS = {"line", "trail"}
# the channels that split a line mark's rows into lines (Vega-Lite groups a line by every categorical one)
GROUPING = ("color", "detail", "strokeDash", "shape", "size", "opacity", "strokeWidth")
CHILDREN = ("layer", "concat", "hconcat", "vconcat", "spec")


def _line_layers(node: object, data: object = None) -> Iterator[tuple[dict, object]]:
    """Every line or trail mark of a spec with the data it draws (its own, else its nearest parent's)."""
    if not isinstance(node, dict):
        return
    data = node.get("data", data)
    mark = node.get("mark")
    kind = mark.get("type") if isinstance(mark, dict) else mark
    if kind in LINE_MARKS:
        yield node, data
    for key in CHILDREN:
        children = node.get(key)
        for child in children if isinstance(children, list) else [children]:
            yield from _line_layers(child, data)


def _layer_rows(chart: Chart, data: object) -> list[dict]:
    if isinstance(data, dict) and isinstance(data.get("values"), list):
        return [r for r in data["values"] if isinstance(r, dict)]
    if isinstance(data, dict) and isinstance(data.get("name"), str):
        return chart.datasets.get(data["name"], [])
    return []


def _grouping_fields(layer: dict) -> list[str]:
    encoding = layer.get("encoding") or {}
    return [
        enc["field"]
        for channel in GROUPING
        if isinstance(enc := encoding.get(channel), dict)
        and isinstance(enc.get("field"), str)
        and enc.get("type") != "quantitative"
    ]


def row_day(row: dict) -> str | None:
    """The recording day of a drawn point: its `day` or `recorded_on`, else the day its note names."""
    for key in ("day", "recorded_on"):
        if isinstance(row.get(key), str) and DATE.fullmatch(row[key]):
            return row[key]
    note = row.get("note")
    found = isinstance(note, str) and (DRAWN_DAY.search(note) or RECORDED_DAY.search(note))
    return found.group(1) if found else None


def drawn_lines(chart: Chart) -> dict[tuple, list[dict]]:
    """Each line a chart draws, by its line mark and the values of its categorical channels: the rows on it."""
    lines: dict[tuple, list[dict]] = {}
    for n, (layer, data) in enumerate(_line_layers(chart.spec)):
        if layer.get("transform"):
            continue  # a filtered layer draws a subset of its rows: not read here
        fields = _grouping_fields(layer)
        for row in _layer_rows(chart, data):
            lines.setdefault((n, *(str(row.get(f)) for f in fields)), []).append(row)
    return lines


def lines_of_one_day(reading: Reading) -> list[Finding]:
    """No drawn line joins points of two recording days (issue 37: Timing's GPU line joined 2026-11-21's point at
    15,360 to 2026-11-28's grid, the Jacobian's loop 2026-11-24's val 1,000 to 2026-11-28's): each line or trail
    mark's rows, split into lines by its categorical channels (colour, dash, detail, ...), hold one day, and its
    legend name names at most one. Read from the spec's marks and datasets, not from the code that drew them."""
    found = []
    for chart in reading.charts:
        for key, rows in drawn_lines(chart).items():
            named = {d for name in key[1:] for d in DATE.findall(name)}
            days = {d for d in map(row_day, rows) if d} | named
            if len(days) > 1:
                name = " · ".join(key[1:]) or "a line"
                found.append(Finding("one day", name, f"one line holds points of {', '.join(sorted(days))}"))
    return found


TIME = re.compile(r"(\d[\d,]*(?:\.\d+)?) (ns|µs|ms|s|min)\b")


def never_close_at_2x(reading: Reading) -> list[Finding]:
    """A sentence that calls two times it quotes too close to call (or about the same) while one is 2x or more
    the other (issue 37, A: '5.78 s per epoch and … 865 ms, but … too close to call', 6.7x)."""
    found = []
    for sentence in sentences(reading):
        if not re.search(r"too close to call|about the same|about even", sentence):
            continue
        for part in re.split(r"(?<=[.;])\s", sentence):
            if not re.search(r"too close to call|about the same|about even", part):
                continue
            times = [float(v.replace(",", "")) * UNIT_SCALE[u] for v, u in TIME.findall(part)]
            if len(times) == 2 and min(times) > 0 and max(times) / min(times) >= 2.0:
                found.append(Finding("too close", part, f"{max(times) / min(times):.1f}x apart, called too close"))
    return found


DRAWN_COUNT = re.compile(r"\*{0,2}((?:CPU|GPU) · [^*:]+?)\*{0,2}: (\d[\d,]*) points? drawn, (\d[\d,]*) measured live")


def live_counts_drawn(reading: Reading) -> list[Finding]:
    """'<curve>: N points drawn, N measured live' counts the points the chart draws for that curve (issue 37, E:
    '6 points, 6 measured live' over 3 drawn points)."""
    found = []
    for sentence in sentences(reading):
        for name, drawn, _live in DRAWN_COUNT.findall(sentence):
            on_chart = max(
                (
                    len({r.get("x") for r in c.rows if r.get("series") == name.strip() and r.get("t") is not None})
                    for c in reading.charts
                ),
                default=0,
            )  # a point is drawn by several marks: count its x
            if on_chart and int(drawn.replace(",", "")) != on_chart:
                found.append(Finding("live counts", sentence, f"{drawn} points said, {on_chart} drawn for {name}"))
    return found


def _ratio_rows(reading: Reading) -> Iterator[dict]:
    """The rows of ratio bars (lib.charts.ratio_chart: a 'label' and its GPU ÷ CPU 'ratio')."""
    for chart in reading.charts:
        yield from (r for r in chart.rows if "label" in r and isinstance(r.get("ratio"), (int, float)))


def _live_sides(row: dict) -> list[str]:
    return [side for side in ("gpu", "cpu") if row.get(f"{side}_origin") == "live"]


def live_ratios_believed(reading: Reading) -> list[Finding]:
    """A ratio bar of a live time (Seed cases' 'GPU recorded on … ÷ CPU live here') is drawn only with the two
    times it divides, equal to their quotient, each live one believed by the noise rule (lib.core.noise: at
    least MIN_REPEATS timed repeats, a spread within NOISY of its time; recomputed here from the drawn row);
    and a sentence that quotes such a bar says it is live and how long ago (issue 37: a live point of one
    call, no spread, read 0.231× where 3.2× is the rule)."""
    from lib.core.noise import MIN_REPEATS, NOISY

    found = []
    for row in _ratio_rows(reading):
        label = str(row["label"])
        if "live" not in label:
            continue
        gpu, cpu = row.get("gpu_s"), row.get("cpu_s")
        if not (isinstance(gpu, (int, float)) and isinstance(cpu, (int, float)) and cpu > 0):
            found.append(Finding("live ratio", label, "a live bar drawn without the two times it divides"))
            continue
        if not math.isclose(gpu / cpu, row["ratio"], rel_tol=1e-9):
            found.append(Finding("live ratio", label, f"drawn {row['ratio']:.4g}×, its times make {gpu / cpu:.4g}×"))
        if not _live_sides(row):
            found.append(Finding("live ratio", label, "named live, yet neither time it divides is live"))
        for side in _live_sides(row):
            t, spread, repeats = row[f"{side}_s"], row.get(f"{side}_spread_s") or 0.0, row.get(f"{side}_repeats") or 0
            if repeats < MIN_REPEATS or spread > NOISY * t:
                found.append(
                    Finding(
                        "live ratio",
                        label,
                        f"its live {side} time ({repeats:g} repeats, spread {spread / t:.0%}) is not believed",
                    )
                )
        for sentence in sentences(reading):
            if (
                label in sentence
                and "not drawn" not in sentence
                and not re.search(r"measured live here (?:[^,()]* ago|for this view)", sentence)
            ):
                found.append(
                    Finding("live ratio", sentence, "it quotes a live bar without saying it is live and how long ago")
                )
    return found


HEADLINE_WORDS = 30  # issue 37: one sentence of at most this many words answers a page's question above its chart
# a sentence ends at '.', '?' or '!' before a space and a capital (not inside '1.5×', 'e.g. jacrev' or '(recorded).')
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.?!](?=\s+[A-Z*])")


def headline_words(text: str) -> int:
    """The words a reader reads in an answer: markdown's marks and link targets aside."""
    plain = LINK.sub("]", text).replace("**", "").replace("`", "")
    return sum(1 for token in plain.split() if re.search(r"[A-Za-z0-9]", token))  # a lone '·' or '–' is no word


def headline_sentences(text: str) -> int:
    return len(SENTENCE_END.findall(text.strip())) + 1


def headline_short(reading: Reading) -> list[Finding]:
    """The answer above the chart is one sentence of at most HEADLINE_WORDS words (issue 37: Training's was 82)."""
    said = reading.headline
    if not said:
        return []
    found = []
    if headline_words(said) > HEADLINE_WORDS:
        found.append(Finding("headline", said, f"{headline_words(said)} words, more than {HEADLINE_WORDS}"))
    if headline_sentences(said) > 1:
        found.append(Finding("headline", said, f"{headline_sentences(said)} sentences, not one"))
    return found


CHECKERS = {
    "numbers": numbers_on_chart,
    "dates and machines": dates_and_machines_on_chart,
    "crossovers": crossovers_between_swaps,
    "contradictions": no_contradictions,
    "hollow": hollow_points_drawn,
    "headline": headline_short,
    "one day": one_day_per_curve,
    "one day a line": lines_of_one_day,
    "too close": never_close_at_2x,
    "live counts": live_counts_drawn,
    "live ratio": live_ratios_believed,
}


def check_all(reading: Reading) -> dict[str, list[Finding]]:
    from claim_checks_device import device_claims_hold  # its own module, which reads this one's sentences

    return {name: check(reading) for name, check in {**CHECKERS, "device claims": device_claims_hold}.items()}


def findings_of(readings: Iterable[Reading]) -> Iterator[tuple[Reading, Finding]]:
    for reading in readings:
        for findings in check_all(reading).values():
            for finding in findings:
                yield reading, finding
