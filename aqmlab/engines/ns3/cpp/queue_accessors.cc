// aqmlab/engines/ns3/cpp/queue_accessors.cc -- the wheel's queue-accounting accessors without
// their log tests.
//
// Compiled into the socket-tables library (aqmlab/engines/ns3/socket_tables.py), loaded before
// the wheel so that the wheel's calls of these members (through its PLT and, for the
// virtual GetSize, its vtables) bind to the definitions below.
//
// Every packet that passes a queue disc and a device queue asks its size five to ten times
// (the disc's Enqueue and PacketEnqueued/PacketDequeued, the internal queue's DoEnqueue
// and DoDequeue, each twice for packets and bytes) and builds and reads QueueSizes to test
// the limit: ~3.4 million Ipv4QueueDiscItem::GetSize, 4.7 million QueueItem::GetPacket,
// 5.8 million QueueSize::GetUnit calls in a 40-s two-way web run. Each is a few
// instructions of work behind the wheel's NS_LOG_FUNCTION test (the wheel is built with
// logging: a call of LogComponent::IsEnabled through the PLT) and, for GetSize, a
// reference-counted copy of the packet's Ptr and a second logged call for the IPv4
// header's size: ~120 instructions per GetSize, 3 % of a web run. The definitions below
// return the same values from the same members:
//
//  * Ipv4QueueDiscItem::GetSize(): the packet's size, plus the IPv4 header's serialized
//    size (its m_headerSize, what Ipv4Header::GetSerializedSize returns) while the header
//    is not yet added -- ns-3's expression, read without the Ptr copy;
//  * QueueItem::GetPacket(), QueueSize::GetUnit(), QueueSize::GetValue(),
//    QueueSize::QueueSize(QueueSizeUnit, uint32_t), Ipv4Header::GetSerializedSize():
//    ns-3's bodies without the NS_LOG_FUNCTION line.
//
// Their logging is kept whenever the process asks for any (NS_LOG set in the environment:
// ns-3's own functions run then, with their log lines). AQMLAB_QUEUE_ACCESSORS=0 calls
// ns-3's own functions.
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/packet.h"
#include "ns3/queue-item.h"
#include "ns3/queue-size.h"

#include "interpose.h"
#include "private_member.h"

#include <cstdint>
#include <cstdlib>

namespace
{
using namespace ns3;

const bool g_on =
    aqmlab::EnvSwitch("AQMLAB_QUEUE_ACCESSORS", true) && std::getenv("NS_LOG") == nullptr;
uint64_t g_units = 0; // QueueSize::GetUnit answered here

/// Private members read here (private_member.h).
struct ItemPacket
{
    using type = Ptr<Packet> QueueItem::*;
    friend type Get(ItemPacket);
};

template struct Bind<ItemPacket, &QueueItem::m_packet>;

struct HeaderSize
{
    using type = uint16_t Ipv4Header::*;
    friend type Get(HeaderSize);
};

template struct Bind<HeaderSize, &Ipv4Header::m_headerSize>;

} // namespace

extern "C"
{
    /// QueueSize::GetUnit calls answered here (0); whether the replacements are on (1).
    uint64_t aqmlab_queue_accessors_calls(int which)
    {
        return which == 0 ? g_units : which == 1 ? uint64_t(g_on) : 0;
    }
}

namespace ns3
{

uint32_t
Ipv4QueueDiscItem::GetSize() const
{
    static const auto next = aqmlab::NextMember<uint32_t (Ipv4QueueDiscItem::*)() const>(
        "_ZNK3ns317Ipv4QueueDiscItem7GetSizeEv");
    if (!g_on)
    {
        return (this->*next)();
    }
    const Packet* p = PeekPointer(this->*Get(ItemPacket{}));
    NS_ASSERT(p);
    uint32_t ret = p->GetSize();
    if (!m_headerAdded)
    {
        ret += m_header.*Get(HeaderSize{});
    }
    return ret;
}

Ptr<Packet>
QueueItem::GetPacket() const
{
    static const auto next =
        aqmlab::NextMember<Ptr<Packet> (QueueItem::*)() const>("_ZNK3ns39QueueItem9GetPacketEv");
    if (!g_on)
    {
        return (this->*next)();
    }
    return m_packet;
}

uint32_t
Ipv4Header::GetSerializedSize() const
{
    static const auto next = aqmlab::NextMember<uint32_t (Ipv4Header::*)() const>(
        "_ZNK3ns310Ipv4Header17GetSerializedSizeEv");
    if (!g_on)
    {
        return (this->*next)();
    }
    return m_headerSize;
}

QueueSizeUnit
QueueSize::GetUnit() const
{
    static const auto next =
        aqmlab::NextMember<QueueSizeUnit (QueueSize::*)() const>("_ZNK3ns39QueueSize7GetUnitEv");
    if (!g_on)
    {
        return (this->*next)();
    }
    ++g_units;
    return m_unit;
}

uint32_t
QueueSize::GetValue() const
{
    static const auto next =
        aqmlab::NextMember<uint32_t (QueueSize::*)() const>("_ZNK3ns39QueueSize8GetValueEv");
    if (!g_on)
    {
        return (this->*next)();
    }
    return m_value;
}

QueueSize::QueueSize(QueueSizeUnit unit, uint32_t value)
    : m_unit(unit),
      m_value(value)
{
    static const auto next = aqmlab::NextFunction<void (*)(QueueSize*, QueueSizeUnit, uint32_t)>(
        "_ZN3ns39QueueSizeC2ENS_13QueueSizeUnitEj");
    if (!g_on)
    {
        next(this, unit, value); // ns-3's constructor: the same two members, and its log line
    }
}

} // namespace ns3
