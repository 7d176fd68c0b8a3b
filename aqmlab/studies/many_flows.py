"""Qiu, Zhang & Keshav, "Understanding the Performance of Many TCP Flows" (seed 003).

Long-lived Reno flows over a T1 (1.544 Mb/s, 50 ms one-way, 500-byte packets, W_opt = 40)
with a drop-tail or RED buffer B; W_c = W_opt + B is what the pipe and buffer hold (the
set-up: :mod:`aqmlab.studies.setups.qiu`). The regimes: large pipe W_c > 3 Conn (global
synchronisation), medium Conn < W_c < 3 Conn, small W_c < Conn (shut-off flows).

Formulas overlaid (digest B6): the synchronised loss P = 8 / (3W^2 + 21W + 8), W = W_c/Conn
(b = 1, no delayed ACK); the hyperbolas y = b x / (x + a) of Table 1 (drop-tail) and
Table 2 (random processing time); the RTT-bias bounds 0.5 r^2 <= G2/G1 <= r^2 (drop-tail)
and G2/G1 ~ r (RED); the fairness ratio f = (sum G_i RTT_i)^2 / (n sum (G_i RTT_i)^2).
Claims: ``claim_tables/many_flows.toml``, measured by the metrics below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.optimize import curve_fit

from aqmlab.studies import plots
from aqmlab.studies.arms import Arm, arms_frame, tags_of
from aqmlab.studies.claims import ClaimTable, Inputs, Measured, Metrics
from aqmlab.studies.common import Context, collect, stack
from aqmlab.studies.params import Params, Profiles
from aqmlab.studies.setups.qiu import (
    RUN_FIELDS,
    W_OPT,
    base,
    conns_zip,
    flow_rows,
    hyperbola,
    red_config,
    rtt_scenario,
    run_row,
    sync_loss,
    ts_rows,
)

STUDY = "many_flows"
TITLE = "Many TCP flows: loss, goodput and fairness across pipe sizes (Qiu et al.)"
TABLE1_T1 = {100: (144.9275, 0.3237), 200: (285.7143, 0.3429), 300: (454.5454, 0.3682),
             400: (526.3158, 0.3517), 500: (769.2308, 0.3948)}
TABLE2_T1 = {100: (125.0, 0.4263), 200: (227.2727, 0.4505), 300: (333.3333, 0.4690),
             400: (500.0, 0.5123), 500: (666.6666, 0.5366)}


@dataclass(frozen=True, kw_only=True)
class ManyFlowsParams(Params):
    """``wcs`` x ``conns``: the loss sweep (drop-tail, and with random processing time if
    ``processing``); ``red``: the RED regimes; ``rtt_ratios``/``rtt_runs``/
    ``rtt_duration``: the RTT-bias runs (two groups per ratio, ``rtt_runs`` runs of 8
    flows); ``sack``: SACK vs Reno at W_c = 300."""

    study: ClassVar[str] = STUDY
    wcs: tuple[int, ...]
    conns: tuple[int, ...]
    duration: float
    warmup: float
    processing: bool
    red: bool
    rtt_ratios: tuple[float, ...]
    rtt_runs: int
    rtt_duration: float
    sack: bool


PROFILES = Profiles(
    tiny=ManyFlowsParams(profile="tiny", seeds=(1,), wcs=(100,), conns=(10, 50), duration=20.0,
                         warmup=5.0, processing=False, red=False, rtt_ratios=(1, 2), rtt_runs=1,
                         rtt_duration=20.0, sack=False),
    quick=ManyFlowsParams(profile="quick", seeds=(1,), wcs=(100, 300, 500),
                          conns=(10, 20, 40, 80, 150, 300), duration=60.0, warmup=15.0,
                          processing=True, red=True, rtt_ratios=(1, 2, 3, 4), rtt_runs=3,
                          rtt_duration=200.0, sack=True),
    full=ManyFlowsParams(profile="full", seeds=(1, 2, 3, 4, 5), wcs=(100, 200, 300, 400, 500),
                         conns=(1, 2, 5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 400, 500, 600,
                                800, 1000),
                         duration=200.0, warmup=20.0, processing=True, red=True,
                         rtt_ratios=(1, 1.5, 2, 3, 4, 5), rtt_runs=15, rtt_duration=200.0,
                         sack=True),
)


def profile(name: str = "quick", **overrides: Any) -> ManyFlowsParams:
    return PROFILES.get(name, **overrides)


# -- arms --------------------------------------------------------------------------------------


def loss_arms(wcs: tuple[int, ...], processing: str | None = None) -> list[Arm]:
    """Drop-tail buffer W_c - W_opt per W_c (``dt-wc<W_c>``), or with a random processing
    time (``rand-wc<W_c>``)."""
    out = []
    for wc in wcs:
        changes: dict[str, Any] = {"topology.forward_queue.limit": f"{wc - W_OPT}p"}
        if processing is None:
            out.append(Arm(f"dt-wc{wc}", changes, {"queue": "droptail", "wc": wc}))
        else:
            out.append(Arm(f"rand-wc{wc}", {**changes, "traffic[0].processing_time": processing},
                           {"queue": "droptail", "wc": wc, "processing": processing}))
    return out


def regime_arms(p: ManyFlowsParams) -> list[Arm]:
    """The regimes of Figs. 2-6 (drop-tail), 11 (random processing time) and 20-22 (RED)."""
    arms: dict[str, tuple[int, dict[str, Any], dict[str, Any]]] = {
        "large-dt": (100, {"topology.forward_queue.limit": "400p"}, {"queue": "droptail"}),
        "medium-dt": (100, {"topology.forward_queue.limit": "160p"}, {"queue": "droptail"}),
        "small-dt": (300, {"topology.forward_queue.limit": "60p"}, {"queue": "droptail"}),
    }
    if p.processing:
        for k in ("large", "medium", "small"):
            n, ch, _ = arms[f"{k}-dt"]
            arms[f"{k}-rand"] = (n, {**ch, "traffic[0].processing_time": "10ms"},
                                 {"queue": "droptail", "processing": "10ms"})
    if p.red:
        arms["large-red1"] = (100, {"topology.forward_queue": red_config("red1", 760)},
                              {"queue": "red1"})
        arms["medium-red2"] = (100, {"topology.forward_queue": red_config("red2", 560)},
                               {"queue": "red2"})
        arms["small-red3"] = (100, {"topology.forward_queue": red_config("red3", 560)},
                              {"queue": "red3"})
        arms["medium-dt560"] = (100, {"topology.forward_queue.limit": "560p"},
                                {"queue": "droptail"})
    return [Arm(f"regime-{name}", {**ch, "topology.senders": n, "traffic[0].flows": n},
                {"regime": name.split("-")[0], "conn": n, **tags})
            for name, (n, ch, tags) in arms.items()]


def sack_arms() -> list[Arm]:
    return [Arm("reno-wc300", {"topology.forward_queue.limit": "260p"},
                {"tcp": "reno", "wc": 300}),
            Arm("sack-wc300", {"topology.forward_queue.limit": "260p", "tcp.variant": "sack"},
                {"tcp": "sack", "wc": 300})]


#: The queues of the RTT-bias runs (Figs. 32-36): drop-tail and RED-1.
RTT_QUEUES = {"dt": {}, "red": {"topology.forward_queue": red_config("red1", 160)}}


def rtt_arms(arms: list[Arm]) -> list[Arm]:
    """Every RTT arm over every queue of :data:`RTT_QUEUES` (``<arm>-<queue>``)."""
    return [Arm(f"{a.label}-{q}", {**a.changes, **qa}, {**a.tags, "queue": q})
            for a in arms for q, qa in RTT_QUEUES.items()]


# -- runs --------------------------------------------------------------------------------------


def run(p: ManyFlowsParams, ctx: Context) -> dict[str, pd.DataFrame]:
    b = base(p.duration, p.warmup)
    runs, flows, ts = [], [], []
    swept: list[Arm] = []

    def add(series: str, sw: Any, with_flows: bool = False, with_ts: bool = False) -> None:
        runs.append(collect(sw, run_row, fields=RUN_FIELDS).assign(series=series))
        if with_flows:
            flows.append(collect(sw, flow_rows).assign(series=series))
        if with_ts:
            ts.append(collect(sw, ts_rows).assign(series=series))

    def sweep(base_: Any, name: str, arms: list[Arm], **kw: Any) -> Any:
        swept.extend(arms)
        return ctx.sweep(base_, name=name, arms=arms, **kw)

    add("loss", sweep(b, "qiu-loss", loss_arms(p.wcs), zip=conns_zip(p.conns), seeds=p.seeds))
    if p.processing:
        add("rand", sweep(b, "qiu-rand", loss_arms(p.wcs, "10ms"), zip=conns_zip(p.conns),
                          seeds=p.seeds))
    add("regimes", sweep(b, "qiu-regimes", regime_arms(p), seeds=p.seeds[:1]),
        with_flows=True, with_ts=True)
    if p.sack:
        conns = [c for c in p.conns if 10 <= c <= 300] or p.conns
        add("sack", sweep(b, "qiu-sack", sack_arms(), zip=conns_zip(conns), seeds=p.seeds))
    for series, (ratios, n) in {"rtt2": (p.rtt_ratios, 0), "rtt8": (None, p.rtt_runs)}.items():
        sc, arms = rtt_scenario(b, p.rtt_duration, ratios, n)
        add(series, sweep(sc, f"qiu-{series}", rtt_arms(arms), seeds=p.seeds[:1]),
            with_flows=True)
    return {"runs": stack(runs), "flows": stack(flows), "queue_ts": stack(ts),
            "arms": arms_frame(swept)}


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
    tags = tags_of(data)
    rows = []
    for name, g in f.groupby("name", sort=False):
        g1, g2 = g[g.grp == 1], g[g.grp == 2]
        if not len(g1):  # ratio 1: split the six flows 3/3 by index
            g1, g2 = g.iloc[:3], g.iloc[3:]
        r = float(g1.rtt_s.mean() / g2.rtt_s.mean())
        ratio = float(g2.goodput_mbps.mean() / g1.goodput_mbps.mean())
        rows.append({"name": name, "queue": tags[name]["queue"], "rtt_ratio": r,
                     "goodput_ratio": ratio, "dt_low": 0.5 * r * r, "dt_high": r * r})
    return pd.DataFrame(rows)


def fairness_ratio(data: dict) -> pd.DataFrame:
    """Normalized fairness ratio f (Jain of goodput x RTT) per 8-flow run."""
    f = data["flows"]
    f = f[f.series == "rtt8"]
    tags = tags_of(data)
    rows = []
    for name, g in f.groupby("name", sort=False):
        x = (g.goodput_mbps * g.rtt_s).to_numpy()
        rows.append({"name": name, "queue": tags[name]["queue"],
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
# -- claims: metrics of claim_tables/many_flows.toml -----------------------------------------

METRICS = Metrics(STUDY)


def _fit_hyperbola(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    try:
        (a, b), _ = curve_fit(hyperbola, x, y, p0=(x.max(), y.max() * 1.5), maxfev=20000,
                              bounds=([1e-3, 1e-4], [1e6, 10]))
        return float(a), float(b)
    except (RuntimeError, ValueError):
        return math.nan, math.nan


def _loss(x: Inputs) -> pd.DataFrame:
    r = x.data["runs"]
    return r[r.series == "loss"].groupby(["wc", "conn"], as_index=False).mean(numeric_only=True)


def _large(x: Inputs) -> pd.DataFrame:
    loss = x.cached(_loss)
    return loss[loss.wc > 3 * loss.conn]


@METRICS
def sync_formula_error(x: Inputs) -> Measured:
    """Median |relative error| of the large-pipe loss against the synchronised formula."""
    large = _large(x)
    err = (np.abs(large.loss_rate / sync_loss(large.wc / large.conn) - 1)
           if len(large) else pd.Series(dtype=float))
    return Measured(float(err.median()) if len(err) else math.nan,
                    values={"points": len(large)})


@METRICS
def loss_slope_large_pipe(x: Inputs) -> float:
    large = _large(x)
    if not len(large):
        return math.nan
    sub = large[large.wc == large.wc.max()].sort_values("conn")
    sub = sub[sub.loss_rate > 0]
    return (float(np.polyfit(np.log(sub.conn), np.log(sub.loss_rate), 1)[0])
            if len(sub) >= 3 else math.nan)


@METRICS.each
def table1(x: Inputs) -> list[dict[str, Any]]:
    """Table 1's hyperbolas: W_c, a, b."""
    return [{"wc": wc, "a": a, "b": b} for wc, (a, b) in TABLE1_T1.items()]


