// aqmlab/engines/ns3/cpp/fast_routing.h -- O(1) forwarding decisions at routers with many interfaces.
//
// ns-3's default IPv4 routing (an Ipv4ListRouting over Ipv4StaticRouting and
// Ipv4GlobalRouting) decides each packet a router receives by scanning: the list, the static
// and the global protocol each ask Ipv4L3Protocol::IsDestinationAddress, which walks every
// address of every interface, and then LookupStatic and LookupGlobal walk their route lists.
// A dumbbell router with one link per host does all of it over ~1000 interfaces and ~2000
// routes per packet: ~90 % of the instructions of 1000 flows on 1000 host pairs.
//
// FastListRouting is that same list (same protocols, same priorities, created in the same
// order, so the same random streams) with two memos in front of it:
//  * the node's own addresses (every interface's local and broadcast address) in a hash
//    set: a destination outside it, not multicast and not 255.255.255.255, is not for this
//    node in either end-system model; one inside it goes to IsDestinationAddress itself;
//  * per destination, the route the protocols return for a unicast packet without an
//    output interface (what their RouteInput forwards with and RouteOutput(oif = 0)
//    returns), asked once and handed out as a fresh copy each time.
// Both are dropped when the node's interfaces, addresses, protocols or route counts change.
// The first answer per destination comes from hash indexes of the protocols' route lists
// (route_index.h), which pick the entry their lookups would.
// Multicast, a bound output interface, another protocol in the list, or random ECMP take
// ns-3's own path. Nothing changes but the cost (tests/sim/test_fast_routing.py); aqmlab
// never changes routes during a run (a build that did would call Invalidate()).
#pragma once
#include "route_index.h"
#include "switches.h"

