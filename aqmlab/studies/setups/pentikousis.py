"""Pentikousis, Badr & Kharmah's bulk downloads (seed 002), shared by ecn_bulk and beyond.

One FTP server sends a file to each of N clients over a 1.5 Mb/s, 20 ms bottleneck; router
B's queue is drop-tail (DT), RED dropping ("conservative" max_p 2 %, "aggressive" 10 %) or
RED marking with ECN-capable TCP. min_th = 5 QL / 16 (the digest's reconstruction: (20, 60)
at QL 64, Floyd's (5, 15) at 16), max_th = 3 min_th, w_q 0.002. Base scenario:
``examples/pentikousis_ecn_5clients.toml``. Per run: one row per client (:func:`flow_rows`)
and the paper's per-run metrics (:func:`run_stats`: goodput efficiency, spread of download
times, drops, marks; digest A6).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.scenario import Scenario
from aqmlab.studies.arms import Arm
from aqmlab.studies.common import example

__all__ = ["PAYLOAD_BPS", "SCHEMES", "base", "queue", "scheme_arm", "clients_zip",
           "FLOW_COLUMNS", "flow_rows", "RUN_STATS", "run_stats"]

PAYLOAD_BPS = 1.5e6
SCHEMES = {  # label -> (RED max_p or None for drop-tail, ECN)
    "dt": (None, False),
    "cons-red": (0.02, False),
    "aggr-red": (0.10, False),
    "cons-ecn": (0.02, True),
    "aggr-ecn": (0.10, True),
}


def base(size: str) -> Scenario:
    """The paper's network, each client downloading ``size``."""
    return example("pentikousis_ecn_5clients").replace(**{
        "name": "pentikousis", "traffic[0].size": size,
        "description": "Pentikousis et al.: bulk downloads through router B"})


def queue(scheme: str, ql: int) -> dict[str, Any]:
    """Router B's queue for a scheme and limit (min_th = 5 QL / 16, max_th = 3 min_th)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; schemes: {', '.join(SCHEMES)}")
    max_p, ecn = SCHEMES[scheme]
    if max_p is None:
        return {"kind": "droptail", "limit": f"{ql}p"}
    min_th = 5 * ql / 16
    return {"kind": "red", "limit": f"{ql}p", "min_th": min_th, "max_th": 3 * min_th,
            "max_p": max_p, "w_q": 0.002, "ecn": ecn}


def scheme_arm(scheme: str, ql: int) -> Arm:
    """Arm ``<scheme>-q<ql>``: router B's queue, and ECN-capable TCP with an ECN scheme."""
    max_p, ecn = SCHEMES[scheme]
    return Arm(f"{scheme}-q{ql}", {"topology.forward_queue": queue(scheme, ql), "tcp.ecn": ecn},
               tags={"scheme": scheme, "ql": ql, "queue": "droptail" if max_p is None else "red",
                     "ecn": ecn})


def clients_zip(ns: list[int]) -> dict[str, list]:
    return {"topology.receivers": list(ns), "traffic[0].count": list(ns)}


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
