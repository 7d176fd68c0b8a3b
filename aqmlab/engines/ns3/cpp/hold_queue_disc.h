// aqmlab/engines/ns3/cpp/hold_queue_disc.h -- random sender processing time (Qiu, Zhang, Keshav §4).
//
// Reproduces ns-2's Agent/TCP `overhead_` (tcp.cc send_much()): when a flow could send and
// no delayed-send timer is pending, a timer U(0, overhead) is armed (one draw) and
// everything the flow may send meanwhile leaves together when it fires (send_much(force)).
// Installed as the root queue disc of a sender's access device, it holds the data segments
// and the SYN of each flow that has a processing time (ns-2's one-way agent sends its
// SYN-like packet 0 through send_much too); all other packets pass. When the timer fires
// the held packets join the device's FIFO at once, as ns-2 hands the burst to the link
// queue, and the next packet arms a new hold even while the burst drains. A retransmission
// in fast recovery passes at once without a draw (ns-2 Reno's dupack action calls output()
// directly; SendContext::fastRetransmit). Draws come from the ns-3 stream of this disc or,
// with run.random_stream "ns2", from the run's shared ns-2 stream (ns2_rng.h), where ns-2
// draws Random::uniform(overhead_). Flows share a hold only if they use the same sender
// host and their indices are equal modulo 255.
//
// ns-2 delays the whole send_much(): the packets' output() runs when the timer fires, and
// output() arms an idle retransmission timer (any, when all data sent was acknowledged)
// and starts the RTT timing of the first new segment then. The hold tells the flow's
// HoldListener (aqmlab's socket, tcp_socket.h "Processing hold") when it holds one of its
// packets and when that packet leaves, so the socket can trace, time and arm there.
#pragma once
#include "flow_registry.h"
#include "flow_stats.h"
#include "ns2_rng.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"

#include <deque>
#include <memory>
#include <unordered_map>

namespace aqmlab
{
using namespace ns3;

/// SendContext::fastRetransmit: set by aqmlab's socket (tcp_socket.h) while it sends a
/// retransmission in fast recovery; ns-2's Reno sends that one at once (output(), not
/// send_much()), so the hold passes it without a processing delay and without a draw.
struct SendContext
{
    static inline bool fastRetransmit = false;
};

/// The sender of a held flow: told, in order, when each of its packets is held (at once,
/// while the socket sends it) and when it is released (the hold's timer fired), when it may
/// withdraw it: ns-2 picks what to send when its delayed send fires.
class HoldListener
{
  public:
    virtual ~HoldListener() = default;
    virtual void PacketHeld() = 0;
    /// false: the packet is not to leave after all (ns-2 would not send it now).
    virtual bool PacketReleased() = 0;
};

/// Each flow's HoldListener by flow index (null: none); shared by the experiment, its holds
/// and the listeners (a socket removes itself when it goes).
class HoldListeners
{
  public:
    void Set(uint32_t flow, HoldListener* listener)
    {
        if (flow >= m_byFlow.size())
        {
            m_byFlow.resize(flow + 1, nullptr);
        }
        m_byFlow[flow] = listener;
    }

    HoldListener* Get(int64_t flow) const
    {
        return flow >= 0 && size_t(flow) < m_byFlow.size() ? m_byFlow[flow] : nullptr;
    }

  private:
    std::vector<HoldListener*> m_byFlow;
};

class HoldQueueDisc : public QueueDisc
{
  public:
    /// Internal queues: 0 passes packets straight through, 1..N-1 hold flows (by port).
    static constexpr uint32_t N_QUEUES = 256;
    static constexpr uint32_t WITHDRAWN = 1U << 31; // a FIFO entry's flag (Release)

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::HoldQueueDisc")
                                .SetParent<QueueDisc>()
                                .SetGroupName("TrafficControl");
        return tid;
    }

    HoldQueueDisc()
        : QueueDisc(QueueDiscSizePolicy::NO_LIMITS)
    {
        m_rng = CreateObject<UniformRandomVariable>();
    }

    /// Flows are recognised through the registry of open connections.
    /// `ns2`: the run's shared ns-2 stream, or null for this disc's own ns-3 stream.
    /// `listeners`: the senders to tell of holds and releases (null: none).
    void Configure(const std::vector<FlowInfo>* flows, const FlowRegistry* registry,
                   int64_t stream, Ns2Rng* ns2 = nullptr,
                   std::shared_ptr<HoldListeners> listeners = nullptr)
    {
        m_flows = flows;
        m_registry = registry;
        m_rng->SetStream(stream);
        m_ns2 = ns2;
        m_listeners = std::move(listeners);
    }

  private:
    enum State : uint8_t
    {
        CLOSED, // no timer, next arrival arms a hold
        HELD,   // timer armed, packets accumulate
    };

