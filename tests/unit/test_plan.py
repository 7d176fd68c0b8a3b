"""Scenario -> plan expansion (no ns-3)."""

from __future__ import annotations

import numpy as np
import pytest

from aqmlab.plan import make_plan
from aqmlab.scenario import Bulk, Dumbbell, Link, ParkingLot, RunControl, Scenario, Transfers
from aqmlab.studies.setups import pentikousis


def test_dumbbell_nodes_links_and_base_rtt():
    sc = Scenario(topology=Dumbbell(senders=3, receivers=2, sender_delays=["1ms", "5ms", "20ms"],
                                    bottleneck=Link(rate="10Mbps", delay="20ms"),
                                    access=Link(rate="100Mbps", delay="2ms")),
                  traffic=[Bulk(flows=6)])
    plan = make_plan(sc)
    assert len(plan.nodes) == 3 + 2 + 2
    assert len(plan.links) == 3 + 1 + 2
    assert plan.probe_names() == ["R0->R1", "R1->R0"]
    # flow k: sender k % 3, receiver k % 2; RTT = 2 * (access_s + 20 ms + 2 ms)
    rtts = [round(f.base_rtt_s, 6) for f in plan.flows]
    assert rtts == [0.046, 0.054, 0.084, 0.046, 0.054, 0.084]
    assert [plan.nodes[f.dst] for f in plan.flows] == ["D0", "D1", "D0", "D1", "D0", "D1"]


def test_start_times_are_common_random_numbers():
    base = Scenario(traffic=[Bulk(flows=5, start_spread="1s")])
    other = base.replace(**{"topology.forward_queue": {"kind": "red", "limit": "100p"}})
    a = [f.start_s for f in make_plan(base).flows]
    b = [f.start_s for f in make_plan(other).flows]
    c = [f.start_s for f in make_plan(base.replace(**{"run.seed": 2})).flows]
    assert a == b
    assert a != c
    assert all(0 <= s <= 1 for s in a)


def test_parking_lot_paths_and_probes():
    sc = Scenario(topology=ParkingLot(routers=4, link=Link(rate="10Mbps", delay="10ms"),
                                      access=Link(rate="100Mbps", delay="1ms")),
                  traffic=[Bulk(flows=2), Bulk(flows=1, path="cross:1")],
                  run=RunControl(duration="10s"))
    plan = make_plan(sc)
    assert plan.probe_names() == ["R0->R1", "R1->R0", "R1->R2", "R2->R1", "R2->R3", "R3->R2"]
    e2e, cross = plan.flows[0], plan.flows[2]
    assert e2e.base_rtt_s == pytest.approx(2 * (0.001 + 3 * 0.010 + 0.001))
    assert cross.base_rtt_s == pytest.approx(2 * (0.001 + 0.010 + 0.001))
    assert plan.nodes[cross.src].startswith("X1S") and plan.nodes[cross.dst].startswith("X1D")


def test_transfers_sizes_and_processing_hold():
    sc = Scenario(topology=Dumbbell(senders=2),
                  traffic=[Transfers(count=2, size="1MB"),
                           Bulk(flows=2, processing_time="10ms", senders=[1])])
    plan = make_plan(sc)
    assert [f.size_bytes for f in plan.flows] == [1e6, 1e6, 0.0, 0.0]
    held = [(plan.nodes[link.a], link.hold) for link in plan.links if any(link.hold)]
    assert held == [("S1", (True, False))]


