"""The cache-laid-out 4-ary heap with bottom-up removal (aqmlab::KeyHeap, AQMLAB_KEY_HEAP,
cpp/event_heap.h) changes cost, never results: its keys are time << 32 | uid as one 128-bit
number, which orders exactly as the (time, uid) pairs, so it runs the very events ns-3's
MapScheduler and aqmlab's EventHeap run, in the same order. Checked on synthetic events
(ties, cancels, Simulator::Remove, events scheduled while the run goes on, the heap growing
past its first allocation), and on a web run with the switch off (EventHeap) and on,
table for table."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"

ORDER_PROBE = r"""
namespace aqmlab_test_key_heap
{
std::vector<int> g_fired;
uint32_t g_x = 0;

inline uint32_t Next()
{
    g_x = g_x * 1103515245u + 12345u;
    return g_x >> 8;
}

/// Runs event i; one in four schedules a later event (i + 100000), some at the same time.
inline void Fire(int i)
{
    g_fired.push_back(i);
    if (i < 100000 && i % 4 == 0)
    {
        ns3::Simulator::Schedule(ns3::NanoSeconds(Next() % 3 * 500), &Fire, i + 100000);
    }
}

/// 20,000 events at 3,000 distinct times (ties broken by uid), a tenth cancelled and a
/// tenth removed (Simulator::Remove), with scheduler `type`: the order they ran in.
inline std::vector<int> Order(const std::string& type)
{
    ns3::Simulator::Destroy();
    ns3::ObjectFactory f;
    f.SetTypeId(type);
    ns3::Simulator::SetScheduler(f);
    g_fired.clear();
    g_x = 12345;
    std::vector<ns3::EventId> ids;
    for (int i = 0; i < 20000; ++i)
    {
        ids.push_back(ns3::Simulator::Schedule(ns3::NanoSeconds(Next() % 3000 * 1000), &Fire, i));
    }
    for (int i = 0; i < 20000; i += 10)
    {
        ids[i].Cancel();
        ns3::Simulator::Remove(ids[i + 5]);
    }
    ns3::Simulator::Run();
    ns3::Simulator::Destroy();
    return g_fired;
}
} // namespace aqmlab_test_key_heap
"""


def test_key_heap_runs_events_in_the_map_schedulers_order():
    from aqmlab.engines.ns3 import loader, native

    cpp = native.load()
    cpp.KeyHeap.GetTypeId()
    cpp.EventHeap.GetTypeId()
    loader.cppdef(ORDER_PROBE)
    probe = loader.gbl().aqmlab_test_key_heap
    by_map = list(probe.Order("ns3::MapScheduler"))
    assert len(by_map) > 16000 + 3000
    assert list(probe.Order("aqmlab::EventHeap")) == by_map
    assert list(probe.Order("aqmlab::KeyHeap")) == by_map


def test_two_way_web_identical(simulate):
    """Weigle's two-way PackMime over drop-tail 148, EventHeap (off) against KeyHeap (on):
    timers armed, cancelled and re-armed per ACK, tens of thousands pending."""
    from aqmlab.engines.ns3 import native

    sc = Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"traffic[0].rate": 107.0, "traffic[1].rate": 107.0, "run.duration": "15s",
           "run.warmup": "5s", "run.stop_after_responses": None, "run.sample_interval": "1s"})
    cpp = native.load()
    cpp.SetKeyHeap(False)
    try:
        slow = simulate(sc)
    finally:
        cpp.SetKeyHeap(True)
    fast = simulate(sc)
    assert len(fast.requests) > 2000 and fast.queues.drops.sum() > 0
    assert fast.meta["key_heap"] is True and slow.meta["key_heap"] is False
    assert_same(slow, fast)
