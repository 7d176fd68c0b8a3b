// aqmlab/engines/ns3/cpp/tcp_socket.h -- the TCP socket every aqmlab flow uses.
//
// Extends ns3::TcpSocketBase with
//  * classic Reno loss recovery (ns-2 Agent/TCP/Reno; Fall & Floyd 1996): the first new
//    ACK in fast recovery, even a partial one, ends it with cwnd = ssthresh, so further
//    losses of the window need three new duplicate ACKs (another fast retransmit and
//    halving) or a timeout. ns-3 has only NewReno/RFC 6675 recovery. See "Reno" below.
//  * ns-2's Agent/TCP/Sack1 loss recovery with SACK (Sack1Recovery; see "Sack1" below).
//  * per-flow counters (segments sent, retransmissions, timeouts, fast recoveries),
//    kept in C++ and exported at the end of the run.
//  * RFC 793 closing where ns-3 3.44 strands connections (see "Closing" below), and a
//    census of the sockets still open at the end of a run.
#pragma once
#include "fast_demux.h"
#include "flow_stats.h"
#include "hold_queue_disc.h"
#include "ns2_event_clock.h"
#include "ns2_reno_cc.h"
#include "ns2_sack_wire.h"
#include "full_tcp_sacker.h"
#include "ns2_sacker.h"
#include "ns2_rto.h"
#include "sent_list.h"
#include "switches.h"
#include "tcp_peek.h"

#include "ns3/internet-module.h"
#include "ns3/string.h"
#include "ns3/boolean.h"
#include "ns3/rng-seed-manager.h"

#include <algorithm>
#include <dlfcn.h>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>
#include <utility>
#include <vector>
#include <sstream>
#include <unordered_set>

namespace aqmlab
{
using namespace ns3;

/// Per-flow sender traces (aqmlab.engines.flow_trace; no effect on results): after
/// Configure(path, "10000,10003"), the senders bound to those ports (flow i's sender binds
/// 10000 + i) write every data segment sent ("S", "R" for a retransmission), ACK received
/// ("A"), retransmission timeout ("T") and SYN retry ("Y") as one line: time, port, event,
/// sequence (segments), cwnd and ssthresh (segments), congestion state, RTO (s), srtt and
/// rttvar (s), RTO back-off (when aqmlab computes the timer). Configure("", "") stops.
struct TcpTrace
{
    static void Configure(const std::string& path, const std::string& ports)
    {
        State& st = Get();
        if (st.file != nullptr)
        {
            std::fclose(st.file);
            st.file = nullptr;
        }
        st.ports.clear();
        if (!path.empty())
        {
            st.file = std::fopen(path.c_str(), "w");
        }
        std::stringstream ss(ports);
        std::string item;
        while (std::getline(ss, item, ','))
        {
            if (!item.empty())
            {
                st.ports.insert(static_cast<uint16_t>(std::stoul(item)));
            }
        }
    }

    static std::FILE* File()
    {
        return Get().file;
    }

    static bool Wants(uint16_t port)
    {
        return Get().file != nullptr && Get().ports.count(port) > 0;
    }

  private:
    struct State
    {
        std::FILE* file = nullptr;
        std::set<uint16_t> ports;
    };

