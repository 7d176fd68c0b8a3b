"""Beyond the papers: do their conclusions survive CUBIC/BBR and CoDel/FQ-CoDel/PIE?

The same networks as the studies, with today's defaults swapped in one field at a time:

* Web (Weigle et al.'s two-way PackMime dumbbell, drop-tail 148 packets or an AQM): Reno
  vs CUBIC vs BBR, drop-tail vs ARED+ECN vs CoDel, FQ-CoDel and PIE;
* bulk transfers (Pentikousis et al., 5 clients, QL 64): does ECN still cut drops and the
  spread of download times with CUBIC over CoDel / FQ-CoDel?
* RTT bias (Qiu et al. §7, 8 flows with different RTTs): is an AQM still fairer than
  drop-tail with CUBIC and BBR?
* many flows (Qiu et al., T1, W_c = 300): does the synchronised-loss law still hold for
  CUBIC (multiplicative decrease 0.7, not 0.5)?

Each claim states the paper's conclusion, the paper's value, what the modern combination
gives, and whether the conclusion still holds ("reproduced" = still holds). The set-ups:
:mod:`aqmlab.studies.setups` (weigle, pentikousis, qiu). Claims:
``claim_tables/beyond.toml``, measured by the metrics below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from aqmlab.studies import plots
from aqmlab.studies.arms import Arm, arms_frame
from aqmlab.studies.claims import ClaimTable, Inputs, Metrics
from aqmlab.studies.common import Context, collect, share_faster
from aqmlab.studies.params import Params, Profiles
from aqmlab.studies.setups import pentikousis, qiu, weigle

STUDY = "beyond"
TITLE = "Beyond the papers: CUBIC, BBR, CoDel, FQ-CoDel and PIE"
BULK_ARMS = {  # label -> (tcp variant, queue dict at QL 64, ecn)
    "reno-dt": ("reno", {"kind": "droptail", "limit": "64p"}, False),
    "reno-red-ecn": ("reno", pentikousis.queue("aggr-ecn", 64), True),
    "cubic-dt": ("cubic", {"kind": "droptail", "limit": "64p"}, False),
    "cubic-red": ("cubic", pentikousis.queue("aggr-red", 64), False),
    "cubic-red-ecn": ("cubic", pentikousis.queue("aggr-ecn", 64), True),
    "cubic-codel": ("cubic", {"kind": "codel", "limit": "64p", "ecn": False}, False),
    "cubic-codel-ecn": ("cubic", {"kind": "codel", "limit": "64p", "ecn": True}, True),
    "cubic-fq_codel-ecn": ("cubic", {"kind": "fq_codel", "limit": "64p", "ecn": True}, True),
    "bbr-dt": ("bbr", {"kind": "droptail", "limit": "64p"}, False),
}
#: Pentikousis' download size and Qiu's run lengths: those of the ecn_bulk and many_flows
#: quick profiles, whatever this study's profile.
BULK_SIZE = "20MiB"
QIU_DURATION, QIU_WARMUP, RTT_DURATION, RTT_RUNS = 60.0, 15.0, 200.0, 3
RTT_QUEUES = {"dt": {}, "red": {"topology.forward_queue": qiu.red_config("red1", 160)},
              "fq_codel": {"topology.forward_queue": {"kind": "fq_codel", "limit": "160p"}}}
RTT_TCPS = ("reno", "cubic", "bbr")
MANY_TCPS = ("reno", "cubic", "bbr")


@dataclass(frozen=True, kw_only=True)
class BeyondParams(Params):
    """Web: ``web_arms`` (``<tcp>-<queue>``, :mod:`~aqmlab.studies.setups.weigle`) at
    ``web_load`` for ``web_duration``/``web_warmup`` s (or ``web_stop_after`` responses);
    ``bulk``, ``rtt``, ``many``: the bulk, RTT-bias and many-flows comparisons."""

    study: ClassVar[str] = STUDY
    web_load: float
    web_arms: tuple[str, ...]
    web_duration: float
    web_warmup: float
    web_stop_after: int | None
    bulk: bool
    rtt: bool
    many: bool

    def __post_init__(self) -> None:
        super().__post_init__()
        for a in self.web_arms:
            weigle.weigle_arm(a)  # an unknown arm fails here, listing the known ones


PROFILES = Profiles(
    tiny=BeyondParams(profile="tiny", seeds=(1,), web_load=0.8,
                      web_arms=("reno-dt148", "cubic-fq_codel"), web_duration=20.0,
                      web_warmup=5.0, web_stop_after=None, bulk=False, rtt=False, many=False),
    quick=BeyondParams(profile="quick", seeds=(1,), web_load=0.8,
                       web_arms=("reno-dt148", "reno-aredecn5", "cubic-dt148", "bbr-dt148",
                                 "cubic-fq_codel", "cubic-pie"),
                       web_duration=45.0, web_warmup=10.0, web_stop_after=None, bulk=True,
                       rtt=True, many=True),
    # full: 10 measured minutes, not Weigle's 250,000 responses (~40 min): the comparison is
    # between arms of this study, and overloaded AQM runs at 3,000 s cost up to 0.9 CPU-h
    # each (notebooks/README.md, cost); web_stop_after (the paper's length) ends a run only if
    # it comes first
    full=BeyondParams(profile="full", seeds=(1, 2, 3), web_load=1.05,
                      web_arms=("reno-dt148", "reno-aredecn5", "cubic-dt148", "bbr-dt148",
                                "cubic-codel", "cubic-fq_codel", "cubic-pie", "bbr-fq_codel",
                                "cubic-ecn-codel", "cubic-ecn-fq_codel"),
                      web_duration=720.0, web_warmup=120.0, web_stop_after=500000, bulk=True,
                      rtt=True, many=True),
)


def profile(name: str = "quick", **overrides: Any) -> BeyondParams:
    return PROFILES.get(name, **overrides)


# -- arms --------------------------------------------------------------------------------------


def bulk_arms() -> list[Arm]:
    """Pentikousis' 5 clients at QL 64 with modern TCP and AQMs (``modern-<arm>``)."""
    return [Arm(f"modern-{k}", {"tcp.variant": v, "topology.forward_queue": q, "tcp.ecn": e},
                tags={"arm": k, "tcp": v, "queue": q["kind"], "ecn": e})
            for k, (v, q, e) in BULK_ARMS.items()]


