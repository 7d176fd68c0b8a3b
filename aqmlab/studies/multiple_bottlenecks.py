"""Vembar & Du, "AQM Performance in Multiple Congested Link Networks" (seed 004).

The "6Q parking lot" as the digest reconstructs it (§B.2): routers R0..R5 joined by
10 Mb/s links; two-way end-to-end PackMime-HTTP between clouds at R0 and R5 (60 % or 75 %
of 10 Mb/s each way) crosses every link; two-way cross traffic of 15 % enters at R1 and
leaves at R2, and enters at R3 and leaves at R4. Three queues per direction congest:
R0->R1, R1->R2 and R3->R4. Reno over drop-tail vs ECN SACK over Adaptive RED (5 ms); window
68 segments and 340-packet queues for both. Connection rates come from the Weigle
calibration table (the same PackMime settings, calibrated on a 10 Mb/s dumbbell).

Two settings the paper leaves open are profile axes, and each combination is a *reading*:

* ``cross_loads``: "a total of 15 % link utilization" of cross traffic is read as 15 % per
  cross link (the digest's reading, :data:`CROSS_LOAD`) or 7.5 % (digest B.8 item 3);
* ``ared_modes``: the paper gives no ARED settings. The digest inherits Weigle et al.'s
  packet mode; ns-2's own default since 2.28 is byte mode, where SYNs and pure ACKs are
  rarely dropped.

Claims under a reading other than the digest's carry it in their id (``@x7.5``, ``@byte``,
``@x7.5-byte``), so the readings are reported side by side, none chosen after the fact.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from aqmlab.scenario import Scenario
from aqmlab.studies import plots
from aqmlab.studies.claims import ClaimTable
from aqmlab.studies.common import EXAMPLES, Context, collect, example, stack, web_cdf, web_stats
from aqmlab.studies.profiles import Profile
from aqmlab.studies.profiles import get as get_profile

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


def profile(name: str = "quick", **overrides: Any) -> Profile:
    return get_profile(STUDY, name, **overrides)


def base(p: Profile, cross: float = CROSS_LOAD) -> Scenario:
    """Reno-DT at 60 % with ``cross`` load on each cross link; arms change the scheme and
    the end-to-end load."""
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
    full = p.name == "full"
    return Scenario.from_dict({
        "name": "vembar",
        "description": "Vembar & Du: 6-router parking lot, PackMime end to end and across",
        "topology": {"kind": "parking_lot", "routers": 6, "senders": 2, "receivers": 2,
                     "cross_senders": 2, "link": {"rate": "10Mbps", "delay": "0ms"},
                     "access": {"rate": "100Mbps", "delay": "0ms"},
                     "forward_queue": dt, "reverse_queue": dt},
        "tcp": tcp, "traffic": traffic,
        "run": {"duration": f"{p.duration:g}s", "warmup": f"{p.warmup:g}s",
                "stop_after_responses": 150000 if full else None,
                "sample_interval": "100ms"}})


def scheme(name: str, ared_mode: str = ARED_MODE) -> dict[str, Any]:
    """The arm of scheme ``name``; ``ared_mode`` "packet" or "byte" for the ARED one."""
    if name == "reno-dt":
        q = {"kind": "droptail", "limit": "340p"}
        return {"tcp.variant": "reno", "tcp.ecn": False, "topology.forward_queue": q,
                "topology.reverse_queue": q}
    if name == "sack-ecn-ared":
        q = {"kind": "ared", "limit": "340p", "target_delay": "5ms", "mean_pkt_size": 1250,
             "ecn": True, "mode": ared_mode}
        return {"tcp.variant": "sack", "tcp.ecn": True, "topology.forward_queue": q,
                "topology.reverse_queue": q}
    raise ValueError(f"unknown scheme {name!r}")


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


def readings(p: Profile) -> list[tuple[float, str]]:
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


def run(p: Profile, ctx: Context) -> dict[str, pd.DataFrame]:
    loads = {"traffic[0].load": list(p.loads), "traffic[1].load": list(p.loads)}
    parts: dict[str, list] = {}

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
        arms = {s: scheme(s, mode) for s in p.schemes
                if "ared" in s or (cross, "dt") not in done}
        done.add((cross, "dt"))
        name = "vembar" + ("" if cross == CROSS_LOAD else f"-cross{cross_pct(cross):g}") + (
            "" if mode == ARED_MODE else f"-{mode}")
        sw = ctx.sweep(base(p, cross), name=name, arms=arms, zip=loads, seeds=p.seeds)
        collect(sw, fn)
    meta = ["name", "seed", "load_pct", "cross_pct", "ared_mode"]
    return {k: stack(parts.get(k, []), meta) for k in ("routers", "stats", "cdf", "queue_ts")}


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


def claims(data: dict, p: Profile) -> ClaimTable:
    """The paper's claims under the digest's reading, then again (ids tagged ``@x7.5``,
    ``@byte``, ...) under every other reading the profile ran."""
    t = ClaimTable(STUDY)
    for cross, mode in readings(p):
        r, s = (in_reading(data.get(k, pd.DataFrame()), cross, mode)
                for k in ("routers", "stats"))
        _claims(t.adder(p.tests), r, s, cross, mode)
    return t


def _claims(add_claim: Any, r: pd.DataFrame, s: pd.DataFrame, cross: float,
            mode: str) -> None:
    """Add the claims measured on the per-router table ``r`` and the response-time table
    ``s`` of one reading; other readings than the digest's suffix the ids and prefix the
    texts."""
    tag = reading_tag(cross, mode)
    heads, reasons = [], []
    if cross != CROSS_LOAD:
        heads.append(f"cross traffic {cross_pct(cross):g} % per link")
        reasons.append("the alternative reading of 'a total of 15 %' cross traffic (digest "
                       "B.8 item 3)")
    if mode != ARED_MODE:
        heads.append(f"ARED in {mode} mode")
        reasons.append(f"ARED in ns-2's default {mode} mode (bytes_ and queue_in_bytes_ true "
                       "since ns-2.28); the paper gives no ARED settings (digest B.4)")

    def add(cid: str, text: str, *args: Any, **kw: Any) -> None:
        if tag:
            text = f"[{'; '.join(heads)}] {text}"
            if kw.get("if_not") is None:
                kw["if_not"] = "; ".join(reasons) + ", run as a sensitivity check"
        add_claim(cid + tag, text, *args, **kw)

    def rv(name: str, load: int, router: str, col: str) -> float:
        if not len(r):
            return math.nan
        d = r[(r.name == name) & (r.load_pct == load) & (r.router == router)]
        return float(d[col].mean()) if len(d) else math.nan

    def sv(name: str, load: int, col: str) -> float:
        if not len(s):
            return math.nan
        d = s[(s.name == name) & (s.load_pct == load)]
        return float(d[col].mean()) if len(d) else math.nan

    add("V-queue-dt-r1-vs-r0", "Reno-DT, 75 %: the average queue is larger at R1 than at R0 "
        "(95.0 vs 51.6 segments)", "R1 > R0",
        {k: rv("reno-dt", 75, k, "avg_qlen_pkts") for k in ("R1", "R0")}, "ordering", 0)
    add("V-queue-dt-ratio", "Reno-DT, 75 %: R1's average queue is about 1.8 x R0's", 1.84,
        rv("reno-dt", 75, "R1", "avg_qlen_pkts") / rv("reno-dt", 75, "R0", "avg_qlen_pkts"),
        "ratio within", 0.4)
    ared = [rv("sack-ecn-ared", load, k, "avg_qlen_pkts") for load in (60, 75)
            for k in ("R0", "R1")]
    add("V-queue-ared-band", "SACK-ECN-ARED keeps the average queue at about 7-12 segments at "
        "R0 and R1, both loads (largest)", (5, 15), _strict(max, ared), "in range",
        note="ARED 5 ms target band is [9, 11] packets")
    add("V-queue-ared-band-min", "SACK-ECN-ARED average queue, R0 and R1, both loads "
        "(smallest)", (5, 15), _strict(min, ared), "in range")
    add("V-queue-dt-75", "Reno-DT, 75 %: R1 average queue 95 segments", 95.039,
        rv("reno-dt", 75, "R1", "avg_qlen_pkts"), "ratio within", 0.5,
        if_not="the topology, delays and cross-traffic reading are reconstructions (digest "
        "B.2-B.3); absolute queues depend on them")
    add("V-drops-peak-ared", "75 %: SACK-ECN-ARED's drop rate peaks at R0 (1.5 %)",
        "R1 < R0 > R3",
        {k: rv("sack-ecn-ared", 75, k, "drop_pct") for k in ("R0", "R1", "R3")}, "ordering", 0)
    marks = {k: rv("sack-ecn-ared", 75, k, "drop_mark_pct") for k in ("R0", "R1", "R3")}
    add("V-drops-peak-ared-marks", "75 %: SACK-ECN-ARED's drop rate peaks at R0 (1.5 %), "
        "reading the paper's drops as drops plus ECN marks", "R1 < R0 > R3", marks, "ordering",
        0, note="drops + marks (%) R0/R1/R3: " + "/".join(f"{v:.2f}" for v in marks.values())
        + "; paper 1.5/1.37/0.71",
        if_not="whether the paper counts marks is unknown (digest B.8 item 5); drops alone "
        "are the primary reading")
    add("V-drops-peak-dt", "75 %: Reno-DT's drop rate peaks at R1 (1.3 %)", "R0 < R1 > R3",
        {k: rv("reno-dt", 75, k, "drop_pct") for k in ("R0", "R1", "R3")}, "ordering", 0)
    pairs = [(rv("sack-ecn-ared", load, k, "drop_pct"), rv("reno-dt", load, k, "drop_pct"))
             for load in (60, 75) for k in ("R0", "R1", "R3")]
    ok = [a > b for a, b in pairs if not (math.isnan(a) or math.isnan(b))]
    add("V-drops-ared-higher", "SACK-ECN-ARED's drop rate is higher than Reno-DT's at every "
        "router and load", "every router and load", all(ok) if len(ok) == len(pairs) else None,
        "true", note=f"{sum(ok)} of {len(pairs)} (router, load) pairs")
    def rise(k: str) -> float:  # 75 %/60 %; inf: no drop at 60 %; nan: a run missing
        lo, hi = rv("reno-dt", 60, k, "drop_pct"), rv("reno-dt", 75, k, "drop_pct")
        if math.isnan(lo) or math.isnan(hi):
            return math.nan
        return hi / lo if lo > 0 else math.inf

    rises = [rise(k) for k in ("R0", "R1", "R3")]
    add("V-drops-rise", "Reno-DT drop rates rise about 6-15 x from 60 % to 75 % load", 3.0,
        _strict(min, rises), "greater", 0, note="smallest 75 %/60 % ratio over R0, R1, R3 (inf: no "
        "drop at 60 %)")
    add("V-rt-75", "75 %: SACK-ECN-ARED's mean response time is below Reno-DT's (1451 vs "
        "1591 ms)", "reno-dt > sack-ecn-ared",
        {k: sv(k, 75, "mean_ms") for k in ("reno-dt", "sack-ecn-ared")}, "ordering", 0)
    add("V-rt-60", "60 %: Reno-DT's response times are better than SACK-ECN-ARED's",
        "sack-ecn-ared > reno-dt", {k: sv(k, 60, "mean_ms") for k in ("sack-ecn-ared",
                                                                     "reno-dt")},
        "ordering", 0, note="mean response time")
    add("V-rt-75-ratio", "75 %: SACK-ECN-ARED's mean response time is 8.8 % below Reno-DT's",
        1451 / 1591, sv("sack-ecn-ared", 75, "mean_ms") / sv("reno-dt", 75, "mean_ms"),
        "ratio within", 0.1, note="heavy tails make means noisy; medians are in the tables")


def _strict(fn: Any, values: list[float]) -> float:
    """``fn`` of the values, NaN if any is missing."""
    return math.nan if any(math.isnan(v) for v in values) else float(fn(values))
