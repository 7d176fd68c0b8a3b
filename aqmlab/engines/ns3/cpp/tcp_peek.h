// aqmlab/engines/ns3/cpp/tcp_peek.h -- the TCP header fields aqmlab's own code needs, from its bytes.
//
// aqmlab looks at TCP headers in its demultiplexer, probes, registry and delay channel (ports,
// flags, header length) for every packet. Packet::PeekHeader(TcpHeader) deserializes the
// whole header, and with it creates an ns-3 Object per TCP option (timestamps, SACK blocks,
// the END padding): ~5,000 instructions per peek in a web run with timestamps. PeekTcp reads
// the same fields from the header's first 14 bytes, where TcpHeader::Serialize put them
// (ports, then sequence and acknowledgement numbers, then the 4-bit data offset above the
// flags). AQMLAB_RAW_HEADERS=0 deserializes instead (tests/sim/test_raw_headers.py).
#pragma once
#include "switches.h"

#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <cstdint>

namespace aqmlab
{
using namespace ns3;

/// RawHeadersEnabled(): whether PeekTcp reads raw bytes (AQMLAB_RAW_HEADERS=0: TcpHeader
/// deserialization).
AQMLAB_SWITCH(RawHeaders, EnvSwitch("AQMLAB_RAW_HEADERS", true))

/// What aqmlab reads of a TCP header.
struct TcpFields
{
    uint16_t sourcePort = 0;
    uint16_t destinationPort = 0;
    uint32_t ackNumber = 0;
    uint8_t flags = 0;
    uint32_t headerBytes = 0; ///< TcpHeader::GetSerializedSize()
};

/// The fields of the TCP header at the start of `p`, as PeekHeader(TcpHeader) gives them;
/// false where PeekHeader would return 0.
inline bool PeekTcp(const Packet& p, TcpFields& f)
{
    if (RawHeadersEnabled() && p.GetSize() >= 20)
    {
        uint8_t b[14];
        p.CopyData(b, sizeof(b));
        f.sourcePort = uint16_t(b[0] << 8 | b[1]);
        f.destinationPort = uint16_t(b[2] << 8 | b[3]);
        f.ackNumber = uint32_t(b[8]) << 24 | uint32_t(b[9]) << 16 | uint32_t(b[10]) << 8 | b[11];
        f.flags = b[13];
        f.headerBytes = uint32_t(b[12] >> 4) * 4;
        return true;
    }
    TcpHeader h;
    if (p.PeekHeader(h) == 0)
    {
        return false;
    }
    f.sourcePort = h.GetSourcePort();
    f.destinationPort = h.GetDestinationPort();
    f.ackNumber = h.GetAckNumber().GetValue();
    f.flags = h.GetFlags();
    f.headerBytes = h.GetSerializedSize();
    return true;
}

} // namespace aqmlab
