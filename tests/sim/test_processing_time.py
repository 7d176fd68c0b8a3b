"""Random sender processing time (Qiu et al. §4, ns-2 `overhead_`), held in C++ per flow."""

from __future__ import annotations

import pytest

from aqmlab.scenario import Bulk, DropTail, Dumbbell, Link, RunControl, Scenario, Tcp

pytestmark = pytest.mark.ns3


def window_limited(processing: str) -> Scenario:
    return Scenario(
        name="overhead",
        topology=Dumbbell(bottleneck=Link(rate="10Mbps", delay="20ms"),
                          access=Link(rate="100Mbps", delay="1ms"),
                          forward_queue=DropTail(limit="100p")),
        tcp=Tcp(variant="sack", rcv_window=10_000),  # 10 segments: never congests the link
        traffic=[Bulk(flows=1, processing_time=processing)],
        run=RunControl(duration="30s", warmup="5s", sample_interval=None))


def test_processing_delay_stretches_a_window_limited_flow(simulate):
    """A window-limited flow sends one window per round trip. Holding each burst for
    U(0, 50 ms) adds 25 ms on average to the 44 ms RTT (plus ~8 ms of serialisation), so
    goodput falls to about 52/77 = 0.68 of the undelayed flow. Tolerance: 0.55-0.80."""
    fast = simulate(window_limited("0s")).flows.iloc[0]
    slow = simulate(window_limited("50ms")).flows.iloc[0]
    assert fast.drops == slow.drops == 0
    assert 0.55 <= slow.goodput_mbps / fast.goodput_mbps <= 0.80
