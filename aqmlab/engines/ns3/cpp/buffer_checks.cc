// aqmlab/engines/ns3/cpp/buffer_checks.cc -- the wheel's packet-buffer assertions without their
// log tests.
//
// Compiled into the socket-tables library (aqmlab/engines/ns3/socket_tables.py), loaded before
// the wheel so that the wheel's calls of these members (through its PLT) bind to the
// definitions below.
//
// The wheel is built with assertions and logging, so every Buffer operation asserts
// Buffer::CheckInternalState() (ns-3 3.44's body: its NS_LOG_FUNCTION line, then `return
// true`: the real test is compiled out, "#if 0") and every read or write of a header's
// bytes asserts Buffer::Iterator::Check(i) or CheckNoZero(start, end), and every walk of a
// packet's metadata PacketMetadata::IsPointerOk(p), each a one- or two-line range test
// behind the same log test: ~12 million CheckInternalState, 3.6 million CheckNoZero, 2.5
// million Check and 1.9 million IsPointerOk calls in a 40-s two-way web run, ~3.5 % of its
// instructions, most of it the call of LogComponent::IsEnabled and its set-up. The definitions below compute
// the same answers (CheckInternalState: true; the iterator's tests: ns-3's expressions on
// the same members) without the log test, so every assertion still asserts the same
// thing.
//
// Their logging is kept whenever the process asks for any (NS_LOG set in the environment:
// ns-3's own functions run then). AQMLAB_BUFFER_CHECKS=0 calls ns-3's own functions.
#include "ns3/buffer.h"
#include "ns3/packet-metadata.h"

#include "interpose.h"

#include <cstdint>
#include <cstdlib>

namespace
{

const bool g_on =
    aqmlab::EnvSwitch("AQMLAB_BUFFER_CHECKS", true) && std::getenv("NS_LOG") == nullptr;
uint64_t g_checks = 0; // Buffer::CheckInternalState answered here

} // namespace

extern "C"
{
    /// Buffer::CheckInternalState calls answered here (0); whether the replacements are on (1).
    uint64_t aqmlab_buffer_checks_calls(int which)
    {
        return which == 0 ? g_checks : which == 1 ? uint64_t(g_on) : 0;
    }
}

namespace ns3
{

bool
Buffer::CheckInternalState() const
{
    static const auto next =
        aqmlab::NextMember<bool (Buffer::*)() const>("_ZNK3ns36Buffer18CheckInternalStateEv");
    if (!g_on)
    {
        return (this->*next)();
    }
    ++g_checks;
    return true; // ns-3 3.44's answer: its consistency test is compiled out
}

bool
Buffer::Iterator::CheckNoZero(uint32_t start, uint32_t end) const
{
    static const auto next = aqmlab::NextMember<bool (Buffer::Iterator::*)(uint32_t, uint32_t)
                                                    const>("_ZNK3ns36Buffer8Iterator11CheckNoZeroEjj");
    if (!g_on)
    {
        return (this->*next)(start, end);
    }
    return !(start < m_dataStart || end > m_dataEnd ||
             (end > m_zeroStart && start < m_zeroEnd && m_zeroEnd != m_zeroStart && start != end));
}

bool
Buffer::Iterator::Check(uint32_t i) const
{
    static const auto next = aqmlab::NextMember<bool (Buffer::Iterator::*)(uint32_t) const>(
        "_ZNK3ns36Buffer8Iterator5CheckEj");
    if (!g_on)
    {
        return (this->*next)(i);
    }
    return i >= m_dataStart && !(i >= m_zeroStart && i < m_zeroEnd) && i <= m_dataEnd;
}

bool
PacketMetadata::IsPointerOk(uint16_t pointer) const
{
    static const auto next = aqmlab::NextMember<bool (PacketMetadata::*)(uint16_t) const>(
        "_ZNK3ns314PacketMetadata11IsPointerOkEt");
    if (!g_on)
    {
        return (this->*next)(pointer);
    }
    return pointer == 0xffff || pointer <= m_used;
}

} // namespace ns3
