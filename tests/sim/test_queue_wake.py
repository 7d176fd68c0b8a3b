"""With ``topology.queue_wake = "ns2"`` the device queue is refilled as each transmission
starts (aqmlab/engines/ns3/cpp/queue_wake.h), so ns-3's own wake event, one per packet
sent, finds nothing to do; AQMLAB_ONE_WAKE (on by default) does not schedule it. Runs
with and without it give the same tables, with about a quarter fewer events in bulk runs;
and with "ns3" nothing is hooked at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, off_then_on

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"


def both(simulate, scenario):
    return off_then_on(simulate, scenario, "OneWake")


def test_pentikousis_red_identical_with_fewer_events(simulate):
    """Five downloads over RED on 8 packets: drops, idle periods of ns-2's RED average."""
    sc = Scenario.load(EXAMPLES / "pentikousis_ecn_5clients.toml").replace(
        **{"topology.forward_queue.limit": "8p", "topology.forward_queue.min_th": 2.5,
           "topology.forward_queue.max_th": 7.5, "traffic[0].size": "1MiB",
           "run.duration": "20s"})
    assert sc.topology.queue_wake == "ns2"
    kept, fast = both(simulate, sc)
    assert fast.flows.drops.sum() > 0
    assert kept.meta["one_wake"] is False and fast.meta["one_wake"] is True
    assert fast.meta["events"] < 0.8 * kept.meta["events"]
    assert_same(kept, fast, same_events=False)


def test_parking_lot_and_web_identical(simulate):
    """Four routers in a chain with SACK flows, and two-way PackMime over drop-tail."""
    lot = Scenario.load(EXAMPLES / "parking_lot.toml").replace(
        **{"run.duration": "6s", "run.warmup": "2s", "run.sample_interval": "0.5s"})
    web = Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"run.duration": "12s", "run.warmup": "4s", "run.stop_after_responses": None,
           "run.sample_interval": "1s"})
    for sc in (lot, web):
        kept, fast = both(simulate, sc)
        assert fast.meta["events"] < kept.meta["events"]
        assert_same(kept, fast, same_events=False)


def test_ns3_wake_hooks_nothing(simulate):
    """queue_wake "ns3": no hook runs, and AQMLAB_ONE_WAKE changes nothing."""
    from aqmlab.engines.ns3 import native

    sc = Scenario.load(EXAMPLES / "parking_lot.toml").replace(
        **{"topology.queue_wake": "ns3", "run.duration": "3s", "run.warmup": "1s"})
    count = native.load().QueueWake.Count
    before = int(count())
    kept, fast = both(simulate, sc)
    assert int(count()) == before
    assert_same(kept, fast)
