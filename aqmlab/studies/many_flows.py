"""Qiu, Zhang & Keshav, "Understanding the Performance of Many TCP Flows" (seed 003).

Long-lived Reno flows over a T1 (1.544 Mb/s, 50 ms one-way, 500-byte packets, W_opt = 40)
with a drop-tail or RED buffer B; W_c = W_opt + B is what the pipe and buffer hold. The
regimes: large pipe W_c > 3 Conn (global synchronisation), medium Conn < W_c < 3 Conn,
small W_c < Conn (shut-off flows). Base scenario: ``examples/qiu_t1_dumbbell.toml``
(one sender host per flow).

Formulas overlaid (digest B6): the synchronised loss P = 8 / (3W^2 + 21W + 8), W = W_c/Conn
(b = 1, no delayed ACK); the hyperbolas y = b x / (x + a) of Table 1 (drop-tail) and
Table 2 (random processing time); the RTT-bias bounds 0.5 r^2 <= G2/G1 <= r^2 (drop-tail)
and G2/G1 ~ r (RED); the fairness ratio f = (sum G_i RTT_i)^2 / (n sum (G_i RTT_i)^2).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.scenario import Scenario
from aqmlab.studies import plots
from aqmlab.studies.claims import ClaimTable
from aqmlab.studies.common import Context, collect, example, stack
from aqmlab.studies.profiles import Profile
from aqmlab.studies.profiles import get as get_profile

STUDY = "many_flows"
TITLE = "Many TCP flows: loss, goodput and fairness across pipe sizes (Qiu et al.)"
W_OPT = 40
T1_BPS = 1.544e6
PKT, MSS = 500, 460
SERVICE_S = PKT * 8 / T1_BPS  # 2.59 ms: one packet on the T1
TABLE1_T1 = {100: (144.9275, 0.3237), 200: (285.7143, 0.3429), 300: (454.5454, 0.3682),
             400: (526.3158, 0.3517), 500: (769.2308, 0.3948)}
TABLE2_T1 = {100: (125.0, 0.4263), 200: (227.2727, 0.4505), 300: (333.3333, 0.4690),
             400: (500.0, 0.5123), 500: (666.6666, 0.5366)}


def profile(name: str = "quick", **overrides: Any) -> Profile:
    return get_profile(STUDY, name, **overrides)


def sync_loss(w: np.ndarray | float) -> np.ndarray:
    """Qiu's synchronised large-pipe loss probability (b = 1): 8 / (3W^2 + 21W + 8)."""
    w = np.asarray(w, float)
    return 8.0 / (3 * w * w + 21 * w + 8)


def hyperbola(x: np.ndarray | float, a: float, b: float) -> np.ndarray:
    return b * np.asarray(x, float) / (np.asarray(x, float) + a)


def red_config(kind: str, buffer: int) -> dict[str, Any]:
    """Table 3: RED-1 min_th B/6, RED-2 B/9, RED-3 5; max_th 3 min_th, max_p 0.1,
    w_q 0.002, gentle."""
    min_th = {"red1": buffer / 6, "red2": buffer / 9, "red3": 5.0}[kind]
    return {"kind": "red", "limit": f"{buffer}p", "min_th": min_th, "max_th": 3 * min_th,
            "max_p": 0.1, "w_q": 0.002, "gentle": True, "mean_pkt_size": PKT}


def base(p: Profile) -> Scenario:
    return example("qiu_t1_dumbbell").replace(**{
        "name": "qiu", "description": "Qiu et al.: many bulk TCP flows over one bottleneck",
        "run.duration": f"{p.duration:g}s", "run.warmup": f"{p.warmup:g}s",
        "run.sample_interval": "100ms"})


def conns_zip(conns: list[int]) -> dict[str, list]:
    return {"topology.senders": list(conns), "traffic[0].flows": list(conns)}


# -- reductions --------------------------------------------------------------------------------


#: The columns of :func:`run_row`.
RUN_FIELDS = ("conn", "buffer", "wc", "loss_rate", "throughput", "goodput", "jain", "timeouts",
              "retx", "drops", "shut_off_pct", "active", "q_p5", "q_p50", "q_p95", "q_mean",
              "q_cov", "red_avg", "queue_delay_s", "pkts_min", "pkts_max")


