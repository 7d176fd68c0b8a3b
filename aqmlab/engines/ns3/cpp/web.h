// aqmlab/engines/ns3/cpp/web.h -- HTTP/1.0-style request/response connections (PackMime, Mah).
//
// WebClient opens one TCP connection per request at the times of its schedule (open loop:
// on time however congested), sends the request, counts the response and closes. WebServer
// (one listening socket per server node and TCP profile) reads the request and answers
// with the response size of that connection, known out of band as in ns-2's PackMime.
// Sizes, times and base RTTs come from Python as arrays (aqmlab.workload).
#pragma once
#include "apps.h"
#include "flow_registry.h"
#include "flow_stats.h"
#include "ns2_rng.h"
#include "tcp_socket.h"

#include "ns3/applications-module.h"

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

namespace aqmlab
{
using namespace ns3;

/// AppCallbacksEnabled(): whether the web applications (WebClient, WebServer, ByteSender)
/// hand each connection's socket callbacks they made once, at their construction
/// (AQMLAB_APP_CALLBACKS=0: a MakeCallback per socket and callback, nine per connection).
/// A Callback is a shared pointer to an immutable implementation (the member function and
/// the application); a copy calls the same function on the same object, but MakeCallback
/// allocates the implementation, a std::function and two shared components each time.
AQMLAB_SWITCH(AppCallbacks, EnvSwitch("AQMLAB_APP_CALLBACKS", true))

/// Sends `bytes` on a socket as buffer space allows, then optionally closes it.
class ByteSender
{
  public:
    ByteSender() = default;
    ByteSender(const ByteSender&) = delete; // m_space is bound to this object
    ByteSender& operator=(const ByteSender&) = delete;

    void Start(Ptr<Socket> s, double bytes, bool close)
    {
        m_left[PeekPointer(s)] = {bytes, close};
        s->SetSendCallback(AppCallbacksEnabled() ? m_space : MakeCallback(&ByteSender::Space, this));
        Fill(s);
    }

    void Forget(Ptr<Socket> s)
    {
        m_left.erase(PeekPointer(s));
    }

  private:
    void Space(Ptr<Socket> s, uint32_t)
    {
        Fill(s);
    }

    void Fill(Ptr<Socket> s)
    {
        auto it = m_left.find(PeekPointer(s));
        if (it == m_left.end())
        {
            return;
        }
        auto& [left, close] = it->second;
        if (FillOnceEnabled() && left > 0)
        {
            const double n = FillTotal(left, s->GetTxAvailable(), 16384);
            if (n <= 0)
            {
                return;
            }
            const int sent = s->Send(Create<Packet>(static_cast<uint32_t>(n)), 0);
            if (sent <= 0)
            {
                return;
            }
            left -= sent;
            if (left > 0)
            {
                return; // the loop would stop here too: too little space for a piece
            }
        }
        while (left > 0)
        {
            const uint32_t n = static_cast<uint32_t>(std::min<double>(left, 16384));
            if (s->GetTxAvailable() < n)
            {
                return;
            }
            const int sent = s->Send(Create<Packet>(n), 0);
            if (sent <= 0)
            {
                return;
            }
            left -= sent;
        }
        const bool doClose = close;
        m_left.erase(it);
        if (doClose)
        {
            s->Close();
        }
    }

    Callback<void, Ptr<Socket>, uint32_t> m_space = MakeCallback(&ByteSender::Space, this);
    std::unordered_map<Socket*, std::pair<double, bool>> m_left;
};

/// Per-node pool of client ports, cycled. A port stays taken until every socket holding
/// its 4-tuple is destroyed (its endpoint freed), however long that takes (elephants,
/// TIME_WAIT, LAST_ACK): the client's socket (Take) and the server's fork (Hold). ns-3's
/// Bind(port) does not see connected sockets, whose endpoints no longer have the wildcard
/// local address, so reusing their port would create a second endpoint with the same
/// 4-tuple (NS_FATAL "Too many endpoints" once the pool wraps around); and a SYN reusing a
/// port whose server socket still lives (the client's gone, the server's in TIME_WAIT)
/// reaches that socket, not the listener, and is never answered: ns-2's connections are
/// agents of their own and never meet an old one (Weigle's ARED 5 ms at 105 %, seed 2,
/// 1137.04 s: a connection of 840-1136 s left port 28360 as the cycle came round).
struct PortPool
{
    uint16_t lo = 20000, hi = 65000, next = 20000;
    std::vector<uint16_t> holders = std::vector<uint16_t>(65536, 0);

