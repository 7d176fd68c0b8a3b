"""Sender mechanisms where ns-2.35 and ns-3.44 part ways: the retransmission timer, Reno's
and SACK's loss recovery. Each is a :class:`~aqmlab.kinds.tcp.Tcp` field whose default, "auto", is
ns-2's behaviour for the variants ns-2 has (reno, newreno, sack) and ns-3's for the others
(cubic, bbr, dctcp, linux-reno); either value can be chosen explicitly.

Measured on Qiu et al.'s T1 dumbbell (drop-tail 160 packets, Reno, min RTO 1 s, 10 ms random
processing time, 200 s, two seeds): with aqmlab 0.2's sender, 300 and 1000 flows lost
28 % and 42 % of the packets, with 59 and 36 timeouts per flow and Jain's index 0.84 and
0.54; ns-2.35 24 % and 34 %, 44 and 24, 0.88 and 0.64; with these mechanisms ns-3 gives
24 % and 34 %, 44 and 23, 0.87 and 0.62. Each is traced packet by packet on both engines
in tests/differential. Where each comes from in ns-2.35 (tcp/tcp.cc, tcp-reno.cc,
tcp-full.cc, tcp-sack1.cc) is in :data:`MECHANISMS`.

``sack_recovery`` measured on the three-hop parking lot of 25 SACK flows (drop-tail 100
packets, 60 s, seeds 1 and 2): with RFC 6675 ns-3's loss rate, timeouts and goodput were
25 %, 30 % and 0.044 of the link from ns-2.35's (mean over seeds); with ns2_sack1 13 %,
24 % and 0.014 (before increase_per_ack and ecn_window), while ns-2.35 itself moves 15 % and
36 % (loss, timeouts) between seeds; over eight seeds (0.4.0) the engines' means are 2.4 % and
9.6 % apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from aqmlab.units import check_choice

if TYPE_CHECKING:
    from aqmlab.kinds.tcp.spec import Tcp

__all__ = ["Mechanism", "MECHANISMS", "FIELDS", "check", "resolve", "ns3_attributes",
           "ns3_congestion"]


@dataclass(frozen=True)
class Mechanism:
    """A choice between ns-2's and ns-3's behaviour. ``ns2`` is ns-2's one-way agents'
    value (bulk flows, transfers), ``ns2_full`` Full-TCP's (web traffic), ``modern`` ns-3's."""

    field: str
    choices: tuple[str, ...]
    ns2: str
    ns2_full: str
    modern: str
    doc: str


MECHANISMS = (
    Mechanism(
        "rtt_sampling", ("every_ack", "timed"), "timed", "timed", "every_ack",
        "RTT samples: from every ACK (ns-3), or from one timed segment at a time, never a "
        "retransmission, the timing cancelled by a timeout, a fast retransmit or a SYN retry "
        "(ns-2's rtt_active_/rtt_seq_, 4.4BSD). With several segments per round trip, ns-3's "
        "rttvar decays by 3/4 per ACK instead of per round trip, so its RTO hugs the RTT and "
        "fires spuriously when queues grow. ns-2 with timestamps samples every ACK: 'auto' "
        "is every_ack then."),
    Mechanism(
        "rto_clock", ("exact", "ticks"), "ticks", "ticks", "exact",
        "RTO arithmetic: continuous time, max(min_rto, srtt + max(G, 4 rttvar)) (ns-3), or "
        "ns-2's (BSD's) clock ticks of clock_granularity: samples count tick boundaries "
        "(random phase per connection, at least 1), srtt/rttvar in fixed point, RTO = "
        "floor(srtt + 4 rttvar) ticks (at least 2), and srtt cleared after the fourth "
        "back-off (ns-2 rtt_update/rtt_timeout/rtt_backoff)."),
    Mechanism(
        "rto_backoff_reset", ("new_ack", "rtt_sample"), "rtt_sample", "new_ack", "new_ack",
        "When a backed-off RTO returns to the estimate: at every new ACK (ns-3; ns-2's "
        "Full-TCP), or only at an RTT sample, i.e. once a segment sent after the timeout "
        "is acknowledged (Karn; ns-2's one-way agents: t_backoff_ = 1 in newack()). Their "
        "go-back-N after a timeout thus runs under the doubled timer."),
    Mechanism(
        "rto_rearm", ("after_sample", "before_sample"), "after_sample", "before_sample",
        "after_sample",
        "Which RTO a new ACK re-arms the retransmission timer with: the one after that "
        "ACK's RTT sample and the end of a back-off (ns-3; ns-2's one-way agents, whose "
        "newack() runs newtimer() last with timerfix_ true), or the one before (ns-2's "
        "Full-TCP: newack() calls set_rtx_timer() first). The next timer armed uses the "
        "new RTO. They part where the RTO changes at that ACK: after a retried SYN/ACK the "
        "first data ACK gives the connection's first sample, and Full-TCP still arms the "
        "initial RTO (6 s in Weigle's set-up) where ns-3 arms min_rto (1 s); after a "
        "timeout the ACK of the retransmission re-arms the backed-off RTO. A 10-segment "
        "response losing its SYN/ACK and its second segment (tests/differential/"
        "test_rto_rearm.py): ns-2.35 retransmits 6 s after the first data ACK, ns-3 1 s "
        "after. Only where aqmlab computes the timer."),
    Mechanism(
        "owed_ack", ("pure", "with_data"), "pure", "with_data", "pure",
        "An ACK the receiver owes at once (a duplicate or out-of-order segment, the "
        "delayed-ACK timer): a pure ACK (ns-3; ns-2's one-way sinks send nothing else), or, "
        "from a sender with a short unsent tail (one Nagle holds, or a response written in "
        "that instant), that tail carrying the ACK (ns-2's Full-TCP: foutput() sends the "
        "data the window allows when an ACK is owed, Nagle or not). A web server whose "
        "first response segment is lost gets the client's request again: ns-2.35 answers "
        "with the held tail, ns-3 with a pure ACK, and the tail left one round trip later "
        "(tests/differential/test_owed_ack.py)."),
    Mechanism(
        "rto_restart", ("new_ack", "fast_retransmit"), "fast_retransmit", "fast_retransmit",
        "new_ack",
        "When the retransmission timer restarts: at each new ACK (ns-3, RFC 6298), or also "
        "at a fast retransmit (ns-2 reset_rtx_timer(1, 0); Full-TCP re-arms it with the "
        "retransmission). Without the restart, a recovery started a few dupacks after the "
        "last new ACK often ends in a timeout."),
    Mechanism(
        "timeout_ssthresh", ("flight", "window"), "window", "window", "flight",
        "ssthresh at a timeout: half the flight, and kept at a repeated timeout of an "
        "already retransmitted segment (ns-3), or max(2, min(cwnd, rwnd) / 2) segments at "
        "every timeout, except when an ECN echo made the last window cut, which then "
        "already cut it: cwnd 1, ssthresh kept (ns-2 timeout()/slowdown(CLOSE_CWND_ONE)). "
        "ns-2's test is `highest_ack_ < recover_ && last_cwnd_action_ == ECN`, but Reno's "
        "and Sack1's timeout() set recover_ = maxseq_ just before (bug_fix_), so it is the "
        "last action alone: no fast retransmit or timeout since the echo, however long "
        "after its window of data (aqmlab until 0.7.1: only within it, in CWR). "
        "Pentikousis' conservative RED+ECN, limit 32, 20 MiB, seed 6, flow 3: an echo at "
        "13.88 s (ssthresh 3), its window over by 14.7 s, a timeout at 15.88 s with cwnd "
        "4.6: ns-2.35 kept 3, ns-3 halved to 2 and the runs parted at 16.32 s. Reno "
        "already halves the window at a first timeout; this adds the repeated ones, the "
        "ECN case and the other variants. Full-TCP keeps the last action ECN through its "
        "timeouts (timeout_action), not modelled: web sockets follow the one-way rule."),
    Mechanism(
        "fast_retransmit_guard", ("timeout", "fast_retransmit"), "fast_retransmit",
        "timeout", "timeout",
        "Reno: after which events three duplicate ACKs may fast-retransmit only once the "
        "cumulative ACK passes the highest segment sent before the event (RFC 6582 s3.2): "
        "a timeout (aqmlab's Reno until 0.2; ns-2's Full-TCP), or a fast retransmit too "
        "(ns-2's one-way agents, bugFix_, on by default): a second loss in the window of a "
        "Reno recovery then waits for the timeout. Full-TCP's dupack_action() skips its "
        "bug_fix_ test when the last window cut was a fast retransmit (last_cwnd_action_ "
        "CWND_ACTION_DUPACK), so after the partial ACK that ends its Reno recovery three "
        "new dupacks resend the next hole: a 40-segment web response losing segments 14 and "
        "15 of a 14-segment flight ended at 0.527 s on ns-2.35 and, guarded, after a "
        "timeout at 1.567 s on ns-3 (test_full_tcp_recovery.py)."),
    Mechanism(
        "ca_increase", ("whole_bytes", "exact"), "exact", "exact", "whole_bytes",
        "Congestion avoidance (reno, newreno, sack): cwnd grows by floor(mss^2 / cwnd) "
        "bytes per ACK (ns-3's TcpNewReno), or exactly 1/cwnd segments (ns-2's opencwnd: "
        "cwnd_ a real number, of which int(cwnd_) segments are sent; aqmlab's "
        "TcpNs2NewReno keeps the fraction of a byte, through the exact Reno, ECN and Sack1 "
        "halves too, and takes the increase over the exact window). The truncation is up "
        "to a byte per ACK: 3 % slower growth at 42 segments of 1000 B. Increases over "
        "the whole bytes alone (aqmlab until 0.5) grew cwnd by up to 1/mss per ACK too "
        "fast: Pentikousis' drop-tail at limit 32 reached 10 segments where ns-2.35's "
        "cwnd_ was 9.99982, sent a segment more and ended with 946 drops against 968."),
    Mechanism(
        "increase_per_ack", ("split", "one"), "one", "one", "split",
        "Window increases per new ACK (reno, newreno, sack): one, +1 segment in slow start "
        "or +1/cwnd in congestion avoidance, however many segments the ACK covers (ns-2's "
        "opencwnd), or ns-3's split: slow start takes one of the ACK's segments and, if "
        "cwnd reaches ssthresh, the ones left make a congestion-avoidance increase too. "
        "They part at a cumulative ACK ending slow start: after a timeout with ssthresh 2, "
        "the retransmission filling a hole takes cwnd from 1 to 2.5 (ns-2: 2), so ns-3 "
        "spends one ACK less at a 2-segment flight and more at 3, where a loss has only "
        "two dupacks to give: Qiu's T1 at 100 flows timed out 19 % more often."),
    Mechanism(
        "ecn_window", ("flight", "half_window"), "half_window", "half_window", "flight",
        "The window an ECN echo leaves (once per window of data): ssthresh = max(2, flight "
        "/ 2) segments and cwnd = ssthresh, again when CWR ends (ns-3), or cwnd = exactly "
        "half of min(cwnd, rwnd), at least 1 segment, ssthresh that rounded down (at least "
        "2), and cwnd kept (ns-2 ecn()/slowdown() with precisionReduce_); within that "
        "window of data every new ACK without ECN-Echo opens cwnd (ns-2 "
        "recv_newack_helper: recover_ only stops a second cut; ns-3's CWR grows nothing "
        "until the recovery point is passed), and Reno's fast retransmit there keeps cwnd "
        "(dupack_action after an ECN cut: dupwnd_ = 3, no second halving; with "
        "reno_window 'ns2'). Pentikousis' conservative RED+ECN, limit 32: the runs parted "
        "at 9.14 s without these two, at 18.2 s with them. ns-3's floor of "
        "2 segments kept Pentikousis' five RED+ECN downloads at 2-segment flights, where a "
        "loss has one dupack to give, twice as often as ns-2 (which goes to 1-2 segments "
        "and spreads the rest). The cut also answers the first echo after a timeout "
        "(ns-2 ecn(): last_cwnd_action_ TIMEOUT; ns-3's CWR from the loss state set cwnd = "
        "ssthresh): Pentikousis' cons-ecn, limit 32, 20 MiB, seed 6, flow 0 at 16.54 s, "
        "cwnd 2 -> 1 on ns-2.35. Below one segment and ns-2's RTO back-off at an "
        "echo with cwnd 1 (ecn_backoff_): ecn_cwnd_floor."),
    Mechanism(
        "ecn_cwnd_floor", ("one_segment", "none"), "none", "one_segment", "one_segment",
        "With ecn_window 'half_window': whether an ECN echo's cut stops at one segment "
        "(ns-3's floor, aqmlab before 0.7.5), or may leave cwnd below one segment (ns-2.35 "
        "slowdown(): no floor under cwnd_), so that nothing is sent until the "
        "retransmission timer expires: newtimer() arms it when cwnd_ < 1 even with "
        "nothing outstanding, and timeout() then sets cwnd 1, keeps ssthresh and the "
        "back-off (no outstanding data, restart_bugfix_) and sends the next segment "
        "(RFC 3168 6.1.2); an echo answered at cwnd <= 1 after another such echo backs the "
        "timer off, and an RTT sample on an echoing ACK keeps that back-off (ecn(), "
        "newack(): ecn_backoff_). Pentikousis' aggressive RED+ECN, 10 clients, limit 32, "
        "2 MiB, seed 1, flow 6: an echo at 15.351 s cut cwnd 1.803 -> 0.902 with nothing "
        "outstanding; ns-2.35 sent segment 135 one RTO later (16.351 s), ns-3 at once, "
        "where the runs first parted. Full-TCP (web) is not traced: 'auto' keeps "
        "'one_segment' there."),
    Mechanism(
        "ecn_response", ("outside_cwr", "past_recover"), "past_recover", "outside_cwr",
        "outside_cwr",
        "With ECN, which ECN-Echo the sender answers: any on a new ACK outside ECN's CWR "
        "window, in fast recovery too (ns-3: ssthresh max(2, flight / 2), cwnd = "
        "ssthresh), or only one on an ACK beyond the highest segment sent at the last fast "
        "retransmit or ECN cut, or the first after a timeout (ns-2 ecn(): seqno > recover_ "
        "|| last_cwnd_action_ == CWND_ACTION_TIMEOUT; dupack_action() sets recover_ = "
        "maxseq_); an echoing ACK opens no window either way (recv_newack_helper). "
        "Pentikousis' aggressive RED+ECN, 10 clients, limit 32, 2 MiB, seed 1, flow 6: the "
        "echoing ACK that ended a Reno fast recovery at 59.331 s left cwnd 2.603 on "
        "ns-2.35, 2 on ns-3. The fast retransmit of a loss found after an ECN cut "
        "(dupack_action() returns before `recover_ = maxseq_`, no second cut) leaves "
        "recover_ at the cut's, so an echo on the ACK that ends that Reno recovery is "
        "answered, and slowdown() halves windowd() = cwnd_ + dupwnd_ (ecn() runs before "
        "the new ACK clears dupwnd_): seed 3, flow 5, the echoing ACK at 85.588 s cut "
        "(4.070 + 3) / 2 = 3.535, ssthresh 3 (test_ecn_after_cwr_retransmit.py). "
        "Full-TCP (web) is not traced: 'auto' keeps 'outside_cwr' there."),
    Mechanism(
        "ecn_dupack", ("ignored", "answered"), "answered", "ignored", "ignored",
        "With ECN, an ECN-Echo on a duplicate ACK: ignored (ns-3 reads ECE on new ACKs "
        "only), or answered as on a new ACK when beyond the highest segment sent at the "
        "last ECN cut or fast retransmit, or the first after a timeout (ns-2's one-way "
        "agents call ecn() for every ACK, before the new/duplicate test): CWR is entered "
        "and the window halved, and a third duplicate ACK then fast-retransmits without "
        "a second cut. Pentikousis' aggressive RED+ECN, 10 clients, limit 32, 2 MiB, seed "
        "7, flow 7: the first duplicate ACK of segment 262's loss echoed at 24.167 s; "
        "ns-2.35 cut cwnd 3.513 -> 1.757, ssthresh 2, ns-3 kept 3.513, and after the "
        "timeout at 24.902 s sent three segments at 25.397 s to ns-2.35's two "
        "(test_ecn_dupack.py). An echo on the third duplicate ACK cuts first, and the fast "
        "retransmit then keeps the cut window (flow 0, 64.876 s: 4.104 -> 2.052, dupwnd_ "
        "3, one new segment with the retransmission). After a timeout and an echo answered "
        "on a duplicate ACK, the third duplicate ACK takes the same branch: the head "
        "resent, dupwnd_ 3, the go-back-N resends let out up to int(cwnd_) + dupwnd_ "
        "(limit 8, 20 MiB, seed 5, flow 8 at 104.442 s: segments 1459-1461; "
        "test_ecn_dupack_after_timeout.py); that branch leaves recover_ at the cut's, so the "
        "next fast retransmit needs the ACK past the cut's highest segment only; and a cut "
        "below one segment on a duplicate ACK leaves the timer running (newtimer() is "
        "newack()'s). Full-TCP (web) is not traced: 'auto' keeps 'ignored' there."),
    Mechanism(
        "cwr_flag", ("new_data", "next_segment"), "next_segment", "new_data", "new_data",
        "Which data segment carries CWR (with ECN): the first new one sent after an ECN "
        "echo (ns-3, RFC 3168), or the first one sent after any window cut, an ECN echo "
        "answered, a fast retransmit or a timeout, a retransmission too (ns-2: slowdown() "
        "sets cong_action_, output() puts it on the next packet, SetCWRonRetransmit_ true "
        "by default since 2008). The receiver echoes ECN until a CWR arrives. When an echo "
        "cut a full window and the next packet is a timeout's retransmission, ns-3's "
        "receiver goes on echoing, the ACK of the retransmission echoes again and ns-3 "
        "cuts once more (CWR entered from the loss state: ssthresh max(2, flight / 2)), "
        "where ns-2's sink had stopped echoing: Pentikousis' conservative RED+ECN, limit "
        "32, seed 1, flow 4: an echo at 16.29 s (ssthresh 3), the window's first segment "
        "lost with two dupacks, a timeout at 17.40 s; from the ACK at 17.62 s ssthresh was "
        "2 on ns-3, 3 on ns-2.35, and the runs parted at 18.24 s. Full-TCP (tcp-full.cc "
        "foutput) sets CWR on retransmissions too, but web connections are not traced "
        "here and keep ns-3's."),
    Mechanism(
        "ecn_ce_marks", ("newer_only", "every"), "every", "newer_only", "newer_only",
        "With ECN, which CE-marked segments the receiver echoes. ns-3's ForwardUp takes a "
        "mark only on a segment beyond the last CE-marked one (m_ecnCESeq < seq), so a "
        "marked retransmission of a hole below an earlier mark is not echoed, and answers "
        "a segment wholly below the receive point (IsValidTcpSegment) with a bare ACK "
        "before reading its marks: never an echo. ns-2's sink (TcpSink::ack, tcp-sink.cc) "
        "decides every ACK alike: a CWR on the held or arriving packet clears "
        "ecn_unacked_, then any ECT packet with CE among them sets it, whatever its seqno "
        "('every'). Pentikousis' aggressive RED+ECN, five clients, limit 16, 20 MiB: seed "
        "1, flow 0, segment 8006's fast retransmission (with CWR) was marked on both "
        "engines at 305.688 s; ns-2.35's ACK of it echoed, opened no window, and the next "
        "one, beyond recover_, cut cwnd 3.384 -> 1.692 (305.858 s); ns-3's did not echo "
        "and the window opened. Seed 3, flow 3: a timeout's go-back-N resent segment 321, "
        "which had arrived; marked, its duplicate ACK echoed on ns-2.35 (12.799 s: cwnd "
        "3 -> 1.5, ssthresh 2), not on ns-3. These were the only partings of seeds 1-6 "
        "(test_every_ce_mark.py). Full-TCP (web) is not traced: 'auto' keeps "
        "'newer_only' there."),
    Mechanism(
        "delack_sink", ("ns3", "ns2"), "ns2", "ns3", "ns3",
        "With delayed ACKs, which arrivals the receiver holds (ns-2's one-way "
        "Agent/TCPSink/DelAck, tcp-sink.cc DelAckSink::recv): an in-order segment or a "
        "duplicate of the last in-order one, while no ACK is held; anything else is "
        "acknowledged at once and ends the hold (its timer cancelled). ns-3 answers that "
        "duplicate (a go-back-N retransmission of data that arrived) with an immediate "
        "duplicate ACK and holds the next segment, keeps a held segment's count and timer "
        "through an immediate ACK (the next in-order segment is acknowledged at once, the "
        "timer later sends a redundant ACK), and acknowledges the first data segment after "
        "the handshake at once (ns-2's sink holds it: 100 ms later, every flow of "
        "Pentikousis' set-up started 0.1 s later than on ns-3). Pentikousis' five "
        "downloads, 20 MiB, seeds 1-6: aggressive RED+ECN at limit 32, 30 timeouts on "
        "ns-2.35, 36 with 'ns3' (one more in every seed), 30 with 'ns2'; drop-tail at 16 "
        "gives ns-2.35's very drops, retransmissions and timeouts (11268, 11952, 3522; "
        "'ns3' 11028, 11730, 3528), at 32 timeouts 1590 ns-2.35, 1452 'ns3', 1572 'ns2'. "
        "Full-TCP (web) keeps ns-3's (its ack_rule is 'full_tcp'); no effect without "
        "delayed ACKs."),
    Mechanism(
        "handshake_ack", ("separate", "with_data"), "with_data", "separate", "separate",
        "The opener's ACK of the SYN/ACK: a pure ACK followed by the first data (ns-3), or "
        "carried by the first data segment when data is ready (no packet of its own): "
        "ns-2's one-way agents have no handshake (a header-only packet 0, acknowledged, "
        "then data), so bulk flows and transfers put no such packet on the forward path. "
        "Pentikousis' five downloads at drop-tail limit 8: the five pure ACKs beside the "
        "five first segments overflowed the queue, a flow lost its first segment and timed "
        "out at 1 s (ns-2.35: no loss). Web connections keep ns-3's (Full-TCP's own "
        "handshake not examined here)."),
    Mechanism(
        "syn_options", ("ns3", "none"), "none", "ns3", "ns3",
        "Option bytes of the SYN and SYN/ACK: ns-3's window-scale option (4 bytes each, "
        "with window_scaling), or none on the wire while both ends still scale by what "
        "their receive buffer needs (the same profile at both ends): ns-2's one-way agents "
        "have no handshake, a 40-byte packet 0 and its 40-byte ACK. Qiu's T1 dumbbell: "
        "every flow's first data left 54 us later than on ns-2.35 (8 bytes over T1 and "
        "the access links), and with 100 flows starting within a second the later flows' "
        "first packets met other queues: seed 1 parted at 0.39 s. Web connections keep "
        "ns-3's (Full-TCP's own handshake not examined here)."),
    Mechanism(
        "synack_retry", ("timer", "none"), "none", "timer", "timer",
        "The listener's SYN/ACK: resent on a timer (ConnTimeout, doubled) until the "
        "handshake's ACK arrives (ns-3), or only in answer to a duplicate SYN, the "
        "handshake completing when the opener's (retransmitted) data arrives: ns-2's "
        "one-way sink keeps no state and never sends on a timer. An opener already "
        "ESTABLISHED that receives the resent SYN/ACK resets cwnd and ssthresh to their "
        "initial values (ns-3's DoForwardUp). Qiu's T1 at 100 flows, seed 2: flow 14's "
        "first segment (carrying the handshake's ACK) was lost, the SYN/ACK came again at "
        "4.77 s and flow 14 was in slow start at 6.06 s where ns-2.35 was in congestion "
        "avoidance; seeds 3 and 6 parted at ~4.8 s on that extra 42-byte packet. With "
        "'none' a lost SYN/ACK is repaired by the opener's SYN retry, answered at once "
        "(dup_syn 'answer'; with 'ignore' the timer is kept). "
        "Web connections keep ns-3's (Full-TCP's own handshake not examined here)."),
    Mechanism(
        "processing_timing", ("socket", "output"), "output", "output", "socket",
        "With a sender processing time (bulk processing_time, ns-2's overhead_): when a "
        "held segment's RTT timing and an idle retransmission timer start: when the "
        "socket sends it into the hold (aqmlab until 0.7.1), or when the hold's timer fires "
        "and it leaves, as ns-2 delays send_much() itself and output() times the first new "
        "segment and arms the timer if none is pending or all data sent was acknowledged "
        "(tcp.cc send_much()/output(), force_set_rtx_timer). The hold is up to the "
        "processing time long: a tick boundary inside it adds a tick to the round trip, "
        "and a timer armed at the ACK fires that much earlier. Qiu's T1, 10 flows, a T1 "
        "packet time of processing, seed 2: flow 2 timed segment 1 from its ACK's "
        "arrival, 2 ticks where ns-2.35 counted 1 from its departure, its RTO stayed 0.1 "
        "s longer and it timed out at 5.09 s instead of 4.99 s; seed 1: flow 9's timer, "
        "armed 2 ms early, retransmitted into a full queue where ns-2.35's found room. "
        "Only where aqmlab computes the timer (rtt_sampling, rto_clock or "
        "rto_backoff_reset at ns-2's value)."),
    Mechanism(
        "held_acked", ("sent", "dropped"), "dropped", "dropped", "sent",
        "With a sender processing time (bulk processing_time, ns-2's overhead_): a segment "
        "waiting in the processing hold whose bytes an ACK covers before the hold's timer "
        "fires leaves anyway, as the socket chose it when it sent into the hold (aqmlab "
        "until 0.8.10), or is dropped there unsent, as ns-2 picks the segments only when "
        "the delayed send fires (send_much() from t_seqno_, which newack() moves past the "
        "acknowledged data). Qiu's T1, 100 flows, random processing, seed 3, flow 20: a "
        "timeout at 2.502 s, the ACK of segment 1 at 2.504107 s, and at the release "
        "(2.504209 s) ns-2.35 sent segments 2 and 3, aqmlab 0.8.10 1, 2 and 3 "
        "(test_held_acked.py)."),
    Mechanism(
        "held_beyond_window", ("sent", "unsent"), "unsent", "unsent", "sent",
        "With a sender processing time (bulk processing_time, ns-2's overhead_): a new "
        "segment the socket sent into the processing hold on a window that is smaller when "
        "the hold's timer fires leaves anyway (aqmlab until 0.8.11), or goes back to the "
        "unsent data with the held new segments after it, to be sent when the window "
        "admits it, as ns-2's delayed send_much() tests t_seqno_ <= highest_ack_ + "
        "window() only then. Qiu's T1, 100 flows, drop-tail 400, 10-ms processing, seed "
        "1, flow 6: segment 69, sent into the hold on a duplicate ACK's inflated window, "
        "left at 3.7448 s on aqmlab 0.8.11; the new ACK ending the recovery had zeroed "
        "ns-2's dupwnd_ before the timer fired, and ns-2.35 sent nothing. After a "
        "timeout meanwhile (ns-2: t_seqno_ = highest_ack_ + 1) a held new segment above "
        "the go-back-N pointer waits for the resends to reach it: Qiu's RTT-bias run 1 "
        "through RED-1, flow 7 at 18.4977 s, ns-2.35 sent the head alone, aqmlab 0.8.12 "
        "segment 525 too (test_held_beyond_window.py)."),
    Mechanism(
        "syn_timeout_ssthresh", ("keep", "halve"), "halve", "keep", "keep",
        "What a lost SYN costs the opener: ssthresh kept at its initial value, so the "
        "first data leaves in slow start (ns-3), or the SYN's retransmission timeout "
        "handled as any timeout, ssthresh max(2, window / 2) segments, 2 with an initial "
        "window of up to 5 (ns-2's one-way agents: packet 0 is sent under the data timer, "
        "and TcpAgent::timeout() calls slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART) "
        "whatever the segment), so the flow starts in congestion avoidance. Qiu's T1 at "
        "300 flows (seed 1, 40 s): 42 flows' SYNs were lost among 300 starting within a "
        "second; flow 148's retry at 3.80 s, its first data at 4.91 s, and at 7.16 s "
        "ns-2.35 sent segment 3 alone (cwnd 2.5) where ns-3, in slow start, sent 3 and 4: "
        "the runs parted there, and with 'halve' they send the same packets for the 40 s "
        "(test_syn_timeout.py). With 'halve' the first data also leaves with a window of "
        "one segment (TcpAgent::timeout(): a lost packet 0 sets wnd_init_ = 1, RFC 3390; "
        "the first new ACK sets cwnd_ = initial_window()): the parking lot (initial "
        "window 2), seed 1, flow 23 at 3.42 s sent segment 0 alone on ns-2.35, 0 and 1 on "
        "ns-3 (0.8.14). Web connections keep 'keep': Full-TCP's own rule is "
        "the syn_timeout field ('full_tcp', which also sets the first data's RTO)."),
    Mechanism(
        "last_segment", ("short", "full"), "full", "short", "short",
        "A finite transfer's last segment when its size is not a multiple of the MSS: "
        "the bytes left, sent once they fit the byte-counted window (ns-3), or a whole "
        "segment like the others (ns-2's one-way agents have no byte stream: tcp.cc "
        "sendmsg() adds nbytes / size_ rounded up to curseq_, output() sends size_ bytes "
        "per packet, and send_much() lets out int(cwnd_) packets past highest_ack_), so it "
        "waits for a whole segment of window and takes a full packet's time on every link; "
        "the receiver counts at most the transfer's size. Pentikousis' aggressive RED+ECN, "
        "10 clients, limit 32, 2 MiB (1437 segments of 1460 B, the last 592 B), seed 1, "
        "flow 2: the ACK at 89.200 s left segments 1433-1435 in flight at cwnd 3.635; "
        "ns-3 sent the 592-byte segment 1436 at once, ns-2.35 one ACK later (89.310 s) "
        "as a 1502-byte packet; the runs parted there (test_last_segment.py). Web "
        "connections (Full-TCP, a byte stream) keep 'short'."),
    Mechanism(
        "transfer_close", ("fin", "none"), "none", "fin", "fin",
        "How a finite transfer ends: the sender closes the connection, a FIN rides on "
        "the last segment, the receiver acknowledges it at once and sends its own FIN, "
        "which the sender acknowledges (ns-3), or nothing (ns-2's one-way agents have no "
        "FIN: the last segment is an ordinary one, whose ACK the DelAck sink delays like "
        "any other, and no packet follows it). Pentikousis' aggressive RED+ECN, 10 "
        "clients, limit 32, 2 MiB, seed 1, flow 2: segment 1436 (the last) reached the "
        "client at 89.499 s; ns-2.35's sink acknowledged it at its delayed-ACK timer "
        "(the ACK reached the server at 89.620 s), ns-3's at once with its FIN behind "
        "(89.520 and 89.521 s); that FIN delayed flow 5's next ACK by one 42-byte packet's time on the "
        "reverse bottleneck (0.22 ms), where the runs parted at 89.746 s "
        "(test_transfer_close.py). Web connections (Full-TCP) keep 'fin'."),
    Mechanism(
        "fin_rule", ("ns3", "full_tcp"), "ns3", "full_tcp", "ns3",
        "Where a closing sender's FIN goes: on the segment that empties the send buffer "
        "(ns-3), or on it only if nothing is outstanding as it leaves, else alone once "
        "everything is acknowledged, in the event of that ACK (ns-2's Full-TCP: foutput() "
        "sets the FIN when close_on_empty_ and highest_ack_ == maxseq_; recv() calls "
        "send_much(1) at an ACK of maxseq_). A web response of two or more segments whose "
        "last one leaves with data outstanding sends one packet more on ns-2.35 (Weigle's "
        "80 % load, seed 1: responses 32 us apart, one 40-byte packet at 10 Mb/s), and "
        "ns-2's DelayBox, which ends a flow when its FIN leaves, treats a retransmission "
        "after ns-3's earlier FIN otherwise (test_fin_rule.py). One-way agents (bulk "
        "flows, transfers) have no FIN to place (transfer_close)."),
    Mechanism(
        "last_byte", ("ns3", "full_tcp"), "ns3", "full_tcp", "ns3",
        "When the application's last byte may leave as a segment of its own (a response "
        "of k MSS + 1 bytes): whenever the window and Nagle allow (ns-3), or only in a "
        "forced output (ns-2's Full-TCP: send_allowed() takes curseq_, the last byte's "
        "number, as one past it, so only a new ACK of everything sent, an owed ACK or a "
        "timeout sends that byte). A one-byte response waits for the request's ACK, up to "
        "the delayed-ACK tick; after more data the byte leaves at Nagle's release on "
        "both; resent after a timeout whose go-back-N ACK stops at it, ns-3 sent it at "
        "once and ns-2.35 at its next timeout (Weigle's ARED 5 ms at 105 %, seed 3: a "
        "1,421-byte response ended 2 s later on ns-2.35; test_last_byte.py). One-way "
        "agents count packets, without this off-by-one."),
    Mechanism(
        "last_ack_fin", ("ack", "ignore"), "ack", "ignore", "ack",
        "What a passive closer (LAST_ACK: it has received the peer's FIN and sent its own) "
        "does with a segment carrying a FIN: acknowledges a resent one (ns-3, RFC 793), or "
        "drops it unanswered, its ACK field unread (ns-2's Full-TCP: recv() 'goto drop' "
        "in LAST_ACK for any FIN). Weigle's 80 % load, seed 1: a client's ACK and FIN were "
        "both lost at 2.457 s; the server resent its last segment and FIN at 3.331 s, "
        "ns-3's client acknowledged them at once, ns-2.35's did not answer and resent its "
        "own FIN on its timer a second later, and the runs parted there "
        "(test_last_ack_fin.py). One-way agents (bulk flows, transfers) have no FIN."),
    Mechanism(
        "closing_ack", ("plain", "with_fin"), "plain", "with_fin", "plain",
        "A dataless ACK sent after our FIN, with all data out (FIN_WAIT_1, CLOSING, "
        "LAST_ACK): a plain ACK one past the FIN (ns-3), or a FIN again, at the FIN's "
        "sequence number (ns-2's Full-TCP: outflags() puts FIN on every packet in those "
        "states and foutput() keeps it on one that empties the send buffer). Weigle's "
        "80 % load, seed 1: a server whose 500-byte response and FIN were lost "
        "acknowledged the client's resent request with a FIN on ns-2.35, which the client "
        "answered (early_fin); ns-3's plain ACK got no answer (test_closing_fin.py). "
        "ns-2's DelayBox ends a direction at a FIN it passes, so the flag also decides "
        "which later packets it delays."),
    Mechanism(
        "idle_restart", ("none", "initial_window"), "none", "initial_window", "none",
        "A sender about to send data with nothing outstanding after an idle spell: goes on "
        "with its window (ns-3), or, idle for longer than its RTO estimate (srtt + 4 "
        "rttvar counted in ticks, without the min RTO), restarts from the initial window "
        "(ns-2's Full-TCP: foutput() with slow_start_restart_, idle_restart(), "
        "slowdown(CLOSE_CWND_INIT)). Weigle's ARED 5 ms at 105 %, seed 1: a server back at "
        "cwnd 2 after a timeout got an ACK of everything it had sent 53 ms after its last "
        "segment; ns-2.35 restarted at 2 segments, ns-3 sent 3 (test_idle_restart.py). "
        "One-way agents' own idle rule is not modelled (bulk flows are never idle)."),
    Mechanism(
        "early_fin", ("queued", "acked"), "queued", "acked", "queued",
        "A FIN without data beyond the receive point (data before it missing): noted "
        "silently (ns-3's PeerClose), or acknowledged at once with a duplicate ACK, as "
        "out-of-order data is (ns-2's Full-TCP: reass(), TF_ACKNOW; BSD's tcp_reass) "
        "(test_closing_fin.py)."),
    Mechanism(
        "dupacks_after_timeout", ("ignored", "limited_transmit"), "limited_transmit",
        "ignored", "ignored",
        "Duplicate ACKs after a timeout (limited transmit on): ignored until the "
        "loss state ends (ns-3), or the first two each let the next segment of the "
        "go-back-N out (ns-2's one-way agents, singledup_ / send_one(); Full-TCP has no "
        "limited transmit). One-way Sack1 (since 0.8.14) counts them only once a new ACK "
        "has cleared timeout_, and only those whose SACK blocks add to its scoreboard "
        "(CheckUpdate): the parking lot (25 SACK flows), seed 1, flow 14 at 1.535 s, "
        "ns-2.35 resent segment 366 on such a duplicate ACK (test_sack_after_timeout.py)."),
    Mechanism(
        "reno_window", ("ns3", "ns2", "full_tcp"), "ns2", "full_tcp", "ns3",
        "Reno's window in fast recovery. ns-2's one-way Reno ('ns2'): cwnd = exactly half "
        "of min(cwnd, rwnd) (CLOSE_CWND_HALF; ssthresh is that rounded down), kept on "
        "leaving recovery, and every duplicate ACK, the first two included, lets a segment "
        "out (dupwnd_). ns-2's Full-TCP ('full_tcp', web connections): cwnd_ = ssthresh_ + "
        "dupacks_ at the third dupack, one more per later one (extra_ack), against the raw "
        "flight: every dupack from the first frees a segment, but the third sends only the "
        "fast retransmission; cwnd_ = ssthresh_ on leaving. The inflation is cwnd_ itself, "
        "so a timeout during the recovery halves min(ssthresh_ + dupacks_, rwnd); after a "
        "timeout duplicate ACKs count on: the third sets fastrecov_ without a fast "
        "retransmit (bug_fix_), each later one adds a segment to cwnd_ (extra_ack), and the "
        "next new ACK first brings cwnd_ down to ssthresh_ (pack_action). 60 Reno "
        "responses of 60-200 segments at 8 % random loss: 7 ended apart, by up to 2.2 s, "
        "without these three (aqmlab 0.8.6), none with them. ns-3 classic recovery ('ns3'): "
        "cwnd = ssthresh, whole segments, and without limited transmit the first two "
        "dupacks free nothing. At windows of 3-7 segments ns-2's one-way window is up to a "
        "segment more, hence more dupacks for a next loss; with two holes in a window, ns-3 "
        "sent new data two dupacks later. A 20-segment web response, segment 5 of 10 in "
        "flight lost: ns-2.35's Full-TCP sent new segments on the fourth and fifth dupacks, "
        "ns-3 none, a round trip later (test_full_tcp_recovery.py)."),
    Mechanism(
        "sack_recovery", ("rfc6675", "ns2_sack1", "full_tcp"), "ns2_sack1", "full_tcp",
        "rfc6675",
        "SACK loss recovery (variant sack): ns-3's RFC 6675, or ns-2's one-way "
        "Agent/TCP/Sack1 (tcp-sack1.cc, ScoreBoardRQ): recovery at the third duplicate ACK "
        "that adds SACK information, never before; cwnd exactly half of min(cwnd, rwnd) "
        "(ssthresh rounded down), not the flight net of SACKed segments; pipe a counter "
        "(flight at entry - 3, -1 per ACK, -2 per partial ACK, +1 per segment sent); "
        "every hole below the highest SACK resent once, in order, before new data (RFC "
        "6675: only holes with three SACKed segments above); outside recovery the window "
        "is tested against every segment sent and not cumulatively acknowledged, SACKed "
        "ones included, Full-TCP's SACK too: without limited transmit a dupack frees "
        "nothing (ns-3 sent a new segment on each SACK: Qiu's T1, 100 SACK flows, "
        "drop-tail 260, flow 41 at 1.58 s; one-way Sack1 since 0.8.14), with it Sack1 "
        "sends one new segment per dupack (singledup_), as ns-3's flight does; at a partial "
        "ACK only what the counter allows leaves, maybe nothing (partial_ack_ false; ns-3 "
        "always resent the next hole: Qiu's T1, 100 SACK flows, seed 2, flow 46 at 2.3825 "
        "s; one-way Sack1 since 0.8.14); every partial ACK restarts "
        "the timer; cwnd not opened by the ACK that ends recovery; the SACK information "
        "is forgotten at a new ACK outside recovery and when a recovery ends (a later "
        "recovery may resend what the receiver holds, and the flight counts it again); a "
        "timeout drops it too (go-back-N resends what the receiver holds). ns-2's Full-TCP "
        "SACK ('full_tcp', web connections, SackFullTcpAgent) is Sack1's algorithm but for "
        "these rules: recovery at the third duplicate ACK; pipe_ = the flight less the SACKed bytes, in bytes; what "
        "the window allows is sent at once, at the third dupack too, but Nagle holds a "
        "short tail (also at a partial ACK that leaves no hole: ns-3's partial-ACK "
        "retransmission is skipped then); the ACK that ends recovery opens cwnd; the scoreboard keeps its "
        "blocks above the cumulative ACK after a recovery; and the next recovery waits "
        "until the cumulative ACK passes one byte beyond the highest sent at the fast "
        "retransmit (bug_fix_ with recover_ = maxseq_; ns-3 drops its recovery point on "
        "leaving). Single web connections under random drop lists (variant sack, "
        "test_random_drops.py): 40 of 40 responses within 1 ms of ns-2.35's (at most "
        "27 us); with rfc6675 23 of 40 (mean 2.36 s against 3.42 s)."),
    Mechanism(
        "sack_blocks", ("ns3", "ns2_sink", "full_tcp"), "ns2_sink", "full_tcp", "ns3",
        "The receiver's SACK blocks (variant sack): ns-3's merged list of "
        "every block, up to 4 per ACK (the option space without timestamps), or ns-2's "
        "one-way SACK sink (Agent/TCPSink/Sack1, maxSackBlocks_ 3, Sacker::append_ack): "
        "the block of the segment just received first, then the first blocks of earlier "
        "ACKs, newest first, from a 3-deep stack, skipping and forgetting those the new "
        "block covers. With more than three holes ns-3's sender learnt a segment from a "
        "block ns-2's sink never sends and skipped it where ns-2.35 resent it: Qiu's T1, "
        "30 SACK flows, drop-tail 260, seed 1, flow 15 at 5.51 s, segment 280. Or ns-2's "
        "Full-TCP receiver (web connections, SackFullTcpAgent, max_sack_blocks_ 3, "
        "ReassemblyQueue::gensack): the first three blocks of its reassembly queue's "
        "stack, in the order the blocks were created, newest first; a segment that "
        "extends a block leaves it in its place (test_full_tcp_sack_blocks.py). Each "
        "SACK-bearing ACK of a one-way flow stays 4 bytes longer "
        "than ns-2's (ns-3's option: 2 + 8 per block, padded to 4 bytes; ns-2: 8 per "
        "block; sack_option_bytes), which moved a dupACK by 27 us on Qiu's T1 "
        "(test_sack_blocks.py)."),
    Mechanism(
        "sack_option_bytes", ("padded", "ns2_sink"), "ns2_sink", "padded", "padded",
        "Bytes a SACK-bearing ACK spends on its blocks (variant sack, one-way flows): ns-3's "
        "SACK option, 2 + 8 per block padded to 4 bytes (8n + 4), or ns-2's one-way sink's "
        "8 per block (tcp-sink.cc: size += 8 x blocks), carried in a compact option of "
        "exactly 8n bytes that the data sender reads as ns-3's (ns2_sack_wire.h). With "
        "ns-3's option each such ACK took 4 bytes longer on every link: on Qiu's T1 (100 "
        "SACK flows, drop-tail 260, seed 2) duplicate ACKs reached their senders 27 us "
        "after ns-2.35's, which moved the fast retransmits and the packets queued behind "
        "them (test_sack_blocks.py). Web connections keep ns-3's option; ns-2's Full-TCP "
        "is given its padding instead (sack_option_size_ 4)."),
    Mechanism(
        "sack_timeout", ("go_back_n", "holes"), "go_back_n", "holes", "go_back_n",
        "With sack_recovery 'ns2_sack1' or 'full_tcp' (rfc6675 keeps ns-3's own: SACKed "
        "segments skipped): what follows a retransmission timeout ('holes' is Full-TCP's "
        "and is read with 'full_tcp' only; Sack1 always goes back N). 'go_back_n' (ns-2's "
        "one-way Sack1): the scoreboard is dropped and SACK ignored until the cumulative "
        "ACK passes the recovery point, everything from the cumulative ACK is resent, "
        "what the receiver holds included. 'holes' (ns-2's Full-TCP SACK, "
        "clear_on_timeout_ and nxt_tseq): the scoreboard is cleared but rebuilt from the "
        "SACK blocks of every ACK after the timeout, and until the cumulative ACK reaches "
        "the highest byte sent before it, the next hole with a SACKed block above it is "
        "resent (above h_seqno_, which every segment sent at it moves on, in every state, "
        "so after an idle spell it runs with the go-back-N point), else the go-back-N point (SACKed segments above the last hole included), "
        "each while it lies below the cumulative ACK plus int(cwnd) segments; the third "
        "duplicate ACK in that state sends nothing and each later one opens cwnd by a "
        "segment (dupack_action's bug_fix_ return, extra_ack). A 28,267-byte response "
        "with drops at arrivals 7, 8, 11, 14, 15, 26, ...: ns-2.35 resent only holes after "
        "its timeout, go-back-N a SACKed segment more, which moved every later drop by "
        "one packet; the engines ended 0.95 s apart (test_full_tcp_sack.py)."),
)

FIELDS = tuple(m.field for m in MECHANISMS)
_BY_FIELD = {m.field: m for m in MECHANISMS}


def resolve(tcp: Tcp, field: str, one_way: bool = True) -> str:
    """``tcp.<field>`` with "auto" resolved for a socket of a one-way agent (``one_way``:
    bulk flows, transfers) or of a web connection (ns-2's Full-TCP)."""
    value = getattr(tcp, field)
    if value != "auto":
        return value
    m = _BY_FIELD[field]
    if not tcp.variant_info.classic:
        return m.modern
    if field == "rtt_sampling" and tcp.timestamps:
        return "every_ack"
    return m.ns2 if one_way else m.ns2_full


def ns3_congestion(tcp: Tcp, one_way: bool) -> str:
    """The congestion-control TypeId: ns-3's TcpNewReno becomes aqmlab's TcpNs2NewReno
    (ns2_reno_cc.h) with ``ca_increase = "exact"`` or ``increase_per_ack = "one"``."""
    cc = tcp.variant_info.congestion
    if cc == "ns3::TcpNewReno" and (resolve(tcp, "ca_increase", one_way) == "exact"
                                    or resolve(tcp, "increase_per_ack", one_way) == "one"):
        return "aqmlab::TcpNs2NewReno"
    return cc


def ns3_attributes(tcp: Tcp, one_way: bool) -> tuple[tuple[str, str], ...]:
    """aqmlab socket attributes (aqmlab/engines/ns3/cpp/tcp_socket.h) of the mechanisms."""
    def on(field: str, value: str) -> str:
        return "true" if resolve(tcp, field, one_way) == value else "false"

    return (
        ("RttTimed", on("rtt_sampling", "timed")),
        ("RtoTicks", on("rto_clock", "ticks")),
        ("RtoBackoffUntilSample", on("rto_backoff_reset", "rtt_sample")),
        ("RtoArmBeforeSample", on("rto_rearm", "before_sample")),
        ("OwedAckCarriesData", on("owed_ack", "with_data")),
        ("RtoRestartOnFastRetransmit", on("rto_restart", "fast_retransmit")),
        ("TimeoutHalvesWindow", on("timeout_ssthresh", "window")),
        ("RenoFastRetransmitGuard", on("fast_retransmit_guard", "fast_retransmit")),
        ("RenoHalfCwnd", on("reno_window", "ns2")),
        ("RenoFullTcpWindow", on("reno_window", "full_tcp")),
        ("LimitedTransmitAfterTimeout", on("dupacks_after_timeout", "limited_transmit")),
        ("Sack1Recovery", "true" if resolve(tcp, "sack_recovery", one_way) in
         ("ns2_sack1", "full_tcp") else "false"),
        ("SackFullTcp", on("sack_recovery", "full_tcp")),
        ("SackTimeoutHoles", on("sack_timeout", "holes")),
        ("SynLossWindowOne", on("syn_timeout_ssthresh", "halve")),
        ("Ns2SackBlocks", on("sack_blocks", "ns2_sink")),
        ("FullTcpSackBlocks", on("sack_blocks", "full_tcp")),
        ("Ns2SackOptionBytes", on("sack_option_bytes", "ns2_sink")),
        ("ExactCaIncrease", on("ca_increase", "exact")),  # TcpNs2NewReno's
        ("OneIncreasePerAck", on("increase_per_ack", "one")),
        ("EcnHalvesWindow", on("ecn_window", "half_window")),
        ("EcnWindowBelowOne", on("ecn_cwnd_floor", "none")),
        ("EcnPastRecover", on("ecn_response", "past_recover")),
        ("EcnOnDupAck", on("ecn_dupack", "answered")),
        ("CwrOnNextSegment", on("cwr_flag", "next_segment")),
        ("EveryCeMark", on("ecn_ce_marks", "every")),
        ("Ns2DelAckSink", on("delack_sink", "ns2")),
        ("HandshakeAckWithData", on("handshake_ack", "with_data")),
        ("BareSyn", on("syn_options", "none")),
        # with dup_syn "ignore" (Full-TCP) the timer is the only repair of a lost SYN/ACK
        ("SynAckTimer", "true" if tcp.dup_syn == "ignore" else on("synack_retry", "timer")),
        ("TimingAtRelease", on("processing_timing", "output")),
        ("AckedHeldDropped", on("held_acked", "dropped")),
        ("HeldBeyondWindowUnsent", on("held_beyond_window", "unsent")),
        ("FullLastSegment", on("last_segment", "full")),
        ("NoFinAfterTransfer", on("transfer_close", "none")),
        ("FullTcpFin", on("fin_rule", "full_tcp")),
        ("FullTcpLastByte", on("last_byte", "full_tcp")),
        ("LastAckIgnoresFin", on("last_ack_fin", "ignore")),
        ("FinOnClosingAcks", on("closing_ack", "with_fin")),
        ("AckEarlyFin", on("early_fin", "acked")),
        ("IdleRestart", on("idle_restart", "initial_window")),
    )


def check(tcp: Tcp) -> None:
    """Validate the fields' values ("auto" or one of the choices)."""
    for m in MECHANISMS:
        check_choice(getattr(tcp, m.field), m.field, ("auto", *m.choices))
