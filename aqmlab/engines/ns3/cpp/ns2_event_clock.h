// aqmlab/engines/ns3/cpp/ns2_event_clock.h -- ns-2.35's double-precision event clock on
// ns-3 (run event_clock = "ns2"; aqmlab/scenario/spec.py says why it matters).
//
// ns-2.35 keeps time in doubles: every event it schedules is due at fl(clock_ + delay), the
// sum rounded to a multiple of the current time's ulp (0.11 ps from 512 s on, 0.003 fs at
// 20 ms), and its calendar queue runs equal times first scheduled first. ns-3 adds integer
// time steps exactly. Where two events coincide in exact arithmetic (a deterministic set-up
// puts every time on one lattice of link times and timer periods: Pentikousis' 10 clients,
// a 1-s retransmission timer and another flow's ACK at 514.055 s), ns-3 runs them in the
// order they were scheduled and ns-2.35 in the order its roundings give them; from then on
// the runs differ. Ns2ClockSimulatorImpl is a simulator whose events are due at ns-2's
// doubles and run in their order; Now() is the femtosecond step nearest the running
// event's double, so the rest of ns-3 sees its usual clock.
//
// An event's double is fl(now + delay), with the delay's nearest double, except where the
// scheduler is told the exact sum (Hint): a link's two events per packet (Ns2LinkClock, at
// the device's PhyTxBegin: the end of the transmission at fl(start + txt) and the arrival
// at fl(start + fl(txt + delay)), txt = 8 size / rate, LinkDelay::recv) and a
// retransmission timer at fl(now + rto) with the RTO's own double (3 x 0.1 s is not a
// whole number of femtoseconds). ns-3's one-step delay (TCP's SendPendingData after an
// application's Send) is "now": ns-2 sends at once.
#pragma once
#include "event_heap.h"
#include "ns2_tx_clock.h"

#include "ns3/core-module.h"
#include "ns3/simulator-impl.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <list>
#include <vector>

namespace aqmlab
{
using namespace ns3;

/// A simulator whose clock is ns-2.35's: events are due at doubles and run in the order of
/// those doubles, first scheduled first among equal ones (ns-2's calendar queue is FIFO);
/// Now() is the time step nearest the running event's double. Before 8 s the doubles are
/// finer than a femtosecond, so ordering by step alone would run two events 0.003 fs apart
/// in the order they were scheduled (an ACK's arrival before the end of a transmission
/// that ns-2.35 ends 1 ulp earlier, Pentikousis' first round trip).
class Ns2ClockSimulatorImpl : public SimulatorImpl
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::Ns2ClockSimulatorImpl")
                                .SetParent<SimulatorImpl>()
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
        : m_perSecond(Seconds(1).GetTimeStep())
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

    void Destroy() override
    {
        while (!m_destroyEvents.empty())
        {
            Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
            m_destroyEvents.pop_front();
            if (!ev->IsCancelled())
            {
                ev->Invoke();
            }
        }
    }

    bool IsFinished() const override
    {
        return m_queue.Empty() || m_stop;
    }

    void Stop() override
    {
        m_stop = true;
    }

    EventId Stop(const Time& delay) override
    {
        return Simulator::Schedule(delay, static_cast<void (*)()>(&Simulator::Stop));
    }

    EventId Schedule(const Time& delay, EventImpl* event) override
    {
        const Entry e = Insert(Due(delay), event, m_context);
        return EventId(event, e.step, m_context, e.uid);
    }

    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override
    {
        Insert(Due(delay), event, context);
    }

    EventId ScheduleNow(EventImpl* event) override
    {
        if (m_inlineNext)
        {
            m_inlineNext = false;
            const uint32_t uid = TakeUid();
            m_inline.push_back({event, uid});
            return EventId(event, m_nowStep, m_context, uid);
        }
        const Entry e = Insert(m_nowDouble, event, m_context);
        return EventId(event, e.step, m_context, e.uid);
    }

    EventId ScheduleDestroy(EventImpl* event) override
    {
        EventId id(Ptr<EventImpl>(event, false), m_nowStep, 0xffffffff, EventId::UID::DESTROY);
        m_destroyEvents.push_back(id);
        return id;
    }

    void Remove(const EventId& id) override
    {
        if (id.GetUid() == EventId::UID::DESTROY)
        {
            for (auto i = m_destroyEvents.begin(); i != m_destroyEvents.end(); ++i)
            {
                if (*i == id)
                {
                    m_destroyEvents.erase(i);
                    break;
                }
            }
            return;
        }
        if (IsExpired(id))
        {
            return;
        }
        id.PeekEventImpl()->Cancel(); // left in the heap, skipped when it comes up
        Done(id.GetUid());
    }

