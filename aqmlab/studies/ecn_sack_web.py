"""Weigle, Jeffay & Smith, "Quantifying the effects of recent protocol improvements to TCP:
impact on Web performance" (seed 000).

Two-way PackMime-HTTP over a 10 Mb/s bottleneck; Reno or SACK (each with or without ECN)
over drop-tail 111/148 packets (1.5/2 BDP), Adaptive RED (target 5 or 60 ms, 370 packets)
or ARED with ECN; offered loads 50-105 % (connection rates from
``examples/calibration/packmime_10mbps.csv``). The main metric is the CDF of HTTP response
times (SYN to last byte) of the forward instance, drawn with the uncongested (100 Mb/s)
baseline, x up to 1500 ms. The set-up and its arms: :mod:`aqmlab.studies.setups.weigle`.
Claims: ``claim_tables/ecn_sack_web.toml``, measured by the metrics below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from aqmlab.studies import common, plots
from aqmlab.studies.arms import Arm, arms_frame
from aqmlab.studies.claims import ClaimTable, Inputs, Metrics
from aqmlab.studies.common import (
    Context,
    crossings,
    curve,
    merge_tables,
    quantile_at,
    share_faster,
    value_at,
)
from aqmlab.studies.params import Params, Profiles
from aqmlab.studies.setups.weigle import (
    BASELINE,
    collect_web,
    loads_zip,
    one_way,
    queue_of,
    weigle_arm,
    weigle_base,
)

STUDY = "ecn_sack_web"
TITLE = "ECN, SACK and AQM for Web traffic (Weigle et al.)"


@dataclass(frozen=True, kw_only=True)
class EcnSackWebParams(Params):
    """``loads`` x ``arms`` (``<tcp>-<queue>``, :mod:`~aqmlab.studies.setups.weigle`), and
    only ``arms_hi`` at the highest load (None: the same arms); ``stop_after_responses``:
    the paper's run length (None: ``duration``); ``red_arms`` at ``red_loads`` (those the
    profile runs, else the first): the original RED of Figs. 11-12; ``one_way``: the
    forward instance alone (Fig. 15) at ``one_way_loads`` (those the profile runs; None:
    the highest load)."""

    study: ClassVar[str] = STUDY
    loads: tuple[float, ...]
    arms: tuple[str, ...]
    arms_hi: tuple[str, ...] | None
    duration: float
    warmup: float
    stop_after_responses: int | None
    red_arms: tuple[str, ...]
    red_loads: tuple[float, ...]
    one_way: bool
    one_way_loads: tuple[float, ...] | None

    def __post_init__(self) -> None:
        super().__post_init__()
        for a in (*self.arms, *(self.arms_hi or ()), *self.red_arms):
            weigle_arm(a)  # an unknown arm fails here, listing the known ones


_QUICK_ARMS = ("reno-dt148", "reno-ared5", "reno-ared60", "reno-aredecn5", "reno-aredecn60")
PROFILES = Profiles(
    tiny=EcnSackWebParams(profile="tiny", seeds=(1,), loads=(0.8,),
                          arms=("reno-dt148", "reno-aredecn5"), arms_hi=None, duration=20.0,
                          warmup=5.0, stop_after_responses=None, red_arms=(),
                          red_loads=(0.8, 0.9), one_way=False, one_way_loads=None),
    quick=EcnSackWebParams(profile="quick", seeds=(1,), loads=(0.8, 1.05),
                           arms=(*_QUICK_ARMS, "sack-dt148", "sack-aredecn5"),
                           arms_hi=_QUICK_ARMS, duration=45.0, warmup=10.0,
                           stop_after_responses=None, red_arms=(), red_loads=(0.8, 0.9),
                           one_way=False, one_way_loads=None),
    full=EcnSackWebParams(profile="full", seeds=(1, 2, 3),
                          loads=(0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0, 1.05),
                          arms=("reno-dt111", "reno-dt148", "reno-ared5", "reno-ared60",
                                "reno-aredecn5", "reno-aredecn60", "sack-dt111", "sack-dt148",
                                "sack-ared5", "sack-ared60", "sack-aredecn5", "sack-aredecn60"),
                          arms_hi=None, duration=3000.0, warmup=120.0,
                          stop_after_responses=500000,
                          red_arms=("reno-red5-15", "reno-red30-90"), red_loads=(0.8, 0.9),
                          one_way=True, one_way_loads=(0.8, 1.05)),
)


def profile(name: str = "quick", **overrides: Any) -> EcnSackWebParams:
    return PROFILES.get(name, **overrides)


def run(p: EcnSackWebParams, ctx: Context) -> dict[str, pd.DataFrame]:
    b = weigle_base(p.duration, p.warmup, p.stop_after_responses)
    loads = sorted(p.loads)
    hi_arms = p.arms_hi or p.arms
    groups = [(loads, p.arms)] if set(hi_arms) == set(p.arms) else [
        (loads[:-1], p.arms), (loads[-1:], hi_arms)]
    parts = []
    swept: list[Arm] = []

    def sweep(base_: Any, name: str, labels: Any, lds: list[float], groups_: int = 2) -> Any:
        arms = [weigle_arm(a) for a in labels]
        swept.extend(arms)
        return ctx.sweep(base_, name=name, arms=arms, zip=loads_zip(lds, groups_),
                         seeds=p.seeds)

    for lds, names in groups:
        if lds:
            parts.append(collect_web(sweep(b, "weigle", [*names, BASELINE], lds), "two-way",
                                     ts=True))
    if p.red_arms:
        lds = [x for x in p.red_loads if x in p.loads] or list(p.red_loads[:1])
        parts.append(collect_web(sweep(b, "weigle-red", p.red_arms, lds), "two-way"))
    if p.one_way:
        hi = ([max(p.loads)] if p.one_way_loads is None
              else [x for x in p.one_way_loads if x in p.loads])
        parts.append(collect_web(sweep(one_way(b), "weigle-1way", ["reno-aredecn5", BASELINE],
                                       hi, 1), "one-way"))
    return {**merge_tables(*parts), "arms": arms_frame(swept)}


# -- helpers over the reduced frames -------------------------------------------------------------


def mean_cdf(data: dict, key: str = "cdf", series: str = "two-way") -> pd.DataFrame:
    c = data.get(key, pd.DataFrame())
    if not len(c):
        return c
    return common.mean_cdf(c[c.series == series], ["load_pct", "name"])


def stat(data: dict, load: int, name: str, col: str, series: str = "two-way") -> float:
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return math.nan
    d = s[(s.series == series) & (s.load_pct == load) & (s.name == name)]
    return float(d[col].mean()) if len(d) else math.nan


def offered(data: dict) -> pd.DataFrame:
    """Per nominal load: the load the same traffic offered on the uncongested network
    (forward and reverse bottleneck utilisation x 100 Mb/s, as % of 10 Mb/s) and the
    responses measured: the calibration check of the paper (§5, "offered load")."""
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return pd.DataFrame()
    s = s[(s.name == BASELINE)]
    cols = {"utilisation": "forward_pct", "reverse_utilisation": "reverse_pct"}
    out = (s.groupby(["series", "load_pct"])[[c for c in [*cols, "responses"] if c in s]]
           .mean().reset_index().rename(columns=cols))
    for c in ("forward_pct", "reverse_pct"):
        if c in out:
            out[c] = out[c] * 1000  # share of 100 Mb/s -> % of 10 Mb/s
    return out


def drift(data: dict, min_load: int = 90) -> pd.DataFrame:
    """Is a run stationary? Per load (>= ``min_load`` %) and arm: the median response time of
    the first and of the last third of the responses (ms), their ratio, the sockets
    still open at the end, the responses in progress (time average) and the packets of
    Qiu et al.'s pipe size W_c per response in progress (< 1: their small-pipe regime,
    where flows live in timeouts). Open-loop traffic above what a queue lets through piles
    up connections, so an overloaded run's statistics depend on its length."""
    s = data.get("stats", pd.DataFrame())
    need = {"median_early_ms", "median_late_ms"}
    if not len(s) or not need <= set(s):
        return pd.DataFrame()
    s = s[(s.series == "two-way") & (s.load_pct >= min_load)]
    cols = ["median_early_ms", "median_late_ms", "open_sockets_end",
            *[c for c in ("in_progress", "wc_pkts") if c in s]]
    out = s.groupby(["load_pct", "name"])[cols].mean().reset_index()
    out["late_over_early"] = out.median_late_ms / out.median_early_ms
    if {"in_progress", "wc_pkts"} <= set(out):
        out["wc_per_response"] = out.wc_pkts / out.in_progress
    return out


