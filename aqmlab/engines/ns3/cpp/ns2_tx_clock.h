// aqmlab/engines/ns3/cpp/ns2_tx_clock.h -- ns-2.35's link clock on ns-3's point-to-point devices
// (topology tx_time = "ns2"; aqmlab/scenario/topology.py says why it matters).
//
// ns-3 puts a transmission time of 8 size / rate on its clock of whole time steps (1 ns) by
// rounding to the nearest (DataRate::CalculateBytesTxTime). ns-2.35 computes in doubles: the
// next departure of a busy link is scheduled at clock_ + txt, txt = 8. * size / bandwidth_,
// and that sum is rounded to a multiple of the ulp of the current time, so its departures
// run ahead of or behind exact arithmetic by ~1e-15 s per packet, one way for one size, rate
// and binade of the time. Ns2TxClock makes ns-3's error go the same way: at the start of
// every transmission (the device's PhyTxBegin trace, fired before the device computes the
// time) it sets the device's InterframeGap to the difference between the time rounded up
// (ns-2's step longer than exact), down (shorter) or to the nearest (exact) and ns-3's own
// rounding: -1, 0 or +1 step. The device then starts its next packet that much earlier or
// later; the channel still delivers each packet after ns-3's own time.
//
// The sign alone matches ns-2 only while its errors stay one way: its size is ~1e-17 s to
// ~1e-15 s (it grows with the binade), ns-3's 0.2 to 0.8 ns. A timer that spans a binade
// (Qiu's T1: a 4 s RTO set at 13.08 s, firing at 17.08 s, 1544 slots of exactly 1/386 s)
// sums ns-2's errors to -7e-13 s (fast) and ns-3's to +0.3 us (slow): a tie with the ACK
// clock goes the other way (tests/differential/test_fs_clock.py). At a time resolution
// finer than 1 ns (AQMLAB_TIME_RESOLUTION=fs, aqmlab/engines/ns3/native.py) the device
// instead keeps ns-2's own clock of its busy period: a transmission that starts when the
// last one ends starts at that one's double end time, ends at ns-2's fl(clock_ + txt), and
// ns-3 ends it at that double rounded to the nearest time step; one that starts on an
// idle link starts at the double nearest ns-3's time. ns-3's departures are then ns-2's to
// half a step, however long the link stays busy. Rounding each double step to the time
// step instead (aqmlab 0.7.0-0.7.2) left the rounding of the step on every packet: on the
// T1 (502 bytes) ns-2's step is 2,590,673,575,129.54 fs before 16 s and ...127.77 fs after,
// so ns-3's ACK clock lost 0.46 and 0.23 fs a slot, 0.4 ps over a 2.5-s timer; ns-2.35
// ordered a tie by 0.27 ps (Qiu's 100 flows, seed 6, 16.51 s: tests/differential/
// test_tx_clock_drift.py).
#pragma once
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "link_header.h"

#include <cmath>
#include <cstdint>
#include <map>

namespace aqmlab
{
using namespace ns3;

/// -1, 0 or +1: whether ns-2's clock, at simulated time `now` (seconds), advances a link of
/// `rate` bit/s by less than, exactly or more than the exact 8 `bytes` / `rate` seconds.
inline int
Ns2StepSign(uint32_t bytes, uint64_t rate, double now)
{
    const double txt = 8. * bytes / double(rate); // ns-2's LinkDelay::txtime
    volatile double next = now + txt; // ns-2's clock_ + txt, rounded to a double (volatile:
    const double step = next - now;   // never simplified away); exact: nearby doubles
    int exp = 0;
    const double mant = std::frexp(step, &exp); // step = mant 2^exp, 0.5 <= mant < 1
    // step = m 2^e with m an integer below 2^53; compare m rate 2^e with the exact bits
    const auto m = static_cast<unsigned __int128>(std::ldexp(mant, 53));
    const int e = exp - 53;
    const unsigned __int128 bits = 8 * static_cast<unsigned __int128>(bytes);
    const unsigned __int128 lhs = m * rate;
    if (e >= 0 || -e > 92) // outside what 128 bits compare exactly (bits < 2^35): none
    {
        return 0;
    }
    const unsigned __int128 rhs = bits << (-e);
    return lhs < rhs ? -1 : (lhs > rhs ? 1 : 0);
}

/// The step nearest `t` seconds (a non-negative double) on a clock of `perSecond` steps,
/// exactly (128-bit arithmetic on the double's mantissa).
inline int64_t
Ns2Steps(double t, int64_t perSecond)
{
    if (t <= 0)
    {
        return 0;
    }
    int exp = 0;
    const double mant = std::frexp(t, &exp); // t = m 2^(exp - 53), m < 2^53
    const auto m = static_cast<unsigned __int128>(std::ldexp(mant, 53));
    const unsigned __int128 num = m * static_cast<unsigned __int128>(perSecond);
    const int shift = 53 - exp;
    if (shift <= 0)
    {
        return static_cast<int64_t>(num << -shift);
    }
    return static_cast<int64_t>((num + (static_cast<unsigned __int128>(1) << (shift - 1))) >>
                                shift);
}

/// ns-2's clock of one link's busy period on a clock of `stepsPerSecond` integer steps
/// (finer than 1 ns; see the file comment).
struct Ns2BusyClock
{
    int64_t stepsPerSecond = 1000000000000000; // 1 fs
    bool busy = false;   // a transmission has been timed
    double end = 0;      // ns-2's end of the last transmission (s), a double
    int64_t endStep = 0; // that double to the nearest step

