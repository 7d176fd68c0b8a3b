// aqmlab/engines/ns3/cpp/ns2_reno_cc.h -- NewReno congestion avoidance without rounding.
//
// ns-3's TcpNewReno grows cwnd (bytes, an integer) by floor(mss * mss / cwnd) per ACK in
// congestion avoidance; ns-2's agents keep cwnd_ in segments as a double and add exactly
// 1 / cwnd_ (opencwnd). The truncation slows the growth by up to one byte per ACK: 3 % at
// a 42-segment window of 1000 B, enough for a lone flow's sends to drift 4 ms from ns-2's
// within 1.5 s. TcpNs2NewReno keeps the fraction and adds it when it reaches a byte; slow
// start and ssthresh are TcpNewReno's.
//
// ns-2's cwnd_ is a real number of segments, and it sends int(cwnd_) (window()); ns-3's
// m_cWnd is whole bytes. The bytes past m_cWnd (in [0, 1)) are kept while m_cWnd is what
// this class last wrote (ExactCwnd/SetExactCwnd; the socket sets ns-2's exact halves
// through them), and the increase is mss^2 over that exact window, so floor(m_cWnd / mss)
// is int(cwnd_). Taking mss^2 over the whole bytes instead grows cwnd faster by up to
// 1/mss per ACK: Pentikousis' five downloads at drop-tail 32 reached exactly 10 segments
// where ns-2.35's cwnd_ was 9.99982 and sent a segment more (ns-2: int() is 9). A window
// set elsewhere (a timeout's one segment, ns-3's own recovery) starts whole.
//
// ns-2's opencwnd also makes one increase per new ACK: +1 segment in slow start, else
// +1/cwnd. ns-3's TcpNewReno hands an ACK's acknowledged segments to slow start and, once
// cwnd reaches ssthresh, the ones left to congestion avoidance: an ACK of k >= 2 segments
// that ends slow start grows cwnd by 1 + 1/cwnd (after a timeout with ssthresh 2, the ACK
// of the retransmission that fills a hole: cwnd 1 -> 2.5, ns-2 2). With OneIncreasePerAck
// an ACK counts as one segment. Each rule is a flag (aqmlab's socket sets them: tcp
// fields ca_increase and increase_per_ack); the defaults are this class's original rules.
#pragma once
#include "ns3/tcp-congestion-ops.h"

#include <algorithm>
#include <cmath>

namespace aqmlab
{
using namespace ns3;

class TcpNs2NewReno : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmlab::TcpNs2NewReno")
                                .SetParent<TcpNewReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpNs2NewReno>();
        return tid;
    }

    TcpNs2NewReno() = default;

    TcpNs2NewReno(const TcpNs2NewReno& other)
        : TcpNewReno(other),
          m_fraction(other.m_fraction),
          m_written(other.m_written),
          m_exact(other.m_exact),
          m_onePerAck(other.m_onePerAck)
    {
    }

    std::string GetName() const override
    {
        return "TcpNs2NewReno";
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpNs2NewReno>(this);
    }

    /// Congestion avoidance keeps the byte fraction (false: TcpNewReno's truncation).
    void SetExactIncrease(bool on)
    {
        m_exact = on;
    }

    /// One window increase per new ACK, however many segments it acknowledges (ns-2).
    void SetOneIncreasePerAck(bool on)
    {
        m_onePerAck = on;
    }

    bool GetExactIncrease() const
    {
        return m_exact;
    }

    bool GetOneIncreasePerAck() const
    {
        return m_onePerAck;
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        TcpNewReno::IncreaseWindow(tcb, m_onePerAck ? std::min(segmentsAcked, 1U) : segmentsAcked);
    }

    /// cwnd in bytes with the fraction this class keeps (whole if m_cWnd was set elsewhere,
    /// or without the exact increase).
    double ExactCwnd(Ptr<const TcpSocketState> tcb) const
    {
        const uint32_t w = tcb->m_cWnd.Get();
        return m_exact && w == m_written ? w + m_fraction : double(w);
    }

    /// Set cwnd to `bytes` (m_cWnd its whole bytes, the fraction kept if exact).
    void SetExactCwnd(Ptr<TcpSocketState> tcb, double bytes)
    {
        const double whole = std::floor(bytes);
        tcb->m_cWnd = static_cast<uint32_t>(whole);
        m_fraction = m_exact ? bytes - whole : 0.0;
        m_written = tcb->m_cWnd.Get();
    }

  protected:
    uint32_t SlowStart(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        // + whole segments: ns-2's cwnd_ += 1 keeps its fraction
        const bool kept = tcb->m_cWnd.Get() == m_written;
        const uint32_t left = TcpNewReno::SlowStart(tcb, segmentsAcked);
        if (kept)
        {
            m_written = tcb->m_cWnd.Get();
        }
        return left;
    }

    void CongestionAvoidance(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (!m_exact)
        {
            TcpNewReno::CongestionAvoidance(tcb, segmentsAcked);
            return;
        }
        if (segmentsAcked == 0)
        {
            return;
        }
        const double mss = tcb->m_segmentSize;
        const double cwnd = ExactCwnd(tcb); // ns-2 opencwnd: cwnd_ += 1 / cwnd_
        SetExactCwnd(tcb, cwnd + mss * mss / cwnd);
    }

  private:
    double m_fraction{0};  // bytes of cwnd past m_cWnd, in [0, 1)
    uint32_t m_written{0}; // the m_cWnd the fraction belongs to
    bool m_exact{true};
    bool m_onePerAck{false};
};

} // namespace aqmlab
