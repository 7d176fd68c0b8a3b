"""Vembar & Du, "AQM Performance in Multiple Congested Link Networks" (seed 004).

The "6Q parking lot" as the digest reconstructs it (§B.2): routers R0..R5 joined by
10 Mb/s links; two-way end-to-end PackMime-HTTP between clouds at R0 and R5 (60 % or 75 %
of 10 Mb/s each way) crosses every link; two-way cross traffic of 15 % enters at R1 and
leaves at R2, and enters at R3 and leaves at R4. Three queues per direction congest:
R0->R1, R1->R2 and R3->R4. Reno over drop-tail vs ECN SACK over Adaptive RED (5 ms); window
68 segments and 340-packet queues for both. Connection rates come from the Weigle
calibration table (the same PackMime settings, calibrated on a 10 Mb/s dumbbell).

TCP, PackMime, links and event clock are Weigle et al.'s (``examples/weigle_droptail_80.toml``):
ns-2's Full-TCP semantics (:data:`aqmlab.kinds.tcp.FULL_TCP`), ns-2's queue hand-over, frames
without a link header, DelayBox before the client's link, ns-2's event clock (so both
engines end every response at the same time) and no server delay, since the study (2005,
Weigle's group) ran UNC's PackMime before it entered ns-2.30 (2006) with its server delay.

Two settings the paper leaves open are profile axes, and each combination is a *reading*:

* ``cross_loads``: "a total of 15 % link utilization" of cross traffic is read as 15 % per
  cross link (the digest's reading, :data:`CROSS_LOAD`) or 7.5 % (digest B.8 item 3);
* ``ared_modes``: the paper gives no ARED settings. The digest inherits Weigle et al.'s
  packet mode; ns-2's own default since 2.28 is byte mode, where SYNs and pure ACKs are
  rarely dropped.

Claims under a reading other than the digest's carry it in their id (``@x7.5``, ``@byte``,
``@x7.5-byte``), so the readings are reported side by side, none chosen after the fact
(``claim_tables/multiple_bottlenecks.toml``: the whole table once per reading).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from aqmlab.scenario import Scenario
from aqmlab.studies import plots
from aqmlab.studies.arms import Arm, arms_frame
from aqmlab.studies.claims import ClaimTable, Inputs, Measured, Metrics
from aqmlab.studies.common import EXAMPLES, Context, collect, example, stack, web_cdf, web_stats
from aqmlab.studies.params import Params, Profiles

STUDY = "multiple_bottlenecks"
TITLE = "AQM over multiple congested links (Vembar & Du)"
ROUTERS = {"R0": "R0->R1", "R1": "R1->R2", "R3": "R3->R4"}
#: Cross-traffic load per cross link (each direction): the digest's reading, the default.
CROSS_LOAD = 0.15
#: ARED's mode in the digest's reading (Weigle et al.'s Table 3).
ARED_MODE = "packet"
#: Table 1 (average queue, segments) and Table 2 (drop rate, %) of the paper.
PAPER_QUEUE = {("reno-dt", 60): {"R0": 22.611, "R1": 42.187},
               ("reno-dt", 75): {"R0": 51.579, "R1": 95.039},
               ("sack-ecn-ared", 60): {"R0": 7.603, "R1": 7.657},
               ("sack-ecn-ared", 75): {"R0": 12.219, "R1": 11.198}}
PAPER_DROPS = {("reno-dt", 60): {"R0": 0.03, "R1": 0.09, "R3": 0.04},
               ("sack-ecn-ared", 60): {"R0": 0.37, "R1": 0.47, "R3": 0.27},
               ("reno-dt", 75): {"R0": 0.18, "R1": 1.3, "R3": 0.6},
               ("sack-ecn-ared", 75): {"R0": 1.5, "R1": 1.37, "R3": 0.71}}
SCHEMES = ("reno-dt", "sack-ecn-ared")


@dataclass(frozen=True, kw_only=True)
class MultipleBottlenecksParams(Params):
    """End-to-end ``loads`` x ``schemes``, under every reading (``cross_loads`` x
    ``ared_modes``); runs of ``duration``/``warmup`` s, or until
    ``stop_after_responses`` (the paper's length)."""

    study: ClassVar[str] = STUDY
    loads: tuple[float, ...]
    schemes: tuple[str, ...]
    cross_loads: tuple[float, ...]
    ared_modes: tuple[str, ...]
    duration: float
    warmup: float
    stop_after_responses: int | None

    def __post_init__(self) -> None:
        super().__post_init__()
        self.only("schemes", SCHEMES)


PROFILES = Profiles(
    tiny=MultipleBottlenecksParams(profile="tiny", seeds=(1,), loads=(0.6,), schemes=SCHEMES,
                                   cross_loads=(0.15,), ared_modes=("packet",), duration=12.0,
                                   warmup=4.0, stop_after_responses=None),
    quick=MultipleBottlenecksParams(profile="quick", seeds=(1,), loads=(0.6, 0.75),
                                    schemes=SCHEMES, cross_loads=(0.15,),
                                    ared_modes=("packet",), duration=50.0, warmup=15.0,
                                    stop_after_responses=None),
    full=MultipleBottlenecksParams(profile="full", seeds=(1, 2, 3), loads=(0.6, 0.75),
                                   schemes=SCHEMES, cross_loads=(0.15, 0.075),
                                   ared_modes=("packet", "byte"), duration=2400.0,
                                   warmup=120.0, stop_after_responses=150000),
)


def profile(name: str = "quick", **overrides: Any) -> MultipleBottlenecksParams:
    return PROFILES.get(name, **overrides)


#: The link mechanisms taken from Weigle's example with its TCP and PackMime: ns-2's
#: queue hand-over, frames without a link header, DelayBox before the client's link.
NS2_LINKS = ("queue_wake", "link_header", "delay_box")


def base(duration: float, warmup: float, stop_after_responses: int | None,
         cross: float = CROSS_LOAD) -> Scenario:
    """Reno-DT at 60 % with ``cross`` load on each cross link; arms change the scheme and
    the end-to-end load. Links (:data:`NS2_LINKS`) and the event clock are ns-2's, as in
    Weigle's example: the paper ran ns-2."""
    w = example("weigle_droptail_80")
    cal = str(EXAMPLES / "calibration" / "packmime_10mbps.csv")
    dt = {"kind": "droptail", "limit": "340p"}

    def pm(path: str, load: float, direction: str) -> dict[str, Any]:
        host = [0] if direction == "forward" else [1]
        return {"kind": "packmime", "path": path, "load": load, "calibration": cal,
                "direction": direction, "senders": host, "receivers": host}

    traffic = [pm("e2e", 0.6, "forward"), pm("e2e", 0.6, "reverse")]
    for hop in (1, 3):
        traffic += [pm(f"cross:{hop}", cross, "forward"),
                    pm(f"cross:{hop}", cross, "reverse")]
    tcp = {**w.tcp.to_dict(), "rcv_window": 68 * w.tcp.mss}
    return Scenario.from_dict({
        "name": "vembar",
        "description": "Vembar & Du: 6-router parking lot, PackMime end to end and across",
        "topology": {"kind": "parking_lot", "routers": 6, "senders": 2, "receivers": 2,
                     "cross_senders": 2, "link": {"rate": "10Mbps", "delay": "0ms"},
                     "access": {"rate": "100Mbps", "delay": "0ms"},
                     "forward_queue": dt, "reverse_queue": dt,
                     **{k: getattr(w.topology, k) for k in NS2_LINKS}},
        "tcp": tcp, "traffic": traffic,
        "run": {"duration": f"{duration:g}s", "warmup": f"{warmup:g}s",
                "stop_after_responses": stop_after_responses,
                "sample_interval": "100ms", "event_clock": w.run.event_clock}})


def scheme(name: str, ared_mode: str = ARED_MODE) -> Arm:
    """The arm of scheme ``name``; ``ared_mode`` "packet" or "byte" for the ARED one (the
    mode is in the scenario, not the label: the data's ``ared_mode`` column)."""
    if name == "reno-dt":
        q = {"kind": "droptail", "limit": "340p"}
        return Arm(name, {"tcp.variant": "reno", "tcp.ecn": False, "topology.forward_queue": q,
                          "topology.reverse_queue": q},
                   tags={"tcp": "reno", "queue": "droptail", "ecn": False})
    if name == "sack-ecn-ared":
        q = {"kind": "ared", "limit": "340p", "target_delay": "5ms", "mean_pkt_size": 1250,
             "ecn": True, "mode": ared_mode}
        return Arm(name, {"tcp.variant": "sack", "tcp.ecn": True, "topology.forward_queue": q,
                          "topology.reverse_queue": q},
                   tags={"tcp": "sack", "queue": "ared", "ecn": True})
    raise ValueError(f"unknown scheme {name!r}; schemes: {', '.join(SCHEMES)}")


def reduce(res: Any) -> dict[str, pd.DataFrame]:
    q = res.queues.set_index("queue")
    routers = pd.DataFrame([{
        "router": r, "queue": name, "avg_qlen_pkts": float(q.loc[name, "avg_qlen_pkts"]),
        "drop_pct": float(q.loc[name, "loss_rate"] * 100),
        "mark_pct": float(q.loc[name, "mark_rate"] * 100),
        "drop_mark_pct": float((q.loc[name, "loss_rate"] + q.loc[name, "mark_rate"]) * 100),
        "max_qlen_pkts": float(q.loc[name, "max_qlen_pkts"])}
        for r, name in ROUTERS.items() if name in q.index])
    stats = pd.DataFrame([web_stats(res, group=0)])
    ts = res.queue_ts
    t0 = res.scenario.run.warmup_s
    ts = ts[ts.queue.isin(ROUTERS.values()) & (ts.time_s >= t0) & (ts.time_s < t0 + 60)]
    ts = ts.assign(router=ts.queue.map({v: k for k, v in ROUTERS.items()}))
    return {"routers": routers, "stats": stats, "cdf": web_cdf(res, group=0),
            "queue_ts": ts[["time_s", "router", "qlen_pkts", "red_avg_pkts"]]}


def cross_pct(load: float) -> float:
    """A cross-traffic load as the percentage that tags its rows and claim ids."""
    return round(load * 100, 1)


def readings(p: MultipleBottlenecksParams) -> list[tuple[float, str]]:
    """The profile's (cross load, ARED mode) readings, the digest's first."""
    pairs = [(c, m) for c in p.cross_loads for m in p.ared_modes]
    return sorted(pairs, key=lambda r: (r[0] != CROSS_LOAD, r[1] != ARED_MODE))


def reading_tag(cross: float, mode: str) -> str:
    """The claim-id suffix of a reading: "" for the digest's, else "@x7.5", "@byte", ..."""
    parts = ([f"x{cross_pct(cross):g}"] if cross != CROSS_LOAD else []) + (
        [mode] if mode != ARED_MODE else [])
    return "@" + "-".join(parts) if parts else ""


def reading_label(cross: float, mode: str) -> str:
    return f"cross {cross_pct(cross):g} %, ARED {mode}"


def in_reading(df: pd.DataFrame, cross: float, mode: str) -> pd.DataFrame:
    """Rows of ``df`` under a reading: its cross load, and its ARED mode for ARED rows
    (drop-tail rows, ``ared_mode`` "", belong to every mode)."""
    if not len(df):
        return df
    return df[(df.cross_pct == cross_pct(cross)) & df.ared_mode.isin([mode, ""])]


def run(p: MultipleBottlenecksParams, ctx: Context) -> dict[str, pd.DataFrame]:
    loads = {"traffic[0].load": list(p.loads), "traffic[1].load": list(p.loads)}
    parts: dict[str, list] = {}
    swept: list[Arm] = []

    def fn(res: Any) -> pd.DataFrame:
        q = res.scenario.topology.forward_queue
        for k, v in reduce(res).items():
            v = v.assign(name=res.scenario.name, seed=res.scenario.run.seed,
                         load_pct=round(res.scenario.traffic[0].load * 100),
                         cross_pct=cross_pct(res.scenario.traffic[2].load),
                         ared_mode=q.mode if q.kind == "ared" else "")
            parts.setdefault(k, []).append(v)
        return pd.DataFrame()

    done: set[tuple[float, str]] = set()  # drop-tail runs do not depend on the ARED mode
    for cross, mode in [(c, m) for c in p.cross_loads for m in p.ared_modes]:
        arms = [scheme(s, mode) for s in p.schemes if "ared" in s or (cross, "dt") not in done]
        done.add((cross, "dt"))
        swept += arms
        name = "vembar" + ("" if cross == CROSS_LOAD else f"-cross{cross_pct(cross):g}") + (
            "" if mode == ARED_MODE else f"-{mode}")
        sw = ctx.sweep(base(p.duration, p.warmup, p.stop_after_responses, cross), name=name,
                       arms=arms, zip=loads, seeds=p.seeds)
        collect(sw, fn)
    meta = ["name", "seed", "load_pct", "cross_pct", "ared_mode"]
    return {**{k: stack(parts.get(k, []), meta) for k in ("routers", "stats", "cdf", "queue_ts")},
            "arms": arms_frame(swept)}


def primary(data: dict, key: str) -> pd.DataFrame:
    """Table ``key`` under the digest's reading (15 % cross traffic, ARED in packet mode),
    or under the first reading run if that one was not."""
    df = data.get(key, pd.DataFrame())
    if not len(df):
        return df
    here = in_reading(df, CROSS_LOAD, ARED_MODE)
    if len(here) and (here.ared_mode != "").any():
        return here
    first = df[df.ared_mode != ""].iloc[0] if (df.ared_mode != "").any() else df.iloc[0]
    return in_reading(df, first.cross_pct / 100, first.ared_mode or ARED_MODE)


# -- figures -------------------------------------------------------------------------------------


def _paper(table: dict, col: str) -> pd.DataFrame:
    return pd.DataFrame([{"name": s, "load_pct": load, "router": r, "paper": v}
                         for (s, load), d in table.items() for r, v in d.items()]).rename(
        columns={"paper": "paper"}).assign(metric=col)


def fig_routers(data: dict, out: Path) -> Any:
    r = primary(data, "routers")
    if not len(r):
        return plots.empty_figure(out, "per_router", "no runs")
    r = r.assign(config=r.name + " " + r.load_pct.astype(str) + " %")
    configs = list(dict.fromkeys(r.config))
    pq = _paper(PAPER_QUEUE, "avg_qlen_pkts")
    pdp = _paper(PAPER_DROPS, "drop_pct")
    for df in (pq, pdp):
        df["config"] = df.name + " " + df.load_pct.astype(str) + " %"
    return plots.bars(r, out, "per_router", x="router", hue="config",
                      metrics=["avg_qlen_pkts", "drop_pct"], order=list(ROUTERS),
                      hue_order=configs, paper={"avg_qlen_pkts": pq, "drop_pct": pdp},
                      title="Average queue and drop rate per router (Tables 1-2; black: paper)")


def fig_cdf(data: dict, out: Path) -> Any:
    c = primary(data, "cdf")
    if not len(c):
        return plots.empty_figure(out, "cdf_e2e", "no runs")
    c = (c.groupby(["load_pct", "name", "response_time_ms"])[["cdf", "ccdf"]].mean()
         .reset_index())
    c["load"] = c.load_pct.astype(str) + " %"
    return plots.response_cdf(c, out, "cdf_e2e", panel="load", xmax_ms=3000,
                              title="End-to-end response times (Fig. 2)")


def fig_queues(data: dict, out: Path) -> Any:
    ts = primary(data, "queue_ts")
    if not len(ts):
        return plots.empty_figure(out, "queue_ts", "no runs")
    top = ts.load_pct.max()
    ts = ts[(ts.load_pct == top) & (ts.seed == ts.seed.min())]
    ts = ts.assign(panel=ts.name)
    return plots.queue_timeseries(ts, out, "queue_ts", hue="router", panel="panel",
                                  title=f"Forward queues at {top} % load:")


def fig_readings(data: dict, out: Path) -> Any:
    """Drop rate and average queue per router at the top load under each reading the
    profile ran: drop-tail per cross load, ARED per cross load and mode (paper: black)."""
    r = data.get("routers", pd.DataFrame())
    if not len(r) or len(r.groupby(["cross_pct", "ared_mode"])) < 3:
        return plots.empty_figure(out, "readings", "one reading in this profile (the full "
                                  "profile runs 15 % and 7.5 % cross traffic, ARED in packet "
                                  "and byte mode)")
    top = r.load_pct.max()
    r = r[r.load_pct == top]
    mode = r.ared_mode.map(lambda m: f", ARED {m}" if m else "")
    r = r.assign(config=r.name + ", cross " + r.cross_pct.map("{:g} %".format) + mode)
    configs = list(dict.fromkeys(r.sort_values(["name", "cross_pct", "ared_mode"],
                                               ascending=[True, False, False]).config))
    paper = {col: pd.DataFrame([{"router": router, "config": c, "paper": v}
                                for c in configs for (name, load), d in table.items()
                                if load == top and c.split(",")[0] == name
                                for router, v in d.items()])
             for col, table in (("avg_qlen_pkts", PAPER_QUEUE), ("drop_pct", PAPER_DROPS),
                                ("drop_mark_pct", PAPER_DROPS))}
    return plots.bars(r, out, "readings", x="router", hue="config",
                      metrics=["avg_qlen_pkts", "drop_pct", "drop_mark_pct"],
                      order=list(ROUTERS),
                      hue_order=configs, paper=paper,
                      title=f"Every reading of the paper's open settings, {top} % load "
                      "(black: paper)")


FIGURES = [fig_routers, fig_cdf, fig_queues, fig_readings]


# -- claims --------------------------------------------------------------------------------------
# -- claims: metrics of claim_tables/multiple_bottlenecks.toml -------------------------------

METRICS = Metrics(STUDY)


@METRICS.each
def reading(x: Inputs) -> list[dict[str, Any]]:
    """The profile's readings, the digest's first: ``cross`` and ``mode``, the claim-id
    suffix ``tag``, the text prefix ``head`` and ``reading_if_not``, the likely reason a
    claim fails under another reading than the digest's."""
    out = []
    for cross, mode in readings(x.p):
        heads, reasons = [], []
        if cross != CROSS_LOAD:
            heads.append(f"cross traffic {cross_pct(cross):g} % per link")
            reasons.append("the alternative reading of 'a total of 15 %' cross traffic "
                           "(digest B.8 item 3)")
        if mode != ARED_MODE:
            heads.append(f"ARED in {mode} mode")
            reasons.append(f"ARED in ns-2's default {mode} mode (bytes_ and queue_in_bytes_ "
                           "true since ns-2.28); the paper gives no ARED settings (digest B.4)")
        tag = reading_tag(cross, mode)
        out.append({"cross": cross, "mode": mode, "tag": tag,
                    "head": f"[{'; '.join(heads)}] " if tag else "",
                    "reading_if_not": "; ".join(reasons) + ", run as a sensitivity check"
                    if tag else ""})
    return out


def _frame(x: Inputs, key: str, cross: float, mode: str) -> pd.DataFrame:
    return in_reading(x.data.get(key, pd.DataFrame()), cross, mode)


def _rv(x: Inputs, cross: float, mode: str, name: str, load: int, router: str,
        col: str) -> float:
    r = x.cached(_frame, "routers", cross, mode)
    if not len(r):
        return math.nan
    d = r[(r.name == name) & (r.load_pct == load) & (r.router == router)]
    return float(d[col].mean()) if len(d) else math.nan


def _sv(x: Inputs, cross: float, mode: str, name: str, load: int, col: str) -> float:
    s = x.cached(_frame, "stats", cross, mode)
    if not len(s):
        return math.nan
    d = s[(s.name == name) & (s.load_pct == load)]
    return float(d[col].mean()) if len(d) else math.nan


@METRICS
def routers(x: Inputs, cross: float, mode: str, scheme: str, load: int, col: str,
            at: list[str]) -> dict[str, float]:
    """``col`` of ``scheme`` at ``load`` per router of ``at``."""
    return {k: _rv(x, cross, mode, scheme, load, k, col) for k in at}


@METRICS
def router_ratio(x: Inputs, cross: float, mode: str, scheme: str, load: int, col: str,
                 router: str, per: str) -> float:
    return (_rv(x, cross, mode, scheme, load, router, col)
            / _rv(x, cross, mode, scheme, load, per, col))


@METRICS
def router_value(x: Inputs, cross: float, mode: str, scheme: str, load: int, col: str,
                 router: str) -> float:
    return _rv(x, cross, mode, scheme, load, router, col)


@METRICS
def ared_queue_band(x: Inputs, cross: float, mode: str, end: str) -> float:
    """The largest (``end`` "max") or smallest ("min") average queue of SACK-ECN-ARED at
    R0 and R1, both loads (NaN if one is missing)."""
    ared = [_rv(x, cross, mode, "sack-ecn-ared", load, k, "avg_qlen_pkts")
            for load in (60, 75) for k in ("R0", "R1")]
    return _strict({"max": max, "min": min}[end], ared)


@METRICS
def ared_marks_peak(x: Inputs, cross: float, mode: str) -> Measured:
    """75 %: SACK-ECN-ARED's drops + marks per router (the values in the note)."""
    marks = {k: _rv(x, cross, mode, "sack-ecn-ared", 75, k, "drop_mark_pct")
             for k in ("R0", "R1", "R3")}
    return Measured(marks, values={"marks": "/".join(f"{v:.2f}" for v in marks.values())})


@METRICS
def ared_drops_higher(x: Inputs, cross: float, mode: str) -> Measured:
    """Whether SACK-ECN-ARED drops more than Reno-DT at every router and load."""
    pairs = [(_rv(x, cross, mode, "sack-ecn-ared", load, k, "drop_pct"),
              _rv(x, cross, mode, "reno-dt", load, k, "drop_pct"))
             for load in (60, 75) for k in ("R0", "R1", "R3")]
    ok = [a > b for a, b in pairs if not (math.isnan(a) or math.isnan(b))]
    return Measured(all(ok) if len(ok) == len(pairs) else None,
                    values={"holds": sum(ok), "pairs": len(pairs)})


@METRICS
def dt_drop_rise(x: Inputs, cross: float, mode: str) -> float:
    """The smallest 75 %/60 % ratio of Reno-DT's drop rate over R0, R1, R3 (inf: no drop
    at 60 %; NaN: a run missing)."""

    def rise(k: str) -> float:
        lo = _rv(x, cross, mode, "reno-dt", 60, k, "drop_pct")
        hi = _rv(x, cross, mode, "reno-dt", 75, k, "drop_pct")
        if math.isnan(lo) or math.isnan(hi):
            return math.nan
        return hi / lo if lo > 0 else math.inf

    return _strict(min, [rise(k) for k in ("R0", "R1", "R3")])


@METRICS
def response_times(x: Inputs, cross: float, mode: str, load: int,
                   schemes: list[str]) -> dict[str, float]:
    """Mean response time per scheme at ``load``."""
    return {k: _sv(x, cross, mode, k, load, "mean_ms") for k in schemes}


@METRICS
def response_time_ratio(x: Inputs, cross: float, mode: str) -> float:
    """75 %: mean response time SACK-ECN-ARED / Reno-DT."""
    return (_sv(x, cross, mode, "sack-ecn-ared", 75, "mean_ms")
            / _sv(x, cross, mode, "reno-dt", 75, "mean_ms"))


def _strict(fn: Any, values: list[float]) -> float:
    """``fn`` of the values, NaN if any is missing."""
    return math.nan if any(math.isnan(v) for v in values) else float(fn(values))


CLAIMS = METRICS.table()


def claims(data: dict, p: MultipleBottlenecksParams) -> ClaimTable:
    """The paper's claims under the digest's reading, then again (ids tagged ``@x7.5``,
    ``@byte``, ...) under every other reading the profile ran."""
    return CLAIMS.evaluate(data, p)


__all__ = ["STUDY", "TITLE", "MultipleBottlenecksParams", "PROFILES", "profile", "base",
           "scheme", "run", "FIGURES", "METRICS", "CLAIMS", "claims", "readings",
           "reading_tag", "in_reading", "primary", "ROUTERS"]
