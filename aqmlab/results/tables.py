"""An engine's raw columns (:class:`~aqmlab.results.raw.RawRun`) -> tidy pandas tables
(flows, requests, queues, links, queue_ts, summary) and the run's :class:`Results`.

Column names carry their unit (``goodput_mbps``, ``avg_qlen_pkts``, ``completion_time_s``).
Rates and averages are over the measured interval: from the end of the warm-up to the end
of the run. Counters are differences of the two snapshots.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from aqmlab.plan import Plan
from aqmlab.results.raw import RawRun
from aqmlab.results.results import Results
from aqmlab.scenario import Scenario


def _measured(raw: RawRun) -> float:
    return max(raw.stats["end_s"] - raw.stats["warmup_s"], 1e-12)


def _head(cols: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    return {k: v[:n] for k, v in cols.items()}


def flows_table(scenario: Scenario, plan: Plan, raw: RawRun) -> pd.DataFrame:
    """One row per bulk flow or finite transfer (web connections are in requests_table)."""
    t = _measured(raw)
    nb = len(plan.flows)
    d = {k: raw.flows[k][:nb] - raw.flows_warm[k][:nb] for k in raw.flows}
    info = _head(raw.flow_info, nb)
    start = info["start"]
    completion = np.where(info["completion"] >= 0, info["completion"] - start, np.nan)
    size = np.where(info["target"] > 0, info["target"], np.nan)
    df = pd.DataFrame({
        "flow": np.arange(len(plan.flows)),
        "group": [f.group for f in plan.flows],
        "traffic": [type(scenario.traffic[f.group]).__name__.lower() for f in plan.flows],
        "variant": [f.tcp.variant for f in plan.flows],
        "ecn": [f.tcp.ecn for f in plan.flows],
        "src": [plan.nodes[f.src] for f in plan.flows],
        "dst": [plan.nodes[f.dst] for f in plan.flows],
        "base_rtt_s": [f.base_rtt_s for f in plan.flows],
        "start_s": start,
        "size_bytes": size,
        "bytes_delivered": d["bytes_received"],
        "goodput_mbps": d["bytes_received"] * 8 / t / 1e6,
        "throughput_mbps": d["data_bytes_sent"] * 8 / t / 1e6,
        "data_packets_sent": d["data_packets_sent"].astype(np.int64),
        "retransmitted_packets": d["retrans_packets"].astype(np.int64),
        "timeouts": d["timeouts"].astype(np.int64),
        "fast_recoveries": d["fast_recoveries"].astype(np.int64),
        "ecn_reductions": d["ecn_reductions"].astype(np.int64),
        "cwr_recoveries": d["cwr_recoveries"].astype(np.int64),
        "drops": d["drops"].astype(np.int64),
        "marks": d["marks"].astype(np.int64),
        "ack_drops": d["ack_drops"].astype(np.int64),
        "completed": info["completion"] >= 0,
        "completion_time_s": completion,
        "transfer_goodput_mbps": size * 8 / completion / 1e6,
        "total_bytes_delivered": raw.flows["bytes_received"][:nb],
    })
    return df


REQUEST_COLUMNS = ["request", "group", "server", "client", "start_s", "end_s",
                   "response_time_s", "request_bytes", "response_bytes", "base_rtt_s",
                   "completed", "after_warmup", "saw_drop", "saw_mark", "retransmitted",
                   "timeout", "data_packets_sent", "retransmitted_packets",
                   "response_bytes_measured"]


def requests_table(scenario: Scenario, plan: Plan, raw: RawRun) -> pd.DataFrame:
    """One row per web request/response (PackMime, Mah): start = connection opened (SYN),
    end = last response byte received; incomplete ones are kept with ``completed`` False.
    Connections that were never opened (the run ended first, e.g. by
    ``stop_after_responses``, or a browsing user never reached them) are not requests and
    are left out. ``response_bytes_measured``: the part of the response received after the
    warm-up."""
    nb = len(plan.flows)
    if not plan.web:
        return pd.DataFrame({c: [] for c in REQUEST_COLUMNS})
    info = {k: v[nb:] for k, v in raw.flow_info.items()}
    st = {k: v[nb:] for k, v in raw.flows.items()}
    done = info["completion"] >= 0
    end = np.where(done, info["completion"], np.nan)
    start = np.where(info["start"] >= 0, info["start"], np.nan)  # browsing: never opened
    group = np.concatenate([np.full(len(w), w.group) for w in plan.web])
    opened = np.isfinite(start) & (start <= raw.stats["end_s"])
    df = pd.DataFrame({
        "request": np.arange(len(group)),
        "group": group,
        "server": [plan.nodes[int(i)] for w in plan.web for i in w.server],
        "client": [plan.nodes[int(i)] for w in plan.web for i in w.client],
        "start_s": start,
        "end_s": end,
        "response_time_s": end - start,
        "request_bytes": info["request"].astype(np.int64),
        "response_bytes": info["target"].astype(np.int64),
        "base_rtt_s": np.concatenate([w.base_rtt_s for w in plan.web]),
        "completed": done,
        "after_warmup": start >= raw.stats["warmup_s"],
        "saw_drop": st["drops"] > 0,
        "saw_mark": st["marks"] > 0,
        "retransmitted": st["retrans_packets"] > 0,
        "timeout": st["timeouts"] > 0,
        "data_packets_sent": st["data_packets_sent"].astype(np.int64),
        "retransmitted_packets": st["retrans_packets"].astype(np.int64),
        # response bytes that arrived in the measurement window (after the warm-up)
        "response_bytes_measured": (st["bytes_received"]
                                    - raw.flows_warm["bytes_received"][nb:]).astype(np.int64),
    })
    return df[opened].reset_index(drop=True)


def queues_table(scenario: Scenario, plan: Plan, raw: RawRun) -> pd.DataFrame:
    """One row per probed queue, counted after the warm-up: arrivals, departures, drops
    (by reason: forced / unforced / overflow; by kind: ``syn_drops`` segments carrying SYN,
    ``ack_only_drops`` TCP segments without payload or SYN, ``ect_drops`` ECN-capable
    packets, ``ect_unforced_drops`` those an AQM dropped early instead of marking: RED's
    gentle region with ``ecn_above_max_th = "drop"``), marks, their rates,
    average/maximum queue, RED average, average delay."""
    t = _measured(raw)
    q = {k: raw.queues[k] - raw.queues_warm[k] for k in raw.queues}
    q["max_pkts"] = raw.queues["max_pkts"]
    names = raw.probe_names
    kinds, limits = [], []
    for link in plan.links:
        for d in (0, 1):
            if link.probes[d]:
                queue = link.queues[d]
                kinds.append(queue.kind)
                limits.append(queue.limit)
    arrivals = q["arrivals"]
    with np.errstate(divide="ignore", invalid="ignore"):
        df = pd.DataFrame({
            "queue": names,
            "kind": kinds,
            "limit": [str(x) for x in limits],
            "arrivals": arrivals.astype(np.int64),
            "departures": q["departures"].astype(np.int64),
            "drops": q["drops"].astype(np.int64),
            "forced_drops": q["forced_drops"].astype(np.int64),
            "unforced_drops": q["unforced_drops"].astype(np.int64),
            "overflow_drops": q["overflow_drops"].astype(np.int64),
            "marks": q["marks"].astype(np.int64),
            "syn_drops": q["syn_drops"].astype(np.int64),
            "ack_only_drops": q["ack_only_drops"].astype(np.int64),
            "ect_drops": q["ect_drops"].astype(np.int64),
            "ect_unforced_drops": q["ect_unforced_drops"].astype(np.int64),
            "loss_rate": np.where(arrivals > 0, q["drops"] / arrivals, np.nan),
            "mark_rate": np.where(arrivals > 0, q["marks"] / arrivals, np.nan),
            "avg_qlen_pkts": q["area_pkts"] / t,
            "avg_qlen_bytes": q["area_bytes"] / t,
            "max_qlen_pkts": q["max_pkts"],
            "red_avg_pkts": np.where(q["red_avg_n"] > 0, q["red_avg_sum"] / q["red_avg_n"],
                                     np.nan),
            "avg_delay_s": q["area_bytes"] / t * 8 / raw.link_rates,
        })
    return df


def links_table(raw: RawRun) -> pd.DataFrame:
    t = _measured(raw)
    sent = raw.link_bytes - raw.link_bytes_warm
    return pd.DataFrame({
        "link": raw.probe_names,
        "rate_bps": raw.link_rates,
        "bytes_tx": sent.astype(np.int64),
        "utilisation": sent * 8 / (raw.link_rates * t),
    })


def queue_ts_table(raw: RawRun) -> pd.DataFrame:
    times = raw.sample_times
    parts = []
    for name, (pkts, nbytes, avg) in raw.series.items():
        n = min(len(times), len(pkts))
        parts.append(pd.DataFrame({"time_s": times[:n], "queue": name, "qlen_pkts": pkts[:n],
                                   "qlen_bytes": nbytes[:n], "red_avg_pkts": avg[:n]}))
    if not parts:
        return pd.DataFrame(columns=["time_s", "queue", "qlen_pkts", "qlen_bytes",
                                     "red_avg_pkts"])
    return pd.concat(parts, ignore_index=True)


def summary_table(scenario: Scenario, flows: pd.DataFrame, queues: pd.DataFrame,
                  links: pd.DataFrame, raw: RawRun, requests: pd.DataFrame,
                  plan: Plan) -> pd.DataFrame:
    """One row: the headline numbers of the run (first probed queue = main bottleneck).
    Web runs also get ``workload_redraws``: PackMime draws skipped, summed over groups, to
    satisfy ``elephant`` (0 without the rule)."""
    t = _measured(raw)
    row = {
        "scenario": scenario.name,
        "scenario_hash": scenario.hash,
        "seed": scenario.run.seed,
        "run": scenario.run.run,
        "end_s": raw.stats["end_s"],
        "measured_s": t,
        "flows": len(flows),
        "goodput_mbps": float(flows["goodput_mbps"].sum()),
        "throughput_mbps": float(flows["throughput_mbps"].sum()),
        "retransmitted_packets": int(flows["retransmitted_packets"].sum()),
        "timeouts": int(flows["timeouts"].sum()),
        "fast_recoveries": int(flows["fast_recoveries"].sum()),
        "completed": int(flows["completed"].sum()),
        "events": int(raw.stats["events"]),
        "open_sockets": int(sum(v for k, v in raw.stats.items() if k.startswith("sockets_"))),
        "run_cpu_s": raw.stats["run_cpu_s"],
        "wall_s": raw.stats.get("wall_s", np.nan),
    }
    if len(queues):
        main, link = queues.iloc[0], links.iloc[0]
        row.update({
            "bottleneck": main["queue"],
            "utilisation": float(link["utilisation"]),
            "loss_rate": float(main["loss_rate"]),
            "mark_rate": float(main["mark_rate"]),
            "drops": int(main["drops"]),
            "marks": int(main["marks"]),
            "avg_qlen_pkts": float(main["avg_qlen_pkts"]),
            "max_qlen_pkts": float(main["max_qlen_pkts"]),
        })
    if len(requests):
        measured = requests[requests.after_warmup]
        rt = measured.response_time_s[measured.completed]
        row.update({
            "responses": len(measured),
            "responses_completed": int(measured.completed.sum()),
            "median_response_time_s": float(rt.median()) if len(rt) else np.nan,
            "share_responses_with_loss": float(measured.saw_drop.mean()),
            "workload_redraws": _workload_redraws(scenario, plan),
        })
    g = flows["goodput_mbps"].to_numpy()
    row["jain_fairness"] = float(g.sum() ** 2 / (len(g) * (g**2).sum())) if g.any() else np.nan
    return pd.DataFrame([row])


def _workload_redraws(scenario: Scenario, plan: Plan) -> int:
    """Draws skipped to satisfy ``PackMime.elephant``, over all web groups."""
    if not any(getattr(g, "elephant", None) is not None for g in scenario.traffic):
        return 0
    return int(sum(getattr(w, "redraws", 0) for w in plan.web))


def to_results(scenario: Scenario, plan: Plan, raw: RawRun, meta: dict[str, Any]) -> Results:
    """The run's tidy tables and ``meta`` (provenance, engine statistics) as Results."""
    flows = flows_table(scenario, plan, raw)
    queues = queues_table(scenario, plan, raw)
    links = links_table(raw)
    requests = requests_table(scenario, plan, raw)
    summary = summary_table(scenario, flows, queues, links, raw, requests, plan)
    return Results(scenario=scenario, flows=flows, queues=queues, links=links,
                   queue_ts=queue_ts_table(raw), summary=summary, meta=meta,
                   requests=requests)