# -- figures -------------------------------------------------------------------------------------


def _cdf_fig(data: dict, out: Path, name: str, arms: list[str], title: str,
             key: str = "cdf", xmax: float = 1500.0, ccdf: bool = False) -> Any:
    c = mean_cdf(data, key)
    if not len(c):
        return plots.empty_figure(out, name, "no runs")
    c = c[c.name.isin([*arms, BASELINE])]
    c = c.assign(load=c.load_pct.astype(str) + " %")
    order = [a for a in arms if a in set(c.name)]
    return plots.response_cdf(c, out, name, panel="load", xmax_ms=xmax, ccdf=ccdf,
                              title=title, order=order)


def fig_dt_ared(data: dict, out: Path) -> Any:
    return _cdf_fig(data, out, "cdf_dt_vs_ared", ["reno-dt111", "reno-dt148", "reno-ared5",
                                                   "reno-ared60"], "DT vs ARED (Figs. 9-10)")


def fig_ecn(data: dict, out: Path) -> Any:
    return _cdf_fig(data, out, "cdf_ared_ecn", ["reno-ared5", "reno-ared60", "reno-aredecn5",
                                                 "reno-aredecn60"],
                    "ARED with and without ECN (Figs. 13-14)")


def fig_sack(data: dict, out: Path) -> Any:
    return _cdf_fig(data, out, "cdf_reno_sack", ["reno-dt148", "sack-dt148", "reno-aredecn5",
                                                  "sack-aredecn5"],
                    "Reno vs SACK (Figs. 16-17)")