    /// Maximum hold of this packet's flow (0: pass through), its internal queue and flow.
    double Classify(Ptr<const QueueDiscItem> item, uint32_t& queue, int64_t& flow) const
    {
        queue = 0;
        bool data = false;
        uint8_t flags = 0;
        const int64_t f = m_flows && m_registry ? m_registry->Lookup(item, data, &flags) : -1;
        flow = f;
        const bool syn = (flags & (TcpHeader::SYN | TcpHeader::ACK)) == TcpHeader::SYN;
        if (f < 0 || !(data || syn))
        {
            return 0;
        }
        queue = 1 + uint32_t(f) % (N_QUEUES - 1);
        return (*m_flows)[f].processing;
    }

    bool DoEnqueue(Ptr<QueueDiscItem> item) override
    {
        uint32_t q = 0;
        int64_t flow = -1;
        const double maxHold = Classify(item, q, flow);
        if (maxHold <= 0 || SendContext::fastRetransmit)
        {
            q = 0;
        }
        else if (m_state[q] == CLOSED)
        {
            m_state[q] = HELD;
            // ns-2: Random::uniform(overhead_) = overhead_ U; ns-3: 0 + U (max - 0)
            const double hold = m_ns2 ? maxHold * m_ns2->U01() : m_rng->GetValue(0, maxHold);
            // ns-2's delsnd_timer_ is due at fl(now + hold), the draw's own double
            Ns2ClockDelay(Seconds(hold), hold);
            Simulator::Schedule(Seconds(hold), &HoldQueueDisc::Release, this, q);
        }
        if (!GetInternalQueue(q)->Enqueue(item))
        {
            return false;
        }
        if (q == 0)
        {
            m_fifo.push_back(0);
        }
        else
        {
            m_heldFlows[q].push_back(flow);
            if (HoldListener* l = m_listeners ? m_listeners->Get(flow) : nullptr)
            {
                l->PacketHeld();
            }
        }
        return true;
    }

    /// The timer fired: the held packets join the FIFO at once, in order (a packet of the
    /// next hold of this flow waits in the same internal queue behind them).
    /// A withdrawn packet keeps its place in its internal queue until it reaches the front
    /// of the FIFO, where DropWithdrawn discards it (items leave an internal queue in order).
    void Release(uint32_t q)
    {
        std::deque<int64_t>& held = m_heldFlows[q];
        for (const int64_t flow : held) // PacketReleased only times and arms: no sends here
        {
            HoldListener* l = m_listeners ? m_listeners->Get(flow) : nullptr;
            m_fifo.push_back(l == nullptr || l->PacketReleased() ? q : q | WITHDRAWN);
        }
        held.clear();
        m_state[q] = CLOSED;
        DropWithdrawn();
        Run();
    }

    /// Discard the withdrawn packets at the front of the FIFO (they never leave: not a
    /// queue drop, as ns-2 never sent them).
    void DropWithdrawn()
    {
        while (!m_fifo.empty() && (m_fifo.front() & WITHDRAWN))
        {
            GetInternalQueue(m_fifo.front() & ~WITHDRAWN)->Dequeue();
            m_fifo.pop_front();
        }
    }

    Ptr<QueueDiscItem> DoDequeue() override
    {
        if (m_fifo.empty())
        {
            return nullptr;
        }
        const uint32_t q = m_fifo.front();
        m_fifo.pop_front();
        Ptr<QueueDiscItem> item = GetInternalQueue(q)->Dequeue();
        DropWithdrawn();
        return item;
    }

    Ptr<const QueueDiscItem> DoPeek() override
    {
        return m_fifo.empty() ? nullptr : GetInternalQueue(m_fifo.front())->Peek();
    }

    bool CheckConfig() override
    {
        if (GetNInternalQueues() == 0)
        {
            for (uint32_t i = 0; i < N_QUEUES; ++i)
            {
                AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                    "MaxSize", QueueSizeValue(QueueSize("1000000p"))));
            }
        }
        m_state.assign(N_QUEUES, CLOSED);
        m_heldFlows.assign(N_QUEUES, {});
        return GetNQueueDiscClasses() == 0 && GetNPacketFilters() == 0;
    }

    void InitializeParams() override
    {
    }

    const std::vector<FlowInfo>* m_flows{nullptr};
    const FlowRegistry* m_registry{nullptr};
    Ptr<UniformRandomVariable> m_rng;
    Ns2Rng* m_ns2{nullptr};
    std::vector<State> m_state;
    std::vector<std::deque<int64_t>> m_heldFlows; // the armed hold's packets' flows, in order
    std::shared_ptr<HoldListeners> m_listeners;
    std::deque<uint32_t> m_fifo;  // internal queue of each released packet, in order
};

} // namespace aqmlab
