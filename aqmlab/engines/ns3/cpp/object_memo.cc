// aqmlab/engines/ns3/cpp/object_memo.cc -- memos for ns-3 3.44's object construction and trace lookup.
//
// Compiled by g++ into a shared library that aqmlab.engines.ns3.loader loads before the wheel's
// libraries (as socket_tables.cc), so that the wheel's calls of the members below bind to
// these definitions (ELF interposition). Web runs create several ns-3 Objects per
// connection (socket, buffers, congestion state, RTT estimator...) and one per TCP option
// each time a header is deserialized; two costs of the object system took ~14 % of them:
//
//  * ObjectBase::ConstructSelf walks the object's TypeId and its parents and, for every
//    attribute, copies its TypeId::AttributeInformation (four strings), looks the
//    attribute's full name up in NS_ATTRIBUTE_DEFAULT and sets its initial value: ~1,200
//    instructions for an object without a single attribute, tens of thousands for a socket.
//    Here the chain of TypeIds and, per attribute, the flags, accessor, checker and initial
//    value are kept per TypeId, and the environment is consulted per attribute only when
//    NS_ATTRIBUTE_DEFAULT exists. The same values are set in the same order, the same
//    fatal error stops a misuse. The memo is dropped whenever an initial value changes
//    (TypeId::SetAttributeInitialValue, through which Config::SetDefault and Config::Reset
//    go). Not memoised: attributes or parents added to a TypeId after its first object was
//    built (ns-3 adds them while registering the TypeId, before any object of it exists).
//  * TypeId::LookupTraceSourceByName(name), called by every TraceConnectWithoutContext
//    (eleven per TCP socket), copies each trace source's information (four strings) until
//    the name matches. A supported source found once is remembered per (TypeId, name).
//
//  * ObjectBase::TraceConnectWithoutContext: TcpSocketBase's constructors connect eleven of
//    their TcpSocketState's traced values (CongestionWindow, BytesInFlight, RTT...) to
//    forwarders that fire the socket's own trace sources of the same names (UpdateCwnd:
//    m_cWndTrace(old, new)), each connection a lookup, a Callback stored in a list node,
//    freed with the state (~1 % of a two-way web run, with the forwarding calls per ACK).
//    Nothing in aqmlab connects to those eleven sources of a socket, so while
//    AqmTcpSocket's copy constructor (a listener's Fork, a web client's socket from its
//    prototype) runs TcpSocketBase's, the connections to its TcpSocketState are skipped
//    (and reported made, as ns-3 would). The TcpSocketState's own sources stay connectable;
//    a later lookup of one of the eleven on a socket type, once such a socket exists, stops
//    the run with a message to set AQMLAB_QUIET_TCB=0 (the sources would never fire).
//
// The logging of the replaced functions (NS_LOG=ObjectBase, TypeId) is not reproduced.
// AQMLAB_FAST_CONSTRUCT=0, AQMLAB_TRACE_MEMO=0 and AQMLAB_QUIET_TCB=0 keep ns-3's code (the
// library is not loaded when all three are 0).
#include "ns3/attribute-construction-list.h"
#include "ns3/environment-variable.h"
#include "ns3/fatal-error.h"
#include "ns3/object-base.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include "interpose.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace
{
using namespace ns3;

const bool g_fastConstruct = aqmlab::EnvSwitch("AQMLAB_FAST_CONSTRUCT", true);
const bool g_traceMemo = aqmlab::EnvSwitch("AQMLAB_TRACE_MEMO", true);
const bool g_quietTcbOn = aqmlab::EnvSwitch("AQMLAB_QUIET_TCB", true);
int g_quietTcb = 0;      // raised by AqmTcpSocket's copy constructor around TcpSocketBase's
bool g_anyQuiet = false; // a socket's TcpSocketState was left without its forwarders

struct AttributeRec
{
    uint32_t flags;
    Ptr<const AttributeAccessor> accessor;
    Ptr<const AttributeChecker> checker;
    Ptr<const AttributeValue> initialValue;
};

struct Level
{
    TypeId tid;
    std::vector<AttributeRec> attributes;
};

struct Chain
{
    uint64_t generation = 0; // 0: never built
    std::vector<Level> levels;
};

uint64_t g_generation = 1;  // bumped when any initial value changes
std::vector<Chain> g_chains; // by TypeId uid
std::unordered_map<uint64_t, std::unordered_map<std::string, Ptr<const TraceSourceAccessor>>>
    g_traceSources; // by TypeId uid
// ConstructSelf, its memo rebuilds, trace lookups answered, TcpSocketState connections skipped
uint64_t g_calls[4] = {0, 0, 0, 0};

/// Whether `object` is a TcpSocketState (the type registered by libns3-internet).
bool
IsTcpSocketState(const ObjectBase& object)
{
    static const uint16_t uid = [] {
        TypeId tid;
        return TypeId::LookupByNameFailSafe("ns3::TcpSocketState", &tid) ? tid.GetUid()
                                                                          : uint16_t(0);
    }();
    return uid != 0 && object.GetInstanceTypeId().GetUid() == uid;
}

/// The socket trace sources TcpSocketBase feeds from its TcpSocketState's values.
bool
ForwardedSocketSource(TypeId tid, const std::string& name)
{
    static const char* const names[] = {"PacingRate", "CongestionWindow",
                                        "CongestionWindowInflated", "SlowStartThreshold",
                                        "CongState", "EcnState", "NextTxSequence",
                                        "HighestSequence", "BytesInFlight", "RTT", "LastRTT"};
    bool listed = false;
    for (const char* n : names)
    {
        listed = listed || name == n;
    }
    TypeId socket;
    return listed && TypeId::LookupByNameFailSafe("ns3::TcpSocketBase", &socket) &&
           (tid == socket || tid.IsChildOf(socket));
}

/// The TypeIds ConstructSelf visits for `tid` (it and its parents, up to ObjectBase), each
/// with what ConstructSelf reads of its attributes.
const Chain&
ChainOf(TypeId tid)
{
    const uint16_t uid = tid.GetUid();
    if (uid >= g_chains.size())
    {
        g_chains.resize(uid + 1);
    }
    Chain& chain = g_chains[uid];
    if (chain.generation != g_generation)
    {
        ++g_calls[1];
        chain.levels.clear();
        do
        {
            Level level{tid, {}};
            for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
            {
                const TypeId::AttributeInformation info = tid.GetAttribute(i);
                level.attributes.push_back(
                    AttributeRec{info.flags, info.accessor, info.checker, info.initialValue});
            }
            chain.levels.push_back(std::move(level));
            tid = tid.GetParent();
        } while (tid != ObjectBase::GetTypeId());
        chain.generation = g_generation;
    }
    return chain;
}

} // namespace