    static State& Get()
    {
        static State st;
        return st;
    }
};

/// RtoMemoEnabled(): whether a socket that computes ns-2's retransmission timer converts it
/// to a Time only when it changes (AQMLAB_RTO_MEMO=0: at every use, as before). The socket
/// sets m_rto from it two or three times per ACK (EstimateRtt, NewAck, re-arming), and each
/// Seconds(double) and MinRto.GetSeconds() goes through 128-bit and long-double arithmetic
/// (~2 % of a bulk run); the timer changes a few times per connection. Same double, same
/// Time.
AQMLAB_SWITCH(RtoMemo, EnvSwitch("AQMLAB_RTO_MEMO", true))

/// The flag with which AqmTcpSocket's copy constructor asks the object-memo library
/// (cpp/object_memo.cc, AQMLAB_QUIET_TCB) to skip TcpSocketBase's eleven connections of its
/// TcpSocketState's traced values to the socket's forwarders (UpdateCwnd and the like,
/// which only fire the socket's own trace sources of the same names; nothing in aqmlab
/// connects to those): null when the library is not loaded or the switch is 0. Same
/// state, same sends; the socket's eleven forwarded trace sources are left unfed (the
/// library stops a run that looks one up).
inline int*
QuietTcbFlag()
{
    static int* const flag = []() -> int* {
        void* f = dlsym(RTLD_DEFAULT, "aqmlab_object_memo_quiet_tcb");
        return f != nullptr ? reinterpret_cast<int* (*)()>(f)() : nullptr;
    }();
    return flag;
}

class AqmTcpSocket : public TcpSocketBase, public HoldListener
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("aqmlab::AqmTcpSocket")
                .SetParent<TcpSocketBase>()
                .SetGroupName("Internet")
                .AddAttribute("CwrFastRetransmit",
                              "Fast-retransmit a loss found while ECN's CWR reduces the "
                              "window (ns-2, Linux); false: ns-3 3.44 (wait for the RTO)",
                              BooleanValue(true),
                              MakeBooleanAccessor(&AqmTcpSocket::m_cwrFastRetransmit),
                              MakeBooleanChecker())
                .AddAttribute("FullTcpAcks",
                              "Acknowledge as ns-2's Full-TCP: at once when the bytes received "
                              "since the last ACK reach DelAckCount segments, else at the next "
                              "tick of a DelAckTimeout clock (see \"Full-TCP\" below)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_fullTcpAcks),
                              MakeBooleanChecker())
                .AddAttribute("IgnoreDupSyn",
                              "A listener's connection in SYN_RCVD ignores a duplicate SYN and "
                              "retransmits its SYN/ACK on its own timer only (ns-2's Full-TCP); "
                              "false: answer it with a SYN/ACK at once (ns-3)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ignoreDupSyn),
                              MakeBooleanChecker())
                .AddAttribute("AckDupSynAck",
                              "An established opener acknowledges a duplicate SYN/ACK at "
                              "once (ns-2's Full-TCP: the SYN trimmed as an old segment, "
                              "TF_ACKNOW); false: ignore it (ns-3)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ackDupSynAck),
                              MakeBooleanChecker())
                .AddAttribute("FullTcpSynTimeout",
                              "A SYN or SYN/ACK retransmission timeout is handled as ns-2 "
                              "handles any timeout: ssthresh halved, and the first data's RTO "
                              "is the initial RTO; false: ns-3",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_fullTcpSynTimeout),
                              MakeBooleanChecker())
                .AddAttribute("FinOnRto",
                              "A passive closer (LAST_ACK) resends its FIN on the retransmission "
                              "timer, min RTO included (ns-2); false: ns-3's LAST_ACK timer, "
                              "srtt + 4 rttvar without the min RTO",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_finOnRto),
                              MakeBooleanChecker())
                .AddAttribute("EctRetransmissions",
                              "With ECN, retransmitted data segments are ECN-capable too (ns-2); "
                              "false: ns-3 (RFC 3168 s6.1.5)",
                              BooleanValue(true),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ectRetransmissions),
                              MakeBooleanChecker())
                .AddAttribute("RttTimed",
                              "Time one segment per round trip, never a retransmission, "
                              "the timing cancelled by a timeout or fast retransmit "
                              "(ns-2, BSD); false: a sample from every ACK (ns-3)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_rttTimed),
                              MakeBooleanChecker())
                .AddAttribute("RtoTicks",
                              "ns-2's timer arithmetic: samples and RTO in whole ticks of "
                              "ClockGranularity, fixed-point srtt/rttvar (ns2_rto.h)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_rtoTicks),
                              MakeBooleanChecker())
                .AddAttribute("RtoBackoffUntilSample",
                              "Keep a backed-off RTO until an RTT sample (Karn; ns-2's "
                              "one-way agents); false: every new ACK restores it (ns-3)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_backoffUntilSample),
                              MakeBooleanChecker())
                .AddAttribute("OwedAckCarriesData",
                              "An ACK sent on its own (a duplicate or out-of-order segment, "
                              "the delayed-ACK timer) carries the short segment Nagle holds, "
                              "if the window allows it (ns-2's Full-TCP foutput())",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_owedAckCarriesData),
                              MakeBooleanChecker())
                .AddAttribute("RtoArmBeforeSample",
                              "A new ACK re-arms the retransmission timer with the RTO as it "
                              "was before that ACK's RTT sample and back-off reset (ns-2's "
                              "Full-TCP newack()); false: with the updated one",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_rtoArmBeforeSample),
                              MakeBooleanChecker())
                .AddAttribute("RtoRestartOnFastRetransmit",
                              "Restart the retransmission timer at a fast retransmit (ns-2)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_restartOnFastRetransmit),
                              MakeBooleanChecker())
                .AddAttribute("TimeoutHalvesWindow",
                              "At every timeout ssthresh = max(2, min(cwnd, rwnd) / 2) "
                              "segments, kept if an ECN echo made the last window cut "
                              "(ns-2); false: half the flight, not again for a head "
                              "already retransmitted (ns-3)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_timeoutHalvesWindow),
                              MakeBooleanChecker())
                .AddAttribute("RenoFastRetransmitGuard",
                              "Reno: after a fast retransmit, no other until the cumulative "
                              "ACK passes the highest segment sent before it (ns-2 bugFix_)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_renoGuard),
                              MakeBooleanChecker())
                .AddAttribute("RenoHalfCwnd",
                              "Reno: a fast retransmit sets cwnd to half of min(cwnd, rwnd), "
                              "not rounded to whole segments, and every duplicate ACK "
                              "inflates the window (ns-2 CLOSE_CWND_HALF, dupwnd_); false: "
                              "cwnd = ssthresh, dupacks 1-2 only with limited transmit",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_renoHalfCwnd),
                              MakeBooleanChecker())
                .AddAttribute("RenoFullTcpWindow",
                              "Reno without limited transmit: in fast recovery every "
                              "duplicate ACK from the first lets a segment out, the first two "
                              "from the fourth on (ns-2 Full-TCP: cwnd_ = ssthresh_ + "
                              "dupacks_, nothing new sent at the third); false: dupacks 1-2 "
                              "free nothing",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_renoFullTcpWindow),
                              MakeBooleanChecker())
                .AddAttribute("LimitedTransmitAfterTimeout",
                              "Without SACK and with limited transmit: after a timeout, the "
                              "first two duplicate ACKs each let a segment out (ns-2's "
                              "singledup_); false: ns-3 ignores dupacks in the loss state",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ltAfterTimeout),
                              MakeBooleanChecker())
                .AddAttribute("Sack1Recovery",
                              "With SACK: ns-2's Agent/TCP/Sack1 loss recovery (see "
                              "\"Sack1\" below); false: ns-3's RFC 6675",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_sack1),
                              MakeBooleanChecker())
                .AddAttribute("SackFullTcp",
                              "With Sack1Recovery: ns-2's Full-TCP SACK instead (see \"Sack1\" "
                              "below, web connections)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_sackFullTcp),
                              MakeBooleanChecker())
                .AddAttribute("SackTimeoutHoles",
                              "With SackFullTcp: after a retransmission timeout, resend "
                              "the holes of a scoreboard rebuilt from the ACKs since, then "
                              "go back N (Full-TCP's nxt_tseq, see \"Full-TCP SACK after a "
                              "timeout\"); false: go back N over everything (Sack1)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_sackHoles),
                              MakeBooleanChecker())
                .AddAttribute("ExactCaIncrease",
                              "aqmlab's TcpNs2NewReno: congestion avoidance keeps the byte "
                              "fraction of mss^2/cwnd (ns-2); false: TcpNewReno's truncation",
                              BooleanValue(true),
                              MakeBooleanAccessor(&AqmTcpSocket::SetExactCaIncrease,
                                                  &AqmTcpSocket::GetExactCaIncrease),
                              MakeBooleanChecker())
                .AddAttribute("OneIncreasePerAck",
                              "aqmlab's TcpNs2NewReno: one window increase per new ACK, slow "
                              "start or congestion avoidance (ns-2 opencwnd); false: the "
                              "segments left when slow start reaches ssthresh also grow cwnd",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::SetOneIncreasePerAck,
                                                  &AqmTcpSocket::GetOneIncreasePerAck),
                              MakeBooleanChecker())
                .AddAttribute("EcnHalvesWindow",
                              "An ECN echo sets cwnd to half of min(cwnd, rwnd), not rounded "
                              "(at least 1 segment), ssthresh to that rounded down (at least "
                              "2), cwnd is kept when CWR ends, and every new ACK without "
                              "ECN-Echo opens it during CWR too (ns-2 ecn()/slowdown(), "
                              "recv_newack_helper); false: ns-3, cwnd = ssthresh = max(2, "
                              "flight / 2), not opened until CWR ends",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ecnHalvesWindow),
                              MakeBooleanChecker())
                .AddAttribute("EcnWindowBelowOne",
                              "With EcnHalvesWindow: an ECN echo may halve cwnd below one "
                              "segment; nothing is sent until the retransmission timer "
                              "(re-armed at that ACK) expires, which with nothing "
                              "outstanding sets cwnd to one segment, keeps ssthresh and the "
                              "back-off, and sends; an echo answered at cwnd <= 1 segment "
                              "after another one backs the timer off (ns-2 slowdown(), "
                              "newtimer(), timeout(), ecn_backoff_); false: cwnd at least "
                              "one segment (see \"ECN window below one segment\")",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ecnBelowOne),
                              MakeBooleanChecker())
                .AddAttribute("EcnPastRecover",
                              "With ECN: an ECN-Echo is answered only on an ACK beyond the "
                              "highest segment sent at the last fast retransmit (or the "
                              "first after a timeout), and an echoing ACK opens no window "
                              "(ns-2 ecn(): seqno > recover_, recv_newack_helper); false: "
                              "ns-3, which enters CWR at any new echoing ACK outside CWR, "
                              "in fast recovery too (see \"ECN echo during a loss "
                              "recovery\")",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ecnPastRecover),
                              MakeBooleanChecker())
                .AddAttribute("EcnOnDupAck",
                              "With ECN, an ECN-Echo on a duplicate ACK (in OPEN or "
                              "DISORDER) is answered as on a new ACK when it is beyond the "
                              "last cut's highest segment or the first after a timeout: CWR "
                              "is entered and the window cut (ns-2 recv() calls ecn() for "
                              "every ACK, before the duplicate test); false: ns-3, which "
                              "reads ECE on new ACKs only (see \"ECN echo on a duplicate "
                              "ACK\")",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ecnDupAck),
                              MakeBooleanChecker())
                .AddAttribute("CwrOnNextSegment",
                              "With ECN, CWR goes on the first data segment sent after a "
                              "window cut (an ECN echo answered, a fast retransmit, a "
                              "timeout), a retransmission too (ns-2 cong_action_, "
                              "SetCWRonRetransmit_ true); false: ns-3, on the first new "
                              "data segment after an ECN echo (see \"CWR flag\" below)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_cwrNextSegment),
                              MakeBooleanChecker())
                .AddAttribute("EveryCeMark",
                              "With ECN, the receiver echoes every CE-marked segment, a "
                              "retransmission of data below an earlier mark too (ns-2's "
                              "sink: TcpSink::ack sets ecn_unacked_ for any ECT packet with "
                              "CE, after a CWR has cleared it); false: ns-3, whose "
                              "ForwardUp counts a CE mark only on a segment beyond the last "
                              "CE-marked one (m_ecnCESeq; see \"Every CE mark\")",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_everyCeMark),
                              MakeBooleanChecker())
                .AddAttribute("Ns2DelAckSink",
                              "With delayed ACKs (DelAckCount 2, per-segment rule): ns-2's "
                              "DelAckSink, which holds an in-order segment (the first one "
                              "too) or a duplicate of the last one while no ACK is held, and "
                              "answers anything else at once, ending the hold; false: ns-3",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ns2DelAck),
                              MakeBooleanChecker())
                .AddAttribute("HandshakeAckWithData",
                              "The opener's ACK of the SYN/ACK rides on the first data "
                              "segment when data is ready to go (ns-2's one-way agents send "
                              "no such packet); false: ns-3's pure ACK before the data",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ackWithData),
                              MakeBooleanChecker())
                .AddAttribute("BareSyn",
                              "SYN and SYN/ACK leave without the window-scale option (ns-2's "
                              "40-byte packet 0 and its ACK); both ends still scale their "
                              "windows by the shift their receive buffer needs (both ends "
                              "have the same buffer); false: ns-3's option",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_bareSyn),
                              MakeBooleanChecker())
                .AddAttribute("SynAckTimer",
                              "A listener's connection in SYN_RCVD resends its SYN/ACK on a "
                              "timer (ns-3); false: only in answer to a duplicate SYN, the "
                              "handshake completing when the opener's data arrives (ns-2's "
                              "one-way sink has no handshake). Ignored with IgnoreDupSyn",
                              BooleanValue(true),
                              MakeBooleanAccessor(&AqmTcpSocket::m_synAckTimer),
                              MakeBooleanChecker())
                .AddAttribute("AckedHeldDropped",
                              "Behind a processing-time hold (HoldQueueDisc), a held data "
                              "segment whose bytes an ACK covered before the hold's timer "
                              "fired does not leave (ns-2's delayed send_much() sends from "
                              "t_seqno_, which newack() moved past them); false: it leaves",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ackedHeldDropped),
                              MakeBooleanChecker())
                .AddAttribute("HeldBeyondWindowUnsent",
                              "Behind a processing-time hold (HoldQueueDisc), a new data "
                              "segment that the window no longer admits when the hold's "
                              "timer fires (the ACK ending a fast recovery deflated it) "
                              "goes back to the unsent data with every later one (ns-2's "
                              "delayed send_much() tests t_seqno_ against highest_ack_ + "
                              "window() then); false: it leaves",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_heldBeyondWindowUnsent),
                              MakeBooleanChecker())
                .AddAttribute("SynLossWindowOne",
                              "After a SYN timeout the first data leaves with a window of "
                              "one segment (ns-2's one-way agents: a lost packet 0 sets "
                              "wnd_init_ = 1, RFC 3390); false: the initial window",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_synLossWindowOne),
                              MakeBooleanChecker())
                .AddAttribute("Ns2SackBlocks",
                              "The receiver's SACK blocks are ns-2's one-way SACK sink's "
                              "(Agent/TCPSink/Sack1): at most 3, the block of the segment "
                              "just received first, then earlier ACKs' first blocks from a "
                              "3-deep stack (ns2_sacker.h); false: ns-3's merged list, up "
                              "to 4",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ns2SackBlocks),
                              MakeBooleanChecker())
                .AddAttribute("FullTcpSackBlocks",
                              "The receiver's SACK blocks are ns-2's Full-TCP receiver's "
                              "(SackFullTcpAgent): at most 3, its reassembly queue's blocks "
                              "in the order they were created, newest first "
                              "(full_tcp_sacker.h); false: ns-3's merged list, up to 4",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_fullTcpSackBlocks),
                              MakeBooleanChecker())
                .AddAttribute("Ns2SackOptionBytes",
                              "An ACK's SACK blocks take 8 bytes each on the wire, as ns-2's "
                              "one-way SACK sink counts them, in a compact option "
                              "(ns2_sack_wire.h); false: ns-3's SACK option, 2 + 8 per block "
                              "padded to 4 bytes",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ns2SackWire),
                              MakeBooleanChecker())
                .AddAttribute("TimingAtRelease",
                              "Behind a processing-time hold (HoldQueueDisc), the RTT timing "
                              "and an idle retransmission timer start when the held segment "
                              "leaves (ns-2's output() after overhead_'s delayed send); "
                              "false: when the socket sends it. Only when this socket "
                              "computes the timer (RttTimed, RtoTicks or "
                              "RtoBackoffUntilSample)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_timingAtRelease),
                              MakeBooleanChecker())
                .AddAttribute("FullLastSegment",
                              "A finite transfer (the Sender application) is sent as whole "
                              "segments: its size rounded up to the MSS, so the last "
                              "segment is full-size and, like any other, needs a whole "
                              "segment of window (ns-2's one-way agents: sendmsg() counts "
                              "packets, output() sends size_ bytes each, send_much() lets "
                              "out int(cwnd_) packets); false: ns-3, whose last segment "
                              "carries the bytes left and leaves once they fit the "
                              "byte-counted window (see Sender::StartApplication)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_fullLastSegment),
                              MakeBooleanChecker())
                .AddAttribute("NoFinAfterTransfer",
                              "The Sender application does not close the connection after "
                              "a finite transfer: no FIN rides on the last segment, whose "
                              "ACK the receiver may then delay like any other, and the "
                              "receiver sends no FIN of its own (ns-2's one-way agents have "
                              "no FIN: the transfer just ends); false: ns-3, which closes "
                              "(see Sender::Fill)",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_noFinAfterTransfer),
                              MakeBooleanChecker())
                .AddAttribute("FullTcpFin",
                              "A closing sender puts its FIN on the segment that empties "
                              "the send buffer only if nothing is outstanding as it leaves, "
                              "else sends it alone once everything is acknowledged (ns-2's "
                              "Full-TCP, see \"Full-TCP's FIN\"); false: ns-3, on that segment",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_fullTcpFin),
                              MakeBooleanChecker())
                .AddAttribute("FullTcpLastByte",
                              "The application's last byte leaves only in a forced output "
                              "(ns-2's Full-TCP: send_allowed() takes curseq_, that byte's "
                              "number, as one past it; see \"Full-TCP's last byte\"); "
                              "false: ns-3, whenever the window and Nagle allow",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_fullTcpLastByte),
                              MakeBooleanChecker())
                .AddAttribute("LastAckIgnoresFin",
                              "A passive closer (LAST_ACK) drops every arriving segment that "
                              "carries a FIN, unanswered (ns-2's Full-TCP); false: ns-3, which "
                              "acknowledges a resent FIN",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_lastAckIgnoresFin),
                              MakeBooleanChecker())
                .AddAttribute("FinOnClosingAcks",
                              "Once our FIN is out (FIN_WAIT_1, CLOSING, LAST_ACK), a dataless "
                              "ACK sent with all data out carries the FIN at its sequence "
                              "number (ns-2's Full-TCP); false: ns-3, a plain ACK past the FIN",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_finOnClosingAcks),
                              MakeBooleanChecker())
                .AddAttribute("IdleRestart",
                              "Before a data segment sent with nothing outstanding, a sender "
                              "idle longer than its RTO estimate (srtt + 4 rttvar, in ticks, "
                              "without the min RTO) restarts from the initial window (ns-2's "
                              "Full-TCP, slow_start_restart_); false: ns-3, no restart",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_idleRestart),
                              MakeBooleanChecker())
                .AddAttribute("AckEarlyFin",
                              "A FIN without data beyond the receive point (data before it "
                              "missing) is acknowledged at once, a duplicate ACK (ns-2's "
                              "Full-TCP, BSD); false: ns-3, which notes it silently",
                              BooleanValue(false),
                              MakeBooleanAccessor(&AqmTcpSocket::m_ackEarlyFin),
                              MakeBooleanChecker());
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    AqmTcpSocket()
    {
        Live().insert(this);
    }

    AqmTcpSocket(const AqmTcpSocket& other)
        : TcpSocketBase(QuietCopyOf(other)),
          m_fullTcpAcks(other.m_fullTcpAcks),
          m_ectRetransmissions(other.m_ectRetransmissions),
          m_ignoreDupSyn(other.m_ignoreDupSyn),
          m_fullTcpSynTimeout(other.m_fullTcpSynTimeout),
          m_finOnRto(other.m_finOnRto),
          m_nagle(other.m_nagle),
          m_nagleKnown(other.m_nagleKnown),
          m_reno(other.m_reno),
          m_cwrFastRetransmit(other.m_cwrFastRetransmit),
          m_rttTimed(other.m_rttTimed),
          m_rtoTicks(other.m_rtoTicks),
          m_backoffUntilSample(other.m_backoffUntilSample),
          m_rtoArmBeforeSample(other.m_rtoArmBeforeSample),
          m_owedAckCarriesData(other.m_owedAckCarriesData),
          m_restartOnFastRetransmit(other.m_restartOnFastRetransmit),
          m_timeoutHalvesWindow(other.m_timeoutHalvesWindow),
          m_renoGuard(other.m_renoGuard),
          m_renoHalfCwnd(other.m_renoHalfCwnd),
          m_ackDupSynAck(other.m_ackDupSynAck),
          m_renoFullTcpWindow(other.m_renoFullTcpWindow),
          m_ltAfterTimeout(other.m_ltAfterTimeout),
          m_sack1(other.m_sack1),
          m_sackFullTcp(other.m_sackFullTcp),
          m_ns2SackBlocks(other.m_ns2SackBlocks),
          m_fullTcpSackBlocks(other.m_fullTcpSackBlocks),
          m_synLossWindowOne(other.m_synLossWindowOne),
          m_ns2SackWire(other.m_ns2SackWire),
          m_sackHoles(other.m_sackHoles),
          m_ecnHalvesWindow(other.m_ecnHalvesWindow),
          m_ecnBelowOne(other.m_ecnBelowOne),
          m_ecnPastRecover(other.m_ecnPastRecover),
          m_ecnDupAck(other.m_ecnDupAck),
          m_cwrNextSegment(other.m_cwrNextSegment),
          m_everyCeMark(other.m_everyCeMark),
          m_ns2DelAck(other.m_ns2DelAck),
          m_ackWithData(other.m_ackWithData),
          m_bareSyn(other.m_bareSyn),
          m_synAckTimer(other.m_synAckTimer),
          m_timingAtRelease(other.m_timingAtRelease),
          m_ackedHeldDropped(other.m_ackedHeldDropped),
          m_fullLastSegment(other.m_fullLastSegment),
          m_noFinAfterTransfer(other.m_noFinAfterTransfer),
          m_fullTcpFin(other.m_fullTcpFin),
          m_fullTcpLastByte(other.m_fullTcpLastByte),
          m_lastAckIgnoresFin(other.m_lastAckIgnoresFin),
          m_finOnClosingAcks(other.m_finOnClosingAcks),
          m_ackEarlyFin(other.m_ackEarlyFin),
          m_idleRestart(other.m_idleRestart),
          m_scaleWanted(other.m_scaleWanted),
          m_sackWanted(other.m_sackWanted),
          m_stats(nullptr)
    {
        if (int* quiet = QuietTcbFlag())
        {
            *quiet = 0;
        }
        Live().insert(this);
        m_bootOf = other.m_bootOf; // a fork asks its listener's source (SetBootOf)
        m_onFork = other.m_onFork; // and its hook (SetOnFork)
    }

    /// `other`, the flag of QuietTcbFlag raised (TcpSocketBase's copy constructor runs next;
    /// the body of AqmTcpSocket's lowers it).
    static const TcpSocketBase& QuietCopyOf(const AqmTcpSocket& other)
    {
        if (int* quiet = QuietTcbFlag())
        {
            *quiet = 1;
        }
        return other;
    }

    ~AqmTcpSocket() override
    {
        if ((m_fastRegistered || m_listenPort != 0) && m_tcp)
        {
            if (FastTcpDemux* d = FastTcpDemux::For(PeekPointer(m_tcp)))
            {
                d->Unregister(m_fastKey, this);
                d->UnregisterListener(m_listenPort, this);
            }
        }
        m_finWait2Event.Cancel();
        if (m_holdTable && m_holdTable->Get(m_holdFlow) == this)
        {
            m_holdTable->Set(m_holdFlow, nullptr);
        }
        Live().erase(this);
        if (m_onDestroy)
        {
            m_onDestroy();
        }
    }

    /// Called when this socket is destroyed (e.g. to give its port back to a pool).
    void SetOnDestroy(std::function<void()> f)
    {
        m_onDestroy = std::move(f);
    }

    /// Sockets of this process that are alive, by TCP state (index: TcpStates_t);
    /// only sockets still holding an endpoint (i.e. seen by the demultiplexer) count.
    static std::array<uint32_t, LAST_STATE> Census()
    {
        std::array<uint32_t, LAST_STATE> n{};
        for (const AqmTcpSocket* s : Live())
        {
            if (s->m_endPoint != nullptr)
            {
                ++n[s->m_state.Get()];
            }
        }
        return n;
    }

    /// Use classic Reno recovery (meaningful only with SACK off).
    void SetReno(bool reno)
    {
        m_reno = reno;
    }

    /// This connection's tick phase, a fraction of the tick in [0, 1) that the plan drew
    /// (bulk flows; the same draw as ns-2's boot_time_), or -1: BootPhase() hashes.
    void SetBootPhase(double fraction)
    {
        m_bootFraction = fraction;
    }

    /// A listener's source of its accepted connections' tick phases (fractions of the tick,
    /// -1: none) by the peer's address, asked as each is forked, before its handshake's
    /// RTT sample (web servers: WebBootPhases in web.h).
    void SetBootOf(std::function<double(const Address&)> f)
    {
        m_bootOf = std::move(f);
    }

    /// A listener's hook, called on each fork with the fork and the peer's address (web
    /// servers: the fork takes its connection's counters and holds its client's port).
    void SetOnFork(std::function<void(AqmTcpSocket&, const Address&)> f)
    {
        m_onFork = std::move(f);
    }

    /// Called once when a passive close ends (LAST_ACK, our FIN acknowledged): ns-2's
    /// Full-TCP then calls finish() and reset() (web.h, WebBootPhases).
    void SetOnPassiveCloseDone(std::function<void()> f)
    {
        m_onPassiveCloseDone = std::move(f);
    }

    /// FullLastSegment: a finite transfer goes out as whole segments (Sender).
    bool FullLastSegment() const
    {
        return m_fullLastSegment;
    }

    /// NoFinAfterTransfer: a finite transfer ends without a FIN (Sender).
    bool NoFinAfterTransfer() const
    {
        return m_noFinAfterTransfer;
    }

    /// Count this socket's events into `stats` (sender side only; may be null).
    void SetStats(FlowStats* stats)
    {
        m_stats = stats;
    }

    /// This sender's packets pass a processing-time hold (flow `flow` of `table`): it is
    /// told when each is held and released (see "Processing hold").
    void ListenToHold(std::shared_ptr<HoldListeners> table, uint32_t flow)
    {
        m_holdTable = std::move(table);
        m_holdFlow = flow;
        m_holdTable->Set(flow, this);
    }

    /// Write this sender's events to the flow trace if its port is wanted (TcpTrace).
    void TraceIfWanted(uint16_t port)
    {
        m_tracePort = TcpTrace::Wants(port) ? port : 0;
    }

    // ---- Fast demultiplexing (fast_demux.h) ------------------------------------------
    // A connection joins the demultiplexer's table as soon as its 4-tuple is known, so
    // none of its segments takes ns-3's linear endpoint scan; a listener takes the SYNs.
    int Connect(const Address& address) override
    {
        m_scaleWanted = m_winScalingEnabled; // BareSyn: before a bare SYN/ACK turns it off
        m_sackWanted = m_sackEnabled;
        const int r = TcpSocketBase::Connect(address);
        if (r == 0 && FastListenEnabled())
        {
            RegisterFastOnce();
        }
        if (r == 0 && m_lastAckIgnoresFin && m_endPoint != nullptr)
        {
            m_endPoint->SetRxCallback(
                MakeCallback(&AqmTcpSocket::LastAckForwardUp, Ptr<AqmTcpSocket>(this)));
        }
        return r;
    }

    int Listen() override
    {
        m_scaleWanted = m_winScalingEnabled; // BareSyn: before a bare SYN turns it off
        m_sackWanted = m_sackEnabled;
        const int r = TcpSocketBase::Listen();
        FastTcpDemux* d = m_tcp ? FastTcpDemux::For(PeekPointer(m_tcp)) : nullptr;
        if (r == 0 && d != nullptr && FastListenEnabled() && m_endPoint != nullptr &&
            m_endPoint->GetLocalPort() != 0)
        {
            m_listenPort = m_endPoint->GetLocalPort();
            d->RegisterListener(m_listenPort, this, m_endPoint, &AqmTcpSocket::OwnsEndpoint);
        }
        return r;
    }

  protected:
    // ns-3 3.44's TcpCubic copy constructor (used by Fork) does not copy the
    // TcpFriendliness attribute: an accepted socket's CUBIC reads an uninitialised bool,
    // so server-side CUBIC changed from run to run with the heap's contents. The fork
    // takes the listener's value explicitly.
    Ptr<TcpSocketBase> Fork() override
    {
        if (Ns2ClockSimulatorImpl* sim = Ns2ClockSimulatorImpl::Current())
        {
            // ProcessListen schedules CompleteFork now; ns-2's listener answers in the SYN's
            // own event (RunNextNowInline)
            sim->RunNextNowInline();
        }
        Ptr<AqmTcpSocket> s = CopyObject<AqmTcpSocket>(this);
        if (DynamicCast<TcpCubic>(m_congestionControl) != nullptr)
        {
            BooleanValue friendly;
            m_congestionControl->GetAttribute("TcpFriendliness", friendly);
            s->m_congestionControl->SetAttribute("TcpFriendliness", friendly);
        }
        return s;
    }

    void CompleteFork(Ptr<Packet> p, const TcpHeader& h, const Address& fromAddress,
                      const Address& toAddress) override
    {
        TcpSocketBase::CompleteFork(p, h, fromAddress, toAddress);
        if (m_bootOf)
        {
            if (const double b = m_bootOf(fromAddress); b >= 0)
            {
                m_bootFraction = b;
            }
        }
        if (m_onFork)
        {
            m_onFork(*this, fromAddress);
        }
        if (FastListenEnabled())
        {
            RegisterFastOnce();
        }
        // the accepted socket receives the data: its arrivals pass EveryCeForwardUp
        m_everyCeRx = m_everyCeMark;
        if (m_lastAckIgnoresFin && m_endPoint != nullptr)
        {
            m_endPoint->SetRxCallback(
                MakeCallback(&AqmTcpSocket::LastAckForwardUp, Ptr<AqmTcpSocket>(this)));
        }
        else if (m_everyCeRx && m_endPoint != nullptr)
        {
            m_endPoint->SetRxCallback(
                MakeCallback(&AqmTcpSocket::EveryCeForwardUp, Ptr<AqmTcpSocket>(this)));
        }
    }

    // ---- A resent FIN in LAST_ACK (LastAckIgnoresFin) -----------------------------------
    // ns-2's Full-TCP drops every segment carrying a FIN in LAST_ACK, its ACK field unread
    // ("the only way we're in LAST_ACK is if we've already received a FIN, so ignore all
    // retransmitted FINs", tcp-full.cc recv()). ns-3 acknowledges it: a resent FIN lies
    // below the receive point, and ForwardUp (not virtual) answers it with a bare ACK
    // before DoForwardUp. Weigle's 80 % load, seed 1: a client's ACK and FIN were both
    // lost; when the server resent its last segment and FIN, ns-3's client acknowledged
    // them at once, ns-2.35's stayed silent and resent its own FIN on its timer a second
    // later. The endpoint of a socket with LastAckIgnoresFin calls this instead of
    // ForwardUp (or EveryCeForwardUp, which it then calls for an accepted socket).
    void LastAckForwardUp(Ptr<Packet> packet, Ipv4Header header, uint16_t port,
                          Ptr<Ipv4Interface> iface)
    {
        if (m_state == LAST_ACK)
        {
            TcpFields tcp;
            if (PeekTcp(*packet, tcp) && (tcp.flags & TcpHeader::FIN))
            {
                return;
            }
        }
        if (m_everyCeRx)
        {
            EveryCeForwardUp(packet, header, port, iface);
        }
        else
        {
            TcpSocketBase::ForwardUp(packet, header, port, iface);
        }
    }

    // ---- Every CE mark (ns-2's sink) ------------------------------------------------------
    // ns-2.35's sink (TcpSink::ack, tcp-sink.cc) decides every ACK's ECN-Echo the same way:
    // a CWR on the held or the arriving packet clears ecn_unacked_, then any ECT packet
    // with CE among them sets it, whatever its seqno, and the ACK echoes ecn_unacked_.
    // ns-3 3.44 parts from it twice, in ForwardUp (not virtual; the endpoint calls it):
    //  * it takes a CE mark only on a segment beyond the last CE-marked one (m_ecnCESeq <
    //    seq), so a marked retransmission of a hole below an earlier mark is not echoed;
    //  * a segment wholly below the receive point (a duplicate of data already received)
    //    is answered by IsValidTcpSegment with a bare ACK before the CE and CWR tests:
    //    never an echo, and its CE and CWR are not read.
    // Pentikousis' aggressive RED+ECN at limit 16 (five 20-MiB downloads): seed 1, flow 0,
    // segment 8006's fast retransmission (with CWR) was marked on both engines at
    // 305.688 s; ns-2.35's ACK of it echoed, ns-3's did not (the first rule). Seed 3, flow
    // 3: after a timeout's go-back-N, segment 321 arrived again, marked, at 12.75 s; ns-2's
    // duplicate ACK echoed, ns-3's did not (the second). tests/differential/
    // test_every_ce_mark.py. With EveryCeMark the accepted socket's endpoint calls
    // EveryCeForwardUp: m_ecnCESeq is put a quarter of the sequence space below the receive
    // point (ns-3's test then passes for every segment the receiver can still get), and a
    // bare ACK sent before DoForwardUp (IsValidTcpSegment's) applies the arriving
    // segment's CWR and CE as ns-3's DoForwardUp and ForwardUp would, and echoes the state.
    void EveryCeForwardUp(Ptr<Packet> packet, Ipv4Header header, uint16_t port,
                          Ptr<Ipv4Interface> iface)
    {
        m_ecnCESeq = m_tcb->m_rxBuffer->NextRxSequence() - int32_t{0x40000000};
        TcpFields tcp;
        PeekTcp(*packet, tcp);
        m_arrivalCe = header.GetEcn() == Ipv4Header::ECN_CE;
        m_arrivalCwr = tcp.flags & TcpHeader::CWR;
        m_beforeDoForwardUp = true;
        TcpSocketBase::ForwardUp(packet, header, port, iface);
        m_beforeDoForwardUp = false;
    }

    /// A bare ACK sent for an arrival before DoForwardUp (ns-3's answer to a segment below
    /// the receive point): the ECN-Echo ns-2's sink would put on it (see "Every CE mark").
    uint8_t EveryCeEcho(uint8_t flags)
    {
        if (!m_beforeDoForwardUp || flags != TcpHeader::ACK ||
            m_tcb->m_ecnState == TcpSocketState::ECN_DISABLED)
        {
            return flags;
        }
        m_beforeDoForwardUp = false;
        if (m_arrivalCe)
        {
            m_tcb->m_ecnState = TcpSocketState::ECN_CE_RCVD;
        }
        else if (m_arrivalCwr && m_tcb->m_ecnState != TcpSocketState::ECN_CE_RCVD)
        {
            m_tcb->m_ecnState = TcpSocketState::ECN_IDLE;
        }
        if (m_tcb->m_ecnState == TcpSocketState::ECN_CE_RCVD ||
            m_tcb->m_ecnState == TcpSocketState::ECN_SENDING_ECE)
        {
            m_tcb->m_ecnState = TcpSocketState::ECN_SENDING_ECE;
            return flags | TcpHeader::ECE;
        }
        return flags;
    }

    // ---- Closing (RFC 793) -----------------------------------------------------------
    // ns-3 3.44 ignores every segment in TIME_WAIT and every non-SYN segment reaching a
    // listening socket. With lost final ACKs that strands the passive closer in LAST_ACK,
    // retransmitting its FIN forever: in two-way web traffic hundreds of such sockets pile
    // up and every packet's endpoint lookup (a linear scan) slows down with them.
    //  * ESTABLISHED: a FIN's acknowledgement field is processed before the FIN (RFC 793
    //    p. 72; ns-2 too). ns-3 hands FIN|ACK straight to PeerClose, so the data it
    //    acknowledges (a web client's request, acked by the response that carries the
    //    server's FIN) stays "unacked" and its retransmission timer keeps running: when
    //    the client's ACK and FIN were lost, that stale timer resent the request and
    //    closed the exchange before the server's own RTO (measured: ns-3 no server
    //    timeout where ns-2 has one, 25 vs 1158 in a 300-s drop-tail run at 105 %).
    //  * TIME_WAIT: "the only thing that can arrive in this state is a retransmission of
    //    the remote FIN. Acknowledge it, and restart the 2 MSL timeout" (RFC 793 p. 73).
    //  * LISTEN: an ACK-bearing segment (e.g. that FIN once TIME_WAIT has ended) is
    //    answered with <SEQ=SEG.ACK><CTL=RST> (RFC 793 p. 65); other segments are dropped.
    //  * LAST_ACK with LastAckIgnoresFin: see LastAckForwardUp.
    void DoForwardUp(Ptr<Packet> packet, const Address& from, const Address& to) override
    {
        m_beforeDoForwardUp = false; // see "Every CE mark"
        if (m_ignoreDupSyn && m_state == SYN_RCVD && IsDuplicateSyn(packet))
        {
            m_dupSynAckOwed = true;
            return; // Full-TCP: our SYN/ACK's timer will resend it (see "Full-TCP" below)
        }
        if (m_ackDupSynAck && m_state == ESTABLISHED && IsDuplicateSynAck(packet))
        {
            // Full-TCP's recv(): the SYN lies below rcv_nxt_, is trimmed as an old segment,
            // and a completely duplicate segment sets TF_ACKNOW ("send an ACK to
            // resynchronize"); its old ACK field changes nothing. ns-3 ignores it, so a
            // listener whose handshake ACK and first data were both lost waited for the
            // data's retransmission instead of being established by its SYN/ACK retry.
            SendEmptyPacket(TcpHeader::ACK);
            return;
        }
        const bool synRcvd = m_state == SYN_RCVD;
        const bool lastAck = m_state == LAST_ACK;
        NagleForNewDataOnly(); // an ACK may make ns-3 send or resend
        if (m_state == ESTABLISHED)
        {
            AckOfFin(packet);
            m_bareFinIn = m_fullTcpFin && IsBareFin(packet);
        }
        const bool earlyFin = m_ackEarlyFin && IsEarlyFin(packet);
        const bool synSent = m_state == SYN_SENT;
        RegisterFastOnce(); // later segments skip ns-3's linear endpoint scan
        if (m_state == TIME_WAIT || m_state == LISTEN)
        {
            TcpHeader h;
            packet->PeekHeader(h);
            const uint8_t flags = h.GetFlags();
            if (m_state == TIME_WAIT && (flags & TcpHeader::FIN) && !(flags & TcpHeader::RST))
            {
                SendEmptyPacket(TcpHeader::ACK);
                m_timewaitEvent.Cancel();
                m_timewaitEvent = Simulator::Schedule(Seconds(2 * m_msl),
                                                      &AqmTcpSocket::CloseAndNotify, this);
                return;
            }
            if (m_state == LISTEN && !(flags & (TcpHeader::SYN | TcpHeader::RST)))
            {
                if (flags & TcpHeader::ACK)
                {
                    TcpHeader rst;
                    rst.SetFlags(TcpHeader::RST);
                    rst.SetSequenceNumber(h.GetAckNumber());
                    rst.SetSourcePort(h.GetDestinationPort());
                    rst.SetDestinationPort(h.GetSourcePort());
                    m_tcp->SendPacket(Create<Packet>(), rst, to, from, m_boundnetdevice);
                }
                return;
            }
        }
        m_holdHandshakeAck = synSent && m_ackWithData;
        TcpSocketBase::DoForwardUp(packet, from, to);
        m_holdHandshakeAck = false;
        if (earlyFin)
        {
            SendEmptyPacket(TcpHeader::ACK);
        }
        if (lastAck && m_state == CLOSED && m_onPassiveCloseDone)
        {
            auto done = std::move(m_onPassiveCloseDone);
            m_onPassiveCloseDone = nullptr;
            done();
        }
        if (m_bareSyn)
        {
            RestoreSack(); // a bare SYN or SYN/ACK turned it off (BareSynSendEmptyPacket)
        }
        if (m_handshakeAckHeld)
        {
            // after ConnectionSucceeded, which ProcessSynSent scheduled now: the
            // application's first Send has then scheduled the data
            m_handshakeAckHeld = false;
            Simulator::ScheduleNow(&AqmTcpSocket::HandshakeAckUnlessData, this);
        }
        if (synSent && m_state != SYN_SENT && m_synTimeouts > 0)
        {
            m_tcb->m_ssThresh = m_synSsThresh; // ns-3 reset it on the SYN/ACK; ns-2 keeps it
            if (m_synLossWindowOne)
            {
                // TcpAgent::timeout(): packet 0 lost, wnd_init_ = 1 (bugfix_ss_, RFC
                // 3390), and the first new ACK sets cwnd_ = initial_window() (delay_growth_)
                SetExactCwnd(m_tcb->m_segmentSize);
            }
        }
        if (synRcvd && m_dupSynAckOwed && m_state == ESTABLISHED)
        {
            m_dupSynAckOwed = false;
            SendEmptyPacket(TcpHeader::ACK); // the ACK ns-2 owed the ignored SYN (TF_ACKNOW)
        }
        if ((synSent || synRcvd) && m_state == ESTABLISHED && m_synTimeouts > 0 &&
            !ManagesRto()) // else the timer is ours (HandshakeAcked)
        {
            m_rto = Max(m_cnTimeout, m_minRto); // no sample: the initial RTO, no back-off
        }
        if (m_finOnRto && m_state == LAST_ACK)
        {
            m_lastAckEvent.Cancel(); // the FIN's retransmission timer (m_rto) resends it
        }
        if (m_state == FIN_WAIT_2 && !m_finWait2Event.IsPending())
        {
            // No FIN will come if the peer closed on a stray ACK while its own FIN was
            // lost: give up after Linux's tcp_fin_timeout (60 s), as real stacks do.
            m_finWait2Event = Simulator::Schedule(Seconds(60), &AqmTcpSocket::FinWait2Timeout,
                                                  this);
        }
    }

    /// The acknowledgement a FIN|ACK carries in ESTABLISHED, processed first (see
    /// "Closing"); only when it acknowledges new data (never as a duplicate ACK). Every
    /// segment in ESTABLISHED comes here: its flags are read from the header's bytes
    /// (PeekTcp, AQMLAB_RAW_HEADERS) and only a FIN's header is deserialized.
    void AckOfFin(Ptr<const Packet> packet)
    {
        TcpFields fields;
        if (!PeekTcp(*packet, fields) || !(fields.flags & TcpHeader::FIN))
        {
            return;
        }
        TcpHeader h;
        packet->PeekHeader(h);
        const uint8_t flags = h.GetFlags();
        if ((flags & TcpHeader::FIN) && (flags & TcpHeader::ACK) && !(flags & TcpHeader::RST) &&
            h.GetAckNumber() > m_txBuffer->HeadSequence() &&
            h.GetAckNumber() <= m_tcb->m_highTxMark)
        {
            h.SetFlags(flags & ~TcpHeader::FIN);
            ReceivedAck(Create<Packet>(), h);
        }
    }

    void RegisterFastOnce()
    {
        if (!m_fastRegistered && m_endPoint != nullptr && m_endPoint->GetPeerPort() != 0)
        {
            RegisterFast();
        }
    }

    void RegisterFast()
    {
        m_fastRegistered = true;
        FastTcpDemux* d = FastTcpDemux::For(PeekPointer(m_tcp));
        if (d == nullptr || m_endPoint->GetLocalAddress() == Ipv4Address::GetAny())
        {
            return;
        }
        m_fastKey = TcpKey{m_endPoint->GetLocalAddress().Get(), m_endPoint->GetPeerAddress().Get(),
                           m_endPoint->GetLocalPort(), m_endPoint->GetPeerPort()};
        d->Register(m_fastKey, this, m_endPoint, &AqmTcpSocket::OwnsEndpoint);
    }

    static bool OwnsEndpoint(const void* socket, const Ipv4EndPoint* ep)
    {
        return static_cast<const AqmTcpSocket*>(socket)->m_endPoint == ep;
    }

    void FinWait2Timeout()
    {
        if (m_state == FIN_WAIT_2)
        {
            CloseAndNotify();
        }
    }

    // ---- Full-TCP's fast recovery -------------------------------------------------------
    // ns-2's Full-TCP Reno (web connections) sets cwnd_ = ssthresh_ + dupacks_ at the third
    // duplicate ACK and adds one per later dupack (extra_ack), against a flight of
    // t_seqno_ - highest_ack_: every dupack from the first frees a segment. It sends only
    // the fast retransmission at the third (dupack_action, then `goto drop`, no
    // send_much); the fourth and later send what the window allows. ns-3's classic
    // recovery (cwnd = ssthresh) counts a dupack as a segment gone (an emulated SACK mark)
    // from the third on; without limited transmit the first two free nothing, so new data
    // left two dupacks later than on ns-2 (a 20-segment response, segment 5 of a 10-segment
    // window lost: ns-2.35 sent two new segments on the fourth and fifth dupacks, ns-3 none,
    // and the response ended a round trip later). With RenoFullTcpWindow the two marks are
    // added at the fourth dupack, before it is processed: the third sends nothing new (as
    // ns-3 did), the fourth and later as ns-2.
    // Full-TCP keeps that inflation in cwnd_ itself, so a timeout during the recovery (a
    // lost fast retransmission) halves min(ssthresh_ + dupacks_, window_) (slowdown() of
    // the inflated cwnd_), where the one-way Reno halves cwnd_ without its separate
    // dupwnd_. A 100-segment response losing segment 11 and its fast retransmission
    // (arrivals 13 and 26): the flight ran on to the 74-segment receive window, cwnd_ was
    // 80 at the timeout and ssthresh_ became 37 on ns-2.35, so slow start ran through the
    // rest of the response; ns-3's cwnd = ssthresh gave 3, congestion avoidance from
    // there, and the response ended a round trip later.
    double FullTcpInflatedCwnd(double cwnd) const
    {
        if (!m_renoFullTcpWindow || m_sackEnabled ||
            m_tcb->m_congState != TcpSocketState::CA_RECOVERY)
        {
            return cwnd;
        }
        return std::max<double>(cwnd, m_tcb->m_cWndInfl.Get());
    }

    void CountFullTcpDupacks()
    {
        const uint32_t mss = m_tcb->m_segmentSize;
        for (; m_fullTcpMarksOwed > 0; --m_fullTcpMarksOwed)
        {
            // a segment above the head not yet marked: the sent list holds it
            const uint32_t outstanding = m_tcb->m_highTxMark.Get() - m_txBuffer->HeadSequence();
            if (m_txBuffer->GetSacked() + 2 * mss > outstanding)
            {
                m_fullTcpMarksOwed = 0;
                break;
            }
            m_txBuffer->AddRenoSack();
        }
    }


    // ---- Reno -------------------------------------------------------------------------
    // Without SACK, ns-3 emulates a scoreboard from duplicate ACKs: each dupack marks the
    // next segment after SND.UNA "sacked" (TcpTxBuffer::AddRenoSack, also for the limited
    // transmit dupacks in CA_DISORDER), which deflates BytesInFlight and so plays the role
    // of ns-2's window inflation. These marks are guesses: the dupacks of one loss mark
    // the segments right after the hole, including a second hole of the same window.
    //
    // Three changes give ns-2 Reno on top of that machinery:
    //  1. ReceivedAck: on every new cumulative ACK, forget the emulated SACK marks BEFORE
    //     the base class discards the acknowledged data. Otherwise, when such an ACK stops
    //     at a segment that a dupack had marked "sacked" (the next hole of the window),
    //     TcpTxBuffer::DiscardUpTo "repairs" the impossible sacked head by marking it
    //     LOST. A lost mark that survives fast recovery is never Reno:
    //       - SendPendingData retransmits it at once (NewReno's partial-ACK retransmission);
    //       - in CA_DISORDER, IsLost(SND.UNA) is then true, so the next recovery starts
    //         after 1-2 dupacks and retransmits the same segment a second time.
    //     The receiver already holds that duplicate, answers it with a dupack, and that
    //     dupack's limited-transmit mark becomes, at the next ACK, another "sacked" head
    //     marked lost: a self-sustaining chain of spurious retransmissions and recoveries
    //     (measured before this fix: one RED flow with 243 fast recoveries and 590
    //     retransmissions for 17 drops). The same happens after the CA_DISORDER -> CA_OPEN
    //     transition, where the base class keeps the limited-transmit marks.
    //     A new cumulative ACK makes all those marks meaningless in Reno (ns-2 resets
    //     dupacks_ to 0), so they are dropped; nothing is then marked lost after recovery
    //     (the fast-retransmitted head is always covered by the ACK that ends it).
    //  2. ProcessAck: in fast recovery, a new ACK below the recovery point (a partial ACK)
    //     lowers m_recover to that ACK, so the base class takes its full-ACK branch: leave
    //     recovery with cwnd = ssthresh, reset the dupack count and deactivate the
    //     recovery point. A later hole then needs three new dupacks (DupAck may re-enter
    //     recovery because m_recoverActive is false: ns-2 Reno's allow_fast_retransmit
    //     after a dupack action), or ends in a retransmission timeout.
    //  3. Halving (ProcessAck, ReTxTimeout): ns-3 sets ssthresh = BytesInFlight/2, ns-2
    //     Reno ssthresh = min(cwnd, rwnd)/2 in whole segments (slowdown(), window()/2,
    //     at least 2). Both agree on a first loss, when the flight is one cwnd. Right after
    //     a Reno exit, however, the flight still holds the whole old window plus what the
    //     inflated window sent, so ns-3's second fast retransmit "halved" cwnd from 15 to
    //     20.5 segments, and a timeout after an exit set ssthresh to 8.5-9 segments with
    //     cwnd 10 (ns-2: 5) (both measured). In Reno mode ssthresh is recomputed the ns-2
    //     way from the cwnd before the event (classic recovery is re-entered with it).
    // After a timeout the RFC 6582 / ns-2 bugfix_ rule in ReTxTimeout applies to Reno too.
    void ReceivedAck(Ptr<Packet> packet, const TcpHeader& wireHeader) override
    {
        TcpHeader expanded; // ns-2's compact SACK option as ns-3's (ns2_sack_wire.h)
        const TcpHeader& tcpHeader = Ns2SackWire::Expand(wireHeader, expanded);
        if (tcpHeader.GetAckNumber() > m_txBuffer->HeadSequence())
        {
            EndLossDupwnd(); // recv(): dupwnd_ = 0 at a new ACK
        }
        // ns-2 Reno's dupwnd_ as this ACK finds it (ecn() runs before recv() counts a
        // duplicate or clears dupwnd_ at a new ACK; see "ECN echo during a loss recovery")
        m_dupwndBeforeAck = m_tcb->m_congState == TcpSocketState::CA_RECOVERY ? m_ns2Dupwnd : 0;
        if (m_tcb->m_congState == TcpSocketState::CA_RECOVERY &&
            tcpHeader.GetAckNumber() == m_txBuffer->HeadSequence())
        {
            ++m_ns2Dupwnd; // recv(): ++dupwnd_ past the numdupacks_-th duplicate
        }
        if (m_fullTcpMarksOwed > 0 && m_tcb->m_congState == TcpSocketState::CA_RECOVERY &&
            tcpHeader.GetAckNumber() == m_txBuffer->HeadSequence() && packet->GetSize() == 0)
        {
            CountFullTcpDupacks();
        }
        if (m_reno && !m_sackEnabled && m_txBuffer->GetSacked() > 0 &&
            tcpHeader.GetAckNumber() > m_txBuffer->HeadSequence())
        {
            m_txBuffer->ResetRenoSack();
        }
        if (m_cwrFastRetransmit && m_tcb->m_congState == TcpSocketState::CA_CWR &&
            tcpHeader.GetAckNumber() > m_recover)
        {
            // This ACK ends CWR (in the base class): the duplicate ACKs counted during CWR
            // were for a hole it has filled (see "Loss during CWR" below).
            m_dupAckCount = 0;
        }
        m_stateBeforeAck = m_tcb->m_congState; // the base class may enter CWR from it
        m_cwndBeforeAck = ExactCwnd();
        m_recoverBeforeAck = m_recover;
        m_ackEce = (tcpHeader.GetFlags() & TcpHeader::ECE) != 0;
        m_cwrCutThisAck = false;
        m_ecnIgnored = EcnEchoIgnored(tcpHeader);
        TcpHeader hidden;
        if (m_ecnIgnored)
        {
            hidden = tcpHeader;
            hidden.SetFlags(uint8_t(hidden.GetFlags() & ~uint8_t(TcpHeader::ECE)));
        }
        const TcpHeader& header = m_ecnIgnored ? hidden : tcpHeader;
        m_ecnCutThisAck = false;
        if (EcnEchoOnDupAck(packet, tcpHeader))
        {
            // ecn() before the duplicate test: the cut precedes whatever this duplicate
            // ACK does (a third one's fast retransmit keeps the cut window, CwrLossRecovery)
            EnterCwr(0);
            EcnHalveWindow(true);
            m_ecnCutThisAck = true;
        }
        // recv(): a new ACK of everything sent (ackno == maxseq_) forces the output after it
        const ForcedOutput forced(this, tcpHeader.GetAckNumber() > m_txBuffer->HeadSequence() &&
                                            tcpHeader.GetAckNumber() == m_tcb->m_highTxMark.Get());
        if (Sack1())
        {
            FullTcpLossDupacks(packet, tcpHeader);
            const bool ignoreSack = Sack1Ack(header);
            TcpSocketBase::ReceivedAck(packet, ignoreSack ? Ns2SackWire::WithoutSack(header) : header);
            Sack1Send();
            FullTcpLossSend();
        }
        else
        {
            TcpSocketBase::ReceivedAck(packet, header);
        }
        FullTcpFinWhenAcked();
        if (m_tracePort)
        {
            Trace('A', tcpHeader.GetAckNumber());
        }
    }

    // ---- Full-TCP's FIN (FullTcpFin) ---------------------------------------------------
    // ns-2.35's Full-TCP, closed with data to send (close_on_empty_, as PackMime's and
    // aqmlab's web servers close), sets the FIN on the segment that empties its buffer only
    // if that segment leaves with nothing outstanding (foutput(): quiet = highest_ack_ ==
    // maxseq_); otherwise no FIN rides on it, and the ACK of everything (recv(): ackno ==
    // maxseq_ sets needoutput, send_much(1)) sends a bare FIN. ns-3 puts the FIN on the
    // segment that empties the buffer (SendDataPacket with m_closeOnEmpty). A segment sent
    // with data outstanding therefore leaves here with m_closeOnEmpty off for that call,
    // and the ACK that leaves nothing in the buffer sends the FIN alone (DoClose).

    /// Whether this send should leave without the FIN ns-3 would put on it (once the FIN
    /// is out, a resent last segment carries it on both: outflags() in FIN_WAIT_1).
    bool FullTcpFinHeld() const
    {
        return m_fullTcpFin && m_closeOnEmpty &&
               (m_state == ESTABLISHED || m_state == CLOSE_WAIT) &&
               m_txBuffer->HeadSequence() != m_tcb->m_highTxMark.Get();
    }

    // ---- FINs while closing (FinOnClosingAcks, AckEarlyFin) ------------------------------
    // Full-TCP's outflags() put FIN on every packet sent in FIN_WAIT_1, CLOSING and
    // LAST_ACK, and foutput() keeps it on any packet that empties the send buffer, so an
    // ACK sent once all data is out is a FIN again, at the FIN's sequence number (ns-3: a
    // plain ACK one past it). The peer may lack data before it: Full-TCP's recv() takes
    // such an early FIN as out-of-order data (reass(), TF_ACKNOW) and answers at once with
    // a duplicate ACK; ns-3's PeerClose notes the FIN's place and stays silent. Weigle's
    // 80 % load, seed 1: a 500-byte response and its FIN were lost; the client's request
    // timer resent the request, the server acknowledged it (with the FIN, on ns-2.35) as
    // its own timer resent the response, and ns-2.35's client sent one packet more
    // (test_closing_fin.py).
    bool IsEarlyFin(Ptr<const Packet> packet) const
    {
        if (m_state != ESTABLISHED && m_state != FIN_WAIT_1 && m_state != FIN_WAIT_2)
        {
            return false;
        }
        TcpFields fields;
        if (!PeekTcp(*packet, fields) || !(fields.flags & TcpHeader::FIN) ||
            (fields.flags & (TcpHeader::SYN | TcpHeader::RST)) ||
            packet->GetSize() != fields.headerBytes)
        {
            return false;
        }
        TcpHeader h;
        packet->PeekHeader(h);
        return h.GetSequenceNumber() > m_tcb->m_rxBuffer->NextRxSequence() &&
               h.GetSequenceNumber() <= m_tcb->m_rxBuffer->MaxRxSequence();
    }

    /// FinOnClosingAcks: `flags` with the FIN added where Full-TCP's ACK would carry it.
    uint8_t ClosingAckFlags(uint8_t flags) const
    {
        const bool plainAck = (flags & TcpHeader::ACK) &&
                              !(flags & (TcpHeader::SYN | TcpHeader::FIN | TcpHeader::RST));
        return plainAck &&
                       (m_state == FIN_WAIT_1 || m_state == CLOSING || m_state == LAST_ACK) &&
                       m_tcb->m_nextTxSequence >= m_txBuffer->TailSequence()
                   ? flags | TcpHeader::FIN
                   : flags;
    }

    /// Whether `packet` (TCP header first) is a FIN without data.
    static bool IsBareFin(Ptr<const Packet> packet)
    {
        TcpHeader h;
        packet->PeekHeader(h);
        return (h.GetFlags() & TcpHeader::FIN) && packet->GetSize() == h.GetSerializedSize();
    }

  public:
    /// For an application closing at the peer's FIN (web clients): a bare FIN is
    /// acknowledged at once, before our own FIN leaves (Full-TCP's recv(): TF_ACKNOW, then
    /// usrclosed() in CLOSE_WAIT); a FIN on data already was, by that data's ACK.
    void AckBareFin()
    {
        if (m_bareFinIn)
        {
            m_bareFinIn = false;
            SendEmptyPacket(TcpHeader::ACK);
        }
    }

  protected:
    /// After an ACK: the FIN held back, once nothing is left to acknowledge or send.
    void FullTcpFinWhenAcked()
    {
        if (m_fullTcpFin && m_closeOnEmpty && m_txBuffer->Size() == 0 &&
            (m_state == ESTABLISHED || m_state == CLOSE_WAIT))
        {
            DoClose();
        }
    }

    // ---- Loss during CWR -------------------------------------------------------------
    // ns-3 3.44 ignores duplicate ACKs while ECN's CWR state reduces the window (DupAck
    // acts only in OPEN, DISORDER and RECOVERY), and CWR ends only when the cumulative
    // ACK passes the recovery point, which a lost segment prevents: every loss found in
    // CWR waits for the retransmission timeout. The dupacks counted meanwhile also
    // survive the return to OPEN, where a SACK sender's next dupack trips ns-3's
    // NS_ASSERT "From OPEN->DISORDER but with N dup ACKs" and aborts the run. ns-2
    // (dupack_action after an ECN window cut) and Linux (CWR -> Recovery) fast-retransmit
    // the segment at once and keep the ssthresh the ECN response set: the window is cut
    // once per window of data. With CwrFastRetransmit (the default) this socket does the
    // same: at the third dupack in CWR (or, with SACK, once the scoreboard marks the head
    // lost) it enters fast recovery as from DISORDER, without a second reduction.
    // Only a CWR entered from OPEN or DISORDER: ns-3 also enters CWR from LOSS (after a
    // timeout, with every segment marked lost) and from RECOVERY; there the dupacks are
    // left to ns-3 (a fast retransmit from LOSS would mark a lost segment SACKed too).
    bool CwrLossRecovery(uint32_t currentDelivered)
    {
        // The base ReceivedAck enters CWR on an ECE and always calls ProcessAck after it,
        // which cannot leave CWR: here a CWR new to this ACK began from m_stateBeforeAck.
        if (m_tcb->m_congState == TcpSocketState::CA_CWR &&
            m_stateBeforeAck != TcpSocketState::CA_CWR)
        {
            m_cwrEnteredFrom = m_stateBeforeAck;
        }
        if (!m_cwrFastRetransmit || m_tcb->m_congState != TcpSocketState::CA_CWR ||
            (m_cwrEnteredFrom != TcpSocketState::CA_OPEN &&
             m_cwrEnteredFrom != TcpSocketState::CA_DISORDER) ||
            (!m_sackEnabled && m_txBuffer->GetLost() > 0) || m_dupAckCount == 0 ||
            !(m_dupAckCount >= m_retxThresh ||
              (m_sackEnabled && m_txBuffer->IsLost(m_highRxAckMark))))
        {
            return false;
        }
        if (!m_sackEnabled)
        {
            m_txBuffer->AddRenoSack(); // as TcpSocketBase::EnterRecovery
            m_txBuffer->MarkHeadAsLost();
        }
        else if (!m_txBuffer->IsLost(m_txBuffer->HeadSequence()))
        {
            m_txBuffer->MarkHeadAsLost();
        }
        m_recover = m_tcb->m_highTxMark;
        m_recoverActive = true;
        m_congestionControl->CongestionStateSet(m_tcb, TcpSocketState::CA_RECOVERY);
        m_tcb->m_congState = TcpSocketState::CA_RECOVERY;
        if (!m_congestionControl->HasCongControl())
        {
            m_recoveryOps->EnterRecovery(m_tcb, m_dupAckCount, UnAckDataCount(),
                                         currentDelivered);
        }
        if (m_reno && !m_sackEnabled && m_renoHalfCwnd && m_ecnCwnd > 0 &&
            !m_congestionControl->HasCongControl() &&
            DynamicCast<TcpClassicRecovery>(m_recoveryOps))
        {
            // ns-2 Reno's dupack_action after an ECN cut (last_cwnd_action_ ECN):
            // retransmit, dupwnd_ = numdupacks_, and cwnd_ left as the ECN response (and
            // the unechoed ACKs since) made it, not set to ssthresh. Every dupack so far
            // frees a segment (ns-3 ignored them in CWR: mark the others here), and the
            // window is kept on leaving recovery and opened there (m_halfCwnd).
            m_halfCwnd = m_ecnCutThisAck ? m_ecnCwnd : m_cwndBeforeAck; // the cut window
            SetExactCwnd(m_halfCwnd);
            for (uint32_t i = 1; i < m_dupAckCount; ++i)
            {
                m_txBuffer->AddRenoSack();
            }
        }
        SendDataPacket(m_highRxAckMark, m_tcb->m_segmentSize, true);
        return true;
    }

    // ---- ECN cut, then a third duplicate ACK, after a timeout (ns-2) ----------------------
    // ns-2 Reno's recv() counts duplicate ACKs (dupacks_, zeroed by a timeout and by a new
    // ACK) in every state, and its dupack_action() at the third after a timeout does
    // nothing (bug_fix_) unless an ECN echo was answered since (EcnOnDupAck: the first
    // echo after a timeout is answered, last_cwnd_action_ = CWND_ACTION_ECN). Then its ECN
    // branch runs: last_cwnd_action_ = CWND_ACTION_DUPACK, reset_rtx_timer(1, 0), the head
    // resent, dupwnd_ = numdupacks_, and each later duplicate ACK adds one to dupwnd_;
    // window() is int(cwnd_) + dupwnd_ and send_much() lets the go-back-N resends out up
    // to it; the next new ACK zeroes dupwnd_. ns-3 (CWR entered from LOSS) ignores the
    // duplicate ACKs. Pentikousis' aggressive RED+ECN, 10 clients, limit 8, 20 MiB, seed 5,
    // flow 8: a timeout at 104.344 s (segment 1459), an echoing duplicate ACK cut cwnd
    // 1 -> 0.5 at 104.348 s, and at the third duplicate ACK (104.442 s) ns-2.35 resent
    // segments 1459-1461 (int(0.5) + 3), which the receiver already had; ns-3 sent nothing
    // and the runs parted there. Only with EcnOnDupAck and ns-2's Reno window (one-way
    // agents; Full-TCP's dupack_action is not traced).
    void EcnBranchAfterTimeout(const SequenceNumber32& ack, const SequenceNumber32& oldHead,
                               bool receivedData)
    {
        if (!m_ecnLossDupacksOn || ack != oldHead || receivedData || ack >= m_tcb->m_highTxMark)
        {
            return;
        }
        const uint32_t mss = m_tcb->m_segmentSize;
        ++m_ecnLossDupacks;
        if (m_lossDupwnd > 0)
        {
            ++m_lossDupwnd; // dupacks_ > numdupacks_, last_cwnd_action_ DUPACK: ++dupwnd_
        }
        else if (m_ecnLossDupacks == m_retxThresh && m_lastCutEcn)
        {
            m_lastCutEcn = false; // last_cwnd_action_ = CWND_ACTION_DUPACK
            RestartTimerAtFastRetransmit();
            m_lossDupwnd = m_retxThresh;
            m_lossDupwndBase = ExactCwnd();
            SendDataPacket(oldHead, mss, true);
        }
        if (m_lossDupwnd > 0)
        {
            // window(): int(cwnd_) + dupwnd_ segments; the exact cwnd_ is restored at the
            // next new ACK (EndLossDupwnd)
            const auto segments = uint32_t(m_lossDupwndBase / mss) + m_lossDupwnd;
            m_tcb->m_cWnd = segments * mss;
            m_tcb->m_cWndInfl = m_tcb->m_cWnd;
        }
    }

    /// A new ACK or a timeout after EcnBranchAfterTimeout: dupwnd_ = 0, cwnd_ as it was.
    void EndLossDupwnd()
    {
        m_ecnLossDupacksOn = false;
        if (m_lossDupwnd > 0)
        {
            m_lossDupwnd = 0;
            SetExactCwnd(m_lossDupwndBase);
        }
    }

    // ---- ECN window cut (ns-2) -----------------------------------------------------------
    // ns-3's EnterCwr sets ssthresh = max(2, flight / 2) segments and (classic recovery)
    // cwnd = ssthresh, and sets cwnd = ssthresh again when CWR ends. ns-2's ecn() calls
    // slowdown(CLOSE_CWND_HALF | CLOSE_SSTHRESH_HALF) with precisionReduce_: cwnd_ =
    // min(cwnd, rwnd) / 2, a real number (at least 1: below 2 segments it sends one at a
    // time), ssthresh_ = that rounded down (at least 2), and nothing resets cwnd_ when the
    // window of data ends. Only for a CWR entered from OPEN/DISORDER (or CWR again) or
    // from LOSS: ns-2 cuts once per window and not during a fast recovery, but after a
    // timeout at the first echo (ecn(): `seqno > recover_ || last_cwnd_action_ ==
    // CWND_ACTION_TIMEOUT`). Pentikousis' conservative RED+ECN, limit 32, 20 MiB, seed 6,
    // flow 0: an echo on the second new ACK after a timeout (16.538 s) cut cwnd 2 -> 1 on
    // ns-2.35, one segment sent; ns-3's EnterCwr left cwnd = ssthresh = 2, two sent.
    void EcnHalveWindow(bool onDupack = false)
    {
        const bool entered =
            m_tcb->m_congState == TcpSocketState::CA_CWR &&
            (m_stateBeforeAck != TcpSocketState::CA_CWR || m_recover != m_recoverBeforeAck);
        const bool fromRecovery = EcnCutInRenoRecovery();
        if (!m_ecnHalvesWindow || !entered || m_ecnCutThisAck ||
            (m_stateBeforeAck != TcpSocketState::CA_OPEN &&
             m_stateBeforeAck != TcpSocketState::CA_DISORDER &&
             m_stateBeforeAck != TcpSocketState::CA_CWR &&
             m_stateBeforeAck != TcpSocketState::CA_LOSS && !fromRecovery))
        {
            return;
        }
        const double mss = m_tcb->m_segmentSize;
        double window = m_cwndBeforeAck; // ns-2 windowd() (before rwnd)
        if (fromRecovery)
        {
            // An echo ns-2 answers in a Reno fast recovery (see "ECN echo during a loss
            // recovery"): slowdown() halves windowd() = cwnd_ + dupwnd_, the window the
            // duplicate ACKs inflated, as ecn() runs before the new ACK clears dupwnd_. The
            // recovery is over (ns-3 went from RECOVERY to CWR): what follows is an ECN
            // cut's window of data, a loss in it fast-retransmitted without a second cut.
            if (m_renoHalfCwnd && m_halfCwnd > 0)
            {
                window += m_dupwndBeforeAck * mss;
            }
            m_halfCwnd = 0;
            m_cwrEnteredFrom = TcpSocketState::CA_OPEN;
            m_recoverActive = false;
        }
        if (m_ecnBelowOne)
        {
            // ns-2 ecn(): an echo answered at cwnd_ <= 1 backs the timer off if the one
            // before was answered at cwnd_ <= 1 too (ecn_backoff_)
            if (m_cwndBeforeAck <= mss)
            {
                if (m_ecnBackoff && ManagesRto())
                {
                    m_clock.Backoff(m_minRto.GetSeconds(), MAX_RTO_S);
                }
                m_ecnBackoff = true;
            }
            else
            {
                m_ecnBackoff = false;
            }
        }
        m_ecnCwnd = m_ecnBelowOne ? std::min<double>(window, m_rWnd.Get()) / 2
                                  : ExactHalfWindow(window);
        m_tcb->m_ssThresh = RenoHalfWindow(window); // max(2, floor(m_ecnCwnd))
        SetExactCwnd(m_ecnCwnd);
        if (m_ecnBelowOne && m_ecnCwnd < mss && ManagesRto() && !onDupack)
        {
            // newtimer(): `cwnd_ < 1` arms the timer, data outstanding or not. newack()
            // calls it, a duplicate ACK does not: Pentikousis' aggressive RED+ECN, 10
            // clients, limit 16, 20 MiB, seed 4, flow 9: a timeout at 954.754 s (back-off
            // 2), an echoing duplicate ACK cut cwnd 1 -> 0.5 at 954.906 s, and ns-2.35's
            // next timeout came at 956.754 s, ns-3's (re-armed) at 956.906 s.
            RearmRetransmitTimer(true);
        }
    }

    // ---- ECN echo during a loss recovery (ns-2) ----------------------------------------
    // ns-3 enters CWR at a new ACK with ECE in any state but CWR, fast recovery included
    // (ReceivedAck: `m_congState != CA_CWR`), and cuts: ssthresh = max(2, flight / 2),
    // cwnd = ssthresh. ns-2's ecn() answers only `seqno > recover_ || last_cwnd_action_ ==
    // CWND_ACTION_TIMEOUT`, and dupack_action() set recover_ = maxseq_ at the fast
    // retransmit: an echo on an ACK up to the highest segment sent then (the one that ends
    // Reno's fast recovery, or any after a partial ACK ended it) is not answered, and
    // recv_newack_helper() opens no window on an echoing ACK. Pentikousis' aggressive
    // RED+ECN, 10 clients, limit 32, 2 MiB, seed 1, flow 6: a fast retransmit at 59.098 s
    // (cwnd 5.206 -> 2.603); the ACK ending the recovery at 59.331 s echoed: ns-2.35 kept
    // 2.603, ns-3 cut to 2. With EcnPastRecover the ECE of such an ACK is hidden from the
    // base class, and the window it would open is kept.
    // recover_ is also set by an answered echo (ecn(): recover_ = maxseq_), and the fast
    // retransmit of a loss found after an ECN cut (dupack_action()'s branch for
    // last_cwnd_action_ == CWND_ACTION_ECN: retransmit, dupwnd_ = numdupacks_, return)
    // leaves it there: an echo on the ACK that ends that recovery, past the ECN cut's
    // highest segment, is answered, and slowdown() halves windowd() = cwnd_ + dupwnd_
    // (ecn() runs before recv() clears dupwnd_ at the new ACK): cwnd_ = (cwnd_ +
    // dupwnd_) / 2, ssthresh_ its floor. The same downloads, seed 3, flow 5: an echo cut
    // cwnd 8.139 -> 4.070 at 84.848 s; segment 1285 was fast-retransmitted at 85.339 s
    // (no second cut, dupwnd_ 3); the echoing ACK of 1285-1288 at 85.588 s cut ns-2.35's
    // cwnd to (4.070 + 3) / 2 = 3.535, ssthresh 3, nothing sent; ns-3 had moved the
    // recovery point to the retransmit's highest segment, hid the echo, kept 4.070 and
    // sent segment 1292 (and cut to 2.034 at the next echo). With EcnPastRecover a Reno
    // recovery ended by an echo ns-2 answers goes to CWR with that cut (EcnHalveWindow).
    // ---- ECN echo on a duplicate ACK (ns-2) --------------------------------------------
    // ns-3 reads ECE on new ACKs only (ReceivedAck: `ackNumber > oldHeadSequence`). ns-2's
    // one-way agents call ecn(seqno) for every ACK before the new/duplicate test
    // (tcp-reno.cc recv(), tcp.cc recv()), so a duplicate ACK that echoes is answered
    // under the same rule as a new one: `seqno > recover_ || last_cwnd_action_ ==
    // CWND_ACTION_TIMEOUT` (recover_: the highest segment sent at the last ECN cut or
    // fast retransmit, m_fastRtxPoint). Pentikousis' aggressive RED+ECN, 10 clients,
    // limit 32, 2 MiB, seed 7, flow 7: an echo cut cwnd at 23.326 s (recover_ segment
    // 259); the first duplicate ACK of segment 262's loss (24.167 s) echoed and ns-2.35
    // cut cwnd 3.513 -> 1.757, ssthresh 2, while ns-3 kept 3.513; the timeout at 24.902 s
    // then left ns-3's ssthresh at 3, and at 25.397 s it sent three segments to
    // ns-2.35's two. With EcnOnDupAck such a duplicate ACK enters CWR and is cut the ns-2
    // way (EcnHalveWindow) before the base class counts it; NoteEcnCut notes the cut. On
    // a third duplicate ACK the fast retransmit follows in the same ACK and keeps the cut
    // window (CwrLossRecovery; dupack_action()'s branch after an ECN cut): flow 0 at
    // 64.876 s, cwnd 4.104 -> 2.052, int(2.052) + dupwnd_ 3 let one new segment out.
    // After a timeout (ns-3's LOSS; last_cwnd_action_ == CWND_ACTION_TIMEOUT) the first
    // echo is answered whatever its sequence number, on a duplicate ACK too: the same
    // downloads at limit 8, flow 0 at 1007.738 s, an ACK sent before the timeout's
    // retransmission echoed and ns-2.35 cut cwnd 1 -> 0.5 (ns-3 kept 1 and sent two
    // segments at the next new ACK to ns-2.35's one).
    bool EcnEchoOnDupAck(Ptr<const Packet> packet, const TcpHeader& h) const
    {
        const SequenceNumber32 ack = h.GetAckNumber();
        return m_ecnDupAck && (h.GetFlags() & TcpHeader::ECE) && packet->GetSize() == 0 &&
               m_tcb->m_ecnState != TcpSocketState::ECN_DISABLED && !m_sack1Active &&
               (m_tcb->m_congState == TcpSocketState::CA_OPEN ||
                m_tcb->m_congState == TcpSocketState::CA_DISORDER ||
                m_tcb->m_congState == TcpSocketState::CA_LOSS) &&
               ack == m_txBuffer->HeadSequence() && ack < m_tcb->m_highTxMark &&
               (!m_fastRtxPointSet || ack > m_fastRtxPoint);
    }

    /// This ACK's echo entered CWR from a Reno fast recovery, and ns-2 answers it
    /// (EcnPastRecover: the echoes it does not answer were hidden from the base class).
    bool EcnCutInRenoRecovery() const
    {
        return m_ecnPastRecover && m_reno && !m_sackEnabled &&
               m_stateBeforeAck == TcpSocketState::CA_RECOVERY;
    }

    bool EcnEchoIgnored(const TcpHeader& h) const
    {
        return m_ecnPastRecover && (h.GetFlags() & TcpHeader::ECE) && m_fastRtxPointSet &&
               m_tcb->m_ecnState != TcpSocketState::ECN_DISABLED &&
               m_tcb->m_congState != TcpSocketState::CA_CWR && h.GetAckNumber() <= m_fastRtxPoint;
    }

    // ---- ECN window below one segment (ns-2) ------------------------------------------
    // ns-2.35's slowdown(CLOSE_CWND_HALF) puts no floor under cwnd_ (the hbatmit fork's
    // "if (cwnd_ < 1) cwnd_ = 1" came with DCTCP): an echo at cwnd 1.8 leaves 0.9, window()
    // is 0 and send_much() sends nothing. newack() -> newtimer() arms the retransmission
    // timer because cwnd_ < 1 even when everything sent is acknowledged; when it expires,
    // timeout() sets cwnd_ = 1 and, with no data outstanding (highest_ack_ == maxseq_,
    // restart_bugfix_), slowdown(CLOSE_CWND_ONE | NO_OUTSTANDING_DATA): ssthresh kept, no
    // back-off (reset_rtx_timer(0, 0)), last_cwnd_action_ = TIMEOUT, and send_much()
    // sends the next new segment (RFC 3168 6.1.2). With EcnWindowBelowOne this socket does
    // the same: cwnd is not floored (SendPendingData waits for a whole segment of window),
    // and EcnWaitExpired below replaces ns-3's ReTxTimeout when nothing is outstanding.
    // Pentikousis' aggressive RED+ECN, 10 clients, limit 32, 2 MiB, seed 1, flow 6: an
    // echo on the ACK of every segment sent at 15.351 s cut cwnd 1.803 -> 0.902 on ns-2.35,
    // which sent segment 135 one RTO later (16.351 s); ns-3 (cwnd 1) sent it at once.

    /// The retransmission timer fired with nothing outstanding and cwnd below a segment
    /// (an ECN cut, EcnWindowBelowOne): ns-2 timeout()'s no-outstanding-data branch.
    bool EcnWaitExpired()
    {
        if (!m_ecnBelowOne || m_state != ESTABLISHED ||
            m_txBuffer->HeadSequence() < m_tcb->m_highTxMark ||
            ExactCwnd() >= m_tcb->m_segmentSize)
        {
            return false;
        }
        SetExactCwnd(m_tcb->m_segmentSize);
        if (m_ecnCwnd > 0)
        {
            m_ecnCwnd = m_tcb->m_segmentSize;
        }
        m_lastCutEcn = false; // last_cwnd_action_ = CWND_ACTION_TIMEOUT
        m_fastRtxPointSet = false;
        m_cwrOwed = m_cwrOwed || m_cwrNextSegment; // slowdown(CLOSE_CWND_ONE): cong_action_
        m_rttActive = false;                       // reset_rtx_timer(0, 0): no back-off
        if (ManagesRto())
        {
            RearmRetransmitTimer(true);
        }
        SendPendingData(m_connected);
        return true;
    }

    /// The ACK that ends CWR: ns-3 set cwnd = ssthresh; ns-2 kept its halved cwnd_, which
    /// this ACK then opens (ProcessAck).
    void KeepEcnWindow()
    {
        if (m_ecnCwnd > 0 && m_tcb->m_congState != TcpSocketState::CA_CWR)
        {
            if (m_stateBeforeAck == TcpSocketState::CA_CWR &&
                m_tcb->m_congState == TcpSocketState::CA_OPEN)
            {
                SetExactCwnd(m_ecnCwnd);
            }
            m_ecnCwnd = 0;
        }
    }

    /// A new ACK without ECN-Echo in the CWR window that followed an ns-2 cut: ns-2's
    /// recv_newack_helper opens cwnd at every new ACK that carries no ECN-Echo
    /// (`if (!ect_ || !ecnecho || (old_ecn_ && ecn_burst_)) opencwnd()`, old_ecn_ 0):
    /// recover_ only stops a second cut within the window, not the growth. The sink keeps
    /// ECN-Echo on its ACKs until a segment with CWR arrives, so the growth starts about a
    /// round trip after the cut. ns-3 (CA_CWR) leaves cwnd alone until the ACK passes the
    /// recovery point. The opened window is what KeepEcnWindow restores when CWR ends.
    void OpenCwndInCwr(TcpSocketState::TcpCongState_t before,
                       const SequenceNumber32& ack,
                       const SequenceNumber32& oldHead)
    {
        if (!m_ecnHalvesWindow || m_ackEce || m_ecnCwnd <= 0 || ack <= oldHead ||
            before != TcpSocketState::CA_CWR || m_stateBeforeAck != TcpSocketState::CA_CWR ||
            m_recover != m_recoverBeforeAck || m_tcb->m_congState != TcpSocketState::CA_CWR)
        {
            return;
        }
        m_congestionControl->IncreaseWindow(m_tcb, 1);
        m_tcb->m_cWndInfl = m_tcb->m_cWnd;
        m_ecnCwnd = ExactCwnd();
    }

    // ---- CWR flag (ns-2) ---------------------------------------------------------------
    // ns-3 sets CWR on the first new data segment sent after an ECN echo, never on a
    // retransmission (SendDataPacket: ECN_ECE_RCVD and !isRetransmission). ns-2's agents
    // set cong_action_ at every window cut (slowdown() with CLOSE_CWND_HALF/_RESTART/_ONE:
    // ecn(), a fast retransmit's dupack_action, timeout()) and output() puts CWR on the
    // next packet sent, a retransmission too (tcp.cc output(): `cong_action_ &&
    // (!is_retransmit || SetCWRonRetransmit_)`, true since 2008, ns-default.tcl), which
    // ends the sink's ECN-Echo. When an echo cuts the window and the next packet is a
    // timeout's retransmission (the window was full), ns-3's receiver goes on echoing, the
    // ACK of the retransmission carries ECN-Echo again, and ns-3 answers it (CWR entered
    // from LOSS: ssthresh = max(2, flight / 2)) where ns-2's sink had stopped echoing
    // (Pentikousis' conservative RED+ECN, limit 32, seed 1: ssthresh 2 segments after
    // 17.62 s instead of ns-2's 3). With CwrOnNextSegment (ECN on) this socket decides the
    // flag of every data segment itself: CWR iff a cut since the last data segment.
    // Cuts: an ECN echo answered (CWR entered, not from fast recovery, where ns-2's
    // ecn() does nothing), a fast retransmit (not the one after an ECN cut in the same
    // window: dupack_action does no slowdown then), a data timeout. The flag is written
    // into SendDataPacket's header from the Tx trace, which fires just before
    // TcpL4Protocol::SendPacket.

    /// An ECN echo answered on this ACK (the base ReceivedAck entered CWR before
    /// ProcessAck, and nothing is sent before ProcessAck ends): ns-2's ecn() cut, the last
    /// window cut now (last_cwnd_action_ = CWND_ACTION_ECN, see ReTxTimeout).
    void NoteEcnCut()
    {
        if (m_tcb->m_congState == TcpSocketState::CA_CWR &&
            (m_stateBeforeAck != TcpSocketState::CA_CWR || m_recover != m_recoverBeforeAck) &&
            (m_stateBeforeAck != TcpSocketState::CA_RECOVERY || EcnCutInRenoRecovery()))
        {
            m_lastCutEcn = true;
            m_cwrOwed = m_cwrOwed || m_cwrNextSegment;
            m_fastRtxPoint = m_recover; // ecn(): recover_ = maxseq_
            m_fastRtxPointSet = true;
        }
    }

    /// Before a data segment leaves: note this ACK's fast retransmit as a cut, and return
    /// whether the segment carries CWR (CwrOnTx writes the flag either way).
    bool CwrBeforeSend(bool retrans)
    {
        if (!m_cwrNextSegment || m_tcb->m_ecnState == TcpSocketState::ECN_DISABLED)
        {
            return false;
        }
        if (retrans && !m_cwrCutThisAck && m_tcb->m_congState == TcpSocketState::CA_RECOVERY &&
            m_stateBeforeAck != TcpSocketState::CA_RECOVERY &&
            m_stateBeforeAck != TcpSocketState::CA_CWR)
        {
            // the fast retransmit this ACK started: slowdown(CLOSE_CWND_HALF)
            m_cwrCutThisAck = true;
            m_cwrOwed = true;
        }
        if (!m_cwrHooked)
        {
            m_txTrace.ConnectWithoutContext(MakeCallback(&AqmTcpSocket::CwrOnTx, this));
            m_cwrHooked = true;
        }
        m_cwrSending = true;
        return m_cwrOwed;
    }

    /// Tx trace sink: SendDataPacket passes its own header (a local object, sent right
    /// after this call), whose CWR flag is set to m_cwrOwed.
    void CwrOnTx(Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase>)
    {
        if (!m_cwrSending)
        {
            return;
        }
        auto& h = const_cast<TcpHeader&>(header);
        const uint8_t flags = h.GetFlags();
        h.SetFlags(m_cwrOwed ? uint8_t(flags | TcpHeader::CWR)
                             : uint8_t(flags & ~uint8_t(TcpHeader::CWR)));
    }

    void ProcessAck(const SequenceNumber32& ack,
                    bool scoreboardUpdated,
                    uint32_t currentDelivered,
                    const SequenceNumber32& oldHead,
                    bool receivedData) override
    {
        NoteEcnCut();
        KeepEcnWindow();
        const uint32_t dupBefore = m_dupAckCount;
        FullTcpRenoLossDeflate(ack, oldHead);
        if (!m_ackEce && ack > oldHead)
        {
            m_ecnBackoff = false; // recv_newack_helper(): no ECN-Echo ends ecn_backoff_
        }
        const auto before = m_tcb->m_congState.Get();
        const double cwndBefore = ExactCwnd();
        const bool reno = m_reno && !m_sackEnabled;
        if (reno && before == TcpSocketState::CA_RECOVERY && ack > oldHead && ack < m_recover)
        {
            // Reno: any new ACK ends fast recovery (see "Reno" above, point 2).
            m_recover = ack;
        }
        const SequenceNumber32 recoverBefore = m_recover;
        const bool sack1 = Sack1();
        if (sack1 && ack > oldHead && (before == TcpSocketState::CA_OPEN ||
                                       before == TcpSocketState::CA_DISORDER))
        {
            m_dupAckCount = 0; // ns-2 newack(): a new ACK is never a duplicate (see "Sack1")
        }
        m_sack1Partial = m_sack1Active && before == TcpSocketState::CA_RECOVERY && ack > oldHead &&
                         ack < m_recover;
        TcpTxItem* const quietHead = m_sack1Partial ? QuietPartialAck(ack) : nullptr;
        if (quietHead != nullptr)
        {
            quietHead->m_retrans = true; // the base class then skips DoRetransmit
        }
        TcpSocketBase::ProcessAck(ack, scoreboardUpdated, currentDelivered, oldHead, receivedData);
        if (quietHead != nullptr)
        {
            quietHead->m_retrans = false;
        }
        if (m_ecnIgnored && before != TcpSocketState::CA_RECOVERY &&
            m_tcb->m_congState == TcpSocketState::CA_OPEN)
        {
            SetExactCwnd(cwndBefore); // an echoing ACK opens no window (recv_newack_helper)
        }
        m_sack1Partial = false;
        LimitedTransmitInLoss(before, ack, oldHead, receivedData);
        FullTcpRenoLossDupack(before, ack, oldHead, receivedData);
        OpenCwndInCwr(before, ack, oldHead);
        if ((!m_sackEnabled || sack1) && before == TcpSocketState::CA_LOSS &&
            m_tcb->m_congState == TcpSocketState::CA_OPEN && ack > oldHead &&
            ack - recoverBefore < m_tcb->m_segmentSize)
        {
            // Leaving the loss state, ns-3 opens cwnd for the segments acked beyond its
            // recovery point, none when the ACK ends less than a segment past it, which
            // with the recovery point one byte past the highest sent (see ReTxTimeout) is
            // the usual case. ns-2 opens cwnd at every new ACK (opencwnd), this one too.
            m_congestionControl->IncreaseWindow(m_tcb, 1);
            m_tcb->m_cWndInfl = m_tcb->m_cWnd;
        }
        GuardFastRetransmit(ack);
        const bool fromCwr = CwrLossRecovery(currentDelivered); // ssthresh already cut
        EcnBranchAfterTimeout(ack, oldHead, receivedData);
        EcnHalveWindow();
        // CWR is entered in ReceivedAck before ProcessAck runs: compare with the state
        // seen at the end of the previous ACK, not with `before`.
        const auto after = m_tcb->m_congState.Get();
        if (reno && !fromCwr && before != TcpSocketState::CA_RECOVERY &&
            after == TcpSocketState::CA_RECOVERY)
        {
            // This ACK was the fast retransmit: halve the ns-2 way (point 3). The packets
            // go out after ProcessAck (SendPendingData), so they see the corrected cwnd.
            // Classic recovery (stateless) is re-entered to set cwnd = ssthresh; PRR
            // (stateful, already counted the retransmission) takes the new ssthresh as
            // its target from the next ACK on.
            m_tcb->m_ssThresh = RenoHalfWindow(cwndBefore);
            const bool classic = !m_congestionControl->HasCongControl() &&
                                 DynamicCast<TcpClassicRecovery>(m_recoveryOps);
            if (classic)
            {
                m_recoveryOps->EnterRecovery(m_tcb, m_dupAckCount, UnAckDataCount(),
                                             currentDelivered);
            }
            m_fullTcpMarksOwed =
                classic && m_renoFullTcpWindow && !m_renoHalfCwnd && !m_limitedTx
                    ? m_retxThresh - 1
                    : 0;
            if (classic && m_renoHalfCwnd)
            {
                // ns-2 slowdown(CLOSE_CWND_HALF): cwnd_ = min(cwnd, rwnd) / 2, a real
                // number (at least 1), while ssthresh_ is that rounded down (at least 2).
                m_halfCwnd = ExactHalfWindow(cwndBefore);
                SetExactCwnd(m_halfCwnd);
                if (!m_limitedTx)
                {
                    // ns-2 inflates the window by every duplicate ACK (dupwnd_ =
                    // numdupacks_ at the fast retransmit). ns-3 counts a dupack as a
                    // segment gone (an emulated SACK mark) from the third on unless
                    // limited transmit marked the first two: mark them here.
                    for (uint32_t i = 1; i < m_retxThresh; ++i)
                    {
                        m_txBuffer->AddRenoSack();
                    }
                }
            }
        }
        if (reno && m_renoHalfCwnd && m_halfCwnd > 0 && before == TcpSocketState::CA_RECOVERY &&
            after == TcpSocketState::CA_OPEN)
        {
            // Leaving fast recovery: ns-2 keeps that cwnd_ and opens it for this ACK
            // (opencwnd); the base class set cwnd = ssthresh and opened that instead.
            const double mss = m_tcb->m_segmentSize;
            double cwnd = m_halfCwnd;
            if (!(m_ecnPastRecover && m_ackEce)) // no opencwnd() on an echoing ACK
            {
                cwnd += cwnd < m_tcb->m_ssThresh.Get() ? mss : mss * mss / cwnd;
            }
            SetExactCwnd(cwnd);
            m_halfCwnd = 0;
        }
        if (sack1)
        {
            Sack1AfterAck(before, after, ack, oldHead, cwndBefore, fromCwr);
            Sack1SendOneLimit(dupBefore);
        }
        if (before != TcpSocketState::CA_RECOVERY && after == TcpSocketState::CA_RECOVERY)
        {
            FastRetransmitted(fromCwr);
            m_ns2Dupwnd = m_retxThresh; // dupwnd_ = numdupacks_
            if (!fromCwr)
            {
                // dupack_action()'s reno_action: recover_ = maxseq_. Its branch after an
                // ECN cut (last_cwnd_action_ ECN) returns before it: recover_ stays the
                // ECN cut's (set in NoteEcnCut).
                m_fastRtxPoint = m_tcb->m_highTxMark;
                m_fastRtxPointSet = true;
            }
        }
        const auto prev = m_prevState;
        m_prevState = after;
        if (m_stats && after != prev)
        {
            if (after == TcpSocketState::CA_RECOVERY)
            {
                m_stats->fastRecoveries += 1;
                m_stats->cwrRecoveries += fromCwr ? 1 : 0;
                m_stats->ecnEchoes += m_ecnCutThisAck ? 1 : 0; // echo on the third dupack
            }
            else if (after == TcpSocketState::CA_CWR)
            {
                m_stats->ecnEchoes += 1;
            }
        }
    }

    // ---- Retransmission timer (ns-2) ----------------------------------------------------
    // ns-3 takes an RTT sample from every ACK (of a segment not retransmitted), keeps
    // srtt/rttvar in continuous time, and restores the un-backed-off RTO at every new ACK.
    // ns-2's agents (tcp.cc) time one segment at a time, count the sample in clock ticks,
    // and its one-way agents keep a backed-off RTO until a timed segment is acknowledged.
    // With several segments per round trip, ns-3's rttvar decays by 3/4 per ACK instead of
    // per round trip, so its RTO hugs the RTT and fires spuriously when queues grow. When
    // any of RttTimed, RtoTicks, RtoBackoffUntilSample is set, this socket computes the
    // timer itself (ns2_rto.h) and keeps m_rto equal to the timer it arms: the base class
    // reads m_rto when it arms the timer (SendDataPacket) and rewrites it in EstimateRtt,
    // NewAck and ReTxTimeout, after which the timer is re-armed with ours.
    bool ManagesRto() const
    {
        return m_rttTimed || m_rtoTicks || m_backoffUntilSample;
    }

    /// The timeout to arm now (s): ns-2's rtt_timeout.
    double RtoNow()
    {
        InitClock();
        return m_clock.Timeout(m_minRto.GetSeconds(), MAX_RTO_S);
    }

    /// Seconds(RtoNow()), converted only when MinRto or the timeout changed (RtoMemo).
    Time RtoTime()
    {
        if (!RtoMemoEnabled())
        {
            m_rtoMemoS = RtoNow(); // not a memo here (m_rtoMemo stays false): HintRto's record
            m_rtoMemoTime = Seconds(m_rtoMemoS);
            return m_rtoMemoTime;
        }
        InitClock();
        const int64_t minRto = m_minRto.GetTimeStep();
        if (!m_rtoMemo || minRto != m_rtoMemoMinRto)
        {
            m_rtoMemoMinRto = minRto;
            m_rtoMemoMinRtoS = m_minRto.GetSeconds();
        }
        const double t = m_clock.Timeout(m_rtoMemoMinRtoS, MAX_RTO_S);
        if (!m_rtoMemo || t != m_rtoMemoS)
        {
            m_rtoMemoS = t;
            m_rtoMemoTime = Seconds(t);
        }
        m_rtoMemo = true;
        return m_rtoMemoTime;
    }

    /// On ns-2's event clock, a retransmission timer `after` from now that is the last RTO
    /// computed expires at fl(now + that RTO's double), as ns-2's resched(rto) does (its
    /// double, e.g. 3 x 0.1 s, is not always the femtosecond step's).
    void HintRto(const Time& after)
    {
        if (after == m_rtoMemoTime)
        {
            Ns2ClockDelay(after, m_rtoMemoS);
        }
    }

    void InitClock()
    {
        if (m_clockReady)
        {
            return;
        }
        m_clockReady = true;
        m_clock.tick = m_clockGranularity.GetSeconds();
        m_clock.ticks = m_rtoTicks;
        Ptr<RttMeanDeviation> mean = DynamicCast<RttMeanDeviation>(m_rtt);
        m_clock.srttBits = PowerOfHalf(mean, "Alpha", 3);
        m_clock.rttvarBits = PowerOfHalf(mean, "Beta", 2);
        m_clock.rtxcur = m_cnTimeout.GetSeconds(); // rtxcur_init_ until the first sample
    }

    static int PowerOfHalf(Ptr<RttMeanDeviation> rtt, const char* name, int fallback)
    {
        if (!rtt)
        {
            return fallback;
        }
        DoubleValue v;
        rtt->GetAttribute(name, v);
        const int k = int(std::lround(-std::log2(v.Get())));
        return k >= 1 ? k : fallback;
    }

    /// The RTO clock's phase (boot_time_), fixed at its first use: BootPhase().
    double ClockBoot()
    {
        if (!m_bootSet)
        {
            m_bootSet = true;
            m_clock.boot = BootPhase();
        }
        return m_clock.boot;
    }

    /// This connection's tick phase in [0, tick) (ns-2 draws boot_time_ per agent): the
    /// planned fraction of the tick, else a hash of the run's seed and the connection's
    /// ports, so no random stream of the run moves.
    double BootPhase() const
    {
        if (m_bootFraction >= 0)
        {
            return m_bootFraction * m_clockGranularity.GetSeconds();
        }
        uint64_t x = (uint64_t(RngSeedManager::GetSeed()) << 32) ^ RngSeedManager::GetRun();
        if (m_endPoint != nullptr)
        {
            x ^= (uint64_t(m_endPoint->GetLocalPort()) << 16) ^ m_endPoint->GetPeerPort() ^
                 (uint64_t(m_endPoint->GetPeerAddress().Get()) << 24);
        }
        x += 0x9e3779b97f4a7c15ULL; // splitmix64
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        x ^= x >> 31;
        return double(x >> 11) / double(1ULL << 53) * m_clockGranularity.GetSeconds();
    }

    /// A round-trip sample `tao`: the estimate, and (Karn) the end of a back-off.
    void RttSample(Time tao)
    {
        InitClock();
        if (m_rtoTicks)
        {
            ClockBoot();
            m_clock.Sample(Simulator::Now().GetSeconds(), tao.GetSeconds());
        }
        else
        {
            m_clock.rtxcur = (m_rtt->GetEstimate() +
                              Max(m_clockGranularity, m_rtt->GetVariation() * 4)).GetSeconds();
        }
        if (m_backoffUntilSample && !(m_ecnBelowOne && m_ecnBackoff && m_ackEce))
        {
            // newack(): "don't end backoff if still in ECN-Echo with a congestion window
            // of 1 packet" (ecn_backoff_)
            m_clock.backoff = 1;
        }
    }

    // ---- Processing hold (HoldQueueDisc, TimingAtRelease) ------------------------------
    // With a sender processing time ns-2 delays send_much() itself (tcp.cc: overhead_ arms
    // delsnd_timer_, and when it fires send_much(1) calls output() for what the window
    // then allows); output() starts the RTT timing of the first new segment (rtt_ts_) and
    // arms the retransmission timer if none is pending, or whenever all data sent so far
    // was acknowledged (force_set_rtx_timer: newtimer() cancelled it at that ACK). So both
    // start when the segment leaves, after the delay. aqmlab's hold delays the packet
    // below the socket, which timed and armed when it sent it. The hold tells this socket
    // (HoldListener) when it holds one of its packets, at once, and when the packet
    // leaves; with TimingAtRelease the timing and an idle timer wait for that. Qiu's T1
    // with 10 flows and a T1 packet time of processing, seed 2: flow 2 timed segment 1
    // from 0.413047 s (its ACK's arrival) where ns-2.35 timed it from 0.414637 s (when it
    // left), a round trip of 2 ticks instead of 1; its RTO was 1.2 s instead of 1.1 s from
    // then on and it timed out at 5.09 s where ns-2.35 did at 4.99 s. Seed 1: flows 4 and 9
    // armed their timer at the ACK of their first segment, 2 ms before ns-2.35 did, and
    // flow 9's retransmission, 2 ms early, found the queue full. A held segment is traced
    // when it leaves (ns-2's trace sees it at the link), with or without TimingAtRelease.
    // ns-2 also chooses the segments only when the timer fires: send_much() sends from
    // t_seqno_, which an ACK arriving meanwhile moves past what it acknowledges (newack()).
    // aqmlab's socket chose them when it sent into the hold: a timeout's resend of the head,
    // held while the ACK of that segment arrives, still left. With AckedHeldDropped the hold
    // drops a held data segment that is wholly acknowledged when it would leave. Qiu's T1,
    // 100 flows, random processing, seed 3, flow 20: a timeout at 2.502350 s, the ACK of
    // segment 1 at 2.504107 s, and at the release (2.504209 s) ns-2.35 sent segments 2
    // and 3, aqmlab 1, 2 and 3.

    /// A segment or SYN this socket is sending (SendScope), as the hold may keep it.
    struct HeldSend
    {
        SequenceNumber32 seq;
        uint32_t size;   // payload bytes
        bool syn;
        bool retrans;    // sent before (the trace's 'R')
        uint8_t flags;   // of a SYN: what its timer resends
        bool known;      // sent through SendDataPacket or SendEmptyPacket
    };

    /// While the socket sends one packet: what it is, and whether the hold kept it.
    class SendScope
    {
      public:
        SendScope(AqmTcpSocket* s, HeldSend what)
            : m_s(s),
              m_what(s->m_sending),
              m_held(s->m_sendHeld),
              m_timed(s->m_timedHere),
              m_uid(s->m_sendTimerUid)
        {
            s->m_sending = what;
            s->m_sendHeld = false;
            s->m_timedHere = false;
            s->m_sendTimerUid = s->m_retxEvent.GetUid();
        }

        ~SendScope()
        {
            m_s->m_sending = m_what;
            m_s->m_sendHeld = m_held;
            m_s->m_timedHere = m_timed;
            m_s->m_sendTimerUid = m_uid;
        }

        SendScope(const SendScope&) = delete;
        SendScope& operator=(const SendScope&) = delete;

      private:
        AqmTcpSocket* m_s;
        HeldSend m_what;
        bool m_held;
        bool m_timed;
        uint32_t m_uid;
    };

    bool TimesAtRelease() const
    {
        return m_timingAtRelease && ManagesRto();
    }

    /// The hold keeps the packet being sent: its timing, and a timer this send armed, wait.
    void PacketHeld() override
    {
        m_sendHeld = true;
        const HeldSend h = m_sending; // known: false outside SendDataPacket/SendEmptyPacket
        m_heldSends.push_back(h);
        if (!TimesAtRelease())
        {
            return;
        }
        if (m_timedHere) // a SYN is timed before it goes down (ns-3's SendEmptyPacket)
        {
            m_rttActive = false;
            m_timedHere = false;
        }
        if (!h.syn && m_retxEvent.IsPending() && m_retxEvent.GetUid() != m_sendTimerUid)
        {
            m_retxEvent.Cancel(); // armed by this send (idle timer): armed when it leaves
        }
    }

    /// The hold's timer fired: the packet leaves now (ns-2's output()), unless it is a data
    /// segment already acknowledged and AckedHeldDropped is set (false: drop it).
    bool PacketReleased() override
    {
        if (m_heldSends.empty())
        {
            return true;
        }
        const HeldSend h = m_heldSends.front();
        m_heldSends.pop_front();
        if (!h.known)
        {
            return true;
        }
        const SequenceNumber32 end = h.seq + std::max<uint32_t>(h.size, h.syn ? 1 : 0);
        if (m_ackedHeldDropped && !h.syn && h.size > 0 && end <= m_txBuffer->HeadSequence())
        {
            return false;
        }
        if (m_heldBeyondWindowUnsent && !h.syn && h.size > 0 && WithdrawnBeyondWindow(h, end))
        {
            return false;
        }
        const bool fresh = !m_wireAny || end > m_wireHigh; // ns-2: seqno > maxseq_
        if (TimesAtRelease() && m_state != CLOSED && m_state != TIME_WAIT)
        {
            // force_set_rtx_timer: highest_ack_ == maxseq_ (all data sent so far acked)
            const bool force = !m_wireAny || m_wireHigh <= m_txBuffer->HeadSequence();
            if (fresh && m_rttTimed && !m_rttActive)
            {
                m_rttActive = true;
                m_rttSeq = end;
                m_rttSentAt = Simulator::Now();
            }
            if (force || !m_retxEvent.IsPending())
            {
                m_rto = RtoTime();
                m_retxEvent.Cancel();
                HintRto(m_rto);
                m_retxEvent = h.syn ? Simulator::Schedule(m_rto, &AqmTcpSocket::SendEmptyPacket,
                                                          this, h.flags)
                                    : Simulator::Schedule(m_rto, &AqmTcpSocket::ReTxTimeout, this);
            }
        }
        if (fresh)
        {
            m_wireAny = true;
            m_wireHigh = end;
        }
        if (m_tracePort && !h.syn)
        {
            Trace(h.retrans ? 'R' : 'S', h.seq);
        }
        return true;
    }

    /// HeldBeyondWindowUnsent: true if the held segment `h` (ending at `end`) does not
    /// leave because the window no longer admits it when the delayed send fires (ns-2:
    /// t_seqno_ > highest_ack_ + window() then). The window that let the socket send it
    /// counted it in flight; when the flight exceeds the window at the release, the excess
    /// segments at the top, held new data never on the wire, go back to the unsent data:
    /// the socket's last sent segments return to the transmission buffer's unsent list and
    /// the next-send and highest-sent pointers move back to the first of them, so the
    /// window sends them again later as new data. The held segments after it (released in
    /// the same burst, in order) are withdrawn with it. After a timeout (the loss state)
    /// a held new segment above the go-back-N pointer is withdrawn alone: the resends
    /// reach it in turn, as ns-2's from t_seqno_.
    bool WithdrawnBeyondWindow(const HeldSend& h, SequenceNumber32 end)
    {
        if (h.retrans || (m_wireAny && h.seq < m_wireHigh))
        {
            return false;
        }
        const SequenceNumber32 high = m_tcb->m_highTxMark.Get();
        if (h.seq >= high) // a later segment of a burst withdrawn below: no longer sent
        {
            WithdrawStats(h);
            return true;
        }
        if (m_tcb->m_congState == TcpSocketState::CA_LOSS && h.seq > m_tcb->m_nextTxSequence)
        {
            // a timeout while it was held: go-back-N (ns-2's t_seqno_ = highest_ack_ + 1)
            // has moved the next send below it, and the resends reach it in turn
            WithdrawStats(h);
            return true;
        }
        const uint32_t flight = BytesInFlight();
        const uint32_t window = Window();
        if (end > high || flight <= window)
        {
            return false;
        }
        // the held new segments at and above h.seq: this one and those still held
        uint32_t segments = 1;
        SequenceNumber32 top = end;
        for (const HeldSend& later : m_heldSends)
        {
            if (later.known && !later.syn && later.size > 0 && !later.retrans &&
                later.seq >= end)
            {
                ++segments;
                top = std::max(top, later.seq + later.size);
            }
        }
        const uint32_t mss = m_tcb->m_segmentSize;
        const uint32_t excess = (flight - window + mss - 1) / mss; // segments
        if (top != high || segments > excess)
        {
            return false; // not the tail, or this one still fits below the excess
        }
        for (uint32_t i = 0; i < segments; ++i)
        {
            m_txBuffer->ResetLastSegmentSent();
        }
        m_tcb->m_nextTxSequence = h.seq;
        m_tcb->m_highTxMark = h.seq;
        WithdrawStats(h);
        return true;
    }

    /// A withdrawn segment never left: it is not counted as sent.
    void WithdrawStats(const HeldSend& h)
    {
        if (m_stats)
        {
            m_stats->dataPacketsSent -= 1;
            m_stats->dataBytesSent -= h.size;
        }
    }

    void UpdateRttHistory(const SequenceNumber32& seq, uint32_t sz, bool isRetransmission) override
    {
        if (!m_rttTimed)
        {
            TcpSocketBase::UpdateRttHistory(seq, sz, isRetransmission);
            return;
        }
        if (m_sendHeld && TimesAtRelease())
        {
            return; // timed when it leaves the hold (PacketReleased)
        }
        if (!isRetransmission && !m_rttActive) // ns-2 output(): new data, nothing timed
        {
            m_timedHere = true;
            m_rttActive = true;
            m_rttSeq = seq + std::max<uint32_t>(sz, 1); // a SYN (sz 0) is acked at seq + 1
            m_rttSentAt = Simulator::Now();
        }
    }

    void EstimateRtt(const TcpHeader& tcpHeader) override
    {
        if (!ManagesRto())
        {
            TcpSocketBase::EstimateRtt(tcpHeader);
            return;
        }
        if (m_rtoArmBeforeSample)
        {
            m_preAckRto = RtoTime(); // before the sample and the back-off reset below
            m_preAckRtoSet = true;
        }
        const SequenceNumber32 ack = tcpHeader.GetAckNumber();
        // ns-3 calls this before ReceivedAck: this ACK's echo (RttSample's ecn_backoff_
        // test), not the last one's
        m_ackEce = (tcpHeader.GetFlags() & TcpHeader::ECE) != 0;
        // ns-3 calls this before it processes the segment: the handshake's ACK is seen in
        // SYN_SENT (the SYN/ACK) or SYN_RCVD, before the first data can leave.
        const bool handshake = (m_state == SYN_SENT || m_state == SYN_RCVD) &&
                               ack == m_tcb->m_nextTxSequence + SequenceNumber32(1);
        if (m_rttTimed)
        {
            if (m_rttActive && ack >= m_rttSeq) // ns-2 newack(): the timed segment is acked
            {
                m_rttActive = false;
                const Time tao = Simulator::Now() - m_rttSentAt;
                m_rtt->Measurement(tao);
                m_tcb->m_srtt = m_rtt->GetEstimate();
                m_tcb->m_minRtt = std::min(m_tcb->m_srtt.Get(), m_tcb->m_minRtt);
                m_tcb->m_lastRtt = tao;
                RttSample(tao);
            }
        }
        else
        {
            Time tao{0};
            if (!m_history.empty())
            {
                const RttHistory& h = m_history.front();
                if (!h.retx && ack >= h.seq + SequenceNumber32(h.count))
                {
                    tao = Simulator::Now() - h.time;
                }
            }
            TcpSocketBase::EstimateRtt(tcpHeader); // the sample goes into m_rtt
            if (!tao.IsZero())
            {
                RttSample(tao);
            }
        }
        if (handshake)
        {
            HandshakeAcked();
        }
        m_rto = RtoTime();
    }

    void NewAck(const SequenceNumber32& ack, bool resetRTO) override
    {
        // Sack1: every partial ACK restarts the timer (newtimer), then t_backoff_ = 1; ns-3
        // restarts it at the first partial ACK only
        const bool sack1Partial = m_sack1Partial;
        resetRTO = resetRTO || sack1Partial;
        if (!ManagesRto())
        {
            TcpSocketBase::NewAck(ack, resetRTO);
            return;
        }
        if (resetRTO && !m_backoffUntilSample)
        {
            m_clock.backoff = 1; // ns-3 (and ns-2's Full-TCP): a new ACK ends the back-off
        }
        // Full-TCP's newack() re-arms the timer (set_rtx_timer) when data beyond this ACK
        // is outstanding, before it takes the ACK's RTT sample and ends the back-off: that
        // timer runs on the old RTO. When the ACK covers all data sent it cancels the
        // timer, and the next segment sent arms the new RTO.
        const bool oldRto = m_rtoArmBeforeSample && m_preAckRtoSet &&
                            ack < m_tcb->m_highTxMark.Get();
        const uint32_t uid = m_retxEvent.GetUid();
        TcpSocketBase::NewAck(ack, resetRTO);
        m_rto = RtoTime();
        if (m_retxEvent.IsPending() && m_retxEvent.GetUid() != uid)
        {
            if (oldRto)
            {
                ScheduleRetransmit(m_preAckRto);
            }
            else
            {
                RearmRetransmitTimer(true);
            }
        }
        m_preAckRtoSet = false;
        if (sack1Partial)
        {
            m_clock.backoff = 1;
        }
    }

    /// A SYN, SYN/ACK or FIN, first or retried.
    ///  * A SYN or FIN the expiring retransmission timer sends (SendEmptyPacket is that
    ///    timer's own callback for them; ReTxTimeout calls it for a lone FIN) is a timeout
    ///    ns-2's Full-TCP counts (nrexmit_, CountAllTimeouts); with FullTcpSynTimeout a SYN
    ///    or SYN/ACK timeout halves ssthresh as any ns-2 timeout does (see "Full-TCP").
    ///  * When this socket computes the timer (ManagesRto): ns-3 retries a SYN or SYN/ACK
    ///    from its own timer (not ReTxTimeout), doubling ConnTimeout without a cap. ns-2's
    ///    agents send them under the data timer (one-way agents: the SYN-like packet 0;
    ///    Full-TCP: SYN and SYN/ACK): a retry follows a timeout, which backs that timer off
    ///    (at most max_rto) and cancels the timing of the first one, so the handshake's
    ///    ACK gives no RTT sample (Karn). The back-off then lasts until an RTT sample
    ///    (one-way agents) or the handshake's ACK (Full-TCP, see HandshakeAcked).
    ///  * Likewise a lone FIN (Full-TCP's; one-way agents have none): ns-3 arms its timer
    ///    with its own estimator's RTO, recomputed at each retry, so repeated FIN timeouts
    ///    never back off; ns-2 arms the data timer (rtt_timeout, backed off at every
    ///    timeout), which with fin_retransmit "rto" resends the passive closer's FIN too.
    // ---- The handshake's ACK (HandshakeAckWithData) ------------------------------------
    // ns-2's one-way agents have no handshake: a header-only packet 0 goes first and, once
    // it is acknowledged, data. ns-3's opener answers the SYN/ACK with a pure ACK and sends
    // its first data right behind it, so each bulk flow or transfer puts one more packet
    // on the forward path at its start. Five of them beside the five first segments
    // overflowed Pentikousis' drop-tail limit 8 (ns-3 lost a flow's first segment and
    // timed out at 1 s where ns-2.35 lost nothing); at larger limits they only delay the
    // later flows' first segments (0.2 ms each). With HandshakeAckWithData the ACK is held
    // and sent only if no data is about to leave (the data segment carries the ACK).
    void HandshakeAckUnlessData()
    {
        if (m_state == ESTABLISHED && m_sendPendingDataEvent.IsPending() &&
            m_txBuffer->SizeFromSequence(m_tcb->m_nextTxSequence) > 0 && AvailableWindow() > 0)
        {
            return;
        }
        SendEmptyPacket(TcpHeader::ACK);
    }

    // ---- No SYN/ACK timer (SynAckTimer false) ------------------------------------------
    // ns-2's one-way sink keeps no state and never sends on a timer: a lost packet 0 (or
    // first data) is resent by the sender's RTO alone. ns-3's listener resends its SYN/ACK
    // after ConnTimeout while the handshake's ACK (riding on the first data with
    // HandshakeAckWithData) is missing, and the opener, already ESTABLISHED, resets cwnd
    // and ssthresh to their initial values on that SYN-bearing segment (DoForwardUp):
    // Qiu's T1 at 100 flows, seed 2, flow 14 lost its first segment, got the SYN/ACK
    // again at 4.77 s and was in slow start at 6.06 s where ns-2.35 was in congestion
    // avoidance (seeds 3 and 6: the extra 42-byte SYN/ACK delayed another flow's ACK).
    // Without the timer the SYN/ACK is sent only when the connection is forked and in
    // answer to a duplicate SYN (the opener's retry after a lost SYN/ACK); the handshake
    // completes on the opener's (retransmitted) data. Both ns-3's timer (SendEmptyPacket
    // schedules it when none is pending) and ours (ManagesRto) are cancelled right after
    // the SYN/ACK leaves. With IgnoreDupSyn (Full-TCP) the timer is the only way a lost
    // SYN/ACK is repaired: it is kept.
    void BaseSendEmptyPacket(uint8_t flags)
    {
        if ((m_ns2SackBlocks || m_fullTcpSackBlocks || m_ns2SackWire) &&
            flags == TcpHeader::ACK && m_sackEnabled)
        {
            TcpRxBuffer& rx = *m_tcb->m_rxBuffer;
            TcpOptionSack::SackList blocks =
                m_ns2SackBlocks       ? m_sacker.Blocks(rx)
                : m_fullTcpSackBlocks ? m_ftSacker.Blocks(rx.NextRxSequence())
                                      : rx.GetSackList();
            Ns2SackWire::Armed() = m_ns2SackWire && !blocks.empty();
            Ns2Sacker::WithSackList(rx, std::move(blocks),
                                    [&] { BareSynSendEmptyPacket(flags); });
            Ns2SackWire::Armed() = false;
        }
        else
        {
            BareSynSendEmptyPacket(flags);
        }
        if (!m_synAckTimer && !m_ignoreDupSyn && m_state == SYN_RCVD &&
            (flags & TcpHeader::SYN) && (flags & TcpHeader::ACK))
        {
            m_retxEvent.Cancel();
        }
    }

    // ---- A bare SYN (BareSyn) ----------------------------------------------------------
    // ns-2's one-way agents open with a 40-byte packet 0, acknowledged by a 40-byte ACK;
    // ns-3's SYN and SYN/ACK carry the window-scale option (4 bytes each) and, with SACK,
    // SACK-permitted (4 bytes with both). On Qiu's T1 every flow's first data left 54 us
    // later than on ns-2.35, and with 100 flows starting within a second the later ones'
    // first packets met other queues. A bare SYN leaves without options; both ends act as
    // if they had been exchanged (both ends share the profile): the window shifts are what
    // our receive buffer needs, and SACK stays as configured. ns-3 turns scaling and SACK
    // off on a SYN without the options; it reads only the shifts after that, and
    // RestoreSack turns SACK back on.
    void BareSynSendEmptyPacket(uint8_t flags)
    {
        if (!m_bareSyn || !(flags & TcpHeader::SYN))
        {
            BoundedSendEmptyPacket(flags);
            return;
        }
        m_winScalingEnabled = false;
        m_sackEnabled = false;
        BoundedSendEmptyPacket(flags);
        RestoreSack();
        if (m_scaleWanted)
        {
            m_rcvWindShift = CalculateWScale();
            m_sndWindShift = m_rcvWindShift;
        }
    }

    // ---- A SYN's back-off within the clock (BoundedSendEmptyPacket) ----------------------
    // ns-3 arms a SYN or SYN/ACK's timer at ConnTimeout x 2^(copies sent so far), without a
    // cap (`int(1) << n` times a Time). At aqmlab's femtosecond step a Time ends at 9,223 s,
    // so the 12th copy of a 6-s handshake overflows to a negative delay and ns-3 aborts
    // ("Negative delay"): a SYN/ACK lost eleven times in a row, with the client's
    // retries lost too, which Christiansen's 98 % load over a 30-packet tail-drop queue
    // met at 210 s. ns-2 backs the timer off to at most maxrto_ (60 s) and never gives
    // up (max_retries 10^6). The exponent ns-3 sees is held where now + ConnTimeout x 2^n
    // still fits in the clock: that timer falls after any run's end either way
    // (max_duration_s), so every timer that fires within a run is unchanged; when this
    // socket computes the timer (ManagesRto) a timer ns-3 arms here is re-armed with ours
    // right after (SendEmptyPacket).
    void BoundedSendEmptyPacket(uint8_t flags)
    {
        const uint32_t retries = m_synRetries;
        if ((flags & TcpHeader::SYN) && m_synCount > 0 && m_synCount < m_synRetries)
        {
            const uint32_t sent = m_synRetries - m_synCount;
            const int64_t room = std::numeric_limits<int64_t>::max() -
                                 Simulator::Now().GetTimeStep();
            const int64_t step = std::max<int64_t>(1, m_cnTimeout.GetTimeStep());
            uint32_t n = std::min<uint32_t>(sent, 30); // ns-3 shifts an int
            while (n > 1 && step > (room >> n))
            {
                --n;
            }
            m_synRetries = m_synCount + n; // the same branch in ns-3 (n >= 1 as sent >= 1)
        }
        TcpSocketBase::SendEmptyPacket(flags);
        m_synRetries = retries;
    }

    void RestoreSack()
    {
        if (m_sackEnabled != m_sackWanted)
        {
            m_sackEnabled = m_sackWanted;
            m_txBuffer->SetSackEnabled(m_sackWanted);
        }
    }

    void SendEmptyPacket(uint8_t flags) override
    {
        if (m_everyCeMark)
        {
            flags = EveryCeEcho(flags);
        }
        if (m_holdHandshakeAck && flags == TcpHeader::ACK && m_state == ESTABLISHED)
        {
            m_holdHandshakeAck = false;
            m_handshakeAckHeld = true;
            return;
        }
        if (m_holeFillUpcall && (flags & ~TcpHeader::ECE) == TcpHeader::ACK &&
            AckAfterUpcallData(flags))
        {
            return;
        }
        if (m_owedAckCarriesData && flags == TcpHeader::ACK &&
            (m_state == ESTABLISHED || m_state == CLOSE_WAIT) && SendHeldTail())
        {
            return;
        }
        if (flags == TcpHeader::ACK && DataCarriesOwedAck())
        {
            return;
        }
        const bool syn = flags & TcpHeader::SYN;
        const bool timerFired = (flags & (TcpHeader::SYN | TcpHeader::FIN)) &&
                                m_retxEvent.GetTs() == uint64_t(Simulator::Now().GetTimeStep()) &&
                                !m_retxEvent.IsPending() && m_state != CLOSED &&
                                m_state != TIME_WAIT;
        if (timerFired)
        {
            if (m_countAllTimeouts && m_stats)
            {
                m_stats->timeouts += 1;
            }
            else
            {
                m_controlTimeouts += 1;
            }
            if (syn && m_fullTcpSynTimeout)
            {
                // ns-2 timeout_action(): slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART),
                // half the window (the initial one, then 1 segment), at least 2 segments
                const uint32_t mss = m_tcb->m_segmentSize;
                const uint32_t segs = m_synTimeouts == 0 ? m_tcb->m_cWnd.Get() / mss : 1;
                m_synSsThresh = std::max<uint32_t>(2, segs / 2) * mss;
                m_tcb->m_ssThresh = m_synSsThresh;
                m_synTimeouts += 1;
            }
        }
        // Full-TCP's foutput() clears TF_ACKNOW with every packet it sends: a SYN/ACK the
        // timer resends after an ignored duplicate SYN is that SYN's ACK (IgnoreDupSyn)
        m_dupSynAckOwed = false;
        if (m_finOnClosingAcks)
        {
            flags = ClosingAckFlags(flags);
        }
        const bool fin = flags & TcpHeader::FIN;
        const SendScope scope(this, {m_tcb->m_nextTxSequence, 0, syn, false, flags, true});
        if (!(syn || fin) || !ManagesRto())
        {
            BaseSendEmptyPacket(flags);
            return;
        }
        // A SYN is only ever resent by its timer; a SYN/ACK also answers a duplicate SYN
        // (dup_syn "answer"), which is no timeout and leaves ns-3's timer alone.
        const bool retry = syn ? m_synCount < m_synRetries &&
                                     (!(flags & TcpHeader::ACK) || timerFired)
                               : timerFired;
        if (retry)
        {
            if (m_tracePort && syn)
            {
                Trace('Y', m_tcb->m_highTxMark);
            }
            m_rttActive = false;
            m_clock.Backoff(m_minRto.GetSeconds(), MAX_RTO_S);
        }
        const uint32_t uid = m_retxEvent.GetUid();
        BaseSendEmptyPacket(flags);
        if (m_retxEvent.IsPending() && m_retxEvent.GetUid() != uid)
        {
            m_rto = RtoTime();
            m_retxEvent.Cancel();
            HintRto(m_rto);
            m_retxEvent = Simulator::Schedule(m_rto, &AqmTcpSocket::SendEmptyPacket, this, flags);
        }
    }

    /// The handshake's ACK (the SYN/ACK at the opener, its ACK at the listener), when this
    /// socket computes the timer: it acknowledges our SYN, a new ACK that ns-3's handshake
    /// does not pass to NewAck. ns-2's Full-TCP ends the back-off at every new ACK
    /// (newack(): t_backoff_ = 1, also for the SYN/ACK, tcp-full.cc SYN_SENT ->
    /// process_ACK), so after a lost SYN or SYN/ACK the first data is timed with the
    /// initial RTO (no sample from a retried handshake); one-way agents
    /// (RtoBackoffUntilSample) keep the back-off until an RTT sample.
    void HandshakeAcked()
    {
        if (!m_backoffUntilSample)
        {
            m_clock.backoff = 1;
        }
    }

    /// Arm the retransmission timer with our RTO (`force`: even if none is pending).
    void RearmRetransmitTimer(bool force)
    {
        m_rto = RtoTime();
        if (force || m_retxEvent.IsPending())
        {
            ScheduleRetransmit(m_rto);
        }
    }

    /// (Re)start the retransmission timer to expire `after` from now.
    void ScheduleRetransmit(Time after)
    {
        m_retxEvent.Cancel();
        HintRto(after);
        m_retxEvent = Simulator::Schedule(after, &AqmTcpSocket::ReTxTimeout, this);
    }

    /// ns-2's reset_rtx_timer(1, 0) at a fast retransmit: no RTT timing, the timer restarted.
    void RestartTimerAtFastRetransmit()
    {
        if (m_rttTimed)
        {
            m_rttActive = false;
        }
        if (m_restartOnFastRetransmit && m_retxEvent.IsPending())
        {
            if (ManagesRto())
            {
                RearmRetransmitTimer(true);
            }
            else
            {
                ScheduleRetransmit(m_rto);
            }
        }
    }

    /// This ACK started fast recovery: last_cwnd_action_ = CWND_ACTION_DUPACK and
    /// reset_rtx_timer(1, 0). `afterEcnCut`: dupack_action()'s branch after an ECN cut,
    /// which leaves recover_ where the cut put it.
    void FastRetransmitted(bool afterEcnCut)
    {
        m_lastCutEcn = false; // ns-2 dupack_action: last_cwnd_action_ = CWND_ACTION_DUPACK
        RestartTimerAtFastRetransmit();
        if (m_renoGuard && m_reno && !m_sackEnabled)
        {
            // ns-2 Reno (bugFix_): recover_ = maxseq_; no further fast retransmit until the
            // cumulative ACK covers more than that (see GuardFastRetransmit). After an ECN
            // cut, recover_ is the cut's: Pentikousis' conservative RED+ECN, 10 clients,
            // limit 64, 20 MiB, seed 1, flow 1: an echo cut at 755.954 s (recover_ segment
            // 9452), segment 9452 fast-retransmitted after it at 756.842 s with 9457-9459,
            // and at the third duplicate ACK of 9457 (757.870 s) ns-2.35 fast-retransmitted
            // again (highest_ack_ 9456 > recover_ 9452); ns-3 guarded up to 9459 and waited.
            m_guard = (afterEcnCut && m_fastRtxPointSet ? m_fastRtxPoint : m_recover) + 1;
            m_guardActive = true;
        }
    }

    /// ns-2's agents answer the first two duplicate ACKs with a new segment (singledup_,
    /// send_one()) also after a timeout, when go-back-N is under way: the next segment in
    /// line leaves if the flight stays within cwnd + dupacks. ns-3 ignores dupacks in
    /// CA_LOSS. (ns-2 then resends two segments that the dupacks show were received.)
    /// A duplicate ACK in the loss state, as ns-2 counts dupacks_: no data on it, the
    /// cumulative ACK unmoved and below the highest segment sent, in CA_LOSS before and
    /// after the base class processed it.
    bool IsLossDupack(TcpSocketState::TcpCongState_t before, const SequenceNumber32& ack,
                      const SequenceNumber32& oldHead, bool receivedData) const
    {
        return !receivedData && before == TcpSocketState::CA_LOSS &&
               m_tcb->m_congState == TcpSocketState::CA_LOSS && ack == oldHead &&
               ack < m_tcb->m_highTxMark;
    }

    void LimitedTransmitInLoss(TcpSocketState::TcpCongState_t before, const SequenceNumber32& ack,
                               const SequenceNumber32& oldHead, bool receivedData)
    {
        if (ack > oldHead)
        {
            m_lossDupAcks = 0;
            return;
        }
        const bool sack1 = m_sackEnabled && Sack1() && !m_sackFullTcp && !m_ftLoss;
        if (!m_ltAfterTimeout || !m_limitedTx || (m_sackEnabled && !sack1) ||
            !IsLossDupack(before, ack, oldHead, receivedData) ||
            (sack1 && !m_sack1LossInformative) || ++m_lossDupAcks >= m_retxThresh)
        {
            return;
        }
        const uint32_t mss = m_tcb->m_segmentSize;
        if (sack1)
        {
            // send_one() from the go-back-N pointer
            const SequenceNumber32 next = m_tcb->m_nextTxSequence;
            if (SendOneAllows(next, m_lossDupAcks) && m_txBuffer->SizeFromSequence(next) > 0)
            {
                const uint32_t sz = SendDataPacket(next, mss, true);
                m_tcb->m_nextTxSequence = next + sz;
            }
            return;
        }
        SequenceNumber32 next;
        SequenceNumber32 nextHigh;
        if (BytesInFlight() + mss <= m_tcb->m_cWnd.Get() + m_lossDupAcks * mss &&
            m_txBuffer->NextSeg(&next, &nextHigh, false))
        {
            SendDataPacket(next, mss, true);
        }
    }

    /// Full-TCP Reno after a timeout (RenoFullTcpWindow): duplicate ACKs count on as in any
    /// state (dupacks_). The third starts nothing while the cumulative ACK is not past the
    /// highest segment sent before the timeout (dupack_action(): bug_fix_ returns), but it
    /// has set fastrecov_; each later one opens cwnd_ by a segment (extra_ack()), which
    /// lets one more segment out; and the next new ACK, fastrecov_ being set, first brings
    /// cwnd_ down to ssthresh_ if above it (pack_action(), FullTcpRenoLossDeflate), then
    /// opens it. A 141,873-byte response losing arrivals 13, 19, 26, 35, 39 and 54: after
    /// the timeout the go-back-N retransmissions drew four duplicate ACKs at 2.543 s;
    /// ns-2.35 went from cwnd 6 to 7 and sent segment 68 at once, ns-3 a round trip later.
    /// A 141,691-byte response losing arrivals 33, 41, 49, 52, 54 and 64: three duplicate
    /// ACKs at cwnd 4.25 over ssthresh 4, and the next new ACK left 4.25 on ns-2.35
    /// (4 + 1/4), 4.485 without the deflation, which sent a segment a round trip early.
    void FullTcpRenoLossDupack(TcpSocketState::TcpCongState_t before, const SequenceNumber32& ack,
                               const SequenceNumber32& oldHead, bool receivedData)
    {
        if (!m_renoFullTcpWindow || m_sackEnabled || m_limitedTx ||
            !IsLossDupack(before, ack, oldHead, receivedData))
        {
            return;
        }
        if (++m_lossDupAcks == m_retxThresh)
        {
            m_ftRenoFastrecov = true; // dupack_action(): fastrecov_ = TRUE, then bug_fix_
        }
        else if (m_lossDupAcks > m_retxThresh)
        {
            SetExactCwnd(ExactCwnd() + m_tcb->m_segmentSize); // extra_ack()
        }
    }

    /// Before the base class opens the window for a new ACK: pack_action() after a third
    /// duplicate ACK in the loss state (see FullTcpRenoLossDupack).
    void FullTcpRenoLossDeflate(const SequenceNumber32& ack, const SequenceNumber32& oldHead)
    {
        if (!m_ftRenoFastrecov || ack <= oldHead)
        {
            return;
        }
        m_ftRenoFastrecov = false;
        if (ExactCwnd() > double(m_tcb->m_ssThresh.Get()))
        {
            SetExactCwnd(m_tcb->m_ssThresh.Get());
        }
    }

    /// Reno with RenoFastRetransmitGuard, after the base class processed an ACK: while the
    /// cumulative ACK is below the guard, keep ns-3's recovery point there, so that its
    /// DupAck does not enter recovery at the third duplicate ACK; and let limited
    /// transmit (whose emulated SACK marks would otherwise declare the head lost at the
    /// fourth) keep at most its two marks, as ns-2 sends new data on dupacks 1 and 2 only.
    void GuardFastRetransmit(const SequenceNumber32& ack)
    {
        if (!m_guardActive)
        {
            return;
        }
        if (ack >= m_guard)
        {
            m_guardActive = false;
            return;
        }
        const auto state = m_tcb->m_congState.Get();
        if (state != TcpSocketState::CA_OPEN && state != TcpSocketState::CA_DISORDER)
        {
            return; // in recovery or loss the base class keeps its own recovery point
        }
        m_recover = m_guard;
        m_recoverActive = true;
        if (state == TcpSocketState::CA_DISORDER && m_dupAckCount >= m_retxThresh &&
            m_txBuffer->GetSacked() > m_retxThresh - 1)
        {
            m_txBuffer->ResetRenoSack();
            for (uint32_t i = 0; i + 1 < m_retxThresh; ++i)
            {
                m_txBuffer->AddRenoSack();
            }
        }
    }

    // ---- Sack1 (ns-2) -----------------------------------------------------------------
    // ns-2's one-way SACK sender, Agent/TCP/Sack1 (tcp-sack1.cc with ScoreBoardRQ), is not
    // RFC 6675 (ns-3). With Sack1Recovery this socket recovers as it does:
    //  * Scoreboard: the SACK blocks above the cumulative ACK, from duplicate ACKs since
    //    the last new ACK and from every ACK during recovery; cleared by a new ACK outside
    //    recovery (whose own blocks are ignored), at the end of a recovery and at a
    //    timeout. Until the first new ACK after a timeout, and here for the whole loss
    //    state, SACK blocks are ignored (timeout_). ns-3's own scoreboard (the SACKed
    //    marks of TcpTxBuffer) keeps its marks until the data is cumulatively acked; here
    //    it forgets them whenever Sack1's scoreboard is cleared, and sees no SACK blocks
    //    that Sack1 ignores, so both hold the same SACKed segments. Otherwise they
    //    diverged: the receiver reports only its 3-4 latest blocks, so after a recovery
    //    that ended below SACKed data (losses among the segments sent during it), the
    //    dupacks of the next loss rebuilt Sack1's scoreboard without those older blocks,
    //    Sack1 chose a segment ns-3 still held SACKed as a hole, and TcpTxBuffer aborted
    //    the run (NS_ASSERT !outItem->m_sacked, tcp-tx-buffer.cc). ns-2 resends such a
    //    segment, as it now does here; and, the marks forgotten, the flight after a
    //    recovery counts the SACKed segments again (ns-2 window(): t_seqno_ -
    //    highest_ack_), as do the duplicate ACKs that re-SACK them (CheckUpdate).
    //  * Entry: the third duplicate ACK that adds SACK information (dupacks_ counts only
    //    those, and a new ACK resets it even when it SACKs new data, which ns-3 counts
    //    as a duplicate); never earlier because three segments are SACKed (ns-3's
    //    IsLost). ssthresh = max(2, floor(min(cwnd, rwnd) / 2)) segments and cwnd exactly
    //    half (slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)); ns-3 halves the flight
    //    net of SACKed and lost segments, 1-2 segments less at small windows. After a
    //    timeout no recovery until the cumulative ACK passes the highest segment sent
    //    before it (bugFix_), as for Reno.
    //  * During recovery, pipe_ is a counter: the flight at entry minus 3, one less per
    //    ACK, two less per partial ACK (partial_ack_ 0), one more per segment sent
    //    (the fast retransmission excepted). While pipe_ < floor(cwnd), the next hole
    //    above the highest one resent (h_seqno_) with a SACK block above it is resent,
    //    else new data: every hole below the highest SACK goes once, in order, before
    //    new data (ns-3: only holes with three SACKed segments above). ns-3 sends here
    //    nothing of its own (AvailableWindow 0) except its partial-ACK retransmission
    //    (DoRetransmit), which is steered to Sack1's choice; it is one segment the
    //    counter may not yet allow.
    //  * Every partial ACK restarts the retransmission timer (ns-3: the first only).
    //  * Exit: the ACK covering the recovery point; cwnd stays the exact half, not
    //    opened for that ACK (newack() without opencwnd()).
    //  * Timeout: SACK information dropped and go-back-N from the cumulative ACK,
    //    segments the receiver holds included (ns-3 skips the SACKed ones); with
    //    SackTimeoutHoles, Full-TCP's holes first (see "Full-TCP SACK after a timeout").
    // ns-2's Full-TCP SACK (web traffic, tcp-full.cc; SackFullTcp) keeps this algorithm with
    // its own window, pipe_ and h_seqno_ rules (AvailableWindow, Sack1AfterAck, Sack1Send,
    // SendDataPacket).
    bool Sack1() const
    {
        return m_sack1 && m_sackEnabled;
    }

    /// Before the base class sees an ACK: pipe_ and the scoreboard. Returns whether the
    /// ACK's SACK blocks are to be ignored (the loss state after a timeout).
    bool Sack1Ack(const TcpHeader& h)
    {
        // No segment is marked lost from SACK blocks: recovery starts at the third
        // duplicate ACK only and resends the holes of this scoreboard (Sack1NextHole).
        m_txBuffer->SetDupAckThresh(65536);
        m_sack1Entered = false;
        const SequenceNumber32 ack = h.GetAckNumber();
        const SequenceNumber32 head = m_txBuffer->HeadSequence();
        if (ack < head)
        {
            return false; // stale: the base class drops it
        }
        if (m_sack1Active)
        {
            const int64_t n = (ack > head && ack < m_recover) ? 2 : 1;
            m_sack1Pipe -= n;
            m_sackFtPipe -= n * int64_t(m_tcb->m_segmentSize);
        }
        const bool loss = m_tcb->m_congState == TcpSocketState::CA_LOSS;
        if (loss && !m_ftLoss)
        {
            m_sack1Blocks.clear();
            Sack1LossScoreboard(h, ack, head);
            return true;
        }
        if (ack > head && !m_sack1Active && !m_sackFullTcp)
        {
            // a new ACK outside recovery: ns-2's recv() newack + ClearScoreBoard(), its
            // SACK blocks unused; ns-3's scoreboard forgets too and sees none of them
            m_sack1Blocks.clear();
            m_txBuffer->ResetRenoSack();
            return true;
        }
        Ptr<const TcpOptionSack> sack =
            DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK));
        if (sack)
        {
            for (const auto& block : sack->GetSackList())
            {
                m_sack1Blocks.push_back(block);
            }
        }
        // sorted, merged, above the cumulative ACK
        std::sort(m_sack1Blocks.begin(), m_sack1Blocks.end());
        std::vector<std::pair<SequenceNumber32, SequenceNumber32>> merged;
        for (auto [l, r] : m_sack1Blocks)
        {
            l = std::max(l, ack);
            if (r <= l)
            {
                continue;
            }
            if (!merged.empty() && l <= merged.back().second)
            {
                merged.back().second = std::max(merged.back().second, r);
            }
            else
            {
                merged.emplace_back(l, r);
            }
        }
        m_sack1Blocks.swap(merged);
        return loss; // in loss the scoreboard is aqmlab's alone (ns-3 resends SACKed data)
    }

    /// In the loss state after a timeout: ns-2's Sack1 ignores ACKs' SACK blocks until a new
    /// ACK clears timeout_; from then on it rebuilds its scoreboard (cleared at every new
    /// ACK) and counts a duplicate ACK only if its blocks add to it (CheckUpdate), each of
    /// the first two sending the next go-back-N segment with limited transmit (singledup_:
    /// send_one(); LimitedTransmitInLoss). Sets m_sack1LossInformative for this ACK.
    void Sack1LossScoreboard(const TcpHeader& h, SequenceNumber32 ack, SequenceNumber32 head)
    {
        m_sack1LossInformative = false;
        if (ack > head)
        {
            m_sack1AfterTimeout = false; // newack: timeout_ = FALSE, ClearScoreBoard()
            m_sack1LossBoard.clear();
            return;
        }
        if (m_sack1AfterTimeout)
        {
            return;
        }
        Ptr<const TcpOptionSack> sack =
            DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK));
        if (!sack)
        {
            return;
        }
        for (const auto& [l, r] : sack->GetSackList())
        {
            for (SequenceNumber32 seq = std::max(l, ack); seq < r; seq += m_tcb->m_segmentSize)
            {
                m_sack1LossInformative |= m_sack1LossBoard.insert(seq.GetValue()).second;
            }
        }
    }

    /// ScoreBoardRQ::GetNextRetran: the first hole at or above max(h_seqno_, SND.UNA)
    /// with a SACK block above it.
    bool Sack1NextHole(SequenceNumber32* hole) const
    {
        const SequenceNumber32 from = std::max(m_sack1Rxt, m_txBuffer->HeadSequence());
        for (size_t i = 0; i < m_sack1Blocks.size(); ++i)
        {
            const auto& [l, r] = m_sack1Blocks[i];
            if (l > from)
            {
                *hole = from;
                return true;
            }
            if (from <= r)
            {
                *hole = r;
                return i + 1 < m_sack1Blocks.size();
            }
        }
        return false;
    }

    /// The next hole to resend (Sack1NextHole); Full-TCP's nxt_tseq() also moves h_seqno_
    /// up to it, sent or not (from there the same hole is found again).
    bool NextHoleToResend(SequenceNumber32* hole)
    {
        if (!Sack1NextHole(hole))
        {
            return false;
        }
        if (m_sackFullTcp && *hole > m_sack1Rxt)
        {
            m_sack1Rxt = *hole;
        }
        return true;
    }

    /// The bytes the scoreboard holds above the cumulative ACK (ScoreBoard sq_.total()).
    uint32_t Sack1Sacked() const
    {
        uint32_t total = 0;
        for (const auto& [l, r] : m_sack1Blocks)
        {
            total += r - l;
        }
        return total;
    }

    /// One-way Sack1 after an ACK in the disorder state: the sequence up to which it lets
    /// data out (AvailableWindow). ns-2 answers a duplicate ACK that adds to its scoreboard
    /// (CheckUpdate), the first or second, with limited transmit only (singledup_) and one
    /// segment at most (send_one(): t_seqno_ <= highest_ack_ + cwnd_ + dupacks_, every
    /// segment out counted once), and any other with nothing (dupacks_ > 0).
    void Sack1SendOneLimit(uint32_t dupBefore)
    {
        m_sendOneLimit = m_tcb->m_highTxMark;
        if (m_sackFullTcp || !m_limitedTx ||
            m_tcb->m_congState != TcpSocketState::CA_DISORDER || m_dupAckCount <= dupBefore ||
            m_dupAckCount >= m_retxThresh)
        {
            return;
        }
        const SequenceNumber32 high = m_tcb->m_highTxMark;
        const uint32_t mss = m_tcb->m_segmentSize;
        if (SendOneAllows(high, m_dupAckCount) &&
            high + mss <= m_txBuffer->HeadSequence() + m_rWnd.Get())
        {
            m_sendOneLimit = high + mss;
        }
    }

    /// ns-2's send_one() test for the segment at `next` (t_seqno_): t_seqno_ <= highest_ack_
    /// + cwnd_ + dupacks_, every segment from the cumulative ACK on counted once, SACKed
    /// and resent ones included.
    bool SendOneAllows(SequenceNumber32 next, uint32_t dupacks) const
    {
        const uint32_t mss = m_tcb->m_segmentSize;
        const double segs = double(next - m_txBuffer->HeadSequence()) / mss + 1;
        return segs <= ExactCwnd() / mss + dupacks;
    }

    /// After the base class processed an ACK: entry (dupack_action) and exit.
    void Sack1AfterAck(TcpSocketState::TcpCongState_t before,
                       TcpSocketState::TcpCongState_t after,
                       const SequenceNumber32& ack,
                       const SequenceNumber32& oldHead,
                       double cwndBefore,
                       bool fromCwr)
    {
        const uint32_t mss = m_tcb->m_segmentSize;
        if (!m_sack1Active && before != TcpSocketState::CA_RECOVERY &&
            after == TcpSocketState::CA_RECOVERY)
        {
            m_sack1Active = true;
            m_sack1Entered = !m_sackFullTcp; // Sack1 sends nothing more for this ACK
            m_sack1Pipe = int64_t((m_tcb->m_highTxMark - m_txBuffer->HeadSequence()) / mss) -
                          int64_t(m_retxThresh);
            // Full-TCP: pipe_ = maxseq_ - highest_ack_ - sq_.total(); the fast
            // retransmission (foutput() without sent()) is not counted either
            m_sackFtPipe = int64_t(m_tcb->m_highTxMark - m_txBuffer->HeadSequence()) -
                           int64_t(Sack1Sacked());
            m_sack1Rxt = m_txBuffer->HeadSequence() + mss; // MarkRetran(highest_ack_ + 1)
            if (fromCwr)
            {
                m_sack1Cwnd = ExactCwnd(); // the ECN response already cut the window
            }
            else
            {
                m_tcb->m_ssThresh = RenoHalfWindow(cwndBefore);
                m_sack1Cwnd = ExactHalfWindow(cwndBefore);
            }
            SetExactCwnd(m_sack1Cwnd);
        }
        else if (m_sack1Active && after != TcpSocketState::CA_RECOVERY)
        {
            m_sack1Active = false;
            if (!m_sackFullTcp)
            {
                m_sack1Blocks.clear();
                m_txBuffer->ResetRenoSack(); // ns-3's scoreboard follows (see "Sack1")
            }
            else
            {
                // dupack_action()'s bug_fix_: a next recovery once highest_ack_ > recover_
                // (maxseq_, one past the highest byte sent at the fast retransmit). ns-3
                // deactivated its recovery point on leaving: a loss of the first segment
                // sent after the fast retransmit waits for the timeout on ns-2.
                m_recover = m_recover + 1;
                m_recoverActive = true;
            }
            if (after == TcpSocketState::CA_OPEN)
            {
                // Sack1: kept, not opened for this ACK; Full-TCP opens it (opencwnd)
                double cwnd = m_sack1Cwnd;
                if (m_sackFullTcp)
                {
                    cwnd += cwnd < m_tcb->m_ssThresh.Get() ? mss : double(mss) * mss / cwnd;
                }
                SetExactCwnd(cwnd);
            }
        }
        else if (!m_sack1Active && ack > oldHead && after == TcpSocketState::CA_DISORDER)
        {
            // A new ACK that SACKs new data: ns-3 counted it as a first duplicate
            m_dupAckCount = 0;
            m_congestionControl->CongestionStateSet(m_tcb, TcpSocketState::CA_OPEN);
            m_tcb->m_congState = TcpSocketState::CA_OPEN;
        }
    }

    /// send_much() in recovery, after the base class processed an ACK.
    void Sack1Send()
    {
        if (!m_sack1Active || m_sack1Entered || m_tcb->m_congState != TcpSocketState::CA_RECOVERY)
        {
            return;
        }
        const uint32_t mss = m_tcb->m_segmentSize;
        const int64_t segments = m_tcb->m_cWnd.Get() / mss; // int(cwnd_)
        while (m_sackFullTcp ? m_sackFtPipe < segments * mss : m_sack1Pipe < segments)
        {
            SequenceNumber32 seq;
            if (!NextHoleToResend(&seq))
            {
                seq = m_tcb->m_highTxMark;
                if (m_txBuffer->SizeFromSequence(seq) == 0)
                {
                    NotifySend(GetTxAvailable());
                }
                if (m_txBuffer->SizeFromSequence(seq) == 0 ||
                    seq + mss > m_txBuffer->HeadSequence() + m_rWnd.Get())
                {
                    break;
                }
                if (m_sackFullTcp && NagleConfigured() &&
                    m_txBuffer->SizeFromSequence(seq) < mss)
                {
                    break; // foutput(): Nagle holds a short tail while data is outstanding
                }
            }
            m_tcb->m_nextTxSequence = seq;
            const uint32_t sz = SendDataPacket(seq, mss, true);
            if (sz == 0)
            {
                break;
            }
            m_tcb->m_nextTxSequence = seq + sz;
        }
    }

    /// At a partial ACK of a Full-TCP SACK recovery ns-3 retransmits one segment
    /// (DoRetransmit, steered in SendDataPacket to Sack1's next hole or new data). With no
    /// hole left and only a short tail of new data, Nagle holds it on ns-2 (foutput():
    /// data outstanding, not a retransmission), and nothing is sent: a 28,227-byte
    /// response whose last full segment was lost waited for its timeout on ns-2.35 (1.41
    /// s) and ended at 0.41 s on ns-3, which had sent the tail and got the dupacks. Returns
    /// the full-sized sent item at `ack` whose retransmitted flag, set for the base
    /// class's ProcessAck, makes it skip DoRetransmit (IsRetransmittedDataAcked); null
    /// when ns-3's retransmission is to go.
    ///
    /// One-way Sack1 never forces a segment out at a partial ACK (partial_ack_ false: the
    /// ACK takes two from pipe_ and send_much() sends what the counter allows, maybe
    /// nothing): ns-3's retransmission is skipped and Sack1Send decides. Qiu's T1, 100
    /// SACK flows, drop-tail 260, seed 2: flow 46 resent segment 18 at 2.3825 s where
    /// ns-2.35's pipe_ (8 at cwnd 8.5) let nothing out.
    TcpTxItem* QuietPartialAck(const SequenceNumber32& ack)
    {
        if (!m_sackFullTcp)
        {
            TcpTxItem* item = SentItemAt(*m_txBuffer, ack);
            return item != nullptr && !item->m_retrans ? item : nullptr;
        }
        SequenceNumber32 hole;
        if (!NagleConfigured() || Sack1NextHole(&hole))
        {
            return nullptr;
        }
        const SequenceNumber32 next = m_tcb->m_highTxMark;
        if (m_txBuffer->SizeFromSequence(next) >= m_tcb->m_segmentSize)
        {
            return nullptr;
        }
        TcpTxItem* item = SentItemAt(*m_txBuffer, ack);
        if (item == nullptr || item->m_retrans ||
            item->GetSeqSize() != m_tcb->m_segmentSize)
        {
            return nullptr;
        }
        return item;
    }

    /// In a Sack1 recovery the sender is Sack1Send: ns-3's sends nothing. Outside recovery
    /// both of ns-2's SACK senders test the window against every segment sent and not
    /// cumulatively acknowledged, SACKed and resent ones each counted once (Sack1's
    /// send_much: t_seqno_ <= last_ack_ + win; Full-TCP's t_seqno_ - highest_ack_).
    /// ns-3's flight leaves the SACKed segments out, so without limited transmit it sent a
    /// new segment on each of the first two dupacks (Qiu's T1, 100 SACK flows, drop-tail
    /// 260: flow 41 sent segments 33 and 34 at 1.58 s, ns-2.35 nothing), and it counts a
    /// segment resent in a recovery and still outstanding twice: leaving a recovery with
    /// twelve such segments, a parking-lot flow (seed 6, flow 19, 1.033 s, cwnd 86.5, 85
    /// segments out) sent nothing at the ACK ending it and at the next two dupacks, where
    /// ns-2.35 sent a segment at each. One-way Sack1's duplicate ACKs before the third
    /// send at most what send_one() allows (Sack1SendOneLimit), nothing without limited
    /// transmit (dupacks_ > 0: no send_much()).
    uint32_t AvailableWindow() const override
    {
        const uint32_t window = Ns2AvailableWindow();
        return window > 0 && LastByteHeld() ? 0 : window;
    }

    // ---- Full-TCP's last byte ---------------------------------------------------------
    // FullTcpAgent::send_allowed(seq) lets a segment start only below curseq_, "1 seq
    // number past the last byte we can send", but curseq_ is the number of the last byte
    // the application wrote (iss_ + bytes; data starts at iss_ + 1). A segment that holds
    // only that byte (a response of k x MSS + 1 bytes) is therefore never sent by
    // send_much(0); it leaves only in a forced output: recv() at a new ACK of everything
    // sent (ackno == maxseq_: needoutput), an owed ACK (TF_ACKNOW: foutput() puts in it what
    // the window allows; the delayed-ACK tick), a timeout. A response of one byte waits
    // for the request's ACK (up to the delayed-ACK tick) where ns-3 sends it at once; a
    // last byte after more data leaves at Nagle's release on both; resent after a
    // go-back-N whose ACK stops at it (the byte was sent before, maxseq_ lies past it), it
    // waits for the next timeout on ns-2.35, where ns-3 resends it at once. Weigle's ARED
    // 5 ms at 105 %, seed 3: a 1,421-byte response whose segments were both lost ended 2 s
    // later on ns-2.35 (210.93 s). SACK recovery's pipe control (pipectrl_) does not test
    // it.

    /// FullTcpLastByte: whether the one unsent byte is the application's last, held.
    bool LastByteHeld() const
    {
        return m_fullTcpLastByte && !m_lastByteForced &&
               m_txBuffer->SizeFromSequence(m_tcb->m_nextTxSequence) == 1 &&
               !(m_sackFullTcp && m_tcb->m_congState == TcpSocketState::CA_RECOVERY);
    }

    /// Sets `m_lastByteForced` for a scope (a forced output, FullTcpLastByte).
    struct ForcedOutput
    {
        AqmTcpSocket* s;
        bool before;
        ForcedOutput(AqmTcpSocket* socket, bool on)
            : s(socket),
              before(socket->m_lastByteForced)
        {
            s->m_lastByteForced = before || on;
        }
        ~ForcedOutput()
        {
            s->m_lastByteForced = before;
        }
    };

    /// The window before Full-TCP's last-byte rule.
    uint32_t Ns2AvailableWindow() const
    {
        const auto state = m_tcb->m_congState.Get();
        if (m_sack1Active || (m_ftLoss && !m_inTimeout && state == TcpSocketState::CA_LOSS))
        {
            return 0; // Sack1Send or FullTcpLossSend decides
        }
        if (Sack1() && !m_sackFullTcp && state == TcpSocketState::CA_DISORDER)
        {
            const SequenceNumber32 high = m_tcb->m_highTxMark;
            return m_sendOneLimit > high ? uint32_t(m_sendOneLimit - high) : 0; // send_one()
        }
        if (Sack1() && (state == TcpSocketState::CA_OPEN || state == TcpSocketState::CA_DISORDER))
        {
            // t_seqno_ - highest_ack_: outside the loss state t_seqno_ is the highest
            // segment sent (maxseq_); the holes a recovery resent leave ns-3's next-send
            // pointer behind it (a 200-segment response losing arrivals 6, 11 and 13: the
            // ACK ending the recovery, with segments 10-12 outstanding and 11-12 SACKed,
            // freed nothing on ns-2.35 at cwnd 3.33 and ns-3 sent a segment one ACK early)
            const uint32_t win = Window();
            const uint32_t flight = m_tcb->m_highTxMark.Get() - m_txBuffer->HeadSequence();
            return flight >= win ? 0 : win - flight;
        }
        return TcpSocketBase::AvailableWindow();
    }

    // ---- Full-TCP SACK after a timeout ----------------------------------------------
    // ns-2's SackFullTcpAgent clears its scoreboard at a timeout (clear_on_timeout_) but
    // rebuilds it from the SACK blocks of every ACK after it, and while highest_ack_ <
    // recover_ (maxseq_ at the timeout) nxt_tseq() sends the next hole at or above
    // h_seqno_ that has a SACKed block above it, else t_seqno_ (go-back-N from the
    // cumulative ACK, SACKed segments included), each while seq < highest_ack_ +
    // int(cwnd_) segments (pipectrl_ is off after the first new ACK). Sack1 instead
    // ignores SACK until the recovery point and goes back N over everything. Its third
    // duplicate ACK in the loss state sets fastrecov_ and returns (bug_fix_), sending
    // nothing; each later one opens cwnd_ by a segment (extra_ack) and sends, and a new
    // ACK below recover_ (pack_action) keeps both until the ACK that covers recover_.
    // 28,267-byte response, drops at arrivals 7, 8, 11, 14, 15, 26, ...: after the
    // timeout ns-2.35 resent only holes; go-back-N sent a SACKed segment, which moved
    // every later drop by one packet, and the engines ended 0.95 s apart.

    /// Before the base class sees an ACK in the loss state: ns-2's dupacks_ / fastrecov_.
    void FullTcpLossDupacks(Ptr<const Packet> packet, const TcpHeader& h)
    {
        m_ftNoSend = false;
        if (!m_ftLoss || m_tcb->m_congState != TcpSocketState::CA_LOSS)
        {
            return;
        }
        const SequenceNumber32 ack = h.GetAckNumber();
        const SequenceNumber32 head = m_txBuffer->HeadSequence();
        if (ack > head)
        {
            if (!m_ftFastrecov || ack >= m_ftRecover)
            {
                m_ftDupacks = 0; // ack_action()
                m_ftFastrecov = false;
            }
            return;
        }
        if (ack != head || packet->GetSize() > 0 || head >= m_tcb->m_highTxMark)
        {
            return;
        }
        if (++m_ftDupacks == m_retxThresh)
        {
            m_ftFastrecov = true; // dupack_action(): bug_fix_ return, then `goto drop`
            m_ftNoSend = true;
        }
        else if (m_ftDupacks > m_retxThresh)
        {
            SetExactCwnd(ExactCwnd() + m_tcb->m_segmentSize); // extra_ack(): cwnd_++
        }
    }

    /// send_much() in the loss state after a data timeout (holes mode).
    void FullTcpLossSend()
    {
        if (!m_ftLoss)
        {
            return;
        }
        if (m_tcb->m_congState != TcpSocketState::CA_LOSS)
        {
            m_ftLoss = false;
            return;
        }
        if (m_ftNoSend)
        {
            m_ftNoSend = false;
            return;
        }
        const uint32_t mss = m_tcb->m_segmentSize;
        const uint32_t win = std::min(m_rWnd.Get(), m_tcb->m_cWnd.Get() / mss * mss);
        while (true)
        {
            const SequenceNumber32 head = m_txBuffer->HeadSequence();
            m_ftNext = std::max(m_ftNext, head); // newack(): t_seqno_ >= highest_ack_
            SequenceNumber32 seq;
            if (!NextHoleToResend(&seq))
            {
                seq = m_ftNext;
            }
            if (seq >= head + win)
            {
                break; // send_allowed(): seq < highest_ack_ + window()
            }
            if (m_txBuffer->SizeFromSequence(seq) == 0)
            {
                NotifySend(GetTxAvailable());
            }
            const uint32_t left = m_txBuffer->SizeFromSequence(seq);
            if (left == 0 || (seq >= m_tcb->m_highTxMark && head < m_tcb->m_highTxMark &&
                              left < mss && NagleConfigured()))
            {
                break; // no data, or foutput()'s Nagle holds a short new tail (not quiet)
            }
            m_tcb->m_nextTxSequence = seq;
            const uint32_t sz = SendDataPacket(seq, mss, true);
            if (sz == 0)
            {
                break;
            }
            m_tcb->m_nextTxSequence = std::max(m_tcb->m_nextTxSequence.Get(), seq + sz);
        }
    }

    void ReTxTimeout() override
    {
        if (EcnWaitExpired())
        {
            return;
        }
        const ForcedOutput forced(this, true); // timeout(): send_much(1, ...)
        NagleForNewDataOnly(); // a resent short tail must not wait for Nagle
        // Count data timeouts only (not SYN/FIN retries, nor stale timers).
        if (m_stats && m_state != CLOSED && m_state != TIME_WAIT && m_state != SYN_SENT &&
            m_txBuffer->Size() > 0 && m_txBuffer->HeadSequence() < m_tcb->m_highTxMark)
        {
            m_stats->timeouts += 1;
        }
        // The base class recomputes ssthresh on a data timeout unless this is a repeated
        // timeout of an already retransmitted head; Reno redoes that halving (point 3).
        const bool halves = m_tcb->m_congState != TcpSocketState::CA_LOSS ||
                            !m_txBuffer->IsHeadRetransmitted();
        const double cwndBefore = ExactCwnd();
        const double windowBefore = FullTcpInflatedCwnd(cwndBefore);
        const uint32_t ssthreshBefore = m_tcb->m_ssThresh.Get();
        const uint32_t retriesBefore = m_dataRetrCount;
        const bool dataTimeout = m_state != CLOSED && m_state != TIME_WAIT &&
                                 m_state != SYN_SENT && m_txBuffer->Size() > 0 &&
                                 m_txBuffer->HeadSequence() < m_tcb->m_highTxMark;
        m_lossDupAcks = 0; // ns-2 Reno timeout(): dupacks_ = 0
        m_ftRenoFastrecov = false; // Full-TCP timeout_action(): fastrecov_ = FALSE
        const uint32_t inFlightBefore = BytesInFlight();
        const bool sack1Reset = dataTimeout && Sack1();
        if (sack1Reset)
        {
            // Sack1 timeout(): fastrecov_ ends, ClearScoreBoard(): go-back-N from the
            // cumulative ACK, SACKed segments included (ns-3 keeps them and skips them)
            m_sack1Active = false;
            m_sack1Blocks.clear();
            m_sack1AfterTimeout = true; // timeout_ = TRUE
            m_sack1LossBoard.clear();
            m_txBuffer->SetSentListLost(true);
            // timeout_action(): t_seqno_ = highest_ack_, recover_ = maxseq_, dupacks_ = 0,
            // fastrecov_ = FALSE; h_seqno_ is left as it was
            m_ftLoss = m_sackHoles && m_sackFullTcp; // Full-TCP's rule (Sack1 has none)
            m_ftNext = m_txBuffer->HeadSequence();
            m_ftRecover = m_tcb->m_highTxMark;
            m_ftDupacks = 0;
            m_ftFastrecov = false;
        }
        if (dataTimeout)
        {
            m_fastRtxPointSet = false; // last_cwnd_action_ = CWND_ACTION_TIMEOUT
        }
        if (dataTimeout && m_cwrNextSegment)
        {
            m_cwrOwed = true; // ns-2 timeout(): slowdown(CLOSE_CWND_ONE or _RESTART)
        }
        if (dataTimeout && ManagesRto())
        {
            m_rttActive = false; // ns-2 reset_rtx_timer: no timing across a timeout
            m_clock.Backoff(m_minRto.GetSeconds(), MAX_RTO_S);
        }
        m_inTimeout = true; // its own resend of the head is ns-3's
        TcpSocketBase::ReTxTimeout();
        m_inTimeout = false;
        const bool timedOut = m_dataRetrCount < retriesBefore &&
                              m_tcb->m_congState == TcpSocketState::CA_LOSS;
        if (timedOut)
        {
            SetExactCwnd(m_tcb->m_cWnd.Get()); // a whole segment: no fraction left over
        }
        const bool afterEcnCut = m_lastCutEcn;
        if (dataTimeout)
        {
            m_lossDupwnd = 0; // timeout(): dupwnd_ = dupacks_ = 0 (cwnd_ is the timeout's)
            m_ecnLossDupacks = 0;
            m_ecnLossDupacksOn = timedOut && m_ecnDupAck && m_renoHalfCwnd && m_reno &&
                              !m_sackEnabled && !m_renoFullTcpWindow;
            m_lastCutEcn = false; // last_cwnd_action_ = CWND_ACTION_TIMEOUT
        }
        if (timedOut && m_timeoutHalvesWindow && afterEcnCut)
        {
            // ns-2 timeout(): `highest_ack_ < recover_ && last_cwnd_action_ ==
            // CWND_ACTION_ECN` keeps ssthresh (slowdown(CLOSE_CWND_ONE): cwnd 1). Reno's
            // (and Sack1's) timeout() set recover_ = maxseq_ just before (bug_fix_), so
            // with data outstanding the test is the last action alone: an ECN echo made
            // the last window cut, no fast retransmit or timeout since, however long
            // after its window of data ended. Pentikousis' conservative RED+ECN, limit 32,
            // 20 MiB, seed 6, flow 3: an echo at 13.88 s (ssthresh 3), CWR over by 14.7 s,
            // a timeout at 15.88 s with cwnd 4.6: ns-2.35 kept ssthresh 3, ns-3 (in OPEN)
            // halved to 2.
            m_tcb->m_ssThresh = ssthreshBefore;
        }
        else if (timedOut && ((m_reno && !m_sackEnabled && halves) || m_timeoutHalvesWindow))
        {
            m_tcb->m_ssThresh = RenoHalfWindow(windowBefore);
        }
        else if (timedOut && sack1Reset)
        {
            // ns-3's rule, from the flight before the SACK information was dropped
            m_tcb->m_ssThresh =
                halves ? m_congestionControl->GetSsThresh(m_tcb, inFlightBefore) : ssthreshBefore;
        }
        if (dataTimeout && ManagesRto())
        {
            // ns-2's timeout() re-arms it (reset_rtx_timer) before the delayed resend; a
            // held retransmission has dropped the timer its send armed (PacketHeld)
            RearmRetransmitTimer(TimesAtRelease());
        }
        if ((!m_sackEnabled || Sack1()) && m_recoverActive &&
            m_tcb->m_congState == TcpSocketState::CA_LOSS)
        {
            // RFC 6582 s3.2 / ns-2 bugfix_: after a timeout, duplicate ACKs may start a fast
            // retransmit only once the cumulative ACK covers MORE than the highest byte sent
            // before the timeout. ns-3 compares with >= and so fast-retransmits spuriously
            // on the duplicate ACKs that its own go-back-N retransmissions provoke.
            m_recover = m_tcb->m_highTxMark.Get() + 1;
        }
        if (m_tracePort)
        {
            Trace('T', m_txBuffer->HeadSequence()); // after: window, ssthresh, back-off
        }
    }

    uint32_t SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck) override
    {
        if (m_sack1Partial)
        {
            // ns-3's partial-ACK retransmission (DoRetransmit): send what Sack1 sends first
            SequenceNumber32 hole;
            seq = NextHoleToResend(&hole) ? hole : m_tcb->m_highTxMark.Get();
            maxSize = m_tcb->m_segmentSize;
            m_tcb->m_nextTxSequence = seq;
        }
        const bool retrans = seq < m_tcb->m_highTxMark;
        if (m_idleRestart)
        {
            RestartAfterIdle();
        }
        if (ManagesRto())
        {
            m_rto = RtoTime(); // the base class arms an idle timer with m_rto
        }
        // A fast recovery retransmission leaves at once past a processing-time hold
        // (hold_queue_disc.h), as ns-2's output() from dupack_action.
        SendContext::fastRetransmit =
            retrans && m_tcb->m_congState == TcpSocketState::CA_RECOVERY;
        const bool cwr = CwrBeforeSend(retrans);
        const SendScope scope(this, {seq, maxSize, false, retrans, 0, true});
        const bool finHeld = FullTcpFinHeld();
        m_closeOnEmpty = m_closeOnEmpty && !finHeld;
        const uint32_t sz = SendDataPacketEct(seq, maxSize, withAck, retrans);
        m_closeOnEmpty = m_closeOnEmpty || finHeld;
        if (sz > 0)
        {
            m_lastDataSent = Simulator::Now().GetSeconds();
            m_dupSynAckOwed = false; // foutput(): the data carries the owed ACK (IgnoreDupSyn)
        }
        SendContext::fastRetransmit = false;
        m_cwrSending = false;
        if (cwr && sz > 0)
        {
            m_cwrOwed = false; // output(): cong_action_ = FALSE once a packet carried it
        }
        const bool held = m_sendHeld;
        if (held && !m_heldSends.empty())
        {
            m_heldSends.back().size = sz; // the segment's real size
        }
        if (m_sack1Active && sz > 0)
        {
            ++m_sack1Pipe; // pipe_++ (the fast retransmission itself is not counted)
            m_sackFtPipe += sz; // sent(): pipe_ += amt
            if (!m_sackFullTcp && retrans && seq + sz > m_sack1Rxt)
            {
                m_sack1Rxt = seq + sz; // MarkRetran
            }
        }
        if (m_sackFullTcp && Sack1() && sz > 0)
        {
            // Full-TCP's sent(), in every state: h_seqno_ (at least highest_ack_, which
            // every new ACK raises it to) moves past a segment sent at it; so after an
            // idle spell it runs with t_seqno_, and a later timeout finds no hole above it.
            // After a timeout t_seqno_ (m_ftNext) does the same: the timeout's own resend
            // of the head (ns-3's, send_much(1)) and FullTcpLossSend's.
            const SequenceNumber32 head = m_txBuffer->HeadSequence();
            if (m_sack1Rxt < head)
            {
                m_sack1Rxt = head;
            }
            if (seq == m_sack1Rxt)
            {
                m_sack1Rxt = seq + sz;
            }
            if (m_ftLoss && seq == m_ftNext)
            {
                m_ftNext = seq + sz;
            }
        }
        if (m_tracePort && sz > 0 && !held)
        {
            Trace(retrans ? 'R' : 'S', seq); // a held one when it leaves (PacketReleased)
        }
        if (m_stats && sz > 0)
        {
            m_stats->dataPacketsSent += 1;
            m_stats->dataBytesSent += sz;
            if (retrans)
            {
                m_stats->retransPackets += 1;
            }
        }
        return sz;
    }

    // ---- Full-TCP (ns-2) connection semantics -------------------------------------------
    // ns-2's Full-TCP (tcp-full.cc), which the papers' web traffic ran on, differs from
    // ns-3 in set-up, acknowledgement and ECN details; each is an attribute (default ns-3):
    //  * FullTcpAcks: the receiver ACKs at once only when the bytes received since the last
    //    ACK sent reach segsperack_ (DelAckCount) full segments (need_send()); otherwise
    //    (a segment shorter than the MSS: a request, the tail of a response) the ACK waits
    //    for the delayed-ACK timer, which ticks at multiples of interval_ (DelAckTimeout)
    //    of simulated time, unless data or a FIN carries it first. ns-3 ACKs every
    //    DelAckCount-th segment whatever its size, and its timer runs DelAckTimeout from
    //    the first held segment. Measured: with ns-3's rule every request drew a pure ACK
    //    from the server before its response (ns-3 defers the data by one time step), so a
    //    two-way web run carried 6.5 % more packets than ns-2 at the same load.
    //  * EctRetransmissions: retransmitted data are ECN-capable, as every data packet of
    //    ns-2's agents (tcp.cc output(), tcp-full.cc sendpacket()); RFC 3168 and ns-3 send
    //    them not-ECT, so an AQM drops a retransmission where it would mark new data.
    //  * CountAllTimeouts (web servers): every retransmission timeout counts, SYN/ACK and
    //    FIN included, as ns-2's Full-TCP nrexmit_ does; otherwise only data timeouts.
    //  * Nagle for new data only: ns-3's Nagle test (SendPendingData; TcpNoDelay false)
    //    holds any segment shorter than the MSS while data is unacknowledged, including the
    //    retransmission of a lost short tail, which counts itself as unacknowledged, so
    //    the tail is never resent (measured: two-way web, drop-tail, 80 %, 300 s: 503
    //    responses never completed with Nagle, 58 without; ns-2: 59). Nagle concerns new
    //    data (RFC 896; tcp-full.cc foutput(): "if a retransmission, send"): the test is
    //    switched off while every byte in the buffer has been sent at least once.
    //  * FullTcpSynTimeout: ns-2 handles a SYN or SYN/ACK timeout as any timeout
    //    (timeout_action): ssthresh = max(2, window / 2) segments, so after a lost SYN/ACK
    //    the response grows by congestion avoidance (measured: a 20-segment response took
    //    2 RTTs more on ns-2; ns-3 leaves ssthresh alone and even resets it when the
    //    SYN/ACK arrives); and, the timed SYN being void (Karn), the handshake gives no
    //    RTT sample: the first data's RTO is the initial RTO (t_rtxcur_, back-off reset by
    //    the ACK). ns-3 uses its estimator's initial 1 s at the opener and keeps the
    //    backed-off SYN/ACK timer at the listener (measured, SYN/ACK and then the response
    //    lost: ns-2 12.1 s, 6 + 6; ns-3 over 20 s, 6 + 12 and more).
    //  * FinOnRto: the passive closer (the web client, whose FIN follows the response)
    //    resends its FIN on its retransmission timer, as ns-2 does (min RTO 1 s here).
    //    ns-3 also arms a LAST_ACK timer of srtt + 4 rttvar without the min RTO, so when
    //    the client's ACK and FIN are both lost its FIN comes back within a few hundred
    //    ms and acknowledges the response before the server's RTO: ns-3 had no server
    //    timeout in that case, ns-2 one (measured, drop-tail 105 %, 300 s: 25 vs 1158
    //    timeouts of one-segment responses that completed within 1 s).
    //  * IgnoreDupSyn: in SYN_RCVD a duplicate SYN (the opener's retransmission after a lost
    //    SYN/ACK) is ignored; the SYN/ACK is resent by its own retransmission timer only
    //    (tcp-full.cc: "We should just ignore the duplicate SYN", M. Weigle 2001); the
    //    ACK it owes that SYN (TF_ACKNOW, set while trimming it) goes out when the
    //    handshake completes, unless a packet has carried it first: foutput() clears
    //    TF_ACKNOW with every packet, a SYN/ACK its timer resends after that SYN (Weigle's
    //    80 % load, seed 1, 10.5634 s) or the response to a request that completed the
    //    handshake (drop-tail at 105 %, seed 1: the handshake's ACK lost, the request
    //    resent 6 s later; ns-3's owed ACK followed its first two segments at 14.4824 s). ns-3 answers each
    //    duplicate SYN with a SYN/ACK at once (and doubles its timer).

    static uint8_t Flags(Ptr<const Packet> packet)
    {
        TcpHeader h;
        packet->PeekHeader(h);
        return h.GetFlags();
    }

    static bool IsDuplicateSynAck(Ptr<const Packet> packet)
    {
        const uint8_t f = Flags(packet);
        return (f & TcpHeader::SYN) && (f & TcpHeader::ACK) && !(f & TcpHeader::RST);
    }

    static bool IsDuplicateSyn(Ptr<const Packet> packet)
    {
        const uint8_t f = Flags(packet);
        return (f & TcpHeader::SYN) && !(f & TcpHeader::ACK);
    }

  public:
    int Send(Ptr<Packet> p, uint32_t flags) override
    {
        const int r = TcpSocketBase::Send(p, flags);
        NagleForNewDataOnly();
        return r;
    }

    /// Count SYN/ACK and FIN retransmission timeouts too (ns-2 Full-TCP's nrexmit_).
    /// Any counted before the counters were attached are added now (web servers attach
    /// them at the fork, before the first SYN/ACK: WebServer::StartApplication).
    void CountAllTimeouts()
    {
        m_countAllTimeouts = true;
        if (m_stats)
        {
            m_stats->timeouts += m_controlTimeouts;
        }
        m_controlTimeouts = 0;
    }

  protected:
    void ReceivedData(Ptr<Packet> packet, const TcpHeader& tcpHeader) override
    {
        if (m_ns2SackBlocks && packet->GetSize() > 0)
        {
            m_sacker.Received(tcpHeader.GetSequenceNumber());
        }
        if (m_fullTcpSackBlocks && packet->GetSize() > 0)
        {
            const SequenceNumber32 seq = tcpHeader.GetSequenceNumber();
            m_ftSacker.Received(seq, seq + packet->GetSize(),
                                m_tcb->m_rxBuffer->NextRxSequence());
        }
        if (!m_fullTcpAcks && m_ns2DelAck && m_delAckMaxCount == 2)
        {
            Ns2DelAckReceive(packet, tcpHeader);
            return;
        }
        if (!m_fullTcpAcks)
        {
            TcpSocketBase::ReceivedData(packet, tcpHeader);
            return;
        }
        // ns-3 acknowledges an in-order segment when ++m_delAckCount reaches
        // m_delAckMaxCount, else arms its timer (m_delAckTimeout) unless armed; gaps and
        // gap fills are acknowledged at once, as in ns-2. Steer that decision by bytes.
        const uint32_t perAck = m_delAckMaxCount;
        const Time timeout = m_delAckTimeout;
        const bool inOrder = tcpHeader.GetSequenceNumber() == m_tcb->m_rxBuffer->NextRxSequence();
        const uint64_t owed = (m_delAckEvent.IsPending() ? m_heldBytes : 0) +
                              (inOrder ? packet->GetSize() : 0);
        const bool ackNow = owed >= uint64_t(perAck) * m_tcb->m_segmentSize;
        if (ackNow)
        {
            m_delAckCount = perAck - 1;
        }
        else
        {
            m_delAckCount = 0;
            m_delAckMaxCount = std::numeric_limits<uint32_t>::max();
            const double tick = timeout.GetSeconds();
            const double now = Simulator::Now().GetSeconds();
            m_delAckTimeout = Seconds(tick * (std::floor(now / tick) + 1.0) - now);
        }
        m_ackAfterUpcall = ackNow;
        m_holeFillUpcall = inOrder && m_tcb->m_rxBuffer->Size() > m_tcb->m_rxBuffer->Available();
        TcpSocketBase::ReceivedData(packet, tcpHeader);
        m_ackAfterUpcall = false;
        m_holeFillUpcall = false;
        m_delAckMaxCount = perAck;
        m_delAckTimeout = timeout;
        m_heldBytes = (!ackNow && m_delAckEvent.IsPending()) ? owed : 0;
    }

    /// FullTcpAcks, the ACK owed at once for a full segment: Full-TCP decides it at output
    /// (foutput(), after recv() has given the bytes to the application), so data the
    /// application wrote in that upcall leaves first and carries it, and no pure ACK
    /// follows (need_send() is then false). ns-3 sends the pure ACK from ReceivedData and
    /// the data one time step later. Only an in-order segment's ACK inside ReceivedData,
    /// and only when data leaves now (the window and Nagle allow it); else the pure ACK.
    /// True if data carried the ACK. A short tail already leaves this way
    /// (OwedAckCarriesData); this covers a response of a segment or more after a request
    /// whose last segment is full (Weigle's 80 %, seed 4, 6.956 s: 4,260-byte request).
    bool DataCarriesOwedAck()
    {
        if (!m_ackAfterUpcall || !m_sendPendingDataEvent.IsPending() ||
            !(m_state == ESTABLISHED || m_state == CLOSE_WAIT))
        {
            return false;
        }
        m_ackAfterUpcall = false;
        const ForcedOutput forced(this, true); // the ACK's own output comes last
        return SendPendingData(m_connected) > 0;
    }

    /// FullTcpAcks, a segment that fills a hole: Full-TCP takes it through its reassembly
    /// path, which gives the bytes to the application first and only then owes the ACK
    /// (recv() sets TF_ACKNOW after recvBytes()). So a response the application writes in
    /// that upcall leaves first (send_much() from the write), and the owed ACK follows in
    /// a forced foutput() at t_seqno_: a short tail Nagle held, else a packet of no data,
    /// after the response's FIN a FIN again at its number (closing_ack "with_fin"), which
    /// the client drops (last_ack_fin "ignore"). ns-3 sent the data carrying the ACK and
    /// nothing after it (one packet less: Weigle's ARED 5 ms at 105 %, seed 2, 176.43 s, a
    /// 2,840-byte request whose first segment came last). Only when the application wrote
    /// in the upcall; else the usual ACK.
    bool AckAfterUpcallData(uint8_t flags)
    {
        m_holeFillUpcall = false;
        if (!m_sendPendingDataEvent.IsPending() ||
            !(m_state == ESTABLISHED || m_state == CLOSE_WAIT))
        {
            return false;
        }
        m_ackAfterUpcall = false;
        SendPendingData(m_connected);
        SendEmptyPacket(flags); // the forced output: a held tail, else the ACK itself
        return true;
    }

    /// OwedAckCarriesData: ns-2's Full-TCP sends an owed ACK (TF_ACKNOW: a duplicate or
    /// out-of-order segment, the delayed-ACK tick) through foutput(), which puts in it the
    /// data the window allows at t_seqno_ and sends it whatever Nagle's test said ("send
    /// now if ... we owe peer an ACK"): a short tail Nagle holds while data is outstanding
    /// leaves with that ACK. ns-3 sends a pure ACK and the tail waits for the ACK of the
    /// outstanding data, one round trip more (a web server answering a client's repeated
    /// request). Only a short tail differs: more than a segment unsent is held by the
    /// window, on ns-2 too. True if the tail left.
    bool SendHeldTail()
    {
        const ForcedOutput forced(this, true);
        const uint32_t unsent = m_txBuffer->SizeFromSequence(m_tcb->m_nextTxSequence);
        if (!m_nagle || m_noDelay || unsent == 0 || unsent >= m_tcb->m_segmentSize ||
            AvailableWindow() < unsent)
        {
            return false;
        }
        const SequenceNumber32 seq = m_tcb->m_nextTxSequence;
        const uint32_t sz = SendDataPacket(seq, unsent, true);
        if (sz == 0)
        {
            return false;
        }
        m_tcb->m_nextTxSequence = seq + sz;
        return true;
    }

    /// Whether Nagle was configured (TcpNoDelay false), whatever NagleForNewDataOnly has
    /// since made of m_noDelay.
    bool NagleConfigured() const
    {
        return m_nagleKnown ? m_nagle : !m_noDelay;
    }

    /// Nagle's test on new data only: off while the buffer holds nothing unsent (then a
    /// short segment can only be a retransmission). Called before ns-3 may send.
    void NagleForNewDataOnly()
    {
        if (!m_nagleKnown)
        {
            m_nagle = !m_noDelay; // the configured TcpNoDelay, read once
            m_nagleKnown = true;
        }
        if (m_nagle)
        {
            m_noDelay = m_tcb->m_highTxMark >= m_txBuffer->TailSequence();
        }
    }

    /// TcpSocketBase::SendDataPacket, with ECT on a retransmission when EctRetransmissions:
    /// ns-3's IsEct() consults the ECN mode's table, whose DCTCP row makes retransmissions
    /// ECT, so the classic mode is swapped for that one call.
    // ---- Slow start after idle (IdleRestart) ------------------------------------------------
    // Full-TCP's foutput(): "an option that causes us to slow-start if we've been idle for a
    // 'long' time, where long means a rto or longer" (slow_start_restart_, on by default).
    // Before a data segment that leaves with nothing outstanding (quiet: highest_ack_ ==
    // maxseq_), idle_restart() counts the time since the last data segment in ticks of the
    // connection's clock, int((tao + fmod(last + boot_time_, tick)) / tick) ticks, and if
    // that exceeds t_rtxcur_ (srtt + 4 rttvar, before the min RTO and back-off),
    // slowdown(CLOSE_CWND_INIT) sets cwnd to the initial window (ssthresh stays). So after
    // a timeout whose go-back-N is cut short by an ACK of everything sent, the next data
    // waits for its window to grow again. Weigle's ARED 5 ms at 105 %, seed 1: a server at
    // cwnd 2 after a timeout got an ACK of all it had sent 53 ms after its last segment, its
    // estimate below that; ns-2.35 opened cwnd to 3 and restarted it at 2 (two segments
    // sent), ns-3 sent three (test_idle_restart.py).
    void RestartAfterIdle()
    {
        if (m_lastDataSent < 0 || m_txBuffer->HeadSequence() != m_tcb->m_highTxMark)
        {
            return;
        }
        InitClock();
        const double tick = m_clock.tick;
        double tao = Simulator::Now().GetSeconds() - m_lastDataSent;
        if (!m_timestampEnabled)
        {
            const double tickoff = std::fmod(m_lastDataSent + ClockBoot(), tick);
            tao = int((tao + tickoff) / tick) * tick;
        }
        if (tao > m_clock.rtxcur)
        {
            SetExactCwnd(double(m_tcb->m_initialCWnd) * m_tcb->m_segmentSize);
            m_cwrOwed = m_cwrOwed || m_cwrNextSegment; // slowdown(): cong_action_ = TRUE
        }
    }

    uint32_t SendDataPacketEct(SequenceNumber32 seq, uint32_t maxSize, bool withAck, bool retrans)
    {
        const bool swap = retrans && m_ectRetransmissions &&
                          m_tcb->m_ecnState != TcpSocketState::ECN_DISABLED &&
                          m_tcb->m_ecnMode == TcpSocketState::ClassicEcn;
        if (swap)
        {
            m_tcb->m_ecnMode = TcpSocketState::DctcpEcn;
        }
        const uint32_t sz = TcpSocketBase::SendDataPacket(seq, maxSize, withAck);
        if (swap)
        {
            m_tcb->m_ecnMode = TcpSocketState::ClassicEcn;
        }
        NagleForNewDataOnly();
        return sz;
    }

    // ---- ns-2's delayed-ACK sink (Ns2DelAckSink) --------------------------------------
    // ns-2.35's DelAckSink::recv (tcp-sink.cc) holds the ACK of a segment when no ACK is
    // held (its timer not pending), the segment's seqno is the highest in-order one after
    // the update and none above it has been seen (RFC2581_immediate_ack_) and it is not
    // the one-way agent's header-only packet 0 (SYN_immediate_ack_): then it arms its
    // interval_ timer. Every other arrival is acknowledged at once and ends the hold
    // (timer cancelled, held packet freed). Two consequences ns-3's ReceivedData does not
    // share: (1) a duplicate of the last in-order segment (a go-back-N retransmission of
    // what already arrived) passes the in-order test, so it is held, not answered by a
    // duplicate ACK, and the next segment is then acknowledged at once; ns-3 sends the
    // duplicate ACK at once and holds the next segment. (2) An immediate ACK (gap, gap
    // fill, older duplicate) ends the hold; in ns-3 the held segment's count and timer
    // survive it, so the next in-order segment is acknowledged at once and the timer sends
    // a redundant ACK later. And ns-3 acknowledges the first data segment after the
    // handshake at once (m_delAckCount = m_delAckMaxCount in ProcessSynSent/SynRcvd)
    // where ns-2's sink holds it (its packet 0 is the handshake, acknowledged at once).
    // Pentikousis' five downloads (delayed ACKs, 100 ms): after the start-up timeouts the
    // go-back-N sends duplicates, and from the first one the two engines' flows part.
    void Ns2DelAckReceive(Ptr<Packet> packet, const TcpHeader& tcpHeader)
    {
        const Ptr<TcpRxBuffer> rx = m_tcb->m_rxBuffer;
        const SequenceNumber32 next = rx->NextRxSequence();
        const SequenceNumber32 seq = tcpHeader.GetSequenceNumber();
        const uint32_t size = packet->GetSize();
        const bool above = rx->Size() > rx->Available(); // out-of-order data held
        const bool holding = m_delAckEvent.IsPending();
        if (!holding)
        {
            m_delAckCount = 0; // also ns-3's "respond to the first data packet"
        }
        if (size > 0 && seq + size == next && !above && !holding)
        {
            // a duplicate of the last in-order segment: held like a new one
            m_delAckCount = 1;
            m_delAckEvent = Simulator::Schedule(m_delAckTimeout, &AqmTcpSocket::DelAckTimeout,
                                                this);
            return;
        }
        const bool inOrder = size > 0 && seq == next && !above;
        TcpSocketBase::ReceivedData(packet, tcpHeader);
        if (!inOrder)
        {
            // ns-3 has acknowledged it at once: that ends the hold, as in ns-2
            m_delAckEvent.Cancel();
            m_delAckCount = 0;
        }
    }

  private:
    void Trace(char event, SequenceNumber32 seq) const
    {
        const double mss = m_tcb->m_segmentSize;
        // the exact time: ns-2's double on its clock (Now() is the nearest femtosecond)
        const Ns2ClockSimulatorImpl* sim = Ns2ClockSimulatorImpl::Current();
        const double now = sim != nullptr ? sim->NowDouble() : Simulator::Now().GetSeconds();
        std::fprintf(TcpTrace::File(), "%.17g %u %c %.3f %.3f %.3f %d %.4f %.4f %.4f %d\n",
                     now, m_tracePort, event,
                     (seq.GetValue() - 1) / mss, m_tcb->m_cWnd.Get() / mss,
                     m_tcb->m_ssThresh.Get() / mss, int(m_tcb->m_congState.Get()),
                     m_rto.Get().GetSeconds(), m_rtt->GetEstimate().GetSeconds(),
                     m_rtt->GetVariation().GetSeconds(), m_clock.backoff);
        std::fflush(TcpTrace::File());
    }

    uint16_t m_tracePort{0};

    bool m_fullTcpAcks{false};
    bool m_ectRetransmissions{true};
    bool m_ignoreDupSyn{false};
    bool m_fullTcpSynTimeout{false};
    bool m_finOnRto{false};
    bool m_dupSynAckOwed{false}; // IgnoreDupSyn: a duplicate SYN was ignored, an ACK owed
    bool m_ackDupSynAck{false};  // AckDupSynAck
    uint32_t m_synTimeouts{0};  // SYN or SYN/ACK retransmission timeouts (FullTcpSynTimeout)
    uint32_t m_synSsThresh{0};  // the ssthresh they left
    bool m_nagle{false};      // Nagle configured (TcpNoDelay false), see NagleForNewDataOnly
    bool m_nagleKnown{false};
    bool m_countAllTimeouts{false};
    uint32_t m_controlTimeouts{0}; // SYN/ACK (or FIN) timeouts not yet counted (no stats yet)
    uint64_t m_heldBytes{0}; // bytes whose ACK the pending delayed-ACK event owes (FullTcpAcks)
    bool m_ackAfterUpcall{false}; // inside ReceivedData, owing an ACK at once (FullTcpAcks)
    bool m_holeFillUpcall{false}; // inside ReceivedData for a hole-filling segment (FullTcpAcks)

    static std::unordered_set<const AqmTcpSocket*>& Live()
    {
        static std::unordered_set<const AqmTcpSocket*> live;
        return live;
    }

    EventId m_finWait2Event;
    bool m_fastRegistered{false};
    TcpKey m_fastKey;
    uint16_t m_listenPort{0}; // registered with FastTcpDemux as this port's listener
    std::function<void()> m_onDestroy;

    /// ns-2's slowdown(CLOSE_CWND_HALF): cwnd_ = min(cwnd, rwnd) / 2, not rounded to
    /// segments, at least one (bytes; a fraction of a byte is kept with ExactCwnd).
    double ExactHalfWindow(double cwnd) const
    {
        return std::max<double>(m_tcb->m_segmentSize, std::min<double>(cwnd, m_rWnd.Get()) / 2);
    }

    /// ns-2 slowdown(CLOSE_SSTHRESH_HALF): half of min(cwnd, rwnd) in whole segments, >= 2.
    uint32_t RenoHalfWindow(double cwnd) const
    {
        const uint32_t mss = m_tcb->m_segmentSize;
        const auto win = uint32_t(std::min<double>(cwnd, m_rWnd.Get()) / mss);
        return std::max<uint32_t>(2, win / 2) * mss;
    }

    /// cwnd (bytes) with the fraction of a byte TcpNs2NewReno keeps (ns-2's cwnd_ is a real
    /// number, see ns2_reno_cc.h); whole bytes with another congestion control.
    double ExactCwnd() const
    {
        auto cc = Ns2Cc();
        return cc ? cc->ExactCwnd(m_tcb) : double(m_tcb->m_cWnd.Get());
    }

    /// Set cwnd (and the inflated window) to `bytes`, the fraction kept as ExactCwnd.
    void SetExactCwnd(double bytes)
    {
        if (auto cc = Ns2Cc())
        {
            cc->SetExactCwnd(m_tcb, bytes);
        }
        else
        {
            m_tcb->m_cWnd = uint32_t(bytes);
        }
        m_tcb->m_cWndInfl = m_tcb->m_cWnd;
    }

    static constexpr double MAX_RTO_S = 60.0; // ns-2 maxrto_, ns-3's cap

    // The window-increase rules live in the congestion control (ns2_reno_cc.h), which a
    // fork copies; MakeTcpSocket creates it before it sets the attributes.
    Ptr<TcpNs2NewReno> Ns2Cc() const
    {
        return DynamicCast<TcpNs2NewReno>(m_congestionControl);
    }

    void SetExactCaIncrease(bool on)
    {
        if (auto cc = Ns2Cc())
        {
            cc->SetExactIncrease(on);
        }
    }

    bool GetExactCaIncrease() const
    {
        auto cc = Ns2Cc();
        return cc && cc->GetExactIncrease();
    }

    void SetOneIncreasePerAck(bool on)
    {
        if (auto cc = Ns2Cc())
        {
            cc->SetOneIncreasePerAck(on);
        }
    }

    bool GetOneIncreasePerAck() const
    {
        auto cc = Ns2Cc();
        return cc && cc->GetOneIncreasePerAck();
    }

    bool m_reno{false};
    bool m_cwrFastRetransmit{true};
    bool m_rttTimed{false};
    bool m_rtoTicks{false};
    bool m_backoffUntilSample{false};
    bool m_rtoArmBeforeSample{false}; // RtoArmBeforeSample
    bool m_owedAckCarriesData{false}; // OwedAckCarriesData
    Time m_preAckRto;                 // the timeout before this ACK's sample (RtoArmBeforeSample)
    bool m_preAckRtoSet{false};
    bool m_restartOnFastRetransmit{false};
    bool m_timeoutHalvesWindow{false};
    bool m_renoGuard{false};
    bool m_renoHalfCwnd{false};
    bool m_renoFullTcpWindow{false}; // RenoFullTcpWindow (see "Full-TCP's fast recovery")
    uint32_t m_fullTcpMarksOwed{0};  // dupacks 1-2 not yet counted as segments gone
    bool m_ltAfterTimeout{false};
    bool m_ecnHalvesWindow{false};
    bool m_ecnBelowOne{false};    // EcnWindowBelowOne (see "ECN window below one segment")
    bool m_ecnBackoff{false};     // ns-2 ecn_backoff_
    bool m_ecnPastRecover{false}; // EcnPastRecover (see "ECN echo during a loss recovery")
    bool m_ecnDupAck{false};      // EcnOnDupAck (see "ECN echo on a duplicate ACK")
    bool m_ecnCutThisAck{false};  // this duplicate ACK's echo was answered (EcnOnDupAck)
    bool m_ecnIgnored{false};     // this ACK's ECN-Echo is not answered (ECE hidden)
    bool m_fastRtxPointSet{false};
    SequenceNumber32 m_fastRtxPoint{0}; // ns-2's recover_: highest byte sent + 1 at the last
                                        // fast retransmit (reno_action) or ECN cut
    uint32_t m_ns2Dupwnd{0};            // ns-2 Reno's dupwnd_ in a fast recovery
    bool m_ecnLossDupacksOn{false}; // counting dupacks_ since a timeout (EcnBranchAfterTimeout)
    uint32_t m_ecnLossDupacks{0};   // ns-2's dupacks_ since that timeout, for that branch
                                    // alone (m_lossDupAcks: limited transmit, Full-TCP)
    uint32_t m_lossDupwnd{0};           // its dupwnd_ after the ECN branch; 0: none
    double m_lossDupwndBase{0};         // the exact cwnd under that inflation
    uint32_t m_dupwndBeforeAck{0};      // ... as the ACK being processed found it
    bool m_cwrNextSegment{false}; // CwrOnNextSegment (see "CWR flag")
    bool m_everyCeMark{false};    // EveryCeMark (see "Every CE mark")
    bool m_beforeDoForwardUp{false}; // inside EveryCeForwardUp, DoForwardUp not yet reached
    bool m_arrivalCe{false};         // ... the arriving segment is CE-marked
    bool m_arrivalCwr{false};        // ... and carries CWR
    bool m_cwrOwed{false};        // a window cut since the last data segment (cong_action_)
    bool m_lastCutEcn{false};     // the last window cut was an ECN echo's (see ReTxTimeout)
    bool m_cwrCutThisAck{false};  // this ACK's fast retransmit has been noted as a cut
    bool m_cwrHooked{false};      // CwrOnTx is connected to the Tx trace
    bool m_cwrSending{false};     // inside SendDataPacket: CwrOnTx decides the CWR flag
    bool m_ns2DelAck{false};
    bool m_ackWithData{false};
    bool m_bareSyn{false};
    bool m_synAckTimer{true};
    bool m_timingAtRelease{false};
    bool m_ackedHeldDropped{false}; // AckedHeldDropped (see "Processing hold")
    bool m_heldBeyondWindowUnsent{false}; // HeldBeyondWindowUnsent
    bool m_fullLastSegment{false};    // FullLastSegment (read by the Sender application)
    bool m_noFinAfterTransfer{false}; // NoFinAfterTransfer (read by the Sender application)
    bool m_fullTcpFin{false};         // FullTcpFin: "Full-TCP's FIN"
    bool m_fullTcpLastByte{false};    // FullTcpLastByte: "Full-TCP's last byte"
    bool m_lastByteForced{false};     // inside a forced output (FullTcpLastByte)
    bool m_lastAckIgnoresFin{false};  // LastAckIgnoresFin (see "A resent FIN in LAST_ACK")
    bool m_everyCeRx{false};          // an accepted socket with EveryCeMark
    bool m_finOnClosingAcks{false};   // FinOnClosingAcks (see "FINs while closing")
    bool m_ackEarlyFin{false};        // AckEarlyFin (see "FINs while closing")
    bool m_idleRestart{false};        // IdleRestart (see "Slow start after idle")
    double m_lastDataSent{-1};        // when the last data segment left (s): last_send_time_
    bool m_bareFinIn{false};          // FullTcpFin: the peer's FIN came without data
    std::shared_ptr<HoldListeners> m_holdTable; // ListenToHold
    uint32_t m_holdFlow{0};
    std::deque<HeldSend> m_heldSends; // in the hold, in order
    HeldSend m_sending{};             // SendScope: the packet being sent
    bool m_sendHeld{false};           // the hold kept it
    bool m_timedHere{false};          // its send started the RTT timing
    uint32_t m_sendTimerUid{0};       // the retransmission timer before it
    bool m_wireAny{false};            // anything has left (the hold)
    SequenceNumber32 m_wireHigh{0};   // end of the highest sequence that left (maxseq_)
    bool m_scaleWanted{true}; // BareSyn: window scaling as configured (Connect / Listen)
    bool m_sackWanted{true};  // BareSyn: SACK as configured (Connect / Listen)
    bool m_holdHandshakeAck{false}; // inside ProcessSynSent (DoForwardUp in SYN_SENT)
    bool m_handshakeAckHeld{false};
    double m_ecnCwnd{0};            // bytes: cwnd set by an ECN echo, kept when CWR ends
    bool m_ackEce{false};           // the ACK being processed carries ECN-Echo
    double m_cwndBeforeAck{0};      // cwnd (ExactCwnd) and recovery point before the ACK
    SequenceNumber32 m_recoverBeforeAck{0};
    uint32_t m_lossDupAcks{0}; // duplicate ACKs since the last new ACK, in the loss state
    bool m_ftRenoFastrecov{false}; // Full-TCP Reno's fastrecov_ after a third loss dupack
    bool m_sack1{false};       // Sack1Recovery (see "Sack1")
    bool m_sackFullTcp{false}; // SackFullTcp: Full-TCP's flavour of it (see "Sack1")
    bool m_ns2SackBlocks{false}; // Ns2SackBlocks
    bool m_fullTcpSackBlocks{false}; // FullTcpSackBlocks
    FullTcpSacker m_ftSacker;        // its state (the receiving socket's)
    bool m_synLossWindowOne{false}; // SynLossWindowOne
    bool m_sack1AfterTimeout{false};          // Sack1's timeout_ (Sack1LossScoreboard)
    bool m_sack1LossInformative{false};       // this ACK's blocks added to that scoreboard
    std::unordered_set<uint32_t> m_sack1LossBoard; // segments SACKed since the last new ACK
    bool m_ns2SackWire{false};   // Ns2SackOptionBytes
    Ns2Sacker m_sacker;          // its state (the receiving socket's)
    bool m_sackHoles{false};   // SackTimeoutHoles (see "Full-TCP SACK after a timeout")
    bool m_ftLoss{false};      // in the loss state of a data timeout, holes mode
    bool m_inTimeout{false};   // inside the base class's ReTxTimeout
    bool m_ftNoSend{false};    // this ACK was the third dupack: dupack_action, no send
    bool m_ftFastrecov{false}; // fastrecov_ set by dupack_action's bug_fix_ return
    uint32_t m_ftDupacks{0};   // dupacks_ since the timeout
    SequenceNumber32 m_ftNext{0};    // t_seqno_ (go-back-N point)
    SequenceNumber32 m_ftRecover{0}; // recover_ = maxseq_ at the timeout
    int64_t m_sackFtPipe{0};   // Full-TCP's pipe_, in bytes
    bool m_sack1Active{false}; // in a Sack1 fast recovery (fastrecov_)
    bool m_sack1Entered{false}; // this ACK started it: nothing more is sent for it
    bool m_sack1Partial{false}; // the base class is processing a partial ACK of it
    int64_t m_sack1Pipe{0};    // pipe_, in segments
    SequenceNumber32 m_sendOneLimit{0}; // Sack1SendOneLimit: data may go out below it
    double m_sack1Cwnd{0};     // bytes: cwnd_ during and after the recovery (exact half)
    SequenceNumber32 m_sack1Rxt{0}; // h_seqno_: holes below this are not resent again
    std::vector<std::pair<SequenceNumber32, SequenceNumber32>> m_sack1Blocks; // ScoreBoardRQ
    double m_halfCwnd{0}; // bytes: cwnd during and after a Reno fast recovery
    Ns2RtoClock m_clock;
    bool m_clockReady{false};
    bool m_rtoMemo{false};      // RtoTime: the three below are set
    int64_t m_rtoMemoMinRto{0}; // m_minRto's time steps ...
    double m_rtoMemoMinRtoS{0}; // ... in seconds
    double m_rtoMemoS{0};       // the last timeout (s) ...
    Time m_rtoMemoTime;         // ... as a Time
    bool m_bootSet{false};
    double m_bootFraction{-1}; // SetBootPhase
    std::function<void()> m_onPassiveCloseDone; // SetOnPassiveCloseDone
    std::function<double(const Address&)> m_bootOf; // SetBootOf (listeners and their forks)
    std::function<void(AqmTcpSocket&, const Address&)> m_onFork; // SetOnFork (the same)
    bool m_rttActive{false};        // a segment is being timed (rtt_active_)
    SequenceNumber32 m_rttSeq{0};   // an ACK at or above this ends the timing
    Time m_rttSentAt;               // when the timed segment left (rtt_ts_)
    bool m_guardActive{false};
    SequenceNumber32 m_guard{0};
    TcpSocketState::TcpCongState_t m_prevState{TcpSocketState::CA_OPEN};
    TcpSocketState::TcpCongState_t m_stateBeforeAck{TcpSocketState::CA_OPEN};
    TcpSocketState::TcpCongState_t m_cwrEnteredFrom{TcpSocketState::CA_OPEN};
    FlowStats* m_stats{nullptr};
};

