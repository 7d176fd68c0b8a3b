// aqmlab/engines/ns3/cpp/apps.h -- sender and receiver applications of bulk flows and transfers.
//
// Sender: like ns3::BulkSendApplication (ns-2 FTP), but its socket is an AqmTcpSocket built
// from a TcpProfile and it counts into the flow's FlowStats. Receiver: like PacketSink,
// one listening port per flow, stamps first-byte and completion times.
#pragma once
#include "flow_registry.h"
#include "flow_stats.h"
#include "switches.h"
#include "tcp_socket.h"

#include "ns3/applications-module.h"

#include <cmath>
#include <functional>
#include <unordered_map>
#include <vector>

namespace aqmlab
{
using namespace ns3;

/// FillOnceEnabled(): whether senders hand a socket in one Send what their loop of
/// `chunk`-byte Sends would (AQMLAB_FILL_ONCE=0: the loop). A bulk flow's first fill of a
/// 4 MB send buffer took ~1,100 Sends of 8 segments, each a new Packet and a
/// TcpTxBuffer::Add: ~15 % of a 20-s run of 1000 flows. Same bytes in the buffer, same
/// events (Send only schedules the transmission); only the number of application Packets
/// differs.
AQMLAB_SWITCH(FillOnce, EnvSwitch("AQMLAB_FILL_ONCE", true))

/// What `while (left > 0) { n = min(left, chunk); if (avail < n) stop; send n; }` sends in
/// all, with `avail` bytes of buffer space (`left` < 0: unlimited).
inline double FillTotal(double left, uint32_t avail, uint32_t chunk)
{
    if (left >= 0 && left <= avail)
    {
        return left;
    }
    return double(avail / chunk) * chunk;
}

class Sender : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::Sender").SetParent<Application>().SetGroupName("Applications");
        return tid;
    }

    /// `localPort` identifies the flow to receivers and probes (PORT_BASE + flow index).
    void Setup(const TcpProfile* profile, Address peer, uint16_t localPort, double maxBytes,
               FlowStats* stats, double bootPhase)
    {
        m_bootPhase = bootPhase;
        m_localPort = localPort;
        m_profile = profile;
        m_peer = peer;
        m_maxBytes = maxBytes;
        m_stats = stats;
    }

    /// Start at `startS` (s). On ns-2's event clock the start is due at that very double,
    /// as ns-2.35's `$ns at start` from the set-up (clock 0) is: the time step nearest it
    /// is up to half a femtosecond off, and the flow's every time with it, which decides
    /// the order of a tie in exact arithmetic (two flows' timeouts at one instant).
    void StartAt(double startS)
    {
        SetStartTime(Seconds(startS));
        m_startS = startS;
    }

    /// This flow's packets pass a processing-time hold: its socket listens to it.
    void ListenToHold(std::shared_ptr<HoldListeners> listeners, uint32_t flow)
    {
        m_holdListeners = std::move(listeners);
        m_flow = flow;
    }

  private:
    void DoInitialize() override
    {
        // Application::DoInitialize schedules the start m_startTime from now (0): due at
        // fl(0 + m_startS) = m_startS on ns-2's clock
        if (m_startS > 0)
        {
            Ns2ClockDelay(m_startTime, m_startS);
        }
        Application::DoInitialize();
    }

    void StartApplication() override
    {
        m_socket = MakeTcpSocket(GetNode(), *m_profile);
        if (m_holdListeners)
        {
            m_socket->ListenToHold(m_holdListeners, m_flow);
        }
        m_socket->SetStats(m_stats);
        m_socket->SetBootPhase(m_bootPhase);
        m_socket->TraceIfWanted(m_localPort);
        m_chunk = 0;
        UintegerValue mss;
        m_socket->GetAttribute("SegmentSize", mss);
        m_chunk = static_cast<uint32_t>(mss.Get()) * 8;
        if (m_socket->FullLastSegment() && m_maxBytes > 0)
        {
            // ns-2's one-way agents send a transfer as whole segments (tcp.cc sendmsg():
            // curseq_ += nbytes / size_ + (nbytes % size_ ? 1 : 0); output() sends size_
            // bytes each): the last one full-size, held like any other by the
            // packet-counted window (send_much(): t_seqno_ <= highest_ack_ + int(cwnd_)).
            // ns-3's byte-counted window lets a short last segment out once its bytes fit.
            // The Receiver counts at most the transfer's size (ns-2: min(got, size)).
            const double seg = double(mss.Get());
            m_maxBytes = std::ceil(m_maxBytes / seg) * seg;
        }
        m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_localPort));
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
        if (FillOnceEnabled() && (m_maxBytes <= 0 || m_sent < m_maxBytes))
        {
            const double n = FillTotal(m_maxBytes > 0 ? m_maxBytes - m_sent : -1,
                                       m_socket->GetTxAvailable(), m_chunk);
            if (n <= 0)
            {
                return;
            }
            const int sent = m_socket->Send(Create<Packet>(static_cast<uint32_t>(n)), 0);
            if (sent <= 0)
            {
                return;
            }
            m_sent += sent;
            if (m_maxBytes <= 0 || m_sent < m_maxBytes)
            {
                return; // the loop would stop here too: too little space for a chunk
            }
        }
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
            // ns-2's one-way agents send no FIN: the last segment is an ordinary one (the
            // sink may delay its ACK) and the receiver answers with no FIN of its own.
            if (!m_socket->NoFinAfterTransfer())
            {
                m_socket->Close();
            }
        }
    }

    const TcpProfile* m_profile{nullptr};
    uint16_t m_localPort{0};
    double m_bootPhase{-1};
    double m_startS{0};
    Address m_peer;
    double m_maxBytes{0};
    double m_sent{0};
    uint32_t m_chunk{0};
    bool m_connected{false};
    bool m_closed{false};
    FlowStats* m_stats{nullptr};
    std::shared_ptr<HoldListeners> m_holdListeners;
    uint32_t m_flow{0};
    Ptr<AqmTcpSocket> m_socket;
};

