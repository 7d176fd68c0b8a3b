"""RED parameter search for Web traffic: Christiansen's thesis ch. 5.2-5.4 and ch. 6 (seed 001).

RED at the 10 Mb/s bottleneck of the thesis' lab network (ALTQ: no gentle, no wait), with
Mah browsing users: thresholds (max_th = 3 min_th) across loads; max_th and min_th alone;
w_q x max_p; the queue limit; the "good" and "bad" settings of Tables 5.2-5.3; the best RED
against the best tail-drop (Fig. 5.12); ch. 6: responses with retransmissions vs without
and the smoothing of the arrival process by the bottleneck.

A setting is named ``red-<min_th>-<max_th>-w<1/w_q>-p<1/max_p>-q<limit>``; tail-drop runs
(``td-q<limit>``) and the uncongested baseline are shared with the tail-drop study.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.studies import plots
from aqmlab.studies.claims import ClaimTable
from aqmlab.studies.common import Context, curve, merge_tables, share_faster
from aqmlab.studies.profiles import Profile
from aqmlab.studies.profiles import get as get_profile
from aqmlab.studies.setups import christiansen as ch

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


def profile(name: str = "quick", **overrides: Any) -> Profile:
    return get_profile(STUDY, name, **overrides)


def label(s: tuple) -> str:
    lo, hi, w, pm, q = s
    return f"red-{lo:g}-{hi:g}-w{w}-p{pm}-q{q}"


#: The columns :func:`parse` reads from a setting's name.
SETTING = ("min_th", "max_th", "inv_wq", "inv_maxp", "qlen")


def parse(name: str) -> dict[str, Any]:
    if not name.startswith("red-"):
        return {}
    lo, hi, w, pm, q = name[4:].split("-")
    return dict(zip(SETTING, (float(lo), float(hi), int(w[1:]), int(pm[1:]), int(q[1:])),
                    strict=True))


def settings(p: Profile) -> dict[str, set[tuple]]:
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


def arm(s: tuple, scale: float) -> dict[str, Any]:
    lo, hi, w, pm, q = s
    return ch.red(lo, hi, q, 1 / w, 1 / pm, scale)


def run(p: Profile, ctx: Context) -> dict[str, pd.DataFrame]:
    scale = p.users_scale
    b, users, uzip = ch.setup(p)
    sets = settings(p)
    parts = []
    loads_hi = [x for x in p.loads if any(abs(x - h) < 1e-9 for h in HIGH)]
    td = {"td-q120": ch.taildrop(120, scale), ch.BASELINE: ch.uncongested()}
    if p.series == "all":
        td["td-q190"] = ch.taildrop(190, scale)
    arms_all = {label(s): arm(s, scale) for s in sorted(sets["all"])} | td
    parts.append(ch.collect_runs(ctx.sweep(b, name="christiansen-red", arms=arms_all,
                                           zip=uzip, seeds=p.seeds),
                                 users, classes=True, series="thresholds"))
    if sets["high"] and loads_hi:
        arms_hi = {label(s): arm(s, scale) for s in sorted(sets["high"])}
        parts.append(ch.collect_runs(ctx.sweep(b, name="christiansen-red-search", arms=arms_hi,
                                               zip=ch.users_zip(loads_hi, scale,
                                                                p.get("user_kbps")),
                                               seeds=p.seeds), users, series="search"))
    data = merge_tables(*parts)
    for k in ("stats", "cdf"):
        if k in data and len(data[k]):
            extra = pd.DataFrame([parse(n) for n in data[k].name], index=data[k].index,
                                 columns=list(SETTING))
            data[k] = pd.concat([data[k], extra], axis=1)
    return data


# -- helpers -------------------------------------------------------------------------------------


def mean_cdf(data: dict, key: str = "cdf", by: tuple = ("load_pct", "name")) -> pd.DataFrame:
    c = data.get(key, pd.DataFrame())
    if not len(c):
        return c
    cols = [*by, "response_time_ms"]
    return c.groupby(cols, sort=False)[["cdf"]].mean().reset_index().assign(
        ccdf=lambda d: 1 - d.cdf)


def stat(data: dict, load: int, name: str, col: str) -> float:
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return math.nan
    d = s[(s.load_pct == load) & (s.name == name)]
    return float(d[col].mean()) if len(d) else math.nan


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
    s = s[(s.series == "thresholds") & s.name.str.startswith("red-")].copy()
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
    names = [label((30, 90, 512, 10, q)) for q in (480, 160, 120)]
    return _cdfs(data, out, "cdf_queue_limit", names, "RED (30, 90): queue limit "
                 "(Table 5.1, Fig. B.11)", {n: f"qlen {n.rsplit('-q', 1)[1]}" for n in names})


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
    c = c[(c.load_pct == top) & c.name.str.startswith("red-")]
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


def claims(data: dict, p: Profile) -> ClaimTable:
    t = ClaimTable(STUDY)
    sn = ch.deviation(p)

    add = t.adder(p.tests)

    c = mean_cdf(data)

    def sf(load: int, a: str, b: str, q_lo: float = 0.0, q_hi: float = 1.0) -> float:
        ca, cb = curve(c, load, a), curve(c, load, b)
        if ca is None or cb is None:
            return math.nan
        return share_faster(ca[0], ca[1], cb[1], q_lo, q_hi)

    t5, t30, t60 = th(5, 15), th(30, 90), th(60, 180)
    add("R-drops-thresholds", "98 %: drops fall as the thresholds grow: (5,15) 15.2 % > "
        "(30,90) 4.09 % > (60,180) 2.42 % (Table B.6)", f"{t5} > {t30} > {t60}",
        {n: stat(data, 98, n, "loss_pct") for n in (t5, t30, t60)}, "ordering", 0, note=sn)
    add("R-qlen-thresholds", "98 %: the mean queue grows with the thresholds (11.6 < 39.4 < "
        "69.1)", f"{t5} < {t30} < {t60}",
        {n: stat(data, 98, n, "avg_qlen_pkts") for n in (t5, t30, t60)}, "ordering", 0,
        note=sn)
    add("R-min5-poor", "min_th = 5 (the guideline) performs poorly: at 98 % (5,15) has the "
        "fewest responses within 1 s (51.5 vs 79.1 %)", f"{t30} > {t5}",
        {n: stat(data, 98, n, "i1") for n in (t30, t5)}, "ordering", 0, note=sn)
    add("R-30-90-short", "(30,90) is better than (60,180) for about 70 % of requests at 98 %",
        0.7, sf(98, t30, t60), "abs within", 0.15,
        note=sn + "share of quantile levels where (30,90) is faster")
    add("R-60-180-long", "(60,180) reduces the long responses (> 1 s) at 98 %",
        f"{t30} > {t60}", {n: 100 - stat(data, 98, n, "i1") for n in (t30, t60)}, "ordering",
        0, note=sn + "% of responses > 1 s")
    meds = [stat(data, 110, th(lo, 3 * lo), "median_ms") for lo in (5, 15, 30, 60, 120)]
    meds = [m for m in meds if not math.isnan(m)]
    add("R-110-no-help", "110 %: no threshold setting helps (medians 1852-2469 ms)", 0.35,
        (max(meds) - min(meds)) / min(meds) if len(meds) >= 3 else math.nan, "less", 0,
        note="relative range of the medians over thresholds")
    add("R-50-no-room", "50 %: drops 0.00-0.08 %, performance as the unconstrained network",
        0.1, max((stat(data, 50, th(lo, 3 * lo), "loss_pct") for lo in (5, 30, 60)),
                 default=math.nan), "less", 0, note="largest drop % at 50 %")
    add("R-red-vs-td-80", "At <= 80 % RED (30,90) is not better than tail-drop 120",
        0.6, sf(80, t30, "td-q120"), "less", 0,
        note="share of quantile levels where RED is faster (0.5 = a tie)")
    best98 = label((5, 90, 128, 20, 480))
    add("R-red-vs-td-98", "98 %: carefully tuned RED improves the shorter responses (80 % of "
        "requests) over tail-drop 120 (Fig. 5.12)", 0.5,
        sf(98, best98, "td-q120", q_hi=0.8), "greater", 0,
        note="share of quantile levels below 0.8 where the best 98 % RED is faster")
    add("R-red-vs-td-110", "110 %: no detectable difference between RED and tail-drop", 0.0,
        abs(stat(data, 110, label((30, 90, 512, 10, 120)), "median_ms")
            / stat(data, 110, "td-q120", "median_ms") - 1), "abs within", 0.15,
        note="|median RED (30,90,q120) / median tail-drop 120 - 1|")
    add("R-maxp-hurts", "max_p = 1/4 hurts at every load (too many drops; Table B.9)",
        "p10 > p4", {"p10": stat(data, 98, label((30, 90, 512, 10, 480)), "i1"),
                     "p4": stat(data, 98, label((30, 90, 512, 4, 480)), "i1")},
        "ordering", 0, note="98 %, % within 1 s")
    q = {n: stat(data, 90, label((30, 90, 512, 10, n)), "median_ms") for n in (480, 160, 120)}
    vals = [v for v in q.values() if not math.isnan(v)]
    add("R-qlen-similar", "90 %: the queue limit (120/160/480) changes little (medians "
        "269-281 ms)", 0.1, (max(vals) - min(vals)) / min(vals) if len(vals) == 3 else math.nan,
        "less", 0)
    add("R-util-costs-rt", "98 %: the setting with the highest utilisation has worse response "
        "times than the best setting (median 439 vs 326 ms)", "util > best",
        {"util": stat(data, 98, label(GOOD["highest util. 98 %"]), "median_ms"),
         "best": stat(data, 98, label(GOOD["best 98 %"]), "median_ms")}, "ordering", 0)
    r = data.get("retx", pd.DataFrame())

    def rx(name: str, col: str) -> float:
        d = r[(r.load_pct == 98) & (r.name == name)] if len(r) else r
        return float(d[col].mean()) if len(d) else math.nan

    add("R-retx-classes", "98 %: far more requests see retransmissions with (5,15) than with "
        "(60,180) (43.9 vs 12.9 %, Table 6.2)", f"{t5} > {t60}",
        {n: rx(n, "retx_pct") for n in (t5, t60)}, "ordering", 0.3,
        note=sn + "any retransmission of the connection (aqmlab does not split SYN/FIN/data); "
        "margin 30 %")
    add("R-retx-ratio", "98 %: share of requests with retransmissions, (5,15) / (60,180) = 3.4",
        43.9 / 12.9, rx(t5, "retx_pct") / rx(t60, "retx_pct"), "ratio within", 0.4, note=sn)
    shift = rx(t5, "median_retx_ms") - rx(t5, "median_nr_ms")
    add("R-retx-shift", "Responses with retransmissions are delayed by about one RTO "
        "(~1.5 s; Fig. 6.2)", (700, 3000), shift, "in range",
        note=sn + "median (retransmitted) - median (none), (5,15) at 98 %, ms")
    b = data.get("burst", pd.DataFrame())
    if len(b):
        top = b.load_pct.max()
        bb = b[(b.load_pct == top) & (b.bin_s == 1.0)]
        cons = float(bb[bb.name != ch.BASELINE]["cov"].mean())
        unc = float(bb[bb.name == ch.BASELINE]["cov"].mean())
    else:
        cons = unc = math.nan
    add("R-burst-smoothing", "A bottleneck smooths the arrival process: at >= 80 % load it is "
        "no longer bursty at 1 s scale (Figs. 6.5-6.7)", "unconstrained > constrained",
        {"unconstrained": unc, "constrained": cons}, "ordering", 0.2,
        note="coefficient of variation of 1-s reply throughput (fluid proxy), margin 20 %")
    ref = ch.RED_TABLE.set_index(["load_pct", "min_th", "max_th"])
    cells = {(int(round(x * 100)), int(lo), int(hi)) for x in p.loads for lo, hi in p.thresholds}
    for key in sorted(cells):  # the profile's (run or not: missing runs read "no data")
        if key not in ref.index:
            continue
        row = ref.loc[key]
        load, lo, hi = key
        n = th(lo, hi)
        add(f"R-B6-{load}-{lo}-{hi}-median", f"Table B.6, {load} %, ({lo},{hi}): median "
            f"{row.median_ms:g} ms", float(row.median_ms), stat(data, load, n, "median_ms"),
            "ratio within", 0.3, note=sn, if_not="generator, TCP and single-run noise "
            "(thesis reruns differ by up to 30 %)")
        add(f"R-B6-{load}-{lo}-{hi}-drops", f"Table B.6, {load} %, ({lo},{hi}): "
            f"{row.drop_pct:g} % drops", float(row.drop_pct), stat(data, load, n, "loss_pct"),
            "ratio within", 0.5, note=sn)
    return t
