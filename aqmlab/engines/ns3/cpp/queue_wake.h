// aqmlab/engines/ns3/cpp/queue_wake.h -- ns-2's link takes its next packet the instant a
// transmission ends (topology queue_wake = "ns2"; aqmlab/scenario/topology.py says when
// it matters).
//
// ns-2.35: when a link's transmission ends, the queue is resumed and dequeues its next
// packet in that very event; a packet that arrives at the same instant finds one place
// more. ns-3's point-to-point device takes its next packet from its 1-packet device queue
// in TransmitComplete, but the queue disc refills the device queue only in an event
// scheduled for the same instant (NetDeviceQueue::PacketDequeued's ScheduleNow), after
// every event already due then: an arrival at that instant meets a disc that still holds
// the packet ns-2 has already moved on, and a full drop-tail or RED disc drops it.
// QueueWake wakes the device queue, and with it the queue disc, at the start of every
// transmission (the device's PhyTxBegin trace, fired once the device is BUSY, so the disc
// only moves a packet into the device queue), when the device queue has room: the disc
// plus device queue then hold what ns-2's queue holds at every instant.
//
// ns-3's own wake, one event per packet sent on every link, then finds nothing to do: the
// device queue is full again, or the disc was empty and has been asked already at this
// instant (a second Dequeue of an empty disc at the same time changes nothing, RED's idle
// time included). OneWakeEnabled() (AQMLAB_ONE_WAKE=0: off) disconnects it, so such runs
// schedule one event fewer per transmission, and give the same results
// (tests/sim/test_queue_wake.py).
#pragma once
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "switches.h"

#include <cstdint>

namespace aqmlab
{
using namespace ns3;

AQMLAB_SWITCH(OneWake, EnvSwitch("AQMLAB_ONE_WAKE", true))

class QueueWake
{
  public:
    /// Wake the device queue of every point-to-point device of `devs` that has one at the
    /// start of each of its transmissions.
    static void Install(const NetDeviceContainer& devs)
    {
        for (uint32_t i = 0; i < devs.GetN(); ++i)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(devs.Get(i));
            Ptr<NetDeviceQueueInterface> ndqi =
                dev ? dev->GetObject<NetDeviceQueueInterface>() : nullptr;
            if (ndqi)
            {
                Ptr<Queue<Packet>> queue = dev->GetQueue();
                NetDeviceQueue* txq = PeekPointer(ndqi->GetTxQueue(0));
                if (OneWakeEnabled()) // the callback ConnectQueueTraces made (tested by count)
                {
                    queue->TraceDisconnectWithoutContext(
                        "Dequeue", MakeCallback(&NetDeviceQueue::PacketDequeued<Queue<Packet>>,
                                                txq)
                                       .Bind(PeekPointer(queue)));
                }
                dev->TraceConnectWithoutContext(
                    "PhyTxBegin",
                    MakeBoundCallback(&QueueWake::OnTxBegin, txq, PeekPointer(queue),
                                      uint32_t(dev->GetMtu())));
            }
        }
    }

    /// Wakes counted in this process (the tests' proof that the hook ran).
    static uint64_t& Count()
    {
        static uint64_t n = 0;
        return n;
    }

  private:
    static void OnTxBegin(NetDeviceQueue* txq, Queue<Packet>* queue, uint32_t mtu,
                          Ptr<const Packet>)
    {
        if (!queue->WouldOverflow(1, mtu))
        {
            ++Count();
            txq->Wake(); // the disc's Run; a no-op inside a Run already under way
        }
    }
};

} // namespace aqmlab
