// aqmlab/engines/ns3/cpp/per_packet_memo.cc -- per-packet and per-socket costs of the wheel, made cheaper.
//
// Compiled into the socket-tables library (aqmlab/engines/ns3/socket_tables.py), which is loaded
// before the wheel so that the wheel's calls across its libraries bind to these definitions.
//
//  * TcpOption::CreateOption(kind), called by TcpHeader::Deserialize for every option of
//    every deserialized TCP header (TCP timestamps: twice per segment at least), builds the
//    option through a static ObjectFactory (TypeId constructor callback, dynamic_cast,
//    GetObject): ~1,000 instructions more than CreateObject<T>, which builds the same
//    object (new T, its TypeId set, constructed without attributes). The option TypeIds are
//    registered at the first call in the order ns-3's table registers them.
//  * DataRate::CalculateBytesTxTime(bytes), called by every point-to-point transmission,
//    divides two 128-bit fixed-point numbers (~750 instructions). The Time it returns
//    depends only on the rate and the size, and a link sees few distinct sizes: the results
//    are kept per (rate, size), in a hash map behind a direct-mapped table (a hit there
//    costs a multiply and a compare; the map's lookup divides by its bucket count).
//  * DataRate::DataRate(std::string), called by every new TCP socket (TcpRateLinux's
//    rate sample and connection state hold DataRate("0bps")), parses the string with
//    string streams (~3,200 instructions, 0.35 % of a two-way web run). The rate a string
//    parses to is kept per string; a string ns-3 cannot parse is not kept (its constructor
//    stops the run, as before).
//  * TcpTxBuffer::NextSeg, called by TcpSocketBase::SendPendingData at every ACK (and per
//    segment sent), walks the whole sent list (a window of segments: ~800 for a Qiu T1
//    flow) looking for a segment marked lost (RFC 6675 rule 1) before it offers new data
//    (rule 2): ~10 % of a bulk run's samples. The buffer counts the bytes of its sent
//    segments marked lost (m_lostOut: every place that sets or clears a segment's lost mark
//    updates it, which ConsistencyCheck asserts), so with m_lostOut == 0 no segment can
//    satisfy rule 1 and the walk finds nothing; it can only matter for rule 3, which is
//    asked for in SACK recovery and applies when rule 2 offers nothing. Then the answer is
//    rule 2's, computed here as ns-3 does (same SizeFromSequence and receive-window
//    calls); in every other case ns-3's NextSeg runs. The one member that moves a sent
//    segment out of the sent list without updating the count, ResetLastSegmentSent (the
//    persist timer's window probe), turns the shortcut off for the rest of the process.
//    AQMLAB_NEXT_SEG=verify runs both and counts disagreements (tests).
//  * Node::ChecksumEnabled(), asked by IPv4 and TCP for every header they build or read
//    (several times per packet per hop), copies the "ChecksumEnabled" global value into a
//    BooleanValue through the attribute checker (two dynamic_casts, a log check) each
//    time. Here it reads the global value's current BooleanValue itself (found once by
//    name; its current-value pointer read at every call, so SetValue, Bind and
//    ResetInitialValue are seen at once).
//
// AQMLAB_FAST_OPTIONS=0 / AQMLAB_TX_TIME_MEMO=0 / AQMLAB_RATE_PARSE_MEMO=0 / AQMLAB_NEXT_SEG=0 /
// AQMLAB_CHECKSUM_FLAG=0 call ns-3's own functions instead.
#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/global-value.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/tcp-option-rfc793.h"
#include "ns3/tcp-option-sack-permitted.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-option-ts.h"
#include "ns3/tcp-option-winscale.h"
#include "ns3/tcp-option.h"
#include "ns3/tcp-tx-buffer.h"

#include "interpose.h"
#include "private_member.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

