"""Tail-drop buffer sizing for Web traffic: Christiansen's thesis ch. 5.1 (seed 001; queue
length x offered load, 50-110 %) and Weigle et al.'s drop-tail 111 vs 148 packets (seed
000, Fig. 8).

Christiansen: HTTP/1.0 browsing users (Mah's model) on the thesis' lab network, tail-drop
queue of 15..240 packets at the 10 Mb/s bottleneck; response-time CDFs against the
unconstrained (100 Mb/s) network, the thesis' per-run statistics (KB/s, % drops, mean
queue, median, i1..i4) next to Table B.4. Weigle: two-way PackMime at 80 % (and 105 %),
Reno over drop-tail 1.5 and 2 BDP. The set-ups: :mod:`aqmlab.studies.setups.christiansen`
and :mod:`aqmlab.studies.setups.weigle`. Claims: ``claim_tables/tail_drop.toml``, measured
by the metrics below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from aqmlab.studies import common, plots
from aqmlab.studies.arms import Arm, arms_frame, tag, tags_of
from aqmlab.studies.claims import ClaimTable, Inputs, Measured, Metrics
from aqmlab.studies.common import Context, crossings, curve, quantile_at, share_faster
from aqmlab.studies.params import Profiles
from aqmlab.studies.setups import christiansen as ch
from aqmlab.studies.setups import weigle
from aqmlab.studies.setups.christiansen import MAH_USER_KBPS, ChristiansenParams

STUDY = "tail_drop"
TITLE = "Tail-drop queue sizing for Web traffic (Christiansen; Weigle et al.)"


@dataclass(frozen=True, kw_only=True)
class TailDropParams(ChristiansenParams):
    """Christiansen's network (:class:`ChristiansenParams`) with tail-drop ``qlens``
    (packets); Weigle's DT-111 vs DT-148 at ``weigle_loads`` for ``weigle_duration``/
    ``weigle_warmup`` s, or until ``weigle_stop_after`` responses (the paper's length)."""

    study: ClassVar[str] = STUDY
    qlens: tuple[int, ...]
    weigle_loads: tuple[float, ...]
    weigle_duration: float
    weigle_warmup: float
    weigle_stop_after: int | None


PROFILES = Profiles(
    tiny=TailDropParams(profile="tiny", seeds=(1,), loads=(0.98,), qlens=(30, 120),
                        duration=40.0, warmup=20.0, users_scale=0.1, start_spread=1.0,
                        think_cap="60s", user_kbps=13.6, weigle_loads=(0.8,),
                        weigle_duration=20.0, weigle_warmup=5.0, weigle_stop_after=None),
    quick=TailDropParams(profile="quick", seeds=(1,), loads=(0.9, 0.98), qlens=(30, 120, 240),
                         duration=160.0, warmup=50.0, users_scale=1.0, start_spread=1.0,
                         think_cap="60s", user_kbps=13.6, weigle_loads=(0.8,),
                         weigle_duration=45.0, weigle_warmup=10.0, weigle_stop_after=None),
    full=TailDropParams(profile="full", seeds=(1, 2, 3), loads=(0.5, 0.7, 0.8, 0.9, 0.98, 1.1),
                        qlens=(15, 30, 60, 120, 190, 240), duration=5400.0, warmup=1200.0,
                        users_scale=1.0, start_spread=1.0, think_cap=None,
                        user_kbps=MAH_USER_KBPS, weigle_loads=(0.8, 1.05),
                        weigle_duration=3000.0, weigle_warmup=120.0, weigle_stop_after=500000),
)


def profile(name: str = "quick", **overrides: Any) -> TailDropParams:
    return PROFILES.get(name, **overrides)


def arms(p: TailDropParams) -> list[Arm]:
    return [*(ch.taildrop_arm(q, p.users_scale) for q in p.qlens), ch.uncongested_arm()]


WEIGLE_ARMS = ("reno-dt111", "reno-dt148", weigle.BASELINE)


def run(p: TailDropParams, ctx: Context) -> dict[str, pd.DataFrame]:
    b, loads, users = ch.setup(p)
    data = ch.collect_runs(ctx.sweep(b, name="christiansen-taildrop", arms=arms(p), zip=users,
                                     seeds=p.seeds), loads, series="christiansen")
    w = weigle.weigle_base(p.weigle_duration, p.weigle_warmup, p.weigle_stop_after)
    warms = [weigle.weigle_arm(a) for a in WEIGLE_ARMS]
    wd = weigle.collect_web(ctx.sweep(w, name="weigle", arms=warms,
                                      zip=weigle.loads_zip(p.weigle_loads), seeds=p.seeds),
                            "two-way")
    data["weigle_cdf"] = wd.get("cdf", pd.DataFrame())
    data["weigle_stats"] = wd.get("stats", pd.DataFrame())
    data["arms"] = arms_frame([*arms(p), *warms])
    return data


# -- helpers -------------------------------------------------------------------------------------


def mean_cdf(data: dict, key: str = "cdf") -> pd.DataFrame:
    c = data.get(key, pd.DataFrame())
    if not len(c):
        return c
    return common.mean_cdf(c, ["load_pct", "name"])


def _qlens(data: dict) -> dict[str, int]:
    """label -> tail-drop queue limit (packets) of the tail-drop arms."""
    return {n: t["qlen"] for n, t in tags_of(data).items() if "qlen" in t}


# -- figures -------------------------------------------------------------------------------------


def fig_cdfs(data: dict, out: Path) -> Any:
    c = mean_cdf(data)
    if not len(c):
        return plots.empty_figure(out, "cdf_by_qlen", "no runs")
    c = c.assign(load=c.load_pct.astype(str) + " %")
    order = sorted((n for n in set(c.name) if n != ch.BASELINE), key=_qlens(data).get)
    return plots.response_cdf(c, out, "cdf_by_qlen", panel="load", xmax_ms=3000,
                              order=order, title="Tail-drop queue length (Figs. 5.1-5.4)")


def fig_ccdfs(data: dict, out: Path) -> Any:
    c = mean_cdf(data)
    if not len(c):
        return plots.empty_figure(out, "ccdf_by_qlen", "no runs")
    c = c.assign(load=c.load_pct.astype(str) + " %")
    order = sorted((n for n in set(c.name) if n != ch.BASELINE), key=_qlens(data).get)
    return plots.response_cdf(c, out, "ccdf_by_qlen", panel="load", ccdf=True, order=order,
                              title="Response-time CCDF")


def fig_load_series(data: dict, out: Path) -> Any:
    """Fig. 5.5: one queue length across loads (120, or the profile's closest)."""
    c = mean_cdf(data)
    if not len(c):
        return plots.empty_figure(out, "cdf_by_load", "no runs")
    qlen = _qlens(data)
    names = sorted((n for n in set(c.name) if n != ch.BASELINE), key=lambda n: abs(qlen[n] - 120))
    if not names:
        return plots.empty_figure(out, "cdf_by_load", "only the uncongested baseline ran")
    d = c[c.name == names[0]].assign(name=lambda x: x.load_pct.astype(str) + " %")
    return plots.response_cdf(d, out, "cdf_by_load", xmax_ms=3000,
                              title=f"{names[0]} across offered loads (Fig. 5.5)")


def fig_stats(data: dict, out: Path) -> Any:
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return plots.empty_figure(out, "stats_vs_table_b4", "no runs")
    s = s[s.name != ch.BASELINE].assign(qlen=lambda d: tag(data, d.name, "qlen"))
    s = s.rename(columns={"loss_pct": "drop_pct", "avg_qlen_pkts": "mean_qlen"})
    ref = ch.TAILDROP_TABLE.assign(load=lambda d: d.load_pct.astype(str) + " %")
    paper = {m: ref[["qlen", "load", m]].rename(columns={m: "paper"}) for m in
             ("drop_pct", "mean_qlen", "median_ms", "i1")}
    s = s.sort_values("load_pct").assign(load=lambda d: d.load_pct.astype(str) + " %")
    qlens = sorted(s.qlen.unique())
    loads = list(dict.fromkeys(s.load))
    return plots.bars(s, out, "stats_vs_table_b4", x="qlen", hue="load",
                      metrics=["drop_pct", "mean_qlen", "median_ms", "i1"], order=qlens,
                      hue_order=loads, paper=paper,
                      title="Per-run statistics vs queue length (black ticks: Table B.4)")


def fig_heatmap(data: dict, out: Path) -> Any:
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return plots.empty_figure(out, "median_heatmap", "no runs")
    s = s[s.name != ch.BASELINE].assign(qlen=lambda d: tag(data, d.name, "qlen"))
    return plots.heatmap(s, out, "median_heatmap", x="qlen", y="load_pct", value="median_ms",
                         fmt=".0f", title="Median response time (ms)")


def fig_queue(data: dict, out: Path) -> Any:
    ts = data.get("queue_ts", pd.DataFrame())
    if not len(ts):
        return plots.empty_figure(out, "queue_ts", "no runs")
    top = ts.load_pct.max()
    ts = ts[(ts.load_pct == top) & (ts.name != ch.BASELINE) & (ts.seed == ts.seed.min())]
    return plots.queue_timeseries(ts, out, "queue_ts", hue="name", panel="name",
                                  title=f"Bottleneck queue at {top} % load:")


def fig_weigle(data: dict, out: Path) -> Any:
    c = data.get("weigle_cdf", pd.DataFrame())
    if not len(c):
        return plots.empty_figure(out, "weigle_dt111_vs_dt148", "no Weigle runs")
    c = (c.groupby(["load_pct", "name", "response_time_ms"])[["cdf", "ccdf"]].mean()
         .reset_index())
    c["load"] = c.load_pct.astype(str) + " %"
    return plots.response_cdf(c, out, "weigle_dt111_vs_dt148", panel="load",
                              order=["reno-dt111", "reno-dt148"],
                              title="Weigle et al.: drop-tail 111 vs 148 packets (Fig. 8)")


def fig_seeds(data: dict, out: Path) -> Any:
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return plots.empty_figure(out, "median_across_seeds", "no runs")
    return plots.boxes(s.assign(load=s.load_pct.astype(str) + " %"), out,
                       "median_across_seeds", x="name", y="median_ms", hue="load",
                       title="Median response time across seeds")


FIGURES = [fig_cdfs, fig_ccdfs, fig_load_series, fig_stats, fig_heatmap, fig_queue,
           fig_weigle, fig_seeds]


def table_b4(data: dict) -> pd.DataFrame:
    """Measured statistics next to Table B.4 (the thesis' values) for every run cell."""
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return pd.DataFrame()
    s = s[s.name != ch.BASELINE].assign(qlen=lambda d: tag(data, d.name, "qlen"))
    m = (s.groupby(["load_pct", "qlen"])[["KBps", "loss_pct", "avg_qlen_pkts", "median_ms",
                                         "i1", "i4"]].mean().reset_index())
    ref = ch.TAILDROP_TABLE[["load_pct", "qlen", "KBps", "drop_pct", "mean_qlen", "median_ms",
                             "i1", "i4"]]
    return m.merge(ref, on=["load_pct", "qlen"], how="left", suffixes=("", "_thesis"))


# -- claims --------------------------------------------------------------------------------------
# -- claims: metrics of claim_tables/tail_drop.toml ------------------------------------------

METRICS = Metrics(STUDY)
METRICS(ch.stats)
METRICS(ch.over_1s)


def _cdf(x: Inputs) -> pd.DataFrame:
    return mean_cdf(x.data)


def _loads(x: Inputs) -> list[int]:
    """The profile's loads in percent (run or not: missing runs read "no data")."""
    return sorted(int(round(v * 100)) for v in x.p.loads)


@METRICS.values
def _templates(x: Inputs) -> dict[str, str]:
    """``deviation``: how the profile departs from the thesis' protocol; ``falling`` /
    ``rising``: the profile's tail-drop arms by queue limit, as an ordering."""
    falling = " > ".join(f"td-q{q}" for q in sorted(x.p.qlens))
    return {"deviation": ch.deviation(x.p), "falling": falling,
            "rising": falling.replace(">", "<")}


@METRICS.each
def high_loads(x: Inputs) -> list[dict[str, int]]:
    """The profile's loads of 90, 98 and 110 %."""
    return [{"load": v} for v in _loads(x) if v in (90, 98, 110)]


@METRICS.each
def table_b4_cells(x: Inputs) -> list[dict[str, Any]]:
    """The profile's (load, queue limit) cells that Table B.4 has, with its values."""
    ref = ch.TAILDROP_TABLE.set_index(["load_pct", "qlen"])
    out = []
    for load in _loads(x):
        for q in sorted(x.p.qlens):
            if (load, q) in ref.index:
                r = ref.loc[(load, q)]
                out.append({"load": load, "qlen": q, "median_ms": float(r.median_ms),
                            "drop_pct": float(r.drop_pct), "i1": float(r.i1)})
    return out


@METRICS
def cdf_gap(x: Inputs, load: int, a: str, b: str, tmax: float = 3000) -> float:
    """Largest |F_a - F_b| up to ``tmax`` ms."""
    c = x.cached(_cdf)
    ca, cb = curve(c, load, a), curve(c, load, b)
    if ca is None or cb is None:
        return math.nan
    sel = ca[0] <= tmax
    return float(np.abs(ca[1][sel] - cb[1][sel]).max())


@METRICS
def by_qlen(x: Inputs, load: int, col: str) -> dict[str, float]:
    """``col`` at ``load`` of every tail-drop arm of the profile, by queue limit."""
    return {f"td-q{q}": ch.stat(x.data, load, f"td-q{q}", col) for q in sorted(x.p.qlens)}


@METRICS
def median_ratio(x: Inputs, arm: str, load: int, per_load: int) -> float:
    return ch.stat(x.data, load, arm, "median_ms") / ch.stat(x.data, per_load, arm, "median_ms")


@METRICS
def uncongested_within_500ms(x: Inputs) -> Measured:
    """98 %: the uncongested network's CDF at 500 ms (its median in the note)."""
    b98 = ch.stat(x.data, 98, ch.BASELINE, "median_ms") if 98 in _loads(x) else math.nan
    cv = curve(x.cached(_cdf), 98, ch.BASELINE)
    value = math.nan if cv is None else float(np.interp(500, cv[0], cv[1]))
    return Measured(value, values={"median": f"median {b98:.0f} ms"
                                   if not math.isnan(b98) else ""})


@METRICS
def best_qlen(x: Inputs) -> Measured:
    """Whether 120 packets give the most responses within 1 s at 90 and 98 %."""
    best = {}
    for load in (90, 98):
        i1 = {q: ch.stat(x.data, load, f"td-q{q}", "i1") for q in sorted(x.p.qlens)}
        if i1 and not any(math.isnan(v) for v in i1.values()) and 120 in i1:
            best[load] = max(i1, key=i1.get)
    return Measured(all(v == 120 for v in best.values()) if len(best) == 2 else None,
                    values={"best": ", ".join(f"{k} %: qlen {v}" for k, v in best.items())})


@METRICS
def b4_cell(x: Inputs, load: int, qlen: int, col: str) -> float:
    return ch.stat(x.data, load, f"td-q{qlen}", col)


def _weigle(x: Inputs) -> tuple[Any, Any]:
    """Weigle's DT-111 and DT-148 CDFs at 80 % (None when not run)."""
    wc = x.data.get("weigle_cdf", pd.DataFrame())
    if len(wc):
        wc = wc.groupby(["load_pct", "name", "response_time_ms"])[["cdf"]].mean().reset_index()
    return curve(wc, 80, "reno-dt111"), curve(wc, 80, "reno-dt148")


def _weigle_crossing(x: Inputs) -> tuple[list, tuple[float, float]]:
    w111, w148 = x.cached(_weigle)
    xs = crossings(w111[0], w111[1], w148[1], 100, 1500) if w111 and w148 else []
    return xs, (max(xs, key=lambda c: c[1]) if xs else (math.nan, math.nan))


@METRICS
def weigle_crossing(x: Inputs, part: int) -> Measured:
    """Weigle 80 %: the DT-111/DT-148 crossing at the highest CDF in 100-1500 ms: its
    time (``part`` 0) or CDF level (1)."""
    xs, main = _weigle_crossing(x)
    return Measured(main[part], values={"crossings": len(xs)})


@METRICS
def weigle_gap(x: Inputs) -> float:
    w111, w148 = x.cached(_weigle)
    return (float(np.abs(w111[1] - w148[1])[w111[0] <= 1500].max()) if w111 and w148
            else math.nan)


@METRICS
def weigle_dt111_faster(x: Inputs) -> float:
    w111, w148 = x.cached(_weigle)
    return share_faster(w111[0], w111[1], w148[1], q_hi=0.8) if w111 and w148 else math.nan


CLAIMS = METRICS.table()


def claims(data: dict, p: TailDropParams) -> ClaimTable:
    """The papers' claims (``claim_tables/tail_drop.toml``) measured on ``data``."""
    return CLAIMS.evaluate(data, p)


__all__ = ["STUDY", "TITLE", "TailDropParams", "PROFILES", "profile", "arms", "run",
           "claims", "FIGURES", "METRICS", "CLAIMS", "table_b4", "quantile_at"]
