"""Scenario specs -> ns-2.35 classes and bound variables. Pure data: runs nothing.

Queues (one ns-2 queue object per link direction, as ``$ns simplex-link`` creates them):

- ``droptail`` -> ``Queue/DropTail``, ``limit_`` = aqmlab's ``limit`` unchanged: aqmlab's
  limit already follows ns-2's accounting (``q + 1 >= limit_`` drops, so ``limit - 1``
  packets wait, the one in transmission is not in the queue). ``drop_packets`` -> an
  ``ErrorModel/List`` at the link's head (ahead of the queue, behind the queue monitor's
  arrival count, dropping to the link's drop head like the queue), whose ``droplist``
  numbers every packet of the link from 0: with ``drop_count = "all"`` aqmlab's arrival
  number k is k - 1; with "data" (only with one bulk flow or transfer, whose header-only
  packet 0 is number 0 and whose other packets are data) data packet k is number k.
- ``red`` -> ``Queue/RED``: ``thresh_``/``maxthresh_`` = min_th/max_th (waiting packets, as
  aqmlab means them), ``linterm_`` = 1/max_p, ``q_weight_`` = w_q (0, -1, -2 select ns-2's
  own automatic weights, as in aqmlab), ``gentle_``, ``wait_``, ``mean_pktsize_``,
  ``bytes_``/``queue_in_bytes_`` = mode "byte", ``adaptive_`` = adaptive (ns-2's defaults
  for alpha, beta, interval, target and ``bottom_`` 0 = min(0.01, 80000/bw), aqmlab's
  values), ``setbit_`` = ecn. ``limit_`` = limit in packets (a byte limit / mean_pkt_size).
- ``ared`` -> ``Queue/RED`` with ``adaptive_ 1``; thresholds, weight and bottom as aqmlab's
  :class:`~aqmlab.kinds.queues.Ared` computes them (the same rules as ns-2's own),
  ``linterm_ 10``, ``wait_ 1``, alpha/beta/interval/targetdelay/top given.
- ECN (``setbit_ 1``): ns-2.35 marks an ECN-capable packet picked by the early-drop test
  only while that test's probability ``p`` (before the count correction) is below
  ``mark_p_`` (``use_mark_p_ 1``, default 0.1), and drops it otherwise; ``use_mark_p_ 0``
  marks whatever the early test picks and drops in the forced region (avg >= max_th, or
  >= 2 max_th with gentle). So aqmlab's ``ecn_above_max_th = "drop"`` (mark only while avg <
  max_th) is exact for RED with a fixed max_p: ``mark_p_ = max_p`` (p < max_p exactly when
  avg < max_th); ``"mark"`` is ``mark_p_ 1`` (p < 1 below the forced threshold), or
  ``use_mark_p_ 0`` with ``forced_region = "drop"``. ARED (and RED with ``adaptive``) moves
  max_p, which ``mark_p_`` cannot follow: ``"drop"`` is refused there
  (:mod:`aqmlab.engines.ns2.support`). ns-2.35's own rule (mark while p < mark_p_) is
  ``ecn_above_max_th = "mark_p"`` with the queue's ``mark_p``.
- ``forced_region`` -> ``use_mark_p_``: with 1 (ns-2.35's default) ``REDQueue::enque``
  skips its forced test, so above max_th (2 max_th with gentle) the early test drops with
  p = 1 (a random number drawn, counted as unforced): "early_test". "drop" is
  ``use_mark_p_ 0``; with the "drop" and "mark_p" ECN rules, which need ``use_mark_p_ 1``,
  it is refused.
- ``count_after_forced_drop`` -> ``ns1_compat_``: "reset" (ns-2's default) is 0, "keep" 1.
  In ``REDQueue`` that variable does one thing: with 0, ``enque`` zeroes ``count`` and
  ``count_bytes`` after each forced drop (average above the forced threshold, or a full
  queue); with 1 it leaves them, as ns-3's RedQueueDisc does. Early drops zero the count
  in ``drop_early`` whatever ``ns1_compat_`` says, so with "early_test" the two values
  differ only after a full queue's drop.
- ``measured_queue``: "waiting" is what ``REDQueue`` does (it averages ``q_->length()``,
  the packets waiting for the link, tests ``qlen > 1`` and is idle from the ``deque()``
  that finds it empty); nothing to set, and "disc" (ns-3's own measure) is refused.

Links: ``topology.tx_time`` only chooses how ns-3 rounds transmission times to its
nanosecond clock; ns-2 always computes them in doubles (``8. * size / bandwidth_``, added to
the clock of a busy link packet after packet), which "ns2" mimics on ns-3
(:mod:`aqmlab.scenario.topology`). ``topology.queue_wake`` likewise only chooses when ns-3's
queue disc refills the device queue; ns-2's link always dequeues its next packet in the event
that ends a transmission (``LinkDelay::recv`` schedules the queue's handler at the end of the
transmission, whose ``Queue::resume`` dequeues and sends the next packet), which "ns2" mimics.
Nothing to set here.

TCP (one-way agents for bulk flows and transfers, Full-TCP for web connections):

- ``variant``: reno -> ``Agent/TCP/Reno`` / ``Agent/TCP/FullTcp``; newreno ->
  ``Agent/TCP/Newreno`` / ``Agent/TCP/FullTcp/Newreno``; sack -> ``Agent/TCP/Sack1`` with
  ``Agent/TCPSink/Sack1`` / ``Agent/TCP/FullTcp/Sack``. ``bugFix_`` stays on (ns-2 default;
  aqmlab's non-SACK recovery has the same rule).
- ``mss`` -> ``packetSize_`` (one-way: payload; ns-2 adds ``tcpip_base_hdr_size_`` 40 B) or
  ``segsize_`` (Full-TCP). ns-3's IP packets are payload + 40 B and its point-to-point
  frames carry 2 more (PPP). The one-way agents and their sinks send 42-byte headers
  (``tcpip_base_hdr_size_``, the sink's ``packetSize_``), so that every data packet, ACK
  and packet 0 of a bulk flow or transfer takes exactly as long on a link of the same rate
  as on ns-3 (:data:`ONE_WAY_HEADER_BYTES`). With 40-byte headers ns-2 served data 0.4 %
  faster at mss 460: drop-tail runs without random processing time are phase-locked
  (Floyd & Jacobson 1992), and such a change alone moved ns-2's own loss rate by 10 % and
  Jain's index by 0.1-0.2 (Qiu's T1, 300-1000 flows). Replayed web connections (Full-TCP)
  send 42-byte headers too, except the SYN and SYN/ACK: DelayBox recognises a new flow only
  by a 40-byte SYN (and SYN/ACK), so web_replay.tcl sets ``tcpip_base_hdr_size_`` to 42
  once they have passed (the client's right after its SYN, the server's when the request
  is in). With 40-byte web headers every packet took 2 bytes less on the wire than on ns-3
  (0.4 % of the bottleneck's capacity at Weigle's mix of data and ACKs), and at 105 % load
  ns-2.35's forward drop-tail 148 queue dropped 5 % and 7 % fewer packets than ns-3's
  (seeds 1, 2, 300 s); with 42 bytes 0.6 % and 4.5 %. Replayed SACK connections also
  take ns-3's SACK option size, ``sack_option_size_`` 4 (kind and length padded to 4
  bytes; ns-2: 2), 8 bytes per block as on both. ns-2's one-way sink adds 8 bytes per
  block and nothing else, which aqmlab's ns-3 receiver matches instead
  (``tcp.sack_option_bytes``). ns-2's own PackMimeHTTP generator
  (``generator = "ns2"``) keeps 40 bytes. With ``topology.link_header = "none"`` ns-3's
  frames take their IP packet's time (cpp/link_header.h) and every ns-2 agent keeps its
  40-byte headers, the web SYN included (``Plan.ppp_frames``, :func:`base_header_bytes`).
- ``initial_cwnd`` -> ``windowInit_``; ``rcv_window`` (capped at 65535 B without
  ``window_scaling``) -> ``window_`` in whole segments; ``min_rto`` -> ``minrto_``;
  ``initial_rto`` -> ``rtxcur_init_``; ``clock_granularity`` -> ``tcpTick_``;
  ``timestamps`` -> ``timestamps_`` (a 10-byte option); ``ecn`` -> ``ecn_``;
  ``dupack_threshold`` -> ``numdupacks_`` (one-way) / ``tcprexmtthresh_`` (Full-TCP);
  ``limited_transmit`` -> ``singledup_`` (one-way; Full-TCP has none);
  ``rtt_alpha``/``rtt_beta`` -> ``T_SRTT_BITS``/``T_RTTVAR_BITS`` (powers of 1/2 only).
- ``delayed_ack`` -> ``Agent/TCPSink/DelAck`` (one-way) / ``segsperack_ 2`` (Full-TCP),
  ``delack_timeout`` -> ``interval_``. Full-TCP with ``segsperack_ 1`` still holds the ACK
  of a segment shorter than the MSS until the next tick of its ``interval_`` clock unless
  data or a FIN carries it: that is ``ack_rule = "full_tcp"``, which web groups need;
  one-way sinks ACK every segment (``TCPSink``), every second one with a timer from the
  held one (``DelAck``): ``ack_rule = "segments"``, or "full_tcp" without delayed ACKs
  (every segment is full-sized).
- ``dup_syn``: Full-TCP ignores a duplicate SYN in SYN_RECEIVED ("ignore", which web groups
  need) and ``dup_synack``: acknowledges a duplicate SYN/ACK once established ("ack");
  ``syn_timeout``: its SYN and SYN/ACK timeouts are handled as any timeout
  ("full_tcp", which web groups need); ``fin_retransmit``: a FIN is resent on the
  retransmission timer ("rto", which web groups need); one-way agents have no SYN. ``ect_retransmissions``: ns-2's agents always
  send retransmitted data ECN-capable (True, required with ECN).
- ``nagle`` -> Full-TCP's ``nodelay_`` (its negation; ns-2's default is Nagle on, aqmlab's
  off unless a study sets it).
- The retransmission timer and Reno recovery (:mod:`aqmlab.kinds.tcp.mechanisms`:
  ``rtt_sampling``, ``rto_clock``, ``rto_backoff_reset``, ``rto_restart``,
  ``timeout_ssthresh``, ``fast_retransmit_guard``, ``ca_increase``, ``reno_window``,
  ``dupacks_after_timeout``, ``increase_per_ack``, ``ecn_window``, ``ecn_cwnd_floor``,
  ``ecn_response``, ``ecn_dupack``, ``cwr_flag``, ``ecn_ce_marks``, ``last_segment``,
  ``transfer_close``) are how
  ns-2's agents work, with nothing to set: "auto" is their behaviour (the one-way agents' for bulk flows and transfers, Full-TCP's for web
  connections), and any other value is refused (:mod:`aqmlab.engines.ns2.support`).
  ``bugFix_`` stays on.
- ``max_seg_lifetime``: ns-2 has no TIME_WAIT; ``snd_buffer``: ns-2 senders have an
  unlimited buffer (aqmlab's default never limits); ``max_retries``: ns-2 never gives up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from aqmlab.kinds.queues import Ared, DropTail, Red
from aqmlab.kinds.queues import QueueBase as Queue
from aqmlab.scenario import Tcp

#: IP + TCP header bytes ns-2 adds to every packet (``tcpip_base_hdr_size_``).
HEADER_BYTES = 40
#: Bytes of ns-3's point-to-point (PPP) header on every frame.
PPP_BYTES = 2
#: The one-way agents' and sinks' header: ns-3's IP + TCP + PPP bytes.
ONE_WAY_HEADER_BYTES = HEADER_BYTES + PPP_BYTES
#: ns-2's timestamp option size (``ts_option_size_``).
TS_OPTION_BYTES = 10

ONE_WAY_AGENT = {"reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno",
                 "sack": "Agent/TCP/Sack1"}
FULL_TCP_AGENT = {"reno": "Agent/TCP/FullTcp", "newreno": "Agent/TCP/FullTcp/Newreno",
                  "sack": "Agent/TCP/FullTcp/Sack"}


@dataclass(frozen=True)
class QueueConfig:
    """An ns-2 queue: its class and the bound variables to set on the instance."""

    qtype: str  # what follows "Queue/" in ``$ns simplex-link ... <qtype>``
    settings: tuple[tuple[str, str], ...]
    red: bool = False
    ecn: bool = False
    byte_mode: bool = False
    mean_pkt_size: int = 500
    drop_list: tuple[int, ...] = ()  # the link's packets (from 0) an ErrorModel/List drops

    def flat(self) -> list[str]:
        return [x for pair in self.settings for x in pair]


def _b(v: bool) -> str:
    return "1" if v else "0"


def _limit_packets(q: Queue, mean_pkt: int) -> int:
    amount, unit = q.limit_size
    return int(amount) if unit == "p" else max(1, round(amount / mean_pkt))


def _ecn_settings(q: Red | Ared, max_p: float) -> tuple[tuple[str, str], ...]:
    """ECN and forced-region variables; ``max_p`` is RED's fixed max_p (the "drop" rule's
    mark_p_). ``use_mark_p_ 1`` (ns-2.35's default) is ``forced_region = "early_test"``; with
    ECN it also marks only while the early probability is below ``mark_p_``, which is 1 for
    the "mark" rule (mark up to the forced threshold, where p reaches 1)."""
    early = q.forced_region == "early_test"
    if not q.ecn:
        return (("setbit_", "0"), ("use_mark_p_", _b(early)))
    if q.ecn_above_max_th == "mark" and not early:
        return (("setbit_", "1"), ("use_mark_p_", "0"))
    mark_p = {"mark": 1.0, "mark_p": q.mark_p}.get(q.ecn_above_max_th, max_p)
    return (("setbit_", "1"), ("use_mark_p_", "1"), ("mark_p_", repr(mark_p)))


def _count_settings(q: Red | Ared) -> tuple[tuple[str, str], ...]:
    """``ns1_compat_`` 1 keeps RED's count after a forced drop ("keep"), 0 zeroes it."""
    return (("ns1_compat_", _b(q.count_after_forced_drop == "keep")),)


def queue_config(q: Queue | None, rate_bps: float) -> QueueConfig:
    """ns-2 queue for spec ``q`` on a link of ``rate_bps`` (None: an unlimited DropTail)."""
    if q is None:
        return QueueConfig("DropTail", (("limit_", "1000000"),))
    if isinstance(q, DropTail):
        shift = 1 if q.drop_count == "all" else 0  # "data": packet 0 is the SYN
        drops = tuple(sorted(i - shift for i in q.drop_packets or ()))
        return QueueConfig("DropTail", (("limit_", str(_limit_packets(q, 1))),),
                           drop_list=drops)
    if isinstance(q, Red):
        byte = q.mode == "byte"
        settings = (
            ("limit_", str(_limit_packets(q, q.mean_pkt_size))),
            ("mean_pktsize_", str(q.mean_pkt_size)),
            ("bytes_", _b(byte)), ("queue_in_bytes_", _b(byte)),
            ("thresh_", repr(q.min_th)), ("maxthresh_", repr(q.max_th)),
            ("linterm_", repr(1.0 / q.max_p)), ("q_weight_", repr(q.w_q)),
            ("gentle_", _b(q.gentle)), ("wait_", _b(q.wait)),
            ("adaptive_", _b(q.adaptive)), *_count_settings(q),
            *_ecn_settings(q, q.max_p),
        )
        return QueueConfig("RED", settings, True, q.ecn, byte, q.mean_pkt_size)
    if isinstance(q, Ared):
        byte = q.mode == "byte"
        min_th, max_th = q.auto_thresholds(rate_bps)
        settings = (
            ("limit_", str(_limit_packets(q, q.mean_pkt_size))),
            ("mean_pktsize_", str(q.mean_pkt_size)),
            ("bytes_", _b(byte)), ("queue_in_bytes_", _b(byte)),
            ("thresh_", repr(min_th)), ("maxthresh_", repr(max_th)),
            ("q_weight_", repr(q.auto_w_q(rate_bps))),
            ("linterm_", "10.0"), ("gentle_", _b(q.gentle)), ("wait_", "1"),
            ("adaptive_", "1"), ("alpha_", repr(q.alpha)), ("beta_", repr(q.beta)),
            ("interval_", repr(q.interval_s)), ("targetdelay_", repr(q.target_delay_s)),
            ("top_", repr(q.top)), ("bottom_", repr(q.auto_bottom(rate_bps))),
            *_count_settings(q), *_ecn_settings(q, 0.1),
        )
        return QueueConfig("RED", settings, True, q.ecn, byte, q.mean_pkt_size)
    raise TypeError(f"no ns-2 mapping for queue kind {type(q).__name__}")


def rcv_window_segments(t: Tcp) -> int:
    """``window_``: the receive window in whole segments (65535 B at most without scaling)."""
    wnd = t.rcv_window_bytes if t.window_scaling else min(t.rcv_window_bytes, 65535)
    return max(1, wnd // t.mss)


def gain_bits(gain: float) -> int | None:
    """k with gain == 2**-k (ns-2's ``T_SRTT_BITS``/``T_RTTVAR_BITS``), else None."""
    k = -math.log2(gain)
    return int(round(k)) if k >= 1 and abs(k - round(k)) < 1e-9 else None


def base_header_bytes(ppp: bool = True) -> int:
    """A bare packet's bytes on ns-2: ns-3's IP + TCP + PPP bytes, or ns-2's own 40 (``ppp``
    False: topology ``link_header`` "none", or ns-2.35's PackMimeHTTP, whose agents aqmlab
    cannot resize after the handshake)."""
    return ONE_WAY_HEADER_BYTES if ppp else HEADER_BYTES


def header_bytes(t: Tcp, ppp: bool = True) -> int:
    """Bytes ns-2 adds to a data segment's payload (:func:`base_header_bytes`, timestamps)."""
    return base_header_bytes(ppp) + (TS_OPTION_BYTES if t.timestamps else 0)


def _common(t: Tcp) -> list[tuple[str, str]]:
    return [
        ("windowInit_", str(t.initial_cwnd)), ("window_", str(rcv_window_segments(t))),
        ("minrto_", repr(t.min_rto_s)), ("rtxcur_init_", repr(t.initial_rto_s)),
        ("tcpTick_", repr(t.clock_granularity_s)), ("timestamps_", _b(t.timestamps)),
        ("ecn_", _b(t.ecn)), ("T_SRTT_BITS", str(gain_bits(t.rtt_alpha))),
        ("T_RTTVAR_BITS", str(gain_bits(t.rtt_beta))),
    ]


@dataclass(frozen=True)
class OneWayConfig:
    """A one-way sender and its sink (bulk flows, transfers)."""

    agent: str
    sink: str
    agent_settings: tuple[tuple[str, str], ...]
    sink_settings: tuple[tuple[str, str], ...]


def one_way_config(t: Tcp, ppp: bool = True) -> OneWayConfig:
    """``ppp``: headers the size of ns-3's with its PPP header (:func:`base_header_bytes`)."""
    hdr = str(base_header_bytes(ppp))
    sink = "Agent/TCPSink/Sack1" if t.variant == "sack" else "Agent/TCPSink"
    sink_settings: tuple[tuple[str, str], ...] = (("packetSize_", hdr),)
    if t.delayed_ack:
        sink += "/DelAck"
        sink_settings += (("interval_", repr(t.delack_timeout_s)),)
    settings = (("packetSize_", str(t.mss)),
                ("tcpip_base_hdr_size_", hdr), *_common(t),
                ("numdupacks_", str(t.dupack_threshold)),
                ("singledup_", _b(t.limited_transmit)))
    return OneWayConfig(ONE_WAY_AGENT[t.variant], sink, settings, sink_settings)


@dataclass(frozen=True)
class FullTcpConfig:
    """A Full-TCP agent (both ends of a web connection)."""

    agent: str
    settings: tuple[tuple[str, str], ...]


def full_tcp_config(t: Tcp) -> FullTcpConfig:
    nagle = t.nagle
    settings = (("segsize_", str(t.mss)), *_common(t),
                ("tcprexmtthresh_", str(t.dupack_threshold)),
                ("segsperack_", "2" if t.delayed_ack else "1"),
                ("interval_", repr(t.delack_timeout_s)),
                ("nodelay_", _b(not nagle)))
    return FullTcpConfig(FULL_TCP_AGENT[t.variant], settings)
