// aqmlab/engines/ns3/cpp/droplist_queue_disc.h -- FIFO drop-tail that also drops chosen packets.
//
// Deterministic losses for Fall & Floyd (1996)-style recovery tests: the queue numbers
// the TCP DATA packets (payload > 0; pure ACKs and non-TCP packets are not counted) that
// arrive at it, 1, 2, 3..., over all flows, retransmissions included, and drops the
// arrivals whose number is in the drop list ("Drop list"). With `countAll` every arrival
// is numbered instead (SYNs, pure ACKs, FINs: the connection set-up tests). Every other packet is
// handled as by a FIFO drop-tail queue of `limit` packets ("Queue disc limit exceeded";
// overflow drops are counted too). Configured by Experiment::InstallQueue from the
// scenario's DropTail.drop_packets (mapping.py: attributes "Limit", "Drops").
//
// The FIFO is one internal DropTailQueue<QueueDiscItem>: QueueDisc's packet counters and
// Enqueue/Dequeue/PacketsInQueue traces are only maintained through an internal queue
// (QueueDisc::PacketEnqueued is private) and ns-3 asserts on them. The size policy is
// NO_LIMITS; the limit is checked here, before the internal queue (whose own MaxSize is
// the same limit, so it never drops).
#pragma once
#include "tcp_peek.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace aqmlab
{
using namespace ns3;

class DropListQueueDisc : public QueueDisc
{
  public:
    static constexpr const char* DROP_LIST_DROP = "Drop list";
    static constexpr const char* LIMIT_EXCEEDED_DROP = "Queue disc limit exceeded";

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::DropListQueueDisc")
                                .SetParent<QueueDisc>()
                                .SetGroupName("TrafficControl");
        return tid;
    }

    DropListQueueDisc()
        : QueueDisc(QueueDiscSizePolicy::NO_LIMITS)
    {
    }

    /// `limit` packets of buffer (>= 1); `drops`: 1-based arrival numbers of data packets
    /// (or of every packet with `countAll`).
    void Configure(uint32_t limit, const std::vector<uint64_t>& drops, bool countAll = false)
    {
        m_limit = limit;
        m_drops = std::set<uint64_t>(drops.begin(), drops.end());
        m_countAll = countAll;
    }

    /// "14,26,28" -> {14, 26, 28}; "" -> {}. Throws std::invalid_argument on bad input.
    static std::vector<uint64_t> ParseList(const std::string& text)
    {
        std::vector<uint64_t> out;
        size_t pos = 0;
        while (pos < text.size())
        {
            const size_t end = std::min(text.find(',', pos), text.size());
            size_t used = 0;
            const std::string tok = text.substr(pos, end - pos);
            out.push_back(std::stoull(tok, &used));
            if (used != tok.size())
            {
                throw std::invalid_argument("bad drop list entry '" + tok + "'");
            }
            pos = end + 1;
        }
        return out;
    }

    /// Data packets seen so far (the number of the last arrival).
    uint64_t DataArrivals() const
    {
        return m_dataArrivals;
    }

  private:
    static bool IsTcpData(Ptr<const QueueDiscItem> item)
    {
        Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
        if (!ip || ip->GetHeader().GetProtocol() != TcpL4Protocol::PROT_NUMBER)
        {
            return false;
        }
        TcpFields tcp;
        Ptr<const Packet> p = item->GetPacket();
        return PeekTcp(*p, tcp) && p->GetSize() > tcp.headerBytes;
    }

    bool DoEnqueue(Ptr<QueueDiscItem> item) override
    {
        if ((m_countAll || IsTcpData(item)) && m_drops.count(++m_dataArrivals))
        {
            DropBeforeEnqueue(item, DROP_LIST_DROP);
            return false;
        }
        if (GetInternalQueue(0)->GetNPackets() >= m_limit)
        {
            DropBeforeEnqueue(item, LIMIT_EXCEEDED_DROP);
            return false;
        }
        return GetInternalQueue(0)->Enqueue(item);
    }

    Ptr<QueueDiscItem> DoDequeue() override
    {
        return GetInternalQueue(0)->Dequeue();
    }

    Ptr<const QueueDiscItem> DoPeek() override
    {
        return GetInternalQueue(0)->Peek();
    }

    bool CheckConfig() override
    {
        if (GetNInternalQueues() == 0)
        {
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                "MaxSize",
                QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, m_limit))));
        }
        return m_limit >= 1 && GetNQueueDiscClasses() == 0 && GetNPacketFilters() == 0 &&
               GetNInternalQueues() == 1;
    }

    void InitializeParams() override
    {
    }

    uint32_t m_limit{1000};
    std::set<uint64_t> m_drops;
    uint64_t m_dataArrivals{0}; // numbered arrivals (data packets, or all with m_countAll)
    bool m_countAll{false};
};

} // namespace aqmlab