    void Cancel(const EventId& id) override
    {
        if (!IsExpired(id))
        {
            id.PeekEventImpl()->Cancel();
        }
    }

    bool IsExpired(const EventId& id) const override
    {
        if (id.GetUid() == EventId::UID::DESTROY)
        {
            if (id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled())
            {
                return true;
            }
            for (const EventId& d : m_destroyEvents)
            {
                if (d == id)
                {
                    return false;
                }
            }
            return true;
        }
        return id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled() ||
               IsDone(id.GetUid());
    }

    void Run() override
    {
        m_stop = false;
        while (!m_queue.Empty() && !m_stop)
        {
            const Entry e = m_queue.Pop();
            if (IsDone(e.uid)) // removed
            {
                e.impl->Unref();
                continue;
            }
            Done(e.uid);
            m_nowDouble = e.due;
            m_nowStep = std::max(m_nowStep, e.step);
            m_currentUid = e.uid;
            m_context = e.context;
            m_eventCount++;
            e.impl->Invoke();
            e.impl->Unref();
            RunInline();
        }
    }

    Time Now() const override
    {
        return TimeStep(m_nowStep);
    }

    Time GetDelayLeft(const EventId& id) const override
    {
        return IsExpired(id) ? TimeStep(0) : TimeStep(int64_t(id.GetTs()) - m_nowStep);
    }

    Time GetMaximumSimulationTime() const override
    {
        return TimeStep(0x7fffffffffffffffLL);
    }

    void SetScheduler(ObjectFactory) override
    {
        // events are ordered by their doubles here, whatever scheduler is asked for
    }

    uint32_t GetSystemId() const override
    {
        return 0;
    }

    uint32_t GetContext() const override
    {
        return m_context;
    }

    uint64_t GetEventCount() const override
    {
        return m_eventCount;
    }

    /// ns-2's double for the current time (the running event's).
    double NowDouble() const
    {
        return m_nowDouble;
    }

    /// The running event's uid: events due at the same double run in uid order, which is
    /// scheduling order, as in ns-2's scheduler.
    uint32_t CurrentUid() const
    {
        return m_currentUid;
    }

    /// The uid the next scheduled event gets: the place in ns-2's order of an event that
    /// ns-2 would schedule now and ns-3 does not (a DelayBox arrival, Ns2Rng::Defer).
    uint32_t NextUid() const
    {
        return m_nextUid;
    }

    /// The next ScheduleNow of the running event is work ns-2 does within that event: it runs
    /// right after the running event returns, before any other event due now, as part of it
    /// (the running event's uid for the draws' order, Ns2Rng::CatchUp). A listener's fork
    /// (TcpSocketBase::ProcessListen schedules CompleteFork now) sends its SYN/ACK in the
    /// SYN's own event on ns-2 (FullTcpAgent::recv), so the SYN/ACK's arrival at the next node
    /// comes before those of packets that other events due now start sending; behind them,
    /// RED's draw for it at the router came after a DelayBox's draw due at the same double
    /// (Weigle's ARED 5 ms at 105 %, seed 1, 623.743410 s: the two early drops swapped).
    void RunNextNowInline()
    {
        m_inlineNext = true;
    }

    /// The next event scheduled from this event with a delay of `delaySteps` is due at the
    /// double `due` (a link's exact sums; at most two pending, per transmission).
    void Hint(int64_t delaySteps, double due)
    {
        Hint(delaySteps, due, HintRole::Plain);
    }

    /// A link's transmission (Ns2LinkClock): the end (`txSteps`, the device's
    /// TransmitComplete) and the arrival at the far node (the channel's Receive). ns-3
    /// schedules the end first, ns-2 the arrival (LinkDelay::recv: s.schedule(target_, p,
    /// txt + delay_), then s.schedule(h, &intr_, txt)), so the two swap places in the
    /// order of events due at the same time: the end gets the later uid. With a zero link
    /// delay both are due at once and the arrival runs first, as on ns-2.
    void HintTransmission(int64_t txSteps, double end, int64_t arrivalSteps, double arrival)
    {
        Hint(txSteps, end, HintRole::End);
        Hint(arrivalSteps, arrival, HintRole::Arrival);
    }

