// aqmlab/engines/ns3/cpp/ns2_ecn_red_queue_disc.h -- RED with two of ns-2's rules: which
// ECN-capable packets are marked, and the count reset after a forced drop.
//
// ns-2's red.cc (the one the papers ran) marks an ECN-capable packet it picks only while
// the average queue is below max_th; in the gentle region (max_th <= avg < 2 max_th) the
// packet is dropped like any other. ns-3's RedQueueDisc marks it there too, so under
// heavy load an ECN queue stays full of marked data while non-ECN packets (SYNs, pure
// ACKs) are dropped (Weigle et al. 2005, Sec. 2.3; notes A.7.3).
//
// Ns2EcnRedQueueDisc wraps an ns-3 RedQueueDisc as its only child and leaves everything
// to it except that one rule: before each arrival it computes the average the child is
// about to compute (the same EWMA, with the same idle-time decay) and, when that is at or
// above max_th, switches the child's UseEcn off for this one arrival, so the child drops
// where it would have marked. RedQueueDisc has no accessor for its average, so its
// private state is read through explicit template instantiation, which C++ exempts from
// access checking ([temp.spec.general]/6); a changed ns-3 fails to compile here rather
// than misbehave. After each arrival the prediction is checked against the child's own
// average and a disagreement aborts the run (it would mean the rule was applied wrongly).
// Rule "mark" leaves marking to the child (ns-3's rule) and predicts nothing.
//
// Rule "mark_p" (attribute Rule) is ns-2.35's own: an ECN-capable packet that RED's early
// test picks is marked only while the test's probability before the count correction
// (red.cc drop_early(): v_prob1, calculate_p_new() with the current max_p) is below
// mark_p_ (attribute MarkP, default 0.1), and dropped otherwise (red.cc, use_mark_p_). With
// ARED, whose max_p adapts past 0.1, most ECN-capable packets it picks are then dropped.
// The wrapper predicts that probability too: the average, then max_p as ARED's update at
// this arrival will leave it (RedQueueDisc::Estimator calls UpdateMaxP before the test),
// then RedQueueDisc::CalculatePNew's formula; after the arrival both predictions are
// checked against the child's state.
//
// CountReset (attribute, default false = ns-3's behaviour): ns-2.35's REDQueue::enque
// sets edv_.count and edv_.count_bytes to 0 after every forced drop unless ns1_compat_ is
// set (default 0; "bug-fix from Philip Liu"): forced drops are those with the average at
// or above max_th (2 max_th with gentle) and those of a full queue (qlen >= qlim). ns-3's
// RedQueueDisc::DoEnqueue resets m_count/m_countBytes after the first kind only with its
// Ns1Compat attribute true (default false; Ns1Compat changes nothing else), and never
// after its internal queue's overflow drop. So ns-3 keeps counting through forced drops,
// and the early-drop probability after them (p / (1 - count p), or p / (2 - count p) with
// wait) is higher. With CountReset the wrapper zeroes the child's m_count and
// m_countBytes whenever the child's Enqueue returns false: after a forced or overflow
// drop that is ns-2's reset, and after an early drop RedQueueDisc::DropEarly has already
// zeroed both (as ns-2's drop_early does), so every drop leaves the count at 0 as in ns-2.
//
// Drops and marks reach the parent's traces with ns-3's "(Dropped by child queue disc) "
// / "(Marked by child queue disc) " prefixes, which the probes' reason matching accepts.
// Configured by Experiment::InstallQueue (mapping.py: RED attributes plus the type name).
#pragma once
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/red-queue-disc.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace aqmlab
{
using namespace ns3;

namespace red_state
{
/// Tag -> pointer-to-private-member of RedQueueDisc, bound by the instantiations below.
template <typename Tag, typename Tag::type Member>
struct Bind
{
    friend typename Tag::type Get(Tag)
    {
        return Member;
    }
};

// clang-format off
struct QAvg     { using type = double RedQueueDisc::*;   friend type Get(QAvg); };
struct MaxTh    { using type = double RedQueueDisc::*;   friend type Get(MaxTh); };
struct QW       { using type = double RedQueueDisc::*;   friend type Get(QW); };
struct Ptc      { using type = double RedQueueDisc::*;   friend type Get(Ptc); };
struct Idle     { using type = uint32_t RedQueueDisc::*; friend type Get(Idle); };
struct IdleTime { using type = Time RedQueueDisc::*;     friend type Get(IdleTime); };
struct UseEcn   { using type = bool RedQueueDisc::*;     friend type Get(UseEcn); };
struct MinTh    { using type = double RedQueueDisc::*;   friend type Get(MinTh); };
struct CurMaxP  { using type = double RedQueueDisc::*;   friend type Get(CurMaxP); };
struct VA       { using type = double RedQueueDisc::*;   friend type Get(VA); };
struct VB       { using type = double RedQueueDisc::*;   friend type Get(VB); };
struct VC       { using type = double RedQueueDisc::*;   friend type Get(VC); };
struct VD       { using type = double RedQueueDisc::*;   friend type Get(VD); };
struct Gentle   { using type = bool RedQueueDisc::*;     friend type Get(Gentle); };
struct NonLin   { using type = bool RedQueueDisc::*;     friend type Get(NonLin); };
struct AdaptP   { using type = bool RedQueueDisc::*;     friend type Get(AdaptP); };
struct LastSet  { using type = Time RedQueueDisc::*;     friend type Get(LastSet); };
struct Interval { using type = Time RedQueueDisc::*;     friend type Get(Interval); };
struct Top      { using type = double RedQueueDisc::*;   friend type Get(Top); };
struct Bottom   { using type = double RedQueueDisc::*;   friend type Get(Bottom); };
struct Alpha    { using type = double RedQueueDisc::*;   friend type Get(Alpha); };
struct Beta     { using type = double RedQueueDisc::*;   friend type Get(Beta); };
struct Count    { using type = uint32_t RedQueueDisc::*; friend type Get(Count); };
struct CountB   { using type = uint32_t RedQueueDisc::*; friend type Get(CountB); };
struct Old      { using type = uint32_t RedQueueDisc::*; friend type Get(Old); };
struct VProb    { using type = double RedQueueDisc::*;   friend type Get(VProb); };
struct HardDrop { using type = bool RedQueueDisc::*;     friend type Get(HardDrop); };
struct Ns1      { using type = bool RedQueueDisc::*;     friend type Get(Ns1); };
struct Cautious { using type = uint32_t RedQueueDisc::*; friend type Get(Cautious); };
struct Uv       { using type = Ptr<UniformRandomVariable> RedQueueDisc::*; friend type Get(Uv); };
struct EstimatorF
{
    using type = double (RedQueueDisc::*)(uint32_t, uint32_t, double, double);
    friend type Get(EstimatorF);
};
struct DropEarlyF
{
    using type = bool (RedQueueDisc::*)(Ptr<QueueDiscItem>, uint32_t);
    friend type Get(DropEarlyF);
};
// clang-format on

template struct Bind<QAvg, &RedQueueDisc::m_qAvg>;
template struct Bind<MaxTh, &RedQueueDisc::m_maxTh>;
template struct Bind<QW, &RedQueueDisc::m_qW>;
template struct Bind<Ptc, &RedQueueDisc::m_ptc>;
template struct Bind<Idle, &RedQueueDisc::m_idle>;
template struct Bind<IdleTime, &RedQueueDisc::m_idleTime>;
template struct Bind<UseEcn, &RedQueueDisc::m_useEcn>;
template struct Bind<MinTh, &RedQueueDisc::m_minTh>;
template struct Bind<CurMaxP, &RedQueueDisc::m_curMaxP>;
template struct Bind<VA, &RedQueueDisc::m_vA>;
template struct Bind<VB, &RedQueueDisc::m_vB>;
template struct Bind<VC, &RedQueueDisc::m_vC>;
template struct Bind<VD, &RedQueueDisc::m_vD>;
template struct Bind<Gentle, &RedQueueDisc::m_isGentle>;
template struct Bind<NonLin, &RedQueueDisc::m_isNonlinear>;
template struct Bind<AdaptP, &RedQueueDisc::m_isAdaptMaxP>;
template struct Bind<LastSet, &RedQueueDisc::m_lastSet>;
template struct Bind<Interval, &RedQueueDisc::m_interval>;
template struct Bind<Top, &RedQueueDisc::m_top>;
template struct Bind<Bottom, &RedQueueDisc::m_bottom>;
template struct Bind<Alpha, &RedQueueDisc::m_alpha>;
template struct Bind<Beta, &RedQueueDisc::m_beta>;
template struct Bind<Count, &RedQueueDisc::m_count>;
template struct Bind<CountB, &RedQueueDisc::m_countBytes>;
template struct Bind<Old, &RedQueueDisc::m_old>;
template struct Bind<VProb, &RedQueueDisc::m_vProb>;
template struct Bind<HardDrop, &RedQueueDisc::m_useHardDrop>;
template struct Bind<Ns1, &RedQueueDisc::m_isNs1Compat>;
template struct Bind<Cautious, &RedQueueDisc::m_cautious>;
template struct Bind<Uv, &RedQueueDisc::m_uv>;
template struct Bind<EstimatorF, &RedQueueDisc::Estimator>;
template struct Bind<DropEarlyF, &RedQueueDisc::DropEarly>;
} // namespace red_state

/// RedQueueDisc measuring the queue as ns-2's REDQueue does (``measured_queue =
/// "waiting"``): the packets waiting for the link, the one in the device's 1-packet queue
/// included, and idle time from the end of the last transmission.
///
/// ns-2.35's REDQueue::enque averages q_->length(), every packet waiting (the one on the
/// wire is not in the queue), allows an early drop only with qlen > 1, and counts idle time
/// from the deque() that finds the queue empty, i.e. from the end of the last
/// transmission. ns-3's RedQueueDisc::DoEnqueue sees only its own packets: one of the
/// waiting packets sits in the device queue whenever the disc is not empty, so with
/// thresholds one packet lower its averages match ns-2's while packets wait, but (1) its
/// nQueued > 1 needs three waiting packets where ns-2 needs two, and (2) it counts the
/// disc idle from the first dequeue that finds the disc empty, which happens while the
/// device still holds or sends a packet, and the time until the next arrival decays the
/// average as idle time although the link was busy. At a queue of a few packets both
/// lower the early tests: Pentikousis' aggressive RED at limit 8 made about half of
/// ns-2.35's early decisions.
///
/// This class replaces DoEnqueue with RedQueueDisc's own algorithm (same statements, same
/// random stream, its private state and functions reached as in the wrapper above) on
/// ns-2's measure: nQueued = disc + device-queue packets, and idle set at the device's
/// transmission end when nothing waits (PhyTxEnd with an empty device queue; a non-empty
/// disc always keeps the device queue filled). Thresholds and limit are then ns-2's
/// (red.py passes them unlowered; the disc still gets limit - 1).
///
/// ForcedRegion false (``forced_region = "early_test"``) is ns-2.35's default RED: with
/// use_mark_p_ 1 (ns-default.tcl, true since December 2005) REDQueue::enque skips its forced
/// test, so at or above max_th (2 max_th with gentle) an arrival still takes the early
/// branches: the first one after the queue held at most one packet passes (old == 0), the
/// others go through drop_early with p = 1, which draws a random number and zeroes the
/// count. RedQueueDisc (and ns-2 before use_mark_p_) drops them all as forced, drawing
/// nothing: RED-3 of Qiu's T1 (100 flows, seed 1) parted from ns-2.35 at 0.890565 s, where
/// flow 56's first segment arrived with 2 waiting after 1 and an average of 37.65.
class Ns2RedQueueDisc : public RedQueueDisc
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::Ns2RedQueueDisc")
                .SetParent<RedQueueDisc>()
                .SetGroupName("TrafficControl")
                .AddConstructor<Ns2RedQueueDisc>()
                .AddAttribute("ForcedRegion",
                              "Drop every arrival at or above max_th (2 max_th with gentle) "
                              "as RedQueueDisc does; false: the early test decides there "
                              "too, with p = 1 (ns-2.35's use_mark_p_ 1)",
                              BooleanValue(true),
                              MakeBooleanAccessor(&Ns2RedQueueDisc::m_forcedRegion),
                              MakeBooleanChecker());
        return tid;
    }

    /// The device whose queue holds the one waiting packet and whose transmissions end
    /// idle periods.
    void SetDevice(Ptr<PointToPointNetDevice> dev)
    {
        m_devq = dev->GetQueue();
        dev->TraceConnectWithoutContext("PhyTxEnd",
                                        MakeCallback(&Ns2RedQueueDisc::OnTxEnd, this));
    }

    /// ns-2's queue length at an arrival: disc + device queue packets (byte mode: their
    /// bytes, the device's without its 2-byte PPP headers).
    uint32_t Waiting() const
    {
        Ptr<const InternalQueue> q = GetInternalQueue(0);
        const uint32_t dev = m_devq ? m_devq->GetNPackets() : 0;
        if (q->GetMaxSize().GetUnit() == QueueSizeUnit::BYTES)
        {
            return q->GetNBytes() + (m_devq ? m_devq->GetNBytes() - 2 * dev : 0);
        }
        return q->GetNPackets() + dev;
    }

    /// Packets ns-2 would count as arrived during the idle period (m), 0 if not idle.
    uint32_t IdleArrivals() const
    {
        using namespace red_state;
        if (!m_linkIdle)
        {
            return 0;
        }
        const RedQueueDisc& r = *this;
        return uint32_t(r.*Get(Ptc{}) * (Simulator::Now() - m_linkIdleSince).GetSeconds());
    }

  private:
    void OnTxEnd(Ptr<const Packet>)
    {
        if (m_devq->IsEmpty() && GetInternalQueue(0)->IsEmpty())
        {
            m_linkIdle = true;
            m_linkIdleSince = Simulator::Now();
        }
    }

    bool DoEnqueue(Ptr<QueueDiscItem> item) override
    {
        using namespace red_state;
        RedQueueDisc& r = *this;
        NS_ABORT_MSG_IF(r.*Get(Cautious{}) != 0, "Ns2RedQueueDisc: cautious must be 0");
        const uint32_t nQueued = Waiting();
        const uint32_t m = IdleArrivals();
        m_linkIdle = false;
        double& qAvg = r.*Get(QAvg{});
        qAvg = (r.*Get(EstimatorF{}))(nQueued, m + 1, qAvg, r.*Get(QW{}));

        uint32_t& count = r.*Get(Count{});
        uint32_t& countBytes = r.*Get(CountB{});
        uint32_t& old = r.*Get(Old{});
        count++;
        countBytes += item->GetSize();

        const double minTh = r.*Get(MinTh{});
        const double maxTh = r.*Get(MaxTh{});
        const bool gentle = r.*Get(Gentle{});
        uint32_t dropType = DTYPE_NONE;
        const bool aboveForced = (!gentle && qAvg >= maxTh) || (gentle && qAvg >= 2 * maxTh);
        if (qAvg >= minTh && nQueued > 1)
        {
            if (aboveForced && m_forcedRegion)
            {
                dropType = DTYPE_FORCED;
            }
            else if (old == 0)
            {
                count = 1;
                countBytes = item->GetSize();
                old = 1;
            }
            else if ((r.*Get(DropEarlyF{}))(item, nQueued))
            {
                dropType = DTYPE_UNFORCED;
            }
        }
        else
        {
            r.*Get(VProb{}) = 0.0;
            old = 0;
        }

        const bool ecn = r.*Get(UseEcn{});
        if (dropType == DTYPE_UNFORCED)
        {
            // without a forced region, a packet picked above it is marked only where the
            // forced region would mark it (hard_drop off)
            const bool mayMark = ecn && !(aboveForced && r.*Get(HardDrop{}));
            if (!mayMark || !Mark(item, UNFORCED_MARK))
            {
                DropBeforeEnqueue(item, UNFORCED_DROP);
                return false;
            }
        }
        else if (dropType == DTYPE_FORCED)
        {
            if (r.*Get(HardDrop{}) || !ecn || !Mark(item, FORCED_MARK))
            {
                DropBeforeEnqueue(item, FORCED_DROP);
                if (r.*Get(Ns1{}))
                {
                    count = 0;
                    countBytes = 0;
                }
                return false;
            }
        }
        return GetInternalQueue(0)->Enqueue(item);
    }

    void DoDispose() override
    {
        m_devq = nullptr;
        RedQueueDisc::DoDispose();
    }

    Ptr<Queue<Packet>> m_devq;
    bool m_forcedRegion{true};
    bool m_linkIdle{true};
    Time m_linkIdleSince{Seconds(0)};
};

