// aqmlab/engines/ns3/cpp/event_heap.h -- ns-3's pending events in a 4-ary heap.
//
// ns-3's default scheduler (MapScheduler) keeps the pending events in a std::map keyed by
// (time, uid): every Schedule allocates a tree node and rebalances, every event run frees
// one and rebalances again, and each walks a pointer chain through nodes scattered over the
// heap (~8 % of a two-way web run's samples: MapScheduler::Insert, RemoveNext, the red-black
// tree's rebalancing and the node allocations). EventHeap keeps the same events in one
// contiguous array as an implicit 4-ary min-heap. The order in which events run is the
// order of their keys, (time, uid), and no two events share a uid, so any correct priority
// queue runs the very same events in the very same order: the results cannot change, only
// the cost. Remove (Simulator::Remove, rare: ns-3 cancels events instead) finds the event by
// a scan.
//
// Experiment::Run installs it (Simulator::SetScheduler, which moves the events already
// scheduled by the build) unless AQMLAB_EVENT_HEAP=0.
#pragma once
#include "switches.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/object-factory.h"
#include "ns3/scheduler.h"
#include "ns3/simulator.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aqmlab
{

AQMLAB_SWITCH(EventHeap, EnvSwitch("AQMLAB_EVENT_HEAP", true))
AQMLAB_SWITCH(EventBuckets, EnvSwitch("AQMLAB_EVENT_BUCKETS", true))

/// ns-3's event order: (time, uid).
struct EventKeyBefore
{
    bool operator()(const ns3::Scheduler::Event& a, const ns3::Scheduler::Event& b) const
    {
        return a.key.m_ts < b.key.m_ts ||
               (a.key.m_ts == b.key.m_ts && a.key.m_uid < b.key.m_uid);
    }
};

/// An implicit 4-ary min-heap in one vector, first the least by `Less` (a strict total
/// order on the elements, so the order of pops does not depend on the heap's shape).
template <typename Event, typename Less>
class QuadHeapOf
{
  public:
    static bool Before(const Event& a, const Event& b)
    {
        return Less{}(a, b);
    }

    void Reserve(size_t n)
    {
        m_heap.reserve(n);
    }

    bool Empty() const
    {
        return m_heap.empty();
    }

    const Event& Top() const
    {
        NS_ASSERT(!m_heap.empty());
        return m_heap.front();
    }

    size_t Size() const
    {
        return m_heap.size();
    }

    /// Each element once, in no particular order.
    template <typename Fn>
    void ForEach(Fn fn)
    {
        for (Event& ev : m_heap)
        {
            fn(ev);
        }
    }

    void Clear()
    {
        m_heap.clear();
    }

    void Push(const Event& ev)
    {
        m_heap.push_back(ev);
        SiftUp(m_heap.size() - 1, ev);
    }

    Event Pop()
    {
        NS_ASSERT(!m_heap.empty());
        const Event top = m_heap.front();
        RemoveAt(0);
        return top;
    }

    /// Remove `ev` (found by a scan); false if it is not here.
    bool Remove(const Event& ev)
    {
        for (size_t i = 0; i < m_heap.size(); ++i)
        {
            if (m_heap[i].key.m_uid == ev.key.m_uid && m_heap[i].key.m_ts == ev.key.m_ts)
            {
                NS_ASSERT(m_heap[i].impl == ev.impl);
                RemoveAt(i);
                return true;
            }
        }
        return false;
    }

  private:
    static constexpr size_t kArity = 4;

    /// Move `ev`, which belongs at `i`, up to its place.
    void SiftUp(size_t i, const Event ev)
    {
        while (i > 0)
        {
            const size_t parent = (i - 1) / kArity;
            if (!Before(ev, m_heap[parent]))
            {
                break;
            }
            m_heap[i] = m_heap[parent];
            i = parent;
        }
        m_heap[i] = ev;
    }

    /// Move `ev`, which belongs at `i`, down to its place.
    void SiftDown(size_t i, const Event ev)
    {
        const size_t n = m_heap.size();
        while (true)
        {
            const size_t first = kArity * i + 1;
            if (first >= n)
            {
                break;
            }
            size_t best = first;
            const size_t end = first + kArity < n ? first + kArity : n;
            for (size_t c = first + 1; c < end; ++c)
            {
                if (Before(m_heap[c], m_heap[best]))
                {
                    best = c;
                }
            }
            if (!Before(m_heap[best], ev))
            {
                break;
            }
            m_heap[i] = m_heap[best];
            i = best;
        }
        m_heap[i] = ev;
    }

    void RemoveAt(size_t i)
    {
        const Event last = m_heap.back();
        m_heap.pop_back();
        if (i == m_heap.size())
        {
            return;
        }
        if (i > 0 && Before(last, m_heap[(i - 1) / kArity]))
        {
            SiftUp(i, last);
        }
        else
        {
            SiftDown(i, last);
        }
    }

    std::vector<Event> m_heap;
};

/// ns-3's pending events on (time, uid).
using QuadHeap = QuadHeapOf<ns3::Scheduler::Event, EventKeyBefore>;

/// A priority queue of `Event`s, least by `Less` first: a small heap of the current bucket's
/// elements, a ring of later buckets (unsorted vectors) and a heap of the elements beyond
/// the ring. `BucketOf` maps an element to its bucket and must not decrease along `Less` (an
/// element before another is in the same bucket or an earlier one), so the first heap's
/// least is the least of all and the pops come in the order a single heap gives. The first
/// heap is never empty while anything is pending (Top is always the least).
template <typename Event, typename Less, typename BucketOf>
class BucketQueueOf
{
  public:
    explicit BucketQueueOf(BucketOf bucketOf = BucketOf{})
        : m_bucketOf(bucketOf),
          m_ring(kBuckets)
    {
        m_near.Reserve(1024);
    }

    bool Empty() const
    {
        return m_count == 0;
    }

    const Event& Top() const
    {
        return m_near.Top();
    }

    void Push(const Event& ev)
    {
        ++m_count;
        const uint64_t b = m_bucketOf(ev);
        if (b <= m_cur)
        {
            m_near.Push(ev);
            return;
        }
        if (b < m_cur + kBuckets)
        {
            m_ring[b & kMask].push_back(ev);
            ++m_inRing;
        }
        else
        {
            m_far.Push(ev);
        }
        if (m_near.Empty())
        {
            Advance(); // it was the only element
        }
    }

    Event Pop()
    {
        const Event top = m_near.Pop();
        --m_count;
        if (m_near.Empty() && m_count > 0)
        {
            Advance();
        }
        return top;
    }

    /// Remove `ev` (found by a scan of its tier); false if it is not here.
    bool Remove(const Event& ev)
    {
        const uint64_t b = m_bucketOf(ev);
        bool found = false;
        if (b <= m_cur)
        {
            found = m_near.Remove(ev);
        }
        else if (b < m_cur + kBuckets)
        {
            auto& bucket = m_ring[b & kMask];
            for (size_t i = 0; i < bucket.size(); ++i)
            {
                if (!Less{}(bucket[i], ev) && !Less{}(ev, bucket[i])) // the same element
                {
                    bucket[i] = bucket.back(); // a bucket's order does not matter
                    bucket.pop_back();
                    --m_inRing;
                    found = true;
                    break;
                }
            }
        }
        else
        {
            found = m_far.Remove(ev);
        }
        if (!found)
        {
            return false;
        }
        --m_count;
        if (m_near.Empty() && m_count > 0)
        {
            Advance();
        }
        return true;
    }

    /// Each element once, in no particular order.
    template <typename Fn>
    void ForEach(Fn fn)
    {
        m_near.ForEach(fn);
        for (auto& bucket : m_ring)
        {
            for (Event& ev : bucket)
            {
                fn(ev);
            }
        }
        m_far.ForEach(fn);
    }

    void Clear()
    {
        m_near.Clear();
        for (auto& bucket : m_ring)
        {
            bucket.clear();
        }
        m_far.Clear();
        m_count = 0;
        m_inRing = 0;
    }

    /// Buckets moved into the first heap so far in this process, by every queue of this
    /// type (tests: the path was taken).
    static uint64_t& Loads()
    {
        static uint64_t n = 0;
        return n;
    }

  private:
    static constexpr uint64_t kBuckets = 4096; // a power of two
    static constexpr uint64_t kMask = kBuckets - 1;

    /// The first heap is empty and some element is pending: move to the next bucket that
    /// has one, and its elements (and the far heap's that now fall in the ring) to their tier.
    void Advance()
    {
        while (m_near.Empty())
        {
            m_cur = m_inRing == 0 ? m_bucketOf(m_far.Top()) : m_cur + 1;
            while (!m_far.Empty() && m_bucketOf(m_far.Top()) < m_cur + kBuckets)
            {
                const Event e = m_far.Pop();
                const uint64_t b = m_bucketOf(e);
                if (b <= m_cur)
                {
                    m_near.Push(e);
                }
                else
                {
                    m_ring[b & kMask].push_back(e);
                    ++m_inRing;
                }
            }
            auto& bucket = m_ring[m_cur & kMask];
            if (!bucket.empty())
            {
                m_inRing -= bucket.size();
                for (const Event& e : bucket)
                {
                    m_near.Push(e);
                }
                bucket.clear();
                ++Loads();
            }
        }
    }

    BucketOf m_bucketOf;
    uint64_t m_cur = 0;    // the first heap holds every element of bucket <= m_cur
    uint64_t m_count = 0;  // pending elements, all tiers
    uint64_t m_inRing = 0; // elements in m_ring
    QuadHeapOf<Event, Less> m_near;
    std::vector<std::vector<Event>> m_ring; // buckets m_cur+1 .. m_cur+kBuckets-1
    QuadHeapOf<Event, Less> m_far;          // buckets from m_cur+kBuckets on
};

/// The pending events as an implicit 4-ary min-heap on (time, uid) in one vector.
class EventHeap : public ns3::Scheduler
{
  public:
    static ns3::TypeId GetTypeId()
    {
        static ns3::TypeId tid = ns3::TypeId("aqmlab::EventHeap")
                                     .SetParent<ns3::Scheduler>()
                                     .SetGroupName("aqmlab")
                                     .AddConstructor<EventHeap>();
        return tid;
    }

    EventHeap()
    {
        m_heap.Reserve(1024);
    }

    void Insert(const Event& ev) override
    {
        m_heap.Push(ev);
    }

    bool IsEmpty() const override
    {
        return m_heap.Empty();
    }

    Event PeekNext() const override
    {
        return m_heap.Top();
    }

    Event RemoveNext() override
    {
        return m_heap.Pop();
    }

    void Remove(const Event& ev) override
    {
        if (!m_heap.Remove(ev))
        {
            NS_FATAL_ERROR("aqmlab::EventHeap::Remove: no such event");
        }
    }

    /// Install it (or EventBuckets, below, unless AQMLAB_EVENT_BUCKETS=0) as the
    /// simulator's scheduler (events already scheduled move over).
    static void Install();

  private:
    QuadHeap m_heap;
};

/// The pending events in two tiers: those of the current time bucket (2^k time steps,
/// ~0.5 ms) in a 4-ary heap, later ones unsorted in a ring of 4,096 buckets (~2.2 s) and
/// the rest (TIME_WAIT's 120 s, FIN_WAIT_2's 60 s) in a second heap. An event reaches the
/// first heap when simulated time reaches its bucket; every event in it is earlier than
/// every event in the ring and the second heap, so RemoveNext returns the (time, uid)
/// minimum of all, as EventHeap does, but sifts through a heap of the next half
/// millisecond's events instead of all of them (12,000 on average in a two-way web run,
/// most of them timers that expire, cancelled or not, seconds to minutes later).
class EventBuckets : public ns3::Scheduler
{
  public:
    static ns3::TypeId GetTypeId()
    {
        static ns3::TypeId tid = ns3::TypeId("aqmlab::EventBuckets")
                                     .SetParent<ns3::Scheduler>()
                                     .SetGroupName("aqmlab")
                                     .AddConstructor<EventBuckets>();
        return tid;
    }

    EventBuckets()
        : m_queue(StepBucket{BucketShift()})
    {
    }

    void Insert(const Event& ev) override
    {
        m_queue.Push(ev);
    }

    bool IsEmpty() const override
    {
        return m_queue.Empty();
    }

    Event PeekNext() const override
    {
        return m_queue.Top();
    }

    Event RemoveNext() override
    {
        return m_queue.Pop();
    }

    void Remove(const Event& ev) override
    {
        if (!m_queue.Remove(ev))
        {
            NS_FATAL_ERROR("aqmlab::EventBuckets::Remove: no such event");
        }
    }

    /// Buckets moved into the first heap so far in this process (tests: the path was taken).
    static uint64_t& Loads()
    {
        return Queue::Loads();
    }

  private:
    /// An event's bucket: its time in steps of the largest power of two <= 1 ms.
    struct StepBucket
    {
        unsigned shift;

        uint64_t operator()(const Event& ev) const
        {
            return ev.key.m_ts >> shift;
        }
    };

    using Queue = BucketQueueOf<Event, EventKeyBefore, StepBucket>;

    /// log2 of a bucket's width in time steps: the largest power of two <= 1 ms.
    static unsigned BucketShift()
    {
        const uint64_t ms = static_cast<uint64_t>(ns3::MilliSeconds(1).GetTimeStep());
        unsigned k = 0;
        while ((ms >> (k + 1)) != 0)
        {
            ++k;
        }
        return k;
    }

    Queue m_queue;
};

inline void
EventHeap::Install()
{
    ns3::ObjectFactory factory;
    factory.SetTypeId(EventBucketsEnabled() ? EventBuckets::GetTypeId() : GetTypeId());
    ns3::Simulator::SetScheduler(factory);
}

} // namespace aqmlab