#include "ns3/internet-module.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace aqmlab
{
using namespace ns3;

/// FastRoutingEnabled(): whether Experiment installs FastListRouting (AQMLAB_FAST_ROUTING=0
/// turns it off).
AQMLAB_SWITCH(FastRouting, EnvSwitch("AQMLAB_FAST_ROUTING", true))

class FastListRouting : public Ipv4ListRouting
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::FastListRouting")
                                .SetParent<Ipv4ListRouting>()
                                .SetGroupName("Internet")
                                .AddConstructor<FastListRouting>();
        return tid;
    }

    /// Forget both memos (after any change of routes the protocols were not told about).
    void Invalidate()
    {
        m_valid = false;
    }

    /// Route lookups answered from the memo in this process (for tests).
    static uint64_t& Hits()
    {
        static uint64_t n = 0;
        return n;
    }

    void SetIpv4(Ptr<Ipv4> ipv4) override
    {
        Ipv4ListRouting::SetIpv4(ipv4);
        m_ip = ipv4;
        Invalidate();
    }

    void AddRoutingProtocol(Ptr<Ipv4RoutingProtocol> protocol, int16_t priority) override
    {
        Ipv4ListRouting::AddRoutingProtocol(protocol, priority);
        Invalidate();
    }

    void NotifyInterfaceUp(uint32_t i) override
    {
        Ipv4ListRouting::NotifyInterfaceUp(i);
        Invalidate();
    }

    void NotifyInterfaceDown(uint32_t i) override
    {
        Ipv4ListRouting::NotifyInterfaceDown(i);
        Invalidate();
    }

    void NotifyAddAddress(uint32_t i, Ipv4InterfaceAddress a) override
    {
        Ipv4ListRouting::NotifyAddAddress(i, a);
        Invalidate();
    }

    void NotifyRemoveAddress(uint32_t i, Ipv4InterfaceAddress a) override
    {
        Ipv4ListRouting::NotifyRemoveAddress(i, a);
        Invalidate();
    }

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override
    {
        if (oif || header.GetDestination().IsMulticast() || !Ready())
        {
            return Ipv4ListRouting::RouteOutput(p, header, oif, sockerr);
        }
        Ptr<Ipv4Route> route = Lookup(header);
        sockerr = route ? Socket::ERROR_NOTERROR : Socket::ERROR_NOROUTETOHOST;
        return route;
    }

    /// Ipv4ListRouting::RouteInput for a unicast or broadcast destination, whose protocols
    /// (static, global) each forward with the route their RouteOutput gives.
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    const UnicastForwardCallback& ucb,
                    const MulticastForwardCallback& mcb,
                    const LocalDeliverCallback& lcb,
                    const ErrorCallback& ecb) override
    {
        const Ipv4Address dst = header.GetDestination();
        const int32_t iif = m_ip ? m_ip->GetInterfaceForDevice(idev) : -1;
        if (dst.IsMulticast() || iif < 0 || !Ready())
        {
            return Ipv4ListRouting::RouteInput(p, header, idev, ucb, mcb, lcb, ecb);
        }
        if (dst.IsBroadcast() ||
            (m_local.count(dst.Get()) && m_ip->IsDestinationAddress(dst, iif)))
        {
            lcb(p, header, iif);
            return true;
        }
        if (!m_ip->IsForwarding(iif))
        {
            ecb(p, header, Socket::ERROR_NOROUTETOHOST);
            return true;
        }
        Ptr<Ipv4Route> route = Lookup(header);
        if (route)
        {
            ucb(route, p, header);
            return true;
        }
        return false;
    }

  protected:
    void DoDispose() override
    {
        m_routes.clear();
        m_protocols.clear();
        m_local.clear();
        m_ip = nullptr;
        Ipv4ListRouting::DoDispose();
    }

  private:
    /// Whether the memos may answer; rebuilds them if something changed.
    bool Ready()
    {
        if (!FastRoutingEnabled() || !m_ip)
        {
            return false;
        }
        if (!m_valid || m_ip->GetNInterfaces() != m_nInterfaces || RouteCount() != m_nRoutes)
        {
            Rebuild();
        }
        return m_usable;
    }

    uint64_t RouteCount() const
    {
        uint64_t n = 0;
        for (const auto& p : m_protocols)
        {
            n += p.isStatic ? p.st->GetNRoutes() : p.gl->GetNRoutes();
        }
        return n;
    }

    void Rebuild()
    {
        m_valid = true;
        m_usable = true;
        m_routes.clear();
        m_protocols.clear();
        m_local.clear();
        for (uint32_t i = 0; i < GetNRoutingProtocols(); ++i)
        {
            int16_t priority = 0;
            Ptr<Ipv4RoutingProtocol> proto = GetRoutingProtocol(i, priority);
            const std::string type = proto->GetInstanceTypeId().GetName();
            Protocol entry;
            if (type == "ns3::Ipv4StaticRouting")
            {
                entry.isStatic = true;
                entry.st = DynamicCast<Ipv4StaticRouting>(proto);
                if (RouteIndexMode() != 0)
                {
                    entry.stIndex = std::make_unique<StaticRouteIndex>();
                    if (!entry.stIndex->Build(entry.st))
                    {
                        entry.stIndex.reset();
                    }
                }
            }
            else if (type == "ns3::Ipv4GlobalRouting")
            {
                entry.gl = DynamicCast<Ipv4GlobalRouting>(proto);
                BooleanValue ecmp;
                entry.gl->GetAttribute("RandomEcmpRouting", ecmp);
                m_usable = m_usable && !ecmp.Get(); // a random pick per packet
                if (RouteIndexMode() != 0)
                {
                    entry.glIndex = std::make_unique<GlobalRouteIndex>();
                    entry.glIndex->Build(entry.gl);
                }
            }
            m_usable = m_usable && (entry.st || entry.gl);
            m_protocols.push_back(std::move(entry));
        }
        m_nInterfaces = m_ip->GetNInterfaces();
        for (uint32_t i = 0; i < m_nInterfaces; ++i)
        {
            for (uint32_t j = 0; j < m_ip->GetNAddresses(i); ++j)
            {
                const Ipv4InterfaceAddress a = m_ip->GetAddress(i, j);
                m_local.insert(a.GetLocal().Get());
                m_local.insert(a.GetBroadcast().Get());
            }
        }
        m_nRoutes = m_usable ? RouteCount() : 0;
    }

    /// The route the protocols give for `header`'s destination, as a fresh object.
    Ptr<Ipv4Route> Lookup(const Ipv4Header& header)
    {
        const uint32_t dst = header.GetDestination().Get();
        auto it = m_routes.find(dst);
        if (it == m_routes.end())
        {
            Ptr<Ipv4Route> found;
            for (const auto& p : m_protocols)
            {
                found = Ask(p, header);
                if (found)
                {
                    break;
                }
            }
            it = m_routes.emplace(dst, found).first;
        }
        else
        {
            ++Hits();
        }
        const Ptr<Ipv4Route>& r = it->second;
        if (!r)
        {
            return nullptr;
        }
        Ptr<Ipv4Route> copy = Create<Ipv4Route>(); // callers may modify the route they get
        copy->SetDestination(r->GetDestination());
        copy->SetSource(r->GetSource());
        copy->SetGateway(r->GetGateway());
        copy->SetOutputDevice(r->GetOutputDevice());
        return copy;
    }

    struct Protocol
    {
        bool isStatic = false;
        Ptr<Ipv4StaticRouting> st;
        Ptr<Ipv4GlobalRouting> gl;
        std::unique_ptr<StaticRouteIndex> stIndex; // null: ask the protocol
        std::unique_ptr<GlobalRouteIndex> glIndex;
    };

    /// Protocol `p`'s route for `header` without an output device: from its index, from
    /// the protocol itself, or (verify mode) from both, counting any disagreement.
    Ptr<Ipv4Route> Ask(const Protocol& p, const Ipv4Header& header) const
    {
        const bool indexed = p.isStatic ? bool(p.stIndex) : bool(p.glIndex);
        const int mode = RouteIndexMode();
        Ptr<Ipv4Route> mine, theirs;
        if (indexed && mode != 0)
        {
            mine = FromIndex(p, header.GetDestination());
            ++RouteIndexCount(0);
            if (mode == 1)
            {
                return mine;
            }
        }
        Socket::SocketErrno err;
        theirs = p.isStatic ? p.st->RouteOutput(nullptr, header, nullptr, err)
                            : p.gl->RouteOutput(nullptr, header, nullptr, err);
        if (indexed && mode == 2 && !SameRoute(mine, theirs))
        {
            ++RouteIndexCount(1);
        }
        return theirs;
    }

    /// The route LookupStatic / LookupGlobal would make of the entry the index finds.
    Ptr<Ipv4Route> FromIndex(const Protocol& p, Ipv4Address dst) const
    {
        const RouteRec* e = p.isStatic ? p.stIndex->Find(dst.Get()) : p.glIndex->Find(dst.Get());
        if (!e)
        {
            return nullptr;
        }
        Ptr<Ipv4Route> r = Create<Ipv4Route>();
        r->SetDestination(e->dest);
        r->SetSource(p.isStatic ? m_ip->SourceAddressSelection(e->interface, e->dest)
                                : m_ip->GetAddress(e->interface, 0).GetLocal());
        r->SetGateway(e->gateway);
        r->SetOutputDevice(m_ip->GetNetDevice(e->interface));
        return r;
    }

    static bool SameRoute(const Ptr<Ipv4Route>& a, const Ptr<Ipv4Route>& b)
    {
        if (!a || !b)
        {
            return !a && !b;
        }
        return a->GetDestination() == b->GetDestination() && a->GetSource() == b->GetSource() &&
               a->GetGateway() == b->GetGateway() && a->GetOutputDevice() == b->GetOutputDevice();
    }

    Ptr<Ipv4> m_ip;
    bool m_valid = false, m_usable = false;
    uint32_t m_nInterfaces = 0;
    uint64_t m_nRoutes = 0;
    std::vector<Protocol> m_protocols;
    std::unordered_set<uint32_t> m_local;
    std::unordered_map<uint32_t, Ptr<Ipv4Route>> m_routes;
};

/// InternetStackHelper's default IPv4 routing (static at priority 0, global at -10) in a
/// FastListRouting; the protocols are created in the same order as by Ipv4ListRoutingHelper.
class FastRoutingHelper : public Ipv4RoutingHelper
{
  public:
    FastRoutingHelper* Copy() const override
    {
        return new FastRoutingHelper(*this);
    }

    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override
    {
        Ptr<FastListRouting> list = CreateObject<FastListRouting>();
        list->AddRoutingProtocol(Ipv4StaticRoutingHelper().Create(node), 0);
        list->AddRoutingProtocol(Ipv4GlobalRoutingHelper().Create(node), -10);
        return list;
    }
};

} // namespace aqmlab
