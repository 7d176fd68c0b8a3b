// aqmlab/engines/ns3/cpp/flow_delay_channel.h -- per-connection propagation delay (ns-2 DelayBox).
//
// A point-to-point channel that adds, to every TCP packet of a flow, that flow's own extra
// one-way delay (in both directions). Packets of one flow keep their order (same delay);
// flows do not block each other (it is a delay line, not a queue). Put it on the access
// link of a client "cloud" node so each connection gets its own base RTT without one host
// per connection (which would slow every router by its interface count).
#pragma once
#include "flow_registry.h"
#include "flow_stats.h"
#include "delay_box.h"
#include "link_header.h"

#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"

namespace aqmlab
{
using namespace ns3;

class FlowDelayChannel : public HeaderlessChannel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::FlowDelayChannel")
                                .SetParent<HeaderlessChannel>()
                                .SetGroupName("PointToPoint");
        return tid;
    }

    void Configure(const FlowRegistry* registry, const std::vector<FlowInfo>* flows)
    {
        m_registry = registry;
        m_flows = flows;
    }

    /// ns-2's DelayBox (delay_box.h): packets from the client, on wire `fromClient`, were
    /// delayed in its node already (DelayBoxEgress); packets to it enter `book`'s box.
    void SetDelayBox(DelayBoxBook* book, uint32_t fromClient)
    {
        m_book = book;
        m_fromClient = fromClient;
    }

  protected:
    Time ExtraDelay(Ptr<const Packet> p, uint32_t wire, Time arrival) override
    {
        if (m_book && wire == m_fromClient)
        {
            return Time(0);
        }
        bool fin = false;
        int64_t f = -1;
        const double delay = ExtraDelaySeconds(p, f, fin);
        if (!m_book)
        {
            return Seconds(delay);
        }
        const double d = m_book->Enter(f, 1, (Simulator::Now() + arrival).GetSeconds(), delay, fin);
        if (d <= 0)
        {
            return d < 0 ? Seconds(-1) : Time(0);
        }
        Ns2ClockSimulatorImpl* sim = Ns2ClockSimulatorImpl::Current();
        double at = 0;
        if (sim && sim->TakeHint(arrival.GetTimeStep(), &at))
        {
            // the link's arrival at the client's node (Ns2LinkClock), then the box's release
            const double due = m_book->Ns2Release(f, 1, at, d);
            return TimeStep(sim->HintRelease(at, due, 1, arrival.GetTimeStep()));
        }
        return Seconds(d);
    }

  private:
    /// The packet's flow delay; `flow` its flow (-1: none), `fin` whether it carries a FIN.
    double ExtraDelaySeconds(Ptr<const Packet> p, int64_t& flow, bool& fin) const
    {
        if (!m_registry)
        {
            return 0;
        }
        uint8_t b[36]; // PPP (2 bytes), IPv4 without options (20), TCP up to its flags (14)
        if (RawHeadersEnabled() && p->GetSize() >= 42 && p->CopyData(b, sizeof(b)) &&
            b[2] == 0x45) // IPv4, 20-byte header: else the headers are parsed below
        {
            if ((b[0] << 8 | b[1]) != 0x0021 || b[11] != 6)
            {
                return 0; // not IPv4, or not TCP
            }
            auto u32 = [&b](int i) {
                return uint32_t(b[i]) << 24 | uint32_t(b[i + 1]) << 16 | uint32_t(b[i + 2]) << 8 |
                       b[i + 3];
            };
            const int64_t f =
                m_registry->Lookup(Ipv4Address(u32(14)), uint16_t(b[22] << 8 | b[23]),
                                   Ipv4Address(u32(18)), uint16_t(b[24] << 8 | b[25]));
            flow = f;
            fin = b[35] & TcpHeader::FIN;
            return f >= 0 ? (*m_flows)[f].delay : 0.0;
        }
        Ptr<Packet> c = p->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        TcpHeader tcp;
        if (c->RemoveHeader(ppp) == 0 || ppp.GetProtocol() != 0x0021 ||
            c->RemoveHeader(ip) == 0 || ip.GetProtocol() != 6 || c->PeekHeader(tcp) == 0)
        {
            return 0;
        }
        const int64_t f = m_registry->Lookup(ip.GetSource(), tcp.GetSourcePort(),
                                             ip.GetDestination(), tcp.GetDestinationPort());
        flow = f;
        fin = tcp.GetFlags() & TcpHeader::FIN;
        return f >= 0 ? (*m_flows)[f].delay : 0.0;
    }

    const FlowRegistry* m_registry{nullptr};
    const std::vector<FlowInfo>* m_flows{nullptr};
    DelayBoxBook* m_book{nullptr}; // ns-2's DelayBox (delay_box = "ns2"), or none
    uint32_t m_fromClient = 0;      // the wire from the client's device
};

} // namespace aqmlab
