"""RED parameter search for Web traffic: Christiansen's thesis ch. 5.2-5.4 and ch. 6 (seed 001).

RED at the 10 Mb/s bottleneck of the thesis' lab network (ALTQ: no gentle, no wait), with
Mah browsing users: thresholds (max_th = 3 min_th) across loads; max_th and min_th alone;
w_q x max_p; the queue limit; the "good" and "bad" settings of Tables 5.2-5.3; the best RED
against the best tail-drop (Fig. 5.12); ch. 6: responses with retransmissions vs without
and the smoothing of the arrival process by the bottleneck. The set-up:
:mod:`aqmlab.studies.setups.christiansen`.

A setting (min_th, max_th, 1/w_q, 1/max_p, limit) is the arm
``red-<min_th>-<max_th>-w<1/w_q>-p<1/max_p>-q<limit>``, tagged with those five values
(:data:`SETTING`); tail-drop runs (``td-q<limit>``) and the uncongested baseline are shared
with the tail-drop study. Claims: ``claim_tables/red_search.toml``, measured by the metrics
below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from aqmlab.studies import plots
from aqmlab.studies.arms import Arm, arms_frame, tag
from aqmlab.studies.claims import ClaimTable, Inputs, Metrics
from aqmlab.studies.common import Context, curve, merge_tables, share_faster
from aqmlab.studies.params import Profiles
from aqmlab.studies.setups import christiansen as ch
from aqmlab.studies.setups.christiansen import MAH_USER_KBPS, ChristiansenParams

STUDY = "red_search"
TITLE = "RED parameter search for Web traffic (Christiansen)"
HIGH = [0.9, 0.98, 1.1]
#: Tables 5.2/B.11 ("good") and 5.3/B.13 ("bad"): (min, max, 1/w_q, 1/max_p, qlen).
GOOD = {"best 90 %": (30, 90, 512, 10, 120), "highest util. 90 %": (30, 90, 512, 20, 480),
        "lowest drops 90 %": (120, 360, 512, 10, 480), "best 98 %": (5, 90, 128, 20, 480),
        "highest util. 98 %": (30, 180, 512, 10, 480),
        "lowest drops 98 %": (90, 150, 512, 10, 480), "best 110 %": (5, 15, 512, 20, 60)}
BAD = {"small buffer 90 %": (5, 15, 512, 10, 480), "high max_p 90 %": (5, 120, 256, 4, 480),
       "large queue 90 %": (120, 150, 512, 10, 480), "ALTQ default": (5, 15, 512, 20, 60),
       "small buffer 98 %": (5, 45, 512, 10, 480), "high max_p 98 %": (5, 90, 512, 4, 480),
       "large buffer 98 %": (120, 360, 512, 10, 480)}
SERIES = ("thresholds", "all")


@dataclass(frozen=True, kw_only=True)
class RedSearchParams(ChristiansenParams):
    """Christiansen's network (:class:`ChristiansenParams`) with RED ``thresholds``
    ((min_th, max_th) pairs, 1/w_q 512, 1/max_p 10, limit 480) at every load; ``series``
    "all" adds the search of ch. 5.2-5.4 at 90/98/110 % and tail-drop 190."""

    study: ClassVar[str] = STUDY
    thresholds: tuple[tuple[float, float], ...]
    series: str

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.series not in SERIES:
            raise ValueError(f"{STUDY}/{self.profile}: series = {self.series!r} is invalid: "
                             f"one of {', '.join(SERIES)}")


PROFILES = Profiles(
    tiny=RedSearchParams(profile="tiny", seeds=(1,), loads=(0.98,),
                         thresholds=((5, 15), (60, 180)), duration=40.0, warmup=20.0,
                         users_scale=0.1, start_spread=1.0, think_cap="60s", user_kbps=13.6,
                         series="thresholds"),
    quick=RedSearchParams(profile="quick", seeds=(1,), loads=(0.98,),
                          thresholds=((5, 15), (30, 90), (60, 180)), duration=160.0,
                          warmup=50.0, users_scale=1.0, start_spread=1.0, think_cap="60s",
                          user_kbps=13.6, series="thresholds"),
    full=RedSearchParams(profile="full", seeds=(1, 2, 3), loads=(0.5, 0.7, 0.8, 0.9, 0.98, 1.1),
                         thresholds=((5, 15), (15, 45), (30, 90), (60, 180), (120, 360)),
                         duration=5400.0, warmup=1200.0, users_scale=1.0, start_spread=1.0,
                         think_cap=None, user_kbps=MAH_USER_KBPS, series="all"),
)


def profile(name: str = "quick", **overrides: Any) -> RedSearchParams:
    return PROFILES.get(name, **overrides)


def label(s: tuple) -> str:
    """The arm label of RED setting ``s`` = (min_th, max_th, 1/w_q, 1/max_p, limit)."""
    lo, hi, w, pm, q = s
    return f"red-{lo:g}-{hi:g}-w{w}-p{pm}-q{q}"


#: The tags of a RED setting's arm, which become the stats and CDF frames' columns.
SETTING = ("min_th", "max_th", "inv_wq", "inv_maxp", "qlen")


def settings(p: RedSearchParams) -> dict[str, set[tuple]]:
    """RED settings per load set: "all" (p.loads) and "high" (90/98/110 % of p.loads)."""
    out: dict[str, set[tuple]] = {"all": {(lo, hi, 512, 10, 480) for lo, hi in p.thresholds},
                                  "high": set()}
    if p.series == "all":
        h = out["high"]
        h |= {(lo, mx, 512, 10, 480) for lo in (5, 60) for mx in (45, 90, 120, 150, 180, 240)
              if mx > lo}
        h |= {(30, mx, 512, 10, 480) for mx in (45, 60, 180)}
        h |= {(lo, 150, 512, 10, 480) for lo in (5, 30, 60, 90, 120)}
        h |= {(lo, 90, 512, 10, 480) for lo in (5, 15, 30, 60)}
        h |= {(30, 90, w, pm, 480) for w in (512, 256, 128) for pm in (20, 10, 4)}
        h |= {(30, 90, 512, 10, q) for q in (480, 160, 120)}
        h |= set(GOOD.values()) | set(BAD.values())
        h -= out["all"] if set(HIGH) <= set(p.loads) else set()
    return out


def arm(s: tuple, scale: float) -> Arm:
    """The arm of RED setting ``s`` (thresholds and limit scaled by ``scale``)."""
    lo, hi, w, pm, q = s
    return Arm(label(s), ch.red(lo, hi, q, 1 / w, 1 / pm, scale),
               tags={"queue": "red", **dict(zip(SETTING, (float(lo), float(hi), int(w),
                                                          int(pm), int(q)), strict=True))})


def _setting(tags: dict[str, Any]) -> dict[str, Any]:
    """The SETTING values of a RED arm's tags ({} for other arms)."""
    return {k: tags[k] for k in SETTING} if tags.get("queue") == "red" else {}


