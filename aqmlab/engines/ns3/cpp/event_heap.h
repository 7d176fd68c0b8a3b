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
#include <vector>

namespace aqmlab
{

AQMLAB_SWITCH(EventHeap, EnvSwitch("AQMLAB_EVENT_HEAP", true))

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

} // namespace aqmlab