def test_packmime_plan_uses_common_random_numbers_and_delay_links():
    from aqmlab.scenario import PackMime

    base = Scenario(topology=Dumbbell(senders=2, receivers=2),
                    traffic=[PackMime(rate=50, senders=[0], receivers=[0]),
                             PackMime(rate=50, direction="reverse", senders=[1], receivers=[1])],
                    run=RunControl(duration="20s"))
    plan = make_plan(base)
    fwd, rev = plan.web
    assert 800 < len(fwd) < 1200 and 800 < len(rev) < 1200
    assert {plan.nodes[int(s)] for s in fwd.server} == {"S0"}
    assert {plan.nodes[int(s)] for s in rev.server} == {"D1"}  # responses cross R1 -> R0
    assert (fwd.base_rtt_s > 2 * fwd.delay_s).all()  # propagation + drawn RTT
    flagged = {(plan.nodes[link.a], plan.nodes[link.b]) for link in plan.links if link.flow_delay}
    assert flagged == {("R1", "D0"), ("S1", "R0")}  # the clients' access links
    # a different queue, same workload; another seed, another workload
    other = make_plan(base.replace(**{"topology.forward_queue": {"kind": "red", "limit": "100p"}}))
    assert (other.web[0].response == fwd.response).all()
    assert not np.array_equal(make_plan(base.replace(**{"run.seed": 2})).web[0].start_s[:50],
                              fwd.start_s[:50])


def test_mah_plan_maps_objects_to_pair_rtts():
    from aqmlab.scenario import Mah
    from aqmlab.workload.delays import PairRtt

    sc = Scenario(topology=Dumbbell(senders=7, receivers=7, access=Link(rate="10Mbps", delay="0ms"),
                                    bottleneck=Link(rate="10Mbps", delay="0ms")),
                  traffic=[Mah(users=14)], run=RunControl(duration="300s"))
    b = make_plan(sc).web[0]
    assert len(b.user_client) == 14 and len(b) == b.page_n_objects.sum()
    pairs = PairRtt()
    ci = (b.client - 9).astype(int)  # receivers D0..D6 are nodes 9..15
    si = b.server.astype(int)        # senders S0..S6 are nodes 0..6
    assert np.allclose(b.base_rtt_s, pairs.lookup(ci, si))
    assert b.is_primary.sum() == len(b.page_server)


def test_link_rates_are_whole_bits_per_second():
    """ns-3's DataRate is an integer: both engines get the plan's rounded rate."""
    plan = make_plan(pentikousis.base("2MiB"))
    rates = [link.rate_bps for link in plan.links]
    assert all(r == int(r) for r in rates)
    assert 1543150.0 in rates and 10287670.0 in rates  # 1.5 and 10 Mb/s x 1.028767


def _searched_delay(plan, src: int, dst: int) -> float:
    """The path delay by a depth-first search from src, summing from src's end."""
    stack = [(src, -1, 0.0)]
    while stack:
        node, parent, d = stack.pop()
        if node == dst:
            return d
        stack.extend((n, node, d + w) for n, w in plan._adj.get(node, []) if n != parent)
    raise ValueError("no path")


@pytest.mark.parametrize("topology", [
    Dumbbell(senders=7, receivers=5, sender_delays=[f"{0.1 * k + 0.37}ms" for k in range(7)],
             receiver_delays=[f"{1.3 * k + 0.11}ms" for k in range(5)]),
    ParkingLot(routers=5, cross_senders=2, link=Link(rate="10Mbps", delay="3.3ms"))])
def test_path_delay_walks_the_tree_to_the_same_float_as_a_search(topology):
    """Every ordered pair's delay equals (==, not approximately) a search's sum, so the
    memoised tree changes no RTT a plan hands the engines; adding a link rebuilds it."""
    plan = make_plan(Scenario(topology=topology, traffic=[Bulk(flows=1)]))
    n = len(plan.nodes)
    for a in range(n):
        for b in range(n):
            assert plan.path_delay(a, b) == _searched_delay(plan, a, b)
    extra = plan.add_node("X")
    plan.add_link(extra, 0, Link(rate="1Mbps", delay="0.7ms"), 1.0, (None, None))
    assert plan.path_delay(extra, n - 1) == _searched_delay(plan, extra, n - 1)
    with pytest.raises(ValueError, match="no path"):
        plan.path_delay(plan.add_node("Y"), 0)