def run(p: RedSearchParams, ctx: Context) -> dict[str, pd.DataFrame]:
    scale = p.users_scale
    b, users, uzip = ch.setup(p)
    sets = settings(p)
    parts = []
    loads_hi = [x for x in p.loads if any(abs(x - h) < 1e-9 for h in HIGH)]
    td = [ch.taildrop_arm(120, scale), ch.uncongested_arm()]
    if p.series == "all":
        td.append(ch.taildrop_arm(190, scale))
    arms_all = [*(arm(s, scale) for s in sorted(sets["all"])), *td]
    swept = list(arms_all)
    parts.append(ch.collect_runs(ctx.sweep(b, name="christiansen-red", arms=arms_all,
                                           zip=uzip, seeds=p.seeds),
                                 users, classes=True, series="thresholds"))
    if sets["high"] and loads_hi:
        arms_hi = [arm(s, scale) for s in sorted(sets["high"])]
        swept += arms_hi
        parts.append(ch.collect_runs(ctx.sweep(b, name="christiansen-red-search", arms=arms_hi,
                                               zip=ch.users_zip(loads_hi, scale, p.user_kbps),
                                               seeds=p.seeds), users, series="search"))
    data = merge_tables(*parts)
    tags = {a.label: a.tags for a in swept}
    for k in ("stats", "cdf"):
        if k in data and len(data[k]):
            extra = pd.DataFrame([_setting(tags[n]) for n in data[k].name],
                                 index=data[k].index, columns=list(SETTING))
            data[k] = pd.concat([data[k], extra], axis=1)
    data["arms"] = arms_frame(swept)
    return data


# -- helpers -------------------------------------------------------------------------------------


def mean_cdf(data: dict, key: str = "cdf", by: tuple = ("load_pct", "name")) -> pd.DataFrame:
    c = data.get(key, pd.DataFrame())
    if not len(c):
        return c
    cols = [*by, "response_time_ms"]
    return c.groupby(cols, sort=False)[["cdf"]].mean().reset_index().assign(
        ccdf=lambda d: 1 - d.cdf)


