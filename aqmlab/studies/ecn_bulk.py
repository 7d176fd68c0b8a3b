"""Pentikousis, Badr & Kharmah, "On the Performance Gains of TCP with ECN" (seed 002).

One FTP server sends 20 MiB to each of N clients over a 1.5 Mb/s, 20 ms bottleneck; every
node uses the same mechanism at router B: drop-tail (DT), RED dropping ("conservative"
max_p 2 %, "aggressive" 10 %) or RED marking with ECN-capable TCP. Queue limit QL 4..256;
min_th = 5 QL / 16 (the digest's reconstruction: (20, 60) at QL 64, Floyd's (5, 15) at 16),
max_th = 3 min_th, w_q 0.002 (the set-up: :mod:`aqmlab.studies.setups.pentikousis`).

Metrics (digest A6): goodput efficiency = payload / (1.5 Mb/s x the slowest completion),
spread of download times (T_max - T_min) / T_min, drops and marks at router B, per client.
Claims: ``claim_tables/ecn_bulk.toml``, measured by the metrics below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from aqmlab.scenario import Scenario
from aqmlab.studies import plots
from aqmlab.studies.arms import Arm, arm_set, arms_frame, tag
from aqmlab.studies.claims import ClaimTable, Inputs, Metrics
from aqmlab.studies.common import Context, collect, stack
from aqmlab.studies.params import Params, Profiles
from aqmlab.studies.setups.pentikousis import (
    FLOW_COLUMNS,
    SCHEMES,
    base,
    clients_zip,
    flow_rows,
    queue,
    run_stats,
    scheme_arm,
)

STUDY = "ecn_bulk"
TITLE = "ECN with bulk transfers (Pentikousis et al.)"


@dataclass(frozen=True, kw_only=True)
class EcnBulkParams(Params):
    """``clients``/``qls``/``schemes``: the main grid; ``size`` per download;
    ``baseline_qls``: drop-tail limits of the one-client runs; ``partial``: the partial
    ECN deployment (Fig. 6); ``clients10``/``qls10``: 10 clients; ``long_rtt``/
    ``qls_long``: 10 clients over a 100 ms bottleneck."""

    study: ClassVar[str] = STUDY
    clients: tuple[int, ...]
    qls: tuple[int, ...]
    schemes: tuple[str, ...]
    size: str
    baseline_qls: tuple[int, ...]
    partial: bool
    clients10: bool
    qls10: tuple[int, ...]
    long_rtt: bool
    qls_long: tuple[int, ...]

    def __post_init__(self) -> None:
        super().__post_init__()
        self.only("schemes", SCHEMES)


_ALL = ("dt", "cons-red", "aggr-red", "cons-ecn", "aggr-ecn")
PROFILES = Profiles(
    tiny=EcnBulkParams(profile="tiny", seeds=(1,), clients=(5,), qls=(8, 64),
                       schemes=("dt", "aggr-ecn"), size="2MiB", baseline_qls=(38, 39),
                       partial=False, clients10=False, qls10=(), long_rtt=False, qls_long=()),
    quick=EcnBulkParams(profile="quick", seeds=(1,), clients=(5,), qls=(4, 8, 16, 32, 64),
                        schemes=_ALL, size="20MiB", baseline_qls=(38, 39), partial=True,
                        clients10=True, qls10=(32, 64, 128), long_rtt=True, qls_long=(32, 64)),
    full=EcnBulkParams(profile="full", seeds=(1, 2, 3, 4, 5), clients=(5, 10),
                       qls=(4, 8, 16, 32, 64, 128, 256), schemes=_ALL, size="20MiB",
                       baseline_qls=(36, 37, 38, 39, 40, 41), partial=True, clients10=True,
                       qls10=(16, 32, 64, 128), long_rtt=True, qls_long=(16, 32, 64, 128)),
)


def profile(name: str = "quick", **overrides: Any) -> EcnBulkParams:
    return PROFILES.get(name, **overrides)


def arms(schemes: tuple[str, ...], qls: tuple[int, ...]) -> list[Arm]:
    return [scheme_arm(s, ql) for s in schemes for ql in qls]


def partial_arms(b: Scenario) -> list[Arm]:
    """Aggressive RED+ECN router, QL 64; the 5 clients as 5 groups of one transfer each;
    ECN on none / C1 / C0 and C1 (Section VIII, Fig. 6). Their ``scheme`` tag is the set
    of ECN clients ("none", "c1", "c0c1")."""
    size = b.traffic[0].size
    red = queue("aggr-ecn", 64)
    out = []
    for label, ecn_clients in (("none", ()), ("c1", (1,)), ("c0c1", (0, 1))):
        groups = [{"kind": "transfers", "count": 1, "size": size, "receivers": [i],
                   "tcp": {"ecn": i in ecn_clients}} for i in range(5)]
        out.append(Arm(f"partial-{label}-q64", {"topology.forward_queue": red, "traffic": groups},
                       tags={"scheme": label, "ql": 64, "queue": "red", "ecn": True}))
    return out


# -- runs --------------------------------------------------------------------------------------


def run(p: EcnBulkParams, ctx: Context) -> dict[str, pd.DataFrame]:
    """Every sweep of the study; returns tidy frames: ``flows`` (one row per client and
    run) and ``runs`` (one row per run) for the series main / clients10 / long_rtt /
    baseline / partial, and ``arms`` (the arms' tags)."""
    b = base(p.size)
    flows: list[pd.DataFrame] = []
    swept: list[Arm] = []

    def add(series: str, name: str, base_: Scenario, arms_: list[Arm], **kw: Any) -> None:
        swept.extend(arms_)
        df = collect(ctx.sweep(base_, name=name, arms=arms_, **kw), flow_rows)
        if len(df):
            df.insert(0, "series", series)
            flows.append(df)

    add("main", "pentikousis-qls", b, arms(p.schemes, p.qls), zip=clients_zip(p.clients),
        seeds=p.seeds)
    if p.clients10:
        add("clients10", "pentikousis-10", b, arms(p.schemes, p.qls10), zip=clients_zip([10]),
            seeds=p.seeds)
    if p.long_rtt:
        add("long_rtt", "pentikousis-100ms", b.replace(**{"topology.bottleneck.delay": "100ms"}),
            arms(p.schemes, p.qls_long), zip=clients_zip([10]), seeds=p.seeds)
    one = b.replace(**{"topology.receivers": 1, "traffic[0].count": 1})
    add("baseline", "pentikousis-1", one, arms(("dt",), p.baseline_qls), seeds=p.seeds[:1])
    if p.partial:
        add("partial", "pentikousis-partial", b, partial_arms(b), seeds=p.seeds)
    keys = ["series", "name", "topology.receivers", "seed"]
    flows_df = stack(flows, [*keys, *FLOW_COLUMNS])
    by = [c for c in keys if c in flows_df.columns]
    runs = run_stats(flows_df, by)
    tags = {a.label: a.tags for a in arm_set(swept).values()}
    runs["scheme"] = runs["name"].map(lambda n: tags[n]["scheme"])
    runs["ql"] = runs["name"].map(lambda n: tags[n]["ql"]).astype(int)
    return {"flows": flows_df, "runs": runs, "arms": arms_frame(swept)}


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
    d = f[(f.series == "main") & (tag(data, f.name, "ql") == 64)].copy()
    if not len(d):
        return plots.empty_figure(out, "download_times_q64", "no QL 64 runs in this profile")
    d["scheme"] = tag(data, d.name, "scheme")
    d["client"] = "C" + d.client.astype(str)
    return plots.bars(d, out, "download_times_q64", x="client", metrics=["completion_s",
                      "flow_drops"], hue="scheme", title="Per-client download time and drops, "
                      "QL 64 (Figs. 3-5)")


def fig_partial(data: dict, out: Path) -> Any:
    f = data["flows"]
    d = f[f.series == "partial"].copy()
    if not len(d):
        return plots.empty_figure(out, "partial_ecn", "partial deployment not run")
    d["ecn clients"] = tag(data, d.name, "scheme")
    d["client"] = "C" + d.client.astype(str)
    return plots.bars(d, out, "partial_ecn", x="client", metrics=["completion_s", "flow_drops"],
                      hue="ecn clients", title="Partial ECN deployment, 5 clients, QL 64 "
                      "(Fig. 6)")


FIGURES = [fig_efficiency, fig_drops, fig_spread, fig_progress, fig_partial]


# -- claims: metrics of claim_tables/ecn_bulk.toml -------------------------------------------

METRICS = Metrics(STUDY)


def _get(r: pd.DataFrame, series: str, name: str, col: str, clients: int | None = None) -> float:
    d = r[(r.series == series) & (r.name == name)]
    if clients is not None:
        d = d[d.clients == clients]
    return float(d[col].mean()) if len(d) else math.nan


def _runs(x: Inputs, series: str) -> pd.DataFrame:
    r = x.data["runs"]
    return r[r.series == series]


@METRICS.values
def _grid(x: Inputs) -> dict[str, Any]:
    """``n``: clients of the main grid; ``qmin``: its smallest queue limit."""
    main = _runs(x, "main")
    return {"n": int(main.clients.max()) if len(main) else 5,
            "qmin": int(main.ql.min()) if len(main) else 4}


@METRICS
def zero_drop_ql(x: Inputs) -> float:
    """The smallest one-client drop-tail QL without a drop (needs one with drops)."""
    base_runs = _runs(x, "baseline").sort_values("ql")
    zero = base_runs[base_runs.drops == 0]
    return (float(zero.ql.min()) if len(zero) and len(base_runs[base_runs.drops > 0])
            else math.nan)


@METRICS
def baseline_at_39(x: Inputs, col: str) -> float:
    at39 = _runs(x, "baseline")
    at39 = at39[at39.ql == 39]
    return float(at39[col].mean()) if len(at39) else math.nan


def _big(x: Inputs) -> pd.DataFrame:
    main = _runs(x, "main")
    return main[main.ql >= 16]


@METRICS
def min_efficiency_ql16(x: Inputs) -> float:
    big = _big(x)
    return float(big.efficiency_pct.min()) if len(big) else math.nan


@METRICS
def efficiency_range_ql16(x: Inputs) -> float:
    big = _big(x)
    return (float(big.groupby("ql").efficiency_pct.agg(lambda s: s.max() - s.min()).max())
            if len(big) else math.nan)


@METRICS
def dt_efficiency_small_ql(x: Inputs) -> dict[str, float]:
    r, g = x.data["runs"], _grid(x)
    n, qmin = g["n"], g["qmin"]
    return {"dt-q64": _get(r, "main", "dt-q64", "efficiency_pct", n),
            f"dt-q{qmin}": _get(r, "main", f"dt-q{qmin}", "efficiency_pct", n)}


@METRICS
def red_vs_dt_small_ql(x: Inputs) -> dict[str, float]:
    main = _runs(x, "main")
    small = main[main.ql == main.ql.min()] if len(main) else main
    red_small = small[small.scheme.str.contains("red|ecn")]
    return {"red": float(red_small.efficiency_pct.mean()) if len(red_small) else math.nan,
            "dt": float(small[small.scheme == "dt"].efficiency_pct.mean())
            if len(small) else math.nan}


def _q64(x: Inputs, col: str) -> dict[str, float]:
    r = x.data["runs"]
    return {s: _get(r, "main", f"{s}-q64", col, 5) for s in ("dt", "aggr-red", "aggr-ecn")}


@METRICS
def q64(x: Inputs, col: str, scheme: str | None = None) -> Any:
    """5 clients, QL 64: ``col`` of DT, aggressive RED and ECN (or of ``scheme``)."""
    d = _q64(x, col)
    return d if scheme is None else d[scheme]


@METRICS
def ecn_over_red_drops_q64(x: Inputs) -> float:
    d64 = _q64(x, "drops")
    return d64["aggr-ecn"] / d64["aggr-red"] if d64["aggr-red"] else math.nan


@METRICS
def efficiency_range_q64(x: Inputs) -> float:
    return float(np.ptp(list(_q64(x, "efficiency_pct").values())))


@METRICS
def spread_small_ql(x: Inputs) -> dict[str, float]:
    r, g = x.data["runs"], _grid(x)
    n, qmin = g["n"], g["qmin"]
    return {"dt": _get(r, "main", f"dt-q{qmin}", "spread_pct", n),
            "aggr-ecn": _get(r, "main", f"aggr-ecn-q{qmin}", "spread_pct", n)}


def _client(x: Inputs, label: str, c: int, col: str) -> float:
    f = x.data["flows"]
    fpart = f[f.series == "partial"]
    d = fpart[(fpart.name == f"partial-{label}-q64") & (fpart.client == c)]
    return float(d[col].mean()) if len(d) else math.nan


@METRICS
def partial_c1_drops(x: Inputs) -> dict[str, float]:
    return {"without": _client(x, "none", 1, "flow_drops"),
            "with": _client(x, "c1", 1, "flow_drops")}


@METRICS
def partial_c1_saved_s(x: Inputs) -> float:
    return _client(x, "none", 1, "completion_s") - _client(x, "c1", 1, "completion_s")


@METRICS
def partial_min_goodput(x: Inputs) -> dict[str, float]:
    part = _runs(x, "partial")
    return {k: float(5 * 20 / part[part.name == f"partial-{k}-q64"].slowest_s.mean())
            if len(part[part.name == f"partial-{k}-q64"]) else math.nan
            for k in ("none", "c1", "c0c1")}


def _ecn10(x: Inputs) -> dict[int, float]:
    r = x.data["runs"]
    return {q: _get(r, "clients10", f"aggr-ecn-q{q}", "drops", 10) for q in (16, 32, 64, 128)}


def _others10(x: Inputs) -> pd.DataFrame:
    c10 = _runs(x, "clients10")
    return c10[c10.scheme != "aggr-ecn"]


@METRICS
def ecn_fewest_drops_10(x: Inputs) -> bool | None:
    c10, ecn10, others10 = _runs(x, "clients10"), _ecn10(x), _others10(x)
    if not len(c10):
        return None
    return all(ecn10[q] <= others10[others10.ql == q].drops.min()
               for q in ecn10 if not math.isnan(ecn10[q]) and (others10.ql == q).any())


@METRICS
def ecn_drops_64_128(x: Inputs) -> dict[str, float]:
    ecn10 = _ecn10(x)
    return {"q128": ecn10[128], "q64": ecn10[64]}


@METRICS
def ecn_drops_q32_share(x: Inputs) -> float:
    others10 = _others10(x)
    o32 = others10[others10.ql == 32]
    return (_ecn10(x)[32] / float(o32.drops.min()) if len(o32) and o32.drops.min() > 0
            else math.nan)


@METRICS
def clients10_dt_slowest(x: Inputs) -> float:
    return _get(x.data["runs"], "clients10", "dt-q64", "slowest_s", 10)


def _long_rtt(x: Inputs) -> tuple[bool | None, float, float]:
    r = x.data["runs"]
    lr, c10 = _runs(x, "long_rtt"), _runs(x, "clients10")
    if not (len(lr) and len(c10)):
        return None, math.nan, math.nan
    dl = {q: (_get(r, "long_rtt", f"dt-q{q}", "drops", 10),
              _get(r, "clients10", f"dt-q{q}", "drops", 10)) for q in (32, 64)}
    fewer = all(a < b for a, b in dl.values() if not (math.isnan(a) or math.isnan(b)))
    return (fewer, float(lr.efficiency_pct.mean()),
            float(c10[c10.ql.isin(lr.ql.unique())].efficiency_pct.mean()))


@METRICS
def long_rtt_fewer_drops(x: Inputs) -> bool | None:
    return _long_rtt(x)[0]


@METRICS
def long_rtt_efficiency(x: Inputs) -> dict[str, float]:
    _, eff_l, eff_s = _long_rtt(x)
    return {"20ms": eff_s, "100ms": eff_l}


CLAIMS = METRICS.table()


def claims(data: dict, p: EcnBulkParams) -> ClaimTable:
    """The paper's claims (``claim_tables/ecn_bulk.toml``) measured on ``data``."""
    return CLAIMS.evaluate(data, p)


__all__ = ["STUDY", "TITLE", "EcnBulkParams", "PROFILES", "profile", "arms", "partial_arms",
           "run", "FIGURES", "METRICS", "CLAIMS", "claims"]
