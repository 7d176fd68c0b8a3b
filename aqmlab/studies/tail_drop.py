"""Tail-drop buffer sizing for Web traffic: Christiansen's thesis ch. 5.1 (seed 001; queue
length x offered load, 50-110 %) and Weigle et al.'s drop-tail 111 vs 148 packets (seed
000, Fig. 8).

Christiansen: HTTP/1.0 browsing users (Mah's model) on the thesis' lab network, tail-drop
queue of 15..240 packets at the 10 Mb/s bottleneck; response-time CDFs against the
unconstrained (100 Mb/s) network, the thesis' per-run statistics (KB/s, % drops, mean
queue, median, i1..i4) next to Table B.4. Weigle: two-way PackMime at 80 % (and 105 %),
Reno over drop-tail 1.5 and 2 BDP.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.studies import christiansen as ch
from aqmlab.studies import common, plots
from aqmlab.studies.claims import ClaimTable
from aqmlab.studies.common import Context, crossings, curve, quantile_at, share_faster
from aqmlab.studies.profiles import Profile
from aqmlab.studies.profiles import get as get_profile
from aqmlab.studies.setups import weigle

STUDY = "tail_drop"
TITLE = "Tail-drop queue sizing for Web traffic (Christiansen; Weigle et al.)"


def profile(name: str = "quick", **overrides: Any) -> Profile:
    return get_profile(STUDY, name, **overrides)


def arms(p: Profile) -> dict[str, dict]:
    out = {f"td-q{q}": ch.taildrop(q, p.users_scale) for q in p.qlens}
    out[ch.BASELINE] = ch.uncongested()
    return out


def run(p: Profile, ctx: Context) -> dict[str, pd.DataFrame]:
    b, loads, users = ch.setup(p)
    data = ch.collect_runs(ctx.sweep(b, name="christiansen-taildrop", arms=arms(p), zip=users,
                                     seeds=p.seeds), loads, series="christiansen")
    w = weigle.weigle_base(p.weigle_duration, p.weigle_warmup,
                           500000 if p.name == "full" else None)
    warms = {a: weigle.weigle_arm(a) for a in ("reno-dt111", "reno-dt148", weigle.BASELINE)}
    wd = weigle.collect_web(ctx.sweep(w, name="weigle", arms=warms,
                                      zip=weigle.loads_zip(p.weigle_loads), seeds=p.seeds),
                            "two-way")
    data["weigle_cdf"] = wd.get("cdf", pd.DataFrame())
    data["weigle_stats"] = wd.get("stats", pd.DataFrame())
    return data


# -- helpers -------------------------------------------------------------------------------------


def mean_cdf(data: dict, key: str = "cdf") -> pd.DataFrame:
    c = data.get(key, pd.DataFrame())
    if not len(c):
        return c
    return common.mean_cdf(c, ["load_pct", "name"])


def stat(data: dict, load: int, name: str, col: str) -> float:
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return math.nan
    d = s[(s.load_pct == load) & (s.name == name)]
    return float(d[col].mean()) if len(d) else math.nan


def _qlen(name: str) -> int:
    return int(name.split("-q")[1])


# -- figures -------------------------------------------------------------------------------------


def fig_cdfs(data: dict, out: Path) -> Any:
    c = mean_cdf(data)
    if not len(c):
        return plots.empty_figure(out, "cdf_by_qlen", "no runs")
    c = c.assign(load=c.load_pct.astype(str) + " %")
    order = sorted((n for n in set(c.name) if n != ch.BASELINE), key=_qlen)
    return plots.response_cdf(c, out, "cdf_by_qlen", panel="load", xmax_ms=3000,
                              order=order, title="Tail-drop queue length (Figs. 5.1-5.4)")


def fig_ccdfs(data: dict, out: Path) -> Any:
    c = mean_cdf(data)
    if not len(c):
        return plots.empty_figure(out, "ccdf_by_qlen", "no runs")
    c = c.assign(load=c.load_pct.astype(str) + " %")
    order = sorted((n for n in set(c.name) if n != ch.BASELINE), key=_qlen)
    return plots.response_cdf(c, out, "ccdf_by_qlen", panel="load", ccdf=True, order=order,
                              title="Response-time CCDF")


def fig_load_series(data: dict, out: Path) -> Any:
    """Fig. 5.5: one queue length across loads (120, or the profile's closest)."""
    c = mean_cdf(data)
    if not len(c):
        return plots.empty_figure(out, "cdf_by_load", "no runs")
    names = sorted((n for n in set(c.name) if n != ch.BASELINE), key=lambda n: abs(_qlen(n) - 120))
    if not names:
        return plots.empty_figure(out, "cdf_by_load", "only the uncongested baseline ran")
    d = c[c.name == names[0]].assign(name=lambda x: x.load_pct.astype(str) + " %")
    return plots.response_cdf(d, out, "cdf_by_load", xmax_ms=3000,
                              title=f"{names[0]} across offered loads (Fig. 5.5)")


def fig_stats(data: dict, out: Path) -> Any:
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return plots.empty_figure(out, "stats_vs_table_b4", "no runs")
    s = s[s.name != ch.BASELINE].assign(qlen=lambda d: d.name.map(_qlen))
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
    s = s[s.name != ch.BASELINE].assign(qlen=lambda d: d.name.map(_qlen))
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
    s = s[s.name != ch.BASELINE].assign(qlen=lambda d: d.name.map(_qlen))
    m = (s.groupby(["load_pct", "qlen"])[["KBps", "loss_pct", "avg_qlen_pkts", "median_ms",
                                         "i1", "i4"]].mean().reset_index())
    ref = ch.TAILDROP_TABLE[["load_pct", "qlen", "KBps", "drop_pct", "mean_qlen", "median_ms",
                             "i1", "i4"]]
    return m.merge(ref, on=["load_pct", "qlen"], how="left", suffixes=("", "_thesis"))


# -- claims --------------------------------------------------------------------------------------


def claims(data: dict, p: Profile) -> ClaimTable:
    t = ClaimTable(STUDY)
    scale_note = ch.deviation(p)

    add = t.adder(p.tests)

    c = mean_cdf(data)
    loads = sorted(int(round(x * 100)) for x in p.loads)  # the profile's, run or not
    qlens = sorted(p.qlens)

    def sup(load: int, a: str, b: str, tmax: float = 3000) -> float:
        ca, cb = curve(c, load, a), curve(c, load, b)
        if ca is None or cb is None:
            return math.nan
        sel = ca[0] <= tmax
        return float(np.abs(ca[1][sel] - cb[1][sel]).max())

    add("C-80-little-effect", "80 %: little effect from increasing the queue from 30 to 240 "
        "(Fig. 5.1)", 0.0, sup(80, "td-q30", "td-q240"), "abs within", 0.05,
        note="largest |F_30 - F_240| up to 3 s")
    for load in [x for x in loads if x in (90, 98, 110)]:
        order = " > ".join(f"td-q{q}" for q in qlens)
        add(f"C-drops-vs-qlen-{load}", f"{load} %: drops fall as the queue grows (Table B.4)",
            order, {f"td-q{q}": stat(data, load, f"td-q{q}", "loss_pct") for q in qlens},
            "ordering", 0, note=scale_note)
        add(f"C-qlen-vs-qlen-{load}", f"{load} %: the mean queue grows with the queue limit "
            "(Table B.4)", order.replace(">", "<"),
            {f"td-q{q}": stat(data, load, f"td-q{q}", "avg_qlen_pkts") for q in qlens},
            "ordering", 0, note=scale_note)
    add("C-98-short-small-q", "98 %: short responses are faster with 30 than with 120 "
        "packets (median 336 vs 423 ms)", "td-q120 > td-q30",
        {n: stat(data, 98, n, "median_ms") for n in ("td-q120", "td-q30")}, "ordering", 0,
        note=scale_note)
    add("C-98-long-big-q", "98 %: 120 packets cut the responses > 1 s compared with 30 "
        "(18.9 vs 28.3 %)", "td-q30 > td-q120",
        {n: 100 - stat(data, 98, n, "i1") for n in ("td-q30", "td-q120")}, "ordering", 0,
        note=scale_note + "measured: % of responses > 1 s")
    add("C-98-240-slower", "98 %: at 240 packets the queueing delay offsets the gain "
        "(median 558 vs 423 ms)", "td-q240 > td-q120",
        {n: stat(data, 98, n, "median_ms") for n in ("td-q240", "td-q120")}, "ordering", 0,
        note=scale_note)
    add("C-110-big-q-worse", "110 %: queues beyond 120 only make it worse (median 1921 vs "
        "1601 ms at 240 vs 120)", "td-q240 > td-q120",
        {n: stat(data, 110, n, "median_ms") for n in ("td-q240", "td-q120")}, "ordering", 0)
    add("C-load-degrades", "Response times degrade sharply near capacity: median at 110 % is "
        "~6 x the one at 80 % (qlen 120, Fig. 5.5)", 3.0,
        stat(data, 110, "td-q120", "median_ms") / stat(data, 80, "td-q120", "median_ms"),
        "greater", 0, note="paper: 1601 / 268 = 6.0")
    add("C-load-below-80", "Below 80 % load the response times hardly change (median 221 ms "
        "at 50 % vs 268 at 80 %, qlen 120)", 1.21,
        stat(data, 80, "td-q120", "median_ms") / stat(data, 50, "td-q120", "median_ms"),
        "ratio within", 0.2)
    base_med = {x: stat(data, x, ch.BASELINE, "median_ms") for x in loads}
    b98 = base_med.get(98, math.nan)
    add("C-uncongested-500ms", "Unconstrained network, 98 %: about 90 % of requests complete "
        "within 500 ms (Fig. 4.5; median 229 ms)", 0.9,
        _value_at(curve(c, 98, ch.BASELINE), 500), "abs within", 0.05,
        note=f"median {b98:.0f} ms" if not math.isnan(b98) else "")
    best = {}
    for load in (90, 98):
        i1 = {q: stat(data, load, f"td-q{q}", "i1") for q in qlens}
        if i1 and not any(math.isnan(v) for v in i1.values()) and 120 in i1:
            best[load] = max(i1, key=i1.get)
    add("C-best-120", "120 packets (1.25 BDP) give the most responses under 1 s at 90 and "
        "98 % (Table B.4, B.15)", "qlen 120 at 90 and 98 %",
        all(v == 120 for v in best.values()) if len(best) == 2 else None, "true",
        note=", ".join(f"{k} %: qlen {v}" for k, v in best.items()))
    ref = ch.TAILDROP_TABLE.set_index(["load_pct", "qlen"])
    for load in loads:
        for q in qlens:
            if (load, q) not in ref.index:
                continue
            r = ref.loc[(load, q)]
            name = f"td-q{q}"
            add(f"C-B4-{load}-{q}-median", f"Table B.4, {load} %, qlen {q}: median response "
                f"time {r.median_ms:g} ms", float(r.median_ms), stat(data, load, name,
                                                                     "median_ms"),
                "ratio within", 0.3, note=scale_note + "thesis run-to-run noise +-5-30 %",
                if_not="the Mah generator, FreeBSD TCP emulation and the thesis' single runs "
                "differ; see the notebook")
            add(f"C-B4-{load}-{q}-drops", f"Table B.4, {load} %, qlen {q}: {r.drop_pct:g} % "
                "drops", float(r.drop_pct), stat(data, load, name, "loss_pct"), "ratio within",
                0.5, note=scale_note + "noise +-20-30 %")
            add(f"C-B4-{load}-{q}-i1", f"Table B.4, {load} %, qlen {q}: {r.i1:g} % of "
                "responses within 1 s", float(r.i1), stat(data, load, name, "i1"),
                "abs within", 5.0, note=scale_note)

    wc = data.get("weigle_cdf", pd.DataFrame())
    if len(wc):
        wc = wc.groupby(["load_pct", "name", "response_time_ms"])[["cdf"]].mean().reset_index()
    w111 = curve(wc, 80, "reno-dt111")
    w148 = curve(wc, 80, "reno-dt148")
    xs = crossings(w111[0], w111[1], w148[1], 100, 1500) if w111 and w148 else []
    main = max(xs, key=lambda x: x[1]) if xs else (math.nan, math.nan)
    add("W-dt-cross-time", "Weigle 80 %: DT-111 and DT-148 CDFs cross near 700 ms "
        "(600-800; Fig. 8)", (600, 800), main[0], "in range",
        note=f"{len(xs)} crossing(s) in 100-1500 ms; the one at the highest CDF",
        if_not="the curves are within noise of each other, so the crossing point wanders")
    add("W-dt-cross-level", "Weigle 80 %: at the crossing 80 % of responses are complete "
        "(0.75-0.85)", (0.75, 0.85), main[1], "in range")
    add("W-dt-close", "Weigle 80 %: little difference between the two queue sizes", 0.0,
        float(np.abs(w111[1] - w148[1])[w111[0] <= 1500].max()) if w111 and w148 else math.nan,
        "abs within", 0.03, note="largest |F_111 - F_148| up to 1500 ms")
    add("W-dt111-short", "Weigle 80 %: below the crossing DT-111 is slightly better", 0.5,
        share_faster(w111[0], w111[1], w148[1], q_hi=0.8) if w111 and w148 else math.nan,
        "greater", 0, note="share of quantile levels below 0.8 where DT-111 is faster")
    return t


def _value_at(cv: Any, x: float) -> float:
    if cv is None:
        return math.nan
    return float(np.interp(x, cv[0], cv[1]))


__all__ = ["STUDY", "TITLE", "profile", "run", "claims", "FIGURES", "table_b4", "quantile_at"]
