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
#include <cstring>
#include <new>
#include <vector>

namespace aqmlab
{

AQMLAB_SWITCH(EventHeap, EnvSwitch("AQMLAB_EVENT_HEAP", true))

/// KeyHeapEnabled(): with EventHeapEnabled(), whether Experiment::Run installs KeyHeap
/// (below) rather than EventHeap (AQMLAB_KEY_HEAP=0: EventHeap).
AQMLAB_SWITCH(KeyHeap, EnvSwitch("AQMLAB_KEY_HEAP", true))

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
        m_heap.reserve(1024);
    }

    void Insert(const Event& ev) override
    {
        m_heap.push_back(ev);
        SiftUp(m_heap.size() - 1, ev);
    }

    bool IsEmpty() const override
    {
        return m_heap.empty();
    }

    Event PeekNext() const override
    {
        NS_ASSERT(!m_heap.empty());
        return m_heap.front();
    }

    Event RemoveNext() override
    {
        NS_ASSERT(!m_heap.empty());
        const Event top = m_heap.front();
        RemoveAt(0);
        return top;
    }

    void Remove(const Event& ev) override
    {
        for (size_t i = 0; i < m_heap.size(); ++i)
        {
            if (m_heap[i].key.m_uid == ev.key.m_uid && m_heap[i].key.m_ts == ev.key.m_ts)
            {
                NS_ASSERT(m_heap[i].impl == ev.impl);
                RemoveAt(i);
                return;
            }
        }
        NS_FATAL_ERROR("aqmlab::EventHeap::Remove: no such event");
    }

    /// Install it as the simulator's scheduler (events already scheduled move over).
    static void Install()
    {
        ns3::ObjectFactory factory;
        factory.SetTypeId(GetTypeId());
        ns3::Simulator::SetScheduler(factory);
    }

  private:
    static constexpr size_t kArity = 4;

    static bool Before(const Event& a, const Event& b)
    {
        return a.key.m_ts < b.key.m_ts ||
               (a.key.m_ts == b.key.m_ts && a.key.m_uid < b.key.m_uid);
    }

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

/// The same 4-ary min-heap on (time, uid), laid out for the cache and removed from
/// bottom-up. In a two-way web run tens of thousands of events are pending (cancelled
/// timers stay until their time, as in every ns-3 scheduler), and EventHeap::RemoveNext
/// took ~4.8 % of the run's instructions: it compares (time, uid) field by field, its
/// 24-byte entries put a node's four children on two cache lines, and it sifts the last
/// event down from the root with two comparisons per level. Here:
///  * the keys sit in their own array as one 128-bit number, time << 32 | uid (time is a
///    uint64_t step count, uid a uint32_t: the numbers order exactly as the pairs), whose
///    16-byte slots are placed so that the four children of a node fill one 64-byte line;
///    the event and its context sit in a parallel array, read only when an event moves;
///  * RemoveNext moves the smaller child up into the hole down to a leaf (one comparison
///    per child, none against the last event), then sifts the last event up from there
///    (usually zero or one step: it came from the bottom).
/// The events run in the order of their keys, as in EventHeap and MapScheduler: the same
/// order, since no two events share a uid.
class KeyHeap : public ns3::Scheduler
{
  public:
    static ns3::TypeId GetTypeId()
    {
        static ns3::TypeId tid = ns3::TypeId("aqmlab::KeyHeap")
                                     .SetParent<ns3::Scheduler>()
                                     .SetGroupName("aqmlab")
                                     .AddConstructor<KeyHeap>();
        return tid;
    }

    KeyHeap()
    {
        Grow(1024);
    }

    ~KeyHeap() override
    {
        Free();
    }

    KeyHeap(const KeyHeap&) = delete;
    KeyHeap& operator=(const KeyHeap&) = delete;

    void Insert(const Event& ev) override
    {
        if (m_n == m_cap)
        {
            Grow(2 * m_cap);
        }
        SiftUp(m_n++, KeyOf(ev), Val{ev.impl, ev.key.m_context});
    }

    bool IsEmpty() const override
    {
        return m_n == 0;
    }

    Event PeekNext() const override
    {
        NS_ASSERT(m_n > 0);
        return EventAt(0);
    }