def rtt_arms(runs: list[Arm]) -> list[Arm]:
    """Qiu's 8-flow RTT runs with every TCP x queue pair but Reno/FQ-CoDel and BBR/RED
    (``<run>[-<tcp>]-<queue>``; Reno's keep the many_flows study's labels)."""
    out = []
    for a in runs:
        for tcp in RTT_TCPS:
            for q, qa in RTT_QUEUES.items():
                if (tcp, q) in (("reno", "fq_codel"), ("bbr", "red")):
                    continue
                label = a.label if tcp == "reno" else f"{a.label}-{tcp}"
                out.append(Arm(f"{label}-{q}", {**a.changes, **qa, "tcp.variant": tcp},
                               tags={**a.tags, "tcp": tcp, "queue": q}))
    return out


def many_arms() -> list[Arm]:
    """Qiu's T1 at W_c = 300 with each TCP of :data:`MANY_TCPS` (``<tcp>-wc300``)."""
    return [Arm(f"{tcp}-wc300", {"topology.forward_queue.limit": "260p", "tcp.variant": tcp},
                tags={"tcp": tcp, "wc": 300}) for tcp in MANY_TCPS]


def run(p: BeyondParams, ctx: Context) -> dict[str, pd.DataFrame]:
    out: dict[str, pd.DataFrame] = {}
    swept: list[Arm] = []
    w = weigle.weigle_base(p.web_duration, p.web_warmup, p.web_stop_after)
    arms = [weigle.weigle_arm(a) for a in [*p.web_arms, weigle.BASELINE]]
    swept += arms
    web = weigle.collect_web(ctx.sweep(w, name="weigle", arms=arms,
                                       zip=weigle.loads_zip([p.web_load]), seeds=p.seeds),
                             "two-way")
    out.update({f"web_{k}": v for k, v in web.items()})
    if p.bulk:
        barms = bulk_arms()
        swept += barms
        fl = collect(ctx.sweep(pentikousis.base(BULK_SIZE), name="pentikousis-modern",
                               arms=barms, seeds=p.seeds), pentikousis.flow_rows)
        if len(fl):
            fl.insert(0, "series", "modern")
            runs = pentikousis.run_stats(fl, ["series", "name", "seed"])
            tags = {a.label: a.tags for a in barms}
            runs["arm"] = runs.name.map(lambda n: tags[n]["arm"])
            out["bulk"] = runs
    if p.rtt:
        sc, runs8 = qiu.rtt_scenario(qiu.base(QIU_DURATION, QIU_WARMUP), RTT_DURATION, None,
                                     RTT_RUNS)
        rarms = rtt_arms(runs8)
        swept += rarms
        fl = collect(ctx.sweep(sc, name="qiu-rtt8", arms=rarms, seeds=p.seeds[:1]),
                     qiu.flow_rows)
        if len(fl):
            tags = {a.label: a.tags for a in rarms}  # (dtypes as these columns always had)
            fl["queue"] = fl.name.map(lambda n: tags[n]["queue"]).astype(object)
            fl["tcp"] = fl.name.map(lambda n: tags[n]["tcp"])
            out["rtt_flows"] = fl
    if p.many:
        marms = many_arms()
        swept += marms
        rows = collect(ctx.sweep(qiu.base(QIU_DURATION, QIU_WARMUP), name="qiu-modern",
                                 arms=marms, zip=qiu.conns_zip([20, 40, 80, 150]),
                                 seeds=p.seeds), qiu.run_row)
        if len(rows):
            tags = {a.label: a.tags for a in marms}
            rows["tcp"] = rows.name.map(lambda n: tags[n]["tcp"]).astype(object)
            out["many"] = rows
    out["arms"] = arms_frame(swept)
    return out