/// FastAttributesEnabled(): whether MakeTcpSocket sets a profile's attributes from values
/// parsed once per profile (AQMLAB_FAST_ATTRIBUTES=0: from the strings, per socket, as
/// SetAttribute does). In web runs, which create a socket per connection, the name lookups
/// and string parsing of the ~20 attributes took ~10 % of the run.
AQMLAB_SWITCH(FastAttributes, EnvSwitch("AQMLAB_FAST_ATTRIBUTES", true))

/// How to build a socket: congestion control, recovery and attribute values.
struct TcpProfile
{
    std::string congestion = "ns3::TcpNewReno";
    std::string recovery = "ns3::TcpClassicRecovery";
    bool reno = false;
    double rttAlpha = 0.125;
    double rttBeta = 0.25;
    std::vector<std::pair<std::string, std::string>> attributes; // TcpSocket(Base) attributes

    /// An attribute as ObjectBase::SetAttribute finds and checks it: its accessor and the
    /// value its checker makes of the string.
    struct Resolved
    {
        Ptr<const AttributeAccessor> accessor;
        Ptr<AttributeValue> value;
    };

    /// `attributes` resolved for objects of type `tid` (once); nullptr if one of them does
    /// not resolve (SetAttribute then reports it).
    const std::vector<Resolved>* ResolvedFor(TypeId tid) const
    {
        if (!m_resolvedOk || m_resolvedTid != tid)
        {
            m_resolved.clear();
            m_resolvedTid = tid;
            m_resolvedOk = true;
            for (const auto& [name, value] : attributes)
            {
                TypeId::AttributeInformation info;
                if (!tid.LookupAttributeByName(name, &info) || !(info.flags & TypeId::ATTR_SET) ||
                    !info.accessor->HasSetter())
                {
                    m_resolvedOk = false;
                    break;
                }
                Ptr<AttributeValue> v = info.checker->CreateValidValue(StringValue(value));
                if (!v)
                {
                    m_resolvedOk = false;
                    break;
                }
                m_resolved.push_back(Resolved{info.accessor, v});
            }
        }
        return m_resolvedOk ? &m_resolved : nullptr;
    }

