// aqmlab/engines/ns3/cpp/delay_box.h -- ns-2.35's DelayBox on a client's access link
// (topology delay_box = "ns2"; aqmlab/scenario/topology.py says why it matters).
//
// ns-2's DelayBox is a classifier in the client's node: each connection's packets wait their
// flow's delay in a per-flow FIFO inside the node, outgoing ones *before* they reach the
// client's link, incoming ones after it. aqmlab's FlowDelayChannel alone adds the delay on
// delivery, after the link, both ways: two connections' packets that leave the client within
// one transmission time of each other then meet the 100 Mb/s link in their sending order,
// not in the order their delays end. DelayBoxEgress delays outgoing packets in the node.
//
// A direction's entry in DelayBox's flow table ends when its FIN leaves the box
// (DelayBoxClassifier::timeout deletes the flow and its queue): packets that entered behind
// the FIN are freed with the queue, and packets that come later are not recognised (only a
// 40-byte SYN opens an entry) and pass without delay: the FIN's retransmission, the
// ACKs that follow it. Full-TCP sends its FIN once everything is acknowledged unless the
// last segment left with nothing outstanding (tcp.fin_rule "full_tcp"), so no data follows
// it; with ns-3's FIN on the last segment (fin_rule "ns3") a retransmission after that
// FIN would skip the delay, which on ns-2.35 it does not. DelayBoxBook keeps, per flow and
// direction, when its FIN leaves.
//
// Every packet the box takes into a flow's queue costs ns-2.35 one draw from the default
// random stream (its loss test, Random::uniform(0, 1), even at loss 0); with the run's
// random_stream "ns2" the book counts them on the Ns2Rng at the time each enters the box
// (outgoing: when sent; incoming: when it reaches the client's node), so the stream's
// later draws (RED's early drops, web connections' tick phases) stay ns-2.35's.
#pragma once
#include "flow_registry.h"
#include "flow_stats.h"
#include "ns2_event_clock.h"
#include "ns2_rng.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <vector>

namespace aqmlab
{
using namespace ns3;

/// When each flow's FIN leaves the DelayBox, per direction (0: from the client, 1: to it).
class DelayBoxBook
{
  public:
    /// Count the box's draws on `rng` (nullptr: not counted).
    void SetRng(Ns2Rng* rng)
    {
        m_rng = rng;
    }

    /// The extra delay of a packet of flow `f` entering the box at `now` (s) in direction
    /// `dir` with delay `delay` (s): `delay`, 0 once the direction's FIN has left, or -1 if
    /// it entered behind a FIN still in the box (lost with the box's queue).
    double Enter(int64_t f, int dir, double now, double delay, bool fin)
    {
        if (f < 0)
        {
            return 0;
        }
        delay = std::max(delay, 0.0);
        double& out = At(f, dir).finOut;
        if (out >= 0 && now >= out)
        {
            return 0.0; // the entry is gone: not the box's packet
        }
        if (m_rng != nullptr)
        {
            m_rng->Defer(now, dir == 1); // to the client: an arrival ns-2 schedules now
        }
        if (out >= 0)
        {
            return -1.0;
        }
        if (fin)
        {
            out = now + delay;
        }
        return delay;
    }

    /// On ns-2's event clock: the double at which a packet of flow `f` entering the box at
    /// `now` (ns-2's double) in direction `dir` leaves it, as DelayBoxQueue::add() and the
    /// flow's timer compute it (no link speed): delay' = fl(fl(delay x 1000) / 1000) (the
    /// replay's rule takes milliseconds); into an empty queue at fl(now + fl(fl(now +
    /// delay') - now)), behind others one delta after the previous release, delta =
    /// fl(fl(now + delay') - deltasum_).
    double Ns2Release(int64_t f, int dir, double now, double delay)
    {
        Box& b = At(f, dir);
        volatile double ms = delay * 1000.0;
        volatile double d = ms / 1000.0;
        volatile double xfer = now + d;
        if (b.last < 0 || now >= b.last)
        {
            b.deltasum = xfer;
            volatile double gap = xfer - now;
            volatile double due = now + gap;
            b.last = due;
            return due;
        }
        volatile double delta = xfer < b.deltasum ? 0.0 : xfer - b.deltasum;
        volatile double sum = b.deltasum + delta;
        b.deltasum = sum;
        volatile double due = b.last + delta;
        b.last = due;
        return due;
    }

  private:
    /// One direction of one flow in the box.
    struct Box
    {
        double finOut = -1;   // when its FIN leaves (-1: none yet)
        double deltasum = 0;  // DelayBoxQueue's deltasum_ (Ns2Release)
        double last = -1;     // the last release double (-1: none; Ns2Release)
    };

    Box& At(int64_t f, int dir)
    {
        const size_t i = 2 * size_t(f) + dir;
        if (i >= m_box.size())
        {
            m_box.resize(i + 2);
        }
        return m_box[i];
    }

    std::vector<Box> m_box; // per flow and direction
    Ns2Rng* m_rng{nullptr};
};

/// The client node's traffic control for its access device: each outgoing packet of a
/// delayed flow reaches the real TrafficControlLayer (queue disc, device) after its flow's
/// delay (DelayBoxBook's rules), as ns-2's DelayBox sends it on to the client's link.
class DelayBoxEgress : public TrafficControlLayer
{
  public:
    DelayBoxEgress(Ptr<TrafficControlLayer> real, const FlowRegistry* registry,
                   const std::vector<FlowInfo>* flows, DelayBoxBook* book)
        : m_real(real),
          m_registry(registry),
          m_flows(flows),
          m_book(book)
    {
    }

    /// Put the egress in front of `dev`'s interface on its node.
    static void Install(Ptr<NetDevice> dev, const FlowRegistry* registry,
                        const std::vector<FlowInfo>* flows, DelayBoxBook* book)
    {
        Ptr<Node> node = dev->GetNode();
        Ptr<Ipv4L3Protocol> ip = node->GetObject<Ipv4L3Protocol>();
        const int32_t i = ip->GetInterfaceForDevice(dev);
        Ptr<TrafficControlLayer> real = node->GetObject<TrafficControlLayer>();
        ip->GetInterface(i)->SetTrafficControl(
            CreateObject<DelayBoxEgress>(real, registry, flows, book));
    }

    void Send(Ptr<NetDevice> device, Ptr<QueueDiscItem> item) override
    {
        bool data = false;
        uint8_t flags = 0;
        const int64_t f = m_registry->Lookup(item, data, &flags);
        const double delay = f >= 0 ? (*m_flows)[f].delay : 0.0;
        const double d = m_book->Enter(f, 0, Simulator::Now().GetSeconds(), delay,
                                       flags & TcpHeader::FIN);
        if (d < 0)
        {
            return; // behind a FIN in the box
        }
        if (d == 0)
        {
            m_real->Send(device, item);
            return;
        }
        if (Ns2ClockSimulatorImpl* sim = Ns2ClockSimulatorImpl::Current())
        {
            const double now = sim->NowDouble();
            const double due = m_book->Ns2Release(f, 0, now, d);
            const int64_t steps = sim->HintRelease(now, due, 2);
            Simulator::Schedule(TimeStep(steps), &TrafficControlLayer::Send, m_real, device,
                                item);
            return;
        }
        Simulator::Schedule(Seconds(d), &TrafficControlLayer::Send, m_real, device, item);
    }

  private:
    Ptr<TrafficControlLayer> m_real;
    const FlowRegistry* m_registry;
    const std::vector<FlowInfo>* m_flows;
    DelayBoxBook* m_book;
};

} // namespace aqmlab