def run_row(res: Any) -> dict[str, Any]:
    s = res.summary.iloc[0]
    f = res.flows
    sc = res.scenario
    conn = len(f)
    buffer = sc.topology.forward_queue.limit_size[0]
    g = f.goodput_mbps.to_numpy()
    fair = g.sum() / conn if conn else math.nan
    ts = res.queue_ts
    ts = ts[(ts.queue == "R0->R1") & (ts.time_s >= sc.run.warmup_s)]
    q = ts.qlen_pkts.to_numpy(float) if len(ts) else None
    delay = float(res.queues.iloc[0].avg_delay_s)
    return {
        "conn": conn, "buffer": buffer, "wc": buffer + W_OPT,
        "loss_rate": float(s.loss_rate),
        "throughput": float(res.links.iloc[0].bytes_tx * 8 / (T1_BPS * 1.004 * s.measured_s)),
        "goodput": float(s.goodput_mbps * 1e6 * PKT / MSS / (T1_BPS * 1.004)),
        "jain": float(s.jain_fairness), "timeouts": int(s.timeouts),
        "retx": int(s.retransmitted_packets), "drops": int(s.drops),
        "shut_off_pct": float((g < 0.1 * fair).mean() * 100) if conn else math.nan,
        "active": int((g >= 0.1 * fair).sum()),
        **_queue_stats(q),
        "red_avg": float(res.queues.iloc[0].red_avg_pkts), "queue_delay_s": delay,
        "pkts_min": float((f.bytes_delivered / MSS).min()),
        "pkts_max": float((f.bytes_delivered / MSS).max()),
    }


def _queue_stats(q: np.ndarray | None) -> dict[str, float]:
    if q is None or not len(q):
        return dict.fromkeys(("q_p5", "q_p50", "q_p95", "q_mean", "q_cov"), math.nan)
    mean = float(q.mean())
    return {"q_p5": float(np.percentile(q, 5)), "q_p50": float(np.percentile(q, 50)),
            "q_p95": float(np.percentile(q, 95)), "q_mean": mean,
            "q_cov": float(q.std() / mean) if mean > 0 else math.nan}


def flow_rows(res: Any) -> pd.DataFrame:
    f = res.flows
    delay = float(res.queues.iloc[0].avg_delay_s)
    return pd.DataFrame({"flow": f.flow, "goodput_mbps": f.goodput_mbps,
                         "pkts": f.bytes_delivered / MSS, "base_rtt_s": f.base_rtt_s,
                         "rtt_s": f.base_rtt_s + delay, "group": f.group})


def ts_rows(res: Any) -> pd.DataFrame:
    ts = res.queue_ts
    t0 = res.scenario.run.warmup_s
    ts = ts[(ts.queue == "R0->R1") & (ts.time_s >= t0) & (ts.time_s < t0 + 30)]
    return ts[["time_s", "qlen_pkts", "red_avg_pkts"]]


# -- runs --------------------------------------------------------------------------------------


def _regimes(p: Profile) -> dict[str, dict]:
    arms = {
        "large-dt": (100, {"topology.forward_queue.limit": "400p"}),
        "medium-dt": (100, {"topology.forward_queue.limit": "160p"}),
        "small-dt": (300, {"topology.forward_queue.limit": "60p"}),
    }
    if p.processing:
        for k in ("large", "medium", "small"):
            n, ch = arms[f"{k}-dt"]
            arms[f"{k}-rand"] = (n, {**ch, "traffic[0].processing_time": "10ms"})
    if p.red:
        arms["large-red1"] = (100, {"topology.forward_queue": red_config("red1", 760)})
        arms["medium-red2"] = (100, {"topology.forward_queue": red_config("red2", 560)})
        arms["small-red3"] = (100, {"topology.forward_queue": red_config("red3", 560)})
        arms["medium-dt560"] = (100, {"topology.forward_queue.limit": "560p"})
    out = {}
    for name, (n, ch) in arms.items():
        out[f"regime-{name}"] = {**ch, "topology.senders": n, "traffic[0].flows": n}
    return out


