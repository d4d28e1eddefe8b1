"""Altair charts compiled once per shape, filled with each call's data.

    @compiled
    def curve_spec(shape: CurveShape) -> alt.LayerChart: ...    # an Altair chart on alt.NamedData layers

    chart = FilledChart(curve_spec(shape), {"points": rows, "segments": segment_rows})
    st.vega_lite_chart(chart.to_arrow_spec(), width="stretch")    # what st.altair_chart would have sent

Building an Altair chart object and validating its Vega-Lite spec takes 0.2-0.3 s of Python on a
2-core server, while the data of a curve chart is a few dozen rows. Thirty visitors drawing their first
chart at once share one interpreter, so that cost is paid thirty times in a row. A chart whose layers
read named datasets (alt.NamedData) has a spec that depends only on its shape (titles, colours, which
layers, tick values), so the spec is built and validated by Altair once per shape and every call only
adds its rows under the datasets' names: the same spec Altair itself writes (top-level `datasets`, a
name per layer), without rebuilding it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import altair as alt
import pyarrow as pa

from lib.core.cache import kept

S = TypeVar("S", bound=Hashable)
# Vega-Lite's own formats, where Altair hands a chart to the browser: a spec (JSON, as Altair's to_dict()
# writes it) and the records of one named dataset in it
VegaSpec = dict[str, Any]
VegaRecords = list[dict[str, Any]]
SHAPES_KEPT = 256  # distinct shapes kept per process (a page has a handful; the keys are small)


def compiled(build: Callable[[S], alt.TopLevelMixin]) -> Callable[[S], VegaSpec]:
    """Decorate build(shape) -> Altair chart on named data: the result gives the chart's Vega-Lite spec,
    built and validated by Altair once per shape. The shape (hashable, e.g. a frozen dataclass) must
    hold everything the spec depends on besides the rows of its named datasets. The spec returned is
    shared: read it, or use FilledChart.to_dict() for a copy."""

    @kept(SHAPES_KEPT)
    def spec(shape: S) -> VegaSpec:
        return build(shape).to_dict()

    return functools.wraps(build)(spec)


def drawn_layers(spec: VegaSpec, names: Collection[str]) -> VegaSpec:
    """A layered spec compiled with every layer it may have, keeping only the layers that read one of the
    named datasets `names` (a layer of no rows makes Vega warn "Infinite extent"). Each layer of Altair's
    to_dict() is self-contained, so this is the spec Altair writes for those layers alone (tests say so;
    Altair would move a data reference all of them share to the top), and a chart whose drawn layers
    change from visitor to visitor is compiled once, not once per set."""
    return {**spec, "layer": [layer for layer in spec["layer"] if layer.get("data", {}).get("name") in names]}


def blank(name: str) -> str:
    """A blank in a compiled spec: a whole string that FilledChart replaces by its `words[blank]` (a curve's
    name, its colour, an axis title with its unit), so charts that differ only in those share one compile.
    It starts with a private-use character, which no title or name of this app holds."""
    return f"\ue000{name}"


def filled(node: Any, words: Mapping[str, Any]) -> Any:
    """A fresh copy of a JSON-like spec with every string that is a blank of `words` replaced."""
    if isinstance(node, dict):
        return {key: filled(value, words) for key, value in node.items()}
    if isinstance(node, list):
        return [filled(value, words) for value in node]
    if isinstance(node, str):
        return words.get(node, node)
    return node


@dataclass(frozen=True)
class FilledChart:
    """A compiled chart spec, the rows of each of its named datasets (JSON-ready values), and what fills
    its blanks (see blank())."""

    spec: VegaSpec  # shared by every chart of this shape: never changed
    datasets: dict[str, VegaRecords]
    words: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> VegaSpec:
        """The full Vega-Lite spec, as Altair's to_dict() would give it: a fresh copy."""
        return {**filled(self.spec, self.words), "datasets": {name: list(rows) for name, rows in self.datasets.items()}}

    def to_arrow_spec(self) -> VegaSpec:
        """The same spec with each dataset an Arrow table: what st.vega_lite_chart sends without
        building a DataFrame per dataset (Streamlit serialises Arrow tables as they are)."""
        return {
            **filled(self.spec, self.words),
            "datasets": {name: pa.Table.from_pylist(rows) for name, rows in self.datasets.items()},
        }
