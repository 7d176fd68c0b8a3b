// aqmlab/ns3/cpp/web.h -- HTTP/1.0-style request/response connections (PackMime, Mah).
//
// WebClient opens one TCP connection per request at the times of its schedule (open loop:
// on time however congested), sends the request, counts the response and closes. WebServer
// (one listening socket per server node and TCP profile) reads the request and answers
// with the response size of that connection, known out of band as in ns-2's PackMime.
// Sizes, times and base RTTs come from Python as arrays (aqmlab.workload).
#pragma once
#include "flow_registry.h"
#include "flow_stats.h"
#include "tcp_socket.h"

#include "ns3/applications-module.h"

#include <functional>
#include <unordered_map>
#include <vector>

namespace aqmlab
{
using namespace ns3;

/// Sends `bytes` on a socket as buffer space allows, then optionally closes it.
class ByteSender
{
  public:
    void Start(Ptr<Socket> s, double bytes, bool close)
    {
        m_left[PeekPointer(s)] = {bytes, close};
        s->SetSendCallback(MakeCallback(&ByteSender::Space, this));
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

    std::unordered_map<Socket*, std::pair<double, bool>> m_left;
};

/// Per-node pool of client ports, cycled; a port still bound (e.g. in TIME_WAIT) is skipped.
struct PortPool
{
    uint16_t lo = 20000, hi = 65000, next = 20000;

    uint16_t Take()
    {
        const uint16_t p = next;
        next = next + 1 >= hi ? lo : next + 1;
        return p;
    }
};

class WebServer : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::WebServer").SetParent<Application>().SetGroupName("Applications");
        return tid;
    }

    void Setup(const TcpProfile* profile, uint16_t port, const FlowRegistry* registry,
               std::vector<FlowInfo>* flows, std::vector<FlowStats>* stats)
    {
        m_profile = profile;
        m_port = port;
        m_registry = registry;
        m_flows = flows;
        m_stats = stats;
    }

  private:
    struct Conn
    {
        uint32_t flow;
        double got;
        bool answered;
    };

    void StartApplication() override
    {
        m_listen = MakeTcpSocket(GetNode(), *m_profile);
        m_listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port));
        m_listen->Listen();
        m_listen->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&WebServer::Accept, this));
    }

    void StopApplication() override
    {
    }

    void DoDispose() override
    {
        m_listen = nullptr;
        m_conns.clear();
        Application::DoDispose();
    }

    void Accept(Ptr<Socket> s, const Address& from)
    {
        const InetSocketAddress peer = InetSocketAddress::ConvertFrom(from);
        const int64_t f = m_registry->Lookup(peer.GetIpv4(), peer.GetPort(), Ipv4Address(), 0);
        if (f < 0)
        {
            return;
        }
        if (Ptr<AqmTcpSocket> a = DynamicCast<AqmTcpSocket>(s))
        {
            a->SetStats(&(*m_stats)[f]); // the server sends the data: count its segments
        }
        m_conns[PeekPointer(s)] = Conn{uint32_t(f), 0, false};
        s->SetRecvCallback(MakeCallback(&WebServer::Read, this));
        s->SetCloseCallbacks(MakeCallback(&WebServer::Closed, this),
                             MakeCallback(&WebServer::Closed, this));
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
                m_sender.Start(s, info.target, true);
            }
        }
    }

    void Closed(Ptr<Socket> s)
    {
        m_sender.Forget(s);
        m_conns.erase(PeekPointer(s));
        Simulator::ScheduleNow(&WebServer::Drop, this, PeekPointer(s));
    }

    void Drop(Socket* s)
    {
        m_keep.erase(s);
    }

    const TcpProfile* m_profile{nullptr};
    uint16_t m_port{0};
    const FlowRegistry* m_registry{nullptr};
    std::vector<FlowInfo>* m_flows{nullptr};
    std::vector<FlowStats>* m_stats{nullptr};
    Ptr<AqmTcpSocket> m_listen;
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
               PortPool* ports, FlowRegistry* registry, std::vector<FlowInfo>* flows,
               std::vector<FlowStats>* stats, std::function<void(uint32_t)> onComplete)
    {
        m_profile = profile;
        m_server = server;
        m_order = std::move(order);
        m_ports = ports;
        m_registry = registry;
        m_flows = flows;
        m_stats = stats;
        m_onComplete = std::move(onComplete);
    }

  private:
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
        Application::DoDispose();
    }

    void ScheduleNext()
    {
        if (m_pos >= m_order.size())
        {
            return;
        }
        const double t = (*m_flows)[m_order[m_pos]].start;
        const double now = Simulator::Now().GetSeconds();
        m_next = Simulator::Schedule(Seconds(std::max(0.0, t - now)), &WebClient::Open, this);
    }

    void Open()
    {
        const uint32_t f = m_order[m_pos++];
        Ptr<AqmTcpSocket> s = MakeTcpSocket(GetNode(), *m_profile);
        uint16_t port = 0;
        for (int tries = 0; tries < 1000; ++tries)
        {
            port = m_ports->Take();
            if (s->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) == 0)
            {
                break;
            }
            port = 0;
        }
        if (port != 0)
        {
            m_registry->Add(m_addr, port, f);
            m_conns[PeekPointer(s)] = f;
            m_keep[PeekPointer(s)] = s;
            s->SetConnectCallback(MakeCallback(&WebClient::Connected, this),
                                  MakeCallback(&WebClient::Failed, this));
            s->SetRecvCallback(MakeCallback(&WebClient::Read, this));
            s->SetCloseCallbacks(MakeCallback(&WebClient::Closed, this),
                                 MakeCallback(&WebClient::Failed, this));
            s->Connect(m_server);
        }
        ScheduleNext();
    }

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
        s->Close();
        Release(s);
    }

    void Failed(Ptr<Socket> s)
    {
        Release(s); // the connection was aborted: its record stays incomplete
    }

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
    Address m_server;
    std::vector<uint32_t> m_order;
    size_t m_pos{0};
    PortPool* m_ports{nullptr};
    FlowRegistry* m_registry{nullptr};
    std::vector<FlowInfo>* m_flows{nullptr};
    std::vector<FlowStats>* m_stats{nullptr};
    std::function<void(uint32_t)> m_onComplete;
    Ipv4Address m_addr;
    EventId m_next;
    ByteSender m_sender;
    std::unordered_map<Socket*, uint32_t> m_conns;
    std::unordered_map<Socket*, Ptr<Socket>> m_keep;
};

} // namespace aqmlab