def rtt_scenario(p: Profile, ratios: list[float] | None, runs: int) -> tuple[Scenario, dict]:
    """Section 7: RTT bias. Two groups of 3 flows (PD_2 = 102 ms, PD_1 = r PD_2) for each
    ratio r, or ``runs`` runs of 8 flows (F1 102 ms, F2..F8 U(102, 300) ms); random
    processing time U(0, one packet's service time) at every sender; B = 160."""
    sc = base(p).replace(**{
        "run.duration": f"{p.rtt_duration:g}s", "run.warmup": f"{p.rtt_duration / 10:g}s",
        "run.sample_interval": None,
        "topology.forward_queue.limit": "160p", "traffic[0].processing_time": f"{SERVICE_S:.5f}s"})

    def one_way(pd_ms: float) -> str:
        return f"{pd_ms / 2 - 50.1:.3f}ms"  # PD = 2 (50 + d + 0.1)

    arms = {}
    if ratios is not None:
        for r in ratios:
            delays = [one_way(102 * r)] * 3 + [one_way(102)] * 3
            arms[f"rtt2-r{r:g}"] = {"topology.senders": 6, "traffic[0].flows": 6,
                                    "topology.sender_delays": delays}
    else:
        rng = np.random.default_rng(2024)
        for i in range(runs):
            pds = [102.0, *rng.uniform(102, 300, size=7)]
            arms[f"rtt8-run{i + 1}"] = {"topology.senders": 8, "traffic[0].flows": 8,
                                        "topology.sender_delays": [one_way(x) for x in pds]}
    return sc, arms


def run(p: Profile, ctx: Context) -> dict[str, pd.DataFrame]:
    b = base(p)
    runs, flows, ts = [], [], []

    def add(series: str, sw: Any, with_flows: bool = False, with_ts: bool = False) -> None:
        runs.append(collect(sw, run_row, fields=RUN_FIELDS).assign(series=series))
        if with_flows:
            flows.append(collect(sw, flow_rows).assign(series=series))
        if with_ts:
            ts.append(collect(sw, ts_rows).assign(series=series))

    dt_arms = {f"dt-wc{wc}": {"topology.forward_queue.limit": f"{wc - W_OPT}p"} for wc in p.wcs}
    add("loss", ctx.sweep(b, name="qiu-loss", arms=dt_arms, zip=conns_zip(p.conns),
                          seeds=p.seeds))
    if p.processing:
        rand = {f"rand-wc{wc}": {**a, "traffic[0].processing_time": "10ms"}
                for wc, a in zip(p.wcs, dt_arms.values(), strict=True)}
        add("rand", ctx.sweep(b, name="qiu-rand", arms=rand, zip=conns_zip(p.conns),
                              seeds=p.seeds))
    add("regimes", ctx.sweep(b, name="qiu-regimes", arms=_regimes(p), seeds=p.seeds[:1]),
        with_flows=True, with_ts=True)
    if p.sack:
        sack = {"reno-wc300": {"topology.forward_queue.limit": "260p"},
                "sack-wc300": {"topology.forward_queue.limit": "260p", "tcp.variant": "sack"}}
        conns = [c for c in p.conns if 10 <= c <= 300] or p.conns
        add("sack", ctx.sweep(b, name="qiu-sack", arms=sack, zip=conns_zip(conns),
                              seeds=p.seeds))
    for series, (ratios, n) in {"rtt2": (p.rtt_ratios, 0), "rtt8": (None, p.rtt_runs)}.items():
        sc, arms = rtt_scenario(p, ratios, n)
        queues = {"dt": {}, "red": {"topology.forward_queue": red_config("red1", 160)}}
        all_arms = {f"{k}-{q}": {**a, **qa} for k, a in arms.items() for q, qa in queues.items()}
        add(series, ctx.sweep(sc, name=f"qiu-{series}", arms=all_arms, seeds=p.seeds[:1]),
            with_flows=True)
    return {"runs": stack(runs), "flows": stack(flows), "queue_ts": stack(ts)}


# -- derived tables ------------------------------------------------------------------------------