    Event RemoveNext() override
    {
        NS_ASSERT(m_n > 0);
        const Event top = EventAt(0);
        --m_n;
        if (m_n > 0)
        {
            const Key lastKey = K(m_n);
            const Val lastVal = m_vals[m_n];
            // the hole goes down the smaller children to a leaf, then the last event
            // (from the bottom) goes up from there to its place
            size_t hole = 0;
            while (true)
            {
                const size_t first = kArity * hole + 1;
                if (first >= m_n)
                {
                    break;
                }
                size_t best = first;
                const size_t end = first + kArity < m_n ? first + kArity : m_n;
                for (size_t c = first + 1; c < end; ++c)
                {
                    best = K(c) < K(best) ? c : best;
                }
                K(hole) = K(best);
                m_vals[hole] = m_vals[best];
                hole = best;
            }
            SiftUp(hole, lastKey, lastVal);
        }
        return top;
    }

    void Remove(const Event& ev) override
    {
        const Key key = KeyOf(ev);
        for (size_t i = 0; i < m_n; ++i)
        {
            if (K(i) == key)
            {
                NS_ASSERT(m_vals[i].impl == ev.impl);
                --m_n;
                if (i == m_n)
                {
                    return;
                }
                const Key lastKey = K(m_n);
                const Val lastVal = m_vals[m_n];
                if (i > 0 && lastKey < K((i - 1) / kArity))
                {
                    SiftUp(i, lastKey, lastVal);
                }
                else
                {
                    SiftDown(i, lastKey, lastVal);
                }
                return;
            }
        }
        NS_FATAL_ERROR("aqmlab::KeyHeap::Remove: no such event");
    }

  private:
    using Key = unsigned __int128;

    struct Val
    {
        ns3::EventImpl* impl;
        uint32_t context;
    };

    static constexpr size_t kArity = 4;
    // Slot of heap index i: i + kPad, so that the children 4i+1..4i+4 of node i occupy
    // slots 4(i+1)..4(i+1)+3, one 64-byte line of the 64-byte-aligned key array.
    static constexpr size_t kPad = kArity - 1;

    static Key KeyOf(const Event& ev)
    {
        return (Key(ev.key.m_ts) << 32) | ev.key.m_uid;
    }

    Key& K(size_t i) const
    {
        return m_keys[i + kPad];
    }

    Event EventAt(size_t i) const
    {
        const Key k = K(i);
        Event ev;
        ev.impl = m_vals[i].impl;
        ev.key.m_ts = uint64_t(k >> 32);
        ev.key.m_uid = uint32_t(k);
        ev.key.m_context = m_vals[i].context;
        return ev;
    }

    void SiftUp(size_t i, Key key, Val val)
    {
        while (i > 0)
        {
            const size_t parent = (i - 1) / kArity;
            if (!(key < K(parent)))
            {
                break;
            }
            K(i) = K(parent);
            m_vals[i] = m_vals[parent];
            i = parent;
        }
        K(i) = key;
        m_vals[i] = val;
    }

    void SiftDown(size_t i, Key key, Val val)
    {
        while (true)
        {
            const size_t first = kArity * i + 1;
            if (first >= m_n)
            {
                break;
            }
            size_t best = first;
            const size_t end = first + kArity < m_n ? first + kArity : m_n;
            for (size_t c = first + 1; c < end; ++c)
            {
                best = K(c) < K(best) ? c : best;
            }
            if (!(K(best) < key))
            {
                break;
            }
            K(i) = K(best);
            m_vals[i] = m_vals[best];
            i = best;
        }
        K(i) = key;
        m_vals[i] = val;
    }

    void Grow(size_t cap)
    {
        Key* keys = static_cast<Key*>(
            ::operator new((cap + kPad) * sizeof(Key), std::align_val_t(64)));
        Val* vals = static_cast<Val*>(::operator new(cap * sizeof(Val)));
        if (m_keys != nullptr)
        {
            std::memcpy(keys + kPad, m_keys + kPad, m_n * sizeof(Key));
            std::memcpy(vals, m_vals, m_n * sizeof(Val));
        }
        Free();
        m_keys = keys;
        m_vals = vals;
        m_cap = cap;
    }

    void Free()
    {
        if (m_keys != nullptr)
        {
            ::operator delete(m_keys, std::align_val_t(64));
            ::operator delete(m_vals);
        }
        m_keys = nullptr;
        m_vals = nullptr;
    }

    Key* m_keys = nullptr;
    Val* m_vals = nullptr;
    size_t m_n = 0;
    size_t m_cap = 0;
};

/// The scheduler Experiment::Run installs: KeyHeap, or EventHeap with AQMLAB_KEY_HEAP=0
/// (events already scheduled move over).
inline void
InstallEventHeap()
{
    ns3::ObjectFactory factory;
    factory.SetTypeId(KeyHeapEnabled() ? KeyHeap::GetTypeId() : EventHeap::GetTypeId());
    ns3::Simulator::SetScheduler(factory);
}

} // namespace aqmlab