namespace
{
using namespace ns3;

const bool g_fastOptions = aqmlab::EnvSwitch("AQMLAB_FAST_OPTIONS", true);
const bool g_txTimeMemo = aqmlab::EnvSwitch("AQMLAB_TX_TIME_MEMO", true);
const bool g_rateParseMemo = aqmlab::EnvSwitch("AQMLAB_RATE_PARSE_MEMO", true);
const bool g_nextSeg = aqmlab::EnvSwitch("AQMLAB_NEXT_SEG", true);
const bool g_nextSegVerify = [] {
    const char* v = std::getenv("AQMLAB_NEXT_SEG");
    return v != nullptr && std::strcmp(v, "verify") == 0;
}();
bool g_nextSegProbed = false; // a persist probe moved a sent segment back: shortcut off
const bool g_checksumFlag = aqmlab::EnvSwitch("AQMLAB_CHECKSUM_FLAG", true);

/// GlobalValue's private current value (private_member.h).
struct CurrentValue
{
    using type = Ptr<AttributeValue> GlobalValue::*;
    friend type Get(CurrentValue);
};

template struct Bind<CurrentValue, &GlobalValue::m_currentValue>;

std::unordered_map<uint64_t, Time> g_txTimes; // (rate in bit/s, bytes) -> time; see below
// in front of g_txTimes, direct-mapped by a multiplicative hash of the key (a hit costs a
// multiply and a compare, where the map divides by its bucket count); UINT64_MAX: empty
struct TxTimeSlot
{
    uint64_t key = UINT64_MAX;
    Time time;
};
constexpr int kTxSlotBits = 8;
TxTimeSlot g_txSlots[1 << kTxSlotBits];

TxTimeSlot& TxSlot(uint64_t key)
{
    return g_txSlots[(key * 0x9E3779B97F4A7C15ULL) >> (64 - kTxSlotBits)];
}
Time::Unit g_txTimesUnit = Time::S;           // the resolution g_txTimes was made with
std::unordered_map<std::string, uint64_t> g_rates; // string -> bit/s, as DataRate parsed it
// options built directly; tx times, rates remembered; NextSeg walks skipped; verify
// disagreements
uint64_t g_calls[5] = {0, 0, 0, 0, 0};

} // namespace

extern "C"
{
    /// Options built directly (0), transmission times (1) and parsed rates (2) answered
    /// from the memo, NextSeg calls answered without the walk of the sent list (3), and
    /// NextSeg answers that differed from ns-3's under AQMLAB_NEXT_SEG=verify (4).
    uint64_t aqmlab_per_packet_memo_calls(int which)
    {
        return which >= 0 && which < 5 ? g_calls[which] : 0;
    }
}

