"""The Multi-GPU page's one-sentence answer, above its chart: where more GPUs start to pay off.

scaling_answer(records, "per_gpu", cpu=False)
"""

from __future__ import annotations

from collections.abc import Sequence

from lib.lessons.multi_gpu import scaling


def scaling_answer(records: Sequence[scaling.ScalingPoint], axis: str, cpu: bool = False) -> str:
    """Where the most GPUs measured start to pay off against one (the last of scaling.crossover_lines), in one
    short sentence: the points too close to call are scaling_notes', under the chart."""
    return scaling.crossover_lines(records, axis, cpu, notes=False)[-1].markdown()


def scaling_notes(records: Sequence[scaling.ScalingPoint], axis: str, cpu: bool = False) -> str:
    """What scaling_answer leaves for under the chart ('' when nothing)."""
    return scaling.crossover_notes(records, axis, cpu)
