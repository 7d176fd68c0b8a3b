"""Tiny deterministic scenarios for the differential tests: one Reno flow whose losses are
chosen by number, traced per packet on both engines (:mod:`aqmlab.engines.flow_trace`).

The path: 100 Mb/s, 1 ms access links and a 10 Mb/s, 10 ms bottleneck (base RTT 24 ms) with
a 100-packet drop-tail buffer that never overflows; MSS 1000 B, initial window 2, no
delayed ACKs, no limited transmit (Qiu's and Pentikousis' setting), min RTO 200 ms, tick
10 ms. A drop list names data-packet arrivals at the bottleneck, 1, 2, 3..., retransmissions
included; both engines number them alike in a one-flow scenario. Drop 30 is segment 29,
fast-retransmitted as arrival 61 at 0.151 s; the other numbers were read off the traces.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from aqmlab.engines import ns2
from aqmlab.engines.flow_trace import flow_trace
from aqmlab.scenario import Bulk, DropTail, Dumbbell, Link, RunControl, Scenario, Tcp

ENGINES = ("ns3", "ns2")
#: Marks for a test module that runs both engines.
MARKS = [pytest.mark.ns3, pytest.mark.ns2,
         pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]


def one_flow(drops: tuple[int, ...], duration: str = "1s", **tcp: Any) -> Scenario:
    """One bulk flow losing data-packet arrivals ``drops``; ``tcp``: Tcp fields."""
    return Scenario(
        name="differential-one-flow",
        topology=Dumbbell(bottleneck=Link(rate="10Mbps", delay="10ms"),
                          access=Link(rate="100Mbps", delay="1ms"),
                          forward_queue=DropTail(limit="100p", drop_packets=drops)),
        tcp=Tcp(**{"variant": "reno", "limited_transmit": False, **tcp}),
        traffic=[Bulk(flows=1)],
        run=RunControl(duration=duration, warmup="0s", sample_interval=None))


def qiu_flows(n: int, duration: float, engine: str, **changes: Any) -> Scenario:
    """Qiu et al.'s T1 dumbbell with ``n`` Reno flows, one sender host each, no warm-up and
    no sampling, on ``engine``; ``changes``: more dotted-path overrides."""
    from aqmlab.studies.setups import qiu

    return qiu.base(duration, 0.0).replace(**{
        "topology.senders": n, "traffic[0].flows": n, "run.sample_interval": None,
        "run.engine": engine, **changes})


def aggressive_ecn_clients(duration: str, engine: str, **changes: Any) -> Scenario:
    """Pentikousis et al.'s ten 2-MiB downloads through aggressive RED+ECN at limit 32 (the
    ecn_bulk study's P-ecn-q32-tiny configuration, shortened) on ``engine``."""
    from aqmlab.studies.setups import pentikousis

    sc = pentikousis.base("2MiB").replace(**dict(pentikousis.scheme_arm("aggr-ecn", 32).changes))
    return sc.replace(**{"topology.receivers": 10, "traffic[0].count": 10, "run.engine": engine,
                         "run.duration": duration, **changes})


def trace(scenario: Scenario, engine: str) -> tuple[Any, pd.DataFrame]:
    """(Results, flow 0's events) of ``scenario`` on ``engine``."""
    return flow_trace(scenario.replace(**{"run.engine": engine}), [0])


def events(ev: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The events of one kind ("send", "retx", "ack", "timeout", "syn_retry")."""
    return ev[ev.event == kind].reset_index(drop=True)


def arrivals(ev: pd.DataFrame) -> pd.DataFrame:
    """Data packets sent (first or again), numbered as they reach the bottleneck."""
    s = ev[ev.event.isin(["send", "retx"]) & (ev.seg >= 0)].reset_index(drop=True)
    return s.assign(arrival=range(1, len(s) + 1))
