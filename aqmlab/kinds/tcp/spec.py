"""TCP sender/receiver configuration (defaults follow ns-2.35, not ns-3) and its ns-3 socket
attributes."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aqmlab.errors import ScenarioError
from aqmlab.kinds.tcp import mechanisms
from aqmlab.kinds.tcp.base import TCP_VARIANTS, Variant
from aqmlab.units import (
    Spec,
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_keys,
    check_time,
    parse_bytes,
    parse_time,
    set_attr,
)

__all__ = ["Tcp", "Ns3Tcp", "FULL_TCP"]

LOSS_IN_CWR = ("fast_retransmit", "timeout")
#: Tcp.ack_rule: ns-3's per-segment rule, or ns-2 Full-TCP's per-byte one with a tick clock.
ACK_RULES = ("segments", "full_tcp")
#: Tcp.dup_syn: answer a duplicate SYN at once (ns-3), or leave it to the SYN/ACK's timer.
DUP_SYN = ("answer", "ignore")
#: Tcp.dup_synack: an opener ignores a duplicate SYN/ACK once established (ns-3), or
#: acknowledges it (ns-2's Full-TCP).
DUP_SYNACK = ("ignore", "ack")
#: Tcp.syn_timeout: what a SYN or SYN/ACK timeout leaves behind, ns-3's way or ns-2's.
SYN_TIMEOUT = ("ns3", "full_tcp")
#: Tcp.fin_retransmit: a passive closer's FIN resent on ns-3's LAST_ACK timer, or its RTO.
FIN_RETRANSMIT = ("rtt", "rto")
#: The Tcp fields that give ns-2.35's Full-TCP, which runs web traffic in ns-2 (PackMime):
#: Nagle on (``nodelay_ false``), ACKs by bytes with a tick clock, duplicate SYNs ignored and
#: duplicate SYN/ACKs acknowledged, a
#: SYN or SYN/ACK timeout handled as any timeout, the FIN resent on the RTO, no limited
#: transmit. Studies that ran on ns-2 set them for their web groups.
FULL_TCP = {"nagle": True, "ack_rule": "full_tcp", "dup_syn": "ignore", "dup_synack": "ack",
            "syn_timeout": "full_tcp", "fin_retransmit": "rto", "limited_transmit": False}
RECOVERY = {"classic": "ns3::TcpClassicRecovery", "prr": "ns3::TcpPrrRecovery"}


@dataclass(frozen=True, kw_only=True)
class Tcp(Spec):
    """TCP configuration; every default is ns-2.35-like.

    - ``variant`` "reno" (ns-2 Agent/TCP/Reno); a name in
      :data:`~aqmlab.kinds.tcp.base.TCP_VARIANTS`.
    - ``ecn`` False (ns-2 ``ecn_ 0``); required True for "dctcp".
    - ``mss`` 1000 bytes of payload (ns-2 ``packetSize_``), 100..9000.
    - ``initial_cwnd`` 2 segments (ns-2 ``windowInit_``).
    - ``delayed_ack`` False (ns-2 Agent/TCPSink, not DelAck); ``delack_timeout`` 100 ms
      (ns-2 ``interval_``).
    - ``min_rto`` 200 ms (ns-2 ``minrto_``); ``initial_rto`` 3 s (ns-2 ``rtxcur_init_``);
      ``clock_granularity`` 10 ms (ns-2 ``tcpTick_``).
    - ``timestamps`` False (ns-2 ``timestamps_``); ``window_scaling`` True.
    - ``rcv_window`` 1 MB, ``snd_buffer`` 4 MB: chosen never to limit the sender (ns-2's
      ``window_`` 20 is usually raised in AQM studies); both >= ``mss``.
    - ``limited_transmit`` True (RFC 3042); ``recovery`` "auto" ("classic" for
      reno/newreno/sack, "prr" otherwise), "classic" or "prr".
    - ``dupack_threshold`` 3 (ns-2 ``numdupacks_``).
    - ``rtt_alpha`` 0.125, ``rtt_beta`` 0.25 (RFC 6298 gains; ns-2 ``T_SRTT_BITS`` 3,
      ``T_RTTVAR_BITS`` 2).
    - ``max_retries`` 1000000: ns-2 never gives up on a connection.
    - ``loss_in_cwr`` "fast_retransmit": a loss that duplicate ACKs reveal while ECN's CWR
      state cuts the window is fast-retransmitted at once, the window cut once (ns-2,
      Linux); "timeout" is ns-3.44, which ignores those dupacks until the RTO (and aborts
      SACK runs on an NS_ASSERT). Serialised only with ``ecn``, so other hashes are kept.
    - ``nagle`` False: a segment shorter than the MSS waits while data is unacknowledged
      (RFC 896). ns-2's Full-TCP (web traffic) has it on (``nodelay_ false``); its one-way
      agents have no application writes to coalesce. Serialised only when on.
    - ``ack_rule`` "segments": the receiver ACKs every segment (every second one with
      ``delayed_ack``), else after ``delack_timeout`` from the first held one (ns-3; ns-2's
      one-way sinks). "full_tcp" is ns-2's Full-TCP (web traffic): an ACK goes at once only
      when the bytes received since the last ACK reach one MSS (two with ``delayed_ack``), so
      a segment shorter than the MSS (a request, a response's tail) is acknowledged by the
      next data or FIN, or at the next tick of a ``delack_timeout`` clock (multiples of
      ``delack_timeout`` in simulated time). Serialised only when not "segments".
    - ``dup_syn`` "answer": a listener whose SYN/ACK is outstanding answers a duplicate SYN
      with a new SYN/ACK at once (ns-3); "ignore" is ns-2's Full-TCP, which resends its
      SYN/ACK on its own retransmission timer only. Serialised only when "ignore".
    - ``dup_synack`` "ignore": an opener already established ignores a duplicate SYN/ACK
      (ns-3); "ack" is ns-2's Full-TCP, which trims the SYN as an old segment and
      acknowledges it at once, so a listener whose handshake ACK and first data were both
      lost is established by its SYN/ACK retry. Serialised only when "ack".
    - ``syn_timeout`` "ns3": a SYN or SYN/ACK retransmission timeout leaves ssthresh alone,
      and, with ns-3's timer, the first data's RTO (no RTT sample from a retransmitted
      handshake) is the RTT estimator's initial one (opener, 1 s) or the backed-off
      SYN/ACK timer (listener). "full_tcp" is ns-2 (timeout_action, as for any timeout):
      ssthresh becomes half the window, at least 2 segments (the response then grows by
      congestion avoidance), and the first data's RTO is the initial RTO, its back-off
      reset by the handshake's ACK. Serialised only when "full_tcp". Where aqmlab computes
      the timer (ns-2's ``rtt_sampling``/``rto_clock``/``rto_backoff_reset``, "auto" for
      reno/newreno/sack), a retried SYN or SYN/ACK backs that timer off and voids the
      handshake's RTT sample whatever this field, and ``rto_backoff_reset`` decides whether
      the handshake's ACK ends the back-off ("new_ack": Full-TCP, web traffic) or only an
      RTT sample does ("rtt_sample": one-way agents).
    - ``fin_retransmit`` "rtt": a passive closer (LAST_ACK) resends its FIN after srtt +
      4 rttvar, without ``min_rto`` (ns-3's LAST_ACK timer); "rto" is ns-2: its
      retransmission timer, ``min_rto`` included (and, where aqmlab computes the timer,
      backed off at each FIN timeout as ns-2 does). A web client's FIN follows the response,
      so with "rtt" it often acknowledges a response whose ACK was lost before the
      server's RTO fires. Serialised only when "rto".
    - ``ect_retransmissions`` True: with ECN, retransmitted data segments are ECN-capable,
      as all data of ns-2's agents; False is RFC 3168 and ns-3 (retransmissions not-ECT, so
      an AQM drops them where it marks new data). Serialised only with ``ecn``.
    - ``max_seg_lifetime`` "1s": TIME_WAIT lasts 2 MSL. ns-2 has no TIME_WAIT; ns-3's 120 s
      would keep thousands of web connections' sockets alive (ns-3 demultiplexes by a
      linear scan), so the default is short.
    - The retransmission timer and Reno's recovery, where ns-2 and ns-3 part ways (details
      and measurements in :mod:`aqmlab.kinds.tcp.mechanisms`), each "auto": ns-2's
      behaviour for reno/newreno/sack (one-way agents for bulk flows and transfers,
      Full-TCP for web traffic), ns-3's for the other variants. Serialised only when set.
      ``rtt_sampling`` "every_ack" | "timed" (ns-2: one timed segment per round trip);
      ``rto_clock`` "exact" | "ticks" (ns-2: RTO arithmetic in ticks of
      ``clock_granularity``); ``rto_backoff_reset`` "new_ack" | "rtt_sample" (ns-2's
      one-way agents keep a backed-off RTO until an RTT sample); ``rto_rearm``
      "after_sample" | "before_sample" (ns-2's Full-TCP re-arms the timer at a new ACK with
      the RTO from before that ACK's sample and back-off reset); ``owed_ack`` "pure" |
      "with_data" (ns-2's Full-TCP puts a short tail Nagle holds into an ACK it owes);
      ``rto_restart``
      "new_ack" | "fast_retransmit" (ns-2 also restarts the timer at a fast retransmit);
      ``timeout_ssthresh`` "flight" | "window" (ns-2 halves min(cwnd, rwnd) at every
      timeout); ``ca_increase`` "whole_bytes" | "exact" (ns-2 adds exactly 1/cwnd per
      ACK); ``fast_retransmit_guard`` "timeout" | "fast_retransmit" (Reno; ns-2's
      one-way agents' bugFix_: no second fast retransmit within a window; Full-TCP guards
      only after a timeout); ``reno_window``
      "ns3" | "ns2" | "full_tcp" (ns-2's one-way Reno: cwnd = exactly half the window at a
      fast retransmit, inflated by every duplicate ACK; Full-TCP: cwnd = ssthresh, every
      dupack from the first frees a segment, none sent new at the third); ``dupacks_after_timeout`` "ignored" |
      "limited_transmit" (ns-2's one-way agents keep limited transmit after a timeout);
      ``sack_recovery`` "rfc6675" | "ns2_sack1" | "full_tcp" (sack: ns-2's one-way
      Agent/TCP/Sack1 recovery; web connections: Full-TCP's SACK); ``sack_timeout``
      "go_back_n" | "holes" (after a timeout, with ns-2's SACK recovery: resend everything
      from the cumulative ACK (Sack1), or the holes of a scoreboard rebuilt from the ACKs
      since, then go back N (Full-TCP; read with "full_tcp" only)); ``sack_blocks`` "ns3" |
      "ns2_sink" | "full_tcp" (the receiver's SACK blocks: ns-3's merged list, up to 4,
      ns-2's one-way sink's 3, the newest first from a stack of earlier ACKs' blocks, or
      Full-TCP's 3, its reassembly queue's blocks in the order they were created);
      ``sack_option_bytes`` "padded" | "ns2_sink" (ns-2's one-way sink spends 8 bytes per
      block, ns-3's option 8n + 4); ``increase_per_ack`` "split" | "one"
      (ns-2 opens cwnd once per new ACK, also the cumulative one that ends slow start);
      ``ecn_window`` "flight" | "half_window" (ns-2 halves cwnd exactly at an ECN echo,
      below 2 segments too, keeps it, and opens it at every new ACK without ECN-Echo
      within the window of data after the cut); ``ecn_cwnd_floor`` "one_segment" | "none"
      (ns-2's ECN cut may leave cwnd below one segment: the sender then waits for the
      retransmission timer); ``ecn_response`` "outside_cwr" | "past_recover" (ns-2
      answers no ECN-Echo on an ACK up to the highest segment sent at the last fast
      retransmit); ``ecn_dupack`` "ignored" | "answered" (ns-2 answers an ECN-Echo on a
      duplicate ACK as on a new one); ``cwr_flag`` "new_data" | "next_segment"
      (ns-2 sets CWR on the first segment after any window cut, a retransmission too);
      ``ecn_ce_marks`` "newer_only" | "every" (ns-2's sink echoes every CE-marked
      segment, a retransmission below an earlier mark or a duplicate too);
      ``delack_sink`` "ns3" | "ns2" (with delayed
      ACKs, ns-2's one-way DelAck sink holds a duplicate of the last in-order segment and
      the first data segment, and any immediate ACK ends a hold); ``handshake_ack``
      "separate" | "with_data" (ns-2's one-way agents send no pure ACK of the SYN/ACK: the
      first data segment carries it); ``syn_options`` "ns3" | "none" (ns-2's packet 0 and
      its ACK are bare headers: no window-scale option bytes, the scaling still agreed);
      ``synack_retry`` "timer" | "none" (ns-2's one-way sink never sends on a timer: the
      listener resends its SYN/ACK only in answer to a duplicate SYN; with dup_syn
      "ignore" the timer is kept); ``processing_timing`` "socket" | "output" (with a
      sender processing time, ns-2 times a segment and arms an idle retransmission timer
      when the delayed send fires, not when the window opened); ``held_acked`` "sent" |
      "dropped" (with a sender processing time, ns-2 picks the segments when its delayed
      send fires: a held one acknowledged meanwhile never leaves); ``held_beyond_window``
      "sent" | "unsent" (a held new segment the window no longer admits when the delayed
      send fires goes back to the unsent data); ``syn_timeout_ssthresh``
      "keep" | "halve" (ns-2's one-way agents time a lost packet 0 out as any segment:
      ssthresh 2 segments, the flow starts in congestion avoidance; web connections follow
      ``syn_timeout``); ``last_segment`` "short" | "full" (ns-2's one-way agents send a
      transfer as whole segments: the last one is padded to the MSS and, like any other,
      needs a whole segment of window; ns-3 sends the bytes left once they fit);
      ``transfer_close`` "fin" | "none" (ns-2's one-way agents end a transfer without a
      FIN: the last segment's ACK may be delayed, and no FIN follows from either end);
      ``fin_rule`` "ns3" | "full_tcp" (ns-2's Full-TCP puts its FIN on the last segment
      only if nothing is outstanding as it leaves, else sends it alone once everything is
      acknowledged); ``last_byte`` "ns3" | "full_tcp" (ns-2's Full-TCP sends a segment
      holding only the application's last byte in a forced output only: an ACK of
      everything sent, an owed ACK, a timeout); ``last_ack_fin`` "ack" | "ignore"
      (ns-2's Full-TCP in LAST_ACK drops every segment carrying a FIN, unanswered);
      ``closing_ack`` "plain" | "with_fin"
      (Full-TCP's ACKs after its FIN, with all data out, are FINs again);
      ``early_fin`` "queued" | "acked" (Full-TCP acknowledges a FIN that arrives ahead of
      missing data at once); ``idle_restart`` "none" | "initial_window" (Full-TCP restarts
      from the initial window before data sent with nothing outstanding after an idle spell
      longer than its RTO estimate).
    """

    variant: str = "reno"
    ecn: bool = False
    mss: int = 1000
    initial_cwnd: int = 2
    delayed_ack: bool = False
    delack_timeout: str | float = "100ms"
    min_rto: str | float = "200ms"
    initial_rto: str | float = "3s"
    clock_granularity: str | float = "10ms"
    timestamps: bool = False
    window_scaling: bool = True
    rcv_window: str | int = "1MB"
    snd_buffer: str | int = "4MB"
    limited_transmit: bool = True
    recovery: str = "auto"
    dupack_threshold: int = 3
    rtt_alpha: float = 0.125
    rtt_beta: float = 0.25
    max_retries: int = 1000000
    max_seg_lifetime: str | float = "1s"
    loss_in_cwr: str = "fast_retransmit"
    nagle: bool = False
    ack_rule: str = "segments"
    ect_retransmissions: bool = True
    dup_syn: str = "answer"
    dup_synack: str = "ignore"
    syn_timeout: str = "ns3"
    fin_retransmit: str = "rtt"
    rtt_sampling: str = "auto"
    rto_clock: str = "auto"
    rto_backoff_reset: str = "auto"
    rto_rearm: str = "auto"
    owed_ack: str = "auto"
    rto_restart: str = "auto"
    timeout_ssthresh: str = "auto"
    fast_retransmit_guard: str = "auto"
    ca_increase: str = "auto"
    reno_window: str = "auto"
    dupacks_after_timeout: str = "auto"
    sack_recovery: str = "auto"
    sack_timeout: str = "auto"
    sack_blocks: str = "auto"
    sack_option_bytes: str = "auto"
    increase_per_ack: str = "auto"
    ecn_window: str = "auto"
    ecn_cwnd_floor: str = "auto"
    ecn_response: str = "auto"
    ecn_dupack: str = "auto"
    cwr_flag: str = "auto"
    ecn_ce_marks: str = "auto"
    delack_sink: str = "auto"
    handshake_ack: str = "auto"
    syn_options: str = "auto"
    synack_retry: str = "auto"
    processing_timing: str = "auto"
    held_acked: str = "auto"
    held_beyond_window: str = "auto"
    syn_timeout_ssthresh: str = "auto"
    last_segment: str = "auto"
    transfer_close: str = "auto"
    fin_rule: str = "auto"
    last_byte: str = "auto"
    last_ack_fin: str = "auto"
    closing_ack: str = "auto"
    early_fin: str = "auto"
    idle_restart: str = "auto"

    def __post_init__(self) -> None:
        TCP_VARIANTS.lookup(self.variant, "variant")
        check_choice(self.loss_in_cwr, "loss_in_cwr", LOSS_IN_CWR)
        check_choice(self.ack_rule, "ack_rule", ACK_RULES)
        check_choice(self.dup_syn, "dup_syn", DUP_SYN)
        check_choice(self.dup_synack, "dup_synack", DUP_SYNACK)
        check_choice(self.syn_timeout, "syn_timeout", SYN_TIMEOUT)
        check_choice(self.fin_retransmit, "fin_retransmit", FIN_RETRANSMIT)
        mechanisms.check(self)
        for name in ("ecn", "delayed_ack", "timestamps", "window_scaling", "limited_transmit",
                     "nagle", "ect_retransmissions"):
            check_bool(getattr(self, name), name)
        check_int(self.mss, "mss", ge=100, le=9000)
        check_int(self.initial_cwnd, "initial_cwnd", ge=1)
        check_time(self.delack_timeout, "delack_timeout", positive=True)
        check_time(self.min_rto, "min_rto")
        check_time(self.initial_rto, "initial_rto", positive=True)
        check_time(self.clock_granularity, "clock_granularity", positive=True)
        for name in ("rcv_window", "snd_buffer"):
            if parse_bytes(getattr(self, name), name) < self.mss:
                raise ScenarioError(
                    name, getattr(self, name), f"{name} must be >= mss ({self.mss} B)"
                )
        check_choice(self.recovery, "recovery", ("auto", "classic", "prr"))
        check_int(self.dupack_threshold, "dupack_threshold", ge=1)
        set_attr(self, "rtt_alpha", check_float(self.rtt_alpha, "rtt_alpha", gt=0, le=1))
        set_attr(self, "rtt_beta", check_float(self.rtt_beta, "rtt_beta", gt=0, le=1))
        check_int(self.max_retries, "max_retries", ge=1)
        check_time(self.max_seg_lifetime, "max_seg_lifetime")
        if self.variant_info.needs_ecn and not self.ecn:
            raise ScenarioError("ecn", self.ecn,
                                f"variant {self.variant!r} requires ecn = true")

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        if not d["ecn"]:  # no CWR without ECN: such scenarios keep their hashes
            del d["loss_in_cwr"]
        if not d["nagle"]:  # the default: older scenarios keep their hashes
            del d["nagle"]
        if d["ack_rule"] == "segments":
            del d["ack_rule"]
        if not d["ecn"]:  # no ECT without ECN
            del d["ect_retransmissions"]
        if d["dup_syn"] == "answer":
            del d["dup_syn"]
        if d["dup_synack"] == "ignore":
            del d["dup_synack"]
        if d["syn_timeout"] == "ns3":
            del d["syn_timeout"]
        if d["fin_retransmit"] == "rtt":
            del d["fin_retransmit"]
        for name in mechanisms.FIELDS:  # "auto": older scenarios keep their hashes
            if d[name] == "auto":
                del d[name]
        return d

    @property
    def variant_info(self) -> Variant:
        """The registered :class:`~aqmlab.kinds.tcp.base.Variant` of ``variant``."""
        return TCP_VARIANTS[self.variant]

    @property
    def sack(self) -> bool:
        """Whether SACK is negotiated (every variant except reno/newreno)."""
        return self.variant_info.sack

    @property
    def effective_recovery(self) -> str:
        """``recovery`` with "auto" resolved: "classic" for reno/newreno/sack, else "prr"."""
        if self.recovery != "auto":
            return self.recovery
        return "classic" if self.variant_info.classic else "prr"

    @property
    def rcv_window_bytes(self) -> int:
        return parse_bytes(self.rcv_window, "rcv_window")

    @property
    def snd_buffer_bytes(self) -> int:
        return parse_bytes(self.snd_buffer, "snd_buffer")

    @property
    def delack_timeout_s(self) -> float:
        return parse_time(self.delack_timeout, "delack_timeout")

    @property
    def min_rto_s(self) -> float:
        return parse_time(self.min_rto, "min_rto")

    @property
    def initial_rto_s(self) -> float:
        return parse_time(self.initial_rto, "initial_rto")

    @property
    def max_seg_lifetime_s(self) -> float:
        return parse_time(self.max_seg_lifetime, "max_seg_lifetime")

    @property
    def clock_granularity_s(self) -> float:
        return parse_time(self.clock_granularity, "clock_granularity")

    def with_overrides(self, d: Mapping[str, Any] | None) -> Tcp:
        """A validated copy with the fields in ``d`` replaced; unknown keys raise ScenarioError."""
        if not d:
            return self
        if not isinstance(d, Mapping):
            raise ScenarioError("tcp", d, "must be a table/dict of Tcp fields")
        check_keys(d, [f.name for f in dataclasses.fields(self)])
        return dataclasses.replace(self, **d)

    def mechanism(self, name: str, one_way: bool = True) -> str:
        """A field of :mod:`~aqmlab.kinds.tcp.mechanisms` with "auto" resolved, for a
        socket of a bulk flow or transfer (``one_way``) or of a web connection."""
        return mechanisms.resolve(self, name, one_way)

    def ns3(self, one_way: bool = True) -> Ns3Tcp:
        """Socket configuration for ns-3 (set per socket, not through Config defaults);
        ``one_way``: a bulk flow or transfer (ns-2's one-way agents), not web traffic."""
        attrs = (
            ("SegmentSize", str(self.mss)),
            ("InitialCwnd", str(self.initial_cwnd)),
            ("DelAckCount", "2" if self.delayed_ack else "1"),
            ("DelAckTimeout", _ns(self.delack_timeout_s)),
            ("RcvBufSize", str(self.rcv_window_bytes)),
            ("SndBufSize", str(self.snd_buffer_bytes)),
            ("ConnTimeout", _ns(self.initial_rto_s)),
            ("ConnCount", str(self.max_retries)),
            ("DataRetries", str(self.max_retries)),
            ("TcpNoDelay", _b(not self.nagle)),
            ("MinRto", _ns(self.min_rto_s)),
            ("ClockGranularity", _ns(self.clock_granularity_s)),
            ("Timestamp", _b(self.timestamps)),
            ("WindowScaling", _b(self.window_scaling)),
            ("Sack", _b(self.sack)),
            ("UseEcn", "On" if self.ecn else "Off"),
            ("LimitedTransmit", _b(self.limited_transmit)),
            ("ReTxThreshold", str(self.dupack_threshold)),
            ("MaxSegLifetime", repr(self.max_seg_lifetime_s)),
            ("CwrFastRetransmit", _b(self.loss_in_cwr == "fast_retransmit")),  # aqmlab's socket
            ("FullTcpAcks", _b(self.ack_rule == "full_tcp")),
            ("EctRetransmissions", _b(self.ect_retransmissions)),
            ("IgnoreDupSyn", _b(self.dup_syn == "ignore")),
            ("AckDupSynAck", _b(self.dup_synack == "ack")),
            # ns-2's rule for a SYN timeout: Full-TCP's (syn_timeout) or the one-way
            # agents' (syn_timeout_ssthresh "halve"), the same slowdown()
            ("FullTcpSynTimeout", _b(self.syn_timeout == "full_tcp" or mechanisms.resolve(
                self, "syn_timeout_ssthresh", one_way) == "halve")),
            ("FinOnRto", _b(self.fin_retransmit == "rto")),
            *mechanisms.ns3_attributes(self, one_way),
        )
        return Ns3Tcp(mechanisms.ns3_congestion(self, one_way), RECOVERY[self.effective_recovery],
                      self.variant_info.aqmlab_reno, self.rtt_alpha, self.rtt_beta, attrs)


@dataclass(frozen=True)
class Ns3Tcp:
    """A TCP profile as aqmlab's ns-3 socket factory takes it."""

    congestion: str
    recovery: str
    reno: bool
    rtt_alpha: float
    rtt_beta: float
    attributes: tuple[tuple[str, str], ...]

    def flat(self) -> list[str]:
        return [x for pair in self.attributes for x in pair]


def _ns(t: float) -> str:
    return f"{t * 1e9:.0f}ns"


def _b(v: bool) -> str:
    return "true" if v else "false"