    /// Take back the hint for `delaySteps` (its double in `due`), if this event gave one.
    bool TakeHint(int64_t delaySteps, double* due)
    {
        if (m_hintUid != m_currentUid)
        {
            return false;
        }
        for (int i = 0; i < m_hints; ++i)
        {
            if (m_hint[i].delay == delaySteps)
            {
                *due = m_hint[i].due;
                m_hint[i] = m_hint[--m_hints];
                return true;
            }
        }
        return false;
    }

    /// Time steps from the double `from` to a release due at the double `due` (at least
    /// `minSteps`), hinted for the event scheduled `offsetSteps` plus those steps from now
    /// (a DelayBox's release: from now, or from a packet's arrival `offsetSteps` ahead).
    int64_t HintRelease(double from, double due, int64_t minSteps, int64_t offsetSteps = 0)
    {
        const int64_t steps =
            std::max<int64_t>(minSteps, std::llround((due - from) * double(m_perSecond)));
        Hint(offsetSteps + steps, due);
        return steps;
    }

    /// The next event scheduled from this event `delaySteps` later is due at
    /// fl(now + delayS): ns-2's sum with the delay's own double (a timer's RTO).
    void HintDelay(int64_t delaySteps, double delayS)
    {
        volatile double due = m_nowDouble + delayS;
        Hint(delaySteps, due);
    }

  protected:
    void DoDispose() override
    {
        m_queue.ForEach([](Entry& e) { e.impl->Unref(); });
        m_queue.Clear();
        SimulatorImpl::DoDispose();
    }

  private:
    struct Entry
    {
        double due;
        uint32_t uid;
        uint32_t context;
        int64_t step;
        EventImpl* impl;
    };

    struct Earlier
    {
        bool operator()(const Entry& a, const Entry& b) const
        {
            return a.due < b.due || (a.due == b.due && a.uid < b.uid);
        }
    };

    /// ns-2's double for an event scheduled now `delay` later: a hinted sum, else
    /// fl(now + delay) with the delay's nearest double.
    double Due(const Time& delay)
    {
        const int64_t d = delay.GetTimeStep();
        if (d <= 1)
        {
            // ns-2's clock_ + 0 is clock_; one step is ns-3's "after this event" (TCP's
            // SendPendingData after an application's Send), which ns-2 does at once
            return m_nowDouble;
        }
        if (m_hintUid == m_currentUid)
        {
            for (int i = 0; i < m_hints; ++i)
            {
                if (m_hint[i].delay == d)
                {
                    const double due = m_hint[i].due;
                    m_dueRole = m_hint[i].role;
                    m_hint[i] = m_hint[--m_hints];
                    return due;
                }
            }
        }
        const double delayS = double(static_cast<long double>(d) / m_perSecond);
        volatile double sum = m_nowDouble + delayS; // Scheduler::schedule: clock_ + delay
        return sum;
    }

    Entry Insert(double due, EventImpl* impl, uint32_t context)
    {
        const int64_t step = std::max(m_nowStep, Ns2Steps(due, m_perSecond));
        const Entry e{due, TakeUid(), context, step, impl};
        m_queue.Push(e);
        return e;
    }

    /// The uid of the event being inserted: the next one, except that a transmission's end
    /// whose arrival is still to be scheduled leaves the lower uid to that arrival
    /// (HintTransmission).
    uint32_t TakeUid()
    {
        const HintRole role = m_dueRole;
        m_dueRole = HintRole::Plain;
        if (role == HintRole::End && m_hintUid == m_currentUid && m_hints > 0 &&
            m_hint[0].role == HintRole::Arrival)
        {
            m_reservedUid = m_nextUid;
            m_reservedFor = m_currentUid;
            m_reserved = true;
            m_nextUid += 2;
            return m_reservedUid + 1;
        }
        if (role == HintRole::Arrival && m_reserved && m_reservedFor == m_currentUid)
        {
            m_reserved = false;
            return m_reservedUid;
        }
        return m_nextUid++;
    }

    /// The running event's inline work (RunNextNowInline), in the order it was scheduled.
    void RunInline()
    {
        for (size_t i = 0; i < m_inline.size(); ++i)
        {
            const auto [impl, uid] = m_inline[i];
            Done(uid);
            m_hints = 0; // the running event's hints were for its own schedules
            m_eventCount++;
            impl->Invoke();
            impl->Unref();
        }
        m_inline.clear();
    }

    void Done(uint32_t uid)
    {
        if (uid >= m_done.size())
        {
            m_done.resize(std::max<size_t>(uid + 1, 2 * m_done.size()), false);
        }
        m_done[uid] = true;
    }