def fig_large(data: dict, out: Path) -> Any:
    return _cdf_fig(data, out, "cdf_large_responses", ["reno-dt148", "sack-dt148",
                                                        "reno-aredecn5", "sack-aredecn5"],
                    "Responses > 50 KB (Fig. 18)", key="cdf_large", xmax=20000.0)


def fig_best(data: dict, out: Path) -> Any:
    return _cdf_fig(data, out, "cdf_best_dt_vs_best_aqm", ["reno-dt148", "reno-aredecn5"],
                    "Best DT vs best AQM (Figs. 19-21)")


def fig_red(data: dict, out: Path) -> Any:
    return _cdf_fig(data, out, "cdf_red_vs_ared", ["reno-red5-15", "reno-ared5",
                                                    "reno-red30-90", "reno-ared60"],
                    "Original RED vs ARED (Figs. 11-12)")


def fig_ccdf(data: dict, out: Path) -> Any:
    c = mean_cdf(data)
    arms = [a for a in dict.fromkeys(c.name) if a != BASELINE] if len(c) else []
    return _cdf_fig(data, out, "ccdf_all", arms, "Response-time CCDF", ccdf=True)


def fig_one_way(data: dict, out: Path) -> Any:
    c = data.get("cdf", pd.DataFrame())
    if not len(c) or "one-way" not in set(c.series):
        return plots.empty_figure(out, "cdf_one_vs_two_way", "one-way runs not in this profile")
    loads = set(c[c.series == "one-way"].load_pct)
    d = c[(c.name == "reno-aredecn5") & c.load_pct.isin(loads)]
    d = (d.groupby(["series", "load_pct", "response_time_ms"])[["cdf", "ccdf"]].mean()
         .reset_index())
    d["name"] = "ARED+ECN 5 ms, " + d.series
    base = c[(c.name == BASELINE) & (c.series == "two-way") & c.load_pct.isin(loads)]
    base = (base.groupby(["load_pct", "response_time_ms"])[["cdf", "ccdf"]].mean()
            .reset_index().assign(name=BASELINE))
    d = pd.concat([d, base], ignore_index=True)
    d["load"] = d.load_pct.astype(str) + " %"
    return plots.response_cdf(d, out, "cdf_one_vs_two_way", panel="load",
                              title="One-way vs two-way traffic (Fig. 15)")


