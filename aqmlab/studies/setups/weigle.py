"""Weigle, Jeffay & Smith's Web set-up (seed 000), shared by ecn_sack_web, tail_drop and
beyond: two-way PackMime-HTTP over a 10 Mb/s dumbbell (``examples/weigle_droptail_80.toml``),
its arms and the reduction of a Web run to statistics and response-time CDFs.

The TCP of the example is ns-2's Full-TCP as the paper's web traffic ran on it
(:data:`aqmlab.kinds.tcp.FULL_TCP`: Nagle on, ACKs by bytes with the 100-ms tick, no RTT
sample from the SYN/ACK, duplicate SYNs ignored, no limited transmit), and PackMime has no
server delay: ns-2.35's PackMimeHTTP adds one, but the paper ran UNC's earlier PackMime
(ns-2.1b9, modified), which had none.

An arm is ``<tcp>-<queue>``: a TCP variant of :data:`TCPS` over a bottleneck queue (both
directions) of :data:`QUEUES`, e.g. ``reno-dt148`` or ``sack-aredecn5``; :data:`BASELINE`
is the uncongested (100 Mb/s) network. The labels are looked up in :data:`ARMS`, never
parsed: each queue is declared once, with its tags.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pandas as pd

from aqmlab.scenario import Scenario
from aqmlab.studies.arms import Arm
from aqmlab.studies.common import collect, example, stack, web_cdf, web_stats

__all__ = ["BASELINE", "LARGE", "TCPS", "QUEUES", "ARMS", "weigle_base", "queue_of",
           "weigle_arm", "loads_zip", "one_way", "reduce_web", "collect_web"]

BASELINE = "uncongested"
LARGE = 50 * 1000  # responses > 50 KB (Fig. 18)


class Queue(NamedTuple):
    """A bottleneck queue: its scenario settings and its tags."""

    config: dict[str, Any]
    tags: dict[str, Any]


def _droptail(limit: int) -> Queue:
    return Queue({"kind": "droptail", "limit": f"{limit}p"},
                 {"queue": "droptail", "limit": limit, "ecn": False})


def _ared(target_ms: int, ecn: bool = False, above_max_th: str = "drop") -> Queue:
    """Adaptive RED (370 packets): ``ecn`` with ``above_max_th`` "drop" (ns-2: an
    ECN-capable packet is dropped once avg >= max_th, as the paper ran) or "mark" (ns-3's
    RED: marking in the gentle region, forced drops above it)."""
    q: dict[str, Any] = {"kind": "ared", "limit": "370p", "target_delay": f"{target_ms}ms",
                         "mean_pkt_size": 1250, "ecn": ecn}
    tags: dict[str, Any] = {"queue": "ared", "limit": 370, "target_ms": target_ms, "ecn": ecn}
    if ecn:
        q["ecn_above_max_th"] = tags["ecn_above_max_th"] = above_max_th
        if above_max_th == "mark":
            q["forced_region"] = "drop"
    return Queue(q, tags)


def _red(min_th: float, max_th: float) -> Queue:
    """The original RED of Figs. 11-12 (no gentle)."""
    return Queue({"kind": "red", "limit": "370p", "min_th": float(min_th),
                  "max_th": float(max_th), "max_p": 0.1, "w_q": 1 / 512, "gentle": False,
                  "mean_pkt_size": 1250},
                 {"queue": "red", "limit": 370, "min_th": min_th, "max_th": max_th,
                  "ecn": False})


def _modern(kind: str, ecn: bool = False) -> Queue:
    """An ns-3 AQM at its defaults, optionally marking."""
    return Queue({"kind": kind, "ecn": True} if ecn else {"kind": kind},
                 {"queue": kind, "ecn": ecn})


#: The bottleneck queues arms may use, by the name in their label.
QUEUES: dict[str, Queue] = {
    "dt111": _droptail(111), "dt148": _droptail(148),
    "ared5": _ared(5), "ared60": _ared(60),
    "aredecn5": _ared(5, ecn=True), "aredecn60": _ared(60, ecn=True),
    "aredecnmark5": _ared(5, ecn=True, above_max_th="mark"),
    "aredecnmark60": _ared(60, ecn=True, above_max_th="mark"),
    "red5-15": _red(5, 15), "red30-90": _red(30, 90),
    "codel": _modern("codel"), "fq_codel": _modern("fq_codel"), "pie": _modern("pie"),
    "ecn-codel": _modern("codel", ecn=True), "ecn-fq_codel": _modern("fq_codel", ecn=True),
    "ecn-pie": _modern("pie", ecn=True),
}
#: The TCP variants arms may use.
TCPS = ("reno", "newreno", "sack", "cubic", "bbr", "dctcp", "linux-reno")


def queue_of(name: str) -> dict[str, Any]:
    """The bottleneck queue settings of queue ``name`` ("dt148", "aredecn5", ...)."""
    if name not in QUEUES:
        raise ValueError(f"unknown queue {name!r}; queues: {', '.join(QUEUES)}")
    return dict(QUEUES[name].config)


def _arm(tcp: str, name: str) -> Arm:
    q = QUEUES[name]
    return Arm(f"{tcp}-{name}", {"tcp.variant": tcp, "tcp.ecn": q.tags["ecn"],
                                 "topology.forward_queue": dict(q.config),
                                 "topology.reverse_queue": dict(q.config)},
               tags={"tcp": tcp, **q.tags})


_BIG = {"kind": "droptail", "limit": "10000p"}
#: Every arm by label: ``<tcp>-<queue>`` and the uncongested baseline.
ARMS: dict[str, Arm] = {
    **{f"{t}-{q}": _arm(t, q) for t in TCPS for q in QUEUES},
    BASELINE: Arm(BASELINE, {"topology.bottleneck.rate": "100Mbps",
                             "topology.forward_queue": _BIG, "topology.reverse_queue": _BIG},
                  tags={"baseline": True, "queue": "droptail", "limit": 10000}),
}


def weigle_arm(label: str) -> Arm:
    """Arm ``label`` ("reno-dt148", "sack-aredecn5", "cubic-fq_codel", "uncongested")."""
    if label not in ARMS:
        raise ValueError(f"unknown Weigle arm {label!r}: an arm is <tcp>-<queue> with tcp "
                         f"one of {', '.join(TCPS)} and queue one of {', '.join(QUEUES)}, "
                         f"or {BASELINE!r}")
    return ARMS[label]


def weigle_base(duration: float, warmup: float, stop_after_responses: int | None = None
                ) -> Scenario:
    """The Weigle dumbbell (Reno, DT 148 both ways, two-way PackMime) with this run length;
    ``stop_after_responses``: end a run after that many responses (the paper's 250,000
    forward responses are 500,000 counted over both directions, which complete at the same
    rate)."""
    return example("weigle_droptail_80").replace(**{
        "name": "weigle",
        "description": "Weigle et al.: 10 Mb/s dumbbell, two-way PackMime-HTTP",
        "run.duration": f"{duration:g}s", "run.warmup": f"{warmup:g}s",
        "run.stop_after_responses": stop_after_responses, "run.sample_interval": "100ms"})


def loads_zip(loads: list[float], groups: int = 2) -> dict[str, list]:
    return {f"traffic[{g}].load": list(loads) for g in range(groups)}


def one_way(b: Scenario) -> Scenario:
    """Only the forward PackMime instance: the reverse path carries requests and ACKs."""
    stop = b.run.stop_after_responses
    return b.replace(**{"traffic": [b.traffic[0].to_dict()],
                        "run.stop_after_responses": stop // 2 if stop else None})


# -- reductions ------------------------------------------------------------------------------


def reduce_web(res: Any) -> dict[str, pd.DataFrame]:
    return {"stats": pd.DataFrame([web_stats(res)]),
            "cdf": web_cdf(res),
            "cdf_large": web_cdf(res, min_bytes=LARGE),
            "sizes": _size_facts(res)}


def _size_facts(res: Any) -> pd.DataFrame:
    q = res.requests
    q = q[q.group == 0]
    rb = q.response_bytes.to_numpy(float)
    if not len(rb):
        return pd.DataFrame()
    mss = res.scenario.tcp.mss
    return pd.DataFrame([{
        "p_le_1pkt": float((rb <= mss).mean()), "p_le_5pkt": float((rb <= 5 * mss).mean()),
        "p_le_10pkt": float((rb <= 10 * mss).mean()), "p_gt_50kb": float((rb > LARGE).mean()),
        "bytes_gt_50kb": float(rb[rb > LARGE].sum() / rb.sum()),
        "p_req_lt_1kb": float((q.request_bytes < 1000).mean()), "n": len(rb)}])


def reduce_ts(res: Any) -> pd.DataFrame:
    ts = res.queue_ts
    t0 = res.scenario.run.warmup_s
    return ts[(ts.queue == "R0->R1") & (ts.time_s >= t0) & (ts.time_s < t0 + 60)][
        ["time_s", "qlen_pkts", "red_avg_pkts"]]


def collect_web(sw: Any, series: str, ts: bool = False) -> dict[str, pd.DataFrame]:
    """Stats, CDFs and workload facts of every run of a web sweep, tagged with ``series``
    and ``load`` (from traffic[0].load)."""
    parts: dict[str, list] = {"stats": [], "cdf": [], "cdf_large": [], "sizes": []}

    def fn(res: Any) -> pd.DataFrame:
        d = reduce_web(res)
        for k, v in d.items():
            v = v.copy()
            v["load"] = res.scenario.traffic[0].load
            v["name"] = res.scenario.name
            v["seed"] = res.scenario.run.seed
            parts[k].append(v)
        return pd.DataFrame()

    collect(sw, fn)
    out = {k: stack(v) for k, v in parts.items()}
    if ts:
        q = collect(sw, reduce_ts)
        if len(q):
            q["load"] = q["traffic[0].load"]
        out["queue_ts"] = q
    for v in out.values():
        if len(v):
            v.insert(0, "series", series)
            if "load" in v:
                v["load_pct"] = (v["load"] * 100).round().astype(int)
    return out
