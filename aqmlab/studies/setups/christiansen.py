"""Christiansen's lab network (seed 001), shared by the tail-drop and RED studies: typed
parameters, scenarios, arms, reductions and the thesis' tabulated results (Tables
B.4-B.10 of the digest, §7).

Scenario: ``examples/christiansen_taildrop_90.toml`` (7 servers -> R0 -> 10 Mb/s -> R1 -> 7
client machines, per-pair RTTs of the thesis' Table 4.1, FreeBSD-like TCP, Mah browsing
users). The offered load is set by the number of users: ``load x 10 Mb/s / user_kbps``
with the per-user load measured as the thesis calibrated (unconstrained network; 3.70 kb/s
with the 10-minute think cap, :data:`MAH_USER_KBPS`). The thesis'
own counts (Table 3.5, :data:`USERS`; N = 337.5 x Mb/s + 26.5 between the tabulated
points) assume its 2.95 kb/s per user and would offer ~125 % of the nominal load here.

The quick profile cannot afford the thesis' protocol: browsing users all start at once and,
with think times of up to 10 minutes, the network needs ~20 simulated minutes to leave the
start-up overload (which is why the thesis discards them), at ~2 CPU-s per simulated second.
``think_cap`` (e.g. "60s") caps the think times lower so the population reaches its steady
state within ~30 s; each user then offers more (``user_kbps``, measured on the
unconstrained network: 13.6 kb/s per user with a 60-s cap, against the thesis' 2.96), so the
number of users for a load is ``load x 10 Mb/s / user_kbps``. Network, TCP and queues are
the thesis' own; the claims against tabulated values are "not tested" in that profile.

``scale`` < 1 gives a scaled-down replica (bottleneck rate, users, queue limits and RED
thresholds multiplied by ``scale``; access links and RTTs unchanged), used only by the tiny
(CI) profile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.scenario import Scenario
from aqmlab.studies.arms import Arm
from aqmlab.studies.common import (
    cdf_grid,
    collect,
    example,
    measured_requests,
    stack,
    web_cdf,
    web_stats,
)
from aqmlab.studies.params import Params

BASELINE = "uncongested"
#: Offered load per Mah browsing user with the thesis' 10-minute think cap, kb/s on the wire
#: (server -> client, headers included), measured as the thesis calibrated: unconstrained
#: 100 Mb/s network, 3,065 users, 55-min runs, the last 35 min measured: 3.73 and 3.66 kb/s
#: (seeds 1, 2; 2.34 requests per user per minute, 11.8 KB per request). The thesis
#: measured 2.95 kb/s (1.98 requests/min, 11.1 KB): its user counts would offer ~125 % of
#: the load they are labelled with here, so the full profile matches the offered load in
#: Mb/s, the thesis' own definition (digest A19-A20, option a).
MAH_USER_KBPS = 3.70
#: Table 3.5: offered load -> browsers.
USERS = {0.5: 1714, 0.7: 2389, 0.8: 2727, 0.9: 3065, 0.98: 3353, 1.1: 3740}
#: Offered load per user the thesis measured when it calibrated those counts (kb/s).
THESIS_USER_KBPS = 2.95

# Table B.4 (+B.5, qlen 190): (load %, qlen) -> KB/s, drop %, mean qlen, median ms, i1..i4.
_TD = """80,15,987,2.60,3.20,253,85.9,7.29,4.22,2.59
80,30,992,1.11,6.48,249,92.1,4.50,2.14,1.28
80,60,980,0.32,11.7,259,95.2,3.15,0.95,0.68
80,120,990,0.12,22.7,268,95.7,3.02,0.64,0.65
80,240,981,0.00,25.8,269,95.8,3.14,0.50,0.54
90,15,1059,5.19,4.69,274,76.9,10.3,6.74,6.08
90,30,1081,2.20,9.94,261,87.6,6.17,3.75,2.48
90,60,1075,0.92,20.0,268,92.3,4.25,2.05,1.35
90,120,1085,0.34,40.3,302,93.6,4.05,1.28,1.04
90,240,1101,0.29,85.7,398,89.8,6.88,1.56,1.70
98,15,1128,11.4,7.13,455,59.4,14.3,10.2,16.2
98,30,1163,6.69,16.6,336,71.7,11.1,8.53,8.64
98,60,1177,6.22,41.6,443,72.9,9.19,7.98,9.92
98,120,1178,3.07,84.8,423,81.1,7.58,5.16,6.13
98,240,1167,1.43,154,558,79.8,11.5,3.66,5.01
110,15,1154,20.2,9.07,1583,42.9,15.0,11.0,31.2
110,30,1183,18.9,22.6,1541,44.6,14.4,11.2,29.9
110,60,1188,16.4,52.4,1582,46.9,12.5,12.0,28.6
110,120,1188,17.0,112,1601,45.1,11.3,13.0,30.6
110,240,1188,16.5,232,1921,38.6,12.3,13.9,35.1
50,60,631,0.01,1.43,227,97.0,2.23,0.36,0.45
70,60,860,0.10,6.05,237,96.7,2.33,0.47,0.50
50,120,615,0,1.40,221,97.2,2.05,0.31,0.44
70,120,879,0.02,11.2,243,96.6,2.51,0.41,0.50
90,190,1106,0.21,66.6,364,92.0,5.45,1.32,1.21
98,190,1166,1.28,119,481,84.0,8.61,3.34,3.99
110,190,1188,19.3,183,2153,37.3,10.9,14.7,37.0"""

# Table B.6: RED thresholds (max_th = 3 min_th), qlen 480, max_p 1/10, w_q 1/512.
_RED = """50,5,15,601,0.08,0.83,228,97.3,1.96,0.36,0.40
50,15,45,613,0.03,1.25,229,97.4,1.86,0.32,0.39
50,30,90,621,0.01,1.45,230,96.8,2.36,0.39,0.44
50,60,180,625,0.00,1.65,229,96.7,2.41,0.41,0.44
50,120,360,609,0,1.58,230,97.4,1.93,0.27,0.36
70,5,15,860,0.53,2.87,236,94.7,3.32,1.14,0.80
70,15,45,868,0.24,4.74,235,96.0,2.65,0.72,0.59
70,30,90,846,0.08,5.69,237,96.9,2.19,0.44,0.46
70,60,180,852,0.03,8.44,241,96.8,2.32,0.39,0.45
70,120,360,863,0.01,10.5,242,96.7,2.48,0.39,0.47
80,5,15,991,1.55,5.08,249,90.0,5.41,2.71,1.87
80,15,45,955,0.53,7.46,247,94.4,3.47,1.28,0.87
80,30,90,991,0.38,12.8,255,94.8,3.30,1.08,0.82
80,60,180,1001,0.15,19.1,263,95.6,3.02,0.75,0.66
80,120,360,988,0.04,25.7,273,95.4,3.30,0.61,0.66
90,5,15,1068,3.15,7.11,260,83.5,8.02,4.79,3.66
90,15,45,1088,2.32,15.3,267,88.0,5.91,3.42,2.64
90,30,90,1079,0.83,20.2,269,92.4,4.30,1.98,1.32
90,60,180,1095,0.51,35.5,294,93.0,4.14,1.62,1.19
90,120,360,1094,0.14,53.8,328,93.6,4.46,1.03,0.89
98,5,15,1135,15.2,11.6,686,51.5,14.8,10.2,23.4
98,15,45,1158,5.82,24.0,342,73.2,10.5,7.91,8.34
98,30,90,1164,4.09,39.4,349,79.1,8.18,6.33,6.39
98,60,180,1178,2.42,69.1,388,83.1,7.14,5.03,4.71
98,120,360,1182,3.06,147,557,75.5,10.2,6.05,8.28
110,5,15,1147,24.0,12.6,1938,36.9,13.9,9.86,39.4
110,15,45,1175,23.4,36.1,1961,37.0,13.4,10.3,39.2
110,30,90,1187,19.7,76.0,1852,39.4,12.9,12.2,35.6
110,60,180,1187,17.9,158,2123,37.8,10.5,15.5,36.1
110,120,360,1188,15.5,303,2469,31.6,14.0,14.5,39.8"""

_COLS = ["KBps", "drop_pct", "mean_qlen", "median_ms", "i1", "i2", "i3", "i4"]


def _table(text: str, keys: list[str]) -> pd.DataFrame:
    rows = [[float(x) for x in line.split(",")] for line in text.strip().splitlines()]
    df = pd.DataFrame(rows, columns=[*keys, *_COLS])
    for k in keys:
        df[k] = df[k].astype(int)
    return df


TAILDROP_TABLE = _table(_TD, ["load_pct", "qlen"])
RED_TABLE = _table(_RED, ["load_pct", "min_th", "max_th"])


def users_for(load: float, user_kbps: float | None = None) -> int:
    """Browsers for an offered load (fraction of 10 Mb/s): thesis Table 3.5 / its line, or
    ``load x 10 Mb/s / user_kbps`` when the per-user load is given."""
    if user_kbps:
        return int(round(load * 10e3 / user_kbps))
    for k, v in USERS.items():
        if abs(k - load) < 1e-9:
            return v
    return int(round(337.5 * 10 * load + 26.5))


@dataclass(frozen=True, kw_only=True)
class ChristiansenParams(Params):
    """What every study of the thesis' network sets: offered ``loads`` (fractions of
    10 Mb/s), run ``duration``/``warmup`` and users' ``start_spread`` (simulated s),
    ``users_scale`` (< 1: a scaled-down replica), ``think_cap`` (None: the thesis' 10 min)
    and ``user_kbps`` (offered load per user; None: the thesis' Table 3.5 counts)."""

    loads: tuple[float, ...]
    duration: float
    warmup: float
    users_scale: float
    start_spread: float
    think_cap: str | None
    user_kbps: float | None


def base(duration: float, warmup: float, start_spread: float, scale: float = 1.0,
         think_cap: str | None = None) -> Scenario:
    """The thesis' network with this run length (scale, think_cap: see the module
    docstring)."""
    changes: dict[str, Any] = {
        "name": "christiansen",
        "description": "Christiansen: 10 Mb/s dumbbell, Mah browsing users",
        "run.duration": f"{duration:g}s", "run.warmup": f"{warmup:g}s",
        "traffic[0].start_spread": f"{start_spread:g}s", "run.sample_interval": "1s"}
    if think_cap is not None:
        changes["traffic[0].think_cap"] = think_cap
        changes["name"] = f"christiansen-think{think_cap}"
    if scale != 1.0:
        changes["topology.bottleneck.rate"] = f"{10 * scale:g}Mbps"
        changes["name"] = f"christiansen-x{scale:g}"
    return example("christiansen_taildrop_90").replace(**changes)


def scaled_limit(q: int, scale: float) -> str:
    return f"{max(3, round(q * scale))}p"


def taildrop(qlen: int, scale: float = 1.0) -> dict[str, Any]:
    return {"topology.forward_queue": {"kind": "droptail", "limit": scaled_limit(qlen, scale)}}


def taildrop_arm(qlen: int, scale: float = 1.0) -> Arm:
    """Arm ``td-q<qlen>``: a tail-drop queue of ``qlen`` packets (scaled)."""
    return Arm(f"td-q{qlen}", taildrop(qlen, scale), tags={"queue": "droptail", "qlen": qlen})


def red(min_th: float, max_th: float, qlen: int = 480, w_q: float = 1 / 512,
        max_p: float = 0.1, scale: float = 1.0) -> dict[str, Any]:
    """ALTQ RED as the thesis ran it (no gentle, no wait, 1000-byte mean packets)."""
    return {"topology.forward_queue": {
        "kind": "red", "limit": scaled_limit(qlen, scale), "min_th": min_th * scale,
        "max_th": max_th * scale, "max_p": max_p, "w_q": w_q, "gentle": False, "wait": False,
        "mean_pkt_size": 1000}}


def uncongested() -> dict[str, Any]:
    return {"topology.bottleneck.rate": "100Mbps",
            "topology.forward_queue": {"kind": "droptail", "limit": "10000p"}}


def uncongested_arm() -> Arm:
    """The unconstrained network (100 Mb/s): the baseline of every CDF."""
    return Arm(BASELINE, uncongested(),
               tags={"baseline": True, "queue": "droptail", "limit": 10000})


def users_zip(loads: list[float], scale: float = 1.0,
              user_kbps: float | None = None) -> dict[str, list]:
    return {"traffic[0].users": [max(1, round(users_for(x, user_kbps) * scale)) for x in loads]}


def setup(p: ChristiansenParams) -> tuple[Scenario, dict[int, float], dict[str, list]]:
    """Base scenario, users -> load map and the users axis of a Christiansen profile."""
    kbps = p.user_kbps
    b = base(p.duration, p.warmup, p.start_spread, p.users_scale, p.think_cap)
    users = {max(1, round(users_for(x, kbps) * p.users_scale)): x for x in p.loads}
    return b, users, users_zip(p.loads, p.users_scale, kbps)


def deviation(p: ChristiansenParams) -> str:
    """A note for claims when the profile departs from the thesis' protocol."""
    if p.think_cap:
        return (f"{p.name} profile: think times capped at {p.think_cap} (thesis 10 min), "
                f"{p.user_kbps:g} kb/s per user; ")
    if p.users_scale != 1.0:
        return f"{p.name} profile: {p.users_scale:g}-scale replica; "
    if p.user_kbps:
        return (f"{p.name} profile: users calibrated to the offered load in Mb/s "
                f"({p.user_kbps:g} kb/s per user, thesis {THESIS_USER_KBPS:g}: "
                f"{users_for(0.9, p.user_kbps)} users at 90 %, thesis {USERS[0.9]}); ")
    return ""


# -- reductions ------------------------------------------------------------------------------


def kbps(stats: dict[str, Any]) -> float:
    return stats["throughput_mbps"] * 1e6 / 8 / 1024


def reduce(res: Any, loads: dict[int, float], classes: bool = False) -> dict[str, pd.DataFrame]:
    """Per run: stats (with the thesis' KB/s), CDF, queue series; with ``classes`` also the
    CDFs of responses with and without retransmissions (ch. 6) and throughput series at
    1 s and 0.1 s (fluid: each response's bytes spread over its duration)."""
    st = web_stats(res, group=0)
    st["KBps"] = kbps(st)
    users = res.scenario.traffic[0].users
    meta = {"name": res.scenario.name, "seed": res.scenario.run.seed,
            "load_pct": int(round(loads.get(users, math.nan) * 100))
            if users in loads else -1, "users": users}
    out = {"stats": pd.DataFrame([{**meta, **st}]),
           "cdf": web_cdf(res, group=0).assign(**meta)}
    ts = res.queue_ts
    ts = ts[ts.queue == "R0->R1"][["time_s", "qlen_pkts", "red_avg_pkts"]]
    out["queue_ts"] = ts.assign(**meta)
    if classes:
        q = measured_requests(res, 0)
        done = q[q.completed]
        rows = []
        for label, sel in (("no retransmission", ~done.retransmitted),
                           ("retransmission", done.retransmitted)):
            rt = done.response_time_s[sel].to_numpy() * 1000
            rows.append(pd.DataFrame({"response_time_ms": _grid(), "cdf": cdf_grid(rt, _grid()),
                                      "class": label, "n": len(rt)}))
        out["classes"] = pd.concat(rows, ignore_index=True).assign(**meta)
        out["retx"] = pd.DataFrame([{**meta, "retx_pct": float(q.retransmitted.mean() * 100),
                                     "timeout_pct": float(q["timeout"].mean() * 100),
                                     "median_nr_ms": _median(done, ~done.retransmitted),
                                     "median_retx_ms": _median(done, done.retransmitted)}])
        out["burst"] = burstiness(res).assign(**meta)
    return out


def _grid() -> np.ndarray:
    return np.arange(0, 8000, 10.0)


def _median(done: pd.DataFrame, sel: pd.Series) -> float:
    rt = done.response_time_s[sel]
    return float(rt.median() * 1000) if len(rt) else math.nan


def burstiness(res: Any) -> pd.DataFrame:
    """Coefficient of variation of the reply throughput (Mb/s) per bin of 1 s and 0.1 s over
    the measured interval: each completed reply's bytes spread evenly over its duration (a
    fluid proxy of the arrival process at the bottleneck; aqmlab keeps no packet trace)."""
    q = measured_requests(res, 0)
    q = q[q.completed]
    t0, t1 = res.scenario.run.warmup_s, float(res.summary.iloc[0].end_s)
    rows = []
    s, e = q.start_s.to_numpy(float), q.end_s.to_numpy(float)
    r = q.response_bytes.to_numpy(float) * 8 / np.maximum(e - s, 1e-6)  # bit/s of each reply
    for width in (1.0, 0.1):
        edges = np.arange(t0, t1 + width / 2, width)
        bits = np.diff(_cumulative(edges, s, r) - _cumulative(edges, e, r))
        mbps = bits / width / 1e6
        m = float(mbps.mean()) if len(mbps) else math.nan
        rows.append({"bin_s": width, "mean_mbps": m,
                     "cov": float(mbps.std() / m) if m and m > 0 else math.nan})
    return pd.DataFrame(rows)


def _cumulative(t: np.ndarray, at: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """sum_i rate_i * max(0, t - at_i) for every t (sorted cumulative sums)."""
    order = np.argsort(at)
    a, w = at[order], rate[order]
    cw, cwa = np.concatenate([[0], np.cumsum(w)]), np.concatenate([[0], np.cumsum(w * a)])
    k = np.searchsorted(a, t, side="left")
    return t * cw[k] - cwa[k]


def collect_runs(sw: Any, loads: dict[int, float], classes: bool = False,
                 series: str = "") -> dict[str, pd.DataFrame]:
    """Every run of sweep result ``sw`` reduced (:func:`reduce`), tagged ``series``."""
    parts: dict[str, list] = {}

    def fn(res: Any) -> pd.DataFrame:
        for k, v in reduce(res, loads, classes).items():
            parts.setdefault(k, []).append(v.assign(series=series))
        return pd.DataFrame()

    collect(sw, fn)
    return {k: stack(v) for k, v in parts.items()}


# -- what both Christiansen studies read from their per-run "stats" table ---------------------

def stat(data: dict, load: int, name: str, col: str) -> float:
    """Mean of ``col`` over the runs of arm ``name`` at ``load`` % (NaN if there are none)."""
    s = data.get("stats", pd.DataFrame())
    if not len(s):
        return math.nan
    d = s[(s.load_pct == load) & (s.name == name)]
    return float(d[col].mean()) if len(d) else math.nan


def stats(x: Any, load: int, col: str, arms: list[str]) -> dict[str, float]:
    """Claim metric: ``col`` at ``load`` per arm."""
    return {n: stat(x.data, load, n, col) for n in arms}


def over_1s(x: Any, load: int, arms: list[str]) -> dict[str, float]:
    """Claim metric: % of responses > 1 s (100 - i1) per arm."""
    return {n: 100 - stat(x.data, load, n, "i1") for n in arms}
