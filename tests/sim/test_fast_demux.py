"""FastTcpDemux (aqmlab/engines/ns3/cpp/fast_demux.h) changes speed, never results: the same runs
with ns-3's linear endpoint lookup and with the 4-tuple hash table give identical tables
and identical event counts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from aqmlab.scenario import Bulk, DropTail, Dumbbell, Link, Red, RunControl, Scenario, Tcp

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def both(simulate, scenario):
    """Results with the fast demultiplexer off, then on."""
    from aqmlab.engines.ns3 import native

    cpp = native.load()
    try:
        cpp.SetFastDemux(False)
        slow = simulate(scenario)
    finally:
        cpp.SetFastDemux(True)
    return slow, simulate(scenario)


def without_listener_path(simulate, scenario):
    """Results with connections joining the table only at their first segment and SYNs
    going through ns-3's scan (the fast demultiplexer before its listener path)."""
    from aqmlab.engines.ns3 import native

    cpp = native.load()
    try:
        cpp.SetFastListen(False)
        return simulate(scenario)
    finally:
        cpp.SetFastListen(True)


def test_bulk_flows_identical(simulate):
    """100 Reno flows from 10 hosts through RED (10 connections per host endpoint list)."""
    sc = Scenario(
        name="demux-bulk",
        topology=Dumbbell(senders=10, receivers=10, bottleneck=Link(rate="10Mbps", delay="20ms"),
                          access=Link(rate="100Mbps", delay="1ms"),
                          forward_queue=Red(limit="200p", min_th=30, max_th=90),
                          reverse_queue=DropTail(limit="1000p")),
        tcp=Tcp(variant="reno"),
        traffic=[Bulk(flows=100, start_spread="1s")],
        run=RunControl(duration="8s", warmup="2s", sample_interval="0.5s"))
    slow, fast = both(simulate, sc)
    assert slow.meta["events"] == fast.meta["events"]
    pd.testing.assert_frame_equal(slow.flows, fast.flows)
    pd.testing.assert_frame_equal(slow.queues, fast.queues)
    pd.testing.assert_frame_equal(slow.queue_ts, fast.queue_ts)


def test_two_way_web_identical(simulate):
    """Two-way PackMime (Weigle drop-tail 80 %): thousands of short connections opening,
    closing, reusing ports, answered by listeners and RSTs."""
    sc = Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"run.duration": "20s", "run.warmup": "5s", "run.stop_after_responses": None,
           "run.sample_interval": None})
    slow, fast = both(simulate, sc)
    assert slow.meta["events"] == fast.meta["events"]
    assert len(fast.requests) > 3000
    pd.testing.assert_frame_equal(slow.requests, fast.requests)
    pd.testing.assert_frame_equal(slow.queues, fast.queues)


def test_overloaded_ared_ecn_web_identical(simulate):
    """ARED+ECN at 105 %: lost and retransmitted SYNs, thousands of sockets open at once;
    ns-3's scan, the table filled at first segments, and the table filled at Connect and
    CompleteFork with SYNs handed to the listener all simulate the same run."""
    sc = Scenario.load(EXAMPLES / "weigle_ecn_ared_105.toml").replace(
        **{"run.duration": "30s", "run.warmup": "5s", "run.stop_after_responses": None,
           "run.sample_interval": None})
    slow, fast = both(simulate, sc)
    middle = without_listener_path(simulate, sc)
    assert fast.meta["sockets_syn_sent"] + fast.meta["sockets_established"] > 200
    assert (~fast.requests.completed).sum() > 100  # overloaded: many still open at the end
    for other in (slow, middle):
        assert other.meta["events"] == fast.meta["events"]
        pd.testing.assert_frame_equal(other.requests, fast.requests)
        pd.testing.assert_frame_equal(other.flows, fast.flows)
        pd.testing.assert_frame_equal(other.queues, fast.queues)
