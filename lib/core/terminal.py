"""What `python -m lib` prints on a terminal: a progress bar, and a table of rows."""

from __future__ import annotations

import sys
import time

from lib.core.fmt import fmt_s
from lib.core.point import Point


class TerminalProgress:
    """A one-line progress bar on a terminal; plain lines when output is not a terminal."""

    def __init__(self, stream=sys.stderr):
        self.stream = stream
        self.tty = stream.isatty()
        self.started = time.perf_counter()

    def __call__(self, fraction: float, message: str) -> None:
        elapsed = time.perf_counter() - self.started
        if self.tty:
            filled = int(30 * fraction)
            bar = "#" * filled + "-" * (30 - filled)
            self.stream.write(f"\r[{bar}] {fraction:4.0%} {elapsed:6.1f}s {message[:60]:<60}")
            if fraction >= 1.0:
                self.stream.write("\n")
        else:
            self.stream.write(f"{fraction:4.0%} {elapsed:6.1f}s {message}\n")
        self.stream.flush()


def print_points(points: list[Point], settings_shown: list[str]) -> None:
    """The points as a table: the settings shown, then the device, the times and the status."""
    header = [*settings_shown, "device", "median", "IQR", "repeats", "status", "message"]
    table = [
        [
            *(str(p.settings.get(k, "")) for k in settings_shown),
            p.device,
            fmt_s(p.median_s),
            fmt_s(p.iqr_s),
            str(p.repeats),
            str(p.status),
            p.message,
        ]
        for p in points
    ]
    widths = [max(len(h), *(len(row[i]) for row in table)) if table else len(h) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
