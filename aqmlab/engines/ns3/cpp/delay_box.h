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
// Not modelled: a direction's entry in DelayBox's flow table ends when its FIN leaves the
// box (DelayBoxClassifier::timeout deletes the flow and its queue), so packets that entered
// behind the FIN are freed with the queue and later ones pass without delay. Full-TCP sends
// its FIN once everything is acknowledged (a bare FIN, unless the last segment left with
// nothing outstanding), ns-3 on the last segment: with ns-3's FIN the rule would let a
// retransmission after it skip the delay, which on ns-2 it does not (the FIN comes later).
#pragma once
#include "flow_registry.h"
#include "flow_stats.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"

#include <vector>

namespace aqmlab
{
using namespace ns3;

/// The client node's traffic control for its access device: each outgoing packet of a
/// delayed flow reaches the real TrafficControlLayer (queue disc, device) after its flow's
/// delay, as ns-2's DelayBox sends it on to the client's link.
class DelayBoxEgress : public TrafficControlLayer
{
  public:
    DelayBoxEgress(Ptr<TrafficControlLayer> real, const FlowRegistry* registry,
                   const std::vector<FlowInfo>* flows)
        : m_real(real),
          m_registry(registry),
          m_flows(flows)
    {
    }

    /// Put the egress in front of `dev`'s interface on its node.
    static void Install(Ptr<NetDevice> dev, const FlowRegistry* registry,
                        const std::vector<FlowInfo>* flows)
    {
        Ptr<Node> node = dev->GetNode();
        Ptr<Ipv4L3Protocol> ip = node->GetObject<Ipv4L3Protocol>();
        const int32_t i = ip->GetInterfaceForDevice(dev);
        Ptr<TrafficControlLayer> real = node->GetObject<TrafficControlLayer>();
        ip->GetInterface(i)->SetTrafficControl(
            CreateObject<DelayBoxEgress>(real, registry, flows));
    }

    void Send(Ptr<NetDevice> device, Ptr<QueueDiscItem> item) override
    {
        bool data = false;
        const int64_t f = m_registry->Lookup(item, data);
        const double d = f >= 0 ? (*m_flows)[f].delay : 0.0;
        if (d <= 0)
        {
            m_real->Send(device, item);
            return;
        }
        Simulator::Schedule(Seconds(d), &TrafficControlLayer::Send, m_real, device, item);
    }

  private:
    Ptr<TrafficControlLayer> m_real;
    const FlowRegistry* m_registry;
    const std::vector<FlowInfo>* m_flows;
};

} // namespace aqmlab