    bool IsDone(uint32_t uid) const
    {
        return uid < m_done.size() && m_done[uid];
    }

    enum class HintRole : uint8_t
    {
        Plain,
        End,     // a transmission's end (HintTransmission)
        Arrival, // its arrival at the far node
    };

    struct HintRec
    {
        int64_t delay;
        double due;
        HintRole role;
    };

    void Hint(int64_t delaySteps, double due, HintRole role)
    {
        if (m_hintUid != m_currentUid)
        {
            m_hintUid = m_currentUid;
            m_hints = 0;
        }
        if (m_hints < 2)
        {
            m_hint[m_hints++] = {delaySteps, due, role};
        }
    }

    inline static Ns2ClockSimulatorImpl* s_current = nullptr;
    int64_t m_perSecond;
    /// 2^-11 s (~0.49 ms) buckets of the due double: never decreasing along Earlier.
    struct DueBucket
    {
        uint64_t operator()(const Entry& e) const
        {
            return static_cast<uint64_t>(e.due * 2048.0);
        }
    };

    BucketQueueOf<Entry, Earlier, DueBucket> m_queue; // earliest (due, uid) first
    std::vector<bool> m_done;   // by uid: run or removed
    std::list<EventId> m_destroyEvents;
    double m_nowDouble = 0;
    int64_t m_nowStep = 0;
    uint32_t m_nextUid = EventId::UID::VALID;
    uint32_t m_currentUid = 0;
    uint32_t m_context = 0xffffffff;
    uint64_t m_eventCount = 0;
    bool m_stop = false;
    uint32_t m_hintUid = 0;
    int m_hints = 0;
    HintRec m_hint[2] = {};
    HintRole m_dueRole = HintRole::Plain; // of the hint Due() took for the next Insert
    bool m_reserved = false;              // m_reservedUid waits for its arrival
    uint32_t m_reservedUid = 0;
    uint32_t m_reservedFor = 0;           // the event that reserved it
    bool m_inlineNext = false;            // RunNextNowInline: the next ScheduleNow
    std::vector<std::pair<EventImpl*, uint32_t>> m_inline; // run after the running event
};

/// On ns-2's event clock, the next event scheduled `delay` from now is due at
/// fl(now + delayS) (a no-op on ns-3's own clock).
inline void
Ns2ClockDelay(const Time& delay, double delayS)
{
    if (Ns2ClockSimulatorImpl* sim = Ns2ClockSimulatorImpl::Current())
    {
        sim->HintDelay(delay.GetTimeStep(), delayS);
    }
}

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
    Ns2LinkClock(Ptr<PointToPointNetDevice> dev, uint32_t trim)
    {
        DataRateValue rate;
        dev->GetAttribute("DataRate", rate);
        m_rate = rate.Get();
        m_shortening = FrameShortening(m_rate, trim);
        TimeValue delay;
        dev->GetChannel()->GetAttribute("Delay", delay);
        m_delaySteps = delay.Get().GetTimeStep();
        m_delayS = double(static_cast<long double>(m_delaySteps) / Seconds(1).GetTimeStep());
    }

    /// Install on every point-to-point device of `devs`, for frames `trim` bytes shorter on
    /// the wire (link_header.h: HeaderlessTx starts the next frame that much sooner).
    static void Install(const NetDeviceContainer& devs, uint32_t trim = 0)
    {
        for (uint32_t i = 0; i < devs.GetN(); ++i)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(devs.Get(i));
            if (dev)
            {
                Ptr<Ns2LinkClock> clock = Create<Ns2LinkClock>(dev, trim);
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
        const uint32_t bytes = m_shortening.WireBytes(p->GetSize());
        const int64_t txSteps = m_rate.CalculateBytesTxTime(bytes).GetTimeStep();
        const double start = sim->NowDouble();
        const double txt = 8. * bytes / double(m_rate.GetBitRate()); // LinkDelay::txtime
        volatile double end = start + txt;          // s.schedule(h, &intr_, txt)
        volatile double path = txt + m_delayS;      // txt + delay_
        volatile double arrival = start + path;     // s.schedule(target_, p, txt + delay_)
        // no InterframeGap: Ns2TxClock is not installed with it
        sim->HintTransmission(txSteps, end, txSteps + m_delaySteps, arrival);
    }

    DataRate m_rate;
    FrameShortening m_shortening; // link_header "none": the frame's bytes on the wire
    int64_t m_delaySteps = 0;
    double m_delayS = 0;
};

} // namespace aqmlab