class Ns2EcnRedQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::Ns2EcnRedQueueDisc")
                .SetParent<QueueDisc>()
                .SetGroupName("TrafficControl")
                .AddAttribute("Rule",
                              "\"drop\": mark only while the average is below max_th; "
                              "\"mark_p\": mark only while the early-drop probability "
                              "(before the count correction) is below MarkP (ns-2.35); "
                              "\"mark\": the child's own rule (ns-3)",
                              StringValue("drop"),
                              MakeStringAccessor(&Ns2EcnRedQueueDisc::m_rule),
                              MakeStringChecker())
                .AddAttribute("MarkP",
                              "ns-2's mark_p_ for the \"mark_p\" rule",
                              DoubleValue(0.1),
                              MakeDoubleAccessor(&Ns2EcnRedQueueDisc::m_markP),
                              MakeDoubleChecker<double>(0.0, 1.0))
                .AddAttribute("CountReset",
                              "Zero the child's count and count bytes after each drop "
                              "(ns-2's reset after a forced drop, ns1_compat_ 0)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&Ns2EcnRedQueueDisc::m_countReset),
                              MakeBooleanChecker());
        return tid;
    }

    Ns2EcnRedQueueDisc()
        : QueueDisc(QueueDiscSizePolicy::NO_LIMITS)
    {
    }

    /// Attach the configured (not yet initialised) RED queue disc as the only child.
    void Configure(Ptr<RedQueueDisc> red)
    {
        m_red = red;
        m_ns2 = DynamicCast<Ns2RedQueueDisc>(red);
        Ptr<QueueDiscClass> c = CreateObject<QueueDiscClass>();
        c->SetQueueDisc(red);
        AddQueueDiscClass(c);
    }

  private:
    /// The average RedQueueDisc::DoEnqueue is about to compute for the next arrival.
    double PredictAverage() const
    {
        using namespace red_state;
        const RedQueueDisc& r = *m_red;
        double nQueued = 0; // on the child's measure: ns-2's waiting packets or its own
        uint32_t m = 0;     // arrivals RED counts for the idle period
        if (m_ns2)
        {
            nQueued = m_ns2->Waiting();
            m = m_ns2->IdleArrivals();
        }
        else
        {
            nQueued = r.GetInternalQueue(0)->GetCurrentSize().GetValue();
            if (r.*Get(Idle{}) == 1)
            {
                m = uint32_t(r.*Get(Ptc{}) *
                             (Simulator::Now() - r.*Get(IdleTime{})).GetSeconds());
            }
        }
        double avg = r.*Get(QAvg{}) * std::pow(1.0 - r.*Get(QW{}), m + 1);
        avg += r.*Get(QW{}) * nQueued;
        return avg;
    }

    /// max_p as RedQueueDisc::Estimator will leave it at this arrival (ARED's UpdateMaxP).
    double PredictMaxP(double avg) const
    {
        using namespace red_state;
        const RedQueueDisc& r = *m_red;
        double p = r.*Get(CurMaxP{});
        if (!((r.*Get(AdaptP{})) && Simulator::Now() > (r.*Get(LastSet{})) + (r.*Get(Interval{}))))
        {
            return p;
        }
        const double minTh = r.*Get(MinTh{});
        const double maxTh = r.*Get(MaxTh{});
        const double part = 0.4 * (maxTh - minTh);
        if (avg < minTh + part && p > (r.*Get(Bottom{})))
        {
            p *= r.*Get(Beta{});
        }
        else if (avg > maxTh - part && (r.*Get(Top{})) > p)
        {
            p += std::min(r.*Get(Alpha{}), 0.25 * p);
        }
        return p;
    }

    /// RedQueueDisc::CalculatePNew at average `avg` with max_p `maxP` (ns-2's v_prob1).
    double EarlyProbability(double avg, double maxP) const
    {
        using namespace red_state;
        const RedQueueDisc& r = *m_red;
        const double maxTh = r.*Get(MaxTh{});
        double p;
        if ((r.*Get(Gentle{})) && avg >= maxTh)
        {
            p = r.*Get(VC{}) * avg + r.*Get(VD{});
        }
        else if (!(r.*Get(Gentle{})) && avg >= maxTh)
        {
            p = 1.0;
        }
        else
        {
            p = r.*Get(VA{}) * avg + r.*Get(VB{});
            if ((r.*Get(NonLin{})))
            {
                p *= p * 1.5;
            }
            p *= maxP;
        }
        return std::min(p, 1.0);
    }

    bool DoEnqueue(Ptr<QueueDiscItem> item) override
    {
        using namespace red_state;
        RedQueueDisc& r = *m_red;
        const bool ok = m_rule == "mark" ? r.Enqueue(item) : EnqueueNs2Ecn(item);
        if (!ok && m_countReset)
        {
            r.*Get(Count{}) = 0;
            r.*Get(CountB{}) = 0;
        }
        return ok;
    }

    /// The child's Enqueue with UseEcn switched off for an arrival ns-2 would not mark.
    bool EnqueueNs2Ecn(Ptr<QueueDiscItem> item)
    {
        using namespace red_state;
        RedQueueDisc& r = *m_red;
        const double avg = PredictAverage();
        const double maxP = PredictMaxP(avg);
        const bool noMark = m_rule == "mark_p" ? EarlyProbability(avg, maxP) >= m_markP
                                               : avg >= r.*Get(MaxTh{});
        const bool off = r.*Get(UseEcn{}) && noMark;
        if (off)
        {
            r.*Get(UseEcn{}) = false;
        }
        const bool ok = r.Enqueue(item);
        if (off)
        {
            r.*Get(UseEcn{}) = true;
        }
        const double actual = r.*Get(QAvg{});
        NS_ABORT_MSG_IF((actual >= r.*Get(MaxTh{})) != (avg >= r.*Get(MaxTh{})) ||
                            std::abs(actual - avg) > 1e-9 * std::max(1.0, actual),
                        "Ns2EcnRedQueueDisc: predicted RED average " << avg << " but RED has "
                                                                     << actual);
        NS_ABORT_MSG_IF(std::abs(r.*Get(CurMaxP{}) - maxP) > 1e-12,
                        "Ns2EcnRedQueueDisc: predicted max_p " << maxP << " but RED has "
                                                               << r.*Get(CurMaxP{}));
        return ok;
    }

    Ptr<QueueDiscItem> DoDequeue() override
    {
        return m_red->Dequeue();
    }

    Ptr<const QueueDiscItem> DoPeek() override
    {
        return m_red->Peek();
    }

    bool CheckConfig() override
    {
        return m_red && GetNQueueDiscClasses() == 1 && GetNPacketFilters() == 0 &&
               GetNInternalQueues() == 0;
    }

    void InitializeParams() override
    {
        // RedQueueDisc::InitializeParams (run when the child initialises) sets cautious 0;
        // the prediction above assumes it.
    }

    void DoDispose() override
    {
        m_red = nullptr;
        m_ns2 = nullptr;
        QueueDisc::DoDispose();
    }

    Ptr<RedQueueDisc> m_red;
    Ptr<Ns2RedQueueDisc> m_ns2; // m_red measuring ns-2's waiting packets, or null
    std::string m_rule{"drop"};
    double m_markP{0.1};
    bool m_countReset{false};
};

} // namespace aqmlab
