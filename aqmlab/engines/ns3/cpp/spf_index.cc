// aqmlab/engines/ns3/cpp/spf_index.cc -- O(1) link records while ns-3's global routing runs its SPF.
//
// Compiled by g++ into a library that aqmlab.engines.ns3.loader loads before the wheel (the
// technique of socket_tables.cc). GlobalRoutingLSA keeps its link records in a std::list
// and GetLinkRecord(n) walks n steps. GlobalRouteManagerImpl::CheckForStubNode, run for
// every node, scans its neighbour's records one index at a time: for each of N hosts on a
// router with N links that is O(N^2) steps, O(N^3) in all. With 1000 senders on Qiu's
// dumbbell it took 54 % of the set-up (8 G instructions, ~2 CPU-s, as much as a 200-s run).
//
// While GlobalRouteManager::InitializeRoutes runs (the SPF calculations; the link-state
// database is built before it and neither changes nor frees a record until it returns),
// GetLinkRecord answers from a vector of each LSA's records, made at the LSA's first use in
// that call. Outside it, the list is walked as ns-3 does. The same records are returned.
// AQMLAB_SPF_INDEX=0 keeps ns-3's walk throughout.
#include "ns3/global-route-manager.h"
#include "ns3/global-router-interface.h"

#include "interpose.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace
{
using namespace ns3;

const bool g_enabled = aqmlab::EnvSwitch("AQMLAB_SPF_INDEX", true);

bool g_inSpf = false; // inside GlobalRouteManager::InitializeRoutes
std::unordered_map<const GlobalRoutingLSA*, std::vector<GlobalRoutingLinkRecord*>> g_index;
uint64_t g_calls[2] = {0, 0}; // records answered from the index; indexes built

} // namespace

extern "C"
{
    /// Records answered from an index (0) and indexes built (1) in this process.
    uint64_t aqmlab_spf_index_calls(int which)
    {
        return which >= 0 && which < 2 ? g_calls[which] : 0;
    }
}

namespace ns3
{

void
GlobalRouteManager::InitializeRoutes()
{
    static const auto next =
        aqmlab::NextFunction<void (*)()>("_ZN3ns318GlobalRouteManager16InitializeRoutesEv");
    g_inSpf = g_enabled;
    g_index.clear();
    next();
    g_inSpf = false;
    g_index.clear();
}

GlobalRoutingLinkRecord*
GlobalRoutingLSA::GetLinkRecord(uint32_t n) const
{
    if (g_inSpf)
    {
        auto [it, fresh] = g_index.try_emplace(this);
        if (fresh)
        {
            ++g_calls[1];
            it->second.assign(m_linkRecords.begin(), m_linkRecords.end());
        }
        if (n < it->second.size())
        {
            ++g_calls[0];
            return it->second[n];
        }
    }
    uint32_t j = 0;
    for (auto i = m_linkRecords.begin(); i != m_linkRecords.end(); i++, j++)
    {
        if (j == n)
        {
            return *i;
        }
    }
    NS_ASSERT_MSG(false, "GlobalRoutingLSA::GetLinkRecord (): invalid index");
    return nullptr;
}

} // namespace ns3
