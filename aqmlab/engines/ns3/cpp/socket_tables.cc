// aqmlab/engines/ns3/cpp/socket_tables.cc -- O(1) socket and endpoint bookkeeping for ns-3 3.44.
//
// Unlike the headers beside it (JIT-compiled by cppyy), this file is compiled by g++ into a
// shared library that aqmlab.engines.ns3.loader loads *before* the wheel's libraries, so that its
// definitions of the member functions below take the place of the wheel's own (ELF symbol
// interposition: libns3.44-internet.so calls them through its PLT). It changes no result,
// only the cost of keeping the books:
//
//  * TcpL4Protocol::AddSocket / RemoveSocket scan the node's whole socket map (an
//    unordered_map keyed by socket id) to find one socket;
//  * Ipv4EndPointDemux::Allocate(dev, [addr,] port) scans every endpoint of the node twice
//    to refuse a duplicate (address, port) pair, Allocate() scans it once per ephemeral
//    port tried, and DeAllocate scans it to find the endpoint it frees.
//
// A web run opens a connection per request, so each is O(open sockets) per connection and
// an overloaded run, whose open sockets pile up, spends ~40 % of its time in them. Here the
// same containers are kept, with the same contents in the same order, plus side indexes
// (socket -> id; endpoint -> list position; local port -> its endpoints), so every decision
// (duplicate or not, which ephemeral port, what is erased) is the one ns-3 makes.
//
// The five-argument Allocate (a server's forked socket) refuses an endpoint whose local
// address and port and peer address and port all equal a live one's; ns-3 scans every
// endpoint of the node for it, once per accepted connection. Here a fourth index (local
// port, peer port, peer address -> endpoints) answers it, kept exact by also replacing
// Ipv4EndPoint::SetPeer, the only way a peer changes (Connect, ProcessSynRcvd). The local
// address and the bound device are compared as ns-3 does, on the endpoints found.
// AQMLAB_FORK_INDEX=0 leaves that Allocate to ns-3 (its endpoint is indexed afterwards).
//
// The indexes only learn of entries through these functions, or by catching up with
// entries ns-3 added on its own (CreateSocket; the five-argument Allocate when ns-3's):
// new sockets carry increasing ids and new endpoints are appended, so both are found from
// where the index stopped; if the sizes still disagree the index is rebuilt from the
// container. aqmlab_socket_tables_reset() drops every index between simulations.
#include "ns3/ipv4-end-point-demux.h"
#include "ns3/ipv4-end-point.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-base.h"

#include "interpose.h"

#include <cstdint>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

