// aqmlab/engines/ns3/cpp/flow_registry.h -- which flow a packet belongs to, from its addresses.
//
// Every connection registers (initiator IPv4 address, initiator port) -> flow index when it
// opens. Probes, the hold queue and the per-flow delay channel use it to attribute packets
// in either direction. Entries of finished connections are overwritten when the port is
// reused; a lookup costs one hash probe per direction.
#pragma once
#include "tcp_peek.h"

#include "ns3/internet-module.h"

#include <cstdint>
#include <unordered_map>

namespace aqmlab
{
using namespace ns3;

class FlowRegistry
{
  public:
    static uint64_t Key(Ipv4Address addr, uint16_t port)
    {
        return (uint64_t(addr.Get()) << 16) | port;
    }

    void Add(Ipv4Address addr, uint16_t port, uint32_t flow)
    {
        m_map[Key(addr, port)] = flow;
    }

    /// Flow of a packet from src:sport to dst:dport, or -1.
    int64_t Lookup(Ipv4Address src, uint16_t sport, Ipv4Address dst, uint16_t dport) const
    {
        auto it = m_map.find(Key(src, sport));
        if (it != m_map.end())
        {
            return it->second;
        }
        it = m_map.find(Key(dst, dport));
        return it != m_map.end() ? int64_t(it->second) : -1;
    }

    /// Flow of an IPv4 queue-disc item carrying TCP, or -1; `data` = carries payload;
    /// `flags` (if given): the TCP flags.
    int64_t Lookup(Ptr<const QueueDiscItem> item, bool& data, uint8_t* flags = nullptr) const
    {
        Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
        TcpFields tcp;
        if (!ip || ip->GetHeader().GetProtocol() != 6 || !PeekTcp(*item->GetPacket(), tcp))
        {
            return -1;
        }
        data = item->GetPacket()->GetSize() > tcp.headerBytes;
        if (flags)
        {
            *flags = tcp.flags;
        }
        const Ipv4Header& h = ip->GetHeader();
        return Lookup(h.GetSource(), tcp.sourcePort, h.GetDestination(), tcp.destinationPort);
    }

    size_t Size() const
    {
        return m_map.size();
    }

  private:
    std::unordered_map<uint64_t, uint32_t> m_map;
};

} // namespace aqmlab
