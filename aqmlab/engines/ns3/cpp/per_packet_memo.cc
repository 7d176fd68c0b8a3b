// aqmlab/engines/ns3/cpp/per_packet_memo.cc -- two per-packet costs of the wheel, made cheaper.
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
//    are kept per (rate, size).
//  * DataRate::DataRate(std::string), called by every new TCP socket (TcpRateLinux's
//    rate sample and connection state hold DataRate("0bps")), parses the string with
//    string streams (~3,200 instructions, 0.35 % of a two-way web run). The rate a string
//    parses to is kept per string; a string ns-3 cannot parse is not kept (its constructor
//    stops the run, as before).
//
// AQMLAB_FAST_OPTIONS=0 / AQMLAB_TX_TIME_MEMO=0 / AQMLAB_RATE_PARSE_MEMO=0 call ns-3's own
// functions instead.
#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/tcp-option-rfc793.h"
#include "ns3/tcp-option-sack-permitted.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-option-ts.h"
#include "ns3/tcp-option-winscale.h"
#include "ns3/tcp-option.h"

#include "interpose.h"

#include <cstdint>
#include <string>
#include <unordered_map>

namespace
{
using namespace ns3;

const bool g_fastOptions = aqmlab::EnvSwitch("AQMLAB_FAST_OPTIONS", true);
const bool g_txTimeMemo = aqmlab::EnvSwitch("AQMLAB_TX_TIME_MEMO", true);
const bool g_rateParseMemo = aqmlab::EnvSwitch("AQMLAB_RATE_PARSE_MEMO", true);

std::unordered_map<uint64_t, Time> g_txTimes; // (rate in bit/s, bytes) -> time; see below
Time::Unit g_txTimesUnit = Time::S;           // the resolution g_txTimes was made with
std::unordered_map<std::string, uint64_t> g_rates; // string -> bit/s, as DataRate parsed it
uint64_t g_calls[3] = {0, 0, 0}; // options built directly; tx times, rates remembered

} // namespace

extern "C"
{
    /// Options built directly (0), transmission times (1) and parsed rates (2) answered
    /// from the memo.
    uint64_t aqmlab_per_packet_memo_calls(int which)
    {
        return which >= 0 && which < 3 ? g_calls[which] : 0;
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
    if (g_txTimes.empty() || Time::GetResolution() != g_txTimesUnit)
    {
        g_txTimes.clear();
        g_txTimesUnit = Time::GetResolution();
    }
    const uint64_t key = m_bps << 24 | bytes;
    auto it = g_txTimes.find(key);
    if (it == g_txTimes.end())
    {
        it = g_txTimes.emplace(key, (this->*next)(bytes)).first;
    }
    else
    {
        ++g_calls[1];
    }
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

} // namespace ns3
