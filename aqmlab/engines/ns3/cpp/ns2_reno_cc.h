// aqmlab/engines/ns3/cpp/ns2_reno_cc.h -- NewReno congestion avoidance without rounding.
//
// ns-3's TcpNewReno grows cwnd (bytes, an integer) by floor(mss * mss / cwnd) per ACK in
// congestion avoidance; ns-2's agents keep cwnd_ in segments as a double and add exactly
// 1 / cwnd_ (opencwnd). The truncation slows the growth by up to one byte per ACK: 3 % at
// a 42-segment window of 1000 B, enough for a lone flow's sends to drift 4 ms from ns-2's
// within 1.5 s. TcpNs2NewReno keeps the fraction and adds it when it reaches a byte; slow
// start and ssthresh are TcpNewReno's.
#pragma once
#include "ns3/tcp-congestion-ops.h"

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
          m_fraction(other.m_fraction)
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

  protected:
    void CongestionAvoidance(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (segmentsAcked == 0)
        {
            return;
        }
        const double mss = tcb->m_segmentSize;
        const double add = mss * mss / double(tcb->m_cWnd.Get()) + m_fraction;
        const double whole = std::floor(add);
        m_fraction = add - whole;
        tcb->m_cWnd += static_cast<uint32_t>(whole);
    }

  private:
    double m_fraction{0}; // bytes of cwnd earned but not yet added
};

} // namespace aqmlab
