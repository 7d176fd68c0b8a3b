// aqmlab/engines/ns3/cpp/probes.h -- C++ trace sinks on congested queues and links.
//
// QueueProbe listens to a root QueueDisc and the 1-packet device queue below it: arrivals,
// departures, drops by reason (forced / unforced / overflow), marks, the time integral of
// the queue length, its maximum, per-flow drop and mark attribution (by TCP port), and the
// RED average queue re-derived with ns-2's estimator over the waiting packets, disc and
// device queue (ns-3 exposes no trace of it). Bytes are counted as frames on the link (IP
// packet + PPP header), the unit of the device queue and of ns-2's queues, so that the
// average queue in bytes and the queueing delay derived from it (bytes / rate) mean the
// same on both engines; the disc's own BytesInQueue counts IP bytes, 2 fewer per packet.
// LinkProbe counts bytes leaving a point-to-point device. Nothing crosses into Python
// until the run is over.
#pragma once
#include "flow_registry.h"
#include "flow_stats.h"
#include "switches.h"

#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <cstring>

namespace aqmlab
{
using namespace ns3;

/// ProbeClockEnabled(): whether a QueueProbe converts the simulation time to seconds once
/// per time step (AQMLAB_PROBE_CLOCK=0: at every call, as before). Each packet through a
/// probed queue fires four to eight queue-length traces at the same time step, each of
/// which integrated the queue length with Simulator::Now().GetSeconds() (128-bit and
/// long-double arithmetic). The seconds of a time step are the same double each time.
AQMLAB_SWITCH(ProbeClock, EnvSwitch("AQMLAB_PROBE_CLOCK", true))

/// Cumulative counters of one queue; a copy is taken at the end of the warm-up.
struct QueueCounters
{
    double arrivals = 0, departures = 0, drops = 0, forcedDrops = 0, unforcedDrops = 0,
           overflowDrops = 0, marks = 0, arrivalBytes = 0, dropBytes = 0, areaPkts = 0,
           areaBytes = 0, maxPkts = 0, redAvgSum = 0, redAvgN = 0, synDrops = 0,
           ackOnlyDrops = 0, ectDrops = 0, ectUnforcedDrops = 0;

    static std::vector<std::string> Names()
    {
        return {"arrivals", "departures", "drops", "forced_drops", "unforced_drops",
                "overflow_drops", "marks", "arrival_bytes", "drop_bytes", "area_pkts",
                "area_bytes", "max_pkts", "red_avg_sum", "red_avg_n", "syn_drops",
                "ack_only_drops", "ect_drops", "ect_unforced_drops"};
    }

    double Get(size_t i) const
    {
        const double* v[] = {&arrivals, &departures, &drops, &forcedDrops, &unforcedDrops,
                             &overflowDrops, &marks, &arrivalBytes, &dropBytes, &areaPkts,
                             &areaBytes, &maxPkts, &redAvgSum, &redAvgN, &synDrops,
                             &ackOnlyDrops, &ectDrops, &ectUnforcedDrops};
        return *v[i];
    }
};

/// ProbeNowMemoEnabled(): whether a queue probe skips its time integration when simulated
/// time has not moved since the last one (AQMLAB_PROBE_NOW_MEMO=0: it converts the time to
/// seconds and adds the zero-length interval at every change). A packet passing a queue
/// changes the disc's and the device queue's packet and byte counts at one instant: four
/// integrations, three of them over zero time, each a 128-bit Time-to-seconds conversion.
/// Skipping them leaves every sum as it was: the areas are finite and non-negative, and
/// adding x * (now - m_last) = +0.0 to them changes no bit.
AQMLAB_SWITCH(ProbeNowMemo, EnvSwitch("AQMLAB_PROBE_NOW_MEMO", true))

/// Bytes the point-to-point device adds to each packet the disc passes down (PPP header).
inline const double FRAME_HEADER_BYTES = double(PppHeader().GetSerializedSize());

class QueueProbe
{
  public:
    /// Bytes a frame adds to its IP packet on the wire: the PPP header, or none with
    /// topology link_header "none" (link_header.h).
    double frameHeaderBytes = FRAME_HEADER_BYTES;

