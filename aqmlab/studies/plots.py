"""Figure recipes shared by the studies: each takes tidy frames, draws one figure in the
study style, writes it with its data (:func:`aqmlab.studies.style.save_figure`) and returns
the matplotlib Figure (shown inline by a notebook).

* :func:`response_cdf` — response-time CDFs (optionally CCDFs) per arm, with the
  uncongested baseline dashed, x up to 1500 ms as in Weigle et al.;
* :func:`queue_timeseries` — queue length over time per arm;
* :func:`bars` — utilisation / loss / queue (any metric) per arm and load;
* :func:`heatmap` — a metric over a 2-D parameter grid (RED w_q x max_p, ...);
* :func:`lines` — a metric against a swept parameter with optional formula curves;
* :func:`boxes` — a metric across seeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns

from aqmlab.studies.style import figure, label, save_figure

__all__ = ["response_cdf", "queue_timeseries", "bars", "heatmap", "lines", "boxes",
           "empty_figure"]

BASELINE = "uncongested"


def empty_figure(folder: str | Path, name: str, message: str) -> Any:
    """A placeholder figure (with an empty data file) when a profile has no data for it."""
    fig, axes = figure()
    ax = axes[0][0]
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True, transform=ax.transAxes)
    ax.set_axis_off()
    save_figure(fig, pd.DataFrame({"message": [message]}), folder, name)
    return fig


def _title(title: str, panel: str | None, value: Any, fig: Any = None) -> str:
    """Panel title: the panel's value (with its column name unless the values speak for
    themselves); the figure title goes above all panels (``fig.suptitle``), or before the
    value when there is only one panel."""
    if value is None:
        return title
    text = str(value) if panel in ("panel", "load", "name", "metric", "clients") else (
        f"{panel} = {value}")
    if fig is not None and len(fig.axes) > 1:
        if title and not fig._suptitle:
            fig.suptitle(title.rstrip(":"))
        return text
    return f"{title} {text}".strip() if title.endswith(":") else (
        f"{title} ({text})" if title else text)


def _categorical(df: pd.DataFrame, hue: str | None) -> pd.DataFrame:
    """A numeric hue becomes text, so seaborn uses the qualitative palette."""
    if hue is not None and hue in df.columns and pd.api.types.is_numeric_dtype(df[hue]):
        return df.assign(**{hue: df[hue].map(lambda v: f"{v:g}")})
    return df


def _panels(data: pd.DataFrame, panel: str | None) -> list[Any]:
    if panel is None or panel not in data.columns:
        return [None]
    return list(dict.fromkeys(data[panel]))


def response_cdf(cdfs: pd.DataFrame, folder: str | Path, name: str, *, hue: str = "name",
                 panel: str | None = None, xmax_ms: float = 1500.0, ccdf: bool = False,
                 logx: bool = False, title: str = "", baseline: str = BASELINE,
                 order: Sequence[str] | None = None) -> Any:
    """CDF (or CCDF, log-log) of response times per ``hue``; one panel per ``panel`` value.
    ``cdfs`` has columns ``response_time_ms``, ``cdf``, ``ccdf``, ``hue`` (and ``panel``);
    the ``baseline`` arm is drawn dashed black."""
    if cdfs is None or len(cdfs) == 0:
        return empty_figure(folder, name, "no response-time data in this profile")
    y = "ccdf" if ccdf else "cdf"
    data = cdfs[cdfs.response_time_ms <= (xmax_ms if not ccdf else np.inf)].copy()
    if ccdf:
        data = data[(data.response_time_ms > 0) & (data.ccdf > 0)]
    panels = _panels(data, panel)
    fig, axes = figure(ncols=len(panels))
    hues = list(order) if order is not None else [
        h for h in dict.fromkeys(data[hue]) if h != baseline]
    palette = dict(zip(hues, sns.color_palette(n_colors=max(len(hues), 1)), strict=False))
    for ax, pv in zip(axes[0], panels, strict=False):
        d = data if pv is None else data[data[panel] == pv]
        for h in hues:
            dh = d[d[hue] == h]
            if len(dh):
                ax.plot(dh.response_time_ms, dh[y], color=palette[h], label=str(h))
        db = d[d[hue] == baseline]
        if len(db):
            ax.plot(db.response_time_ms, db[y], color="black", ls="--", lw=1.1,
                    label=baseline)
        if ccdf:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_ylabel(label("ccdf"))
        else:
            if logx:
                ax.set_xscale("log")
            ax.set_xlim(0 if not logx else 1, xmax_ms)
            ax.set_ylim(0, 1.0)
            ax.set_ylabel(label("cdf"))
        ax.set_xlabel(label("response_time_ms"))
        ax.set_title(_title(title, panel, pv, fig))
        ax.legend(loc="lower right" if not ccdf else "lower left", frameon=True)
    save_figure(fig, data, folder, name, close=True)
    return fig


def queue_timeseries(ts: pd.DataFrame, folder: str | Path, name: str, *, hue: str = "name",
                     panel: str | None = None, y: str = "qlen_pkts", title: str = "",
                     avg: bool = False) -> Any:
    """Queue length (packets) over time per ``hue``; the RED average dashed if ``avg``."""
    if ts is None or len(ts) == 0:
        return empty_figure(folder, name, "no queue time series in this profile")
    panels = _panels(ts, panel)
    fig, axes = figure(ncols=1, nrows=len(panels), height=2.4 * len(panels) + 0.6)
    hues = list(dict.fromkeys(ts[hue]))
    palette = dict(zip(hues, sns.color_palette(n_colors=len(hues)), strict=False))
    for ax, pv in zip([a[0] for a in axes], panels, strict=False):
        d = ts if pv is None else ts[ts[panel] == pv]
        for h in hues:
            dh = d[d[hue] == h]
            if len(dh):
                ax.plot(dh.time_s, dh[y], color=palette[h], lw=0.7, label=str(h))
                if avg and "red_avg_pkts" in dh and (dh.red_avg_pkts.fillna(0) > 0).any():
                    ax.plot(dh.time_s, dh.red_avg_pkts, color=palette[h], lw=0.9, ls="--")
        ax.set_xlabel(label("time_s"))
        ax.set_ylabel(label(y))
        ax.set_title(_title(title, panel, pv, fig))
        if hue != panel:
            ax.legend(loc="upper right", ncols=min(4, len(hues)))
    save_figure(fig, ts, folder, name)
    return fig


def bars(df: pd.DataFrame, folder: str | Path, name: str, *, x: str,
         metrics: Sequence[str], hue: str | None = None, title: str = "",
         order: Sequence[Any] | None = None, hue_order: Sequence[Any] | None = None,
         errorbar: Any = ("pi", 100), paper: Mapping[str, pd.DataFrame] | None = None) -> Any:
    """One bar panel per metric (utilisation, loss, queue ...) against ``x`` and ``hue``;
    seeds are averaged with their range as error bars. ``paper`` optionally gives, per
    metric, a frame with the same ``x``/``hue`` columns and a ``paper`` column drawn as
    black ticks."""
    if df is None or len(df) == 0:
        return empty_figure(folder, name, "no data in this profile")
    metrics = [m for m in metrics if m in df.columns]
    df = _categorical(df, hue)
    if paper is not None:
        paper = {k: _categorical(v, hue) for k, v in paper.items()}
    if hue_order is not None:
        hue_order = [f"{h:g}" if isinstance(h, (int, float)) else h for h in hue_order]
    fig, axes = figure(ncols=len(metrics), width=min(4.2 * len(metrics), 16))
    for ax, m in zip(axes[0], metrics, strict=False):
        sns.barplot(df, x=x, y=m, hue=hue, order=order, hue_order=hue_order, ax=ax,
                    errorbar=errorbar if df.groupby([c for c in (x, hue) if c]).size().max()
                    > 1 else None)
        if paper is not None and m in paper:
            _paper_ticks(ax, paper[m], x, hue, order, hue_order)
        ax.set_ylabel(label(m))
        ax.set_xlabel(label(x))
        if ax.get_legend() is not None and m != metrics[-1]:
            ax.get_legend().remove()
        ax.tick_params(axis="x", rotation=30 if df[x].astype(str).str.len().max() > 6 else 0)
    if title:
        fig.suptitle(title)
    save_figure(fig, df, folder, name)
    return fig


def _paper_ticks(ax: Any, ref: pd.DataFrame, x: str, hue: str | None, order: Any,
                 hue_order: Any) -> None:
    """Black horizontal ticks at the paper's values over seaborn's bars."""
    xs = list(order) if order is not None else None
    for patch_group, container in enumerate(ax.containers):
        hv = None
        if hue is not None:
            hues = list(hue_order) if hue_order is not None else list(dict.fromkeys(ref[hue]))
            if patch_group >= len(hues):
                continue
            hv = hues[patch_group]
        for i, patch in enumerate(container.patches):
            xv = xs[i] if xs is not None and i < len(xs) else None
            sel = ref[(ref[x] == xv)] if xv is not None else ref.iloc[0:0]
            if hv is not None:
                sel = sel[sel[hue] == hv]
            if len(sel):
                yv = float(sel["paper"].iloc[0])
                x0, w = patch.get_x(), patch.get_width()
                ax.plot([x0, x0 + w], [yv, yv], color="black", lw=2)


def heatmap(df: pd.DataFrame, folder: str | Path, name: str, *, x: str, y: str, value: str,
            panel: str | None = None, fmt: str = ".3g", title: str = "",
            cmap: str = "viridis_r") -> Any:
    """``value`` over the (``x``, ``y``) grid, one panel per ``panel`` value (seeds mean)."""
    if df is None or len(df) == 0:
        return empty_figure(folder, name, "no data in this profile")
    panels = _panels(df, panel)
    fig, axes = figure(ncols=len(panels), width=4.2 * len(panels) + 0.8, height=3.6)
    for ax, pv in zip(axes[0], panels, strict=False):
        d = df if pv is None else df[df[panel] == pv]
        grid = d.pivot_table(index=y, columns=x, values=value, aggfunc="mean")
        sns.heatmap(grid, annot=True, fmt=fmt, cmap=cmap, ax=ax, cbar=pv == panels[-1],
                    cbar_kws={"label": label(value)})
        ax.set_title(_title(title, panel, pv, fig))
        ax.set_xlabel(label(x))
        ax.set_ylabel(label(y))
    save_figure(fig, df, folder, name)
    return fig


def lines(df: pd.DataFrame, folder: str | Path, name: str, *, x: str, y: str,
          hue: str | None = None, panel: str | None = None,
          curves: pd.DataFrame | None = None, logx: bool = False, logy: bool = False,
          title: str = "", markers: bool = True) -> Any:
    """``y`` against ``x`` per ``hue`` (seed mean with range); ``curves`` (columns ``x``,
    ``y``, ``curve`` and optionally ``panel``) are drawn as black/grey formula lines."""
    if df is None or len(df) == 0:
        return empty_figure(folder, name, "no data in this profile")
    panels = _panels(df, panel)
    df = _categorical(df, hue)
    fig, axes = figure(ncols=len(panels))
    styles = ["-", "--", ":", "-."]
    for ax, pv in zip(axes[0], panels, strict=False):
        d = df if pv is None else df[df[panel] == pv]
        sns.lineplot(d, x=x, y=y, hue=hue, ax=ax, marker="o" if markers else None,
                     errorbar=("pi", 100), markersize=4)
        if curves is not None and len(curves):
            c = curves if pv is None or panel not in curves else curves[curves[panel] == pv]
            for k, (cname, cd) in enumerate(c.groupby("curve", sort=False)):
                ax.plot(cd[x], cd[y], color="0.25", ls=styles[k % len(styles)], lw=1.0,
                        label=str(cname))
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(label(x))
        ax.set_ylabel(label(y))
        ax.set_title(_title(title, panel, pv, fig))
        ax.legend(fontsize=7)
    data = df if curves is None else {"points": df, "curves": curves}
    save_figure(fig, data, folder, name)
    return fig


def boxes(df: pd.DataFrame, folder: str | Path, name: str, *, x: str, y: str,
          hue: str | None = None, title: str = "") -> Any:
    """Distribution of ``y`` across seeds (or flows) per ``x``: box plot with the points."""
    if df is None or len(df) == 0:
        return empty_figure(folder, name, "no data in this profile")
    df = _categorical(df, hue)
    fig, axes = figure()
    ax = axes[0][0]
    sns.boxplot(df, x=x, y=y, hue=hue, ax=ax, fliersize=0)
    strip = {"palette": "dark:0.2"} if hue is not None else {"color": "0.2"}
    sns.stripplot(df, x=x, y=y, hue=hue, ax=ax, dodge=hue is not None, size=3, legend=False,
                  **strip)
    ax.set_xlabel(label(x))
    ax.set_ylabel(label(y))
    ax.set_title(title)
    ax.tick_params(axis="x", rotation=30 if df[x].astype(str).str.len().max() > 6 else 0)
    save_figure(fig, df, folder, name)
    return fig