namespace ns3
{

Ptr<TcpOption>
TcpOption::CreateOption(uint8_t kind)
{
    static const auto next =
        aqmlab::NextFunction<Ptr<TcpOption> (*)(uint8_t)>("_ZN3ns39TcpOption12CreateOptionEh");
    if (!g_fastOptions)
    {
        return next(kind);
    }
    // ns-3's table registers these TypeIds at its first use, in this order
    static const bool registered = [] {
        TcpOptionEnd::GetTypeId();
        TcpOptionMSS::GetTypeId();
        TcpOptionNOP::GetTypeId();
        TcpOptionTS::GetTypeId();
        TcpOptionWinScale::GetTypeId();
        TcpOptionSackPermitted::GetTypeId();
        TcpOptionSack::GetTypeId();
        TcpOptionUnknown::GetTypeId();
        return true;
    }();
    (void)registered;
    ++g_calls[0];
    switch (kind)
    {
    case TcpOption::END:
        return CreateObject<TcpOptionEnd>();
    case TcpOption::MSS:
        return CreateObject<TcpOptionMSS>();
    case TcpOption::NOP:
        return CreateObject<TcpOptionNOP>();
    case TcpOption::TS:
        return CreateObject<TcpOptionTS>();
    case TcpOption::WINSCALE:
        return CreateObject<TcpOptionWinScale>();
    case TcpOption::SACKPERMITTED:
        return CreateObject<TcpOptionSackPermitted>();
    case TcpOption::SACK:
        return CreateObject<TcpOptionSack>();
    default:
        return CreateObject<TcpOptionUnknown>(); // UNKNOWN and every other kind
    }
}

Time
DataRate::CalculateBytesTxTime(uint32_t bytes) const
{
    using Fn = Time (DataRate::*)(uint32_t) const;
    static const Fn next = aqmlab::NextMember<Fn>("_ZNK3ns38DataRate20CalculateBytesTxTimeEj");
    // a rate below 2^40 bit/s (1 Tb/s) and a size below 2^24 bytes make a unique key
    if (!g_txTimeMemo || m_bps >= (uint64_t(1) << 40) || bytes >= (1u << 24))
    {
        return (this->*next)(bytes);
    }
    if (Time::GetResolution() != g_txTimesUnit)
    {
        g_txTimes.clear();
        for (TxTimeSlot& slot : g_txSlots)
        {
            slot.key = UINT64_MAX;
        }
        g_txTimesUnit = Time::GetResolution();
    }
    const uint64_t key = m_bps << 24 | bytes;
    TxTimeSlot& slot = TxSlot(key);
    if (slot.key == key)
    {
        ++g_calls[1];
        return slot.time;
    }
    auto it = g_txTimes.find(key);
    if (it == g_txTimes.end())
    {
        it = g_txTimes.emplace(key, (this->*next)(bytes)).first;
    }
    else
    {
        ++g_calls[1];
    }
    slot.key = key;
    slot.time = it->second;
    return it->second;
}

DataRate::DataRate(std::string rate)
{
    using Fn = void (*)(DataRate*, std::string); // the wheel's constructor (Itanium ABI)
    static const Fn next = aqmlab::NextFunction<Fn>(
        "_ZN3ns38DataRateC1ENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE");
    if (g_rateParseMemo)
    {
        auto it = g_rates.find(rate);
        if (it != g_rates.end())
        {
            m_bps = it->second;
            ++g_calls[2];
            return;
        }
    }
    next(this, rate);
    if (g_rateParseMemo)
    {
        g_rates.emplace(rate, m_bps);
    }
}

bool
TcpTxBuffer::NextSeg(SequenceNumber32* seq, SequenceNumber32* seqHigh, bool isRecovery) const
{
    using Fn = bool (TcpTxBuffer::*)(SequenceNumber32*, SequenceNumber32*, bool) const;
    static const Fn next =
        aqmlab::NextMember<Fn>("_ZNK3ns311TcpTxBuffer7NextSegEPNS_14SequenceNumberIjiEES3_b");
    if (!g_nextSeg || g_nextSegProbed || m_lostOut != 0)
    {
        return (this->*next)(seq, seqHigh, isRecovery); // rule 1 may apply: ns-3's walk
    }
    // No sent segment is marked lost: rule 1 cannot apply; rule 2 as ns-3 computes it.
    bool found = false;
    SequenceNumber32 s;
    SequenceNumber32 sHigh;
    const SequenceNumber32 highData = m_firstByteSeq.Get() + m_sentSize;
    if (SizeFromSequence(highData) > 0)
    {
        if (m_sentSize < m_rWndCallback())
        {
            s = highData;
            sHigh = s + std::min<uint32_t>(m_segmentSize, m_rWndCallback() - m_sentSize);
            found = true;
        }
    }
    else if (isRecovery)
    {
        return (this->*next)(seq, seqHigh, isRecovery); // rule 3 may apply: ns-3's walk
    }
    ++g_calls[3];
    if (g_nextSegVerify)
    {
        SequenceNumber32 v;
        SequenceNumber32 vHigh;
        const bool nsFound = (this->*next)(&v, &vHigh, isRecovery);
        if (nsFound != found || (found && (v != s || vHigh != sHigh)))
        {
            ++g_calls[4];
        }
    }
    if (found)
    {
        *seq = s;
        *seqHigh = sHigh;
    }
    return found;
}

void
TcpTxBuffer::ResetLastSegmentSent()
{
    using Fn = void (TcpTxBuffer::*)();
    static const Fn next =
        aqmlab::NextMember<Fn>("_ZN3ns311TcpTxBuffer20ResetLastSegmentSentEv");
    g_nextSegProbed = true;
    (this->*next)();
}

bool
Node::ChecksumEnabled()
{
    static const auto next = aqmlab::NextFunction<bool (*)()>("_ZN3ns34Node15ChecksumEnabledEv");
    static const GlobalValue* global = [] {
        for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
        {
            if ((*it)->GetName() == "ChecksumEnabled")
            {
                return static_cast<const GlobalValue*>(*it);
            }
        }
        return static_cast<const GlobalValue*>(nullptr);
    }();
    if (!g_checksumFlag || global == nullptr)
    {
        return next();
    }
    // the checker makes every value of this global a BooleanValue; checked once per value
    static const AttributeValue* seen = nullptr;
    static const BooleanValue* value = nullptr;
    const AttributeValue* current = PeekPointer(global->*Get(CurrentValue{}));
    if (current != seen)
    {
        seen = current;
        value = dynamic_cast<const BooleanValue*>(current);
    }
    return value != nullptr ? value->Get() : next();
}

} // namespace ns3
