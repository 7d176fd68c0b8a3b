"""A packet that arrives at a full queue the very instant a transmission ends
(``topology.queue_wake``).

Pentikousis et al.'s five 20-MiB downloads through a 4-packet drop-tail queue (the
ecn_bulk study's dt-q4), seed 1. In slow start the bottleneck's service time paces the
departures and, one RTT later, the ACK-clocked arrivals, so at 0.2199999 s flow 3's first
segment of a pair (segment 1) reaches router A exactly as flow 1's segment 1 finishes its
transmission, with 3 packets waiting. ns-2.35's link dequeues the next packet in the event
that ends the transmission: the arrival takes the place freed, and the second of the pair
(segment 2) is lost 1.17 ms later. ns-3 "ns3" moves the device queue's packet on at once
but refills the device queue from the disc one event later: the arrival meets a full disc,
and segment 1 is lost. "ns2" refills it as the transmission starts: ns-2.35's losses and
every data packet of the five flows alike over the first 2 s (over the whole 600-s run,
the same drops, timeouts and completion times to the microsecond; the engines part at
0.39 s with "ns3").
"""

from __future__ import annotations

import pytest

from aqmlab.engines.flow_trace import flow_trace
from tests.differential.packets import data_packets, partings
from tests.differential.scenarios import MARKS

pytestmark = MARKS

FLOWS = range(5)


def dt_q4(engine: str, wake: str = "ns3"):
    from aqmlab.studies.setups import pentikousis

    sc = pentikousis.base("20MiB").replace(**dict(pentikousis.scheme_arm("dt", 4).changes))
    return sc.replace(**{"run.engine": engine, "run.duration": "2s", "run.seed": 1,
                         "run.sample_interval": None, "topology.queue_wake": wake})


@pytest.fixture(scope="module")
def events() -> dict[str, object]:
    return {"ns2": flow_trace(dt_q4("ns2"), FLOWS)[1],
            "ns3": flow_trace(dt_q4("ns3", "ns3"), FLOWS)[1],
            "ns3-wake": flow_trace(dt_q4("ns3", "ns2"), FLOWS)[1]}


def first_resend(ev, flow: int) -> int:
    d = data_packets(ev, flow)
    return int(d[d.event == "retx"].seg.iloc[0])


def test_ns2_loses_the_second_segment_of_the_pair(events):
    assert first_resend(events["ns2"], 3) == 2


def test_ns3_wake_loses_the_first(events):
    assert first_resend(events["ns3"], 3) == 1
    assert min(partings(events["ns2"], events["ns3"], FLOWS)) < 0.5


def test_ns2_wake_sends_ns2s_packets(events):
    """Every data packet of the five flows alike (segment, and time within 1 ms)."""
    from aqmlab.engines.ns3 import native

    assert first_resend(events["ns3-wake"], 3) == 2
    assert partings(events["ns2"], events["ns3-wake"], FLOWS) == [float("inf")] * 5
    assert int(native.load().QueueWake.Count()) > 0