namespace
{
using namespace ns3;

struct SocketIndex
{
    std::unordered_map<const TcpSocketBase*, uint64_t> ids; // socket -> key in m_sockets
    uint64_t seen{0};                                       // ids below were looked at
};

const bool g_forkIndex = aqmlab::EnvSwitch("AQMLAB_FORK_INDEX", true);

/// (local port, peer port, peer address): the five-argument Allocate's duplicate test
/// without the local address, which the endpoints found are compared on.
uint64_t
TupleKey(uint16_t localPort, uint16_t peerPort, Ipv4Address peer)
{
    return uint64_t(localPort) << 48 | uint64_t(peerPort) << 32 | peer.Get();
}

uint64_t
TupleKey(const Ipv4EndPoint* ep)
{
    return TupleKey(ep->GetLocalPort(), ep->GetPeerPort(), ep->GetPeerAddress());
}

struct EndpointIndex
{
    std::unordered_map<const Ipv4EndPoint*, Ipv4EndPointDemux::EndPointsI> where;
    std::unordered_map<uint16_t, std::unordered_set<const Ipv4EndPoint*>> byPort; // local port
    std::unordered_map<uint64_t, std::unordered_set<const Ipv4EndPoint*>> byTuple; // TupleKey
    Ipv4EndPointDemux::EndPointsI last;                                // last element indexed
    bool any{false};                                                   // is `last` valid?
};

/// Endpoint -> the index holding it, so that SetPeer can move it in byTuple (entries leave
/// with DeAllocate, the demultiplexer's destructor and aqmlab_socket_tables_reset).
std::unordered_map<const Ipv4EndPoint*, EndpointIndex*>&
Owners()
{
    static std::unordered_map<const Ipv4EndPoint*, EndpointIndex*> m;
    return m;
}

void
Unlink(std::unordered_map<uint64_t, std::unordered_set<const Ipv4EndPoint*>>& byTuple,
       uint64_t key, const Ipv4EndPoint* ep)
{
    auto t = byTuple.find(key);
    if (t != byTuple.end())
    {
        t->second.erase(ep);
        if (t->second.empty())
        {
            byTuple.erase(t);
        }
    }
}

std::unordered_map<const void*, SocketIndex>&
SocketIndexes()
{
    static std::unordered_map<const void*, SocketIndex> m;
    return m;
}

std::unordered_map<const void*, EndpointIndex>&
EndpointIndexes()
{
    static std::unordered_map<const void*, EndpointIndex> m;
    return m;
}

/// Calls of AddSocket, RemoveSocket, Allocate, DeAllocate here, so that a test can tell
/// that the wheel's own calls (not only aqmlab's) bind to these definitions; then the
/// five-argument Allocates answered from the fork index and the SetPeer calls.
uint64_t g_calls[6] = {0, 0, 0, 0, 0, 0};

} // namespace

extern "C"
{
    /// Forget every index (between simulations: the objects they describe are gone).
    void aqmlab_socket_tables_reset()
    {
        SocketIndexes().clear();
        EndpointIndexes().clear();
        Owners().clear();
    }

    /// Calls in this process of AddSocket (0), RemoveSocket (1), Allocate (2), DeAllocate (3),
    /// five-argument Allocates from the fork index (4), SetPeer (5).
    uint64_t aqmlab_socket_tables_calls(int which)
    {
        return which >= 0 && which < 6 ? g_calls[which] : 0;
    }
}