def th(lo: float, hi: float) -> str:
    return label((lo, hi, 512, 10, 480))


# -- figures -------------------------------------------------------------------------------------


def _cdfs(data: dict, out: Path, name: str, names: list[str], title: str,
          labels: dict[str, str] | None = None, xmax: float = 3000) -> Any:
    c = mean_cdf(data)
    if not len(c):
        return plots.empty_figure(out, name, "no runs")
    c = c[c.name.isin([*names, ch.BASELINE])]
    if not len(c[c.name != ch.BASELINE]):
        return plots.empty_figure(out, name, "these settings are not in this profile")
    if labels:
        c = c.assign(name=c.name.map(lambda n: labels.get(n, n)))
        names = [labels.get(n, n) for n in names]
    c = c.assign(load=c.load_pct.astype(str) + " %")
    order = [n for n in names if n in set(c.name)]
    return plots.response_cdf(c, out, name, panel="load", xmax_ms=xmax, order=order,
                              title=title)


def fig_thresholds(data: dict, out: Path) -> Any:
    names = [th(lo, 3 * lo) for lo in (5, 15, 30, 60, 120)] + ["td-q120"]
    labels = {th(lo, 3 * lo): f"RED ({lo}, {3 * lo})" for lo in (5, 15, 30, 60, 120)}
    return _cdfs(data, out, "cdf_thresholds", names, "Thresholds, max_th = 3 min_th "
                 "(Fig. 5.7)", labels)


def fig_stats(data: dict, out: Path) -> Any:
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return plots.empty_figure(out, "stats_vs_table_b6", "no runs")
    s = s[(s.series == "thresholds") & (tag(data, s.name, "queue") == "red")].copy()
    if not len(s):
        return plots.empty_figure(out, "stats_vs_table_b6", "no RED threshold runs")
    s["thresholds"] = "(" + s.min_th.map("{:g}".format) + ", " + s.max_th.map("{:g}".format) + ")"
    ref = ch.RED_TABLE.assign(thresholds=lambda d: "(" + d.min_th.astype(str) + ", "
                              + d.max_th.astype(str) + ")",
                              load=lambda d: d.load_pct.astype(str) + " %")
    s = s.rename(columns={"loss_pct": "drop_pct", "avg_qlen_pkts": "mean_qlen"})
    s = s.sort_values("load_pct")
    s["load"] = s.load_pct.astype(str) + " %"
    order = list(dict.fromkeys(s.sort_values("min_th").thresholds))
    paper = {m: ref[["thresholds", "load", m]].rename(columns={m: "paper"})
             for m in ("drop_pct", "mean_qlen", "median_ms", "i1")}
    return plots.bars(s, out, "stats_vs_table_b6", x="thresholds", hue="load", order=order,
                      hue_order=list(dict.fromkeys(s.load)),
                      metrics=["drop_pct", "mean_qlen", "median_ms", "i1"], paper=paper,
                      title="RED thresholds: per-run statistics (black ticks: Table B.6)")


def fig_wq_maxp(data: dict, out: Path) -> Any:
    s = data.get("stats", pd.DataFrame())
    s = s[(s.get("min_th") == 30) & (s.get("max_th") == 90) & (s.get("qlen") == 480)] \
        if len(s) and "min_th" in s else pd.DataFrame()
    if not len(s) or s.inv_wq.nunique() < 2:
        return plots.empty_figure(out, "heatmap_wq_maxp", "w_q x max_p grid not in this profile")
    s = s.assign(w_q="1/" + s.inv_wq.astype(str), max_p="1/" + s.inv_maxp.astype(str))
    return plots.heatmap(s, out, "heatmap_wq_maxp", x="max_p", y="w_q", value="i1",
                         panel="load_pct", fmt=".1f", cmap="viridis",
                         title="% of responses within 1 s, RED (30, 90) (Fig. 5.9, Table B.9)")


def fig_thresholds_grid(data: dict, out: Path) -> Any:
    s = data.get("stats", pd.DataFrame())
    s = s[(s.get("inv_wq") == 512) & (s.get("inv_maxp") == 10) & (s.get("qlen") == 480)] \
        if len(s) and "min_th" in s else pd.DataFrame()
    if not len(s) or s.max_th.nunique() < 3:
        return plots.empty_figure(out, "heatmap_min_max_th", "no threshold grid")
    return plots.heatmap(s, out, "heatmap_min_max_th", x="max_th", y="min_th",
                         value="median_ms", panel="load_pct", fmt=".0f",
                         title="Median response time (ms) over min_th x max_th "
                         "(Tables B.6-B.8)")


