// aqmlab/engines/ns3/cpp/experiment.h -- one simulation: a graph of nodes and point-to-point links,
// queue discs per link direction, TCP flows, probes; run; export columns.
//
// Python (aqmlab/engines/ns3/build.py) describes the network through a handful of calls, then
// calls Run() once and pulls the results as std::vector<double> columns. No Python code
// runs while the simulator runs. The native benchmark (bench/) drives the same class
// from a C++ main().
#pragma once
#include "apps.h"
#include "direct_rx.h"
#include "fast_routing.h"
#include "flow_delay_channel.h"
#include "flow_registry.h"
#include "link_header.h"
#include "web.h"
#include "droplist_queue_disc.h"
#include "event_heap.h"
#include "flow_stats.h"
#include "hold_queue_disc.h"
#include "ns2_ecn_red_queue_disc.h"
#include "ns2_event_clock.h"
#include "ns2_rng.h"
#include "ns2_tx_clock.h"
#include "queue_wake.h"
#include "probes.h"
#include "tcp_socket.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <ctime>
#include <algorithm>
#include <map>
#include <tuple>
#include <memory>
#include <stdexcept>

namespace aqmlab
{
using namespace ns3;

constexpr int AQMLAB_CPP_VERSION = 62;
/// Flow i's sender binds port PORT_BASE + i; receivers listen on LISTEN_PORT_BASE + profile.
constexpr uint16_t PORT_BASE = 10000;
constexpr uint16_t LISTEN_PORT_BASE = 5000;
/// Web servers listen on WEB_PORT_BASE + profile; web clients take ports from 20000 up.
constexpr uint16_t WEB_PORT_BASE = 8000;

/// Reset every piece of ns-3 global state so that runs in one process are independent.
inline void
ResetGlobals(uint32_t seed, uint64_t run)
{
    Simulator::Destroy();
    Config::Reset();
    Names::Clear();
    Ipv4AddressGenerator::Reset();
    RngSeedManager::ResetNextStreamIndex();
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
}

struct QueueSpec
{
    std::string type; // ns-3 TypeId name, "aqmlab::HoldQueueDisc", or "" for none
    std::vector<std::pair<std::string, std::string>> attributes;
    bool probe = false;
    std::string name;
    double redWq = 0;  // >0: re-derive the RED average with this weight
    double redPtc = 0; // link capacity in mean-size packets per second (idle decay)
};

struct LinkRec
{
    uint32_t a, b;
    std::string rate, delay;
    NetDeviceContainer devs;
    QueueSpec q[2]; // q[0]: a -> b (on a's device), q[1]: b -> a
    bool probeLink[2] = {false, false};
    bool flowDelay = false; // a FlowDelayChannel: per-flow extra delay (DelayBox)
    int32_t delayBoxNode = -1; // ns-2's DelayBox in this node (delay_box.h), or -1
};

class Experiment
{
  public:
    Experiment() = default;
    Experiment(const Experiment&) = delete;
    Experiment& operator=(const Experiment&) = delete;

    ~Experiment()
    {
        m_queueProbes.clear();
        m_linkProbes.clear();
    }

    // ---------------------------------------------------------------- description
    uint32_t AddNodes(uint32_t n)
    {
        const uint32_t first = m_nodes.GetN();
        m_nodes.Create(n);
        return first;
    }

    uint32_t AddLink(uint32_t a, uint32_t b, const std::string& rate, const std::string& delay)
    {
        m_links.push_back(LinkRec{a, b, rate, delay, {}, {}, {}});
        return m_links.size() - 1;
    }

    /// Queue disc on link `link`, direction `dir` (0: a->b, 1: b->a). `attrs` is a flat
    /// list name, value, name, value... of attribute strings.
    void SetQueue(uint32_t link, int dir, const std::string& type,
                  const std::vector<std::string>& attrs)
    {
        QueueSpec& q = m_links.at(link).q[dir];
        q.type = type;
        q.attributes = Pairs(attrs);
    }

    void ProbeQueue(uint32_t link, int dir, const std::string& name, double redWq, double redPtc)
    {
        QueueSpec& q = m_links.at(link).q[dir];
        q.probe = true;
        q.name = name;
        q.redWq = redWq;
        q.redPtc = redPtc;
        m_links.at(link).probeLink[dir] = true;
        m_probeOrder.emplace_back(link, dir);
    }

    uint32_t AddTcpProfile(const std::string& congestion, const std::string& recovery, bool reno,
                           double rttAlpha, double rttBeta, const std::vector<std::string>& attrs)
    {
        auto p = std::make_unique<TcpProfile>();
        p->congestion = congestion;
        p->recovery = recovery;
        p->reno = reno;
        p->rttAlpha = rttAlpha;
        p->rttBeta = rttBeta;
        p->attributes = Pairs(attrs);
        m_profiles.push_back(std::move(p));
        return m_profiles.size() - 1;
    }

