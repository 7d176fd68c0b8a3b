// aqmlab/ns3/cpp/apps.h -- sender and receiver applications of bulk flows and transfers.
//
// Sender: like ns3::BulkSendApplication (ns-2 FTP), but its socket is an AqmTcpSocket built
// from a TcpProfile and it counts into the flow's FlowStats. Receiver: like PacketSink,
// one listening port per flow, stamps first-byte and completion times.
#pragma once
#include "flow_stats.h"
#include "tcp_socket.h"

#include "ns3/applications-module.h"

#include <functional>

namespace aqmlab
{
using namespace ns3;

class Sender : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::Sender").SetParent<Application>().SetGroupName("Applications");
        return tid;
    }

    void Setup(const TcpProfile* profile, Address peer, double maxBytes, FlowStats* stats)
    {
        m_profile = profile;
        m_peer = peer;
        m_maxBytes = maxBytes;
        m_stats = stats;
    }

  private:
    void StartApplication() override
    {
        m_socket = MakeTcpSocket(GetNode(), *m_profile);
        m_socket->SetStats(m_stats);
        m_chunk = 0;
        UintegerValue mss;
        m_socket->GetAttribute("SegmentSize", mss);
        m_chunk = static_cast<uint32_t>(mss.Get()) * 8;
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_socket->SetConnectCallback(MakeCallback(&Sender::Connected, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeCallback(&Sender::Space, this));
    }

    void StopApplication() override
    {
        if (m_socket)
        {
            m_socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        }
    }

    void DoDispose() override
    {
        m_socket = nullptr;
        Application::DoDispose();
    }

    void Connected(Ptr<Socket>)
    {
        m_connected = true;
        Fill();
    }

    void Space(Ptr<Socket>, uint32_t)
    {
        if (m_connected)
        {
            Fill();
        }
    }

    void Fill()
    {
        while (m_maxBytes <= 0 || m_sent < m_maxBytes)
        {
            uint32_t n = m_chunk;
            if (m_maxBytes > 0 && m_maxBytes - m_sent < n)
            {
                n = static_cast<uint32_t>(m_maxBytes - m_sent);
            }
            if (m_socket->GetTxAvailable() < n)
            {
                return;
            }
            const int sent = m_socket->Send(Create<Packet>(n), 0);
            if (sent <= 0)
            {
                return;
            }
            m_sent += sent;
        }
        if (!m_closed)
        {
            m_closed = true;
            m_socket->Close();
        }
    }

    const TcpProfile* m_profile{nullptr};
    Address m_peer;
    double m_maxBytes{0};
    double m_sent{0};
    uint32_t m_chunk{0};
    bool m_connected{false};
    bool m_closed{false};
    FlowStats* m_stats{nullptr};
    Ptr<AqmTcpSocket> m_socket;
};

class Receiver : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::Receiver").SetParent<Application>().SetGroupName("Applications");
        return tid;
    }

    /// `onComplete` is called once when `info->target` bytes have arrived (target > 0).
    void Setup(const TcpProfile* profile,
               uint16_t port,
               FlowInfo* info,
               FlowStats* stats,
               std::function<void()> onComplete)
    {
        m_profile = profile;
        m_port = port;
        m_info = info;
        m_stats = stats;
        m_onComplete = std::move(onComplete);
    }

  private:
    void StartApplication() override
    {
        m_listen = MakeTcpSocket(GetNode(), *m_profile);
        m_listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port));
        m_listen->Listen();
        m_listen->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&Receiver::Accept, this));
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

    void Accept(Ptr<Socket> s, const Address&)
    {
        s->SetRecvCallback(MakeCallback(&Receiver::Read, this));
        s->SetCloseCallbacks(MakeCallback(&Receiver::PeerClose, this),
                             MakeCallback(&Receiver::PeerClose, this));
        m_conns.push_back(s);
    }

    void PeerClose(Ptr<Socket> s)
    {
        s->Close();
    }

    void Read(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        const double now = Simulator::Now().GetSeconds();
        while ((p = s->Recv()))
        {
            const uint32_t n = p->GetSize();
            if (n == 0)
            {
                break;
            }
            if (m_info->firstRx < 0)
            {
                m_info->firstRx = now;
            }
            m_stats->bytesReceived += n;
            if (m_info->target > 0 && m_info->completion < 0 &&
                m_stats->bytesReceived >= m_info->target)
            {
                m_info->completion = now;
                if (m_onComplete)
                {
                    m_onComplete();
                }
            }
        }
    }

    const TcpProfile* m_profile{nullptr};
    uint16_t m_port{0};
    FlowInfo* m_info{nullptr};
    FlowStats* m_stats{nullptr};
    std::function<void()> m_onComplete;
    Ptr<AqmTcpSocket> m_listen;
    std::vector<Ptr<Socket>> m_conns;
};

} // namespace aqmlab