def loss_curves(conns: np.ndarray, wcs: list[int]) -> pd.DataFrame:
    """The paper's curves per W_c: sync formula (W_c > 3 Conn) and Table 1/2 hyperbolas."""
    rows = []
    x = np.unique(np.concatenate([np.geomspace(max(1, conns.min()), conns.max(), 60), conns]))
    for wc in wcs:
        panel = f"W_c = {wc}"
        xs = x[wc / x > 3]
        rows.append(pd.DataFrame({"conn": xs, "loss_rate": sync_loss(wc / xs),
                                  "curve": "sync formula", "panel": panel}))
        for name, table in (("Table 1 (DT)", TABLE1_T1), ("Table 2 (random proc.)", TABLE2_T1)):
            if wc in table:
                xh = x[x > wc / 3]
                rows.append(pd.DataFrame({"conn": xh, "loss_rate": hyperbola(xh, *table[wc]),
                                          "curve": name, "panel": panel}))
    return stack(rows)


def rtt_pairs(data: dict) -> pd.DataFrame:
    """Per two-group run: RTT ratio r = RTT_1 / RTT_2 (with queueing) and G2 / G1."""
    f = data["flows"]
    f = f[f.series == "rtt2"].copy()
    if not len(f):
        return pd.DataFrame()
    f["grp"] = np.where(f.base_rtt_s > f.groupby("name").base_rtt_s.transform("min") + 1e-4,
                        1, 2)
    rows = []
    for name, g in f.groupby("name", sort=False):
        g1, g2 = g[g.grp == 1], g[g.grp == 2]
        if not len(g1):  # ratio 1: split the six flows 3/3 by index
            g1, g2 = g.iloc[:3], g.iloc[3:]
        r = float(g1.rtt_s.mean() / g2.rtt_s.mean())
        ratio = float(g2.goodput_mbps.mean() / g1.goodput_mbps.mean())
        rows.append({"name": name, "queue": name.rsplit("-", 1)[1], "rtt_ratio": r,
                     "goodput_ratio": ratio, "dt_low": 0.5 * r * r, "dt_high": r * r})
    return pd.DataFrame(rows)


def fairness_ratio(data: dict) -> pd.DataFrame:
    """Normalized fairness ratio f (Jain of goodput x RTT) per 8-flow run."""
    f = data["flows"]
    f = f[f.series == "rtt8"]
    rows = []
    for name, g in f.groupby("name", sort=False):
        x = (g.goodput_mbps * g.rtt_s).to_numpy()
        rows.append({"name": name, "queue": name.rsplit("-", 1)[1],
                     "fairness_ratio": float(x.sum() ** 2 / (len(x) * (x**2).sum()))})
    return pd.DataFrame(rows)


# -- figures -------------------------------------------------------------------------------------


def fig_loss(data: dict, out: Path) -> Any:
    r = data["runs"]
    d = r[r.series.isin(["loss", "rand"])].copy()
    if not len(d):
        return plots.empty_figure(out, "loss_vs_flows", "no loss sweep")
    d["panel"] = "W_c = " + d.wc.astype(int).astype(str)
    d["queue"] = d.series.map({"loss": "drop-tail", "rand": "drop-tail + random proc."})
    curves = loss_curves(d.conn.to_numpy(), sorted(d.wc.unique().astype(int)))
    curves = curves.rename(columns={"loss_rate": "loss_rate"})
    return plots.lines(d.rename(columns={"conn": "flows"}), out, "loss_vs_flows", x="flows",
                       y="loss_rate", hue="queue", panel="panel",
                       curves=curves.rename(columns={"conn": "flows"}), logx=True, logy=True,
                       title="Loss vs number of flows (Figs. 3, 9, 10, 12, 18)")


def fig_goodput(data: dict, out: Path) -> Any:
    r = data["runs"]
    d = r[r.series.isin(["loss", "rand"])].copy()
    if not len(d):
        return plots.empty_figure(out, "throughput_goodput", "no loss sweep")
    d["queue"] = d.series.map({"loss": "drop-tail", "rand": "drop-tail + random proc."})
    d["W_c"] = d.wc.astype(int).astype(str)
    m = d.melt(id_vars=["conn", "W_c", "queue"], value_vars=["throughput", "goodput"],
               var_name="metric", value_name="normalized")
    m["panel"] = m.metric
    return plots.lines(m.rename(columns={"conn": "flows"}), out, "throughput_goodput",
                       x="flows", y="normalized", hue="W_c", panel="panel", logx=True,
                       title="Normalized throughput and goodput (Figs. 7, 8, 15, 16)")