    QueueProbe(Ptr<QueueDisc> qd,
               Ptr<Queue<Packet>> devq,
               std::vector<FlowStats>* flows,
               const FlowRegistry* registry,
               double redWq,
               double redPtc)
        : m_qd(qd),
          m_devq(devq),
          m_flows(flows),
          m_registry(registry),
          m_wq(redWq),
          m_ptc(redPtc)
    {
        qd->TraceConnectWithoutContext("Enqueue", MakeCallback(&QueueProbe::OnEnqueue, this));
        qd->TraceConnectWithoutContext("Dequeue", MakeCallback(&QueueProbe::OnDequeue, this));
        qd->TraceConnectWithoutContext("DropBeforeEnqueue",
                                       MakeCallback(&QueueProbe::OnDropBefore, this));
        qd->TraceConnectWithoutContext("DropAfterDequeue",
                                       MakeCallback(&QueueProbe::OnDropAfter, this));
        qd->TraceConnectWithoutContext("Mark", MakeCallback(&QueueProbe::OnMark, this));
        qd->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QueueProbe::OnQdPkts, this));
        qd->TraceConnectWithoutContext("BytesInQueue", MakeCallback(&QueueProbe::OnQdBytes, this));
        if (devq)
        {
            devq->TraceConnectWithoutContext("PacketsInQueue",
                                             MakeCallback(&QueueProbe::OnDevPkts, this));
            devq->TraceConnectWithoutContext("BytesInQueue",
                                             MakeCallback(&QueueProbe::OnDevBytes, this));
        }
    }

    QueueCounters c;      // cumulative
    QueueCounters warm;   // snapshot at the end of the warm-up
    std::vector<double> seriesPkts, seriesBytes, seriesRedAvg;

    void Snapshot()
    {
        Integrate();
        warm = c;
        c.maxPkts = Pkts(); // the maximum is taken over the measured interval
    }

    void Finish()
    {
        Integrate();
    }

    void Sample()
    {
        seriesPkts.push_back(Pkts());
        seriesBytes.push_back(FrameBytes());
        seriesRedAvg.push_back(m_avg);
    }

  private:
    double Pkts() const
    {
        return m_qdPkts + m_devPkts;
    }

    /// Bytes waiting as link frames: the disc's IP packets with their PPP header to come,
    /// and the device queue's frames.
    double FrameBytes() const
    {
        return m_qdBytes + frameHeaderBytes * m_qdPkts + m_devBytes -
               (FRAME_HEADER_BYTES - frameHeaderBytes) * m_devPkts;
    }

    /// Simulator::Now().GetSeconds(), converted once per time step (ProbeClock).
    double NowSeconds()
    {
        return NowSeconds(Simulator::Now());
    }

    /// `now`'s seconds, converted once per time step (ProbeClock).
    double NowSeconds(const Time& now)
    {
        if (!ProbeClockEnabled())
        {
            return now.GetSeconds();
        }
        const int64_t step = now.GetTimeStep();
        if (step != m_nowStep)
        {
            m_nowStep = step;
            m_nowSeconds = now.GetSeconds();
        }
        return m_nowSeconds;
    }

    void Integrate()
    {
        const Time t = Simulator::Now();
        if (t.GetTimeStep() == m_lastStep && ProbeNowMemoEnabled())
        {
            return; // m_last is this time already: the areas would grow by x * 0.0 = +0.0
        }
        const double now = NowSeconds(t);
        c.areaPkts += Pkts() * (now - m_last);
        c.areaBytes += FrameBytes() * (now - m_last);
        m_last = now;
        m_lastStep = t.GetTimeStep();
    }

    void Changed()
    {
        c.maxPkts = std::max(c.maxPkts, Pkts());
    }

    /// Flow index of a TCP packet, or -1; `data` tells data segment from pure ACK.
    int FlowOf(Ptr<const QueueDiscItem> item, bool& data) const
    {
        return m_flows && m_registry ? int(m_registry->Lookup(item, data)) : -1;
    }

    void Arrival(Ptr<const QueueDiscItem> item, double queued)
    {
        c.arrivals += 1;
        c.arrivalBytes += item->GetSize() + frameHeaderBytes;
        if (m_wq > 0)
        {
            const double now = NowSeconds();
            double m = 0;
            if (m_idle)
            {
                m = std::floor(m_ptc * (now - m_idleSince));
                m_idle = false;
            }
            m_avg = m_avg * std::pow(1.0 - m_wq, m + 1) + m_wq * queued;
            c.redAvgSum += m_avg;
            c.redAvgN += 1;
        }
    }

    void OnEnqueue(Ptr<const QueueDiscItem> item)
    {
        // ns-2 averages the packets waiting when one arrives: those in the disc and the
        // one in the device queue (see RED_DEVICE_WAITING in aqmlab/engines/ns3/mapping.py).
        Arrival(item, (m_qdPkts > 0 ? m_qdPkts - 1 : 0) + m_devPkts);
    }

    void OnDequeue(Ptr<const QueueDiscItem>)
    {
        c.departures += 1;
        MaybeIdle();
    }

    /// ns-2's RED counts idle time from when nothing waits any more (disc and device).
    void MaybeIdle()
    {
        if (m_qdPkts == 0 && m_devPkts == 0 && !m_idle)
        {
            m_idle = true;
            m_idleSince = NowSeconds();
        }
    }

    void Drop(Ptr<const QueueDiscItem> item, const char* reason)
    {
        c.drops += 1;
        c.dropBytes += item->GetSize() + frameHeaderBytes;
        bool unforced = false;
        if (std::strstr(reason, "Forced"))
        {
            c.forcedDrops += 1;
        }
        else if (std::strstr(reason, "nforced") || std::strstr(reason, "Target") ||
                 std::strstr(reason, "arget exceeded"))
        {
            c.unforcedDrops += 1;
            unforced = true;
        }
        else
        {
            c.overflowDrops += 1;
        }
        CountKind(item, unforced);
        bool data = false;
        const int f = FlowOf(item, data);
        if (f >= 0)
        {
            (data ? (*m_flows)[f].drops : (*m_flows)[f].ackDrops) += 1;
        }
    }

    /// What a dropped packet was: a TCP segment carrying SYN (SYN or SYN-ACK), a TCP
    /// segment without payload or SYN (pure ACKs, bare FIN/RST), an ECN-capable packet
    /// (and whether an AQM dropped it early: `unforced`).
    void CountKind(Ptr<const QueueDiscItem> item, bool unforced)
    {
        auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
        if (!ip)
        {
            return;
        }
        const Ipv4Header& h = ip->GetHeader();
        if (h.GetEcn() != Ipv4Header::ECN_NotECT)
        {
            c.ectDrops += 1;
            c.ectUnforcedDrops += unforced ? 1 : 0;
        }
        if (h.GetProtocol() != TcpL4Protocol::PROT_NUMBER)
        {
            return;
        }
        TcpFields tcp;
        Ptr<const Packet> p = item->GetPacket();
        if (!PeekTcp(*p, tcp))
        {
            return;
        }
        if (tcp.flags & TcpHeader::SYN)
        {
            c.synDrops += 1;
        }
        else if (p->GetSize() == tcp.headerBytes)
        {
            c.ackOnlyDrops += 1;
        }
    }

    void OnDropBefore(Ptr<const QueueDiscItem> item, const char* reason)
    {
        Arrival(item, m_qdPkts + m_devPkts);
        Drop(item, reason);
    }

    void OnDropAfter(Ptr<const QueueDiscItem> item, const char* reason)
    {
        // ns-3 fired "Dequeue" for this packet first (QueueDisc::PacketDequeued runs when
        // the internal queue gives it up, or explicitly for a peeked one): it left as a
        // drop, not a departure (CoDel, FQ-CoDel drop at dequeue).
        c.departures -= 1;
        Drop(item, reason);
    }

    void OnMark(Ptr<const QueueDiscItem> item, const char*)
    {
        c.marks += 1;
        bool data = false;
        const int f = FlowOf(item, data);
        if (f >= 0 && data)
        {
            (*m_flows)[f].marks += 1;
        }
    }

    void OnQdPkts(uint32_t, uint32_t v)
    {
        Integrate();
        m_qdPkts = v;
        Changed();
    }

    void OnQdBytes(uint32_t, uint32_t v)
    {
        Integrate();
        m_qdBytes = v;
    }

    void OnDevPkts(uint32_t, uint32_t v)
    {
        Integrate();
        m_devPkts = v;
        Changed();
        MaybeIdle();
    }

    void OnDevBytes(uint32_t, uint32_t v)
    {
        Integrate();
        m_devBytes = v;
    }

    Ptr<QueueDisc> m_qd;
    Ptr<Queue<Packet>> m_devq;
    std::vector<FlowStats>* m_flows;
    const FlowRegistry* m_registry;
    double m_wq, m_ptc;
    double m_qdPkts = 0, m_qdBytes = 0, m_devPkts = 0, m_devBytes = 0;
    double m_last = 0;
    int64_t m_lastStep = 0; // m_last's time step (0 s: step 0)
    double m_avg = 0;
    bool m_idle = true;
    double m_idleSince = 0;
    int64_t m_nowStep = -1;  // NowSeconds: the time step (>= 0) ...
    double m_nowSeconds = 0; // ... and its seconds
};

/// Bytes that left one point-to-point device: its frames, less `trim` each (link_header.h).
class LinkProbe
{
  public:
    explicit LinkProbe(Ptr<NetDevice> dev)
    {
        dev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&LinkProbe::OnTx, this));
    }

    double bytes = 0, packets = 0, warmBytes = 0, warmPackets = 0;
    double trim = 0; // bytes a frame takes less on the wire (link_header.h)

    void Snapshot()
    {
        warmBytes = bytes;
        warmPackets = packets;
    }

  private:
    void OnTx(Ptr<const Packet> p)
    {
        bytes += p->GetSize() - trim;
        packets += 1;
    }
};

} // namespace aqmlab
