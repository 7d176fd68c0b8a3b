"""ns-3's pending events in aqmlab's 4-ary heap (aqmlab/engines/ns3/cpp/event_heap.h) instead of
ns-3's std::map change cost, never results: events run in the order of their (time, uid)
keys in both, so a run with the heap (the default) equals the run with AQMLAB_EVENT_HEAP off,
table for table; and the heap runs, skips and removes events exactly as MapScheduler does."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, off_then_on

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"

ORDER_PROBE = r"""
namespace aqmlab_test_event_heap
{
std::vector<int> g_fired;

inline void Fire(int i)
{
    g_fired.push_back(i);
}

/// 2,000 events at 300 distinct times (ties broken by uid), a tenth cancelled and a tenth
/// removed (Simulator::Remove), with `heap` as the scheduler: the order they ran in.
inline std::vector<int> Order(bool heap)
{
    ns3::Simulator::Destroy();
    ns3::ObjectFactory f;
    f.SetTypeId(heap ? "aqmlab::EventHeap" : "ns3::MapScheduler");
    ns3::Simulator::SetScheduler(f);
    g_fired.clear();
    std::vector<ns3::EventId> ids;
    uint32_t x = 12345;
    for (int i = 0; i < 2000; ++i)
    {
        x = x * 1103515245u + 12345u;
        ids.push_back(ns3::Simulator::Schedule(ns3::MicroSeconds((x >> 8) % 300), &Fire, i));
    }
    for (int i = 0; i < 2000; i += 10)
    {
        ids[i].Cancel();
        ns3::Simulator::Remove(ids[i + 5]);
    }
    ns3::Simulator::Run();
    ns3::Simulator::Destroy();
    return g_fired;
}
} // namespace aqmlab_test_event_heap
"""


def test_heap_runs_events_in_the_map_schedulers_order():
    from aqmlab.engines.ns3 import loader, native

    cpp = native.load()
    cpp.EventHeap.GetTypeId()
    loader.cppdef(ORDER_PROBE)
    probe = loader.gbl().aqmlab_test_event_heap
    by_map, by_heap = list(probe.Order(False)), list(probe.Order(True))
    assert len(by_map) == 1600
    assert by_heap == by_map


def both(simulate, scenario):
    return off_then_on(simulate, scenario, "EventHeap")


def test_two_way_web_identical(simulate):
    """Weigle's two-way PackMime over drop-tail 148: timers armed, cancelled and re-armed
    per ACK, a connection's events created and dropped per request."""
    sc = Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"traffic[0].rate": 107.0, "traffic[1].rate": 107.0, "run.duration": "15s",
           "run.warmup": "5s", "run.stop_after_responses": None, "run.sample_interval": "1s"})
    slow, fast = both(simulate, sc)
    assert len(fast.requests) > 2000 and fast.queues.drops.sum() > 0
    assert fast.meta["event_heap"] is True and slow.meta["event_heap"] is False
    assert_same(slow, fast)


def test_phase_locked_bulk_identical(simulate):
    """Qiu's T1 dumbbell: bulk flows whose drop-tail ties are decided by same-time events
    (a device queue's wake against an arrival), i.e. by uid order."""
    sc = Scenario.load(EXAMPLES / "qiu_t1_dumbbell.toml").replace(
        **{"topology.senders": 30, "traffic[0].flows": 30, "run.duration": "30s",
           "run.warmup": "5s", "run.sample_interval": "1s"})
    slow, fast = both(simulate, sc)
    assert fast.queues.drops.sum() > 0
    assert_same(slow, fast)
