// aqmlab/engines/ns3/cpp/ns2_rto.h -- ns-2.35's retransmission timer (TcpAgent::rtt_update,
// rtt_timeout, rtt_backoff in tcp/tcp.cc), as plain arithmetic the socket drives.
//
// ns-2 (like 4.4BSD) keeps the RTT estimate in clock ticks (tcpTick_, aqmlab's
// clock_granularity) as fixed-point integers: srtt with T_SRTT_BITS (3) fractional bits,
// rttvar with T_RTTVAR_BITS (2). A sample is the number of tick boundaries between the
// segment's departure and its ACK, on a clock whose phase is random per connection
// (boot_time_), and at least 1. The RTO before back-off is floor(srtt + 4 rttvar) ticks;
// it starts at the initial RTO (rtxcur_init_) until the first sample. A timeout is that
// value, or min_rto if it is smaller, times the back-off, at most max_rto (60 s), at least
// 2 ticks. The back-off doubles at each timeout (past 64 only while the timeout is still
// below max_rto); once it exceeds 8, srtt is cleared (folded into rttvar), so the next
// sample starts the estimate afresh. ns-3 instead keeps srtt/rttvar in continuous time
// and computes max(min_rto, srtt + max(G, 4 rttvar)).
#pragma once
#include <cmath>
#include <cstdint>

namespace aqmlab
{

struct Ns2RtoClock
{
    double tick = 0.01;       // tcpTick_ (s)
    int srttBits = 3;         // T_SRTT_BITS
    int rttvarBits = 2;       // T_RTTVAR_BITS
    double boot = 0;          // this connection's clock phase in [0, tick) (boot_time_)
    int tSrtt = 0;            // srtt << srttBits, in ticks (0: no estimate yet)
    int tRttvar = 0;          // rttvar << rttvarBits, in ticks
    double rtxcur = 3.0;      // RTO before min_rto and back-off (s): t_rtxcur_
    int backoff = 1;          // t_backoff_
    bool ticks = true;        // false: rtxcur is set from ns-3's estimator (exact arithmetic):
                              // no 2-tick floor, no srtt reset

    /// rtt_update: a measured round trip `tao` (s) of a segment whose ACK came at `now`.
    void Sample(double now, double tao)
    {
        const double sendtime = now - tao + boot;
        const double tickoff = std::fmod(sendtime, tick);
        int rtt = int((tao + tickoff) / tick);
        if (rtt < 1)
        {
            rtt = 1;
        }
        if (tSrtt != 0)
        {
            short delta = short(rtt - (tSrtt >> srttBits)); // ns-2 keeps it in a short
            if ((tSrtt += delta) <= 0)
            {
                tSrtt = 1;
            }
            if (delta < 0)
            {
                delta = short(-delta);
            }
            delta = short(delta - (tRttvar >> rttvarBits));
            if ((tRttvar += delta) <= 0)
            {
                tRttvar = 1;
            }
        }
        else
        {
            tSrtt = rtt << srttBits;
            tRttvar = rtt << (rttvarBits - 1);
        }
        rtxcur = double(((tRttvar << (2 + srttBits - rttvarBits)) + tSrtt) >> srttBits) * tick;
    }

    /// rtt_timeout (rfc2988_ true): the timer to arm now.
    double Timeout(double minRto, double maxRto) const
    {
        double t = (rtxcur < minRto ? minRto : rtxcur) * backoff;
        if (t > maxRto)
        {
            t = maxRto;
        }
        if (ticks && t < 2.0 * tick)
        {
            t = 2.0 * tick;
        }
        return t;
    }

    /// rtt_backoff: called at a retransmission timeout.
    void Backoff(double minRto, double maxRto)
    {
        if (backoff < 64 || Timeout(minRto, maxRto) < maxRto)
        {
            backoff <<= 1;
        }
        if (ticks && backoff > 8)
        {
            tRttvar += tSrtt >> srttBits;
            tSrtt = 0;
        }
    }
};

} // namespace aqmlab
