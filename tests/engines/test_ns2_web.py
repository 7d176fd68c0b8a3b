"""PackMime connections replayed on ns-2.35 (Full-TCP, DelayBox): the ns-2 side's checks."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from aqmlab.engines import ns2
from aqmlab.kinds.tcp import FULL_TCP
from aqmlab.plan import make_plan
from aqmlab.results import tables
from aqmlab.scenario import DropTail, Dumbbell, Link, PackMime, RunControl, Scenario, Tcp
from tests.engines.ns2run import run

pytestmark = [pytest.mark.ns2,
              pytest.mark.skipif(not ns2.available(), reason="ns-2 (`ns`) is not installed")]

WEB_TCP = Tcp(mss=1420, min_rto="1s", initial_rto="6s", **FULL_TCP,
              rcv_window=105080)


def web(rate: float, duration: str = "60s", warmup: str = "10s", limit: str = "148p",
        **run) -> Scenario:
    """Two-way PackMime over 10 Mb/s (Weigle et al.'s set-up, scaled down)."""
    return Scenario(
        name="ns2-web",
        topology=Dumbbell(senders=2, receivers=2, bottleneck=Link(rate="10Mbps", delay="0ms"),
                          access=Link(rate="100Mbps", delay="0ms"),
                          forward_queue=DropTail(limit=limit),
                          reverse_queue=DropTail(limit=limit)),
        tcp=WEB_TCP,
        traffic=[PackMime(rate=rate, senders=[0], receivers=[0]),
                 PackMime(rate=rate, direction="reverse", senders=[1], receivers=[1])],
        run=RunControl(duration=duration, warmup=warmup, sample_interval="1s", **run))


def test_every_replayed_response_takes_at_least_two_base_rtts():
    """SYN, SYN/ACK, then the request and the response: no response can complete in less
    than two base RTTs (each connection's own: topology + its DelayBox delay). At 40
    connections/s each way (loss on the bottleneck) every connection opened is in the
    table, nearly all complete, and the smallest ratio is 2.0001."""
    res = run(web(40, limit="30p"))
    req = res.requests
    plan = make_plan(res.scenario)
    opened = sum(int((w.start_s <= res.summary.iloc[0].end_s).sum()) for w in plan.web)
    assert len(req) == opened
    done = req[req.completed]
    assert len(done) > 0.98 * len(req)
    assert (done.response_time_s >= 2 * done.base_rtt_s - 1e-9).all()
    assert res.summary.iloc[0].drops > 0


def test_each_connections_planned_delay_is_honoured_even_when_they_start_together():
    """Twenty one-segment request/responses from one client to one server, started
    0.1 us apart with extra delays from 0 to 190 ms: each takes two of its own base RTTs
    plus the same serialisation, so response time - 2 base RTT is the same for all (an
    off-by-one in the DelayBox constants would shift it by 20 ms). Measured: 0.93 ms for
    all twenty; with the constant set after the SYN instead, -39 to +0.9 ms."""
    sc = web(1, duration="5s", warmup="0s")
    plan = make_plan(sc)
    w = plan.web[0]
    n = 20
    delay = np.arange(n) * 0.010
    prop = 2 * plan.path_delay(int(w.server[0]), int(w.client[0]))
    plan.web = [dataclasses.replace(
        w, server=np.full(n, w.server[0]), client=np.full(n, w.client[0]),
        start_s=1.0 + np.arange(n) * 1e-7,
        request=np.full(n, 300.0), response=np.full(n, 500.0), delay_s=delay,
        base_rtt_s=prop + 2 * delay)]
    raw = ns2.simulate(sc, plan)
    req = tables.requests_table(sc, plan, raw)
    assert req.completed.all()
    extra = req.response_time_s - 2 * req.base_rtt_s
    assert extra.max() - extra.min() < 0.0005
    assert 0 < extra.min() < 0.005


def test_stop_after_responses_ends_the_run():
    """The run stops once 300 responses that started after the warm-up have completed."""
    res = run(web(30, duration="200s", stop_after_responses=300))
    req = res.requests
    s = res.summary.iloc[0]
    assert s.end_s < 200
    assert int((req.after_warmup & req.completed).sum()) == 300


def test_every_drop_belongs_to_a_connection_and_bytes_after_the_warm_up_add_up():
    """Drops at the probed queues, joined on the flow id, add up to the queues' drops
    (data and pure ACKs/SYNs); a response that started after the warm-up and completed
    was measured whole; none is measured beyond its size."""
    sc = web(45, limit="20p")
    plan = make_plan(sc)
    raw = ns2.simulate(sc, plan)
    assert raw.queues["drops"].sum() > 50
    assert (raw.flows["drops"] + raw.flows["ack_drops"]).sum() == raw.queues["drops"].sum()
    req = tables.requests_table(sc, plan, raw)
    whole = req[req.after_warmup & req.completed]
    assert (whole.response_bytes_measured == whole.response_bytes).all()
    assert (req.response_bytes_measured <= req.response_bytes).all()
    assert req.saw_drop.any() and req.retransmitted.any()