    /// A free port, or 0 if all are taken.
    uint16_t Take()
    {
        for (uint32_t n = 0; n < uint32_t(hi - lo); ++n)
        {
            const uint16_t p = next;
            next = next + 1 >= hi ? lo : next + 1;
            if (holders[p] == 0)
            {
                holders[p] = 1;
                return p;
            }
        }
        return 0;
    }

    /// Another socket (the server's end) holds `p` until it calls Release.
    void Hold(uint16_t p)
    {
        ++holders[p];
    }

    void Release(uint16_t p)
    {
        if (holders[p] > 0)
        {
            --holders[p];
        }
    }
};

/// The client port pools by client address (Experiment::Ports): a server's fork holds its
/// client's port in the pool it came from.
using PortPoolOf = std::function<std::shared_ptr<PortPool>(Ipv4Address)>;

/// Answers each request with the response size of its connection (known out of band).
class WebServer : public FlowListener
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::WebServer").SetParent<FlowListener>().SetGroupName("Applications");
        return tid;
    }

    void Setup(const TcpProfile* profile, uint16_t port, const FlowRegistry* registry,
               std::vector<FlowInfo>* flows, std::vector<FlowStats>* stats,
               PortPoolOf poolOf = nullptr)
    {
        SetupListener(profile, port, registry, flows, stats);
        m_poolOf = std::move(poolOf);
    }

  protected:
    void StartApplication() override
    {
        FlowListener::StartApplication();
        m_listen->SetOnFork([this](AqmTcpSocket& s, const Address& from) {
            const InetSocketAddress peer = InetSocketAddress::ConvertFrom(from);
            if (std::shared_ptr<PortPool> pool = m_poolOf ? m_poolOf(peer.GetIpv4()) : nullptr)
            {
                // the client's port stays taken while this end lives (PortPool)
                const uint16_t port = peer.GetPort();
                pool->Hold(port);
                s.SetOnDestroy([pool, port] { pool->Release(port); });
            }
            // the connection's counters from its SYN on: timeouts of a handshake still open
            // at the end count too (ns-2's server agents report their nrexmit_)
            if (const int64_t f = FlowOf(from); f >= 0)
            {
                s.SetStats(&(*m_stats)[f]);
                s.CountAllTimeouts();
            }
        });
    }

  private:
    PortPoolOf m_poolOf; // Setup: the client pools, for the forks to hold their ports

    struct Conn
    {
        uint32_t flow;
        double got;
        bool answered;
        EventId respond; // pending response after the server delay
    };

    void Respond(Socket* s)
    {
        auto it = m_conns.find(s);
        auto keep = m_keep.find(s);
        if (it != m_conns.end() && keep != m_keep.end())
        {
            m_sender.Start(keep->second, (*m_flows)[it->second.flow].target, true);
        }
    }

    void DoDispose() override
    {
        for (auto& [socket, conn] : m_conns)
        {
            conn.respond.Cancel();
        }
        m_conns.clear();
        m_keep.clear();
        FlowListener::DoDispose();
    }

    void Accepted(Ptr<Socket> s, uint32_t f) override
    {
        // the socket counts into (*m_stats)[f] since its fork (StartApplication's SetOnFork):
        // the data it sends, every timeout, SYN/ACK and FIN included, as ns-2's nrexmit_
        m_conns[PeekPointer(s)] = Conn{f, 0, false, EventId()};
        if (AppCallbacksEnabled())
        {
            s->SetRecvCallback(m_onRead);
            s->SetCloseCallbacks(m_onClosed, m_onClosed);
        }
        else
        {
            s->SetRecvCallback(MakeCallback(&WebServer::Read, this));
            s->SetCloseCallbacks(MakeCallback(&WebServer::Closed, this),
                                 MakeCallback(&WebServer::Closed, this));
        }
        m_keep[PeekPointer(s)] = s;
    }

    void Read(Ptr<Socket> s)
    {
        auto it = m_conns.find(PeekPointer(s));
        Ptr<Packet> p;
        while ((p = s->Recv()))
        {
            if (p->GetSize() == 0 || it == m_conns.end())
            {
                break;
            }
            Conn& c = it->second;
            c.got += p->GetSize();
            const FlowInfo& info = (*m_flows)[c.flow];
            if (!c.answered && c.got >= info.request)
            {
                c.answered = true;
                if (info.serverDelay > 0)
                {
                    // ns-2.35 PackMime's server delay: respond after a think time
                    c.respond = Simulator::Schedule(Seconds(info.serverDelay),
                                                    &WebServer::Respond, this, PeekPointer(s));
                }
                else
                {
                    m_sender.Start(s, info.target, true);
                }
            }
        }
    }

    void Closed(Ptr<Socket> s)
    {
        m_sender.Forget(s);
        auto it = m_conns.find(PeekPointer(s));
        if (it != m_conns.end())
        {
            it->second.respond.Cancel();
            m_conns.erase(it);
        }
        Simulator::ScheduleNow(&WebServer::Drop, this, PeekPointer(s));
    }

    void Drop(Socket* s)
    {
        m_keep.erase(s);
    }

    Callback<void, Ptr<Socket>> m_onRead = MakeCallback(&WebServer::Read, this);
    Callback<void, Ptr<Socket>> m_onClosed = MakeCallback(&WebServer::Closed, this);
    ByteSender m_sender;
    std::unordered_map<Socket*, Conn> m_conns;
    std::unordered_map<Socket*, Ptr<Socket>> m_keep;
};

