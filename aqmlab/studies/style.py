"""One look for every study figure, and one way to write a figure with its data.

:func:`theme` sets the seaborn theme (white grid, "paper" context, colour-blind palette);
:func:`save_figure` writes ``<name>.png`` and ``<name>.svg`` and the data the figure was
drawn from as ``<name>.csv`` beside them, so any figure can be re-plotted without
re-running a simulation. Figures are drawn on matplotlib's Agg backend (no display needed).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from IPython import get_ipython

__all__ = ["PALETTE", "theme", "figure", "save_figure", "label", "WIDTH", "HEIGHT"]

#: Seaborn palette used everywhere (colour-blind safe).
PALETTE = "colorblind"
#: Default figure size (inches) of one panel.
WIDTH, HEIGHT = 6.0, 3.8
DPI = 130

#: Axis labels for tidy column names (the unit is in the name).
LABELS = {
    "response_time_ms": "response time (ms)",
    "response_time_s": "response time (s)",
    "cdf": "cumulative probability",
    "ccdf": "P(response time > x)",
    "qlen_pkts": "queue length (packets)",
    "time_s": "time (s)",
    "utilisation": "link utilisation",
    "loss_rate": "loss rate",
    "loss_pct": "loss rate (%)",
    "drop_pct": "drops (%)",
    "avg_qlen_pkts": "average queue (packets)",
    "goodput_mbps": "goodput (Mb/s)",
    "load_pct": "offered load (%)",
    "flows": "number of flows",
    "median_ms": "median response time (ms)",
    "mean_qlen": "mean queue (packets)",
    "i1": "responses within 1 s (%)",
    "i4": "responses over 3 s (%)",
    "retx_pct": "requests with retransmissions (%)",
    "timeout_pct": "requests with a timeout (%)",
    "spread_pct": "download-time spread (%)",
    "efficiency_pct": "goodput efficiency (%)",
    "jain": "Jain fairness index",
    "fairness_ratio": "fairness ratio f",
    "cov": "coefficient of variation",
    "mark_pct": "marks (%)",
    "drop_mark_pct": "drops + ECN marks (%)",
    "drop_flows_pct": "connections with a drop (%)",
    "shut_off_pct": "shut-off flows (%)",
    "q_cov": "queue CoV",
}


def label(column: str) -> str:
    """A readable axis label for a column name."""
    return LABELS.get(column, column.replace("_", " "))


def theme() -> None:
    """Apply the aqmlab study theme (idempotent); selects the Agg backend when no
    interactive backend is in use."""
    if matplotlib.get_backend().lower() not in ("agg",) and not _interactive():
        matplotlib.use("Agg")
    sns.set_theme(style="whitegrid", context="paper", palette=PALETTE,
                  rc={"figure.dpi": DPI, "savefig.dpi": DPI, "axes.titlesize": 10,
                      "axes.labelsize": 9, "legend.fontsize": 8, "legend.title_fontsize": 8,
                      "xtick.labelsize": 8, "ytick.labelsize": 8, "lines.linewidth": 1.4,
                      "svg.fonttype": "none", "figure.constrained_layout.use": True})


def _interactive() -> bool:
    return get_ipython() is not None


def figure(ncols: int = 1, nrows: int = 1, width: float | None = None,
           height: float | None = None, **kw: Any):
    """A themed figure with ``nrows x ncols`` panels; returns ``(fig, axes)``."""
    theme()
    w = width if width is not None else WIDTH * ncols if ncols < 3 else 4.2 * ncols
    h = height if height is not None else HEIGHT * nrows
    return plt.subplots(nrows, ncols, figsize=(w, h), squeeze=False, **kw)


def save_figure(fig: Any, data: pd.DataFrame | Mapping[str, pd.DataFrame] | None,
                folder: str | Path, name: str, close: bool = True) -> list[Path]:
    """Write ``folder/name.png``, ``folder/name.svg`` and the data as ``folder/name.csv``
    (a dict of frames: ``name-<key>.csv`` each). Returns the files written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for ext in ("png", "svg"):
        path = folder / f"{name}.{ext}"
        fig.savefig(path, dpi=DPI, bbox_inches="tight")
        files.append(path)
    if isinstance(data, pd.DataFrame):
        data.to_csv(folder / f"{name}.csv", index=False)
        files.append(folder / f"{name}.csv")
    elif data is not None:
        for key, frame in data.items():
            path = folder / f"{name}-{key}.csv"
            frame.to_csv(path, index=False)
            files.append(path)
    if close:
        plt.close(fig)
    return files
