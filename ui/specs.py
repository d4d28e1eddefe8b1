"""A page's charts as finished Vega-Lite specs, built once per distinct input per server process.

    spec = chart_spec(variant_chart, pd.DataFrame(rows), "val", "median_s", plot_height=h)
    scaffold.chart_or_why(box, spec, "why there is none")     # or box.vega_lite_chart(spec, width="stretch")

Building an Altair chart and turning its data into Arrow takes 0.1-0.3 s of Python per chart, on every
run, although a page's view (its settings, the shipped packs, the live rows ui.measure keeps) is the
same for every visitor who opens it. So the chart is keyed by its builder and a digest of everything
handed to it, rows included: a pack dropped in, or a live measurement taken again, gives other rows,
so another key, and the chart is built anew; nothing here decides whether rows are still current
(lib.recorded and ui.measure do). It is kept by lib.core.cache.

The spec keeps its datasets as Arrow bytes (frozen_spec), which Streamlit sends without converting them
again (it copies the spec's top level before taking the datasets out, so a shared spec stays whole).
"""

from __future__ import annotations

import collections
import hashlib
import pickle
from collections.abc import Callable
from typing import Any

from streamlit import dataframe_util

from lib.charts.compiled import VegaSpec
from lib.core.cache import kept

CHARTS_KEPT = 256  # distinct charts kept per process: a page draws a handful per view
# The seam the tests count through: how many charts each builder has built in this process.
BUILDS: collections.Counter[str] = collections.Counter()


def chart_spec(build: Callable[..., Any], *args: Any, **kwargs: Any) -> VegaSpec:
    """build(*args, **kwargs), an Altair chart, as a finished Vega-Lite spec: built once per distinct
    input (read only: every visitor of that view gets the same dict)."""
    code = getattr(build, "__code__", None)
    # a page's own function is named by its file and line (pages all run as __main__)
    name = f"{build.__module__}.{build.__qualname__}" + (f" ({code.co_filename}:{code.co_firstlineno})" if code else "")
    if getattr(build, "__closure__", None):
        return _made(name, build, args, kwargs)  # what it closes over is not in the key: built every time
    try:
        digest = hashlib.sha256(pickle.dumps((args, sorted(kwargs.items())), protocol=5)).hexdigest()
    except (pickle.PicklingError, TypeError, AttributeError):
        return _made(name, build, args, kwargs)  # an input pickle cannot name: built every time, never wrong
    return _kept(name, digest, build, args, kwargs)


@kept(CHARTS_KEPT)
def _kept(name: str, digest: str, _build: Callable[..., Any], _args: tuple, _kwargs: dict) -> VegaSpec:
    return _made(name, _build, _args, _kwargs)


def _made(name: str, build: Callable[..., Any], args: tuple, kwargs: dict) -> VegaSpec:
    BUILDS[name] += 1
    return frozen_spec(build(*args, **kwargs))


def frozen_spec(chart: Any) -> VegaSpec:
    """An Altair chart's spec with its datasets as Arrow bytes: what st.altair_chart would have sent."""
    spec = chart.to_dict()
    if "datasets" in spec:
        spec["datasets"] = {
            name: dataframe_util.convert_anything_to_arrow_bytes(rows) for name, rows in spec["datasets"].items()
        }
    return spec