extern "C"
{
    /// Calls in this process of ConstructSelf (0), memo rebuilds (1), trace lookups answered
    /// from the memo (2), TcpSocketState connections skipped (3).
    uint64_t aqmlab_object_memo_calls(int which)
    {
        return which >= 0 && which < 4 ? g_calls[which] : 0;
    }

    /// Whether ConstructSelf (0) / the trace-source lookup (1) use the memo, whether
    /// sockets' copies skip their TcpSocketState's forwarders (2).
    int aqmlab_object_memo_enabled(int which)
    {
        return which == 0 ? g_fastConstruct : which == 1 ? g_traceMemo
                                            : which == 2 ? g_quietTcbOn
                                                         : 0;
    }

    /// The flag AqmTcpSocket's copy constructor raises around TcpSocketBase's (tcp_socket.h),
    /// or null with AQMLAB_QUIET_TCB=0.
    int* aqmlab_object_memo_quiet_tcb()
    {
        return g_quietTcbOn ? &g_quietTcb : nullptr;
    }

    /// Forget every memo (between simulations; they would stay valid, this frees them).
    void aqmlab_object_memo_reset()
    {
        g_chains.clear();
        g_traceSources.clear();
    }
}

namespace ns3
{

bool
TypeId::SetAttributeInitialValue(std::size_t i, Ptr<const AttributeValue> initialValue)
{
    using Fn = bool (TypeId::*)(std::size_t, Ptr<const AttributeValue>);
    static const Fn next =
        aqmlab::NextMember<Fn>("_ZN3ns36TypeId24SetAttributeInitialValueEmNS_3PtrIKNS_14AttributeValueEEE");
    ++g_generation;
    return (this->*next)(i, initialValue);
}

void
ObjectBase::ConstructSelf(const AttributeConstructionList& attributes)
{
    using Fn = void (ObjectBase::*)(const AttributeConstructionList&);
    static const Fn next =
        aqmlab::NextMember<Fn>("_ZN3ns310ObjectBase13ConstructSelfERKNS_25AttributeConstructionListE");
    if (!g_fastConstruct)
    {
        (this->*next)(attributes);
        return;
    }
    ++g_calls[0];
    const Chain& chain = ChainOf(GetInstanceTypeId());
    bool envChecked = false, envExists = false;
    for (const Level& level : chain.levels)
    {
        for (std::size_t i = 0; i < level.attributes.size(); ++i)
        {
            const AttributeRec& a = level.attributes[i];
            Ptr<const AttributeValue> value = attributes.Find(a.checker);
            if (!(a.flags & TypeId::ATTR_CONSTRUCT))
            {
                if (!value)
                {
                    continue;
                }
                NS_FATAL_ERROR("Attribute name=" << level.tid.GetAttribute(i).name
                                                 << " tid=" << level.tid.GetName()
                                                 << ": initial value cannot be set using "
                                                    "attributes");
            }
            if (!value)
            {
                if (!envChecked)
                {
                    envChecked = true;
                    envExists = EnvironmentVariable::GetDictionary("NS_ATTRIBUTE_DEFAULT")
                                    ->Get("")
                                    .first;
                }
                if (envExists)
                {
                    auto [found, val] = EnvironmentVariable::Get(
                        "NS_ATTRIBUTE_DEFAULT", level.tid.GetAttributeFullName(i));
                    if (found)
                    {
                        value = Create<StringValue>(val);
                    }
                }
            }
            if (!value)
            {
                value = a.initialValue;
            }
            DoSet(a.accessor, a.checker, *value); // a failure is ignored, as by ns-3
        }
    }
    NotifyConstructionCompleted();
}

bool
ObjectBase::TraceConnectWithoutContext(std::string name, const CallbackBase& cb)
{
    using Fn = bool (ObjectBase::*)(std::string, const CallbackBase&);
    static const Fn next = aqmlab::NextMember<Fn>(
        "_ZN3ns310ObjectBase26TraceConnectWithoutContextENSt7__cxx1112basic_stringIcSt11char_"
        "traitsIcESaIcEEERKNS_12CallbackBaseE");
    if (g_quietTcb != 0 && IsTcpSocketState(*this))
    {
        // TcpSocketBase's constructor, connecting a value of its state to its forwarder
        g_anyQuiet = true;
        ++g_calls[3];
        return true; // as ns-3: the source exists
    }
    return (this->*next)(std::move(name), cb);
}

Ptr<const TraceSourceAccessor>
TypeId::LookupTraceSourceByName(std::string name) const
{
    if (g_anyQuiet && ForwardedSocketSource(*this, name))
    {
        NS_FATAL_ERROR("aqmlab: trace source " << name << " of " << GetName()
                                               << " is not fed (AQMLAB_QUIET_TCB): set "
                                                  "AQMLAB_QUIET_TCB=0 to trace it");
    }
    TraceSourceInformation info;
    if (!g_traceMemo)
    {
        return LookupTraceSourceByName(name, &info);
    }
    auto& byName = g_traceSources[GetUid()];
    auto it = byName.find(name);
    if (it != byName.end())
    {
        ++g_calls[2];
        return it->second;
    }
    Ptr<const TraceSourceAccessor> accessor = LookupTraceSourceByName(name, &info);
    if (accessor && info.supportLevel == SupportLevel::SUPPORTED)
    {
        byName.emplace(name, accessor); // deprecated ones keep warning on every lookup
    }
    return accessor;
}

} // namespace ns3
