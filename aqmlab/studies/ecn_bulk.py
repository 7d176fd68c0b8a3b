"""Pentikousis, Badr & Kharmah, "On the Performance Gains of TCP with ECN" (seed 002).

One FTP server sends 20 MiB to each of N clients over a 1.5 Mb/s, 20 ms bottleneck; every
node uses the same mechanism at router B: drop-tail (DT), RED dropping ("conservative"
max_p 2 %, "aggressive" 10 %) or RED marking with ECN-capable TCP. Queue limit QL 4..256;
min_th = 5 QL / 16 (the digest's reconstruction: (20, 60) at QL 64, Floyd's (5, 15) at 16),
max_th = 3 min_th, w_q 0.002. Base scenario: ``examples/pentikousis_ecn_5clients.toml``.

Metrics (digest A6): goodput efficiency = payload / (1.5 Mb/s x the slowest completion),
spread of download times (T_max - T_min) / T_min, drops and marks at router B, per client.
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

STUDY = "ecn_bulk"
TITLE = "ECN with bulk transfers (Pentikousis et al.)"
PAYLOAD_BPS = 1.5e6
SCHEMES = {  # label -> (RED max_p or None for drop-tail, ECN)
    "dt": (None, False),
    "cons-red": (0.02, False),
    "aggr-red": (0.10, False),
    "cons-ecn": (0.02, True),
    "aggr-ecn": (0.10, True),
}


def profile(name: str = "quick", **overrides: Any) -> Profile:
    return get_profile(STUDY, name, **overrides)


def base(p: Profile) -> Scenario:
    return example("pentikousis_ecn_5clients").replace(**{
        "name": "pentikousis", "traffic[0].size": p.size,
        "description": "Pentikousis et al.: bulk downloads through router B"})


def queue(scheme: str, ql: int) -> dict[str, Any]:
    """Router B's queue for a scheme and limit (min_th = 5 QL / 16, max_th = 3 min_th)."""
    max_p, ecn = SCHEMES[scheme]
    if max_p is None:
        return {"kind": "droptail", "limit": f"{ql}p"}
    min_th = 5 * ql / 16
    return {"kind": "red", "limit": f"{ql}p", "min_th": min_th, "max_th": 3 * min_th,
            "max_p": max_p, "w_q": 0.002, "ecn": ecn}


def arm(scheme: str, ql: int) -> dict[str, Any]:
    return {"topology.forward_queue": queue(scheme, ql), "tcp.ecn": SCHEMES[scheme][1]}


def arms(schemes: list[str], qls: list[int], prefix: str = "") -> dict[str, dict]:
    return {f"{prefix}{s}-q{ql}": arm(s, ql) for s in schemes for ql in qls}


def clients_zip(ns: list[int]) -> dict[str, list]:
    return {"topology.receivers": list(ns), "traffic[0].count": list(ns)}


# -- runs --------------------------------------------------------------------------------------


FLOW_COLUMNS = ["client", "completion_s", "completed", "flow_drops", "flow_marks", "sent",
                "retx", "timeouts", "ecn", "bytes", "queue_drops", "queue_marks"]


def flow_rows(res: Any) -> pd.DataFrame:
    """One row per client (FLOW_COLUMNS) of a run."""
    f = res.flows
    q = res.queues.iloc[0]
    return pd.DataFrame({
        "client": np.arange(len(f)), "completion_s": f.completion_time_s.to_numpy(),
        "completed": f.completed.to_numpy(), "flow_drops": f.drops.to_numpy(),
        "flow_marks": f.marks.to_numpy(), "sent": f.data_packets_sent.to_numpy(),
        "retx": f.retransmitted_packets.to_numpy(), "timeouts": f.timeouts.to_numpy(),
        "ecn": f.ecn.to_numpy(), "bytes": f.total_bytes_delivered.to_numpy(),
        "queue_drops": int(q.drops), "queue_marks": int(q.marks),
    })


RUN_STATS = ["clients", "all_completed", "efficiency_pct", "slowest_s", "fastest_s",
             "spread_pct", "drops", "marks", "sent", "retx", "timeouts", "jain"]