# -- figures -------------------------------------------------------------------------------------


def _web_cdf(data: dict) -> pd.DataFrame:
    c = data.get("web_cdf", pd.DataFrame())
    if not len(c):
        return c
    return (c.groupby(["load_pct", "name", "response_time_ms"], sort=False)[["cdf", "ccdf"]]
            .mean().reset_index())


def fig_web(data: dict, out: Path) -> Any:
    c = _web_cdf(data)
    if not len(c):
        return plots.empty_figure(out, "web_cdf", "no web runs")
    c = c.assign(load=c.load_pct.astype(str) + " %")
    return plots.response_cdf(c, out, "web_cdf", panel="load",
                              title="Web response times, modern TCP and AQM")


def fig_web_ccdf(data: dict, out: Path) -> Any:
    c = _web_cdf(data)
    if not len(c):
        return plots.empty_figure(out, "web_ccdf", "no web runs")
    return plots.response_cdf(c.assign(load=c.load_pct.astype(str) + " %"), out, "web_ccdf",
                              panel="load", ccdf=True, title="Response-time CCDF")


def fig_web_bars(data: dict, out: Path) -> Any:
    s = data.get("web_stats", pd.DataFrame())
    if not len(s):
        return plots.empty_figure(out, "web_summary", "no web runs")
    s = s[s.name != weigle.BASELINE]
    return plots.bars(s, out, "web_summary", x="name", metrics=["utilisation", "loss_pct",
                      "avg_qlen_pkts", "median_ms"], title="Web: utilisation, loss, queue, "
                      "median response time")


def fig_bulk(data: dict, out: Path) -> Any:
    b = data.get("bulk", pd.DataFrame())
    return plots.bars(b, out, "bulk_ecn_modern", x="arm", metrics=["drops", "spread_pct",
                      "efficiency_pct"], title="5 x 20 MiB downloads, QL 64: drops, spread, "
                      "efficiency")


def fairness(data: dict) -> pd.DataFrame:
    f = data.get("rtt_flows", pd.DataFrame())
    rows = []
    for name, g in f.groupby("name", sort=False) if len(f) else []:
        x = (g.goodput_mbps * g.rtt_s).to_numpy()
        rows.append({"name": name, "tcp": g.tcp.iloc[0], "queue": g["queue"].iloc[0],
                     "fairness_ratio": float(x.sum() ** 2 / (len(x) * (x**2).sum()))})
    return pd.DataFrame(rows)


def fig_rtt(data: dict, out: Path) -> Any:
    fr = fairness(data)
    return plots.boxes(fr, out, "rtt_fairness_modern", x="tcp", y="fairness_ratio",
                       hue="queue" if len(fr) else None,
                       title="Fairness ratio f with 8 RTTs (Qiu Fig. 36, modern TCP)")


def fig_many(data: dict, out: Path) -> Any:
    m = data.get("many", pd.DataFrame())
    if not len(m):
        return plots.empty_figure(out, "loss_vs_flows_modern", "no runs")
    conn = np.geomspace(m.conn.min(), m.conn.max(), 40)
    curves = pd.DataFrame({"flows": conn, "loss_rate": qiu.sync_loss(300 / conn),
                           "curve": "Qiu sync formula (Reno)"})
    curves = curves[300 / curves.flows > 3]
    return plots.lines(m.rename(columns={"conn": "flows"}), out, "loss_vs_flows_modern",
                       x="flows", y="loss_rate", hue="tcp", curves=curves, logx=True,
                       logy=True, title="Loss vs flows, T1, W_c = 300")


FIGURES = [fig_web, fig_web_ccdf, fig_web_bars, fig_bulk, fig_rtt, fig_many]