def fig_regimes_queue(data: dict, out: Path) -> Any:
    ts = data["queue_ts"]
    return plots.queue_timeseries(ts, out, "regime_queues", hue="name", panel="name",
                                  avg=True, title="Bottleneck queue, 30 s after warm-up:")


def fig_regimes_flows(data: dict, out: Path) -> Any:
    f = data["flows"]
    d = f[f.series == "regimes"].copy()
    if not len(d):
        return plots.empty_figure(out, "regime_flows", "no regime runs")
    d["rank"] = d.groupby("name").pkts.rank(method="first")
    return plots.lines(d, out, "regime_flows", x="rank", y="pkts", hue="name", markers=False,
                       title="Packets received per flow, ranked (Figs. 2, 4, 6, 11, 13, 14, "
                       "20-22)")


def fig_regimes_bars(data: dict, out: Path) -> Any:
    r = data["runs"]
    d = r[r.series == "regimes"]
    return plots.bars(d, out, "regime_summary", x="name",
                      metrics=["loss_rate", "jain", "shut_off_pct", "q_cov"],
                      title="Regimes: loss, fairness, shut-off flows, queue variability")


def fig_rtt(data: dict, out: Path) -> Any:
    pr = rtt_pairs(data)
    if not len(pr):
        return plots.empty_figure(out, "rtt_bias", "no RTT-bias runs")
    r = np.linspace(1, max(pr.rtt_ratio.max(), 1.5), 50)
    curves = pd.concat([
        pd.DataFrame({"rtt_ratio": r, "goodput_ratio": r * r, "curve": "r^2 (DT bound)"}),
        pd.DataFrame({"rtt_ratio": r, "goodput_ratio": 0.5 * r * r,
                      "curve": "0.5 r^2 (DT bound)"}),
        pd.DataFrame({"rtt_ratio": r, "goodput_ratio": r, "curve": "r (RED)"})])
    return plots.lines(pr, out, "rtt_bias", x="rtt_ratio", y="goodput_ratio", hue="queue",
                       curves=curves, title="RTT bias, two groups (Figs. 32, 34)")


def fig_fairness(data: dict, out: Path) -> Any:
    fr = fairness_ratio(data)
    return plots.boxes(fr, out, "fairness_ratio", x="queue", y="fairness_ratio",
                       title="Normalized fairness ratio f, 8 flows (Fig. 36)")


FIGURES = [fig_loss, fig_goodput, fig_regimes_queue, fig_regimes_flows, fig_regimes_bars,
           fig_rtt, fig_fairness]


# -- claims --------------------------------------------------------------------------------------