  private:
    mutable std::vector<Resolved> m_resolved;
    mutable TypeId m_resolvedTid;
    mutable bool m_resolvedOk = false;
};

/// Create an AqmTcpSocket on `node` configured by `profile` (as TcpL4Protocol would);
/// `addToTcp` false: not entered in the node's TCP socket list (a prototype, below).
inline Ptr<AqmTcpSocket>
MakeTcpSocket(Ptr<Node> node, const TcpProfile& profile, bool addToTcp = true)
{
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    Ptr<RttMeanDeviation> rtt = CreateObject<RttMeanDeviation>();
    rtt->SetAttribute("Alpha", DoubleValue(profile.rttAlpha));
    rtt->SetAttribute("Beta", DoubleValue(profile.rttBeta));
    TcpNs2NewReno::GetTypeId(); // registers aqmlab's TypeId before it is looked up by name
    ObjectFactory cc;
    cc.SetTypeId(profile.congestion);
    ObjectFactory rec;
    rec.SetTypeId(profile.recovery);

    Ptr<AqmTcpSocket> s = CreateObject<AqmTcpSocket>();
    s->SetNode(node);
    s->SetTcp(tcp);
    s->SetRtt(rtt);
    s->SetCongestionControlAlgorithm(cc.Create<TcpCongestionOps>());
    s->SetRecoveryAlgorithm(rec.Create<TcpRecoveryOps>());
    s->SetReno(profile.reno);
    const auto* resolved =
        FastAttributesEnabled() ? profile.ResolvedFor(s->GetInstanceTypeId()) : nullptr;
    for (size_t i = 0; i < profile.attributes.size(); ++i)
    {
        // ObjectBase::SetAttribute without the lookup and parsing; it reports any failure
        if (!resolved || !(*resolved)[i].accessor->Set(PeekPointer(s), *(*resolved)[i].value))
        {
            s->SetAttribute(profile.attributes[i].first, StringValue(profile.attributes[i].second));
        }
    }
    if (addToTcp)
    {
        tcp->AddSocket(s);
    }
    return s;
}

