"""Scenario specs -> ns-3 TypeIds and attribute strings. Pure data: imports no ns-3.

Every ns-2-vs-ns-3 default difference that matters is set explicitly here (RED thresholds,
LInterm, QW, link bandwidth/delay, the ARED ``Bottom`` bug, TCP options), so nothing
depends on ns-3's defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

from aqmlab.scenario import Tcp
from aqmlab.scenario.queues import Ared, CoDel, DropTail, FqCoDel, Pie, Queue, Red

#: Packets the device adds to the queue disc's limit: 1 in the 1-packet device queue,
#: 1 in transmission. ns-2's DropTail ``limit_`` counts both (it holds ``limit_ - 1``
#: waiting packets: ``(q_->length() + 1) >= qlim_`` drops).
DEVICE_PACKETS = 2
#: ns-2's REDQueue (and ALTQ's RED, derived from it) holds ``limit_`` *waiting* packets
#: (``qlen >= qlim`` drops) and averages the waiting packets; in ns-3 one of them sits in
#: the 1-packet device queue whenever the disc is not empty. So a RED disc gets
#: ``limit - 1`` packets and thresholds lowered by that one packet, which makes ns-3's
#: comparisons (average of the disc) those of ns-2 (average of disc + device packet)
#: whenever packets wait. Left different: an arrival that finds only the device packet
#: (ns-2 may drop early once 2 wait, ns-3 once 2 are in the disc) and the idle decay.
RED_DEVICE_WAITING = 1

CONGESTION = {
    "reno": "ns3::TcpNewReno",  # + aqmlab's Reno recovery
    "newreno": "ns3::TcpNewReno",
    "sack": "ns3::TcpNewReno",
    "cubic": "ns3::TcpCubic",
    "bbr": "ns3::TcpBbr",
    "dctcp": "ns3::TcpDctcp",
    "linux-reno": "ns3::TcpLinuxReno",
}
RECOVERY = {"classic": "ns3::TcpClassicRecovery", "prr": "ns3::TcpPrrRecovery"}


@dataclass(frozen=True)
class QueueConfig:
    """A queue disc as ns-3 sees it."""

    type_id: str
    attributes: tuple[tuple[str, str], ...]
    red_wq: float = 0.0  # > 0: re-derive RED's average queue in the probe
    red_ptc: float = 0.0

    def flat(self) -> list[str]:
        return [x for pair in self.attributes for x in pair]


def _b(v: bool) -> str:
    return "true" if v else "false"


def _max_size(q: Queue, mean_pkt: int, byte_mode: bool = False) -> str:
    """ns-3 ``MaxSize``: ns-2 ``limit_`` minus the device's packets (two for drop-tail-like
    queues, one for RED: :data:`RED_DEVICE_WAITING`). For RED the unit selects packet or
    byte mode, so it follows ``mode`` whatever unit ``limit`` has."""
    red = isinstance(q, (Red, Ared))
    device = DEVICE_PACKETS - RED_DEVICE_WAITING if red else DEVICE_PACKETS
    amount, unit = q.limit_size
    pkts = amount - device if unit == "p" else None
    if byte_mode:
        return f"{pkts * mean_pkt if pkts is not None else amount}B"
    if pkts is None and red:
        pkts = max(1, round(amount / mean_pkt) - device)
    return f"{pkts}p" if pkts is not None else f"{amount}B"


def _red_th(th_pkts: float, scale: float = 1.0) -> str:
    """A RED threshold (ns-2: waiting packets) as ns-3 sees it (disc packets, x ``scale``
    bytes per packet in byte mode): one device packet lower, never below 0."""
    return repr(max(0.0, th_pkts - RED_DEVICE_WAITING) * scale)


def _red_type(q: Red | Ared) -> str:
    """ns-3's RedQueueDisc, wrapped so that ECN-capable packets are dropped, not marked,
    once the average reaches max_th (ns-2's rule; aqmlab/ns3/cpp/ns2_ecn_red_queue_disc.h)."""
    if q.ecn and q.ecn_above_max_th == "drop":
        return "aqmlab::Ns2EcnRedQueueDisc"
    return "ns3::RedQueueDisc"


def _ptc(rate_bps: float, mean_pkt: int) -> float:
    return rate_bps / (8.0 * mean_pkt)


def queue_config(q: Queue, rate_bps: float, delay_s: float) -> QueueConfig:
    """ns-3 queue disc for spec ``q`` on a link of ``rate_bps`` and ``delay_s``."""
    link = (("LinkBandwidth", f"{int(rate_bps)}bps"), ("LinkDelay", f"{delay_s * 1e9:.0f}ns"))
    if isinstance(q, DropTail):
        if q.drop_packets is not None:
            # aqmlab's FIFO with a deterministic drop list (droplist_queue_disc.h); the
            # limit is in packets (validated), device packets subtracted as for MaxSize.
            return QueueConfig("aqmlab::DropListQueueDisc", (
                ("Limit", str(q.limit_size[0] - DEVICE_PACKETS)),
                ("Drops", ",".join(str(i) for i in q.drop_packets))))
        return QueueConfig("ns3::FifoQueueDisc", (("MaxSize", _max_size(q, 1)),))
    if isinstance(q, Red):
        byte = q.mode == "byte"
        scale = q.mean_pkt_size if byte else 1
        attrs = (("MaxSize", _max_size(q, q.mean_pkt_size, byte)),
                 ("MeanPktSize", str(q.mean_pkt_size)),
                 ("MinTh", _red_th(q.min_th, scale)), ("MaxTh", _red_th(q.max_th, scale)),
                 ("LInterm", repr(1.0 / q.max_p)), ("QW", repr(q.w_q)),
                 ("Gentle", _b(q.gentle)), ("Wait", _b(q.wait)), ("UseEcn", _b(q.ecn)),
                 ("UseHardDrop", _b(q.hard_drop)), ("ARED", "false"),
                 ("AdaptMaxP", _b(q.adaptive)), *link)
        if q.adaptive:
            attrs += (("Bottom", repr(min(0.01, 80000.0 / rate_bps))),)
        wq = q.w_q if q.w_q > 0 else 0.0
        return QueueConfig(_red_type(q), attrs, wq, _ptc(rate_bps, q.mean_pkt_size))
    if isinstance(q, Ared):
        min_th, max_th = q.auto_thresholds(rate_bps)
        wq = q.auto_w_q(rate_bps)
        byte = q.mode == "byte"
        scale = q.mean_pkt_size if byte else 1
        attrs = (("MaxSize", _max_size(q, q.mean_pkt_size, byte)),
                 ("MeanPktSize", str(q.mean_pkt_size)),
                 ("MinTh", _red_th(min_th, scale)), ("MaxTh", _red_th(max_th, scale)),
                 ("QW", repr(wq)),
                 # ARED=true would overwrite thresholds/QW and use the buggy Bottom formula,
                 # so adaptation is switched on with explicit values instead (ns-2 adaptive_).
                 ("ARED", "false"), ("AdaptMaxP", "true"), ("Gentle", _b(q.gentle)),
                 ("Wait", "true"), ("LInterm", "10"),
                 ("TargetDelay", f"{q.target_delay_s * 1e9:.0f}ns"),
                 ("Alpha", repr(q.alpha)), ("Beta", repr(q.beta)),
                 ("Interval", f"{q.interval_s * 1e9:.0f}ns"),
                 ("Top", repr(q.top)), ("Bottom", repr(q.auto_bottom(rate_bps))),
                 ("UseEcn", _b(q.ecn)), ("UseHardDrop", "true"), *link)
        return QueueConfig(_red_type(q), attrs, wq, _ptc(rate_bps, q.mean_pkt_size))
    if isinstance(q, CoDel):
        return QueueConfig("ns3::CoDelQueueDisc", (
            ("MaxSize", _max_size(q, 1)), ("Target", f"{q.target_s * 1e9:.0f}ns"),
            ("Interval", f"{q.interval_s * 1e9:.0f}ns"), ("UseEcn", _b(q.ecn))))
    if isinstance(q, FqCoDel):
        return QueueConfig("ns3::FqCoDelQueueDisc", (
            ("MaxSize", _max_size(q, 1)), ("Target", f"{q.target_s * 1e9:.0f}ns"),
            ("Interval", f"{q.interval_s * 1e9:.0f}ns"), ("Flows", str(q.flows)),
            ("UseEcn", _b(q.ecn))))
    if isinstance(q, Pie):
        return QueueConfig("ns3::PieQueueDisc", (
            ("MaxSize", _max_size(q, 1)),
            ("QueueDelayReference", f"{q.target_s * 1e9:.0f}ns"),
            ("Tupdate", f"{q.tupdate_s * 1e9:.0f}ns"), ("A", repr(q.alpha)),
            ("B", repr(q.beta)), ("UseEcn", _b(q.ecn))))
    raise TypeError(f"no ns-3 mapping for queue kind {type(q).__name__}")


@dataclass(frozen=True)
class TcpConfig:
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


def tcp_config(t: Tcp) -> TcpConfig:
    """Socket configuration for TCP spec ``t`` (set per socket, not via Config defaults)."""
    attrs = (
        ("SegmentSize", str(t.mss)),
        ("InitialCwnd", str(t.initial_cwnd)),
        ("DelAckCount", "2" if t.delayed_ack else "1"),
        ("DelAckTimeout", _ns(t.delack_timeout_s)),
        ("RcvBufSize", str(t.rcv_window_bytes)),
        ("SndBufSize", str(t.snd_buffer_bytes)),
        ("ConnTimeout", _ns(t.initial_rto_s)),
        ("ConnCount", str(t.max_retries)),
        ("DataRetries", str(t.max_retries)),
        ("TcpNoDelay", "true"),
        ("MinRto", _ns(t.min_rto_s)),
        ("ClockGranularity", _ns(t.clock_granularity_s)),
        ("Timestamp", _b(t.timestamps)),
        ("WindowScaling", _b(t.window_scaling)),
        ("Sack", _b(t.sack)),
        ("UseEcn", "On" if t.ecn else "Off"),
        ("LimitedTransmit", _b(t.limited_transmit)),
        ("ReTxThreshold", str(t.dupack_threshold)),
        ("MaxSegLifetime", repr(t.max_seg_lifetime_s)),
        ("CwrFastRetransmit", _b(t.loss_in_cwr == "fast_retransmit")),  # aqmlab's socket
    )
    return TcpConfig(CONGESTION[t.variant], RECOVERY[t.effective_recovery],
                     t.variant == "reno", t.rtt_alpha, t.rtt_beta, attrs)
