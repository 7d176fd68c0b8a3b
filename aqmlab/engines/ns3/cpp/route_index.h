// aqmlab/engines/ns3/cpp/route_index.h -- ns-3's static and global route lookups, from hash indexes.
//
// FastListRouting (fast_routing.h) asks the routing protocols once per node and destination.
// That first answer still costs a walk of every route: Ipv4StaticRouting::LookupStatic and
// Ipv4GlobalRouting::LookupGlobal test each entry in turn, ~300,000 instructions at a router
// with 1000 links, for each of its ~2000 destinations (19 % of a 20-s run of 1000 flows on
// 1000 host pairs). These indexes give the same entry from hash tables built once from the
// protocols' own route lists (GetRoute/GetMetric, in their order), by the same rules:
//  * static: of the entries whose network matches, the longest prefix; among those, the
//    first /32 entry in list order, else the last entry of lowest metric (LookupStatic
//    keeps a later entry of equal metric); contiguous masks only, else not indexed;
//  * global (no random ECMP): the first matching entry in GetRoute order, which lists host
//    routes, then network routes, then AS-external routes, as LookupGlobal tries them.
// The route is then made as each protocol makes it. AQMLAB_ROUTE_INDEX=0 asks the protocols
// instead; AQMLAB_ROUTE_INDEX=verify asks both and counts disagreements (tests).
#pragma once
#include "switches.h"

#include "ns3/internet-module.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

namespace aqmlab
{
using namespace ns3;

/// 0: ask the protocols; 1: use the indexes; 2: use both and count disagreements.
inline int& RouteIndexMode()
{
    static int mode = [] {
        const char* v = std::getenv("AQMLAB_ROUTE_INDEX");
        return v && std::strcmp(v, "verify") == 0 ? 2 : EnvSwitch("AQMLAB_ROUTE_INDEX", true);
    }();
    return mode;
}

inline void SetRouteIndexMode(int mode)
{
    RouteIndexMode() = mode;
}

/// Routes made from an index (0) and, in verify mode, disagreements with ns-3 (1).
inline uint64_t& RouteIndexCount(int which)
{
    static uint64_t n[2] = {0, 0};
    return n[which];
}

/// One route entry as the lookups read it.
struct RouteRec
{
    Ipv4Address dest;
    Ipv4Address gateway;
    uint32_t interface = 0;
    uint32_t metric = 0;
};

/// Ipv4StaticRouting::LookupStatic(dst, no output device), indexed.
class StaticRouteIndex
{
  public:
    /// False if the table cannot be indexed (a non-contiguous mask).
    bool Build(const Ptr<Ipv4StaticRouting>& st)
    {
        const uint32_t n = st->GetNRoutes();
        for (uint32_t i = 0; i < n; ++i)
        {
            const Ipv4RoutingTableEntry e = st->GetRoute(i);
            const uint32_t mask = e.GetDestNetworkMask().Get();
            const uint16_t len = e.GetDestNetworkMask().GetPrefixLength();
            if (mask != Prefix(len))
            {
                return false;
            }
            m_recs.push_back(RouteRec{e.GetDest(), e.GetGateway(), e.GetInterface(),
                                      st->GetMetric(i)});
            m_byLen[len][e.GetDestNetwork().Get() & mask].push_back(i);
        }
        for (int len = 32; len >= 0; --len)
        {
            if (!m_byLen[len].empty())
            {
                m_lens.push_back(len);
            }
        }
        return true;
    }

    /// The entry LookupStatic would take for `dst`, or nullptr.
    const RouteRec* Find(uint32_t dst) const
    {
        for (const int len : m_lens)
        {
            auto it = m_byLen[len].find(dst & Prefix(len));
            if (it == m_byLen[len].end())
            {
                continue;
            }
            const std::vector<uint32_t>& idx = it->second; // in list order
            if (len == 32)
            {
                return &m_recs[idx.front()];
            }
            uint32_t best = idx.front();
            for (const uint32_t i : idx)
            {
                if (m_recs[i].metric <= m_recs[best].metric)
                {
                    best = i;
                }
            }
            return &m_recs[best];
        }
        return nullptr;
    }

  private:
    static uint32_t Prefix(int len)
    {
        return len == 0 ? 0 : ~uint32_t(0) << (32 - len);
    }

    std::vector<RouteRec> m_recs;
    std::array<std::unordered_map<uint32_t, std::vector<uint32_t>>, 33> m_byLen;
    std::vector<int> m_lens; // prefix lengths present, longest first
};

/// Ipv4GlobalRouting::LookupGlobal(dst, no output device) without random ECMP, indexed.
class GlobalRouteIndex
{
  public:
    void Build(const Ptr<Ipv4GlobalRouting>& gl)
    {
        const uint32_t n = gl->GetNRoutes();
        for (uint32_t i = 0; i < n; ++i)
        {
            const Ipv4RoutingTableEntry* e = gl->GetRoute(i);
            const uint32_t mask = e->GetDestNetworkMask().Get();
            m_recs.push_back(RouteRec{e->GetDest(), e->GetGateway(), e->GetInterface(), 0});
            m_byMask[mask].try_emplace(e->GetDestNetwork().Get() & mask, i); // first one
        }
    }

    /// The entry LookupGlobal would take for `dst`, or nullptr.
    const RouteRec* Find(uint32_t dst) const
    {
        const RouteRec* best = nullptr;
        uint32_t bestIdx = 0;
        for (const auto& [mask, first] : m_byMask)
        {
            auto it = first.find(dst & mask);
            if (it != first.end() && (!best || it->second < bestIdx))
            {
                best = &m_recs[it->second];
                bestIdx = it->second;
            }
        }
        return best;
    }

  private:
    std::vector<RouteRec> m_recs;
    std::map<uint32_t, std::unordered_map<uint32_t, uint32_t>> m_byMask;
};

} // namespace aqmlab
