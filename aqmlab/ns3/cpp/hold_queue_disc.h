// aqmlab/ns3/cpp/hold_queue_disc.h -- random sender processing time (Qiu, Zhang, Keshav §4).
//
// Reproduces ns-2's Agent/TCP `overhead_`: when a flow would send while idle, a timer
// U(0, overhead) is armed and everything the flow sends meanwhile leaves back-to-back
// when it fires. Installed as the root queue disc of a sender's access device, it holds
// the data segments of each flow that has a processing time; all other packets pass.
// One difference from ns-2: a fast retransmission sent while a hold is armed also waits.
#pragma once
#include "flow_stats.h"

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

    /// Flows are recognised by destination port `portBase + flow index`.
    void Configure(const std::vector<FlowInfo>* flows, uint16_t portBase, int64_t stream)
    {
        m_flows = flows;
        m_portBase = portBase;
        m_rng->SetStream(stream);
    }

  private:
    double HoldTime(Ptr<const QueueDiscItem> item) const
    {
        TcpHeader tcp;
        Ptr<const Packet> p = item->GetPacket();
        if (!m_flows || p->PeekHeader(tcp) == 0 || p->GetSize() <= tcp.GetSerializedSize())
        {
            return 0;
        }
        const uint32_t port = tcp.GetDestinationPort();
        if (port < m_portBase || port - m_portBase >= m_flows->size())
        {
            return 0;
        }
        return (*m_flows)[port - m_portBase].processing;
    }

    bool DoEnqueue(Ptr<QueueDiscItem> item) override
    {
        const double maxHold = HoldTime(item);
        if (maxHold <= 0)
        {
            m_ready.push_back(item);
            return true;
        }
        TcpHeader tcp;
        item->GetPacket()->PeekHeader(tcp);
        const uint16_t key = tcp.GetDestinationPort();
        auto& held = m_held[key];
        if (held.empty())
        {
            const double d = m_rng->GetValue(0, maxHold);
            Simulator::Schedule(Seconds(d), &HoldQueueDisc::Release, this, key);
        }
        held.push_back(item);
        return true;
    }

    void Release(uint16_t key)
    {
        auto& held = m_held[key];
        for (auto& item : held)
        {
            m_ready.push_back(item);
        }
        held.clear();
        Run();
    }

    Ptr<QueueDiscItem> DoDequeue() override
    {
        if (m_ready.empty())
        {
            return nullptr;
        }
        Ptr<QueueDiscItem> item = m_ready.front();
        m_ready.pop_front();
        return item;
    }

    Ptr<const QueueDiscItem> DoPeek() override
    {
        return m_ready.empty() ? nullptr : m_ready.front();
    }

    bool CheckConfig() override
    {
        return GetNQueueDiscClasses() == 0 && GetNPacketFilters() == 0 &&
               GetNInternalQueues() == 0;
    }

    void InitializeParams() override
    {
    }

    void DoDispose() override
    {
        m_ready.clear();
        m_held.clear();
        QueueDisc::DoDispose();
    }

    const std::vector<FlowInfo>* m_flows{nullptr};
    uint16_t m_portBase{0};
    Ptr<UniformRandomVariable> m_rng;
    std::deque<Ptr<QueueDiscItem>> m_ready;
    std::unordered_map<uint16_t, std::vector<Ptr<QueueDiscItem>>> m_held;
};

} // namespace aqmlab
