// aqmlab/engines/ns3/cpp/ns2_ecn_red_queue_disc.h -- RED whose ECN marking follows ns-2.
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
//
// Drops and marks reach the parent's traces with ns-3's "(Dropped by child queue disc) "
// / "(Marked by child queue disc) " prefixes, which the probes' reason matching accepts.
// Configured by Experiment::InstallQueue (mapping.py: RED attributes plus the type name).
#pragma once
#include "ns3/internet-module.h"
#include "ns3/red-queue-disc.h"
#include "ns3/traffic-control-module.h"

#include <cmath>

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
// clang-format on

template struct Bind<QAvg, &RedQueueDisc::m_qAvg>;
template struct Bind<MaxTh, &RedQueueDisc::m_maxTh>;
template struct Bind<QW, &RedQueueDisc::m_qW>;
template struct Bind<Ptc, &RedQueueDisc::m_ptc>;
template struct Bind<Idle, &RedQueueDisc::m_idle>;
template struct Bind<IdleTime, &RedQueueDisc::m_idleTime>;
template struct Bind<UseEcn, &RedQueueDisc::m_useEcn>;
} // namespace red_state

class Ns2EcnRedQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::Ns2EcnRedQueueDisc")
                                .SetParent<QueueDisc>()
                                .SetGroupName("TrafficControl");
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
        const double nQueued = r.GetInternalQueue(0)->GetCurrentSize().GetValue();
        uint32_t m = 0;
        if (r.*Get(Idle{}) == 1)
        {
            m = uint32_t(r.*Get(Ptc{}) * (Simulator::Now() - r.*Get(IdleTime{})).GetSeconds());
        }
        double avg = r.*Get(QAvg{}) * std::pow(1.0 - r.*Get(QW{}), m + 1);
        avg += r.*Get(QW{}) * nQueued;
        return avg;
    }

    bool DoEnqueue(Ptr<QueueDiscItem> item) override
    {
        using namespace red_state;
        RedQueueDisc& r = *m_red;
        const double avg = PredictAverage();
        const bool above = r.*Get(UseEcn{}) && avg >= r.*Get(MaxTh{});
        if (above)
        {
            r.*Get(UseEcn{}) = false;
        }
        const bool ok = r.Enqueue(item);
        if (above)
        {
            r.*Get(UseEcn{}) = true;
        }
        const double actual = r.*Get(QAvg{});
        NS_ABORT_MSG_IF((actual >= r.*Get(MaxTh{})) != (avg >= r.*Get(MaxTh{})) ||
                            std::abs(actual - avg) > 1e-9 * std::max(1.0, actual),
                        "Ns2EcnRedQueueDisc: predicted RED average " << avg << " but RED has "
                                                                     << actual);
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
        QueueDisc::DoDispose();
    }

    Ptr<RedQueueDisc> m_red;
};

} // namespace aqmlab
