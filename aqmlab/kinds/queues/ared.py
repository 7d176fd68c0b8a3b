"""Adaptive RED (Floyd, Gummadi & Shenker 2001) as ns-2 computes its automatic values."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from aqmlab.errors import ScenarioError
from aqmlab.kinds.controls import Control
from aqmlab.kinds.queues.base import QUEUES, Ns3Queue, QueueBase, max_size, ns_bool, ns_time
from aqmlab.kinds.queues.red import (
    EcnRule,
    link_attributes,
    packets_per_s,
    red_type_id,
)
from aqmlab.units import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_time,
    parse_time,
    set_attr,
)

__all__ = ["Ared"]


@QUEUES.register
@dataclass(frozen=True, kw_only=True)
class Ared(EcnRule, QueueBase):
    """Adaptive RED (Floyd, Gummadi & Shenker 2001); None selects ns-2's automatic value.

    ``target_delay`` the target queueing delay; ``alpha``/``beta`` the additive increase and
    multiplicative decrease of max_p every ``interval``; max_p is kept in [``bottom``, ``top``].
    ``mode`` "packet" (Weigle et al.'s setting, the default) or "byte": ns-2's default since
    2.28 (``bytes_``/``queue_in_bytes_ true``), where the average queue counts bytes and a
    packet's drop probability scales with its size / ``mean_pkt_size``, so SYNs and pure
    ACKs are rarely dropped. ``ecn_above_max_th`` "drop" (the papers' ns-2), "mark" (ns-3)
    or "mark_p" (ns-2.35's own rule, with ``mark_p``); ``count_after_forced_drop`` "reset"
    (ns-2.35: the count restarts at 0 after a forced or queue-full drop) or "keep" (ns-3);
    ``measured_queue`` "waiting" (ns-2.35: the packets waiting for the link) or "disc" (ns-3:
    the disc's own); ``forced_region`` "early_test" (ns-2.35) or "drop" (ns-3, the papers'
    ns-2); see :class:`~aqmlab.kinds.queues.red.EcnRule`.
    """

    KIND: ClassVar[str] = "ared"
    LABEL: ClassVar[str] = "Adaptive RED"
    COST: ClassVar[float] = 1.15
    CONTROLS: ClassVar[tuple[Control, ...]] = (
        Control("target_delay", "ARED target (ms)", 5.0, 0, 10000, 1, unit="ms",
                short="target"),
    )
    kind: str = "ared"
    limit: str | int = "100p"
    target_delay: str | float = "5ms"
    alpha: float = 0.01
    beta: float = 0.9
    interval: str | float = "500ms"
    bottom: float | None = None
    top: float = 0.5
    mean_pkt_size: int = 500
    ecn: bool = False
    gentle: bool = True
    min_th: float | None = None
    max_th: float | None = None
    w_q: float | None = None
    mode: str = "packet"
    ecn_above_max_th: str = "drop"
    mark_p: float = 0.1
    count_after_forced_drop: str = "reset"
    measured_queue: str = "waiting"
    forced_region: str = "early_test"

    def __post_init__(self) -> None:
        self._check_kind()
        self._check_ecn_rule()
        check_choice(self.mode, "mode", ("packet", "byte"))
        check_time(self.target_delay, "target_delay", positive=True)
        set_attr(self, "alpha", check_float(self.alpha, "alpha", gt=0))
        set_attr(self, "beta", check_float(self.beta, "beta", gt=0, lt=1))
        check_time(self.interval, "interval", positive=True)
        top = check_float(self.top, "top", gt=0, le=1)
        set_attr(self, "top", top)
        if self.bottom is not None:
            set_attr(self, "bottom", check_float(self.bottom, "bottom", gt=0, le=top))
        check_int(self.mean_pkt_size, "mean_pkt_size", ge=1)
        check_bool(self.ecn, "ecn")
        check_bool(self.gentle, "gentle")
        if self.min_th is not None:
            set_attr(self, "min_th", check_float(self.min_th, "min_th", ge=0))
        if self.max_th is not None:
            set_attr(self, "max_th", check_float(self.max_th, "max_th", gt=0))
        if self.min_th is not None and self.max_th is not None and self.min_th >= self.max_th:
            raise ScenarioError(
                "min_th", self.min_th, "min_th must be < max_th", f"max_th = {self.max_th}"
            )
        if self.w_q is not None:
            set_attr(self, "w_q", check_float(self.w_q, "w_q", gt=0, le=1))
        self._check_limit()
        if self.max_th is not None and self.limit_packets(self.mean_pkt_size) < self.max_th:
            raise ScenarioError(
                "limit",
                self.limit,
                f"limit < max_th: limit must be >= max_th = {self.max_th} packets",
            )

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        if d["mode"] == "packet":  # the default is left out: scenario hashes stay as before
            del d["mode"]
        return self._ecn_rule_dict(d)

    @property
    def target_delay_s(self) -> float:
        return parse_time(self.target_delay, "target_delay")

    @property
    def interval_s(self) -> float:
        return parse_time(self.interval, "interval")

    def _pkts_per_s(self, link_rate_bps: float) -> float:
        return link_rate_bps / (8 * self.mean_pkt_size)

    def auto_bottom(self, link_rate_bps: float) -> float:
        """``bottom`` or ns-2's rule ``min(0.01, 80000 / link_rate_bps)`` (ns-3's is buggy)."""
        return self.bottom if self.bottom is not None else min(0.01, 80000 / link_rate_bps)

    def auto_thresholds(self, link_rate_bps: float) -> tuple[float, float]:
        """``(min_th, max_th)`` in packets; None ones automatic (ns-2):
        min_th = max(5, target_delay * C / 2), max_th = 3 * min_th, C in packets/s."""
        min_th = self.min_th
        if min_th is None:
            min_th = max(5.0, self.target_delay_s * self._pkts_per_s(link_rate_bps) / 2)
        max_th = self.max_th if self.max_th is not None else 3 * min_th
        if min_th >= max_th:
            raise ScenarioError(
                "max_th",
                self.max_th,
                f"max_th must be > the automatic min_th = {min_th:g}",
                f"at {link_rate_bps:g} bit/s",
            )
        return min_th, max_th

    def auto_w_q(self, link_rate_bps: float) -> float:
        """``w_q`` or ns-2's rule ``1 - exp(-1/C)``, C the link rate in packets/s."""
        if self.w_q is not None:
            return self.w_q
        return 1.0 - math.exp(-1.0 / self._pkts_per_s(link_rate_bps))

    def check_link(self, link_rate_bps: float) -> None:
        self.auto_thresholds(link_rate_bps)

    def ns3(self, rate_bps: float, delay_s: float) -> Ns3Queue:
        min_th, max_th = self.auto_thresholds(rate_bps)
        wq = self.auto_w_q(rate_bps)
        byte = self.mode == "byte"
        scale = self.mean_pkt_size if byte else 1
        attrs = (("MaxSize", max_size(self, self.mean_pkt_size, byte, red=True)),
                 ("MeanPktSize", str(self.mean_pkt_size)),
                 ("MinTh", self.threshold(min_th, scale)), ("MaxTh", self.threshold(max_th, scale)),
                 ("QW", repr(wq)),
                 # ARED=true would overwrite thresholds/QW and use the buggy Bottom formula,
                 # so adaptation is switched on with explicit values instead (ns-2 adaptive_).
                 ("ARED", "false"), ("AdaptMaxP", "true"), ("Gentle", ns_bool(self.gentle)),
                 ("Wait", "true"), ("LInterm", "10"),
                 ("TargetDelay", ns_time(self.target_delay_s)),
                 ("Alpha", repr(self.alpha)), ("Beta", repr(self.beta)),
                 ("Interval", ns_time(self.interval_s)),
                 ("Top", repr(self.top)), ("Bottom", repr(self.auto_bottom(rate_bps))),
                 ("UseEcn", ns_bool(self.ecn)), ("UseHardDrop", "true"),
                 *link_attributes(rate_bps, delay_s), *self.wrapper_attributes())
        return Ns3Queue(red_type_id(self), attrs, wq, packets_per_s(rate_bps, self.mean_pkt_size))