/// SocketPrototypeEnabled(): whether an application that opens a connection per request
/// (WebClient) makes each socket as a copy of a prototype that MakeTcpSocket built once
/// (AQMLAB_SOCKET_PROTOTYPE=0: MakeTcpSocket per connection). MakeTcpSocket's
/// CreateObject sets the initial value of each of the socket's ~45 attributes
/// (ConstructSelf), then the profile's ~20, and builds the RTT estimator, congestion
/// control and recovery from ObjectFactories by name: ~3 % of a two-way web run. A copy
/// goes through the constructor a listener's Fork uses (ns-3's TcpSocketBase copy
/// constructor and AqmTcpSocket's): it copies every attribute-backed member (TcpSocketBase's,
/// TcpSocketState's through CopyObject, the buffers' through CopyObject, AqmTcpSocket's),
/// copies the RTT estimator (Copy) and forks congestion control and recovery (Fork, then
/// Init), and sets the rest as a new socket has it (no endpoint, null callbacks, no trace
/// connected but its own). The prototype is never bound, connected or listed by TCP, so
/// each copy starts from a new socket's state; it is made at the first connection, so no
/// random number or event is drawn in a different order. It holds its node (as each socket
/// does) until the application is disposed. Only for profiles whose congestion control
/// and recovery copy all their configuration in Fork and draw no random numbers
/// (SocketPrototypeFits): TcpBbr's Fork shares its random variable with the original, and
/// a new one takes the next random stream, so BBR and the other variants keep
/// MakeTcpSocket.
AQMLAB_SWITCH(SocketPrototype, EnvSwitch("AQMLAB_SOCKET_PROTOTYPE", true))

