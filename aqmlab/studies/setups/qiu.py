"""Qiu, Zhang & Keshav's T1 with many long-lived flows (seed 003), shared by many_flows and
beyond.

Reno flows over a T1 (1.544 Mb/s, 50 ms one-way, 500-byte packets, W_opt = 40) with a
drop-tail or RED buffer B; W_c = W_opt + B is what the pipe and buffer hold. Base scenario:
``examples/qiu_t1_dumbbell.toml`` (one sender host per flow). Formulas (digest B6): the
synchronised loss P = 8 / (3W^2 + 21W + 8), W = W_c/Conn (b = 1, no delayed ACK), and the
hyperbolas y = b x / (x + a) of Tables 1-2. Per run: one row of loss, throughput, goodput,
fairness and queue statistics (:func:`run_row`) and one row per flow (:func:`flow_rows`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.scenario import Scenario
from aqmlab.studies.arms import Arm
from aqmlab.studies.common import example

__all__ = ["W_OPT", "T1_BPS", "PKT", "MSS", "SERVICE_S", "sync_loss", "hyperbola",
           "red_config", "base", "conns_zip", "RUN_FIELDS", "run_row", "flow_rows",
           "ts_rows", "rtt_scenario"]

W_OPT = 40
T1_BPS = 1.544e6
PKT, MSS = 500, 460
SERVICE_S = PKT * 8 / T1_BPS  # 2.59 ms: one packet on the T1


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


def base(duration: float, warmup: float) -> Scenario:
    """The T1 dumbbell with this run length (simulated seconds)."""
    return example("qiu_t1_dumbbell").replace(**{
        "name": "qiu", "description": "Qiu et al.: many bulk TCP flows over one bottleneck",
        "run.duration": f"{duration:g}s", "run.warmup": f"{warmup:g}s",
        "run.sample_interval": "100ms"})


def conns_zip(conns: list[int]) -> dict[str, list]:
    return {"topology.senders": list(conns), "traffic[0].flows": list(conns)}


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
    line = T1_BPS * float(sc.topology.rate_scale)  # the T1 as the run's links carry it
    return {
        "conn": conn, "buffer": buffer, "wc": buffer + W_OPT,
        "loss_rate": float(s.loss_rate),
        "throughput": float(res.links.iloc[0].bytes_tx * 8 / (line * s.measured_s)),
        "goodput": float(s.goodput_mbps * 1e6 * PKT / MSS / line),
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


def rtt_scenario(base_: Scenario, duration: float, ratios: tuple[float, ...] | None,
                 runs: int) -> tuple[Scenario, list[Arm]]:
    """Section 7: RTT bias, from ``base_`` (:func:`base`) run for ``duration`` s. Two groups
    of 3 flows (PD_2 = 102 ms, PD_1 = r PD_2) for each ratio r (arms ``rtt2-r<r>``), or
    ``runs`` runs of 8 flows (F1 102 ms, F2..F8 U(102, 300) ms; ``rtt8-run<i>``); random
    processing time U(0, one packet's service time) at every sender; B = 160."""
    sc = base_.replace(**{
        "run.duration": f"{duration:g}s", "run.warmup": f"{duration / 10:g}s",
        "run.sample_interval": None,
        "topology.forward_queue.limit": "160p", "traffic[0].processing_time": f"{SERVICE_S:.5f}s"})

    def one_way(pd_ms: float) -> str:
        return f"{pd_ms / 2 - 50.1:.3f}ms"  # PD = 2 (50 + d + 0.1)

    arms = []
    if ratios is not None:
        for r in ratios:
            delays = [one_way(102 * r)] * 3 + [one_way(102)] * 3
            arms.append(Arm(f"rtt2-r{r:g}", {"topology.senders": 6, "traffic[0].flows": 6,
                                             "topology.sender_delays": delays},
                            tags={"rtt_ratio": r}))
    else:
        rng = np.random.default_rng(2024)
        for i in range(runs):
            pds = [102.0, *rng.uniform(102, 300, size=7)]
            arms.append(Arm(f"rtt8-run{i + 1}", {
                "topology.senders": 8, "traffic[0].flows": 8,
                "topology.sender_delays": [one_way(x) for x in pds]}, tags={"run": i + 1}))
    return sc, arms
