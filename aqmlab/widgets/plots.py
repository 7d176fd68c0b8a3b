"""The explorer's figure: response-time CDF and/or per-flow goodput, and the bottleneck queue.

Drawn with matplotlib's object API on an Agg canvas (never pyplot), so it is safe to call
from the explorer's background thread and leaves the notebook's backend alone.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from aqmlab.widgets.model import (
    describe,
    diff_labels,
    response_times,
    summary_frame,
    summary_row,
)

__all__ = ["COLORS", "Curve", "compare", "figure", "render_png"]

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf")


@dataclass
class Curve:
    """One run to draw: its Results, legend label and colour."""

    results: Any
    label: str
    color: str


def _is_web(res: Any) -> bool:
    return res.scenario.traffic[0].kind in ("packmime", "mah")


def _bottleneck_ts(res: Any):
    ts = res.queue_ts
    if ts is None or len(ts) == 0:
        return None
    name = res.queues["queue"].iloc[0] if len(res.queues) else ts["queue"].iloc[0]
    return ts[ts["queue"] == name]


def _cdf(ax, curves: Sequence[Curve]) -> None:
    for c in curves:
        rt = response_times(c.results)
        if len(rt) == 0:
            continue
        y = np.arange(1, len(rt) + 1) / len(rt)
        ax.step(rt, y, where="post", color=c.color, lw=1.6, label=c.label)
    ax.set_xscale("log")
    ax.set_xlabel("response time (s)")
    ax.set_ylabel("fraction of responses ≤ x")
    ax.set_ylim(0, 1.01)
    ax.set_title("Response-time CDF (web)")
    ax.grid(True, which="both", alpha=0.3)


def _goodput(ax, curves: Sequence[Curve]) -> None:
    for c in curves:
        f = c.results.flows
        if len(f) == 0:
            continue
        x = np.arange(1, len(f) + 1)
        ax.plot(x, f["goodput_mbps"].to_numpy(), "o-", color=c.color, ms=4, lw=1.2,
                label=c.label)
        fair = c.results.scenario.topology.bottleneck_rate_bps / 1e6 / len(f)
        ax.axhline(fair, color=c.color, ls=":", lw=1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("flow")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_ylim(bottom=0)
    ax.set_title("Per-flow goodput (dotted: fair share)")
    ax.grid(True, alpha=0.3)


def _queue(ax, curves: Sequence[Curve]) -> None:
    for c in curves:
        ts = _bottleneck_ts(c.results)
        if ts is None or len(ts) == 0:
            continue
        t = ts["time_s"].to_numpy()
        ax.plot(t, ts["qlen_pkts"].to_numpy(), color=c.color, lw=0.9, label=c.label)
        avg = ts["red_avg_pkts"].to_numpy()
        if np.nanmax(avg, initial=0) > 0:
            ax.plot(t, avg, color=c.color, lw=1.6, ls="--")
    warm = max((c.results.scenario.run.warmup_s for c in curves), default=0)
    if warm > 0:
        ax.axvspan(0, warm, color="0.9", zorder=0)
    ax.set_xlabel("time (s)  (grey: warm-up, not in the table)")
    ax.set_ylabel("packets")
    ax.set_ylim(bottom=0)
    ax.set_title("Bottleneck queue length (dashed: RED average)")
    ax.grid(True, alpha=0.3)


def figure(curves: Sequence[Curve], *, dpi: int = 90) -> Figure:
    """The explorer's figure for ``curves``: a response-time CDF if any run is web traffic,
    per-flow goodput if any is bulk, and the bottleneck queue length."""
    panels = []
    if any(_is_web(c.results) for c in curves):
        panels.append(_cdf)
    if any(not _is_web(c.results) for c in curves) or not curves:
        panels.append(_goodput)
    panels.append(_queue)
    fig = Figure(figsize=(5.2 * len(panels), 4.2), dpi=dpi, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, draw in zip(axes, panels, strict=True):
        draw(ax, [c for c in curves if draw is _queue or (draw is _cdf) == _is_web(c.results)])
    if curves:
        handles = [axes[-1].plot([], [], color=c.color, lw=2.5)[0] for c in curves]
        fig.legend(handles, [c.label for c in curves], loc="outside lower center",
                   ncol=min(len(curves), 2), frameon=False, fontsize=9)
    return fig


def render_png(curves: Sequence[Curve], *, dpi: int = 90) -> bytes:
    """PNG bytes of :func:`figure`."""
    fig = figure(curves, dpi=dpi)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def compare(runs: Mapping[str, Any] | Sequence[Any], *, dpi: int = 90
            ) -> tuple[Figure, pd.DataFrame]:
    """The explorer's figure and summary table for Results computed elsewhere.

    ``runs``: ``{label: Results}``, or a list of Results (labelled by what differs between
    their scenarios). In a notebook: ``fig, table = compare({...}); display(fig, table)``.
    """
    if isinstance(runs, Mapping):
        labels, results = list(runs), list(runs.values())
    else:
        results = list(runs)
        labels = diff_labels([describe(r.scenario) for r in results])
    curves = [Curve(r, lab, COLORS[i % len(COLORS)])
              for i, (lab, r) in enumerate(zip(labels, results, strict=True))]
    table = summary_frame([{"label": lab, **summary_row(r)}
                           for lab, r in zip(labels, results, strict=True)])
    return figure(curves, dpi=dpi), table.set_index("label")
