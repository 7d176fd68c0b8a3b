"""How far apart two runs of the same scenario are: two engines (ns-3 and ns-2.35), or one
engine with two seeds (its own noise floor).

The measures are those issue 30's bounds speak of: the Kolmogorov-Smirnov distance of the
web response times, and relative differences of loss, utilisation, average queue and
timeouts per flow; goodput (as a share of the link) and Jain's index as absolute
differences. :func:`within` applies the bounds: KS no larger than ``ks_factor`` times the
larger engine's seed-to-seed KS, loss/utilisation/queue/timeouts within 10 %, goodput
within 0.03 of the link, Jain within 0.05.

Outside web traffic (whose connections are planned identically on both engines), seed
``s`` of one engine and seed ``s`` of the other are unrelated samples: a distance per seed
pair then carries both engines' seed noise. :func:`distance_of_means` compares the engines'
means over several seeds instead, with the standard error of that distance.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.stats import ks_2samp

__all__ = ["BOUNDS", "METRICS", "distance", "distance_of", "distance_of_means", "ks",
           "response_times", "run_metrics", "within"]

#: The bounds of issue 30: relative for "rel", absolute for "abs"; KS is relative to the
#: noise floor (``ks_factor`` x the larger engine's seed-to-seed KS).
BOUNDS = {"loss_rel": 0.10, "utilisation_rel": 0.10, "queue_rel": 0.10, "timeouts_rel": 0.10,
          "goodput_abs": 0.03, "jain_abs": 0.05, "ks_factor": 1.5}


#: The compared quantities of :func:`run_metrics`, and the distance each gives.
METRICS = {"loss": "loss_rel", "utilisation": "utilisation_rel", "queue": "queue_rel",
           "timeouts": "timeouts_rel", "goodput": "goodput_abs", "jain": "jain_abs"}


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


def distance_of_means(a: Any, b: Any) -> dict[str, float]:
    """Distances between the means over seeds of two engines' :func:`run_metrics` (``a``,
    ``b``: DataFrames, one row per seed), each with its standard error (``<distance>_se``,
    from the seed-to-seed variance of both means; NaN with fewer than two seeds)."""
    out: dict[str, float] = {}
    for metric, name in METRICS.items():
        xa, xb = (np.asarray(d[metric], float) for d in (a, b))
        xa, xb = xa[~np.isnan(xa)], xb[~np.isnan(xb)]
        if not len(xa) or not len(xb):
            out[name] = out[f"{name}_se"] = math.nan
            continue
        ma, mb = float(xa.mean()), float(xb.mean())
        se = math.sqrt(sum(x.var(ddof=1) / len(x) if len(x) > 1 else math.nan
                           for x in (xa, xb)))
        scale = max(abs(ma), abs(mb)) if name.endswith("_rel") else 1.0
        out[name] = _rel(ma, mb) if name.endswith("_rel") else abs(ma - mb)
        out[f"{name}_se"] = se / scale if scale else (0.0 if se == 0 else math.nan)
    return out


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
