// aqmlab/engines/ns3/cpp/fast_demux.h -- O(1) TCP demultiplexing for connected sockets.
//
// ns-3's Ipv4EndPointDemux::Lookup scans every endpoint of the node for every packet, so a
// host with n connections pays O(n) per packet: with 100 flows per host that is a large
// share of the run, with hundreds of web connections per node it dominates it. FastTcpDemux
// takes TCP's place in Ipv4L3Protocol (protocol 6) and looks connected sockets up in a hash
// table keyed by the 4-tuple; everything else (listeners, unknown segments, IPv6, ICMP) goes
// to the node's TcpL4Protocol unchanged. A socket enters the table as soon as its 4-tuple
// is known (AqmTcpSocket: after Connect, after CompleteFork, else at its first segment) and
// leaves it when destroyed; an entry whose socket lost its endpoint is dropped on sight. A
// hit is exactly the endpoint Lookup would return: a full 4-tuple is the most specific
// match there is. A SYN that matches no connection goes to the port's listening socket,
// which is what Lookup returns when every connection of that port is in the table and the
// port has one unbound listener (both hold for aqmlab's sockets; a second listener on a
// port turns this off for it). Overloaded web runs keep tens of thousands of sockets per
// node, and then the SYN scans alone took ~30 % of the run. Results are identical with and
// without (tests/sim/test_fast_demux.py).
#pragma once
#include "switches.h"
#include "tcp_peek.h"

#include "ns3/internet-module.h"

#include <cstdint>
#include <functional>
#include <unordered_map>

namespace aqmlab
{
using namespace ns3;

/// A connection as seen from its node: local address/port, peer address/port.
struct TcpKey
{
    uint32_t local{0}, peer{0};
    uint16_t localPort{0}, peerPort{0};

