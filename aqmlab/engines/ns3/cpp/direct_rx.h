// aqmlab/engines/ns3/cpp/direct_rx.h -- hand a received IPv4 packet straight to the node's IPv4.
//
// A point-to-point device hands each packet to Node::ReceiveFromDevice, which walks every
// protocol handler of the node (two per IPv4 interface: IPv4 and ARP) and calls the
// matching one, TrafficControlLayer::Receive, which walks its own list (again two per
// interface) and calls Ipv4L3Protocol::Receive. At a router with one link per host both
// walks cover thousands of entries per packet (~14 % of Qiu's 1000-sender dumbbell once its
// routing is O(1)). DirectRx replaces the device's receive callback with the one handler
// the walks would find, called with the same arguments (to = the device's address, packet
// type 0). It applies to devices whose IPv4 interface exists and whose node has no other
// handler for them (aqmlab registers none: no packet sockets, no promiscuous handlers);
// anything that is not IPv4 still goes to the traffic-control layer, which a p2p device
// never delivers here (no ARP; aqmlab carries no IPv6). Same results, without the walks
// (tests/sim/test_fast_routing.py); AQMLAB_DIRECT_RX=0 keeps ns-3's path.
#pragma once
#include "fast_routing.h"
#include "switches.h"

#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

namespace aqmlab
{
using namespace ns3;

/// DirectRxEnabled(): whether Experiment installs DirectRx (AQMLAB_DIRECT_RX=0 turns it off).
AQMLAB_SWITCH(DirectRx, EnvSwitch("AQMLAB_DIRECT_RX", true))

struct DirectRx
{
    /// Node::NonPromiscReceiveFromDevice as it ends for this device's IPv4 packets.
    static bool Receive(Ptr<Ipv4L3Protocol> ip,
                        Ptr<TrafficControlLayer> tc,
                        Ptr<NetDevice> device,
                        Ptr<const Packet> packet,
                        uint16_t protocol,
                        const Address& from)
    {
        const Address to = device->GetAddress();
        if (protocol == Ipv4L3Protocol::PROT_NUMBER)
        {
            ip->Receive(device, packet, protocol, from, to, NetDevice::PacketType(0));
        }
        else
        {
            tc->Receive(device, packet, protocol, from, to, NetDevice::PacketType(0));
        }
        return true;
    }

    /// Give `device` (already on its node, with an IPv4 interface) the direct callback.
    static void Install(Ptr<NetDevice> device)
    {
        Ptr<Node> node = device->GetNode();
        Ptr<Ipv4L3Protocol> ip = node->GetObject<Ipv4L3Protocol>();
        Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
        if (!ip || !tc || ip->GetInterfaceForDevice(device) < 0)
        {
            return;
        }
        device->SetReceiveCallback(MakeBoundCallback(&DirectRx::Receive, ip, tc));
    }
};

} // namespace aqmlab
