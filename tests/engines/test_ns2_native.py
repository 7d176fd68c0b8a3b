"""ns-2.35's own PackMimeHTTP (a group's ``generator = "ns2"``), parsed into requests."""

from __future__ import annotations

import numpy as np
import pytest

from aqmlab.engines import ns2
from aqmlab.kinds.tcp import FULL_TCP
from aqmlab.scenario import DropTail, Dumbbell, Link, PackMime, RunControl, Scenario, Tcp
from tests.engines.ns2run import run

pytestmark = [pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]


def web(rate: float, limit: str = "148p", seed: int = 1, rtt: str = "packmime",
        bottleneck: str = "10Mbps", **fields) -> Scenario:
    return Scenario(
        name="ns2-packmime",
        topology=Dumbbell(senders=1, receivers=1, bottleneck=Link(rate=bottleneck, delay="1ms"),
                          access=Link(rate="100Mbps", delay="0ms"),
                          forward_queue=DropTail(limit=limit)),
        tcp=Tcp(mss=1420, min_rto="1s", initial_rto="6s", **FULL_TCP,
                rcv_window=105080),
        traffic=[PackMime(rate=rate, rtt=rtt, generator="ns2", **fields)],
        run=RunControl(duration="60s", warmup="5s", seed=seed, sample_interval=None))


def test_native_requests_take_two_base_rtts_with_both_delayboxes():
    """Every response takes at least two base RTTs, the base RTT being the path's plus
    both DelayBoxes' delays (client and server side, each direction) from their logs; the
    RTTs PackMimeHTTPXmit gives at 20 connections/s have a median of 83 ms (ns2-facts
    found 67-72 ms at Weigle et al.'s rates); a sanity range of 50-120 ms."""
    res = run(web(20))
    req = res.requests
    assert len(req) > 900
    done = req[req.completed]
    assert (done.response_time_s >= 2 * done.base_rtt_s - 1e-6).all()
    assert 0.050 < np.median(req.base_rtt_s) < 0.120


def test_native_workload_is_the_same_for_every_queue_and_changes_with_the_seed():
    """PackMime draws arrivals and sizes from its own streams: a small and a large buffer
    see the same requests (common random numbers), another seed other ones."""
    cols = ["start_s", "request_bytes", "response_bytes"]
    a = run(web(40, limit="148p")).requests[cols]
    b = run(web(40, limit="20p")).requests[cols]
    c = run(web(40, seed=2)).requests[cols]
    n = min(len(a), len(b))
    assert np.array_equal(a.head(n).to_numpy(), b.head(n).to_numpy())
    assert not np.array_equal(a.head(100).to_numpy(), c.head(100).to_numpy())


def test_server_delay_can_be_switched_off():
    """ns-2.35 waits 1/Weibull(0.63, 305) s, at most 0.1 s, before answering (about one in
    ten at the cap); off, one-segment responses over an idle 1 Gb/s path take two base
    RTTs and transmission only. Share more than 50 ms late: measured 0.12 on (median
    extra 5.7 ms), 0.0 off
    (at 10 Mb/s, elephants filling the queue delay a quarter of them by ~170 ms)."""
    def late(server_delay: bool) -> float:
        req = run(web(5, rtt="none", bottleneck="1Gbps", server_delay=server_delay)).requests
        done = req[req.completed & (req.response_bytes < 1420)]
        return float((done.response_time_s - 2 * done.base_rtt_s > 0.050).mean())

    assert late(True) > 0.05
    assert late(False) < 0.01