def fig_summary(data: dict, out: Path) -> Any:
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return plots.empty_figure(out, "summary_vs_load", "no runs")
    s = s[(s.series == "two-way") & (s.name != BASELINE)]
    m = s.melt(id_vars=["name", "load_pct", "seed"],
               value_vars=["utilisation", "loss_pct", "drop_flows_pct", "avg_qlen_pkts"],
               var_name="metric", value_name="value")
    if m.load_pct.nunique() > 2:
        return plots.lines(m, out, "summary_vs_load", x="load_pct", y="value", hue="name",
                           panel="metric", title="Utilisation, loss, flows with drops, "
                           "queue vs load (Figs. 4-7)")
    return plots.bars(s, out, "summary_vs_load", x="load_pct", hue="name",
                      metrics=["utilisation", "loss_pct", "drop_flows_pct", "avg_qlen_pkts"],
                      title="Utilisation, loss, flows with drops, queue (Figs. 4-7)")


def fig_queue(data: dict, out: Path) -> Any:
    ts = data.get("queue_ts", pd.DataFrame())
    if not len(ts):
        return plots.empty_figure(out, "queue_ts", "no queue series")
    top = ts.load_pct.max()
    ts = ts[(ts.load_pct == top) & (ts.seed == ts.seed.min())
            & ts.name.isin(["reno-dt148", "reno-ared5", "reno-ared60", "reno-aredecn5"])]
    return plots.queue_timeseries(ts, out, "queue_ts", hue="name", panel="name", avg=True,
                                  title=f"Forward bottleneck queue, {top} % load:")


def fig_seeds(data: dict, out: Path) -> Any:
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return plots.empty_figure(out, "median_across_seeds", "no runs")
    s = s[s.series == "two-way"].assign(load=lambda d: d.load_pct.astype(str) + " %")
    return plots.boxes(s, out, "median_across_seeds", x="name", y="median_ms", hue="load",
                       title="Median response time across seeds")


FIGURES = [fig_dt_ared, fig_ecn, fig_sack, fig_large, fig_best, fig_red, fig_ccdf, fig_one_way,
           fig_summary, fig_queue, fig_seeds]


# -- claims --------------------------------------------------------------------------------------
# -- claims: metrics of claim_tables/ecn_sack_web.toml ---------------------------------------

METRICS = Metrics(STUDY)


def _cdf(x: Inputs) -> pd.DataFrame:
    return mean_cdf(x.data)


@METRICS.values
def _loads(x: Inputs) -> dict[str, int]:
    """``hi``: the highest load (105 % when run); ``hs``: the highest load where every
    arm of the Reno/SACK comparison ran (``hi`` if it did)."""
    c = x.cached(_cdf)
    hi = 105 if (len(c) and 105 in set(c.load_pct)) else (int(c.load_pct.max()) if len(c) else 105)
    names = ("reno-aredecn5", "sack-aredecn5", "reno-dt148", "sack-dt148")
    hs = hi
    if len(c):
        ok = [ld for ld in sorted(set(c.load_pct), reverse=True)
              if set(names) <= set(c[c.load_pct == ld].name)]
        hs = hi if hi in ok or not ok else int(ok[0])
    return {"hi": hi, "hs": hs}


def _load(x: Inputs, load: int | str) -> int:
    """A load in percent, or "hi"/"hs" (see :func:`_loads`)."""
    return x.cached(_loads)[load] if isinstance(load, str) else load


@METRICS
def workload(x: Inputs, fact: str) -> float:
    """A workload fact of the uncongested runs (``sizes`` table)."""
    sz = x.data.get("sizes", pd.DataFrame())
    sz = sz[sz.name == BASELINE] if len(sz) else sz
    facts = sz.mean(numeric_only=True) if len(sz) else pd.Series(dtype=float)
    return float(facts.get(fact, math.nan))


@METRICS
def faster_share(x: Inputs, load: int | str, a: str, b: str, q_hi: float = 1.0) -> float:
    """Share of quantile levels (below ``q_hi``) at which ``a`` is faster than ``b``."""
    c = x.cached(_cdf)
    load = _load(x, load)
    ca, cb = curve(c, load, a), curve(c, load, b)
    if ca is None or cb is None:
        return math.nan
    return share_faster(ca[0], ca[1], cb[1], q_hi=q_hi)