@METRICS
def hyperbola_error(x: Inputs, wc: int, a: float, b: float) -> Measured:
    """Median |relative error| against Table 1's hyperbola for W_c (tested when the
    profile runs that W_c), with our own fit in the note."""
    loss = x.cached(_loss)
    d = loss[(loss.wc == wc) & (loss.conn > wc / 3)]
    e = (float(np.median(np.abs(d.loss_rate / hyperbola(d.conn, a, b) - 1)))
         if len(d) >= 2 else math.nan)
    fa, fb = _fit_hyperbola(d.conn.to_numpy(float), d.loss_rate.to_numpy(float)) \
        if len(d) >= 3 else (math.nan, math.nan)
    fit = f"our fit a = {fa:.4g}, b = {fb:.4g}" if not math.isnan(fa) else "too few points"
    return Measured(e, tested=wc in x.p.wcs, values={"points": len(d), "fit": fit})


@METRICS
def min_throughput(x: Inputs) -> float:
    r = x.data["runs"]
    thr = r[r.series.isin(["loss", "rand"]) & (r.buffer > W_OPT)]
    return float(thr.throughput.min()) if len(thr) else math.nan


@METRICS
def goodput_slope(x: Inputs) -> float:
    """Minus the least negative slope of goodput vs Conn over W_c."""
    slopes = []
    for _, d in x.cached(_loss).groupby("wc"):
        if len(d) >= 3:
            slopes.append(float(np.polyfit(d.conn, d.goodput, 1)[0]))
    return -max(slopes) if slopes else math.nan


