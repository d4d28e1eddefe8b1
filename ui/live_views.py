"""A page's several live measurements, one per view (a Jacobian method, a timing variant), each with the
label its progress bar shows: measured through ui.measure (once per server, one at a time), read back by name.

    requests = {"loop": ("jacobian loop over val=1,10,100", LiveRequest.of(...)), ...}
    all_cached(requests)      # every one answers at once (no wait to draw the recorded side first)
    live = measured(requests) # {"loop": [what its job returned], ...}, [] where nothing came back
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from lib.core.request import LiveRequest
from ui.measure import cached_measurement, is_cached, oldest_measured_at

Item = TypeVar("Item")  # one of what a job returns (a lesson's row or point)
Labelled = tuple[str, LiveRequest]  # (what the progress bar says, the measurement)


def all_cached(requests: Mapping[str, Labelled]) -> bool:
    return all(is_cached(request) for _, request in requests.values())


def measured(requests: Mapping[str, tuple[str, LiveRequest[list[Item]]]]) -> dict[str, list[Item]]:
    """Each request's live result (its job's list), in the order given."""
    return {name: cached_measurement(request, label=label) or [] for name, (label, request) in requests.items()}


def measured_at(requests: Mapping[str, Labelled]) -> float | None:
    """When the oldest of their stored results was measured (None if none is stored)."""
    return oldest_measured_at(request for _, request in requests.values())
