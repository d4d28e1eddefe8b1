"""One recording day per drawn line (issue 37): lib.lessons.common.one_day, the rule Training, Timing pitfalls and
the Jacobian draw their recorded lines by."""

from __future__ import annotations

from lib.core.point import Counts, Frozen, OtherRecording, Point
from lib.lessons.common.one_day import day_in, held_days, line_day, on_day


def _point(size: int, day: str, median_s: float, *others: tuple[str, float]) -> Point:
    return Point(
        "matmul",
        "cuda:0",
        Frozen({"size": size}),
        median_s=median_s,
        iqr_s=median_s / 10,
        cold_s=median_s * 3,
        repeats=5,
        recorded_on=day,
        other_recordings=tuple(OtherRecording(f"NVIDIA H200 ({d})", t) for d, t in others),
        counts=Counts(achieved_flops_per_s=2.0 * size**3 / median_s),
    )


def test_the_line_is_the_day_holding_most_points_the_newest_of_equals():
    assert line_day({"NVIDIA H200 (2026-11-21)": 3, "NVIDIA H200 (2026-11-28)": 2}) == "NVIDIA H200 (2026-11-21)"
    assert line_day({"NVIDIA H200 (2026-11-21)": 3, "NVIDIA H200 (2026-11-28)": 3}) == "NVIDIA H200 (2026-11-28)"
    assert line_day({"2026-11-24": 1, "2026-11-21": 1}) == "2026-11-24"
    assert line_day({}) is None
    assert day_in("NVIDIA H200 (2026-11-23)") == "2026-11-23" and day_in(None) == ""


def test_another_days_points_are_drawn_apart_never_on_the_line():
    """Timing's shipped case: 2026-11-28's grid, 2026-11-21's times of the same sizes beside it, and 15,360 only
    on 2026-11-21. The line is 11-28's; every 11-21 time, 15,360 included, is apart."""
    grid = [_point(s, "2026-11-28", s * 1e-6, ("2026-11-21", s * 2e-6)) for s in (64, 1024, 4096)]
    lone = _point(15360, "2026-11-21", 0.142)
    points = [*grid, lone]
    assert held_days(points) == {"2026-11-28": 3, "2026-11-21": 1}
    split = on_day(points, "2026-11-28")
    assert {p.recorded_on for p in split.line} == {"2026-11-28"} and len(split.line) == 3
    assert all(not p.other_recordings for p in split.line)
    assert sorted((p.settings["size"], p.recorded_on) for p in split.apart) == [
        (64, "2026-11-21"),
        (1024, "2026-11-21"),
        (4096, "2026-11-21"),
        (15360, "2026-11-21"),
    ]


def test_a_point_kept_from_another_day_takes_the_lines_days_time_without_that_days_spread():
    """Where the line's day is older than the kept point's, the line draws its own day's median; the kept point
    (its own day, its spread and first call) is drawn apart."""
    kept = _point(1024, "2026-11-28", 1e-3, ("2026-11-21", 2e-3))
    split = on_day([kept], "2026-11-21")
    (line,) = split.line
    assert (line.median_s, line.recorded_on, line.iqr_s, line.cold_s) == (2e-3, "2026-11-21", None, None)
    assert line.counts.achieved_flops_per_s == kept.counts.achieved_flops_per_s / 2  # the same work in twice the time
    assert [(p.median_s, p.recorded_on) for p in split.apart] == [(1e-3, "2026-11-28")]


def test_without_a_day_every_point_stays_on_the_line():
    points = [_point(64, "2026-11-28", 1e-5)]
    assert on_day(points, None) == (tuple(points), ())
