// aqmlab/engines/ns3/cpp/ns2_rng.h -- ns-2.35's default random stream, shared at run time.
//
// ns-2.35 draws every run-time random number of a bulk-flow scenario from one generator,
// defaultRNG: RED's early-drop test (red.cc drop_early(): Random::uniform()) and the
// sender's processing time (tcp.cc send_much(): Random::uniform(overhead_)), interleaved in
// event order. The generator is L'Ecuyer's MRG32k3a (RngStream, tools/rng.cc): `$rng seed s`
// makes the stream's state (s, s, s, s, s, s), `next-substream` jumps 2^76 steps ahead of
// the substream's start, and uniform() is RNG::U01 (53-bit "increased precision" off).
// aqmlab's ns-2 engine seeds it with (run.seed mod 2^31 - 1, or 1) and run - 1 substreams
// (engines/ns2/tcl.py _seed(); reseeded after the tick phases are drawn). With
// run.random_stream = "ns2" the ns-3 engine keeps one such stream per run (Ns2Rng) and
// lets RED and the hold queue draw from it, so both engines use the same numbers in the
// same order. The arithmetic is exact (64/128-bit integers): ns-2's doubles are too, as
// every product stays below 2^53.
//
// Web runs draw from it too (tcp.cc TcpAgent::reset(): boot_time_ = Random::uniform(tcpTick_),
// the RTO clock's tick phase; DelayBoxClassifier::recv(): one Random::uniform(0, 1) for every
// packet of a flow in its table, whatever its loss rate): see WebBootPhases (web.h) and
// DelayBoxBook (delay_box.h). A DelayBox draw's value is never used, so it is only counted
// (Defer) with the time it happens and its place in ns-2's event order, and consumed before
// the next draw that is used.
//
// Ns2UniformVariable is an ns-3 UniformRandomVariable whose GetValue() draws from an
// Ns2Rng: min + U (max - min), U(0,1) itself at the defaults, as ns-3's formula gives.
// RedQueueDisc::DropEarly calls m_uv->GetValue() (virtual), so a RED's m_uv replaced by
// one draws where ns-2's drop_early draws.
#pragma once
#include "ns2_event_clock.h"

#include "ns3/core-module.h"