def fig_qlen(data: dict, out: Path) -> Any:
    labels = {label((30, 90, 512, 10, q)): f"qlen {q}" for q in (480, 160, 120)}
    return _cdfs(data, out, "cdf_queue_limit", list(labels), "RED (30, 90): queue limit "
                 "(Table 5.1, Fig. B.11)", labels)


def fig_good_bad(data: dict, out: Path) -> Any:
    labels = {label(v): k for k, v in {**GOOD, **BAD}.items()}
    return _cdfs(data, out, "cdf_good_bad", list(labels), "Good and bad settings "
                 "(Figs. 5.10-5.11)", labels)


def fig_red_vs_td(data: dict, out: Path) -> Any:
    labels = {label((30, 90, 512, 10, 120)): "best RED overall (30, 90, q120)",
              label((5, 90, 128, 20, 480)): "best RED 98 %", "td-q120": "tail-drop 120",
              "td-q190": "tail-drop 190", th(30, 90): "RED (30, 90, q480)"}
    return _cdfs(data, out, "cdf_red_vs_taildrop", list(labels), "Best RED vs best tail-drop "
                 "(Fig. 5.12)", labels)


def fig_classes(data: dict, out: Path) -> Any:
    c = data.get("classes", pd.DataFrame())
    if not len(c):
        return plots.empty_figure(out, "cdf_retransmission_classes", "no runs")
    top = c.load_pct.max()
    c = c[(c.load_pct == top) & (tag(data, c.name, "queue") == "red")]
    c = (c.groupby(["name", "class", "response_time_ms"])[["cdf"]].mean().reset_index()
         .assign(ccdf=lambda d: 1 - d.cdf))
    c["curve"] = c["class"]
    return plots.response_cdf(c, out, "cdf_retransmission_classes", hue="curve", panel="name",
                              xmax_ms=6000, title=f"{top} %: with vs without retransmissions "
                              "(Fig. 6.2)")


def fig_retx(data: dict, out: Path) -> Any:
    r = data.get("retx", pd.DataFrame())
    if not len(r):
        return plots.empty_figure(out, "retransmission_share", "no runs")
    return plots.bars(r[r.name != ch.BASELINE], out, "retransmission_share", x="name",
                      hue="load_pct", metrics=["retx_pct", "timeout_pct"],
                      title="Requests with retransmissions / timeouts (Table 6.2)")


def fig_burst(data: dict, out: Path) -> Any:
    b = data.get("burst", pd.DataFrame())
    if not len(b):
        return plots.empty_figure(out, "burstiness", "no runs")
    b = b.assign(network=np.where(b.name == ch.BASELINE, "unconstrained", "10 Mb/s"),
                 scale=b.bin_s.map(lambda x: f"{x:g} s bins"))
    return plots.bars(b, out, "burstiness", x="network", hue="scale", metrics=["cov"],
                      title="Variability of reply throughput (fluid proxy of Figs. 6.5-6.7)")


FIGURES = [fig_thresholds, fig_stats, fig_wq_maxp, fig_thresholds_grid, fig_qlen,
           fig_good_bad, fig_red_vs_td, fig_classes, fig_retx, fig_burst]


# -- claims --------------------------------------------------------------------------------------
# -- claims: metrics of claim_tables/red_search.toml -----------------------------------------

METRICS = Metrics(STUDY)
METRICS(ch.stats)
METRICS(ch.over_1s)


def _cdf(x: Inputs) -> pd.DataFrame:
    return mean_cdf(x.data)


@METRICS.values
def _templates(x: Inputs) -> dict[str, str]:
    """``deviation``: how the profile departs from the thesis' protocol (or "")."""
    return {"deviation": ch.deviation(x.p)}


@METRICS.each
def table_b6_cells(x: Inputs) -> list[dict[str, Any]]:
    """The profile's (load, min_th, max_th) cells that Table B.6 has, with its values."""
    ref = ch.RED_TABLE.set_index(["load_pct", "min_th", "max_th"])
    cells = {(int(round(v * 100)), int(lo), int(hi)) for v in x.p.loads for lo, hi in x.p.thresholds}
    out = []
    for key in sorted(cells):  # the profile's (run or not: missing runs read "no data")
        if key in ref.index:
            row = ref.loc[key]
            load, lo, hi = key
            out.append({"load": load, "lo": lo, "hi": hi, "median_ms": float(row.median_ms),
                        "drop_pct": float(row.drop_pct)})
    return out


