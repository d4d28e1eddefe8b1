"""How a chart is laid out, apart from what it draws: its size, where its legends go, its title, and the
crossover rule drawn over it. Every chart builder takes these as one value, so a call reads as what is
drawn, then how.

    time_chart(frame, TimeLines("batch_size"), crossover=Crossover(812.0), layout=Layout(plot_height=220))
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Layout:
    """A chart `height` pixels tall in all (None: the builder's own height) or, given `plot_height`, its plot
    that tall with the axis and legends added around it (lib.charts.theme.sized). legend_beside: legends
    right of the plot (an 800 × 600 iframe has width to spare, not height)."""

    height: int | None = None
    plot_height: int | None = None
    legend_beside: bool = False
    title: str | None = None

    def height_or(self, default: int) -> int:
        """The height asked for, else the builder's own."""
        return default if self.height is None else self.height


@dataclass(frozen=True)
class Crossover:
    """Where two curves cross, drawn as a labelled rule at x (the label defaults to 'crossover ≈ x');
    x None or not finite: no rule."""

    x: float | None
    label: str | None = None


NO_CROSSOVER = Crossover(None)