def _cross(x: Inputs, load: int, a: str, b: str, lo: float = 50, hi_t: float = 1500) -> float:
    c = x.cached(_cdf)
    ca, cb = curve(c, load, a), curve(c, load, b)
    if ca is None or cb is None:
        return math.nan
    xs = crossings(ca[0], ca[1], cb[1], lo, hi_t)
    return xs[0][0] if xs else math.nan


@METRICS
def ared_crossing(x: Inputs) -> float:
    """80 %: the first crossing of ARED-5 and ARED-60 in 50-1500 ms."""
    return _cross(x, 80, "reno-ared5", "reno-ared60")


@METRICS
def ared5_plateau(x: Inputs) -> float:
    """80 %: ARED-5's CDF rise from the crossover to 950 ms."""
    cx = _cross(x, 80, "reno-ared5", "reno-ared60")
    a5 = curve(x.cached(_cdf), 80, "reno-ared5")
    return (value_at(a5[0], a5[1], 950) - value_at(a5[0], a5[1], cx)
            if a5 is not None and not math.isnan(cx) else math.nan)


def _stat(x: Inputs, load: int | str, name: str, col: str, series: str = "two-way") -> float:
    return stat(x.data, _load(x, load), name, col, series)


@METRICS
def stats(x: Inputs, load: int | str, col: str, arms: list[str]) -> dict[str, float]:
    """``col`` of each arm at ``load``, as {arm: value}."""
    return {a: _stat(x, load, a, col) for a in arms}


@METRICS
def ecn_gain_by_load(x: Inputs) -> dict[str, float]:
    """Median ARED-5 / median ARED+ECN-5 at the highest load and at 80 %."""
    return {"105": _stat(x, "hi", "reno-ared5", "median_ms")
            / _stat(x, "hi", "reno-aredecn5", "median_ms"),
            "80": _stat(x, 80, "reno-ared5", "median_ms")
            / _stat(x, 80, "reno-aredecn5", "median_ms")}


@METRICS
def cdf_gap(x: Inputs, load: int | str, a: str, b: str) -> float:
    """Largest |F_a - F_b| up to 1500 ms."""
    c = x.cached(_cdf)
    load = _load(x, load)
    ca, cb = curve(c, load, a), curve(c, load, b)
    if ca is None or cb is None:
        return math.nan
    sel = ca[0] <= 1500
    return float(np.max(np.abs(ca[1][sel] - cb[1][sel])))


@METRICS
def median_large(x: Inputs, load: int, arms: list[str]) -> dict[str, float]:
    """Median response time of the responses > 50 KB, per arm."""
    c = x.cached(mean_cdf_large)
    out = {}
    for a in arms:
        cc = curve(c, load, a) if len(c) else None
        out[a] = quantile_at(cc[0], cc[1], 0.5) if cc is not None else math.nan
    return out


def mean_cdf_large(x: Inputs) -> pd.DataFrame:
    return mean_cdf(x.data, "cdf_large")


@METRICS
def max_loss(x: Inputs, load: int, arms: list[str]) -> float:
    return float(np.max([_stat(x, load, a, "loss_pct") for a in arms]))


@METRICS
def one_vs_two_way(x: Inputs) -> dict[str, float]:
    """Median response time of ARED+ECN-5 at the highest load, two-way and one-way."""
    ow = _stat(x, "hi", "reno-aredecn5", "median_ms", "one-way")
    tw = _stat(x, "hi", "reno-aredecn5", "median_ms")
    return {"two-way": tw, "one-way": ow}


CLAIMS = METRICS.table()


def claims(data: dict, p: EcnSackWebParams) -> ClaimTable:
    """The paper's claims (``claim_tables/ecn_sack_web.toml``) measured on ``data``."""
    return CLAIMS.evaluate(data, p)


__all__ = ["STUDY", "TITLE", "EcnSackWebParams", "PROFILES", "profile", "run", "FIGURES",
           "METRICS", "CLAIMS", "claims", "mean_cdf", "stat", "offered", "drift", "queue_of",
           "weigle_arm"]