namespace ns3
{

// -- TcpL4Protocol: the socket map ------------------------------------------------------------

/// Bring the index of `tcp` up to date with its socket map; used by the two members below.
static SocketIndex&
SyncSockets(const void* tcp,
            std::unordered_map<uint64_t, Ptr<TcpSocketBase>>& sockets,
            uint64_t next)
{
    SocketIndex& ix = SocketIndexes()[tcp];
    if (ix.seen > next)
    {
        ix = SocketIndex{}; // a new protocol object at a recycled address
    }
    for (; ix.seen < next; ++ix.seen)
    {
        auto it = sockets.find(ix.seen);
        if (it != sockets.end() && it->second)
        {
            ix.ids[PeekPointer(it->second)] = it->first;
        }
    }
    if (ix.ids.size() != sockets.size())
    {
        ix.ids.clear();
        for (const auto& [id, s] : sockets)
        {
            if (s)
            {
                ix.ids[PeekPointer(s)] = id;
            }
        }
    }
    return ix;
}

void
TcpL4Protocol::AddSocket(Ptr<TcpSocketBase> socket)
{
    ++g_calls[0];
    SocketIndex& ix = SyncSockets(this, m_sockets, m_socketIndex);
    auto it = ix.ids.find(PeekPointer(socket));
    if (it != ix.ids.end())
    {
        auto s = m_sockets.find(it->second);
        if (s != m_sockets.end() && s->second == socket)
        {
            return; // already there, as ns-3's scan would have found
        }
        ix.ids.erase(it);
    }
    const uint64_t id = m_socketIndex++;
    m_sockets[id] = socket;
    ix.ids[PeekPointer(socket)] = id;
    ix.seen = m_socketIndex;
}

bool
TcpL4Protocol::RemoveSocket(Ptr<TcpSocketBase> socket)
{
    ++g_calls[1];
    SocketIndex& ix = SyncSockets(this, m_sockets, m_socketIndex);
    auto it = ix.ids.find(PeekPointer(socket));
    if (it == ix.ids.end())
    {
        return false;
    }
    auto s = m_sockets.find(it->second);
    ix.ids.erase(it);
    if (s == m_sockets.end() || s->second != socket)
    {
        return false;
    }
    s->second = nullptr;
    m_sockets.erase(s);
    return true;
}

// -- Ipv4EndPointDemux: the endpoint list ------------------------------------------------------

/// Record the list element at `i` (the last one indexed so far) in `ix`.
static void
Index(EndpointIndex& ix, Ipv4EndPointDemux::EndPointsI i)
{
    ix.where[*i] = i;
    ix.byPort[(*i)->GetLocalPort()].insert(*i);
    if (g_forkIndex)
    {
        ix.byTuple[TupleKey(*i)].insert(*i);
        Owners()[*i] = &ix;
    }
    ix.last = i;
    ix.any = true;
}

/// Bring the index of `demux` up to date with its endpoint list.
static EndpointIndex&
SyncEndpoints(const void* demux, Ipv4EndPointDemux::EndPoints& list)
{
    EndpointIndex& ix = EndpointIndexes()[demux];
    auto from = ix.any ? std::next(ix.last) : list.begin();
    for (auto i = from; i != list.end(); ++i)
    {
        Index(ix, i);
    }
    if (ix.where.size() != list.size())
    {
        for (const auto& [ep, pos] : ix.where)
        {
            Owners().erase(ep);
        }
        ix = EndpointIndex{};
        for (auto i = list.begin(); i != list.end(); ++i)
        {
            Index(ix, i);
        }
    }
    return ix;
}

static Ipv4EndPoint*
Append(EndpointIndex& ix, Ipv4EndPointDemux::EndPoints& list, Ipv4EndPoint* ep)
{
    list.push_back(ep);
    Index(ix, std::prev(list.end()));
    return ep;
}

/// ns-3's AllocateEphemeralPort with the port-in-use test made O(1).
static uint16_t
EphemeralPort(const EndpointIndex& ix, uint16_t& ephemeral, uint16_t first, uint16_t last)
{
    uint16_t port = ephemeral;
    int count = last - first;
    auto used = [&ix](uint16_t p) { return ix.byPort.count(p) > 0; }; // no empty buckets
    do
    {
        if (count-- < 0)
        {
            return 0;
        }
        ++port;
        if (port < first || port > last)
        {
            port = first;
        }
    } while (used(port));
    ephemeral = port;
    return port;
}

Ipv4EndPointDemux::~Ipv4EndPointDemux()
{
    EndpointIndexes().erase(this);
    for (auto* ep : m_endPoints)
    {
        Owners().erase(ep);
        delete ep;
    }
    m_endPoints.clear();
}

Ipv4EndPoint*
Ipv4EndPointDemux::Allocate()
{
    return Allocate(Ipv4Address::GetAny());
}

Ipv4EndPoint*
Ipv4EndPointDemux::Allocate(Ipv4Address address)
{
    ++g_calls[2];
    EndpointIndex& ix = SyncEndpoints(this, m_endPoints);
    const uint16_t port = EphemeralPort(ix, m_ephemeral, m_portFirst, m_portLast);
    if (port == 0)
    {
        return nullptr;
    }
    return Append(ix, m_endPoints, new Ipv4EndPoint(address, port));
}

Ipv4EndPoint*
Ipv4EndPointDemux::Allocate(Ptr<NetDevice> boundNetDevice, uint16_t port)
{
    return Allocate(boundNetDevice, Ipv4Address::GetAny(), port);
}

Ipv4EndPoint*
Ipv4EndPointDemux::Allocate(Ptr<NetDevice> boundNetDevice, Ipv4Address address, uint16_t port)
{
    ++g_calls[2];
    EndpointIndex& ix = SyncEndpoints(this, m_endPoints);
    auto b = ix.byPort.find(port);
    if (b != ix.byPort.end())
    {
        for (const Ipv4EndPoint* ep : b->second) // LookupLocal(dev) || LookupLocal(nullptr)
        {
            Ptr<NetDevice> dev = ep->GetBoundNetDevice();
            if (ep->GetLocalAddress() == address && (dev == boundNetDevice || dev == nullptr))
            {
                return nullptr;
            }
        }
    }
    return Append(ix, m_endPoints, new Ipv4EndPoint(address, port));
}

Ipv4EndPoint*
Ipv4EndPointDemux::Allocate(Ptr<NetDevice> boundNetDevice,
                            Ipv4Address localAddress,
                            uint16_t localPort,
                            Ipv4Address peerAddress,
                            uint16_t peerPort)
{
    using Fn = Ipv4EndPoint* (Ipv4EndPointDemux::*)(Ptr<NetDevice>, Ipv4Address, uint16_t,
                                                    Ipv4Address, uint16_t);
    static const Fn next = aqmlab::NextMember<Fn>(
        "_ZN3ns317Ipv4EndPointDemux8AllocateENS_3PtrINS_9NetDeviceEEENS_11Ipv4AddressEtS4_t");
    if (!g_forkIndex)
    {
        return (this->*next)(boundNetDevice, localAddress, localPort, peerAddress, peerPort);
    }
    ++g_calls[4];
    EndpointIndex& ix = SyncEndpoints(this, m_endPoints);
    auto t = ix.byTuple.find(TupleKey(localPort, peerPort, peerAddress));
    if (t != ix.byTuple.end())
    {
        for (const Ipv4EndPoint* ep : t->second)
        {
            Ptr<NetDevice> dev = ep->GetBoundNetDevice();
            if (ep->GetLocalAddress() == localAddress && (dev == boundNetDevice || !dev))
            {
                return nullptr; // "No way we can allocate this end-point."
            }
        }
    }
    auto* endPoint = new Ipv4EndPoint(localAddress, localPort);
    endPoint->SetPeer(peerAddress, peerPort); // not indexed yet: only sets the peer
    return Append(ix, m_endPoints, endPoint);
}

void
Ipv4EndPoint::SetPeer(Ipv4Address address, uint16_t port)
{
    ++g_calls[5];
    EndpointIndex* ix = nullptr;
    if (g_forkIndex)
    {
        auto o = Owners().find(this);
        if (o != Owners().end())
        {
            ix = o->second;
            Unlink(ix->byTuple, TupleKey(this), this);
        }
    }
    m_peerAddr = address;
    m_peerPort = port;
    if (ix != nullptr)
    {
        ix->byTuple[TupleKey(this)].insert(this);
    }
}

void
Ipv4EndPointDemux::DeAllocate(Ipv4EndPoint* endPoint)
{
    ++g_calls[3];
    EndpointIndex& ix = SyncEndpoints(this, m_endPoints);
    auto w = ix.where.find(endPoint);
    if (w == ix.where.end())
    {
        return;
    }
    const EndPointsI i = w->second;
    const uint16_t port = endPoint->GetLocalPort();
    if (g_forkIndex)
    {
        Unlink(ix.byTuple, TupleKey(endPoint), endPoint);
        Owners().erase(endPoint);
    }
    delete endPoint; // as ns-3: its destroy callback runs while the list still holds it
    if (ix.any && ix.last == i)
    {
        ix.any = i != m_endPoints.begin();
        if (ix.any)
        {
            ix.last = std::prev(i);
        }
    }
    m_endPoints.erase(i);
    ix.where.erase(endPoint);
    auto b = ix.byPort.find(port);
    if (b != ix.byPort.end())
    {
        b->second.erase(endPoint);
        if (b->second.empty())
        {
            ix.byPort.erase(b);
        }
    }
}

} // namespace ns3