/// Base of the receiving applications: one listening socket per (host, TCP profile);
/// accepted connections are told apart by the sender's address and port (FlowRegistry)
/// and handed to Accepted(socket, flow). Few listening sockets per host also keeps ns-3's
/// linear endpoint lookup (still used for listeners) cheap.
class FlowListener : public Application
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::FlowListener").SetParent<Application>().SetGroupName("Applications");
        return tid;
    }

  protected:
    void SetupListener(const TcpProfile* profile, uint16_t listenPort,
                       const FlowRegistry* registry, std::vector<FlowInfo>* flows,
                       std::vector<FlowStats>* stats)
    {
        m_profile = profile;
        m_port = listenPort;
        m_registry = registry;
        m_flows = flows;
        m_stats = stats;
    }

    /// A connection of flow `flow` was accepted on `s`.
    virtual void Accepted(Ptr<Socket> s, uint32_t flow) = 0;

    void StartApplication() override
    {
        m_listen = MakeTcpSocket(GetNode(), *m_profile);
        m_listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port));
        m_listen->Listen();
        m_listen->SetBootOf([this](const Address& from) { // web servers' tick phases
            const int64_t f = FlowOf(from);
            return f >= 0 ? (*m_flows)[f].serverBoot : -1.0;
        });
        m_listen->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&FlowListener::Accept, this));
    }

    void StopApplication() override
    {
    }

    void DoDispose() override
    {
        m_listen = nullptr;
        Application::DoDispose();
    }

    /// The flow whose sender connects from `from` (-1: not one of ours).
    int64_t FlowOf(const Address& from) const
    {
        const InetSocketAddress peer = InetSocketAddress::ConvertFrom(from);
        return m_registry->Lookup(peer.GetIpv4(), peer.GetPort(), Ipv4Address(), 0);
    }

    const TcpProfile* m_profile{nullptr};
    uint16_t m_port{0};
    const FlowRegistry* m_registry{nullptr};
    std::vector<FlowInfo>* m_flows{nullptr};
    std::vector<FlowStats>* m_stats{nullptr};
    Ptr<AqmTcpSocket> m_listen;

  private:
    void Accept(Ptr<Socket> s, const Address& from)
    {
        const int64_t f = FlowOf(from);
        if (f >= 0)
        {
            Accepted(s, uint32_t(f)); // otherwise not one of ours: ignore its data
        }
    }
};

/// Counts the bytes of bulk flows and finite transfers (sender: the Sender app).
class Receiver : public FlowListener
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::Receiver").SetParent<FlowListener>().SetGroupName("Applications");
        return tid;
    }

    /// `onComplete(flow)` is called once when a flow's `target` bytes have arrived.
    void Setup(const TcpProfile* profile,
               uint16_t listenPort,
               const FlowRegistry* registry,
               std::vector<FlowInfo>* flows,
               std::vector<FlowStats>* stats,
               std::function<void(uint32_t)> onComplete)
    {
        SetupListener(profile, listenPort, registry, flows, stats);
        m_onComplete = std::move(onComplete);
    }

  private:
    void DoDispose() override
    {
        m_conns.clear();
        FlowListener::DoDispose();
    }

    void Accepted(Ptr<Socket> s, uint32_t flow) override
    {
        m_conns[PeekPointer(s)] = flow;
        s->SetRecvCallback(MakeCallback(&Receiver::Read, this));
        s->SetCloseCallbacks(MakeCallback(&Receiver::PeerClose, this),
                             MakeCallback(&Receiver::PeerClose, this));
        m_keep.push_back(s);
    }

    void PeerClose(Ptr<Socket> s)
    {
        s->Close();
    }

    void Read(Ptr<Socket> s)
    {
        const auto it = m_conns.find(PeekPointer(s));
        if (it == m_conns.end())
        {
            return;
        }
        const uint32_t flow = it->second;
        FlowInfo& info = (*m_flows)[flow];
        FlowStats& st = (*m_stats)[flow];
        Ptr<Packet> p;
        const double now = Simulator::Now().GetSeconds();
        while ((p = s->Recv()))
        {
            const uint32_t n = p->GetSize();
            if (n == 0)
            {
                break;
            }
            if (info.firstRx < 0)
            {
                info.firstRx = now;
            }
            st.bytesReceived += n;
            if (info.target > 0 && st.bytesReceived > info.target)
            {
                st.bytesReceived = info.target; // FullLastSegment's padding
            }
            if (info.target > 0 && info.completion < 0 && st.bytesReceived >= info.target)
            {
                info.completion = now;
                if (m_onComplete)
                {
                    m_onComplete(flow);
                }
            }
        }
    }

    std::function<void(uint32_t)> m_onComplete;
    std::unordered_map<Socket*, uint32_t> m_conns;
    std::vector<Ptr<Socket>> m_keep;
};

} // namespace aqmlab