    /// A TCP flow from node `src` to node `dst`; `bytes` 0 = unlimited; `bootPhase` in
    /// [0, 1): its RTO clock's tick phase, as a fraction of the tick (-1: from its ports).
    uint32_t AddFlow(uint32_t src, uint32_t dst, uint32_t profile, double start, double bytes,
                     double processing, double bootPhase)
    {
        FlowInfo f;
        f.src = src;
        f.dst = dst;
        f.profile = profile;
        f.start = start;
        f.target = bytes;
        f.processing = processing;
        f.bootPhase = bootPhase;
        m_flowInfo.push_back(f);
        return m_flowInfo.size() - 1;
    }

    /// Web request/response connections: `n` entries in each array. `server` sends the
    /// response (`response` bytes) `serverDelay` seconds after reading `request` bytes from
    /// `client`, which opens the connection at `start`; `delay` is the connection's extra
    /// one-way delay.
    void AddWebFlows(size_t n, const double* server, const double* client, const double* profile,
                     const double* start, const double* request, const double* response,
                     const double* delay, const double* serverDelay)
    {
        m_flowInfo.reserve(m_flowInfo.size() + n);
        for (size_t i = 0; i < n; ++i)
        {
            FlowInfo f;
            f.kind = 1;
            f.src = uint32_t(server[i]);
            f.dst = uint32_t(client[i]);
            f.profile = uint32_t(profile[i]);
            f.start = start[i];
            f.request = request[i];
            f.target = response[i];
            f.delay = delay[i];
            f.serverDelay = serverDelay[i];
            m_flowInfo.push_back(f);
        }
    }

    /// Browsing users (Mah): users, their pages and the pages' objects as CSR arrays. Each
    /// object becomes a web flow (kind 2) opened by the user's state machine, so its start
    /// time is set when it opens. Returns the index of the first object's flow.
    uint32_t AddBrowsing(size_t nUsers, const double* userClient, const double* userFirstPage,
                         const double* userNPages, const double* userStart, size_t nPages,
                         const double* pageServer, const double* pageFirstObj,
                         const double* pageNObj, const double* pageThink, size_t nObj,
                         const double* objRequest, const double* objReply,
                         const double* objDelay, uint32_t profile)
    {
        auto sc = std::make_unique<BrowsingScript>();
        sc->flowBase = m_flowInfo.size();
        sc->profile = profile;
        for (size_t u = 0; u < nUsers; ++u)
        {
            sc->userClient.push_back(uint32_t(userClient[u]));
            sc->userFirstPage.push_back(uint32_t(userFirstPage[u]));
            sc->userNPages.push_back(uint32_t(userNPages[u]));
            sc->userStart.push_back(userStart[u]);
        }
        std::vector<uint32_t> serverOf(nObj, 0), clientOf(nObj, 0);
        for (size_t p = 0; p < nPages; ++p)
        {
            sc->pageServer.push_back(uint32_t(pageServer[p]));
            sc->pageFirstObj.push_back(uint32_t(pageFirstObj[p]));
            sc->pageNObj.push_back(uint32_t(pageNObj[p]));
            sc->pageThink.push_back(pageThink[p]);
            for (uint32_t o = 0; o < uint32_t(pageNObj[p]); ++o)
            {
                serverOf.at(uint32_t(pageFirstObj[p]) + o) = uint32_t(pageServer[p]);
            }
        }
        for (size_t u = 0; u < nUsers; ++u)
        {
            for (uint32_t p = sc->userFirstPage[u]; p < sc->userFirstPage[u] + sc->userNPages[u];
                 ++p)
            {
                for (uint32_t o = 0; o < sc->pageNObj[p]; ++o)
                {
                    clientOf.at(sc->pageFirstObj[p] + o) = sc->userClient[u];
                }
            }
        }
        for (size_t o = 0; o < nObj; ++o)
        {
            FlowInfo f;
            f.kind = 2;
            f.src = serverOf[o];
            f.dst = clientOf[o];
            f.profile = profile;
            f.start = -1;
            f.request = objRequest[o];
            f.target = objReply[o];
            f.delay = objDelay[o];
            m_flowInfo.push_back(f);
        }
        m_scripts.push_back(std::move(sc));
        return m_scripts.back()->flowBase;
    }

