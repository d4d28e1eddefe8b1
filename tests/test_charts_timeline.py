"""The step timeline's chart spec (lib/charts/timeline.py): one row per lane, a plot height that grows
with the lanes, and nothing that makes Vega drop its fit (no relative bar height, no alt.Step height
under a fit autosize). tests/test_browser_timeline.py measures the drawn rows in Chromium."""

from __future__ import annotations

import json

from lib.charts.timeline import timeline_chart
from lib.core.step_timeline import EventKind, TimelineEvent


def events(lanes: dict[str, EventKind]) -> list[TimelineEvent]:
    """Two bars on each lane (lane name -> kind), the GPU's with an idle gap between them."""
    out = []
    for i, (lane, kind) in enumerate(lanes.items()):
        out += [
            TimelineEvent(lane, f"{kind} a", kind, 10.0 * i, 10.0 * i + 5),
            TimelineEvent(lane, f"{kind} b", kind, 10.0 * i + 20, 10.0 * i + 30),
        ]
    return out


GPU_LANES = {
    "GPU: stream 7": EventKind.KERNEL,
    "CPU: CUDA runtime": EventKind.LAUNCH,
    "CPU: autograd thread": EventKind.OPERATOR,
    "CPU: Python thread": EventKind.OPERATOR,
}


def test_each_lane_gets_its_own_row_of_fixed_height():
    spec = timeline_chart(events(GPU_LANES), title="GPU · H200 (recorded)", height_per_lane=28).to_dict()
    ys = [layer["encoding"]["y"] for layer in spec["layer"]]
    assert len(ys) == 2  # the idle gaps and the events, on the same lanes
    for y in ys:
        assert y["field"] == "lane" and y["type"] == "nominal"
        # the CPU's Python thread on top, the GPU at the bottom, whatever order the events came in
        assert y["sort"] == ["CPU: Python thread", "CPU: autograd thread", "CPU: CUDA runtime", "GPU: stream 7"]
        assert y["axis"]["labelLimit"] >= 6 * len("CPU: autograd thread")  # the names are not cut
    assert spec["height"] == 4 * 28  # the plot's own height: title, axis and legend come on top of it
    assert spec["autosize"]["type"] == "fit-x"
    assert "idle between kernels" in spec["title"]["subtitle"]  # the note under the title, not over a lane


def test_one_lane_is_as_tall_as_a_lane_of_many():
    one = timeline_chart(events({"CPU: Python thread": EventKind.OPERATOR}), height_per_lane=28).to_dict()
    assert one["height"] == 28  # was 34 + 40 px shared with the axis, title and legend: 2 px of bar


def test_nothing_makes_vega_drop_its_fit():
    spec = timeline_chart(events(GPU_LANES), height_per_lane=28).to_dict()
    text = json.dumps(spec)
    assert '"band"' not in text  # no relative bar height (RelativeBandSize) beside a set height
    assert not isinstance(spec["height"], dict)  # no {"step": …}: Vega drops a fit autosize beside it
