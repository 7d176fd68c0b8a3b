"""FastListRouting (aqmlab/engines/ns3/cpp/fast_routing.h), its route indexes (cpp/route_index.h)
and DirectRx (cpp/direct_rx.h) change speed, never results: runs with ns-3's scans (each
switched off in this process) give the same tables and event counts as with them, on
routers with many interfaces, on a chain of routers, and under two-way web traffic; the
indexes agree with ns-3's lookups on every destination asked; AQMLAB_FAST_ROUTING=0 /
AQMLAB_DIRECT_RX=0 switch them off in a new process."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Bulk, Dumbbell, Link, Red, RunControl, Scenario, Tcp
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def with_switches(simulate, scenario, routing: bool, rx: bool):
    """Results of `scenario` with the two speed-ups set so (both back on afterwards)."""
    from aqmlab.engines.ns3 import native

    cpp = native.load()
    try:
        cpp.SetFastRouting(routing)
        cpp.SetDirectRx(rx)
        return simulate(scenario)
    finally:
        cpp.SetFastRouting(True)
        cpp.SetDirectRx(True)


def many_hosts() -> Scenario:
    """150 Reno flows on 150 host pairs through RED: 151 interfaces on each router."""
    return Scenario(
        name="fast-routing-fanout",
        topology=Dumbbell(senders=150, receivers=150, bottleneck=Link(rate="10Mbps", delay="20ms"),
                          access=Link(rate="100Mbps", delay="1ms"),
                          forward_queue=Red(limit="200p", min_th=30, max_th=90)),
        tcp=Tcp(variant="reno", mss=1000),
        traffic=[Bulk(flows=150, start_spread="1s")],
        run=RunControl(duration="6s", warmup="2s", sample_interval="0.5s"))


def test_router_fanout_identical(simulate):
    """Each speed-up alone and both together simulate ns-3's run; the route memo answers
    almost every packet (one miss per node and destination)."""
    from aqmlab.engines.ns3 import native

    hits = native.load().FastListRouting.Hits
    sc = many_hosts()
    slow = with_switches(simulate, sc, False, False)
    before = int(hits())
    fast = with_switches(simulate, sc, True, True)
    assert int(hits()) - before > 0.9 * fast.meta["events"] / 4  # ~4 events per hop
    assert fast.meta["fast_routing"] is True and fast.meta["direct_rx"] is True
    assert slow.meta["fast_routing"] is False and slow.meta["direct_rx"] is False
    assert_same(slow, fast)
    assert_same(slow, with_switches(simulate, sc, True, False))
    assert_same(slow, with_switches(simulate, sc, False, True))


def test_route_indexes_agree_with_ns3(simulate):
    """In verify mode every first lookup of a destination asks both the index and the
    protocol: no disagreement on a 151-interface router, a chain of four routers, or the
    web dumbbell; and runs with indexes give ns-3's tables."""
    from aqmlab.engines.ns3 import native

    cpp = native.load()
    lot = Scenario.load(EXAMPLES / "parking_lot.toml").replace(
        **{"run.duration": "3s", "run.warmup": "1s"})
    web = Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"run.duration": "4s", "run.warmup": "1s", "run.stop_after_responses": None})
    fanout = many_hosts().replace(**{"run.duration": "3s", "run.warmup": "1s"})
    asked, wrong = int(cpp.RouteIndexCount(0)), int(cpp.RouteIndexCount(1))
    try:
        cpp.SetRouteIndexMode(2)
        for sc in (fanout, lot, web):
            simulate(sc)
    finally:
        cpp.SetRouteIndexMode(1)
    assert int(cpp.RouteIndexCount(0)) - asked > 600  # 300 hosts' and both routers' dests
    assert int(cpp.RouteIndexCount(1)) == wrong
    try:
        cpp.SetRouteIndexMode(0)
        slow = simulate(lot)
    finally:
        cpp.SetRouteIndexMode(1)
    assert_same(slow, simulate(lot))


def test_parking_lot_identical(simulate):
    """Four routers in a chain: routes through gateways, cross traffic entering and leaving
    at each hop, SACK."""
    sc = Scenario.load(EXAMPLES / "parking_lot.toml").replace(
        **{"run.duration": "8s", "run.warmup": "2s", "run.sample_interval": "0.5s"})
    assert_same(with_switches(simulate, sc, False, False), with_switches(simulate, sc, True, True))


def test_two_way_web_identical(simulate):
    """Two-way PackMime over ARED+ECN: per-connection delays on FlowDelayChannel links, short
    connections both ways."""
    sc = Scenario.load(EXAMPLES / "weigle_ecn_ared_80.toml").replace(
        **{"run.duration": "15s", "run.warmup": "5s", "run.stop_after_responses": None,
           "run.sample_interval": "1s"})
    slow = with_switches(simulate, sc, False, False)
    assert len(slow.requests) > 2000
    assert_same(slow, with_switches(simulate, sc, True, True))


def test_environment_switches_turn_them_off(simulate, tmp_path):
    """A process started with both variables at 0 builds ns-3's path (run meta says so) and
    simulates the same run as this process with both on."""
    sc = many_hosts().replace(**{"run.duration": "3s", "run.warmup": "1s"})
    off, _ = simulate_in_child(sc, tmp_path, "off",
                               {"AQMLAB_FAST_ROUTING": "0", "AQMLAB_DIRECT_RX": "0"})
    assert off.meta["fast_routing"] is False and off.meta["direct_rx"] is False
    assert_same(off, with_switches(simulate, sc, True, True))