def _fit_hyperbola(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    from scipy.optimize import curve_fit  # noqa: PLC0415

    try:
        (a, b), _ = curve_fit(hyperbola, x, y, p0=(x.max(), y.max() * 1.5), maxfev=20000,
                              bounds=([1e-3, 1e-4], [1e6, 10]))
        return float(a), float(b)
    except (RuntimeError, ValueError):
        return math.nan, math.nan


def claims(data: dict, p: Profile) -> ClaimTable:
    r = data["runs"]
    t = ClaimTable(STUDY)

    add = t.adder(p.tests)

    loss = r[r.series == "loss"].groupby(["wc", "conn"], as_index=False).mean(numeric_only=True)
    large = loss[loss.wc > 3 * loss.conn]
    err = (np.abs(large.loss_rate / sync_loss(large.wc / large.conn) - 1)
           if len(large) else pd.Series(dtype=float))
    add("Q-sync-formula", "Large pipe (W_c > 3 Conn): the synchronised-loss formula "
        "8/(3W^2+21W+8) predicts the loss (Fig. 3)", "median |rel. error| <= 0.3",
        float(err.median()) if len(err) else math.nan, "formula fit", 0.3,
        note=f"{len(large)} large-pipe points; the digest's probes agreed to about 30 %",
        if_not="ns-3 NewReno-style recovery and per-ACK RTT sampling change the loss per "
        "episode")
    if len(large):
        sub = large[large.wc == large.wc.max()].sort_values("conn")
        sub = sub[sub.loss_rate > 0]
        slope = (float(np.polyfit(np.log(sub.conn), np.log(sub.loss_rate), 1)[0])
                 if len(sub) >= 3 else math.nan)
    else:
        slope = math.nan
    add("Q-loss-quadratic", "Loss grows ~ Conn^2 for few flows (W_c > 3 Conn; Fig. 9)",
        (1.5, 2.5), slope, "in range", note="log-log slope, largest W_c")
    for wc, (a, b) in TABLE1_T1.items():
        d = loss[(loss.wc == wc) & (loss.conn > wc / 3)]
        e = (float(np.median(np.abs(d.loss_rate / hyperbola(d.conn, a, b) - 1)))
             if len(d) >= 2 else math.nan)
        fa, fb = _fit_hyperbola(d.conn.to_numpy(float), d.loss_rate.to_numpy(float)) \
            if len(d) >= 3 else (math.nan, math.nan)
        fit = f"our fit a = {fa:.4g}, b = {fb:.4g}" if not math.isnan(fa) else "too few points"
        add(f"Q-hyperbola-{wc}", f"W_c = {wc}, Conn > W_c/3: loss follows y = b x/(x+a) with "
            f"Table 1's a = {a:g}, b = {b:g} (Fig. 10)", "median |rel. error| <= 0.3", e,
            "formula fit", 0.3, note=f"{len(d)} points; {fit}", runs=wc in p.wcs,
            if_not="shut-off flows' timeout behaviour (ns-3 RTO, SYN retries) sets the "
            "asymptote b")
    thr = r[r.series.isin(["loss", "rand"]) & (r.buffer > W_OPT)]
    add("Q-throughput", "Throughput ~ link capacity whenever B > W_opt (within 2 %; Fig. 7b)",
        0.98, float(thr.throughput.min()) if len(thr) else math.nan, "greater", 0,
        note="minimum normalized throughput")
    slopes = []
    for _, d in loss.groupby("wc"):
        if len(d) >= 3:
            slopes.append(float(np.polyfit(d.conn, d.goodput, 1)[0]))
    add("Q-goodput-linear", "Goodput decreases (linearly) with the number of flows (Fig. 8)",
        0.0, -max(slopes) if slopes else math.nan, "greater", 0,
        note="measured: minus the least negative slope of goodput vs Conn over W_c")

    reg = r[r.series == "regimes"].groupby("name").mean(numeric_only=True)

    def rv(name: str, col: str) -> float:
        key = f"regime-{name}"
        return float(reg.loc[key, col]) if key in reg.index else math.nan

    add("Q-regime-large-swings", "Large pipe (Conn 100, B 400): buffer swings between half and "
        "full (global synchronisation; Fig. 2)", (0.25, 0.65), rv("large-dt", "q_p5") / 400,
        "in range", note="5th percentile of the queue / B; synchronised halving predicts "
        "(B - W_opt)/2B = 0.45")
    add("Q-regime-large-fair", "Large pipe: very fair sharing (Fig. 2)", 0.9,
        rv("large-dt", "jain"), "greater", 0, note="Jain index of per-flow goodput")
    add("Q-regime-small-shutoff", "Small pipe (Conn 300, W_c 100): part of the flows shut off "
        "(Fig. 4)", 10.0, rv("small-dt", "shut_off_pct"), "greater", 0,
        note="% of flows below 10 % of the fair share")
    add("Q-regime-small-active", "Small pipe: the number of active flows is about W_c = 100",
        100, rv("small-dt", "active"), "ratio within", 0.5,
        if_not="ns-3 retries SYNs and RTOs with backoff but shut-off flows still get "
        "occasional packets through, counted active above 10 % of the fair share")
    add("Q-regime-medium-fair", "Medium pipe (Conn 100, B 160): reasonably fair, almost no "
        "shut-off flows (Fig. 6)", 5.0, rv("medium-dt", "shut_off_pct"), "less", 0)
    add("Q-rand-stable", "Random processing time (10 % RTT) mutes global sync: the buffer stays "
        "mostly full (Fig. 11)", "rand > dt",
        {"rand": rv("large-rand", "q_p5"), "dt": rv("large-dt", "q_p5")}, "ordering", 0,
        note="5th percentile of the queue")
    add("Q-rand-less-fair", "Random processing time makes per-flow throughput less fair "
        "(Fig. 11)", "dt > rand", {"dt": rv("large-dt", "jain"), "rand": rv("large-rand",
                                                                           "jain")},
        "ordering", 0)
    rnd = r[r.series == "rand"].groupby(["wc", "conn"]).mean(numeric_only=True)
    syn = loss.set_index(["wc", "conn"])
    both = syn.join(rnd, rsuffix="_rand", how="inner")
    many = both[both.index.get_level_values("conn") > 100]
    add("Q-rand-loss-higher", "Beyond 100 flows the unsynchronised loss is higher than the "
        "synchronised one (Fig. 12)", 0.5,
        float((many.loss_rate_rand > many.loss_rate).mean()) if len(many) else math.nan,
        "greater", 0, note="share of (W_c, Conn > 100) points where loss(random) > loss(DT)")
    add("Q-rand-throughput", "Random processing changes aggregate throughput little", 0.0,
        float((both.throughput_rand - both.throughput).abs().max()) if len(both) else math.nan,
        "abs within", 0.02, note="largest |difference| of normalized throughput")
    add("Q-red-large-bounded", "RED-1, large pipe (B 760): average queue between min_th 127 "
        "and max_th 380 (Fig. 20)", (760 / 6, 760 / 2), rv("large-red1", "red_avg"), "in range")
    add("Q-red-large-fair", "RED-1, large pipe: 'quite fair', per-flow packets 120 to 280 "
        "(max/min 2.3)", 3.0, rv("large-red1", "pkts_max") / rv("large-red1", "pkts_min"),
        "less", 0, note="max/min packets received per flow")
    add("Q-red-small-osc", "RED-3, small pipe: queue oscillates between 0 and about 2 max_th "
        "= 30 (Fig. 21)", (15, 60), rv("small-red3", "q_p95"), "in range",
        note="95th percentile of the queue")
    add("Q-red-medium-maxth", "RED-2, medium pipe: queue oscillates around max_th = 187 "
        "(Fig. 22)", 186.7, rv("medium-red2", "q_mean"), "ratio within", 0.35)
    add("Q-red-comparable", "RED's aggregate goodput is comparable to drop-tail's (same B)",
        0.0, abs(rv("medium-red2", "goodput") - rv("medium-dt560", "goodput")), "abs within",
        0.03)
    sk = r[r.series == "sack"]
    if len(sk):
        g = sk.groupby("name").goodput.mean()
        sack_diff = float(g.get("sack-wc300", math.nan) - g.get("reno-wc300", math.nan))
    else:
        sack_diff = math.nan
    add("Q-sack-goodput", "SACK's goodput is slightly higher than Reno's (Figs. 27-30)", 0.0,
        sack_diff, "greater", 0, note="mean goodput difference SACK - Reno over Conn")
    pr = rtt_pairs(data)
    if len(pr):
        dt = pr[(pr.queue == "dt") & (pr.rtt_ratio > 1.2)]
        inside = ((dt.goodput_ratio >= 0.8 * dt.dt_low) & (dt.goodput_ratio <= 1.2 * dt.dt_high))
        red = pr[(pr.queue == "red") & (pr.rtt_ratio > 1.2)]
        red_err = float(np.median(np.abs(red.goodput_ratio / red.rtt_ratio - 1))) \
            if len(red) else math.nan
        dt_share = float(inside.mean()) if len(dt) else math.nan
    else:
        dt_share = red_err = math.nan
    add("Q-rtt-dt", "Drop-tail RTT bias: 0.5 r^2 <= G2/G1 <= r^2 (eq. 1, r < 5; Fig. 32)", 0.74,
        dt_share, "greater", 0, note="share of ratios r > 1.2 inside the bounds (20 % slack)")
    add("Q-rtt-red", "RED RTT bias: G2/G1 ~ r (eq. 5; Fig. 34)", "median |rel. error| <= 0.3",
        red_err, "formula fit", 0.3)
    fr = fairness_ratio(data)
    fmeans = fr.groupby("queue").fairness_ratio.mean() if len(fr) else pd.Series(dtype=float)
    add("Q-fairness-red", "8 flows with different RTTs: RED is fairer than drop-tail "
        "(ratio f; Fig. 36)", "red > dt",
        {"red": float(fmeans.get("red", math.nan)), "dt": float(fmeans.get("dt", math.nan))},
        "ordering", 0, note=f"{len(fr) // 2 if len(fr) else 0} runs per queue (paper: 15)")
    return t
