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
gives, and whether the conclusion still holds ("reproduced" = still holds).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.studies import ecn_bulk, many_flows, plots
from aqmlab.studies.claims import ClaimTable
from aqmlab.studies.common import Context, collect, share_faster
from aqmlab.studies.profiles import Profile
from aqmlab.studies.profiles import get as get_profile
from aqmlab.studies.setups import qiu, weigle

STUDY = "beyond"
TITLE = "Beyond the papers: CUBIC, BBR, CoDel, FQ-CoDel and PIE"
BULK_ARMS = {  # label -> (tcp variant, queue dict at QL 64, ecn)
    "reno-dt": ("reno", {"kind": "droptail", "limit": "64p"}, False),
    "reno-red-ecn": ("reno", ecn_bulk.queue("aggr-ecn", 64), True),
    "cubic-dt": ("cubic", {"kind": "droptail", "limit": "64p"}, False),
    "cubic-red": ("cubic", ecn_bulk.queue("aggr-red", 64), False),
    "cubic-red-ecn": ("cubic", ecn_bulk.queue("aggr-ecn", 64), True),
    "cubic-codel": ("cubic", {"kind": "codel", "limit": "64p", "ecn": False}, False),
    "cubic-codel-ecn": ("cubic", {"kind": "codel", "limit": "64p", "ecn": True}, True),
    "cubic-fq_codel-ecn": ("cubic", {"kind": "fq_codel", "limit": "64p", "ecn": True}, True),
    "bbr-dt": ("bbr", {"kind": "droptail", "limit": "64p"}, False),
}
RTT_QUEUES = {"dt": {}, "red": {"topology.forward_queue": many_flows.red_config("red1", 160)},
              "fq_codel": {"topology.forward_queue": {"kind": "fq_codel", "limit": "160p"}}}


def profile(name: str = "quick", **overrides: Any) -> Profile:
    return get_profile(STUDY, name, **overrides)


def run(p: Profile, ctx: Context) -> dict[str, pd.DataFrame]:
    out: dict[str, pd.DataFrame] = {}
    full = p.name == "full"
    w = weigle.weigle_base(p.web_duration, p.web_warmup, 500000 if full else None)
    arms = {a: weigle.weigle_arm(a) for a in [*p.web_arms, weigle.BASELINE]}
    web = weigle.collect_web(ctx.sweep(w, name="weigle", arms=arms,
                                       zip=weigle.loads_zip([p.web_load]), seeds=p.seeds),
                             "two-way")
    out.update({f"web_{k}": v for k, v in web.items()})
    if p.bulk:
        b = ecn_bulk.base(ecn_bulk.profile("quick").size)
        barms = {f"modern-{k}": {"tcp.variant": v, "topology.forward_queue": q, "tcp.ecn": e}
                 for k, (v, q, e) in BULK_ARMS.items()}
        fl = collect(ctx.sweep(b, name="pentikousis-modern", arms=barms, seeds=p.seeds),
                     ecn_bulk.flow_rows)
        if len(fl):
            fl.insert(0, "series", "modern")
            runs = ecn_bulk.run_stats(fl, ["series", "name", "seed"])
            runs["arm"] = runs.name.str.removeprefix("modern-")
            out["bulk"] = runs
    if p.rtt:
        mp = many_flows.profile("quick")
        sc, rarms = qiu.rtt_scenario(qiu.base(mp.duration, mp.warmup), mp.rtt_duration, None, 3)
        all_arms = {}
        for k, a in ((a.label, a.changes) for a in rarms):
            for tcp in ("reno", "cubic", "bbr"):
                for q, qa in RTT_QUEUES.items():
                    if (tcp, q) in (("reno", "fq_codel"), ("bbr", "red")):
                        continue
                    label = k if tcp == "reno" else f"{k}-{tcp}"
                    all_arms[f"{label}-{q}"] = {**a, **qa, "tcp.variant": tcp}
        fl = collect(ctx.sweep(sc, name="qiu-rtt8", arms=all_arms, seeds=p.seeds[:1]),
                     many_flows.flow_rows)
        if len(fl):
            fl["queue"] = fl.name.str.rsplit("-", n=1).str[1]
            fl["tcp"] = fl.name.map(lambda n: next((t for t in ("cubic", "bbr") if f"-{t}-" in n),
                                                   "reno"))
            out["rtt_flows"] = fl
    if p.many:
        mp = many_flows.profile("quick")
        b = qiu.base(mp.duration, mp.warmup)
        marms = {f"{tcp}-wc300": {"topology.forward_queue.limit": "260p", "tcp.variant": tcp}
                 for tcp in ("reno", "cubic", "bbr")}
        rows = collect(ctx.sweep(b, name="qiu-modern", arms=marms,
                                 zip=many_flows.conns_zip([20, 40, 80, 150]), seeds=p.seeds),
                       many_flows.run_row)
        if len(rows):
            rows["tcp"] = rows.name.str.split("-").str[0]
            out["many"] = rows
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
    curves = pd.DataFrame({"flows": conn, "loss_rate": many_flows.sync_loss(300 / conn),
                           "curve": "Qiu sync formula (Reno)"})
    curves = curves[300 / curves.flows > 3]
    return plots.lines(m.rename(columns={"conn": "flows"}), out, "loss_vs_flows_modern",
                       x="flows", y="loss_rate", hue="tcp", curves=curves, logx=True,
                       logy=True, title="Loss vs flows, T1, W_c = 300")


