"""How far apart two runs of the same scenario are: two engines (ns-3 and ns-2.35), or one
engine with two seeds (its own noise floor).

The measures are those issue 30's bounds speak of: the Kolmogorov-Smirnov distance of the
web response times, and relative differences of loss, utilisation, average queue and
timeouts per flow; goodput (as a share of the link) and Jain's index as absolute
differences. :func:`within` applies the bounds: KS no larger than ``ks_factor`` times the
larger engine's seed-to-seed KS, loss/utilisation/queue/timeouts within 10 %, goodput
within 0.03 of the link, Jain within 0.05.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.stats import ks_2samp

__all__ = ["BOUNDS", "distance", "distance_of", "ks", "response_times", "run_metrics",
           "within"]

#: The bounds of issue 30: relative for "rel", absolute for "abs"; KS is relative to the
#: noise floor (``ks_factor`` x the larger engine's seed-to-seed KS).
BOUNDS = {"loss_rel": 0.10, "utilisation_rel": 0.10, "queue_rel": 0.10, "timeouts_rel": 0.10,
          "goodput_abs": 0.03, "jain_abs": 0.05, "ks_factor": 1.5}


def response_times(res: Any) -> np.ndarray:
    """Response times (s) of the web requests that started after the warm-up and
    completed, all groups pooled (empty without web traffic)."""
    q = res.requests
    if q is None or not len(q):
        return np.zeros(0)
    q = q[q.after_warmup & q.completed]
    return q.response_time_s.to_numpy(float)


def run_metrics(res: Any) -> dict[str, float]:
    """The compared quantities of one run: bottleneck loss rate, utilisation and average
    queue; timeouts per flow (web: per request); goodput as a share of the bottleneck;
    Jain's index over flows (NaN for web-only runs)."""
    s = res.summary.iloc[0]
    link = float(res.links.iloc[0].rate_bps) if len(res.links) else math.nan
    q = res.requests
    web = q is not None and len(q) > 0
    if web:
        measured = q[q.after_warmup]
        timeouts = float(measured["timeout"].sum()) / max(len(measured), 1)
    else:
        timeouts = float(res.flows.timeouts.sum()) / max(len(res.flows), 1)
    flows = res.flows
    return {
        "loss": float(s.get("loss_rate", math.nan)),
        "utilisation": float(s.get("utilisation", math.nan)),
        "queue": float(s.get("avg_qlen_pkts", math.nan)),
        "timeouts": timeouts,
        "goodput": float(flows.goodput_mbps.sum() * 1e6 / link) if len(flows) else math.nan,
        "jain": float(s.get("jain_fairness", math.nan)) if len(flows) else math.nan,
    }


def _rel(a: float, b: float) -> float:
    """|a - b| relative to the larger magnitude (0 when both are 0)."""
    m = max(abs(a), abs(b))
    return 0.0 if m == 0 else abs(a - b) / m


def distance(a: Any, b: Any) -> dict[str, float]:
    """Distances between runs ``a`` and ``b`` (Results): ``ks`` of the response times
    (NaN without web traffic) and the differences of :func:`run_metrics`."""
    return distance_of(response_times(a), run_metrics(a), response_times(b), run_metrics(b))


def ks(ra: np.ndarray, rb: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov distance (NaN when a sample is empty)."""
    return float(ks_2samp(ra, rb).statistic) if len(ra) and len(rb) else math.nan


def distance_of(ra: np.ndarray, ma: Mapping[str, float], rb: np.ndarray,
                mb: Mapping[str, float]) -> dict[str, float]:
    """:func:`distance` from each run's response times and :func:`run_metrics`."""
    return {"ks": ks(ra, rb),
            "loss_rel": _rel(ma["loss"], mb["loss"]),
            "utilisation_rel": _rel(ma["utilisation"], mb["utilisation"]),
            "queue_rel": _rel(ma["queue"], mb["queue"]),
            "timeouts_rel": _rel(ma["timeouts"], mb["timeouts"]),
            "goodput_abs": abs(ma["goodput"] - mb["goodput"]),
            "jain_abs": abs(ma["jain"] - mb["jain"])}


def within(between: Mapping[str, float], floor_ks: float,
           bounds: Mapping[str, float] = BOUNDS) -> dict[str, bool | None]:
    """Which distances between engines respect the bounds (None where a measure does not
    apply: NaN). ``floor_ks`` is the larger of the two engines' seed-to-seed KS."""
    out: dict[str, bool | None] = {}
    for key, value in between.items():
        if value is None or (isinstance(value, float) and math.isnan(value)):
            out[key] = None
        elif key == "ks":
            out[key] = bool(value <= bounds["ks_factor"] * floor_ks)
        else:
            out[key] = bool(value <= bounds[key])
    return out