    /// Give link `link` a FlowDelayChannel (per-connection delay, both directions); with
    /// `client` >= 0 (one end of the link, topology delay_box "ns2") the delay works as
    /// ns-2's DelayBox in that node (delay_box.h).
    void SetFlowDelay(uint32_t link, int32_t client = -1)
    {
        LinkRec& l = m_links.at(link);
        if (client >= 0 && uint32_t(client) != l.a && uint32_t(client) != l.b)
        {
            throw std::invalid_argument("a DelayBox node must be an end of its link");
        }
        l.flowDelay = true;
        l.delayBoxNode = client;
    }

    /// How transmission times go on ns-3's clock (topology tx_time): "ns3" (nearest time
    /// step) or "ns2" (rounded the way ns-2.35's doubles err, ns2_tx_clock.h).
    void SetTxTime(const std::string& mode)
    {
        if (mode != "ns3" && mode != "ns2")
        {
            throw std::invalid_argument("tx_time must be ns3 or ns2, not " + mode);
        }
        m_ns2TxTime = mode == "ns2";
    }

    /// What a frame adds on the wire (topology link_header): "ppp" (ns-3's 2-byte PPP
    /// header) or "none" (ns-2: a frame takes its IP packet's time, link_header.h).
    void SetLinkHeader(const std::string& mode)
    {
        if (mode != "ppp" && mode != "none")
        {
            throw std::invalid_argument("link_header must be ppp or none, not " + mode);
        }
        m_linkTrim = mode == "none" ? uint32_t(PppHeader().GetSerializedSize()) : 0;
    }

    /// When the queue disc refills a device queue (topology queue_wake): "ns3" (in an
    /// event at the same instant) or "ns2" (as the transmission starts, queue_wake.h).
    void SetQueueWake(const std::string& mode)
    {
        if (mode != "ns3" && mode != "ns2")
        {
            throw std::invalid_argument("queue_wake must be ns3 or ns2, not " + mode);
        }
        m_ns2QueueWake = mode == "ns2";
    }

    /// Where RED's early-drop test and the hold queue's processing times draw (run
    /// random_stream): "ns3" (each disc its own ns-3 stream) or "ns2" (one stream per run,
    /// ns-2.35's default generator seeded as aqmlab's ns-2 engine seeds it, ns2_rng.h).
    void SetRandomStream(const std::string& mode, uint32_t seed, uint64_t run)
    {
        if (mode != "ns3" && mode != "ns2")
        {
            throw std::invalid_argument("random_stream must be ns3 or ns2, not " + mode);
        }
        m_useNs2Rng = mode == "ns2";
        SeedNs2Run(m_ns2Rng, seed, run);
    }

    /// Stop once `n` web responses that started after the warm-up have completed (0: never).
    void SetStopAfter(uint64_t n)
    {
        m_stopAfter = n;
    }

    void SetRunControl(double duration, double warmup, double sampleInterval, bool stopWhenDone)
    {
        m_duration = duration;
        m_warmup = warmup;
        m_sample = sampleInterval;
        m_stopWhenDone = stopWhenDone;
    }