class WebClient : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::WebClient").SetParent<Application>().SetGroupName("Applications");
        return tid;
    }

    /// `flows`: indices (sorted by start time) this client opens; `onComplete(flow)` is
    /// called when a response has fully arrived.
    void Setup(const TcpProfile* profile, Address server, std::vector<uint32_t> order,
               std::shared_ptr<PortPool> ports, FlowRegistry* registry,
               std::vector<FlowInfo>* flows,
               std::vector<FlowStats>* stats, std::function<void(uint32_t)> onComplete)
    {
        m_profile = profile;
        m_server = server;
        m_order = std::move(order);
        m_ports = std::move(ports);
        m_registry = registry;
        m_flows = flows;
        m_stats = stats;
        m_onComplete = std::move(onComplete);
    }

    // ---- Tick phases from ns-2's stream (WebBootPhases) ----------------------------------
    // ns-2.35 draws an agent's boot_time_ (the RTO clock's phase, tcp.cc reset()) from the
    // default stream at each reset. aqmlab's ns-2 engine replays a connection on a pair of
    // Full-TCP agents from a pool per (client, server, profile), made when the pool is
    // empty: each new agent draws twice (delay_bind_init_all() resets it twice). At every
    // open the server agent is reset (one draw: its phase), then the client's first send
    // resets the closed client agent (advance_bytes(), one draw: its phase) before its SYN
    // enters the DelayBox. A passive close that ends (LAST_ACK, our FIN acknowledged)
    // calls finish(), whose "done" returns the pair to the pool, and reset(): one more
    // draw (tcp-full.cc). With the run's random_stream "ns2" the client draws the same
    // numbers in the same order (DelayBoxBook counts the DelayBox's draws in between), so
    // each connection's RTT samples count the ticks ns-2.35's do (tests/differential/
    // test_web_tick_phase.py). Weigle's 80 % load, seed 1: a connection whose request was
    // lost at 15.40 s resent it 1.77 s later on ns-2.35 and 1.80 s later on ns-3, whose
    // phase was a hash of its ports: its SYN/ACK's RTT sample counted one tick more.
    void SetBootStream(Ns2Rng* rng)
    {
        m_bootRng = rng;
    }

  private:
    /// The server's and client's tick phases of a connection opened now (WebBootPhases).
    void DrawBootPhases(const Ptr<AqmTcpSocket>& s, uint32_t f)
    {
        if (m_bootPairs == 0)
        {
            for (int i = 0; i < 4; ++i)
            {
                m_bootRng->U01(); // a new client and a new server agent, two resets each
            }
        }
        else
        {
            --m_bootPairs;
        }
        (*m_flows)[f].serverBoot = m_bootRng->U01();
        s->SetBootPhase(m_bootRng->U01());
        s->SetOnPassiveCloseDone([this] {
            ++m_bootPairs;     // finish(): the pair goes back to the pool
            m_bootRng->U01();  // reset()
        });
    }

    void StartApplication() override
    {
        m_addr = GetNode()->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
        ScheduleNext();
    }

    void StopApplication() override
    {
        m_next.Cancel();
    }

    void DoDispose() override
    {
        m_conns.clear();
        m_keep.clear();
        m_prototype = nullptr;
        Application::DoDispose();
    }

    void ScheduleNext()
    {
        if (m_pos >= m_order.size())
        {
            return;
        }
        const FlowInfo& info = (*m_flows)[m_order[m_pos]];
        const double now = Simulator::Now().GetSeconds();
        const Time delay = Seconds(std::max(0.0, info.start - now));
        if (Ns2ClockSimulatorImpl* sim = Ns2ClockSimulatorImpl::Current();
            sim && info.startDue >= 0)
        {
            sim->Hint(delay.GetTimeStep(), info.startDue); // the replay's `$ns at` chain
        }
        m_next = Simulator::Schedule(delay, &WebClient::Open, this);
    }

    void Open()
    {
        OpenNow(m_order[m_pos++]);
        ScheduleNext();
    }

  public:
    /// Open the connection of flow `f` now (its server is this client's server).
    void OpenNow(uint32_t f)
    {
        if (m_addr == Ipv4Address())
        {
            m_addr = GetNode()->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
        }
        (*m_flows)[f].start = Simulator::Now().GetSeconds();
        Ptr<AqmTcpSocket> s = MakeTcpSocketFrom(m_prototype, GetNode(), *m_profile);
        uint16_t port = m_ports->Take();
        if (port != 0 && s->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) != 0)
        {
            m_ports->Release(port);
            port = 0;
        }
        if (port != 0)
        {
            s->SetOnDestroy([pool = m_ports, port] { pool->Release(port); });
            m_registry->Add(m_addr, port, f);
            if (m_bootRng != nullptr)
            {
                DrawBootPhases(s, f);
            }
            m_conns[PeekPointer(s)] = f;
            m_keep[PeekPointer(s)] = s;
            if (AppCallbacksEnabled())
            {
                s->SetConnectCallback(m_onConnected, m_onFailed);
                s->SetRecvCallback(m_onRead);
                s->SetCloseCallbacks(m_onClosed, m_onFailed);
            }
            else
            {
                s->SetConnectCallback(MakeCallback(&WebClient::Connected, this),
                                      MakeCallback(&WebClient::Failed, this));
                s->SetRecvCallback(MakeCallback(&WebClient::Read, this));
                s->SetCloseCallbacks(MakeCallback(&WebClient::Closed, this),
                                     MakeCallback(&WebClient::Failed, this));
            }
            s->Connect(m_server);
        }
        else if (m_onComplete)
        {
            m_onComplete(f); // no port: the record stays incomplete, the user moves on
        }
    }

  private:

    void Connected(Ptr<Socket> s)
    {
        auto it = m_conns.find(PeekPointer(s));
        if (it != m_conns.end())
        {
            m_sender.Start(s, (*m_flows)[it->second].request, false);
        }
    }

    void Read(Ptr<Socket> s)
    {
        auto it = m_conns.find(PeekPointer(s));
        Ptr<Packet> p;
        const double now = Simulator::Now().GetSeconds();
        while ((p = s->Recv()))
        {
            if (p->GetSize() == 0 || it == m_conns.end())
            {
                break;
            }
            const uint32_t f = it->second;
            FlowInfo& info = (*m_flows)[f];
            FlowStats& st = (*m_stats)[f];
            if (info.firstRx < 0)
            {
                info.firstRx = now;
            }
            st.bytesReceived += p->GetSize();
            if (info.completion < 0 && st.bytesReceived >= info.target)
            {
                info.completion = now;
                if (m_onComplete)
                {
                    m_onComplete(f);
                }
            }
        }
    }

    void Closed(Ptr<Socket> s)
    {
        auto it = m_conns.find(PeekPointer(s));
        if (it != m_conns.end())
        {
            FlowInfo& info = (*m_flows)[it->second];
            if (info.completion < 0 && (*m_stats)[it->second].bytesReceived >= info.target)
            {
                info.completion = Simulator::Now().GetSeconds(); // empty reply
                if (m_onComplete)
                {
                    m_onComplete(it->second);
                }
            }
        }
        // The peer's FIN is in: close our side now, with ShutdownSend so that ns-3 does not
        // follow our FIN with a redundant ACK (TcpSocketBase::DoPeerClose acknowledges the
        // FIN unless the send side is shut down); the FIN carries that ACK, as in ns-2.
        // Full-TCP acknowledges a bare FIN first (AckBareFin, "Full-TCP's FIN").
        if (Ptr<AqmTcpSocket> a = DynamicCast<AqmTcpSocket>(s))
        {
            a->AckBareFin();
        }
        s->ShutdownSend();
        s->Close();
        Release(s);
    }

    void Failed(Ptr<Socket> s)
    {
        auto it = m_conns.find(PeekPointer(s));
        if (it != m_conns.end() && m_onFail)
        {
            m_onFail(it->second); // aborted: the record stays incomplete
        }
        Release(s);
    }

  public:
    /// Called when a connection fails (the response never completes).
    void SetFailCallback(std::function<void(uint32_t)> cb)
    {
        m_onFail = std::move(cb);
    }

  private:

    void Release(Ptr<Socket> s)
    {
        m_sender.Forget(s);
        m_conns.erase(PeekPointer(s));
        Simulator::ScheduleNow(&WebClient::Drop, this, PeekPointer(s));
    }

    void Drop(Socket* s)
    {
        m_keep.erase(s);
    }

    const TcpProfile* m_profile{nullptr};
    Ptr<AqmTcpSocket> m_prototype; // MakeTcpSocketFrom's (SocketPrototypeEnabled)
    Address m_server;
    std::vector<uint32_t> m_order;
    size_t m_pos{0};
    std::shared_ptr<PortPool> m_ports;
    FlowRegistry* m_registry{nullptr};
    std::vector<FlowInfo>* m_flows{nullptr};
    std::vector<FlowStats>* m_stats{nullptr};
    std::function<void(uint32_t)> m_onComplete;
    std::function<void(uint32_t)> m_onFail;
    Ipv4Address m_addr;
    EventId m_next;
    Ns2Rng* m_bootRng{nullptr}; // SetBootStream: tick phases from ns-2's stream
    uint64_t m_bootPairs{0};    // agent pairs in ns-2's pool (WebBootPhases)
    Callback<void, Ptr<Socket>> m_onConnected = MakeCallback(&WebClient::Connected, this);
    Callback<void, Ptr<Socket>> m_onFailed = MakeCallback(&WebClient::Failed, this);
    Callback<void, Ptr<Socket>> m_onRead = MakeCallback(&WebClient::Read, this);
    Callback<void, Ptr<Socket>> m_onClosed = MakeCallback(&WebClient::Closed, this);
    ByteSender m_sender;
    std::unordered_map<Socket*, uint32_t> m_conns;
    std::unordered_map<Socket*, Ptr<Socket>> m_keep;
};

