"""One figure per lab: the student's speedup over the baseline in each benchmark group, and, where the lab is
memory-bound, its fraction of this GPU's copy bandwidth; each bar beside its threshold. Made with
matplotlib's Figure (no pyplot: no global state, no display) and returned as an SVG data URI, so the page that
shows it needs no file beside it."""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any

import matplotlib
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from grader.reporting.export.run import GroupRate

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType  # for the type checker only: older matplotlib lacks the module

COLOURS = {"pass": "#2da44e", "fail": "#cf222e", "shown": "#8c959f", "threshold": "#24292f", "reference": "#6e7781"}
STYLE: dict[RcKeyType, Any] = {
    "svg.hashsalt": "cuda-memory-labs",  # the same run gives the same file
    "svg.fonttype": "path",  # glyphs as paths: no font needed where the page is read
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
BAR = 0.6


def _colour(value: float | None, threshold: float | None) -> str:
    if threshold is None:
        return COLOURS["shown"]
    return COLOURS["pass"] if value is not None and value >= threshold else COLOURS["fail"]


def _panel(ax, rates: list[GroupRate], values: list[float | None], thresholds: list[float | None], label) -> None:
    """Bars for `values`, a dashed threshold over each bar that has one, and the value written on top."""
    names = [rate.group for rate in rates]
    heights = [value or 0.0 for value in values]
    xs = range(len(rates))
    ax.bar(xs, heights, BAR, color=[_colour(v, t) for v, t in zip(values, thresholds, strict=True)])
    top = max([*heights, *(t for t in thresholds if t is not None), 1.0])
    for x, value, threshold, rate in zip(xs, values, thresholds, rates, strict=True):
        if threshold is not None:
            ax.hlines(threshold, x - BAR / 1.6, x + BAR / 1.6, colors=COLOURS["threshold"], linestyles="--", lw=1.4)
        text = "wrong result" if not rate.correct else (label(value) if value is not None else "-")
        ax.text(
            x,
            (value or 0.0) + top * 0.02,
            text,
            ha="center",
            va="bottom",
            fontsize=8,
            color=COLOURS["fail"] if not rate.correct else COLOURS["threshold"],
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},
        )  # readable over the 1.0 line
    ax.axhline(1.0, color=COLOURS["reference"], lw=0.8, zorder=0)
    ax.set_xticks(list(xs), names, rotation=30 if len(rates) > 3 else 0, ha="right" if len(rates) > 3 else "center")
    ax.tick_params(axis="x", length=0 if names == [""] else 3.5)
    ax.set_ylim(0, top * 1.18)
    ax.set_xlim(-0.7, len(rates) - 0.3)


def lab_figure(rates: list[GroupRate]) -> Figure:
    memory_bound = any(rate.memory_bound for rate in rates)
    width = (2 if memory_bound else 1) * max(3.2, min(4.2, 1.6 + 0.55 * len(rates)))
    figure = Figure(figsize=(width, 2.7), layout="constrained")
    axes = figure.subplots(1, 2 if memory_bound else 1, squeeze=False)[0]

    speed = axes[0]
    _panel(speed, rates, [r.speedup for r in rates], [r.min_speedup for r in rates], lambda v: f"×{v:.2f}")
    speed.set_title(f"speedup over {rates[0].baseline}", fontsize=9)
    speed.set_ylabel("× the baseline's speed")
    if memory_bound:
        copy = axes[1]
        fractions, thresholds = [r.copy_fraction for r in rates], [r.min_copy_fraction for r in rates]
        _panel(copy, rates, fractions, thresholds, lambda v: f"{v:.2f}")
        copy.set_title("fraction of this GPU's copy bandwidth", fontsize=9)
        copy.set_ylabel("of copy bandwidth")
    # One legend for the figure: what the colours and the dashes mean.
    handles = [
        Patch(color=COLOURS["pass"], label="meets its threshold"),
        Patch(color=COLOURS["fail"], label="below its threshold"),
        Patch(color=COLOURS["shown"], label="shown, not graded"),
        Line2D([], [], color=COLOURS["threshold"], ls="--", label="threshold"),
    ]
    figure.legend(handles=handles, loc="outside lower center", ncols=4 if width > 5 else 2, frameon=False, fontsize=8)
    return figure


def lab_plot(rates: list[GroupRate]) -> str:
    """The lab's figure as a data: URI of an SVG document."""
    with matplotlib.rc_context(STYLE):
        figure = lab_figure(rates)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