    // ---------------------------------------------------------------- build and run
    void Build()
    {
        m_stats.assign(m_flowInfo.size(), FlowStats());
        size_t nBulk = 0;
        for (const auto& f : m_flowInfo)
        {
            nBulk += f.kind == 0;
        }
        if (nBulk + PORT_BASE > 20000)
        {
            throw std::runtime_error("too many bulk flows for one run (max 10000)");
        }
        InternetStackHelper stack;
        if (FastRoutingEnabled())
        {
            stack.SetRoutingHelper(FastRoutingHelper());
        }
        stack.Install(m_nodes);
        if (FastDemuxEnabled())
        {
            for (uint32_t i = 0; i < m_nodes.GetN(); ++i)
            {
                FastTcpDemux::Install(m_nodes.Get(i));
            }
        }
        for (uint32_t i = 0; i < m_nodes.GetN(); ++i)
        {
            Ns2SackWire::Install(m_nodes.Get(i)); // idle unless a socket arms it
        }

        PointToPointHelper p2p;
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
        Ipv4AddressHelper addr;
        for (size_t i = 0; i < m_links.size(); ++i)
        {
            LinkRec& l = m_links[i];
            p2p.SetDeviceAttribute("DataRate", StringValue(l.rate));
            p2p.SetChannelAttribute("Delay", StringValue(l.delay));
            l.devs = l.flowDelay || m_linkTrim > 0 ? InstallOwnChannel(l)
                                                   : p2p.Install(m_nodes.Get(l.a), m_nodes.Get(l.b));
            for (int d = 0; d < 2; ++d)
            {
                InstallQueue(l, d);
            }
            const bool ns2Clock = Ns2ClockSimulatorImpl::Current() != nullptr;
            if (ns2Clock)
            {
                Ns2LinkClock::Install(l.devs, m_linkTrim); // transmission times too
            }
            if (m_ns2TxTime && !ns2Clock)
            {
                Ns2TxClock::Install(l.devs, m_linkTrim); // it shortens frames itself
            }
            else if (m_linkTrim > 0)
            {
                HeaderlessTx::Install(l.devs, m_linkTrim);
            }
            if (m_ns2QueueWake)
            {
                QueueWake::Install(l.devs);
            }
            std::ostringstream net;
            net << "10." << (i / 256) % 256 << "." << i % 256 << ".0";
            addr.SetBase(net.str().c_str(), "255.255.255.0");
            addr.Assign(l.devs); // installs FqCoDel on devices that have no root queue disc
            for (int d = 0; d < 2; ++d)
            {
                if (l.q[d].type.empty())
                {
                    Ptr<NetDevice> dev = l.devs.Get(d);
                    dev->GetNode()->GetObject<TrafficControlLayer>()->DeleteRootQueueDiscOnDevice(
                        dev);
                }
            }
        }
        if (DirectRxEnabled())
        {
            for (const auto& l : m_links)
            {
                DirectRx::Install(l.devs.Get(0));
                DirectRx::Install(l.devs.Get(1));
            }
        }
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();

        for (const auto& [li, d] : m_probeOrder)
        {
            LinkRec& l = m_links[li];
            Ptr<NetDevice> dev = l.devs.Get(d);
            Ptr<QueueDisc> qd =
                dev->GetNode()->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(dev);
            Ptr<Queue<Packet>> devq = DynamicCast<PointToPointNetDevice>(dev)->GetQueue();
            if (!qd)
            {
                throw std::runtime_error("probed queue " + l.q[d].name + " has no queue disc");
            }
            m_queueProbes.push_back(std::make_unique<QueueProbe>(
                qd, devq, &m_stats, &m_registry, l.q[d].redWq, l.q[d].redPtc));
            m_queueProbes.back()->frameHeaderBytes = FRAME_HEADER_BYTES - m_linkTrim;
            m_linkProbes.push_back(std::make_unique<LinkProbe>(dev));
            m_linkProbes.back()->trim = m_linkTrim;
            m_probeNames.push_back(l.q[d].name);
            m_probeRates.push_back(DataRate(l.rate).GetBitRate());
        }

        m_finite = 0;
        std::map<std::pair<uint32_t, uint32_t>, uint16_t> listeners; // (node, profile) -> port
        std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint32_t>> clients;
        uint16_t bulkPort = PORT_BASE;
        for (size_t i = 0; i < m_flowInfo.size(); ++i)
        {
            FlowInfo& f = m_flowInfo[i];
            const TcpProfile* prof = m_profiles.at(f.profile).get();
            const auto lkey = std::make_pair(f.kind ? f.src : f.dst, f.profile);
            if (f.kind != 0)
            {
                if (f.kind == 1)
                {
                    clients[{f.dst, f.src, f.profile}].push_back(i);
                }
                if (!listeners.count(lkey))
                {
                    const uint16_t lport = WEB_PORT_BASE + f.profile;
                    Ptr<WebServer> srv = CreateObject<WebServer>();
                    srv->Setup(prof, lport, &m_registry, &m_flowInfo, &m_stats,
                               [this](Ipv4Address a) -> std::shared_ptr<PortPool> {
                                   auto it = m_portsByAddr.find(a.Get());
                                   return it == m_portsByAddr.end() ? nullptr : it->second;
                               });
                    m_nodes.Get(f.src)->AddApplication(srv);
                    srv->SetStartTime(Seconds(0));
                    listeners[lkey] = lport;
                }
                continue;
            }
            if (!listeners.count(lkey))
            {
                const uint16_t lport = LISTEN_PORT_BASE + f.profile;
                Ptr<Receiver> rx = CreateObject<Receiver>();
                rx->Setup(prof, lport, &m_registry, &m_flowInfo, &m_stats,
                          [this](uint32_t) { OnFlowComplete(); });
                m_nodes.Get(f.dst)->AddApplication(rx);
                rx->SetStartTime(Seconds(0));
                listeners[lkey] = lport;
            }
            Ptr<Sender> tx = CreateObject<Sender>();
            const uint16_t port = bulkPort++;
            m_registry.Add(Addr(f.src), port, i);
            tx->Setup(prof, InetSocketAddress(Addr(f.dst), listeners[lkey]).ConvertTo(), port,
                      f.target, &m_stats[i], f.bootPhase);
            if (f.processing > 0)
            {
                tx->ListenToHold(m_holdListeners, i); // its packets are held (HoldQueueDisc)
            }
            m_nodes.Get(f.src)->AddApplication(tx);
            tx->StartAt(f.start);
            if (f.target > 0)
            {
                ++m_finite;
            }
        }
        Ns2StartDoubles(clients);
        for (auto& [key, order] : clients)
        {
            const auto [client, server, profile] = key;
            std::stable_sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
                return m_flowInfo[a].start < m_flowInfo[b].start;
            });
            Ptr<WebClient> app = CreateObject<WebClient>();
            app->Setup(m_profiles.at(profile).get(),
                       InetSocketAddress(Addr(server), listeners[{server, profile}]).ConvertTo(),
                       std::move(order), Ports(client), &m_registry, &m_flowInfo, &m_stats,
                       [this](uint32_t f) { OnWebComplete(f); });
            if (m_useNs2Rng)
            {
                app->SetBootStream(&m_ns2Rng); // replayed PackMime: ns-2's tick phases
            }
            m_nodes.Get(client)->AddApplication(app);
            app->SetStartTime(Seconds(0));
            m_webFlows += 1;
        }
        for (auto& sc : m_scripts)
        {
            const BrowsingScript* script = sc.get();
            auto browser = std::make_shared<Browser*>(nullptr);
            auto getClient = [this, script, browser, &listeners](uint32_t client,
                                                                  uint32_t server) {
                auto key = std::make_tuple(client, server, script->profile);
                auto it = m_browseClients.find(key);
                if (it != m_browseClients.end())
                {
                    return it->second;
                }
                Ptr<WebClient> app = CreateObject<WebClient>();
                app->Setup(m_profiles.at(script->profile).get(),
                           InetSocketAddress(Addr(server),
                                             listeners.at({server, script->profile}))
                               .ConvertTo(),
                           {}, Ports(client), &m_registry, &m_flowInfo, &m_stats,
                           [this, browser](uint32_t f) {
                               OnWebComplete(f);
                               (*browser)->ObjectDone(f);
                           });
                app->SetFailCallback([browser](uint32_t f) { (*browser)->ObjectDone(f); });
                m_nodes.Get(client)->AddApplication(app);
                app->SetStartTime(Seconds(0));
                m_browseClients[key] = app;
                return app;
            };
            // every (client, server) pair gets its WebClient now: `listeners` dies with Build
            for (size_t u = 0; u < script->userClient.size(); ++u)
            {
                for (uint32_t p = script->userFirstPage[u];
                     p < script->userFirstPage[u] + script->userNPages[u]; ++p)
                {
                    getClient(script->userClient[u], script->pageServer[p]);
                }
            }
            auto& clientsMap = m_browseClients;
            const uint32_t prof = script->profile;
            m_browsers.push_back(std::make_unique<Browser>(
                script, [&clientsMap, prof](uint32_t c, uint32_t s) {
                    return clientsMap.at(std::make_tuple(c, s, prof));
                }));
            *browser = m_browsers.back().get();
        }
        m_allFinite = m_finite == m_flowInfo.size();
        for (auto& l : m_links)
        {
            if (l.flowDelay)
            {
                Ptr<FlowDelayChannel> ch =
                    DynamicCast<FlowDelayChannel>(l.devs.Get(0)->GetChannel());
                ch->Configure(&m_registry, &m_flowInfo);
                if (l.delayBoxNode >= 0)
                {
                    const uint32_t fromClient = uint32_t(l.delayBoxNode) == l.a ? 0 : 1;
                    ch->SetDelayBox(&m_delayBox, fromClient);
                    m_delayBox.SetRng(m_useNs2Rng ? &m_ns2Rng : nullptr);
                    DelayBoxEgress::Install(l.devs.Get(fromClient), &m_registry, &m_flowInfo,
                                            &m_delayBox);
                }
            }
        }
    }

    void Run()
    {
        if (EventHeapEnabled())
        {
            EventHeap::Install(); // same events in the same order, cheaper (event_heap.h)
        }
        if (m_warmup > 0)
        {
            Simulator::Schedule(Seconds(m_warmup), &Experiment::Snapshot, this);
        }
        if (m_sample > 0)
        {
            Simulator::Schedule(Seconds(0), &Experiment::Sample, this);
        }
        Simulator::Stop(Seconds(m_duration));
        const std::clock_t c0 = std::clock();
        const uint64_t e0 = Simulator::GetEventCount();
        Simulator::Run();
        m_cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        m_events = double(Simulator::GetEventCount() - e0);
        m_end = Simulator::Now().GetSeconds();
        for (auto& p : m_queueProbes)
        {
            p->Finish();
        }
    }

    // ---------------------------------------------------------------- results
    double CpuSeconds() const { return m_cpu; }
    double Events() const { return m_events; }
    double EndTime() const { return m_end; }
    double WarmupTime() const { return m_warmupDone ? m_warmup : 0; }

    /// TCP sockets still holding an endpoint now, by state (ns3::TcpSocket::TcpStates_t).
    std::vector<double> SocketCensus() const
    {
        const auto n = AqmTcpSocket::Census();
        return std::vector<double>(n.begin(), n.end());
    }
    uint32_t NFlows() const { return m_flowInfo.size(); }
    uint32_t NProbes() const { return m_queueProbes.size(); }
    std::vector<std::string> ProbeNames() const { return m_probeNames; }
    std::vector<std::string> FlowColumns() const { return FlowStats::Names(); }
    std::vector<std::string> QueueColumns() const { return QueueCounters::Names(); }

    /// Per-flow counter `i` (FlowColumns order), total or at the end of the warm-up.
    std::vector<double> FlowColumn(size_t i, bool atWarmup) const
    {
        std::vector<double> v;
        const auto& src = atWarmup ? m_statsWarm : m_stats;
        for (size_t k = 0; k < m_flowInfo.size(); ++k)
        {
            v.push_back(k < src.size() ? src[k].Get(i) : 0.0);
        }
        return v;
    }

    /// Flow description: "src", "dst", "profile", "start", "target", "processing",
    /// "completion", "first_rx".
    std::vector<double> FlowInfoColumn(const std::string& name) const
    {
        std::vector<double> v;
        for (const auto& f : m_flowInfo)
        {
            v.push_back(name == "src"          ? f.src
                        : name == "dst"        ? f.dst
                        : name == "profile"    ? f.profile
                        : name == "start"      ? f.start
                        : name == "target"     ? f.target
                        : name == "processing" ? f.processing
                        : name == "request"    ? f.request
                        : name == "delay"      ? f.delay
                        : name == "kind"       ? f.kind
                        : name == "completion" ? f.completion
                                               : f.firstRx);
        }
        return v;
    }

    std::vector<double> QueueColumn(size_t i, bool atWarmup) const
    {
        std::vector<double> v;
        for (const auto& p : m_queueProbes)
        {
            v.push_back(atWarmup ? (m_warmupDone ? p->warm.Get(i) : 0.0) : p->c.Get(i));
        }
        return v;
    }

    std::vector<double> LinkBytes(bool atWarmup) const
    {
        std::vector<double> v;
        for (const auto& p : m_linkProbes)
        {
            v.push_back(atWarmup ? p->warmBytes : p->bytes);
        }
        return v;
    }

    std::vector<double> LinkRates() const
    {
        return m_probeRates;
    }

    std::vector<double> SampleTimes() const
    {
        return m_sampleTimes;
    }

    /// Queue-length series of probe `i`: what = 0 packets, 1 bytes, 2 RED average.
    std::vector<double> Series(size_t i, int what) const
    {
        const auto& p = *m_queueProbes.at(i);
        return what == 0 ? p.seriesPkts : what == 1 ? p.seriesBytes : p.seriesRedAvg;
    }

  private:
    static std::vector<std::pair<std::string, std::string>> Pairs(const std::vector<std::string>& a)
    {
        if (a.size() % 2)
        {
            throw std::invalid_argument("attribute list must hold name/value pairs");
        }
        std::vector<std::pair<std::string, std::string>> out;
        for (size_t i = 0; i + 1 < a.size(); i += 2)
        {
            out.emplace_back(a[i], a[i + 1]);
        }
        return out;
    }

    Ipv4Address Addr(uint32_t node) const
    {
        return m_nodes.Get(node)->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
    }

    /// What PointToPointHelper::Install does, with aqmlab's channel: a FlowDelayChannel
    /// (DelayBox) or a HeaderlessChannel, each shortening frames by m_linkTrim bytes.
    NetDeviceContainer InstallOwnChannel(const LinkRec& l)
    {
        Ptr<HeaderlessChannel> ch = l.flowDelay
                                        ? Ptr<HeaderlessChannel>(CreateObject<FlowDelayChannel>())
                                        : CreateObject<HeaderlessChannel>();
        ch->SetAttribute("Delay", StringValue(l.delay));
        ch->SetTrim(DataRate(l.rate), m_linkTrim);
        NetDeviceContainer devs;
        for (uint32_t n : {l.a, l.b})
        {
            Ptr<PointToPointNetDevice> dev = CreateObject<PointToPointNetDevice>();
            dev->SetAttribute("DataRate", StringValue(l.rate));
            dev->SetAddress(Mac48Address::Allocate());
            m_nodes.Get(n)->AddDevice(dev);
            Ptr<Queue<Packet>> q = CreateObjectWithAttributes<DropTailQueue<Packet>>(
                "MaxSize", QueueSizeValue(QueueSize("1p")));
            dev->SetQueue(q);
            Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
            ndqi->GetTxQueue(0)->ConnectQueueTraces(q);
            dev->AggregateObject(ndqi);
            dev->Attach(ch);
            devs.Add(dev);
        }
        return devs;
    }

    void OnWebComplete(uint32_t f)
    {
        if (m_stopAfter > 0 && m_flowInfo[f].start >= m_warmup && ++m_webDone >= m_stopAfter)
        {
            Simulator::Stop();
        }
    }

    void InstallQueue(LinkRec& l, int d)
    {
        const QueueSpec& q = l.q[d];
        if (q.type.empty())
        {
            return;
        }
        Ptr<NetDevice> dev = l.devs.Get(d);
        Ptr<QueueDisc> qd;
        if (q.type == "aqmlab::HoldQueueDisc")
        {
            Ptr<HoldQueueDisc> h = CreateObject<HoldQueueDisc>();
            h->Configure(&m_flowInfo, &m_registry, 1000 + m_holdStreams++,
                         m_useNs2Rng ? &m_ns2Rng : nullptr, m_holdListeners);
            qd = h;
        }
        else if (q.type == "aqmlab::DropListQueueDisc")
        {
            // Attributes: "Limit" packets, "Drops" comma-separated arrival numbers, "Count"
            // "data" (TCP data packets are numbered) or "all" (every packet).
            uint32_t limit = 1000;
            std::vector<uint64_t> drops;
            bool countAll = false;
            for (const auto& [name, value] : q.attributes)
            {
                if (name == "Limit")
                {
                    limit = static_cast<uint32_t>(std::stoul(value));
                }
                else if (name == "Drops")
                {
                    drops = DropListQueueDisc::ParseList(value);
                }
                else if (name == "Count")
                {
                    countAll = value == "all";
                }
                else
                {
                    throw std::invalid_argument("DropListQueueDisc has no attribute " + name);
                }
            }
            Ptr<DropListQueueDisc> dl = CreateObject<DropListQueueDisc>();
            dl->Configure(limit, drops, countAll);
            qd = dl;
        }
        else if (q.type == "aqmlab::Ns2EcnRedQueueDisc")
        {
            // Attributes: the wrapper's own (Rule, MarkP, CountReset); Measure "waiting"
            // (a child measuring ns-2's waiting packets, Ns2RedQueueDisc) or "disc"
            // (ns3::RedQueueDisc); the rest are ns3::RedQueueDisc's, set on the child.
            Ptr<Ns2EcnRedQueueDisc> w = CreateObject<Ns2EcnRedQueueDisc>();
            std::vector<std::pair<std::string, std::string>> red;
            bool waiting = false;
            for (const auto& [name, value] : q.attributes)
            {
                if (name == "Rule" || name == "MarkP" || name == "CountReset")
                {
                    w->SetAttribute(name, StringValue(value));
                }
                else if (name == "Measure")
                {
                    waiting = value == "waiting";
                }
                else
                {
                    red.emplace_back(name, value);
                }
            }
            if (waiting)
            {
                Ns2RedQueueDisc::GetTypeId(); // registers the TypeId the factory looks up
                Ptr<Ns2RedQueueDisc> child =
                    Factory("aqmlab::Ns2RedQueueDisc", red).Create<Ns2RedQueueDisc>();
                child->SetDevice(DynamicCast<PointToPointNetDevice>(dev));
                UseNs2Rng(child);
                w->Configure(child);
            }
            else
            {
                Ptr<RedQueueDisc> child = Factory("ns3::RedQueueDisc", red).Create<RedQueueDisc>();
                UseNs2Rng(child);
                w->Configure(child);
            }
            qd = w;
        }
        else
        {
            qd = Factory(q.type, q.attributes).Create<QueueDisc>();
            UseNs2Rng(DynamicCast<RedQueueDisc>(qd));
        }
        dev->GetNode()->GetObject<TrafficControlLayer>()->SetRootQueueDiscOnDevice(dev, qd);
    }

    /// ns-2's doubles for the replayed opens on its event clock: web_replay.tcl schedules
    /// each open from the previous one (`$ns at t` at clock c is due at fl(c + fl(t - c))),
    /// the first from the set-up (clock 0), in start order over every group.
    template <class Clients>
    void Ns2StartDoubles(const Clients& clients)
    {
        if (Ns2ClockSimulatorImpl::Current() == nullptr)
        {
            return;
        }
        std::vector<uint32_t> all;
        for (const auto& [key, order] : clients)
        {
            all.insert(all.end(), order.begin(), order.end());
        }
        std::stable_sort(all.begin(), all.end(), [this](uint32_t a, uint32_t b) {
            return m_flowInfo[a].start < m_flowInfo[b].start ||
                   (m_flowInfo[a].start == m_flowInfo[b].start && a < b);
        });
        double clock = 0;
        for (uint32_t f : all)
        {
            volatile double gap = m_flowInfo[f].start - clock;
            volatile double due = clock + gap;
            m_flowInfo[f].startDue = due;
            clock = due;
        }
    }

    /// With random_stream "ns2", RED's early-drop draws (RedQueueDisc::DropEarly's
    /// m_uv->GetValue(), where ns-2's drop_early draws Random::uniform()) come from the
    /// run's ns-2 stream.
    void UseNs2Rng(Ptr<RedQueueDisc> red)
    {
        if (!red || !m_useNs2Rng)
        {
            return;
        }
        Ptr<Ns2UniformVariable> uv = CreateObject<Ns2UniformVariable>();
        uv->SetRng(&m_ns2Rng);
        (*red).*Get(red_state::Uv{}) = uv; // friend found by ADL
    }

    /// An ns-3 object factory for `type` with these attribute values (strings).
    static ObjectFactory Factory(const std::string& type,
                                 const std::vector<std::pair<std::string, std::string>>& attrs)
    {
        ObjectFactory f;
        f.SetTypeId(type);
        for (const auto& [name, value] : attrs)
        {
            f.Set(name, StringValue(value));
        }
        return f;
    }

    void Snapshot()
    {
        m_warmupDone = true;
        m_statsWarm = m_stats;
        for (auto& p : m_queueProbes)
        {
            p->Snapshot();
        }
        for (auto& p : m_linkProbes)
        {
            p->Snapshot();
        }
    }

    void Sample()
    {
        m_sampleTimes.push_back(Simulator::Now().GetSeconds());
        for (auto& p : m_queueProbes)
        {
            p->Sample();
        }
        Simulator::Schedule(Seconds(m_sample), &Experiment::Sample, this);
    }

    void OnFlowComplete()
    {
        if (++m_completed == m_finite && m_allFinite && m_stopWhenDone)
        {
            Simulator::Stop();
        }
    }

    NodeContainer m_nodes;
    FlowRegistry m_registry;
    std::unordered_map<uint32_t, std::shared_ptr<PortPool>> m_portsByAddr; // by client address

    std::shared_ptr<PortPool> Ports(uint32_t node)
    {
        auto& pool = m_portsByAddr[Addr(node).Get()];
        if (!pool)
        {
            pool = std::make_shared<PortPool>();
        }
        return pool;
    }
    std::vector<std::unique_ptr<BrowsingScript>> m_scripts;
    std::vector<std::unique_ptr<Browser>> m_browsers;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Ptr<WebClient>> m_browseClients;
    uint64_t m_stopAfter = 0, m_webDone = 0, m_webFlows = 0;
    bool m_ns2TxTime = false; // topology tx_time "ns2": Ns2TxClock on every device
    uint32_t m_linkTrim = 0; // topology link_header "none": bytes a frame takes less (PPP)
    DelayBoxBook m_delayBox; // topology delay_box "ns2": when each flow's FINs leave
    bool m_ns2QueueWake = false; // topology queue_wake "ns2": QueueWake on every device
    bool m_useNs2Rng = false; // run random_stream "ns2": RED and holds draw from m_ns2Rng
    Ns2Rng m_ns2Rng;
    /// Senders of held flows, told by the holds when their packets are held and released.
    std::shared_ptr<HoldListeners> m_holdListeners = std::make_shared<HoldListeners>();
    std::vector<LinkRec> m_links;
    std::vector<std::unique_ptr<TcpProfile>> m_profiles;
    std::vector<FlowInfo> m_flowInfo;
    std::vector<FlowStats> m_stats, m_statsWarm;
    std::vector<std::pair<uint32_t, int>> m_probeOrder;
    std::vector<std::unique_ptr<QueueProbe>> m_queueProbes;
    std::vector<std::unique_ptr<LinkProbe>> m_linkProbes;
    std::vector<std::string> m_probeNames;
    std::vector<double> m_probeRates;
    std::vector<double> m_sampleTimes;
    double m_duration = 10, m_warmup = 0, m_sample = 0;
    bool m_stopWhenDone = true, m_allFinite = false, m_warmupDone = false;
    uint32_t m_finite = 0, m_completed = 0, m_holdStreams = 0;
    double m_cpu = 0, m_events = 0, m_end = 0;
};

} // namespace aqmlab