    /// The step at which a transmission of `bytes` at `rate` bit/s that starts at step
    /// `nowStep` ends: ns-2's fl(clock_ + txt), clock_ the last end's double if this one
    /// follows it at once (a busy link), else the double nearest `nowStep`.
    int64_t End(uint32_t bytes, uint64_t rate, int64_t nowStep)
    {
        const double start = (busy && nowStep == endStep)
                                 ? end
                                 : double(static_cast<long double>(nowStep) / stepsPerSecond);
        const double txt = 8. * bytes / double(rate); // LinkDelay::txtime
        volatile double next = start + txt; // Scheduler::schedule: clock_ + txt, a double
        end = next;
        endStep = Steps(next);
        busy = true;
        return endStep;
    }

    /// The step nearest `t` seconds (a non-negative double), exactly.
    int64_t Steps(double t) const
    {
        return Ns2Steps(t, stepsPerSecond);
    }
};

/// Sets one point-to-point device's InterframeGap per transmission (see the file comment).
class Ns2TxClock : public SimpleRefCount<Ns2TxClock>
{
  public:
    Ns2TxClock(Ptr<PointToPointNetDevice> dev, uint32_t trim)
        : m_dev(dev)
    {
        DataRateValue rate;
        dev->GetAttribute("DataRate", rate);
        m_rate = rate.Get();
        m_shortening = FrameShortening(m_rate, trim);
        m_stepsPerSecond = Seconds(1).GetTimeStep();
        m_busyClock.stepsPerSecond = m_stepsPerSecond;
        dev->SetInterframeGap(Time(0));
    }

    /// Install on every point-to-point device of `devs`, for frames `trim` bytes shorter on
    /// the wire (link_header.h; 0: ns-3's frames); the clocks live as long as the devices'
    /// trace callbacks.
    static void Install(const NetDeviceContainer& devs, uint32_t trim = 0)
    {
        for (uint32_t i = 0; i < devs.GetN(); ++i)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(devs.Get(i));
            if (dev)
            {
                Ptr<Ns2TxClock> clock = Create<Ns2TxClock>(dev, trim);
                dev->TraceConnectWithoutContext(
                    "PhyTxBegin", MakeCallback(&Ns2TxClock::OnTxBegin, clock));
            }
        }
    }

    /// At 1 ns: the gap that turns ns-3's transmission time of `bytes` at time `now` (s)
    /// into ns-2's rounding (up, down or nearest; see the file comment).
    Time Gap(uint32_t bytes, double now)
    {
        auto it = Times(bytes);
        const Rounded& r = it->second;
        const int sign = Ns2StepSign(bytes, m_rate.GetBitRate(), now);
        const int64_t target = sign > 0 ? r.up : (sign < 0 ? r.down : r.nearest);
        return Time(static_cast<int64_t>(target - r.nearest));
    }

    /// Finer than 1 ns: the gap for a transmission of `bytes` that starts at time step
    /// `nowStep`, from ns-2's clock of the busy period (Ns2BusyClock).
    Time FineGap(uint32_t bytes, int64_t nowStep)
    {
        const Rounded& r = Times(bytes)->second;
        const int64_t end = m_busyClock.End(bytes, m_rate.GetBitRate(), nowStep);
        return Time(static_cast<int64_t>(end - nowStep - r.nearest));
    }

  private:
    struct Rounded
    {
        int64_t nearest, down, up; // time steps
    };

    std::map<uint32_t, Rounded>::iterator Times(uint32_t bytes)
    {
        auto it = m_times.find(bytes);
        if (it == m_times.end())
        {
            const Time nearest = m_rate.CalculateBytesTxTime(bytes);
            // exact time in steps: 8 bytes steps-per-second / rate
            const unsigned __int128 num =
                8 * static_cast<unsigned __int128>(bytes) * uint64_t(m_stepsPerSecond);
            const auto down = int64_t(num / m_rate.GetBitRate());
            const int64_t up = down + (num % m_rate.GetBitRate() != 0 ? 1 : 0);
            it = m_times.emplace(bytes, Rounded{nearest.GetTimeStep(), down, up}).first;
        }
        return it;
    }

    void OnTxBegin(Ptr<const Packet> p)
    {
        // ns-2's time for the frame's wire bytes, against ns-3's rounding of those bytes;
        // then as much sooner as ns-3's own frame is longer (link_header.h)
        const uint32_t bytes = m_shortening.WireBytes(p->GetSize());
        const Time gap = (m_stepsPerSecond > 1000000000
                              ? FineGap(bytes, Simulator::Now().GetTimeStep())
                              : Gap(bytes, Simulator::Now().GetSeconds())) -
                         m_shortening.Of(p->GetSize());
        if (gap != m_gap)
        {
            m_dev->SetInterframeGap(gap);
            m_gap = gap;
        }
    }

    Ptr<PointToPointNetDevice> m_dev;
    DataRate m_rate;
    int64_t m_stepsPerSecond = 0;
    Time m_gap{0};
    std::map<uint32_t, Rounded> m_times; // per packet size
    FrameShortening m_shortening;         // link_header "none"
    Ns2BusyClock m_busyClock; // finer than 1 ns
};

} // namespace aqmlab
