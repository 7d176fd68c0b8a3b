// aqmlab/engines/ns3/cpp/ns2_event_clock.h -- ns-2.35's double-precision event clock on
// ns-3's integer one (run event_clock = "ns2"; aqmlab/scenario/spec.py says why it matters).
//
// ns-2.35 keeps time in doubles: every event it schedules is due at fl(clock_ + delay), the
// sum rounded to a multiple of the current time's ulp (0.11 ps from 512 s on). ns-3 adds
// integer time steps exactly. Where two events coincide in exact arithmetic (a deterministic
// set-up puts every time on one lattice of link times and timer periods: Pentikousis' 10
// clients, a 1-s retransmission timer and another flow's ACK at 514.055 s), ns-3 runs them in
// the order they were scheduled and ns-2.35 in the order its roundings give them; from then
// on the runs differ. Ns2ClockSimulatorImpl keeps, for every time step an event is due at,
// the double ns-2.35 would have computed, and schedules each event at the step nearest
// fl(now + delay), now being that double: ns-2's arithmetic, to half a step (1 fs).
//
// A link's two events per packet take their doubles from the transmission itself
// (Ns2LinkClock, at the device's PhyTxBegin): the end of the transmission at
// fl(start + txt) and the arrival at the far end at fl(start + fl(txt + delay)), txt =
// 8 size / rate (LinkDelay::recv); ns-3's own delays (its nearest-step transmission time)
// would differ from those sums by a fraction of a step before the rounding.
#pragma once
#include "ns3/core-module.h"
#include "ns3/default-simulator-impl.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <cmath>
#include <cstdint>
#include <unordered_map>

namespace aqmlab
{
using namespace ns3;

/// The step nearest `t` seconds (a non-negative double) on a clock of `perSecond` steps.
inline int64_t
Ns2ClockSteps(double t, int64_t perSecond)
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

class Ns2ClockSimulatorImpl : public DefaultSimulatorImpl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::Ns2ClockSimulatorImpl")
                                .SetParent<DefaultSimulatorImpl>()
                                .SetGroupName("aqmlab")
                                .AddConstructor<Ns2ClockSimulatorImpl>();
        return tid;
    }

    /// The simulator of this run when it is one (event_clock "ns2"), else nullptr.
    static Ns2ClockSimulatorImpl* Current()
    {
        return s_current;
    }

    Ns2ClockSimulatorImpl()
    {
        s_current = this;
    }

    ~Ns2ClockSimulatorImpl() override
    {
        if (s_current == this)
        {
            s_current = nullptr;
        }
    }

    EventId Schedule(const Time& delay, EventImpl* event) override
    {
        return DefaultSimulatorImpl::Schedule(Due(delay), event);
    }

    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override
    {
        DefaultSimulatorImpl::ScheduleWithContext(context, Due(delay), event);
    }

    /// ns-2's double for the current time: the one its event was scheduled at, else the
    /// double nearest the step (the start, or a step no rounded event was due at).
    double NowDouble()
    {
        const int64_t now = Now().GetTimeStep();
        if (now != m_nowStep)
        {
            m_nowStep = now;
            auto it = m_due.find(now);
            m_nowDouble = it != m_due.end()
                              ? it->second
                              : double(static_cast<long double>(now) / PerSecond());
        }
        return m_nowDouble;
    }

    /// The next event scheduled from this step with a delay of `delaySteps` is due at the
    /// double `due` (a link's exact sums; at most two pending, per transmission).
    void Hint(int64_t delaySteps, double due)
    {
        const int64_t now = Now().GetTimeStep();
        if (m_hintStep != now)
        {
            m_hintStep = now;
            m_hints = 0;
        }
        if (m_hints < 2)
        {
            m_hint[m_hints++] = {delaySteps, due};
        }
    }

    int64_t PerSecond()
    {
        if (!m_perSecond)
        {
            m_perSecond = Seconds(1).GetTimeStep();
        }
        return m_perSecond;
    }

  private:
    /// The delay that puts an event scheduled now `delay` later at ns-2's double.
    Time Due(const Time& delay)
    {
        const int64_t d = delay.GetTimeStep();
        if (d <= 0)
        {
            return delay; // now: ns-2's clock_ + 0 is clock_
        }
        const int64_t now = Now().GetTimeStep();
        double due = 0;
        bool hinted = false;
        if (m_hintStep == now)
        {
            for (int i = 0; i < m_hints; ++i)
            {
                if (m_hint[i].delay == d)
                {
                    due = m_hint[i].due;
                    m_hint[i] = m_hint[--m_hints];
                    hinted = true;
                    break;
                }
            }
        }
        if (!hinted)
        {
            const double delayS = double(static_cast<long double>(d) / PerSecond());
            volatile double sum = NowDouble() + delayS; // Scheduler::schedule: clock_ + delay
            due = sum;
        }
        int64_t step = Ns2ClockSteps(due, PerSecond());
        if (step <= now)
        {
            step = now + 1; // a later double never runs before now
        }
        Remember(step, due);
        return TimeStep(step - now);
    }

    void Remember(int64_t step, double due)
    {
        m_due.emplace(step, due); // the first double due at a step keeps it
        if (m_due.size() >= m_pruneAt)
        {
            const int64_t now = Now().GetTimeStep();
            for (auto it = m_due.begin(); it != m_due.end();)
            {
                it = it->first < now ? m_due.erase(it) : std::next(it);
            }
            m_pruneAt = std::max<size_t>(4096, 2 * m_due.size());
        }
    }

    struct HintRec
    {
        int64_t delay;
        double due;
    };

    inline static Ns2ClockSimulatorImpl* s_current = nullptr;
    std::unordered_map<int64_t, double> m_due; // step -> ns-2's double of events due then
    size_t m_pruneAt = 4096;
    int64_t m_perSecond = 0;
    int64_t m_nowStep = -1;
    double m_nowDouble = 0;
    int64_t m_hintStep = -1;
    int m_hints = 0;
    HintRec m_hint[2] = {};
};