def run_stats(flows: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per run: efficiency, spread, drops, marks, packets sent (digest A6)."""
    rows = []
    for keys, g in flows.groupby(by, sort=False, dropna=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        t = g.completion_s
        done = bool(g.completed.all())
        tmax, tmin = float(t.max()), float(t.min())
        rows.append({**dict(zip(by, keys, strict=True)),
                     "clients": len(g), "all_completed": done,
                     "efficiency_pct": float(g.bytes.sum() * 8 / (PAYLOAD_BPS * tmax) * 100)
                     if done else math.nan,
                     "slowest_s": tmax if done else math.nan,
                     "fastest_s": tmin if done else math.nan,
                     "spread_pct": (tmax - tmin) / tmin * 100 if done else math.nan,
                     "drops": int(g.queue_drops.iloc[0]), "marks": int(g.queue_marks.iloc[0]),
                     "sent": int(g.sent.sum()), "retx": int(g.retx.sum()),
                     "timeouts": int(g.timeouts.sum()),
                     "jain": float(_jain(g.bytes * 8 / g.completion_s)) if done else math.nan})
    return pd.DataFrame(rows, columns=[*by, *RUN_STATS])


def _jain(x: pd.Series) -> float:
    x = np.asarray(x, float)
    return float(x.sum() ** 2 / (len(x) * (x**2).sum())) if len(x) and (x > 0).any() else math.nan


def _split(name: pd.Series) -> tuple[pd.Series, pd.Series]:
    if name.empty:
        return name, name.astype(int)
    parts = name.str.rsplit("-q", n=1, expand=True)
    return parts[0], parts[1].astype(int)


def run(p: Profile, ctx: Context) -> dict[str, pd.DataFrame]:
    """Every sweep of the study; returns tidy frames: ``flows`` (one row per client and
    run) and ``runs`` (one row per run) for the series main / clients10 / long_rtt /
    baseline / partial."""
    b = base(p)
    flows = []

    def add(series: str, sw: Any) -> None:
        df = collect(sw, flow_rows)
        if len(df):
            df.insert(0, "series", series)
            flows.append(df)

    add("main", ctx.sweep(b, name="pentikousis-qls", arms=arms(p.schemes, p.qls),
                          zip=clients_zip(p.clients), seeds=p.seeds))
    if p.clients10:
        add("clients10", ctx.sweep(b, name="pentikousis-10", arms=arms(
            p.schemes, p.qls10), zip=clients_zip([10]), seeds=p.seeds))
    if p.long_rtt:
        add("long_rtt", ctx.sweep(b.replace(**{"topology.bottleneck.delay": "100ms"}),
                                  name="pentikousis-100ms", arms=arms(p.schemes, p.qls_long),
                                  zip=clients_zip([10]), seeds=p.seeds))
    one = b.replace(**{"topology.receivers": 1, "traffic[0].count": 1})
    add("baseline", ctx.sweep(one, name="pentikousis-1", arms=arms(["dt"], p.baseline_qls),
                              seeds=p.seeds[:1]))
    if p.partial:
        add("partial", ctx.sweep(b, name="pentikousis-partial", arms=partial_arms(b),
                                 seeds=p.seeds))
    keys = ["series", "name", "topology.receivers", "seed"]
    flows_df = stack(flows, [*keys, *FLOW_COLUMNS])
    by = [c for c in keys if c in flows_df.columns]
    runs = run_stats(flows_df, by)
    runs["scheme"], runs["ql"] = _split(runs["name"].str.replace("partial-", "", regex=False))
    return {"flows": flows_df, "runs": runs}


def partial_arms(b: Scenario) -> dict[str, dict]:
    """Aggressive RED+ECN router, QL 64; the 5 clients as 5 groups of one transfer each;
    ECN on none / C1 / C0 and C1 (Section VIII, Fig. 6)."""
    size = b.traffic[0].size
    red = queue("aggr-ecn", 64)
    out = {}
    for label, ecn_clients in (("none", ()), ("c1", (1,)), ("c0c1", (0, 1))):
        groups = [{"kind": "transfers", "count": 1, "size": size, "receivers": [i],
                   "tcp": {"ecn": i in ecn_clients}} for i in range(5)]
        out[f"partial-{label}-q64"] = {"topology.forward_queue": red, "traffic": groups}
    return out


# -- figures -----------------------------------------------------------------------------------


def fig_efficiency(data: dict, out: Path) -> Any:
    r = data["runs"]
    d = r[r.series.isin(["main", "clients10"])]
    return plots.lines(d.assign(clients=d["clients"].astype(str) + " clients"), out,
                       "efficiency_vs_ql", x="ql", y="efficiency_pct", hue="scheme",
                       panel="clients", logx=True,
                       title="Goodput efficiency vs queue limit (Fig. 2)")


def fig_drops(data: dict, out: Path) -> Any:
    r = data["runs"]
    d = r[r.series.isin(["clients10", "long_rtt"])].copy()
    if not len(d):
        d = r[r.series == "main"].copy()
    d["delivered"] = d.sent - d.drops
    d["series"] = d.series.map({"clients10": "20 ms", "long_rtt": "100 ms", "main": "20 ms"})
    return plots.bars(d, out, "drops_by_scheme", x="ql", metrics=["drops", "sent"],
                      hue="scheme", title="Packets dropped and sent by the server, "
                      "10 clients (Figs. 7-8)" if "long_rtt" in set(r.series) else "")


def fig_spread(data: dict, out: Path) -> Any:
    r = data["runs"]
    d = r[r.series == "main"]
    return plots.bars(d, out, "spread_and_fairness", x="ql", metrics=["spread_pct", "jain"],
                      hue="scheme", title="Download-time spread and Jain fairness, "
                      f"{int(d.clients.max()) if len(d) else 0} clients")


def fig_progress(data: dict, out: Path) -> Any:
    """Download times per client at QL 64 (fastest and slowest marked), per scheme."""
    f = data["flows"]
    d = f[(f.series == "main") & f.name.str.endswith("-q64")].copy()
    if not len(d):
        return plots.empty_figure(out, "download_times_q64", "no QL 64 runs in this profile")
    d["scheme"] = d.name.str.replace("-q64", "", regex=False)
    d["client"] = "C" + d.client.astype(str)
    return plots.bars(d, out, "download_times_q64", x="client", metrics=["completion_s",
                      "flow_drops"], hue="scheme", title="Per-client download time and drops, "
                      "QL 64 (Figs. 3-5)")


def fig_partial(data: dict, out: Path) -> Any:
    f = data["flows"]
    d = f[f.series == "partial"].copy()
    if not len(d):
        return plots.empty_figure(out, "partial_ecn", "partial deployment not run")
    d["ecn clients"] = d.name.str.replace("partial-", "").str.replace("-q64", "")
    d["client"] = "C" + d.client.astype(str)
    return plots.bars(d, out, "partial_ecn", x="client", metrics=["completion_s", "flow_drops"],
                      hue="ecn clients", title="Partial ECN deployment, 5 clients, QL 64 "
                      "(Fig. 6)")


FIGURES = [fig_efficiency, fig_drops, fig_spread, fig_progress, fig_partial]


# -- claims ------------------------------------------------------------------------------------


def _get(r: pd.DataFrame, series: str, name: str, col: str, clients: int | None = None) -> float:
    d = r[(r.series == series) & (r.name == name)]
    if clients is not None:
        d = d[d.clients == clients]
    return float(d[col].mean()) if len(d) else math.nan


def claims(data: dict, p: Profile) -> ClaimTable:
    r, f = data["runs"], data["flows"]
    t = ClaimTable(STUDY)
    add = t.adder(p.tests)

    base_runs = r[r.series == "baseline"].sort_values("ql")
    zero = base_runs[base_runs.drops == 0]
    add("P-zero-drop-ql", "Smallest drop-tail QL with no drop, one client (Sec. VI)", 39,
        float(zero.ql.min()) if len(zero) and len(base_runs[base_runs.drops > 0]) else math.nan,
        "abs within", 0, note="needs QL 38 (drops) and 39 (none) in the grid",
        if_not="ns-3 TCP (initial window, delayed-ACK timing) fills the queue differently")
    at39 = base_runs[base_runs.ql == 39]
    add("P-baseline-time", "One client: 20 MiB take 112.5 s", 112.5,
        float(at39.slowest_s.mean()) if len(at39) else math.nan, "ratio within", 0.01,
        if_not="handshake and header emulation differ from ns-2's header-less packets")
    add("P-baseline-eff", "One client: goodput efficiency 99.4 %", 99.4,
        float(at39.efficiency_pct.mean()) if len(at39) else math.nan, "abs within", 0.5)

    main = r[r.series == "main"]
    n = int(main.clients.max()) if len(main) else 5
    big = main[main.ql >= 16]
    add("P-eff-ql16", f"Efficiency of every scheme >= 99 % once QL >= 16 ({n} clients)", 99.0,
        float(big.efficiency_pct.min()) if len(big) else math.nan, "greater", 0,
        note="minimum over schemes and QL >= 16",
        if_not="ns-3 slow start / recovery after the simultaneous start costs more")
    add("P-eff-same-ql16", "No significant efficiency difference between schemes at QL >= 16",
        0.0, float(big.groupby("ql").efficiency_pct.agg(lambda s: s.max() - s.min()).max())
        if len(big) else math.nan, "abs within", 1.0, note="largest range across schemes (pts)")
    small = main[main.ql == main.ql.min()] if len(main) else main
    qmin = int(main.ql.min()) if len(main) else 4
    add("P-dt-small-ql", f"DT efficiency deteriorates considerably at QL {qmin} (vs QL 64)",
        f"dt-q64 > dt-q{qmin}",
        {"dt-q64": _get(r, "main", "dt-q64", "efficiency_pct", n),
         f"dt-q{qmin}": _get(r, "main", f"dt-q{qmin}", "efficiency_pct", n)},
        "ordering", 0.01, note="tolerance: 1 % relative margin")
    red_small = small[small.scheme.str.contains("red|ecn")]
    add("P-red-beats-dt-small-ql", f"At QL {qmin}, RED (with or without ECN) keeps a higher "
        "efficiency than DT", "red > dt",
        {"red": float(red_small.efficiency_pct.mean()) if len(red_small) else math.nan,
         "dt": float(small[small.scheme == "dt"].efficiency_pct.mean())
         if len(small) else math.nan}, "ordering", 0,
        if_not="RED's advantage here is its one extra buffer slot (ns-2's RED holds QL "
        "waiting packets, its drop-tail QL - 1) and early drops; if RED's average "
        "(w_q 0.002) seldom reaches min_th = 5 QL/16, RED drops as drop-tail does")

    d64 = {s: _get(r, "main", f"{s}-q64", "drops", 5) for s in ("dt", "aggr-red", "aggr-ecn")}
    add("P-drops-order-q64", "5 clients, QL 64: drops RED (842) > DT (370) > ECN (39)",
        "aggr-red > dt > aggr-ecn", d64, "ordering", 0)
    add("P-drops-dt-q64", "5 clients, QL 64: drop-tail drops 370", 370, d64["dt"],
        "ratio within", 0.3, if_not="ns-3 NewReno-style recovery and PRR lose differently "
        "from ns-2 Reno (probe: 442)")
    add("P-drops-red-q64", "5 clients, QL 64: aggressive RED drops 842", 842, d64["aggr-red"],
        "ratio within", 0.5)
    add("P-drops-ecn-q64", "5 clients, QL 64: aggressive ECN drops 39", 39, d64["aggr-ecn"],
        "ratio within", 0.5)
    add("P-ecn-vs-red-drops", "ECN drops << RED drops (39 vs 842)", 0.2,
        d64["aggr-ecn"] / d64["aggr-red"] if d64["aggr-red"] else math.nan, "less", 0,
        note="measured: ECN drops / RED drops; paper 0.046")
    s64 = {s: _get(r, "main", f"{s}-q64", "spread_pct", 5) for s in ("dt", "aggr-red", "aggr-ecn")}
    add("P-spread-order", "Download-time spread: ECN (2.56 %) < DT (11.1 %) and RED (10.76 %)",
        "dt > aggr-ecn < aggr-red", s64, "ordering", 0,
        if_not="with simultaneous starts the order of clients is an event-ordering artefact")
    add("P-spread-ecn", "ECN spread of download times 2.56 % (5 clients, QL 64)", 2.56,
        s64["aggr-ecn"], "abs within", 2.5,
        if_not="aqmlab's ns-2-style Reno halving after early recovery exit (tests: 5.1 %)")
    add("P-eff-same-q64", "Efficiency stays the same for DT, RED and ECN at QL 64", 0.0,
        float(np.ptp([_get(r, "main", f"{s}-q64", "efficiency_pct", 5)
                      for s in ("dt", "aggr-red", "aggr-ecn")])), "abs within", 0.5)
    sp_small = {"dt": _get(r, "main", f"dt-q{qmin}", "spread_pct", n),
                "aggr-ecn": _get(r, "main", f"aggr-ecn-q{qmin}", "spread_pct", n)}
    add("P-lockout", f"ECN mostly avoids lockouts: at QL {qmin} its download-time spread is "
        "below drop-tail's", "dt > aggr-ecn", sp_small, "ordering", 0,
        if_not="at this queue limit RED seldom marks (see P-red-beats-dt-small-ql), so the "
        "ECN run is close to the drop-tail run")

    part = r[r.series == "partial"]
    fpart = f[f.series == "partial"]

    def client(label: str, c: int, col: str) -> float:
        d = fpart[(fpart.name == f"partial-{label}-q64") & (fpart.client == c)]
        return float(d[col].mean()) if len(d) else math.nan

    add("P-partial-c1-drops", "Partial ECN: C1 with ECN loses far fewer packets than without "
        "(153 -> 7)", "without > with",
        {"without": client("none", 1, "flow_drops"), "with": client("c1", 1, "flow_drops")},
        "ordering", 0.5, note="tolerance: 'far fewer' = less than half")
    add("P-partial-c1-earlier", "Partial ECN: C1 finishes earlier with ECN (14 s earlier)", 0.0,
        client("none", 1, "completion_s") - client("c1", 1, "completion_s"), "greater", 0,
        note="measured: seconds saved by C1",
        if_not="C1 is not the slowest client here: which client suffers is an event-ordering "
        "artefact of simultaneous starts")
    add("P-partial-min-goodput", "Minimum goodput over the clients rises as ECN hosts are added",
        "c0c1 >= c1 >= none",
        {k: float(5 * 20 / part[part.name == f"partial-{k}-q64"].slowest_s.mean())
         if len(part[part.name == f"partial-{k}-q64"]) else math.nan
         for k in ("none", "c1", "c0c1")}, "ordering", 0.01,
        note="measured: 100 MiB / slowest completion (relative); weak steps. With the "
        "link always busy the slowest completion is total bytes / capacity whatever the "
        "sharing, so this measure is weak")

    c10 = r[r.series == "clients10"]
    ecn10 = {int(q): _get(r, "clients10", f"aggr-ecn-q{q}", "drops", 10) for q in (16, 32, 64, 128)}
    others10 = c10[c10.scheme != "aggr-ecn"]
    fewest = None
    if len(c10):
        fewest = all(ecn10[q] <= others10[others10.ql == q].drops.min()
                     for q in ecn10 if not math.isnan(ecn10[q]) and (others10.ql == q).any())
    add("P-ecn-fewest-drops", "10 clients: aggressive ECN has the fewest drops at every QL",
        "fewest", fewest, "true")
    add("P-ecn-64-vs-128", "10 clients: aggressive ECN drops fewer at QL 64 than at QL 128",
        "q128 > q64", {"q128": ecn10[128], "q64": ecn10[64]}, "ordering", 0,
        if_not="an oddity of the paper's single run: a larger buffer keeps RED's average "
        "in the marking region less often")
    o32 = others10[others10.ql == 32]
    add("P-ecn-q32-tiny", "10 clients, QL 32: aggressive ECN drops an extremely small fraction "
        "of what the others drop", 0.1,
        ecn10[32] / float(o32.drops.min()) if len(o32) and o32.drops.min() > 0 else math.nan,
        "less", 0, note="measured: ECN drops / fewest drops of the other schemes")
    add("P-10-clients-dt", "10 clients, DT, QL 64: slowest client finishes at 1120.5 s", 1120.5,
        _get(r, "clients10", "dt-q64", "slowest_s", 10), "ratio within", 0.02)
    lr = r[r.series == "long_rtt"]
    if len(lr) and len(c10):
        dl = {q: (_get(r, "long_rtt", f"dt-q{q}", "drops", 10),
                  _get(r, "clients10", f"dt-q{q}", "drops", 10)) for q in (32, 64)}
        fewer = all(a < b for a, b in dl.values() if not (math.isnan(a) or math.isnan(b)))
        eff_l = float(lr.efficiency_pct.mean())
        eff_s = float(c10[c10.ql.isin(lr.ql.unique())].efficiency_pct.mean())
    else:
        fewer, eff_l, eff_s = None, math.nan, math.nan
    add("P-long-rtt-fewer-drops", "100 ms bottleneck: fewer drops than at 20 ms for a given QL "
        "(DT, QL 32 and 64)", "fewer", fewer, "true")
    add("P-long-rtt-eff", "100 ms bottleneck: efficiency lower than at 20 ms (Fig. 9 vs 2b)",
        "20ms > 100ms", {"20ms": eff_s, "100ms": eff_l}, "ordering", 0)
    return t