/// Browsing users (Mah 1997 as run by the UNC generator): each user fetches pages one after
/// another; a page is a primary object fetched alone, then its secondary objects over at
/// most two concurrent connections; after the page the user thinks, then starts the next
/// one. Each object is one connection (flow) opened through the WebClient of the page's
/// server. The scripts (servers, sizes, think times) come from Python.
struct BrowsingScript
{
    std::vector<uint32_t> userClient, userFirstPage, userNPages;
    std::vector<double> userStart;
    std::vector<uint32_t> pageServer, pageFirstObj, pageNObj;
    std::vector<double> pageThink;
    uint32_t flowBase = 0;
    uint32_t profile = 0;
};

class Browser
{
  public:
    Browser(const BrowsingScript* script, std::function<Ptr<WebClient>(uint32_t, uint32_t)> client)
        : m_script(script),
          m_client(std::move(client))
    {
        const auto& sc = *m_script;
        m_users.resize(sc.userClient.size());
        size_t nObj = 0;
        for (size_t p = 0; p < sc.pageNObj.size(); ++p)
        {
            nObj = std::max<size_t>(nObj, sc.pageFirstObj[p] + sc.pageNObj[p]);
        }
        m_pageOf.assign(nObj, 0);
        m_userOfPage.assign(sc.pageNObj.size(), 0);
        for (uint32_t u = 0; u < sc.userClient.size(); ++u)
        {
            for (uint32_t p = sc.userFirstPage[u]; p < sc.userFirstPage[u] + sc.userNPages[u]; ++p)
            {
                m_userOfPage[p] = u;
                for (uint32_t o = sc.pageFirstObj[p]; o < sc.pageFirstObj[p] + sc.pageNObj[p]; ++o)
                {
                    m_pageOf[o] = p;
                }
            }
            if (sc.userNPages[u] > 0)
            {
                Simulator::Schedule(Seconds(sc.userStart[u]), &Browser::StartPage, this, u,
                                    sc.userFirstPage[u]);
            }
        }
    }