#include <array>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace aqmlab
{
using namespace ns3;

class Ns2Rng
{
  public:
    static constexpr int64_t M1 = 4294967087;
    static constexpr int64_t M2 = 4294944443;

    /// `$rng seed s` (1 <= s < 2^31 - 1).
    void Seed(uint32_t s)
    {
        m_c.fill(s);
        m_b.fill(s);
    }

    /// `$rng next-substream`: the substream start moves 2^76 steps on; the state follows.
    void NextSubstream()
    {
        static constexpr uint64_t A1[3][3] = {{82758667u, 1871391091u, 4127413238u},
                                              {3672831523u, 69195019u, 1871391091u},
                                              {3672091415u, 3528743235u, 69195019u}};
        static constexpr uint64_t A2[3][3] = {{1511326704u, 3759209742u, 1610795712u},
                                              {4292754251u, 1511326704u, 3889917532u},
                                              {3859662829u, 4292754251u, 3708466080u}};
        std::array<int64_t, 6> b{};
        for (int i = 0; i < 3; ++i)
        {
            unsigned __int128 s1 = 0, s2 = 0;
            for (int j = 0; j < 3; ++j)
            {
                s1 += (unsigned __int128)A1[i][j] * uint64_t(m_b[j]);
                s2 += (unsigned __int128)A2[i][j] * uint64_t(m_b[3 + j]);
            }
            b[i] = int64_t(s1 % uint64_t(M1));
            b[3 + i] = int64_t(s2 % uint64_t(M2));
        }
        m_b = b;
        m_c = b;
    }

    /// One component's step on its state c[0..2] (x[n-3], x[n-2], x[n-1]):
    /// x[n] = (a x[n-lag] - b x[n-3]) mod m, then shifted in.
    static int64_t Step(int64_t* c, int lag, int64_t a, int64_t b, int64_t m)
    {
        int64_t p = (a * c[3 - lag] - b * c[0]) % m;
        if (p < 0)
        {
            p += m;
        }
        c[0] = c[1];
        c[1] = c[2];
        c[2] = p;
        return p;
    }

    /// The next U(0,1): RNG::U01, after the counted draws that came before now.
    double U01()
    {
        if (!m_deferred.empty())
        {
            CatchUp(Simulator::Now().GetSeconds());
        }
        return Next();
    }

    /// A draw at `t` (s, now or later) whose value nobody reads: it only moves the stream.
    /// `scheduled`: ns-2 makes it in an event it schedules now (a packet's arrival at the
    /// DelayBox's node, scheduled as its transmission starts), else in the running event
    /// (a packet the node itself sends into the box).
    void Defer(double t, bool scheduled)
    {
        uint32_t order = 0;
        if (const Ns2ClockSimulatorImpl* sim = Ns2ClockSimulatorImpl::Current())
        {
            order = scheduled ? sim->NextUid() : sim->CurrentUid();
        }
        m_deferred.push({t, order});
    }

  private:
    /// A counted draw: when it is due, and its place among events due at the same time.
    struct Deferred
    {
        double t;
        uint32_t order;

        bool operator>(const Deferred& o) const
        {
            return t > o.t || (t == o.t && order > o.order);
        }
    };

    /// Consume the counted draws that ns-2 makes before the running event's draw: those due
    /// earlier, and those due now in an event ns-2 runs first. ns-2's scheduler runs events
    /// due at the same time in scheduling order (uid), and so does ns-2's event clock in
    /// ns-3 (Ns2ClockSimulatorImpl), so a counted draw due now comes first when its event
    /// was scheduled no later than the running one (its uid at scheduling <= the running
    /// event's). On ns-3's own clock every counted draw due now comes first. Weigle's ARED
    /// 5 ms: at 105 %, seed 1, 6.772585072 s a box arrival scheduled first came first
    /// (test_delay_box_draw_tie.py); at 80 %, seed 3, 81.536832 s RED's arrival, scheduled
    /// 114 us before the box's, drew first on ns-2.35 and, with the box always first, RED
    /// dropped a segment on ns-3 only.
    void CatchUp(double now)
    {
        const Ns2ClockSimulatorImpl* sim = Ns2ClockSimulatorImpl::Current();
        const uint32_t running = sim != nullptr ? sim->CurrentUid() : UINT32_MAX;
        while (!m_deferred.empty() &&
               (m_deferred.top().t < now ||
                (m_deferred.top().t == now && m_deferred.top().order <= running)))
        {
            m_deferred.pop();
            Next();
        }
    }

    double Next()
    {
        const int64_t p1 = Step(&m_c[0], 2, 1403580, 810728, M1);
        const int64_t p2 = Step(&m_c[3], 1, 527612, 1370589, M2);
        static const double norm = 1.0 / (double(M1) + 1.0);
        return double(p1 > p2 ? p1 - p2 : p1 - p2 + M1) * norm;
    }

    std::priority_queue<Deferred, std::vector<Deferred>, std::greater<Deferred>> m_deferred;
    std::array<int64_t, 6> m_c{12345, 12345, 12345, 12345, 12345, 12345}; // Cg
    std::array<int64_t, 6> m_b{12345, 12345, 12345, 12345, 12345, 12345}; // Bg
};

/// ns-2's seeding of a run's stream by aqmlab's ns-2 engine (tcl.py _seed()): `seed` is
/// already ns-2's (aqmlab.workload.tick_phase.ns2_seed), then run - 1 substreams.
inline void SeedNs2Run(Ns2Rng& rng, uint32_t seed, uint64_t run)
{
    rng.Seed(seed);
    for (uint64_t i = 1; i < run; ++i)
    {
        rng.NextSubstream();
    }
}

class Ns2UniformVariable : public UniformRandomVariable
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::Ns2UniformVariable")
                                .SetParent<UniformRandomVariable>()
                                .SetGroupName("Core");
        return tid;
    }

    void SetRng(Ns2Rng* rng)
    {
        m_ns2 = rng;
    }

    using UniformRandomVariable::GetValue;

    double GetValue() override
    {
        const double lo = GetMin();
        return lo + m_ns2->U01() * (GetMax() - lo);
    }

  private:
    Ns2Rng* m_ns2{nullptr};
};

} // namespace aqmlab
