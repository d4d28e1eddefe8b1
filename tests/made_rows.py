"""Hand-made rows for the lessons' tests: a Jacobian's and a matmul's points at given times, as a sweep
writes them (the recorded fixtures cannot behave like a GPU, or be refused where a test needs it)."""

from __future__ import annotations

from lib.lessons.timing import view as timing

TOO_BIG = "needs about 9 GB, more than the cap"


def jacobian_rows(series: str, device: str, method: str, times: dict[int, float | None]) -> list[dict]:
    """One row per val: measured where its time is given, refused (over the memory cap) where it is None."""
    return [
        {
            "workload": "jacobian",
            "method": method,
            "val": v,
            "hidden": 20,
            "outputs": 400,
            "device": device,
            "series": series,
            "median_s": t,
            "iqr_s": (t or 0) / 20,
            "repeats": 5 if t else 0,
            "status": "ok" if t else "skipped",
            "message": "" if t else TOO_BIG,
        }
        for v, t in times.items()
    ]


def matmul_rows(device: str, times: dict[int, float], **variant) -> list[dict]:
    """One synchronised row per size, swept over size, at the honest baseline's settings but for `variant`
    ('series' among them labels the rows as a chart draws them)."""
    return [
        {
            "workload": "matmul",
            "size": n,
            "device": device,
            "median_s": t,
            "iqr_s": t / 20,
            "cold_s": t * 3,
            "repeats": 9,
            "status": "ok",
            "message": "",
            "achieved_flops_per_s": 2 * n**3 / t,
            "swept": "size",
            **timing.BASELINE.settings(),
            **variant,
        }
        for n, t in times.items()
    ]
