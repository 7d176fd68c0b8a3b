"""ns-3's pending events in two tiers (aqmlab/engines/ns3/cpp/event_heap.h, EventBuckets): the
next half millisecond's events in the 4-ary heap, later ones in time buckets or a second heap
until time reaches their bucket. It changes cost, never results: every event in the heap is
earlier than every event outside it, so events run in the order of their (time, uid) keys
as with ns-3's std::map, and a run with the buckets (the default) equals the run with
AQMLAB_EVENT_BUCKETS off (the single heap), table for table."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab.scenario import Scenario
from tests.sim.identical import assert_same, simulate_in_child

pytestmark = pytest.mark.ns3
EXAMPLES = Path(__file__).parents[2] / "examples"

ORDER_PROBE = r"""
namespace aqmlab_test_event_buckets
{
std::vector<int> g_fired;
uint32_t g_x = 1;

inline uint32_t Next()
{
    g_x = g_x * 1103515245u + 12345u;
    return g_x >> 8;
}

/// Event `i`; every seventh schedules another (the near heap, the ring, the far heap).
inline void Fire(int i)
{
    g_fired.push_back(i);
    if (i % 7 == 0 && i < 100000)
    {
        const uint32_t r = Next();
        ns3::Time d = r % 3 == 0 ? ns3::MicroSeconds(r % 400)
                      : r % 3 == 1 ? ns3::MilliSeconds(r % 3000)
                                   : ns3::Seconds(r % 200);
        ns3::Simulator::Schedule(d, &Fire, i + 100000);
    }
}

/// 5,000 events from 0 to 300 s (within a bucket, across the ring, past it; ties broken
/// by uid), a tenth cancelled and a tenth removed (Simulator::Remove), run with
/// `scheduler`: the order they ran in.
inline std::vector<int> Order(const std::string& scheduler)
{
    ns3::Simulator::Destroy();
    ns3::ObjectFactory f;
    f.SetTypeId(scheduler);
    ns3::Simulator::SetScheduler(f);
    g_fired.clear();
    g_x = 12345;
    std::vector<ns3::EventId> ids;
    for (int i = 0; i < 5000; ++i)
    {
        const uint32_t r = Next();
        ns3::Time t = r % 4 == 0 ? ns3::MicroSeconds(r % 300)
                      : r % 4 == 1 ? ns3::MilliSeconds(r % 2500)
                      : r % 4 == 2 ? ns3::MilliSeconds(2000 + r % 1000)
                                   : ns3::Seconds(r % 300);
        ids.push_back(ns3::Simulator::Schedule(t, &Fire, i));
    }
    for (int i = 0; i < 5000; i += 10)
    {
        ids[i].Cancel();
        ns3::Simulator::Remove(ids[i + 5]);
    }
    ns3::Simulator::Run();
    ns3::Simulator::Destroy();
    return g_fired;
}
} // namespace aqmlab_test_event_buckets
"""


def test_buckets_run_events_in_the_map_schedulers_order():
    from aqmlab.engines.ns3 import loader, native

    cpp = native.load()
    cpp.EventBuckets.GetTypeId()
    loader.cppdef(ORDER_PROBE)
    probe = loader.gbl().aqmlab_test_event_buckets
    loads = int(cpp.EventBuckets.Loads())
    by_map = list(probe.Order("ns3::MapScheduler"))
    by_buckets = list(probe.Order("aqmlab::EventBuckets"))
    assert len(by_map) > 4000
    assert by_buckets == by_map
    assert int(cpp.EventBuckets.Loads()) > loads + 100


def test_web_identical_without_them(tmp_path):
    """Two-way PackMime: TIME_WAIT and FIN_WAIT_2 timers in the far heap, retransmission
    timers (cancelled or not) in the ring. On ns-3's exact clock, whose scheduler the
    buckets serve (Weigle's example runs on ns-2's event clock, its own scheduler)."""
    sc = Scenario.load(EXAMPLES / "weigle_droptail_80.toml").replace(
        **{"run.duration": "12s", "run.warmup": "3s", "run.event_clock": "exact"})
    fast, on = simulate_in_child(sc, tmp_path, "on", {})
    slow, off = simulate_in_child(sc, tmp_path, "off", {"AQMLAB_EVENT_BUCKETS": "0"})
    assert on["event_bucket_loads"] > 1000 and off["event_bucket_loads"] == 0
    assert fast.meta["event_buckets"] is True and slow.meta["event_buckets"] is False
    assert fast.meta["events"] > 100_000
    assert_same(slow, fast)


QUEUE_PROBE = r"""
namespace aqmlab_test_bucket_queue
{
struct Item
{
    double due;
    uint32_t uid;
};

struct Earlier
{
    bool operator()(const Item& a, const Item& b) const
    {
        return a.due < b.due || (a.due == b.due && a.uid < b.uid);
    }
};

struct Bucket
{
    uint64_t operator()(const Item& e) const
    {
        return static_cast<uint64_t>(e.due * 2048.0);
    }
};

/// Pops of `n` items due from 0 to 600 s (equal dues among them; pushes between pops, some
/// before the current bucket's end, some across the ring, some past it), through the
/// bucket queue (`buckets`) or std::priority_queue: the uids in the order they came out.
inline std::vector<uint32_t> Order(bool buckets, int n)
{
    aqmlab::BucketQueueOf<Item, Earlier, Bucket> q;
    auto later = [](const Item& a, const Item& b) { return Earlier{}(b, a); };
    std::priority_queue<Item, std::vector<Item>, decltype(later)> ref(later);
    uint32_t x = 12345, uid = 0;
    auto next = [&x] { x = x * 1103515245u + 12345u; return x >> 8; };
    auto push = [&](double due) {
        const Item it{due, uid++};
        buckets ? q.Push(it) : ref.push(it);
    };
    for (int i = 0; i < n; ++i)
    {
        const uint32_t r = next();
        push(r % 5 == 0 ? 0.25 * (r % 8) : r % 5 == 1 ? 1e-6 * (r % 3000) : (r % 600000) * 1e-3);
    }
    std::vector<uint32_t> out;
    double now = 0;
    while (buckets ? !q.Empty() : !ref.empty())
    {
        Item it;
        if (buckets)
        {
            it = q.Pop();
        }
        else
        {
            it = ref.top();
            ref.pop();
        }
        now = it.due;
        out.push_back(it.uid);
        const uint32_t r = next();
        if (out.size() < 4 * size_t(n) && r % 3 == 0)
        {
            push(now + (r % 4 == 0 ? 0.0 : r % 4 == 1 ? 1e-4 * (r % 50) : r % 4 == 2 ? 0.01 * (r % 400) : r % 300));
        }
    }
    return out;
}
} // namespace aqmlab_test_bucket_queue
"""


def test_bucket_queue_pops_in_a_single_heaps_order():
    """ns-2's event clock keeps its events (ordered by ns-2's due double, then uid) in
    BucketQueueOf: the same pops, in the same order, as one priority queue, with equal dues,
    dues inside the current bucket, across the ring and beyond it, and pushes between pops."""
    from aqmlab.engines.ns3 import loader, native

    native.load()
    loader.cppdef("#include <queue>\n" + QUEUE_PROBE)
    probe = loader.gbl().aqmlab_test_bucket_queue
    ref = list(probe.Order(False, 20000))
    got = list(probe.Order(True, 20000))
    assert len(ref) > 25000
    assert got == ref
