// aqmlab/engines/ns3/cpp/hold_queue_disc.h -- random sender processing time (Qiu, Zhang, Keshav §4).
//
// Reproduces ns-2's Agent/TCP `overhead_`: when a flow would send while idle, a timer
// U(0, overhead) is armed and everything the flow sends meanwhile leaves back-to-back
// when it fires. Installed as the root queue disc of a sender's access device, it holds
// the data segments of each flow that has a processing time; all other packets pass.
// Differences from ns-2: a fast retransmission sent while a hold is armed also waits, and
// packets sent while a released burst drains join it. Flows share a hold only if they use
// the same sender host and their indices are equal modulo 255.
#pragma once
#include "flow_registry.h"
#include "flow_stats.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"

#include <deque>
#include <unordered_map>

namespace aqmlab
{
using namespace ns3;

class HoldQueueDisc : public QueueDisc
{
  public:
    /// Internal queues: 0 passes packets straight through, 1..N-1 hold flows (by port).
    static constexpr uint32_t N_QUEUES = 256;

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::HoldQueueDisc")
                                .SetParent<QueueDisc>()
                                .SetGroupName("TrafficControl");
        return tid;
    }

    HoldQueueDisc()
        : QueueDisc(QueueDiscSizePolicy::NO_LIMITS)
    {
        m_rng = CreateObject<UniformRandomVariable>();
    }

    /// Flows are recognised through the registry of open connections.
    void Configure(const std::vector<FlowInfo>* flows, const FlowRegistry* registry,
                   int64_t stream)
    {
        m_flows = flows;
        m_registry = registry;
        m_rng->SetStream(stream);
    }

  private:
    enum State : uint8_t
    {
        CLOSED, // empty, next arrival arms a hold
        HELD,   // timer armed, packets accumulate
        OPEN,   // timer fired, draining back-to-back
    };

    /// Maximum hold of this packet's flow (0: pass through) and its internal queue.
    double Classify(Ptr<const QueueDiscItem> item, uint32_t& queue) const
    {
        queue = 0;
        bool data = false;
        const int64_t f = m_flows && m_registry ? m_registry->Lookup(item, data) : -1;
        if (f < 0 || !data)
        {
            return 0;
        }
        queue = 1 + uint32_t(f) % (N_QUEUES - 1);
        return (*m_flows)[f].processing;
    }

    bool DoEnqueue(Ptr<QueueDiscItem> item) override
    {
        uint32_t q = 0;
        const double maxHold = Classify(item, q);
        if (maxHold <= 0)
        {
            q = 0;
        }
        else if (m_state[q] == CLOSED)
        {
            m_state[q] = HELD;
            Simulator::Schedule(Seconds(m_rng->GetValue(0, maxHold)), &HoldQueueDisc::Release,
                                this, q);
        }
        return GetInternalQueue(q)->Enqueue(item);
    }

    void Release(uint32_t q)
    {
        m_state[q] = OPEN;
        m_open.push_back(q);
        Run();
    }

    Ptr<QueueDiscItem> DoDequeue() override
    {
        if (!GetInternalQueue(0)->IsEmpty())
        {
            return GetInternalQueue(0)->Dequeue();
        }
        while (!m_open.empty())
        {
            const uint32_t q = m_open.front();
            Ptr<QueueDiscItem> item = GetInternalQueue(q)->Dequeue();
            if (GetInternalQueue(q)->IsEmpty())
            {
                m_open.pop_front();
                m_state[q] = CLOSED;
            }
            if (item)
            {
                return item;
            }
        }
        return nullptr;
    }

    Ptr<const QueueDiscItem> DoPeek() override
    {
        if (!GetInternalQueue(0)->IsEmpty())
        {
            return GetInternalQueue(0)->Peek();
        }
        return m_open.empty() ? nullptr : GetInternalQueue(m_open.front())->Peek();
    }

    bool CheckConfig() override
    {
        if (GetNInternalQueues() == 0)
        {
            for (uint32_t i = 0; i < N_QUEUES; ++i)
            {
                AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                    "MaxSize", QueueSizeValue(QueueSize("1000000p"))));
            }
        }
        m_state.assign(N_QUEUES, CLOSED);
        return GetNQueueDiscClasses() == 0 && GetNPacketFilters() == 0;
    }

    void InitializeParams() override
    {
    }

    const std::vector<FlowInfo>* m_flows{nullptr};
    const FlowRegistry* m_registry{nullptr};
    Ptr<UniformRandomVariable> m_rng;
    std::vector<State> m_state;
    std::deque<uint32_t> m_open;
};

} // namespace aqmlab