@METRICS
def faster_share(x: Inputs, load: int, a: str, b: str, q_hi: float = 1.0) -> float:
    """Share of quantile levels (below ``q_hi``) at which ``a`` is faster than ``b``."""
    c = x.cached(_cdf)
    ca, cb = curve(c, load, a), curve(c, load, b)
    if ca is None or cb is None:
        return math.nan
    return share_faster(ca[0], ca[1], cb[1], 0.0, q_hi)


@METRICS
def median_spread(x: Inputs, load: int, arms: list[str], need: int) -> float:
    """(max - min) / min of the arms' medians at ``load``, from at least ``need`` of them."""
    meds = [ch.stat(x.data, load, n, "median_ms") for n in arms]
    meds = [m for m in meds if not math.isnan(m)]
    return (max(meds) - min(meds)) / min(meds) if len(meds) >= need else math.nan


@METRICS
def qlen_median_spread(x: Inputs) -> float:
    """90 %, RED (30, 90): (max - min) / min of the medians at limits 480, 160, 120."""
    q = {n: ch.stat(x.data, 90, label((30, 90, 512, 10, n)), "median_ms") for n in (480, 160, 120)}
    vals = [v for v in q.values() if not math.isnan(v)]
    return (max(vals) - min(vals)) / min(vals) if len(vals) == 3 else math.nan


@METRICS
def max_drops(x: Inputs, load: int, arms: list[str]) -> float:
    return max((ch.stat(x.data, load, n, "loss_pct") for n in arms), default=math.nan)


@METRICS
def median_vs(x: Inputs, load: int, a: str, b: str) -> float:
    """|median a / median b - 1|."""
    return abs(ch.stat(x.data, load, a, "median_ms") / ch.stat(x.data, load, b, "median_ms") - 1)


@METRICS
def named_stats(x: Inputs, load: int, col: str, arms: dict[str, str]) -> dict[str, float]:
    """``col`` at ``load`` of several arms, as {name: value}."""
    return {k: ch.stat(x.data, load, a, col) for k, a in arms.items()}


def _rx(x: Inputs, name: str, col: str) -> float:
    r = x.data.get("retx", pd.DataFrame())
    d = r[(r.load_pct == 98) & (r.name == name)] if len(r) else r
    return float(d[col].mean()) if len(d) else math.nan


@METRICS
def retransmitted(x: Inputs, arms: list[str]) -> dict[str, float]:
    """98 %: % of requests with a retransmission, per arm."""
    return {n: _rx(x, n, "retx_pct") for n in arms}


@METRICS
def retransmitted_ratio(x: Inputs, a: str, b: str) -> float:
    return _rx(x, a, "retx_pct") / _rx(x, b, "retx_pct")


@METRICS
def retransmission_delay(x: Inputs, arm: str) -> float:
    """98 %: median (retransmitted) - median (none), ms."""
    return _rx(x, arm, "median_retx_ms") - _rx(x, arm, "median_nr_ms")


@METRICS
def burstiness(x: Inputs) -> dict[str, float]:
    """CoV of the 1-s reply throughput at the top load, unconstrained vs constrained."""
    b = x.data.get("burst", pd.DataFrame())
    if len(b):
        top = b.load_pct.max()
        bb = b[(b.load_pct == top) & (b.bin_s == 1.0)]
        cons = float(bb[bb.name != ch.BASELINE]["cov"].mean())
        unc = float(bb[bb.name == ch.BASELINE]["cov"].mean())
    else:
        cons = unc = math.nan
    return {"unconstrained": unc, "constrained": cons}


@METRICS
def b6_cell(x: Inputs, load: int, lo: int, hi: int, col: str) -> float:
    return ch.stat(x.data, load, th(lo, hi), col)


CLAIMS = METRICS.table()


def claims(data: dict, p: RedSearchParams) -> ClaimTable:
    """The thesis' claims (``claim_tables/red_search.toml``) measured on ``data``."""
    return CLAIMS.evaluate(data, p)


__all__ = ["STUDY", "TITLE", "RedSearchParams", "PROFILES", "profile", "label", "settings",
           "arm", "run", "FIGURES", "METRICS", "CLAIMS", "claims", "GOOD", "BAD", "SETTING"]
