"""RED (Floyd & Jacobson 1993) with ns-2's parameters, on ns-3's RedQueueDisc.

Also what RED and ARED share: ``ecn_above_max_th`` (ns-2's or ns-3's ECN rule) and the
translation of ns-2 thresholds (waiting packets) to ns-3's (disc packets).
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

__all__ = ["Red", "EcnRule", "ECN_ABOVE_MAX_TH", "red_threshold", "red_type_id", "check_w_q",
           "packets_per_s"]

ECN_ABOVE_MAX_TH = ("drop", "mark")


class EcnRule:
    """``ecn_above_max_th`` of RED and ARED: what happens to an ECN-capable packet picked
    while the average queue is at or above ``max_th`` (the gentle region, or the forced
    region without gentle). "drop" (the default) is ns-2's rule, which the papers ran: mark
    only while the average is below ``max_th``. "mark" is ns-3's ``RedQueueDisc``: mark in
    the gentle region too. Only serialised when ``ecn`` is on, so scenarios without ECN keep
    their hashes."""

    ecn: bool
    ecn_above_max_th: str

    def _check_ecn_rule(self) -> None:
        check_choice(self.ecn_above_max_th, "ecn_above_max_th", ECN_ABOVE_MAX_TH)

    def _ecn_rule_dict(self, d: dict[str, Any]) -> dict[str, Any]:
        if not d["ecn"]:
            del d["ecn_above_max_th"]
        return d


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


def red_type_id(q: EcnRule) -> str:
    """ns-3's RedQueueDisc, wrapped so that ECN-capable packets are dropped, not marked,
    once the average reaches max_th (ns-2's rule; aqmlab/engines/ns3/cpp/
    ns2_ecn_red_queue_disc.h)."""
    if q.ecn and q.ecn_above_max_th == "drop":
        return "aqmlab::Ns2EcnRedQueueDisc"
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
    ``ecn_above_max_th`` "drop" (ns-2) or "mark" (ns-3), see :class:`EcnRule`; ECN with
    ``hard_drop`` False (mark in the forced region too) needs "mark".
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
                 ("MinTh", red_threshold(self.min_th, scale)),
                 ("MaxTh", red_threshold(self.max_th, scale)),
                 ("LInterm", repr(1.0 / self.max_p)), ("QW", repr(self.w_q)),
                 ("Gentle", ns_bool(self.gentle)), ("Wait", ns_bool(self.wait)),
                 ("UseEcn", ns_bool(self.ecn)), ("UseHardDrop", ns_bool(self.hard_drop)),
                 ("ARED", "false"), ("AdaptMaxP", ns_bool(self.adaptive)),
                 *link_attributes(rate_bps, delay_s))
        if self.adaptive:
            attrs += (("Bottom", repr(min(0.01, 80000.0 / rate_bps))),)
        wq = self.w_q if self.w_q > 0 else 0.0
        return Ns3Queue(red_type_id(self), attrs, wq, packets_per_s(rate_bps, self.mean_pkt_size))