# -- claims --------------------------------------------------------------------------------------
# -- claims: metrics of claim_tables/beyond.toml ---------------------------------------------

METRICS = Metrics(STUDY)


@METRICS.values
def _web(x: Inputs) -> dict[str, Any]:
    """``load``: the Web load (%); ``paper_share``: Weigle's share of responses the best AQM
    helps at that load (75 % up to 80 %, else half)."""
    load = int(round(x.p.web_load * 100))
    return {"load": load, "paper_share": 0.75 if load <= 80 else 0.5}


@METRICS
def web_faster(x: Inputs, a: str, b: str) -> float:
    """Share of quantile levels at which arm ``a`` is faster than ``b`` (Web load)."""
    c = x.cached(_web_cdf_of)
    load = _web(x)["load"]
    if not len(c):
        return math.nan
    da, db = c[(c.name == a) & (c.load_pct == load)], c[(c.name == b) & (c.load_pct == load)]
    if not len(da) or not len(db):
        return math.nan
    return share_faster(da.response_time_ms.to_numpy(), da.cdf.to_numpy(), db.cdf.to_numpy())


def _web_cdf_of(x: Inputs) -> pd.DataFrame:
    return _web_cdf(x.data)


def _st(x: Inputs, name: str, col: str) -> float:
    s = x.data.get("web_stats", pd.DataFrame())
    d = s[s.name == name] if len(s) else s
    return float(d[col].mean()) if len(d) else math.nan


@METRICS
def web_vs_aqms(x: Inputs, arm: str, col: str, best: str) -> dict[str, float]:
    """``col`` of ``arm`` and the best (``best`` "max"/"min") of the AQMs that ran."""
    aqms = [a for a in ("cubic-codel", "cubic-fq_codel", "cubic-pie")
            if not math.isnan(_st(x, a, "utilisation"))]
    fn = {"max": max, "min": min}[best]
    return {arm: _st(x, arm, col),
            "aqm": float(fn([_st(x, a, col) for a in aqms])) if aqms else math.nan}


@METRICS
def web_stats(x: Inputs, col: str, arms: list[str]) -> dict[str, float]:
    return {a: _st(x, a, col) for a in arms}


def _bv(x: Inputs, arm: str, col: str) -> float:
    b = x.data.get("bulk", pd.DataFrame())
    d = b[b.arm == arm] if len(b) else b
    return float(d[col].mean()) if len(d) else math.nan


@METRICS
def bulk_drop_ratio(x: Inputs, with_ecn: str, without: str) -> float:
    """Drops with ECN / drops without (NaN without drops)."""
    return (_bv(x, with_ecn, "drops") / _bv(x, without, "drops") if _bv(x, without, "drops")
            else math.nan)


@METRICS
def bulk_gain(x: Inputs, a: str, b: str, col: str) -> float:
    return _bv(x, a, col) - _bv(x, b, col)


@METRICS
def bulk_values(x: Inputs, col: str, arms: list[str]) -> dict[str, float]:
    return {a: _bv(x, a, col) for a in arms}


@METRICS
def rtt_fairness(x: Inputs, tcp: str, queue: str) -> dict[str, float]:
    """Mean fairness ratio f of ``tcp`` over ``queue`` and over drop-tail."""
    fr = x.cached(_fairness_of)

    def fm(q: str) -> float:
        d = fr[(fr.tcp == tcp) & (fr["queue"] == q)] if len(fr) else fr
        return float(d.fairness_ratio.mean()) if len(d) else math.nan

    return {queue: fm(queue), "dt": fm("dt")}


def _fairness_of(x: Inputs) -> pd.DataFrame:
    return fairness(x.data)


@METRICS
def sync_loss_error(x: Inputs, tcp: str) -> float:
    """Median |relative error| of the large-pipe loss (W_c = 300) against Qiu's formula."""
    m = x.data.get("many", pd.DataFrame())
    if not len(m):
        return math.nan
    lg = m[300 / m.conn > 3]
    errs = {t: float(np.median(np.abs(g.loss_rate / qiu.sync_loss(300 / g.conn) - 1)))
            for t, g in lg.groupby("tcp")}
    return errs.get(tcp, math.nan)


CLAIMS = METRICS.table()


def claims(data: dict, p: BeyondParams) -> ClaimTable:
    """The papers' conclusions with modern TCP and AQMs (``claim_tables/beyond.toml``)."""
    return CLAIMS.evaluate(data, p)


__all__ = ["STUDY", "TITLE", "BeyondParams", "PROFILES", "profile", "run", "FIGURES",
           "METRICS", "CLAIMS", "claims", "fairness", "bulk_arms", "rtt_arms", "many_arms"]
