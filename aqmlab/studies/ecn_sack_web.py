"""Weigle, Jeffay & Smith, "Quantifying the effects of recent protocol improvements to TCP:
impact on Web performance" (seed 000).

Two-way PackMime-HTTP over a 10 Mb/s bottleneck; Reno or SACK (each with or without ECN)
over drop-tail 111/148 packets (1.5/2 BDP), Adaptive RED (target 5 or 60 ms, 370 packets)
or ARED with ECN; offered loads 50-105 % (connection rates from
``examples/calibration/packmime_10mbps.csv``). The main metric is the CDF of HTTP response
times (SYN to last byte) of the forward instance, drawn with the uncongested (100 Mb/s)
baseline, x up to 1500 ms. Base scenario: ``examples/weigle_droptail_80.toml``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.scenario import Scenario
from aqmlab.studies import common, plots
from aqmlab.studies.claims import ClaimTable
from aqmlab.studies.common import (
    Context,
    collect,
    crossings,
    curve,
    example,
    merge_tables,
    quantile_at,
    share_faster,
    stack,
    value_at,
    web_cdf,
    web_stats,
)
from aqmlab.studies.profiles import Profile
from aqmlab.studies.profiles import get as get_profile

STUDY = "ecn_sack_web"
TITLE = "ECN, SACK and AQM for Web traffic (Weigle et al.)"
BASELINE = "uncongested"
LARGE = 50 * 1000  # responses > 50 KB (Fig. 18)


def profile(name: str = "quick", **overrides: Any) -> Profile:
    return get_profile(STUDY, name, **overrides)


# -- scenarios (shared with tail_drop and beyond) ----------------------------------------------


def weigle_base(duration: float, warmup: float, full: bool = False) -> Scenario:
    """The Weigle dumbbell (Reno, DT 148 both ways, two-way PackMime) with this run length;
    ``full``: stop after 250,000 forward responses as the paper (500,000 counted over both
    directions, which complete at the same rate)."""
    return example("weigle_droptail_80").replace(**{
        "name": "weigle",
        "description": "Weigle et al.: 10 Mb/s dumbbell, two-way PackMime-HTTP",
        "run.duration": f"{duration:g}s", "run.warmup": f"{warmup:g}s",
        "run.stop_after_responses": 500000 if full else None, "run.sample_interval": "100ms"})


def queue_of(kind: str) -> dict[str, Any]:
    """The bottleneck queue (both directions) of an arm's queue part."""
    if kind.startswith("dt"):
        return {"kind": "droptail", "limit": f"{int(kind[2:])}p"}
    if kind.startswith("ared"):
        # ared5, aredecn5 (ns-2: ECN-capable packets dropped once avg >= max_th, as the
        # paper ran) or aredecnmark5 (ns-3's RED: marked there too)
        prefix = next(p for p in ("aredecnmark", "aredecn", "ared") if kind.startswith(p))
        ecn = prefix != "ared"
        q = {"kind": "ared", "limit": "370p", "target_delay": f"{kind.removeprefix(prefix)}ms",
             "mean_pkt_size": 1250, "ecn": ecn}
        if ecn:
            q["ecn_above_max_th"] = "mark" if prefix == "aredecnmark" else "drop"
        return q
    if kind.startswith("red"):  # original RED: red5-15, red30-90 (Figs. 11-12)
        lo, hi = (float(x) for x in kind[3:].split("-"))
        return {"kind": "red", "limit": "370p", "min_th": lo, "max_th": hi, "max_p": 0.1,
                "w_q": 1 / 512, "gentle": False, "mean_pkt_size": 1250}
    if kind in ("codel", "fq_codel", "pie"):
        return {"kind": kind}
    if kind.startswith("ecn-"):
        return {"kind": kind[4:], "ecn": True}
    raise ValueError(f"unknown queue {kind!r}")