    /// A connection of this browser finished (completed or failed).
    void ObjectDone(uint32_t flow)
    {
        const auto& sc = *m_script;
        const uint32_t obj = flow - sc.flowBase;
        const uint32_t p = m_pageOf.at(obj);
        User& u = m_users[m_userOfPage[p]];
        u.active -= 1;
        u.remaining -= 1;
        if (u.remaining == 0)
        {
            Simulator::Schedule(Seconds(sc.pageThink[p]), &Browser::NextPage, this,
                                m_userOfPage[p], p);
            return;
        }
        Fill(m_userOfPage[p], p);
    }

  private:
    struct User
    {
        uint32_t next = 0;      // next object to open
        uint32_t active = 0;    // connections open
        uint32_t remaining = 0; // objects of the page not yet done
    };

    void StartPage(uint32_t ui, uint32_t p)
    {
        const auto& sc = *m_script;
        User& u = m_users[ui];
        u.next = sc.pageFirstObj[p];
        u.remaining = sc.pageNObj[p];
        if (u.remaining == 0)
        {
            NextPage(ui, p);
            return;
        }
        Open(ui, p); // the primary object, alone
    }

    void Fill(uint32_t ui, uint32_t p)
    {
        const auto& sc = *m_script;
        User& u = m_users[ui];
        while (u.active < 2 && u.next < sc.pageFirstObj[p] + sc.pageNObj[p])
        {
            Open(ui, p);
        }
    }

    void Open(uint32_t ui, uint32_t p)
    {
        const auto& sc = *m_script;
        User& u = m_users[ui];
        const uint32_t flow = sc.flowBase + u.next++;
        u.active += 1;
        m_client(sc.userClient[ui], sc.pageServer[p])->OpenNow(flow);
    }

    void NextPage(uint32_t ui, uint32_t p)
    {
        const auto& sc = *m_script;
        if (p + 1 < sc.userFirstPage[ui] + sc.userNPages[ui])
        {
            StartPage(ui, p + 1);
        }
    }

    const BrowsingScript* m_script;
    std::function<Ptr<WebClient>(uint32_t, uint32_t)> m_client;
    std::vector<User> m_users;
    std::vector<uint32_t> m_pageOf, m_userOfPage;
};

} // namespace aqmlab
