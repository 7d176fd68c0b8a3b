"""Nagle's algorithm (``tcp.nagle``) on both engines: ns-2's Full-TCP holds a segment
shorter than the MSS while data is unacknowledged (``nodelay_ false``, its default), and
ns-3's TcpNoDelay = false does the same, so each size costs the same round trips."""

from __future__ import annotations

import numpy as np
import pytest

from aqmlab.engines import ns2
from tests.differential.planned import run, scenario

pytestmark = [pytest.mark.ns3, pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

#: (request, response, whole base RTTs without Nagle, with Nagle): the handshake and the
#: request take one RTT; with an initial window of 2 and an ACK per full segment, the
#: response's segments go out 2, then 2 + 2 per round trip. A partial last segment (of the
#: response or of a two-segment request) waits under Nagle until all before it is acked.
CASES = [(300, 500, 2, 2),      # one segment
         (300, 2000, 2, 3),     # full + partial: the partial waits one RTT
         (300, 5000, 3, 4),     # 3 full + partial: the partial waits for the third's ACK
         (300, 7100, 3, 3),     # 5 full segments: nothing to hold
         (2000, 500, 2, 3)]     # a two-segment request: its tail waits


@pytest.mark.parametrize("nagle", [False, True])
def test_each_size_takes_the_same_round_trips_on_both_engines(nagle):
    """On an idle 50 ms path each response takes its listed number of whole base RTTs (plus
    serialisation, under one RTT) on both engines, and the engines agree within 1 ms."""
    req, rsp, plain, held = (np.array(c) for c in zip(*CASES, strict=True))
    sc = scenario({"nagle": nagle})
    times = {}
    for engine in ("ns3", "ns2"):
        df, _ = run(sc, engine, req, rsp)
        assert df.completed.all()
        rtts = np.floor(df.response_time_s / df.base_rtt_s).astype(int).to_numpy()
        assert rtts.tolist() == (held if nagle else plain).tolist(), engine
        times[engine] = df.response_time_s.to_numpy()
    assert np.abs(times["ns3"] - times["ns2"]).max() < 0.001
