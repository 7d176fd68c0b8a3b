// aqmlab/engines/ns3/cpp/link_header.h -- frames that take their IP packet's time on the wire
// (topology link_header = "none"; aqmlab/scenario/topology.py says why it matters).
//
// ns-3's point-to-point device puts a 2-byte PPP header on every frame, so a frame takes
// 8 (IP bytes + 2) / rate on the link. ns-2's links have no link layer: a packet takes
// 8 size / rate, size being its IP + TCP bytes. With link_header "none" every frame is sent
// and delivered as if it were `trim` (2) bytes shorter:
// - the device's next transmission starts that much earlier (its InterframeGap, set at the
//   PhyTxBegin trace, which fires before the device computes the transmission time);
// - the channel (HeaderlessChannel) delivers the frame that much earlier.
// The PPP header itself stays on the frame (the device needs it to demultiplex); only the
// times change. Ns2TxClock and Ns2LinkClock take the shortened size too.
#pragma once
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace aqmlab
{
using namespace ns3;

/// How much sooner a frame of `bytes` ends when it is `trim` bytes shorter on the wire, on
/// ns-3's clock (both times rounded as the device rounds them). Memoised per frame size.
class FrameShortening
{
  public:
    FrameShortening() = default;

    FrameShortening(DataRate rate, uint32_t trim)
        : m_rate(rate),
          m_trim(trim)
    {
    }

    uint32_t Trim() const
    {
        return m_trim;
    }

    /// The frame's size as ns-2 would send it.
    uint32_t WireBytes(uint32_t bytes) const
    {
        return bytes > m_trim ? bytes - m_trim : 0;
    }

    Time Of(uint32_t bytes)
    {
        if (m_trim == 0)
        {
            return Time(0);
        }
        if (bytes >= kMemoBytes)
        {
            return Compute(bytes);
        }
        if (bytes >= m_memo.size())
        {
            m_memo.resize(bytes + 1, kUnknown);
        }
        int64_t& steps = m_memo[bytes]; // indexed by size: read at every frame sent
        if (steps == kUnknown)
        {
            steps = Compute(bytes).GetTimeStep();
        }
        return TimeStep(steps);
    }

  private:
    static constexpr uint32_t kMemoBytes = 1 << 16;
    static constexpr int64_t kUnknown = std::numeric_limits<int64_t>::min();

    Time Compute(uint32_t bytes) const
    {
        return m_rate.CalculateBytesTxTime(bytes) - m_rate.CalculateBytesTxTime(WireBytes(bytes));
    }

    DataRate m_rate{0};
    uint32_t m_trim = 0;
    std::vector<int64_t> m_memo; // time steps by frame size; kUnknown: not computed yet
};

/// A point-to-point channel that delivers each frame its FrameShortening sooner, plus any
/// per-packet extra delay a subclass adds (FlowDelayChannel: DelayBox).
class HeaderlessChannel : public PointToPointChannel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::HeaderlessChannel")
                                .SetParent<PointToPointChannel>()
                                .SetGroupName("PointToPoint");
        return tid;
    }

    /// Frames `trim` bytes shorter on a link of `rate` (0: ns-3's frames).
    void SetTrim(DataRate rate, uint32_t trim)
    {
        m_shortening = FrameShortening(rate, trim);
    }

    bool TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime) override
    {
        const uint32_t wire = src == GetSource(0) ? 0 : 1;
        Ptr<PointToPointNetDevice> dst = GetDestination(wire);
        Ptr<Packet> copy = p->Copy();
        const Time arrival = txTime - m_shortening.Of(p->GetSize()) + GetDelay();
        const Time extra = ExtraDelay(copy, wire, arrival);
        if (extra.IsStrictlyNegative())
        {
            return true; // lost on the way (FlowDelayChannel: behind a FIN in a DelayBox)
        }
        Simulator::ScheduleWithContext(dst->GetNode()->GetId(), arrival + extra,
                                       &PointToPointNetDevice::Receive, dst, copy);
        return true;
    }

  protected:
    /// Extra delay of this packet on `wire` (0: from device 0), which reaches the far end
    /// `arrival` from now; negative: it is lost. None here.
    virtual Time ExtraDelay(Ptr<const Packet>, uint32_t /*wire*/, Time /*arrival*/)
    {
        return Time(0);
    }

  private:
    FrameShortening m_shortening;
};

/// Starts a device's next transmission its FrameShortening sooner (links without
/// Ns2TxClock, which does the same in its own gap).
class HeaderlessTx : public SimpleRefCount<HeaderlessTx>
{
  public:
    HeaderlessTx(Ptr<PointToPointNetDevice> dev, FrameShortening shortening)
        : m_dev(dev),
          m_shortening(std::move(shortening))
    {
    }

    static void Install(const NetDeviceContainer& devs, uint32_t trim)
    {
        for (uint32_t i = 0; i < devs.GetN(); ++i)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(devs.Get(i));
            if (dev)
            {
                DataRateValue rate;
                dev->GetAttribute("DataRate", rate);
                Ptr<HeaderlessTx> tx = Create<HeaderlessTx>(dev, FrameShortening(rate.Get(), trim));
                dev->TraceConnectWithoutContext("PhyTxBegin",
                                                MakeCallback(&HeaderlessTx::OnTxBegin, tx));
            }
        }
    }

  private:
    void OnTxBegin(Ptr<const Packet> p)
    {
        const Time gap = Time(0) - m_shortening.Of(p->GetSize());
        if (gap != m_gap)
        {
            m_dev->SetInterframeGap(gap);
            m_gap = gap;
        }
    }

    Ptr<PointToPointNetDevice> m_dev;
    FrameShortening m_shortening;
    Time m_gap{0};
};

} // namespace aqmlab
