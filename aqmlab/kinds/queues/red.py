"""RED (Floyd & Jacobson 1993) with ns-2's parameters, on ns-3's RedQueueDisc.

Also what RED and ARED share: ``ecn_above_max_th`` (ns-2's or ns-3's ECN rule),
``count_after_forced_drop`` (ns-2's or ns-3's count after a forced drop),
``measured_queue`` (ns-2's waiting packets or ns-3's disc) and the translation of ns-2
thresholds (waiting packets) to ns-3's (disc packets).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from aqmlab.errors import ScenarioError
from aqmlab.kinds.controls import Control
from aqmlab.kinds.queues.base import (
    QUEUES,
    RED_DEVICE_WAITING,
    Ns3Queue,
    QueueBase,
    max_size,
    ns_bool,
)
from aqmlab.units import check_bool, check_choice, check_float, check_int, set_attr

__all__ = ["Red", "EcnRule", "ECN_ABOVE_MAX_TH", "COUNT_AFTER_FORCED_DROP", "MEASURED_QUEUE",
           "FORCED_REGION", "NS2_ECN_RED", "red_threshold", "red_type_id", "check_w_q", "packets_per_s"]

ECN_ABOVE_MAX_TH = ("drop", "mark", "mark_p")
COUNT_AFTER_FORCED_DROP = ("reset", "keep")
MEASURED_QUEUE = ("waiting", "disc")
FORCED_REGION = ("early_test", "drop")


class EcnRule:
    """``ecn_above_max_th`` of RED and ARED: when an ECN-capable packet that RED picks is
    marked rather than dropped. "drop" (the default) is the rule the papers ran (ns-2's RED
    of the early 2000s): mark only while the average queue is below ``max_th``, drop in the
    gentle region (and the forced region without gentle). "mark" is ns-3's
    ``RedQueueDisc``: mark in the gentle region too. "mark_p" is ns-2.35's own rule
    (``use_mark_p_``): mark only while the early-drop probability before the count
    correction is below ``mark_p`` (default 0.1, ns-2's ``mark_p_``), else drop; with a
    fixed max_p below ``mark_p`` that is "drop", but ARED adapts max_p beyond it and then
    drops most ECN-capable packets it picks (ns-2.35, ARED, 30 ECN flows: 6 marks and 2642
    early drops where "mark" gives 3628 marks). Only serialised when ``ecn`` is on (and
    ``mark_p`` only with "mark_p"), so other scenarios keep their hashes.

    ``count_after_forced_drop``: what RED's count of packets since the last drop (the
    ``count`` of the uniform-spacing correction p / (1 - count p), p / (2 - count p) with
    ``wait``) does at a forced drop, i.e. one with the average at or above ``max_th`` (2
    ``max_th`` with gentle) or with a full queue. "reset" (the default) is ns-2.35's:
    ``REDQueue::enque`` (red.cc) zeroes ``count`` and ``count_bytes`` after every forced drop
    (its ``ns1_compat_`` 0; ``ns1_compat_`` changes nothing else). "keep" is ns-3's:
    ``RedQueueDisc::DoEnqueue`` resets only with its ``Ns1Compat`` attribute (default off),
    and never after its internal queue's overflow drop, so after forced drops the count
    stays high and the next early drop comes sooner. Always serialised: RED and ARED
    scenarios stored before the field ran ns-3's "keep" and hash differently from both
    values, so they are run again.

    ``measured_queue``: the queue RED averages, tests and finds idle. "waiting" (the
    default) is ns-2.35's ``REDQueue``: every packet waiting for the link (on ns-3 the
    disc's and the one in the 1-packet device queue), early drops only once two wait
    (``qlen > 1``), and idle time (which decays the average as if packets had arrived to an
    empty queue, ``ptc`` per second) from the end of the last transmission; thresholds are
    compared with it as given. "disc" is ns-3's ``RedQueueDisc`` given thresholds one
    packet lower: it averages its own packets only, so an early drop needs three waiting
    packets (two in the disc), and it counts idle time from the first dequeue that finds
    the disc empty, while the link still sends the device's packet (and the one behind
    it): the time to the next arrival decays the average although the link was busy. At
    a queue of a few packets "disc" makes about half of ns-2's early decisions.
    Pentikousis' aggressive RED+ECN at limit 8 (5 Reno downloads of 20 MiB, seeds 1-6):
    ns-2.35 3812 marks, ns-3 "disc" 1990 and "waiting" 3988; loss 0.0271, 0.0303 (+12 %)
    and 0.0271; timeouts 5687, 6124 and 5777. Without ECN (aggressive RED) early drops
    5052, 2767 and 5180 with the same loss (forced drops take their place). At limit 16
    and 32 the two agree. Each half matters: with "waiting" but ns-3's disc > 1 test,
    or with "waiting" but ns-3's idle time, seeds 1-2 gave 416/383 and 503/451 marks
    (ns-2.35 602/675). Always serialised: RED and ARED scenarios stored before the field
    ran "disc" and are run again (aqmlab/engines/ns3/cpp/ns2_ecn_red_queue_disc.h,
    ``Ns2RedQueueDisc``).

    ``forced_region``: what happens at or above ``max_th`` (2 ``max_th`` with gentle).
    "early_test" (the default) is ns-2.35's RED (``use_mark_p_`` true since December 2005):
    there is no forced region, the early test decides with p = 1, so the first arrival
    after the queue held at most one waiting packet passes, and every other one draws a
    random number before it is dropped (an early drop). "drop" is ns-3's
    ``RedQueueDisc`` and the ns-2 of the papers' years (before ``use_mark_p_``): a forced
    drop, no random number. With the run's shared ns-2 random stream the draws decide
    every later early drop: Qiu's RED-3 (100 flows, seed 1) parted from ns-2.35 at
    0.89 s with "drop". Needs ``measured_queue = "waiting"``. Always serialised: RED and
    ARED scenarios stored before the field ran "drop" and are run again."""

    ecn: bool
    ecn_above_max_th: str
    mark_p: float
    count_after_forced_drop: str
    measured_queue: str
    forced_region: str

    def _check_ecn_rule(self) -> None:
        check_choice(self.ecn_above_max_th, "ecn_above_max_th", ECN_ABOVE_MAX_TH)
        set_attr(self, "mark_p", check_float(self.mark_p, "mark_p", gt=0, le=1))
        check_choice(self.count_after_forced_drop, "count_after_forced_drop",
                     COUNT_AFTER_FORCED_DROP)
        check_choice(self.measured_queue, "measured_queue", MEASURED_QUEUE)
        check_choice(self.forced_region, "forced_region", FORCED_REGION)
        if self.forced_region == "early_test" and self.measured_queue != "waiting":
            raise ScenarioError(
                "forced_region", self.forced_region,
                'ns-3\'s own RedQueueDisc (measured_queue = "disc") has a forced region',
                'set forced_region = "drop", or measured_queue = "waiting"')

    def _ecn_rule_dict(self, d: dict[str, Any]) -> dict[str, Any]:
        if not d["ecn"]:
            del d["ecn_above_max_th"]
        if not d["ecn"] or d["ecn_above_max_th"] != "mark_p":
            del d["mark_p"]
        return d

    def wrapper_attributes(self) -> tuple[tuple[str, str], ...]:
        """The ns-3 wrapper's own attributes (:func:`red_type_id`), none without it. Its
        ``Rule`` is "mark" (the child's own marking) without ECN or with the "mark" rule."""
        if red_type_id(self) != NS2_ECN_RED:
            return ()
        rule = self.ecn_above_max_th if self.ecn else "mark"
        early = (("ForcedRegion", "false"),) if self.forced_region == "early_test" else ()
        return (("Rule", rule), ("MarkP", repr(self.mark_p)),
                ("CountReset", ns_bool(self.count_after_forced_drop == "reset")),
                ("Measure", self.measured_queue), *early)

    def threshold(self, th_pkts: float, scale: float = 1.0) -> str:
        """A threshold (ns-2: waiting packets) as this queue's ns-3 disc compares it: as
        given when it measures the waiting packets, one packet lower when only its own."""
        if self.measured_queue == "waiting":
            return repr(th_pkts * scale)
        return red_threshold(th_pkts, scale)


def check_w_q(value: object, field: str = "w_q") -> float:
    w_q = check_float(value, field)
    if w_q not in (0.0, -1.0, -2.0) and not 0.0 < w_q <= 1.0:
        raise ScenarioError(
            field, value, "w_q must be in (0, 1] or one of the ns-2 automatic values 0, -1, -2"
        )
    return w_q


def red_threshold(th_pkts: float, scale: float = 1.0) -> str:
    """A RED threshold (ns-2: waiting packets) as ns-3 sees it (disc packets, x ``scale``
    bytes per packet in byte mode): one device packet lower, never below 0."""
    return repr(max(0.0, th_pkts - RED_DEVICE_WAITING) * scale)


#: aqmlab's wrapper of ns-3's RedQueueDisc with ns-2's ECN rules and count reset.
NS2_ECN_RED = "aqmlab::Ns2EcnRedQueueDisc"


def red_type_id(q: EcnRule) -> str:
    """ns-3's RedQueueDisc, wrapped so that ECN-capable packets are dropped, not marked,
    once the average reaches max_th ("drop") or the early probability reaches mark_p
    ("mark_p"), and so that the count is zeroed after every forced drop ("reset"): ns-2's
    rules (aqmlab/engines/ns3/cpp/ns2_ecn_red_queue_disc.h), and so that the queue is
    measured as ns-2 does ("waiting"). Plain RedQueueDisc for ns-3's rules ("mark" or no
    ECN, "keep" and "disc")."""
    ns2_ecn = q.ecn and q.ecn_above_max_th in ("drop", "mark_p")
    if ns2_ecn or q.count_after_forced_drop == "reset" or q.measured_queue == "waiting":
        return NS2_ECN_RED
    return "ns3::RedQueueDisc"


def packets_per_s(rate_bps: float, mean_pkt: int) -> float:
    return rate_bps / (8.0 * mean_pkt)


def link_attributes(rate_bps: float, delay_s: float) -> tuple[tuple[str, str], ...]:
    return (("LinkBandwidth", f"{int(rate_bps)}bps"), ("LinkDelay", f"{delay_s * 1e9:.0f}ns"))


@QUEUES.register
@dataclass(frozen=True, kw_only=True)
class Red(EcnRule, QueueBase):
    """RED (Floyd & Jacobson 1993) with ns-2 parameters.

    Thresholds ``min_th``/``max_th`` in packets; ``max_p`` the drop probability at ``max_th``;
    ``w_q`` the EWMA weight (0, -1, -2 select ns-2's automatic rules); ``mode`` "packet" or
    "byte"; ``adaptive`` is ns-2 ``adaptive_ 1`` with explicit thresholds (ns-3 AdaptMaxP);
    ``ecn_above_max_th`` "drop" (the papers' ns-2), "mark" (ns-3) or "mark_p" (ns-2.35, with
    ``mark_p``), see :class:`EcnRule`; ECN with ``hard_drop`` False (mark in the forced
    region too) needs "mark" or "mark_p". ``count_after_forced_drop`` "reset" (ns-2.35: the
    count restarts at 0 after a forced or queue-full drop) or "keep" (ns-3);
    ``measured_queue`` "waiting" (ns-2.35: the packets waiting for the link) or "disc"
    (ns-3: the disc's own); ``forced_region`` "early_test" (ns-2.35: no forced drops, the
    early test decides with p = 1) or "drop" (ns-3, the papers' ns-2); see :class:`EcnRule`.
    """

    KIND: ClassVar[str] = "red"
    LABEL: ClassVar[str] = "RED"
    CONTROLS: ClassVar[tuple[Control, ...]] = (
        Control("min_th", "RED min_th (pkts)", 5.0, 0, 10000, 1),
        Control("max_th", "RED max_th (pkts)", 15.0, 0, 10000, 1),
        Control("max_p", "RED max_p", 0.1, 0, 1, 0.01),
        Control("w_q", "RED w_q", 0.002, 0, 1, 0.001),
    )
    kind: str = "red"
    limit: str | int = "100p"
    min_th: float = 5.0
    max_th: float = 15.0
    max_p: float = 0.1
    w_q: float = 0.002
    gentle: bool = True
    wait: bool = True
    mode: str = "packet"
    mean_pkt_size: int = 500
    ecn: bool = False
    hard_drop: bool = True
    adaptive: bool = False
    ecn_above_max_th: str = "drop"
    mark_p: float = 0.1
    count_after_forced_drop: str = "reset"
    measured_queue: str = "waiting"
    forced_region: str = "early_test"

    def __post_init__(self) -> None:
        self._check_kind()
        self._check_ecn_rule()
        min_th = check_float(self.min_th, "min_th", ge=0)
        max_th = check_float(self.max_th, "max_th", gt=0)
        if min_th >= max_th:
            raise ScenarioError(
                "min_th", self.min_th, "min_th must be < max_th", f"max_th = {max_th}"
            )
        set_attr(self, "min_th", min_th)
        set_attr(self, "max_th", max_th)
        set_attr(self, "max_p", check_float(self.max_p, "max_p", gt=0, le=1))
        set_attr(self, "w_q", check_w_q(self.w_q))
        for name in ("gentle", "wait", "ecn", "hard_drop", "adaptive"):
            check_bool(getattr(self, name), name)
        if self.ecn and not self.hard_drop and self.ecn_above_max_th == "drop":
            raise ScenarioError(
                "ecn_above_max_th", self.ecn_above_max_th,
                'hard_drop = false marks above max_th, which "drop" forbids: '
                'set ecn_above_max_th = "mark" (e.g. step marking for DCTCP)')
        check_choice(self.mode, "mode", ("packet", "byte"))
        check_int(self.mean_pkt_size, "mean_pkt_size", ge=1)
        self._check_limit()
        if self.limit_packets(self.mean_pkt_size) < max_th:
            raise ScenarioError(
                "limit", self.limit, f"limit < max_th: limit must be >= max_th = {max_th} packets"
            )

    def to_dict(self) -> dict[str, Any]:
        return self._ecn_rule_dict(super().to_dict())

    def ns3(self, rate_bps: float, delay_s: float) -> Ns3Queue:
        byte = self.mode == "byte"
        scale = self.mean_pkt_size if byte else 1
        attrs = (("MaxSize", max_size(self, self.mean_pkt_size, byte, red=True)),
                 ("MeanPktSize", str(self.mean_pkt_size)),
                 ("MinTh", self.threshold(self.min_th, scale)),
                 ("MaxTh", self.threshold(self.max_th, scale)),
                 ("LInterm", repr(1.0 / self.max_p)), ("QW", repr(self.w_q)),
                 ("Gentle", ns_bool(self.gentle)), ("Wait", ns_bool(self.wait)),
                 ("UseEcn", ns_bool(self.ecn)), ("UseHardDrop", ns_bool(self.hard_drop)),
                 ("ARED", "false"), ("AdaptMaxP", ns_bool(self.adaptive)),
                 *link_attributes(rate_bps, delay_s), *self.wrapper_attributes())
        if self.adaptive:
            attrs += (("Bottom", repr(min(0.01, 80000.0 / rate_bps))),)
        wq = self.w_q if self.w_q > 0 else 0.0
        return Ns3Queue(red_type_id(self), attrs, wq, packets_per_s(rate_bps, self.mean_pkt_size))
