"""Three speed-ups of aqmlab's own per-connection and per-packet code change cost, never
results: socket attributes parsed once per TCP profile instead of per socket
(AQMLAB_FAST_ATTRIBUTES, cpp/tcp_socket.h); TCP ports, flags and header length read from
the header's bytes instead of deserializing it with its options (AQMLAB_RAW_HEADERS,
cpp/tcp_peek.h: the demultiplexer, probes, flow registry, drop list and delay channel);
applications filling a send buffer with one Send instead of a loop of small ones
(AQMLAB_FILL_ONCE, cpp/apps.h and web.h). Each run with all three off must equal the run
with all three on, table for table."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Bulk, DropTail, Dumbbell, Link, RunControl, Scenario, Tcp, Transfers
from tests.sim.identical import assert_same

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def both(simulate, scenario):
    """Results with the three speed-ups off, then on."""
    from aqmlab.engines.ns3 import native

    cpp = native.load()
    switches = (cpp.SetFastAttributes, cpp.SetRawHeaders, cpp.SetFillOnce)
    try:
        for switch in switches:
            switch(False)
        slow = simulate(scenario)
    finally:
        for switch in switches:
            switch(True)
    return slow, simulate(scenario)


def test_two_way_web_ared_ecn_identical(simulate):
    """PackMime both ways over ARED+ECN at 105 %: a socket per connection, SYN and ACK
    drops and ECN marks counted by the probes, per-connection delays on the clouds' links."""
    sc = Scenario.load(EXAMPLES / "weigle_ecn_ared_105.toml").replace(
        **{"run.duration": "15s", "run.warmup": "5s", "run.stop_after_responses": None,
           "run.sample_interval": "1s"})
    slow, fast = both(simulate, sc)
    q = fast.queues.iloc[0]
    assert len(fast.requests) > 2000 and q.marks > 0 and q.drops > 0
    assert_same(slow, fast)


def test_browsing_with_timestamps_identical(simulate):
    """Christiansen's browsing users over RED 30/90 (TCP timestamps on every segment, so
    each deserialized header carries options)."""
    sc = Scenario.load(EXAMPLES / "christiansen_red_90.toml").replace(
        **{"run.duration": "20s", "run.warmup": "5s"})
    assert sc.tcp.timestamps
    slow, fast = both(simulate, sc)
    assert len(fast.requests) > 1000
    assert_same(slow, fast)


def test_drop_list_identical(simulate):
    """A deterministic drop list counts data packets (header length) at the bottleneck."""
    sc = Scenario(
        name="raw-headers-droplist",
        topology=Dumbbell(bottleneck=Link(rate="10Mbps", delay="10ms"),
                          access=Link(rate="100Mbps", delay="1ms"),
                          forward_queue=DropTail(limit="100p", drop_packets=(30, 32, 35))),
        tcp=Tcp(variant="newreno"),
        traffic=[Bulk(flows=1)],
        run=RunControl(duration="2s", sample_interval=None))
    slow, fast = both(simulate, sc)
    assert fast.queues.iloc[0].drops == 3
    assert_same(slow, fast)


def test_transfers_and_bulk_fill_identical(simulate):
    """Finite transfers smaller and larger than the 64 kB send buffer beside unlimited
    flows: first fills, refills as ACKs free space, the last partial piece, the close."""
    sc = Scenario(
        name="fill-once",
        topology=Dumbbell(senders=4, receivers=4, bottleneck=Link(rate="10Mbps", delay="10ms"),
                          access=Link(rate="100Mbps", delay="1ms"),
                          forward_queue=DropTail(limit="50p")),
        tcp=Tcp(variant="newreno", snd_buffer="64kB"),
        traffic=[Transfers(count=4, size=("3kB", "70001B", "250kB", "1MB")),
                 Bulk(flows=4, start_spread="0.5s")],
        run=RunControl(duration="4s", sample_interval="0.5s", stop_when_done=False))
    slow, fast = both(simulate, sc)
    assert fast.flows.completed.iloc[:3].all()  # 3 kB, 70 kB (one byte over a refill), 250 kB
    assert fast.queues.iloc[0].drops > 0
    assert_same(slow, fast)