def _regimes(x: Inputs) -> pd.DataFrame:
    r = x.data["runs"]
    return r[r.series == "regimes"].groupby("name").mean(numeric_only=True)


def _rv(x: Inputs, name: str, col: str) -> float:
    reg = x.cached(_regimes)
    key = f"regime-{name}"
    return float(reg.loc[key, col]) if key in reg.index else math.nan


@METRICS
def regime(x: Inputs, arm: str, col: str, per: float = 1.0) -> float:
    """``col`` of regime ``arm`` (mean over its runs), divided by ``per``."""
    value = _rv(x, arm, col)
    return value / per if per != 1.0 else value


@METRICS
def regimes(x: Inputs, col: str, arms: dict[str, str]) -> dict[str, float]:
    """``col`` of several regimes, as {label: value}."""
    return {label: _rv(x, arm, col) for label, arm in arms.items()}


@METRICS
def regime_ratio(x: Inputs, arm: str, col: str, per: str) -> float:
    return _rv(x, arm, col) / _rv(x, arm, per)


@METRICS
def regime_gap(x: Inputs, a: str, b: str, col: str) -> float:
    return abs(_rv(x, a, col) - _rv(x, b, col))


def _rand_vs_sync(x: Inputs) -> pd.DataFrame:
    r = x.data["runs"]
    rnd = r[r.series == "rand"].groupby(["wc", "conn"]).mean(numeric_only=True)
    syn = x.cached(_loss).set_index(["wc", "conn"])
    shared = rnd.columns.intersection(syn.columns)
    return syn.join(rnd.rename(columns={c: f"{c}_rand" for c in shared}), how="inner")


