// aqmlab/engines/ns3/cpp/address_accessors.cc -- the wheel's address and route accessors
// without their log tests.
//
// Compiled into the socket-tables library (aqmlab/engines/ns3/socket_tables.py), loaded before
// the wheel so that the wheel's calls of these members (through its PLT) bind to the
// definitions below.
//
// Every hop of every packet builds, reads and copies IPv4 addresses (the header's source
// and destination, the route's gateway and device, the demultiplexer's keys): in a 40-s
// two-way web run ~3.4 million Ipv4Address(), 2.5 million Ipv4Address::Get, 2.1 million
// Address(type, buffer, len), 1.4 million Ipv4Header::GetDestination and 1.25 million each
// of Ipv4Route::GetGateway and GetOutputDevice calls. Each is one or two loads or stores
// behind the wheel's NS_LOG_FUNCTION test (built with logging: a call of
// LogComponent::IsEnabled through the PLT and its set-up). The definitions below are
// ns-3 3.44's bodies without that line: same members, same values, same assertion.
//
// Their logging is kept whenever the process asks for any (NS_LOG set in the environment:
// ns-3's own functions run then). AQMLAB_ADDRESS_ACCESSORS=0 calls ns-3's own functions.
#include "ns3/address.h"
#include "ns3/assert.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-route.h"
#include "ns3/net-device.h"

#include "interpose.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace
{

const bool g_on =
    aqmlab::EnvSwitch("AQMLAB_ADDRESS_ACCESSORS", true) && std::getenv("NS_LOG") == nullptr;
uint64_t g_gets = 0; // Ipv4Header::GetDestination answered here

} // namespace

extern "C"
{
    /// Ipv4Header::GetDestination calls answered here (0); whether the replacements are on (1).
    uint64_t aqmlab_address_accessors_calls(int which)
    {
        return which == 0 ? g_gets : which == 1 ? uint64_t(g_on) : 0;
    }
}

namespace ns3
{

Ipv4Address::Ipv4Address()
    : m_address(0x66666666), // ns-3's UNINITIALIZED (ipv4-address.cc)
      m_initialized(false)
{
    static const auto next =
        aqmlab::NextFunction<void (*)(Ipv4Address*)>("_ZN3ns311Ipv4AddressC2Ev");
    if (!g_on)
    {
        next(this); // ns-3's constructor: the same two members, and its log line
    }
}

uint32_t
Ipv4Address::Get() const
{
    static const auto next =
        aqmlab::NextMember<uint32_t (Ipv4Address::*)() const>("_ZNK3ns311Ipv4Address3GetEv");
    if (!g_on)
    {
        return (this->*next)();
    }
    return m_address;
}

Address::Address(uint8_t type, const uint8_t* buffer, uint8_t len)
    : m_type(type),
      m_len(len)
{
    static const auto next = aqmlab::NextFunction<void (*)(Address*, uint8_t, const uint8_t*,
                                                           uint8_t)>("_ZN3ns37AddressC2EhPKhh");
    if (!g_on)
    {
        next(this, type, buffer, len);
        return;
    }
    NS_ASSERT(m_len <= MAX_SIZE);
    std::memcpy(m_data, buffer, m_len);
}

Ipv4Address
Ipv4Header::GetDestination() const
{
    static const auto next = aqmlab::NextMember<Ipv4Address (Ipv4Header::*)() const>(
        "_ZNK3ns310Ipv4Header14GetDestinationEv");
    if (!g_on)
    {
        return (this->*next)();
    }
    ++g_gets;
    return m_destination;
}

Ipv4Address
Ipv4Header::GetSource() const
{
    static const auto next =
        aqmlab::NextMember<Ipv4Address (Ipv4Header::*)() const>("_ZNK3ns310Ipv4Header9GetSourceEv");
    if (!g_on)
    {
        return (this->*next)();
    }
    return m_source;
}

Ipv4Address
Ipv4Route::GetGateway() const
{
    static const auto next =
        aqmlab::NextMember<Ipv4Address (Ipv4Route::*)() const>("_ZNK3ns39Ipv4Route10GetGatewayEv");
    if (!g_on)
    {
        return (this->*next)();
    }
    return m_gateway;
}

Ptr<NetDevice>
Ipv4Route::GetOutputDevice() const
{
    static const auto next = aqmlab::NextMember<Ptr<NetDevice> (Ipv4Route::*)() const>(
        "_ZNK3ns39Ipv4Route15GetOutputDeviceEv");
    if (!g_on)
    {
        return (this->*next)();
    }
    return m_outputDevice;
}

} // namespace ns3