/// Whether sockets of `profile` may be copied from a prototype: congestion control and
/// recovery without random variables whose Fork keeps every attribute (NewReno, aqmlab's
/// ns-2 NewReno: none or all copied; classic recovery: none; PRR: only per-recovery state).
inline bool
SocketPrototypeFits(const TcpProfile& profile)
{
    return (profile.congestion == "ns3::TcpNewReno" ||
            profile.congestion == "aqmlab::TcpNs2NewReno") &&
           (profile.recovery == "ns3::TcpClassicRecovery" ||
            profile.recovery == "ns3::TcpPrrRecovery");
}

/// MakeTcpSocket(node, profile), as a copy of `prototype` (made here on first use) when
/// SocketPrototypeEnabled().
inline Ptr<AqmTcpSocket>
MakeTcpSocketFrom(Ptr<AqmTcpSocket>& prototype, Ptr<Node> node, const TcpProfile& profile)
{
    if (!SocketPrototypeEnabled() || !SocketPrototypeFits(profile))
    {
        return MakeTcpSocket(node, profile);
    }
    if (!prototype)
    {
        prototype = MakeTcpSocket(node, profile, false);
    }
    Ptr<AqmTcpSocket> s = CopyObject<AqmTcpSocket>(prototype);
    node->GetObject<TcpL4Protocol>()->AddSocket(s);
    return s;
}

} // namespace aqmlab