/// Makes the next simulator (after Simulator::Destroy) ns-2's event clock or ns-3's own.
inline void
UseEventClock(const std::string& mode)
{
    if (mode != "exact" && mode != "ns2")
    {
        throw std::invalid_argument("event_clock must be exact or ns2, not " + mode);
    }
    const std::string type =
        mode == "ns2" ? "aqmlab::Ns2ClockSimulatorImpl" : "ns3::DefaultSimulatorImpl";
    Ns2ClockSimulatorImpl::GetTypeId(); // registered before it is named
    GlobalValue::Bind("SimulatorImplementationType", StringValue(type));
    // ResetGlobals' singletons (Names, ...) may have started a simulator of the other type
    // since its Simulator::Destroy: start the next one afresh
    if (Simulator::GetImplementation()->GetInstanceTypeId().GetName() != type)
    {
        Simulator::Destroy();
    }
}

/// A point-to-point device's transmissions on ns-2's clock: at PhyTxBegin (before the device
/// schedules the end and the channel the arrival) it hints both doubles to the simulator.
class Ns2LinkClock : public SimpleRefCount<Ns2LinkClock>
{
  public:
    explicit Ns2LinkClock(Ptr<PointToPointNetDevice> dev)
        : m_dev(dev)
    {
        DataRateValue rate;
        dev->GetAttribute("DataRate", rate);
        m_rate = rate.Get();
        TimeValue delay;
        dev->GetChannel()->GetAttribute("Delay", delay);
        m_delaySteps = delay.Get().GetTimeStep();
        m_delayS = double(static_cast<long double>(m_delaySteps) / Seconds(1).GetTimeStep());
    }

    static void Install(const NetDeviceContainer& devs)
    {
        for (uint32_t i = 0; i < devs.GetN(); ++i)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(devs.Get(i));
            if (dev)
            {
                Ptr<Ns2LinkClock> clock = Create<Ns2LinkClock>(dev);
                dev->TraceConnectWithoutContext("PhyTxBegin",
                                                MakeCallback(&Ns2LinkClock::OnTxBegin, clock));
            }
        }
    }

  private:
    void OnTxBegin(Ptr<const Packet> p)
    {
        Ns2ClockSimulatorImpl* sim = Ns2ClockSimulatorImpl::Current();
        if (!sim)
        {
            return;
        }
        const uint32_t bytes = p->GetSize();
        const int64_t txSteps = m_rate.CalculateBytesTxTime(bytes).GetTimeStep();
        const double start = sim->NowDouble();
        const double txt = 8. * bytes / double(m_rate.GetBitRate()); // LinkDelay::txtime
        volatile double end = start + txt;          // s.schedule(h, &intr_, txt)
        volatile double path = txt + m_delayS;      // txt + delay_
        volatile double arrival = start + path;     // s.schedule(target_, p, txt + delay_)
        sim->Hint(txSteps, end); // no InterframeGap: Ns2TxClock is not installed with it
        sim->Hint(txSteps + m_delaySteps, arrival);
    }

    Ptr<PointToPointNetDevice> m_dev;
    DataRate m_rate;
    int64_t m_delaySteps = 0;
    double m_delayS = 0;
};

} // namespace aqmlab