def weigle_arm(label: str) -> dict[str, Any]:
    """Changes of arm ``<tcp>-<queue>`` ("reno-dt148", "sack-aredecn5", "cubic-fq_codel",
    "uncongested") from the Weigle base."""
    if label == BASELINE:
        big = {"kind": "droptail", "limit": "10000p"}
        return {"topology.bottleneck.rate": "100Mbps", "topology.forward_queue": big,
                "topology.reverse_queue": big}
    tcp, _, q = label.partition("-")
    queue = queue_of(q)
    ecn = bool(queue.get("ecn", False))
    return {"tcp.variant": tcp, "tcp.ecn": ecn, "topology.forward_queue": queue,
            "topology.reverse_queue": queue}


def loads_zip(loads: list[float], groups: int = 2) -> dict[str, list]:
    return {f"traffic[{g}].load": list(loads) for g in range(groups)}


def one_way(b: Scenario) -> Scenario:
    """Only the forward PackMime instance: the reverse path carries requests and ACKs."""
    stop = b.run.stop_after_responses
    return b.replace(**{"traffic": [b.traffic[0].to_dict()],
                        "run.stop_after_responses": stop // 2 if stop else None})


# -- reductions ------------------------------------------------------------------------------


def reduce_web(res: Any) -> dict[str, pd.DataFrame]:
    return {"stats": pd.DataFrame([web_stats(res)]),
            "cdf": web_cdf(res),
            "cdf_large": web_cdf(res, min_bytes=LARGE),
            "sizes": _size_facts(res)}


def _size_facts(res: Any) -> pd.DataFrame:
    q = res.requests
    q = q[q.group == 0]
    rb = q.response_bytes.to_numpy(float)
    if not len(rb):
        return pd.DataFrame()
    mss = res.scenario.tcp.mss
    return pd.DataFrame([{
        "p_le_1pkt": float((rb <= mss).mean()), "p_le_5pkt": float((rb <= 5 * mss).mean()),
        "p_le_10pkt": float((rb <= 10 * mss).mean()), "p_gt_50kb": float((rb > LARGE).mean()),
        "bytes_gt_50kb": float(rb[rb > LARGE].sum() / rb.sum()),
        "p_req_lt_1kb": float((q.request_bytes < 1000).mean()), "n": len(rb)}])


def reduce_ts(res: Any) -> pd.DataFrame:
    ts = res.queue_ts
    t0 = res.scenario.run.warmup_s
    return ts[(ts.queue == "R0->R1") & (ts.time_s >= t0) & (ts.time_s < t0 + 60)][
        ["time_s", "qlen_pkts", "red_avg_pkts"]]


def collect_web(sw: Any, series: str, ts: bool = False) -> dict[str, pd.DataFrame]:
    """Stats, CDFs and workload facts of every run of a web sweep, tagged with ``series``
    and ``load`` (from traffic[0].load)."""
    parts: dict[str, list] = {"stats": [], "cdf": [], "cdf_large": [], "sizes": []}

    def fn(res: Any) -> pd.DataFrame:
        d = reduce_web(res)
        for k, v in d.items():
            v = v.copy()
            v["load"] = res.scenario.traffic[0].load
            v["name"] = res.scenario.name
            v["seed"] = res.scenario.run.seed
            parts[k].append(v)
        return pd.DataFrame()

    collect(sw, fn)
    out = {k: stack(v) for k, v in parts.items()}
    if ts:
        q = collect(sw, reduce_ts)
        if len(q):
            q["load"] = q["traffic[0].load"]
        out["queue_ts"] = q
    for v in out.values():
        if len(v):
            v.insert(0, "series", series)
            if "load" in v:
                v["load_pct"] = (v["load"] * 100).round().astype(int)
    return out


def run(p: Profile, ctx: Context) -> dict[str, pd.DataFrame]:
    full = p.name == "full"
    b = weigle_base(p.duration, p.warmup, full)
    loads = sorted(p.loads)
    hi_arms = p.get("arms_hi") or p.arms
    groups = [(loads, p.arms)] if set(hi_arms) == set(p.arms) else [
        (loads[:-1], p.arms), (loads[-1:], hi_arms)]
    parts = []
    for lds, names in groups:
        if lds:
            arms = {a: weigle_arm(a) for a in [*names, BASELINE]}
            parts.append(collect_web(ctx.sweep(b, name="weigle", arms=arms,
                                               zip=loads_zip(lds), seeds=p.seeds),
                                     "two-way", ts=True))
    if full:
        red = {a: weigle_arm(a) for a in ("reno-red5-15", "reno-red30-90")}
        parts.append(collect_web(ctx.sweep(b, name="weigle-red", arms=red, zip=loads_zip(
            [x for x in (0.8, 0.9) if x in p.loads] or [0.8]), seeds=p.seeds), "two-way"))
    if p.one_way:
        ow = one_way(b)
        hi = [max(p.loads)] if not full else [x for x in (0.8, 1.05) if x in p.loads]
        parts.append(collect_web(ctx.sweep(
            ow, name="weigle-1way", arms={"reno-aredecn5": weigle_arm("reno-aredecn5"),
                                          BASELINE: weigle_arm(BASELINE)},
            zip=loads_zip(hi, 1), seeds=p.seeds), "one-way"))
    return merge_tables(*parts)


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


def claims(data: dict, p: Profile) -> ClaimTable:
    t = ClaimTable(STUDY)

    add = t.adder(p.tests)

    sz = data.get("sizes", pd.DataFrame())
    sz = sz[sz.name == BASELINE] if len(sz) else sz
    facts = sz.mean(numeric_only=True) if len(sz) else pd.Series(dtype=float)
    def g(k: str) -> float:
        return float(facts.get(k, math.nan))

    add("W-workload-1pkt", "Responses that fit in one packet: about 60 %", (0.55, 0.62),
        g("p_le_1pkt"), "in range", note="PackMime generator, uncongested runs")
    add("W-workload-10pkt", "Responses that fit in 10 packets: about 90 %", (0.87, 0.92),
        g("p_le_10pkt"), "in range")
    add("W-workload-large", "Responses > 50 KB: 1.4 % of flows", (0.010, 0.020),
        g("p_gt_50kb"), "in range")
    add("W-workload-large-bytes", "Responses > 50 KB carry almost half the bytes", (0.35, 0.6),
        g("bytes_gt_50kb"), "in range", note="a 100-s window holds few elephants: noisy")
    add("W-workload-requests", "About 90 % of requests are under 1 KB", (0.85, 0.97),
        g("p_req_lt_1kb"), "in range")

    c = mean_cdf(data)
    hi = 105 if (len(c) and 105 in set(c.load_pct)) else (int(c.load_pct.max()) if len(c) else 105)

    def with_all(names: tuple[str, ...], prefer: int) -> int:
        """``prefer`` if every arm ran there, else the highest load where they all did."""
        if not len(c):
            return prefer
        ok = [ld for ld in sorted(set(c.load_pct), reverse=True)
              if set(names) <= set(c[c.load_pct == ld].name)]
        return prefer if prefer in ok or not ok else int(ok[0])

    hs = with_all(("reno-aredecn5", "sack-aredecn5", "reno-dt148", "sack-dt148"), hi)

    def sf(load: int, a: str, b: str, q_hi: float = 1.0) -> float:
        ca, cb = curve(c, load, a), curve(c, load, b)
        if ca is None or cb is None:
            return math.nan
        return share_faster(ca[0], ca[1], cb[1], q_hi=q_hi)

    def cross(load: int, a: str, b: str, lo: float = 50, hi_t: float = 1500) -> float:
        ca, cb = curve(c, load, a), curve(c, load, b)
        if ca is None or cb is None:
            return math.nan
        xs = crossings(ca[0], ca[1], cb[1], lo, hi_t)
        return xs[0][0] if xs else math.nan

    x = cross(80, "reno-ared5", "reno-ared60")
    add("W-ared-cross", "80 %: ARED-5 ms and ARED-60 ms CDFs cross near 400 ms (300-500; "
        "Fig. 9)", (300, 500), x, "in range", note="first crossing in 50-1500 ms")
    a5 = curve(c, 80, "reno-ared5")
    plateau = (value_at(a5[0], a5[1], 950) - value_at(a5[0], a5[1], x)
               if a5 is not None and not math.isnan(x) else math.nan)
    add("W-ared5-plateau", "ARED-5 ms CDF levels off after the crossover until ~1 s (min RTO; "
        "Fig. 9)", 0.05, plateau, "less", 0, note="CDF rise from the crossover to 950 ms")
    add("W-dt-vs-ared5-105", f"{hi} %: about 60 % of responses do better with drop-tail than "
        "with ARED-5 ms (Fig. 10)", 0.6, sf(hi, "reno-dt148", "reno-ared5"), "abs within", 0.15,
        note="share of quantile levels where DT-148 is faster")
    add("W-ecn-vs-ared-80", "Up to 90 % load, ARED+ECN-5 ms is superior or equivalent to "
        "ARED-5 ms at all response times (Fig. 13)", 0.9,
        sf(80, "reno-aredecn5", "reno-ared5", q_hi=0.99), "greater", 0,
        note="share of quantile levels (to 99 %) where ARED+ECN-5 is faster")
    add("W-ecn-more-105", "Under severe congestion ECN gives even more advantage (Fig. 14)",
        "105 > 80",
        {"105": stat(data, hi, "reno-ared5", "median_ms") / stat(
            data, hi, "reno-aredecn5", "median_ms"),
         "80": stat(data, 80, "reno-ared5", "median_ms") / stat(
             data, 80, "reno-aredecn5", "median_ms")}, "ordering", 0,
        note="median ARED-5 / median ARED+ECN-5")
    util = {a: stat(data, hi, a, "utilisation") for a in ("reno-dt148", "reno-aredecn60",
                                                          "reno-aredecn5")}
    add("W-util-dt-highest", f"{hi} %: drop-tail gives the highest utilisation, and "
        "ARED+ECN-60 > ARED+ECN-5 (Fig. 4)", "reno-dt148 >= reno-aredecn60 > reno-aredecn5",
        util, "ordering", 0.002, note="0.2 % margin")
    loss = {a: stat(data, hi, a, "loss_pct") for a in ("reno-ared5", "reno-ared60",
                                                      "reno-aredecn5", "reno-dt148")}
    add("W-loss-dt-lowest", f"{hi} %: drop-tail has the lowest loss rate (Fig. 5)",
        "reno-ared5 > reno-dt148 < reno-ared60", loss, "ordering", 0)
    add("W-queue-ared60-vs-5", f"{hi} %: average queue ARED-60 ms >> ARED-5 ms (Fig. 7)",
        "reno-ared60 > reno-ared5",
        {a: stat(data, hi, a, "avg_qlen_pkts") for a in ("reno-ared60", "reno-ared5")},
        "ordering", 0.5, note="'>>': at least twice (margin 50 %)")
    add("W-sack-ecn-same", f"{hs} %: with ARED+ECN, SACK and Reno are essentially identical "
        "(Figs. 16-17)", 0.0, _sup(c, hs, "reno-aredecn5", "sack-aredecn5"), "abs within", 0.03,
        note="largest |F_Reno - F_SACK| up to 1500 ms")
    add("W-sack-dt-reno-better", f"{hs} %: with drop-tail, Reno appears somewhat superior to "
        "SACK (Fig. 17; 'especially under severe congestion')", 0.5,
        sf(hs, "reno-dt148", "sack-dt148"), "greater", 0,
        note="share of quantile levels where Reno is faster",
        if_not="aqmlab's Reno follows ns-2 (first new ACK ends recovery), its SACK is ns-3's "
        "(an RFC 6675 scoreboard), not ns-2's; one seed cannot tell a small gap from noise")
    add("W-large-sack-dt", "Responses > 50 KB, drop-tail, 80 %: SACK improves over Reno "
        "(Fig. 18)", "reno-dt148 > sack-dt148",
        {a: _median_large(data, 80, a) for a in ("reno-dt148", "sack-dt148")}, "ordering", 0,
        note="median response time of responses > 50 KB")
    add("W-large-ecn-poor", "Responses > 50 KB, 80 %: ARED+ECN is much worse than drop-tail "
        "(Fig. 18)", "reno-aredecn5 > reno-dt148",
        {a: _median_large(data, 80, a) for a in ("reno-aredecn5", "reno-dt148")}, "ordering",
        0.1, note="median of > 50 KB responses, 10 % margin")
    add("W-best-80", "80 %: ARED+ECN-5 ms gives better response times than DT-148 for nearly "
        "75 % of responses (Fig. 19)", 0.75, sf(80, "reno-aredecn5", "reno-dt148"),
        "abs within", 0.15, note="share of quantile levels where ARED+ECN-5 is faster")
    add("W-best-105", "105 %: ARED+ECN-5 ms is better for about half of the responses "
        "(Fig. 20)", 0.5, sf(hi, "reno-aredecn5", "reno-dt148"), "abs within", 0.15)
    add("W-best-50", "50 %: little difference; DT-148 better beyond 600 ms; loss < 3 % "
        "(Fig. 21)", 3.0, float(np.max([stat(data, 50, a, "loss_pct")
                                         for a in ("reno-dt148", "reno-aredecn5")])),
        "less", 0, note="largest loss rate (%) at 50 %")
    add("W-sack-no-better", "Overall SACK is no better than Reno for Web responses",
        0.6, sf(hs, "sack-aredecn5", "reno-aredecn5"), "less", 0,
        note="share of quantile levels where SACK is faster (ARED+ECN)")
    add("W-red-vs-ared", "ARED improves on the original RED, more so with congestion "
        "(Figs. 11-12)", 0.5, sf(80, "reno-ared5", "reno-red5-15"), "greater", 0,
        note="share of quantile levels where ARED-5 beats RED (5,15) at 80 %")
    add("W-dt-vs-ecn60-same", "At all loads, DT (2 BDP) and ARED+ECN-60 ms differ little "
        "(Sec. 7)", 0.0, _sup(c, hi, "reno-dt148", "reno-aredecn60"), "abs within", 0.05,
        note="largest |F_DT - F_ECN60| up to 1500 ms")
    ow = stat(data, hi, "reno-aredecn5", "median_ms", "one-way")
    tw = stat(data, hi, "reno-aredecn5", "median_ms")
    add("W-one-vs-two-way", "Two-way traffic significantly reduces ARED+ECN performance vs "
        "one-way, especially at 105 % (Fig. 15)", "two-way > one-way",
        {"two-way": tw, "one-way": ow}, "ordering", 0.05,
        note="median response time, ARED+ECN-5 ms (5 % margin)")
    return t


def _sup(c: pd.DataFrame, load: int, a: str, b: str) -> float:
    ca, cb = curve(c, load, a), curve(c, load, b)
    if ca is None or cb is None:
        return math.nan
    sel = ca[0] <= 1500
    return float(np.max(np.abs(ca[1][sel] - cb[1][sel])))


def _median_large(data: dict, load: int, name: str) -> float:
    c = mean_cdf(data, "cdf_large")
    cc = curve(c, load, name) if len(c) else None
    return quantile_at(cc[0], cc[1], 0.5) if cc is not None else math.nan