    bool operator==(const TcpKey& o) const
    {
        return local == o.local && peer == o.peer && localPort == o.localPort &&
               peerPort == o.peerPort;
    }
};

struct TcpKeyHash
{
    size_t operator()(const TcpKey& k) const
    {
        const uint64_t a = (uint64_t(k.local) << 32) | k.peer;
        const uint64_t b = (uint64_t(k.localPort) << 16) | k.peerPort;
        return std::hash<uint64_t>()(a * 0x9E3779B97F4A7C15ull ^ b);
    }
};

/// FastDemuxEnabled(): whether Experiment installs FastTcpDemux (no environment variable;
/// SetFastDemux for benchmarks and tests).
AQMLAB_SWITCH(FastDemux, true)

/// FastListenEnabled(): whether sockets join the table at Connect/CompleteFork and listeners
/// take SYNs directly (otherwise a connection joins at its first segment, delivered by
/// ns-3's scan).
AQMLAB_SWITCH(FastListen, true)

/// Answers "does this socket still own this endpoint?" (AqmTcpSocket, see tcp_socket.h).
using EndpointCheck = bool (*)(const void* socket, const Ipv4EndPoint* ep);

class FastTcpDemux : public IpL4Protocol
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::FastTcpDemux").SetParent<IpL4Protocol>().SetGroupName("Internet");
        return tid;
    }

    /// The demultiplexer in front of each TcpL4Protocol of this process.
    static std::unordered_map<const TcpL4Protocol*, FastTcpDemux*>& Of()
    {
        static std::unordered_map<const TcpL4Protocol*, FastTcpDemux*> of;
        return of;
    }

    static FastTcpDemux* For(const TcpL4Protocol* tcp)
    {
        auto it = Of().find(tcp);
        return it == Of().end() ? nullptr : it->second;
    }

    /// Put a demultiplexer in front of `node`'s TCP.
    static void Install(Ptr<Node> node)
    {
        Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
        Ptr<Ipv4L3Protocol> ip = node->GetObject<Ipv4L3Protocol>();
        if (tcp && ip)
        {
            ip->Insert(Create<FastTcpDemux>(tcp));
        }
    }

    explicit FastTcpDemux(Ptr<TcpL4Protocol> tcp)
        : m_tcp(tcp)
    {
        Of()[PeekPointer(tcp)] = this;
    }

    ~FastTcpDemux() override
    {
        Forget();
    }

    void Register(const TcpKey& key, const void* socket, Ipv4EndPoint* ep, EndpointCheck check)
    {
        m_table[key] = Entry{socket, ep, check};
    }

    void Unregister(const TcpKey& key, const void* socket)
    {
        auto it = m_table.find(key);
        if (it != m_table.end() && it->second.socket == socket)
        {
            m_table.erase(it);
        }
    }

    /// A listening socket: SYNs to `port` that match no connection go straight to it.
    void RegisterListener(uint16_t port, const void* socket, Ipv4EndPoint* ep,
                          EndpointCheck check)
    {
        auto [it, fresh] = m_listeners.try_emplace(port, Entry{socket, ep, check});
        if (!fresh && it->second.socket != socket)
        {
            it->second.socket = nullptr; // two listeners on one port: leave it to ns-3
        }
    }

    void UnregisterListener(uint16_t port, const void* socket)
    {
        auto it = m_listeners.find(port);
        if (it != m_listeners.end() && it->second.socket == socket)
        {
            m_listeners.erase(it);
        }
    }

    size_t Size() const
    {
        return m_table.size();
    }

    int GetProtocolNumber() const override
    {
        return TcpL4Protocol::PROT_NUMBER;
    }

    RxStatus Receive(Ptr<Packet> p, const Ipv4Header& h, Ptr<Ipv4Interface> iface) override
    {
        if (!Node::ChecksumEnabled() && !(m_table.empty() && m_listeners.empty()))
        {
            TcpFields tcp;
            PeekTcp(*p, tcp);
            const TcpKey key{h.GetDestination().Get(), h.GetSource().Get(), tcp.destinationPort,
                             tcp.sourcePort};
            auto it = m_table.find(key);
            if (it != m_table.end())
            {
                const Entry e = it->second;
                if (e.check(e.socket, e.ep) && e.ep->IsRxEnabled())
                {
                    e.ep->ForwardUp(p, h, tcp.sourcePort, iface);
                    return RX_OK;
                }
                m_table.erase(it); // the socket let its endpoint go
            }
            else if ((tcp.flags & kSynMask) == TcpHeader::SYN && ToListener(p, h, tcp, iface))
            {
                return RX_OK;
            }
        }
        return m_tcp->Receive(p, h, iface);
    }

    RxStatus Receive(Ptr<Packet> p, const Ipv6Header& h, Ptr<Ipv6Interface> iface) override
    {
        return m_tcp->Receive(p, h, iface);
    }

    void ReceiveIcmp(Ipv4Address src, uint8_t ttl, uint8_t type, uint8_t code, uint32_t info,
                     Ipv4Address psrc, Ipv4Address pdst, const uint8_t payload[8]) override
    {
        m_tcp->ReceiveIcmp(src, ttl, type, code, info, psrc, pdst, payload);
    }

    void ReceiveIcmp(Ipv6Address src, uint8_t ttl, uint8_t type, uint8_t code, uint32_t info,
                     Ipv6Address psrc, Ipv6Address pdst, const uint8_t payload[8]) override
    {
        m_tcp->ReceiveIcmp(src, ttl, type, code, info, psrc, pdst, payload);
    }

    void SetDownTarget(DownTargetCallback cb) override
    {
        m_tcp->SetDownTarget(cb);
    }

    void SetDownTarget6(DownTargetCallback6 cb) override
    {
        m_tcp->SetDownTarget6(cb);
    }

    DownTargetCallback GetDownTarget() const override
    {
        return m_tcp->GetDownTarget();
    }

    DownTargetCallback6 GetDownTarget6() const override
    {
        return m_tcp->GetDownTarget6();
    }

  protected:
    void DoDispose() override
    {
        Forget();
        m_table.clear();
        m_listeners.clear();
        m_tcp = nullptr;
        IpL4Protocol::DoDispose();
    }

  private:
    struct Entry
    {
        const void* socket;
        Ipv4EndPoint* ep;
        EndpointCheck check;
    };

    static constexpr uint8_t kSynMask =
        TcpHeader::SYN | TcpHeader::ACK | TcpHeader::FIN | TcpHeader::RST;

    /// Deliver a connection-opening SYN to its port's listener, if it has exactly one that
    /// still holds its endpoint, is bound to no device and accepts this address.
    bool ToListener(Ptr<Packet> p, const Ipv4Header& h, const TcpFields& tcp,
                    Ptr<Ipv4Interface> iface)
    {
        auto it = m_listeners.find(tcp.destinationPort);
        if (it == m_listeners.end() || it->second.socket == nullptr)
        {
            return false;
        }
        const Entry e = it->second;
        if (!e.check(e.socket, e.ep))
        {
            m_listeners.erase(it);
            return false;
        }
        const Ipv4Address local = e.ep->GetLocalAddress();
        if (!e.ep->IsRxEnabled() || e.ep->GetBoundNetDevice() ||
            !(local == Ipv4Address::GetAny() || local == h.GetDestination()))
        {
            return false;
        }
        e.ep->ForwardUp(p, h, tcp.sourcePort, iface);
        return true;
    }

    void Forget()
    {
        if (m_tcp)
        {
            auto it = Of().find(PeekPointer(m_tcp));
            if (it != Of().end() && it->second == this)
            {
                Of().erase(it);
            }
        }
    }

    Ptr<TcpL4Protocol> m_tcp;
    std::unordered_map<TcpKey, Entry, TcpKeyHash> m_table;
    std::unordered_map<uint16_t, Entry> m_listeners;
};

} // namespace aqmlab
