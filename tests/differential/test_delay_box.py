"""ns-2.35's DelayBox holds a client's outgoing packets in the client's node, before its
link (``topology.delay_box = "ns2"``, cpp/delay_box.h); aqmlab's channel alone ("channel")
adds each connection's delay after the link. Two connections 20 ms and 0.5 ms from their
server (Weigle's 80 % load, seed 1, 0.49 and 0.55 s) send packets that meet the 100 Mb/s
link in a different order, and the short one's response ended 1.7 ms apart from ns-2.35.
"""

from __future__ import annotations

import functools

import pytest

from aqmlab.engines import ns2
from tests.differential.planned import run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

# Weigle's web TCP as the studies run it, with every frame in ns-2's bytes
TCP = {"syn_options": "none", "initial_cwnd": 2, "clock_granularity": "10ms"}
START = (0.4854922299685161, 0.545609540649009)
DELAY = (0.02017800025710913, 0.0005306719587515578)  # one way, each connection's own


@functools.cache
def _times(engine: str, box: str) -> tuple[float, ...]:
    sc = scenario(TCP, delay="0ms", rtt="packmime").replace(
        **{"topology.link_header": "none", "topology.delay_box": box})
    df, _ = run(sc, engine, [432, 419], [7578, 4195], start=START, extra_delay=DELAY)
    assert df.completed.all(), engine
    return tuple(df.response_time_s)


def test_outgoing_packets_wait_before_the_clients_link():
    """With ns-2's DelayBox both responses end at ns-2.35's instants (to a picosecond)."""
    for t3, t2 in zip(_times("ns3", "ns2"), _times("ns2", "ns2"), strict=True):
        assert abs(t3 - t2) < 1e-12


def test_a_delay_after_the_link_reorders_two_connections():
    """With the delay on the channel the short connection's response ends more than 1 ms
    sooner than on ns-2.35, and the long one's 31 us later."""
    (a3, b3), (a2, b2) = _times("ns3", "channel"), _times("ns2", "channel")
    assert b2 - b3 > 1e-3
    assert 2e-5 < a3 - a2 < 5e-5