@METRICS
def rand_loss_higher(x: Inputs) -> float:
    both = _rand_vs_sync(x)
    many = both[both.index.get_level_values("conn") > 100]
    return float((many.loss_rate_rand > many.loss_rate).mean()) if len(many) else math.nan


@METRICS
def rand_throughput_change(x: Inputs) -> float:
    both = _rand_vs_sync(x)
    return (float((both.throughput_rand - both.throughput).abs().max()) if len(both)
            else math.nan)


@METRICS
def sack_goodput_gain(x: Inputs) -> float:
    r = x.data["runs"]
    sk = r[r.series == "sack"]
    if not len(sk):
        return math.nan
    g = sk.groupby("name").goodput.mean()
    return float(g.get("sack-wc300", math.nan) - g.get("reno-wc300", math.nan))


@METRICS
def rtt_dt_in_bounds(x: Inputs) -> float:
    """Share of drop-tail ratios r > 1.2 inside 0.5 r^2 .. r^2 (20 % slack)."""
    pr = rtt_pairs(x.data)
    if not len(pr):
        return math.nan
    dt = pr[(pr.queue == "dt") & (pr.rtt_ratio > 1.2)]
    inside = ((dt.goodput_ratio >= 0.8 * dt.dt_low) & (dt.goodput_ratio <= 1.2 * dt.dt_high))
    return float(inside.mean()) if len(dt) else math.nan


@METRICS
def rtt_red_error(x: Inputs) -> float:
    """Median |G2/G1 / r - 1| of the RED runs with r > 1.2."""
    pr = rtt_pairs(x.data)
    if not len(pr):
        return math.nan
    red = pr[(pr.queue == "red") & (pr.rtt_ratio > 1.2)]
    return float(np.median(np.abs(red.goodput_ratio / red.rtt_ratio - 1))) if len(red) \
        else math.nan


@METRICS
def fairness_by_queue(x: Inputs) -> Measured:
    fr = fairness_ratio(x.data)
    fmeans = fr.groupby("queue").fairness_ratio.mean() if len(fr) else pd.Series(dtype=float)
    return Measured({"red": float(fmeans.get("red", math.nan)),
                     "dt": float(fmeans.get("dt", math.nan))},
                    values={"runs": len(fr) // 2 if len(fr) else 0})


CLAIMS = METRICS.table()


def claims(data: dict, p: ManyFlowsParams) -> ClaimTable:
    """The paper's claims (``claim_tables/many_flows.toml``) measured on ``data``."""
    return CLAIMS.evaluate(data, p)


__all__ = ["STUDY", "TITLE", "ManyFlowsParams", "PROFILES", "profile", "run", "FIGURES",
           "METRICS", "CLAIMS", "claims", "loss_curves", "rtt_pairs", "fairness_ratio",
           "TABLE1_T1", "TABLE2_T1"]