FIGURES = [fig_web, fig_web_ccdf, fig_web_bars, fig_bulk, fig_rtt, fig_many]


# -- claims --------------------------------------------------------------------------------------


def claims(data: dict, p: Profile) -> ClaimTable:
    t = ClaimTable(STUDY)

    add = t.adder(p.tests)

    c = _web_cdf(data)
    load = int(round(p.web_load * 100))

    def sf(a: str, b: str) -> float:
        if not len(c):
            return math.nan
        da, db = c[(c.name == a) & (c.load_pct == load)], c[(c.name == b) & (c.load_pct == load)]
        if not len(da) or not len(db):
            return math.nan
        return share_faster(da.response_time_ms.to_numpy(), da.cdf.to_numpy(), db.cdf.to_numpy())

    s = data.get("web_stats", pd.DataFrame())

    def st(name: str, col: str) -> float:
        d = s[s.name == name] if len(s) else s
        return float(d[col].mean()) if len(d) else math.nan

    aqms = [a for a in ("cubic-codel", "cubic-fq_codel", "cubic-pie")
            if not math.isnan(st(a, "utilisation"))]

    def best(col: str, fn: Any) -> float:
        return float(fn([st(a, col) for a in aqms])) if aqms else math.nan

    paper_share = 0.75 if load <= 80 else 0.5
    add("B-web-aqm-vs-dt", f"Weigle: at {load} % the best AQM beats drop-tail for "
        f"{paper_share:.0%} of responses (ARED+ECN vs DT-148); with CUBIC, FQ-CoDel vs DT-148",
        paper_share, sf("cubic-fq_codel", "cubic-dt148"), "abs within", 0.15,
        note="share of quantile levels where FQ-CoDel is faster; 'no' = the trade-off changed",
        if_not="FQ-CoDel isolates the short flows from the elephants' queue: it helps (almost) "
        "every response, not half of them")
    add("B-web-tcp-small-effect", "Weigle: TCP improvements (SACK) matter little for Web "
        "responses; CUBIC vs Reno over DT-148", 0.5, sf("cubic-dt148", "reno-dt148"),
        "abs within", 0.15, note="share of quantile levels where CUBIC is faster")
    add("B-web-dt-util", "Weigle: drop-tail gives the highest utilisation; with CUBIC vs "
        "the AQMs run (CoDel, FQ-CoDel, PIE)", "cubic-dt148 >= aqm",
        {"cubic-dt148": st("cubic-dt148", "utilisation"),
         "aqm": best("utilisation", max)},
        "ordering", 0.005, note="the best AQM's utilisation; 0.5 % margin")
    add("B-web-dt-loss", "Weigle: drop-tail has the lowest loss rate; with CUBIC vs the AQMs",
        "aqm >= cubic-dt148",
        {"cubic-dt148": st("cubic-dt148", "loss_pct"),
         "aqm": best("loss_pct", min)},
        "ordering", 0, note="the AQM with the lowest loss")
    add("B-web-bbr-loss", "Drop-tail loss with BBR vs the paper's Reno at the same load (BBR "
        "ignores loss as a signal)", "bbr-dt148 > reno-dt148",
        {"bbr-dt148": st("bbr-dt148", "loss_pct"), "reno-dt148": st("reno-dt148", "loss_pct")},
        "ordering", 0, note="a modern expectation, not a paper claim")
    b = data.get("bulk", pd.DataFrame())

    def bv(arm: str, col: str) -> float:
        d = b[b.arm == arm] if len(b) else b
        return float(d[col].mean()) if len(d) else math.nan

    add("B-bulk-ecn-drops-red", "Pentikousis: ECN cuts drops by > 5x (842 -> 39); CUBIC over "
        "RED with vs without ECN", 0.2, bv("cubic-red-ecn", "drops") / bv("cubic-red", "drops")
        if bv("cubic-red", "drops") else math.nan, "less", 0, note="drops with / without ECN")
    add("B-bulk-ecn-drops-codel", "Pentikousis' ECN drop cut with CUBIC over CoDel", 0.2,
        bv("cubic-codel-ecn", "drops") / bv("cubic-codel", "drops")
        if bv("cubic-codel", "drops") else math.nan, "less", 0,
        note="drops with / without ECN")
    add("B-bulk-ecn-no-goodput-gain", "Pentikousis: no significant goodput (efficiency) gain "
        "from ECN; CUBIC over RED", 0.0,
        bv("cubic-red-ecn", "efficiency_pct") - bv("cubic-red", "efficiency_pct"),
        "abs within", 0.5, note="efficiency difference (points)")
    add("B-bulk-ecn-fairer", "Pentikousis: ECN gives fairer sharing (spread 2.56 vs 11.1 %); "
        "CUBIC, FQ-CoDel+ECN vs drop-tail", "cubic-dt > cubic-fq_codel-ecn",
        {"cubic-dt": bv("cubic-dt", "spread_pct"),
         "cubic-fq_codel-ecn": bv("cubic-fq_codel-ecn", "spread_pct")}, "ordering", 0,
        note="download-time spread (%)")
    fr = fairness(data)

    def fm(tcp: str, q: str) -> float:
        d = fr[(fr.tcp == tcp) & (fr["queue"] == q)] if len(fr) else fr
        return float(d.fairness_ratio.mean()) if len(d) else math.nan

    for tcp, q in (("cubic", "red"), ("cubic", "fq_codel"), ("bbr", "fq_codel")):
        add(f"B-rtt-{tcp}-{q}", f"Qiu: an AQM is fairer to different RTTs than drop-tail "
            f"(f_RED > f_DT); {tcp.upper()} with {q}", f"{q} > dt",
            {q: fm(tcp, q), "dt": fm(tcp, "dt")}, "ordering", 0,
            note="fairness ratio f, 8 flows, mean of 3 runs")
    m = data.get("many", pd.DataFrame())
    if len(m):
        lg = m[300 / m.conn > 3]
        errs = {tcp: float(np.median(np.abs(g.loss_rate / many_flows.sync_loss(300 / g.conn) - 1)))
                for tcp, g in lg.groupby("tcp")}
    else:
        errs = {}
    add("B-many-sync-reno", "Qiu: the synchronised-loss formula predicts Reno's loss (large "
        "pipe, W_c = 300)", "median |rel. error| <= 0.3", errs.get("reno", math.nan),
        "formula fit", 0.3)
    add("B-many-sync-cubic", "Qiu's synchronised-loss formula applied to CUBIC", "median |rel. "
        "error| <= 0.3", errs.get("cubic", math.nan), "formula fit", 0.3,
        if_not="CUBIC backs off by 0.7 and grows its window as a cubic of time: the "
        "formula's Reno sawtooth does not apply")
    return t
