"""Queue disciplines, polymorphic by ``kind`` (registry :data:`QUEUES`).

``limit`` follows ns-2 accounting. A drop-tail ``limit`` counts the packet in
transmission (ns-2 DropTail holds ``limit - 1`` waiting packets), so the ns-3 queue disc is
given ``limit - 2`` packets (ns-3 keeps one more in the 1-packet device queue). RED and ARED
(ns-2's REDQueue, like ALTQ's RED) hold ``limit`` waiting packets and compare the average of
the waiting packets with the thresholds: the disc gets ``limit - 1`` packets and thresholds
one packet lower (see :data:`aqmlab.ns3.mapping.RED_DEVICE_WAITING`). RED thresholds are
always in packets (ns-2 semantics).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from aqmlab.errors import ScenarioError
from aqmlab.units import (
    Spec,
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_kind,
    check_list,
    check_time,
    parse_size,
    parse_time,
    prefixed,
    set_attr,
)

__all__ = [
    "QueueBase",
    "DropTail",
    "Red",
    "Ared",
    "CoDel",
    "FqCoDel",
    "Pie",
    "Queue",
    "QUEUES",
    "queue_from_dict",
]

MIN_LIMIT_PACKETS = 3
MIN_LIMIT_BYTES = 3000


class QueueBase(Spec):
    """Behaviour shared by every queue discipline: ``limit`` checks and conversions."""

    limit: str | int
    ecn: bool

    def _check_limit(self) -> None:
        amount, unit = parse_size(self.limit, "limit")
        if (unit == "p" and amount < MIN_LIMIT_PACKETS) or (
            unit == "B" and amount < MIN_LIMIT_BYTES
        ):
            raise ScenarioError(
                "limit",
                self.limit,
                "limit must be >= 3 packets (or 3000 bytes)",
                "ns-2 accounting counts the packet in transmission",
            )

    @property
    def limit_size(self) -> tuple[int, str]:
        """``(amount, unit)`` of ``limit``; unit ``"p"`` (packets) or ``"B"`` (bytes)."""
        return parse_size(self.limit, "limit")

    def limit_packets(self, mean_pkt_size: int) -> float:
        """``limit`` in packets; a byte limit is divided by ``mean_pkt_size``."""
        amount, unit = self.limit_size
        return float(amount) if unit == "p" else amount / mean_pkt_size


ECN_ABOVE_MAX_TH = ("drop", "mark")


class _EcnRule:
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


@dataclass(frozen=True, kw_only=True)
class DropTail(QueueBase):
    """FIFO tail drop. ``limit`` default 100 packets. Never marks (``ecn`` is always False).

    ``drop_packets`` (default None) makes losses deterministic, for Fall & Floyd (1996)-style
    tests: 1-based arrival numbers of the TCP *data* packets (payload > 0, all flows through
    this queue, retransmissions included) that the queue drops, e.g. ``(14, 26, 28)``
    (``()`` drops none); otherwise it is a plain drop-tail. Needs a ``limit`` in packets. Omitted from
    ``to_dict`` while None, so scenario hashes without it are unchanged.
    """

    KIND: ClassVar[str] = "droptail"
    kind: str = "droptail"
    limit: str | int = "100p"
    drop_packets: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        self._check_kind()
        self._check_limit()
        if self.drop_packets is not None:
            indices = tuple(
                check_int(v, f"drop_packets[{i}]", ge=1)
                for i, v in enumerate(check_list(self.drop_packets, "drop_packets"))
            )
            dup = sorted({v for v in indices if indices.count(v) > 1})
            if dup:
                raise ScenarioError(
                    "drop_packets",
                    self.drop_packets,
                    "drop_packets indices must be unique",
                    f"repeated: {', '.join(map(str, dup))}",
                )
            if self.limit_size[1] != "p":
                raise ScenarioError(
                    "drop_packets",
                    self.drop_packets,
                    "drop_packets needs a limit in packets",
                    f"limit = {self.limit!r}",
                )
            set_attr(self, "drop_packets", indices)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        if d["drop_packets"] is None:
            del d["drop_packets"]
        return d

    @property
    def ecn(self) -> bool:  # type: ignore[override]
        return False


def _check_w_q(value: object, field: str = "w_q") -> float:
    w_q = check_float(value, field)
    if w_q not in (0.0, -1.0, -2.0) and not 0.0 < w_q <= 1.0:
        raise ScenarioError(
            field, value, "w_q must be in (0, 1] or one of the ns-2 automatic values 0, -1, -2"
        )
    return w_q


@dataclass(frozen=True, kw_only=True)
class Red(_EcnRule, QueueBase):
    """RED (Floyd & Jacobson 1993) with ns-2 parameters.

    Thresholds ``min_th``/``max_th`` in packets; ``max_p`` the drop probability at ``max_th``;
    ``w_q`` the EWMA weight (0, -1, -2 select ns-2's automatic rules); ``mode`` "packet" or
    "byte"; ``adaptive`` is ns-2 ``adaptive_ 1`` with explicit thresholds (ns-3 AdaptMaxP);
    ``ecn_above_max_th`` "drop" (ns-2) or "mark" (ns-3), see :class:`_EcnRule`; ECN with
    ``hard_drop`` False (mark in the forced region too) needs "mark".
    """

    KIND: ClassVar[str] = "red"
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
        set_attr(self, "w_q", _check_w_q(self.w_q))
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


@dataclass(frozen=True, kw_only=True)
class Ared(_EcnRule, QueueBase):
    """Adaptive RED (Floyd, Gummadi & Shenker 2001); None selects ns-2's automatic value.

    ``target_delay`` the target queueing delay; ``alpha``/``beta`` the additive increase and
    multiplicative decrease of max_p every ``interval``; max_p is kept in [``bottom``, ``top``].
    ``mode`` "packet" (Weigle et al.'s setting, the default) or "byte": ns-2's default since
    2.28 (``bytes_``/``queue_in_bytes_ true``), where the average queue counts bytes and a
    packet's drop probability scales with its size / ``mean_pkt_size``, so SYNs and pure
    ACKs are rarely dropped. ``ecn_above_max_th`` "drop" (ns-2, the papers) or "mark"
    (ns-3), see :class:`_EcnRule`.
    """

    KIND: ClassVar[str] = "ared"
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


@dataclass(frozen=True, kw_only=True)
class CoDel(QueueBase):
    """CoDel (Nichols & Jacobson 2012): ``target`` sojourn time, ``interval`` window."""

    KIND: ClassVar[str] = "codel"
    kind: str = "codel"
    limit: str | int = "1000p"
    target: str | float = "5ms"
    interval: str | float = "100ms"
    ecn: bool = False

    def __post_init__(self) -> None:
        self._check_kind()
        self._check_limit()
        check_time(self.target, "target", positive=True)
        check_time(self.interval, "interval", positive=True)
        check_bool(self.ecn, "ecn")

    @property
    def target_s(self) -> float:
        return parse_time(self.target, "target")

    @property
    def interval_s(self) -> float:
        return parse_time(self.interval, "interval")


@dataclass(frozen=True, kw_only=True)
class FqCoDel(QueueBase):
    """FQ-CoDel (RFC 8290): CoDel per flow queue, ``flows`` hash buckets."""

    KIND: ClassVar[str] = "fq_codel"
    kind: str = "fq_codel"
    limit: str | int = "10240p"
    target: str | float = "5ms"
    interval: str | float = "100ms"
    flows: int = 1024
    ecn: bool = True

    def __post_init__(self) -> None:
        self._check_kind()
        self._check_limit()
        check_time(self.target, "target", positive=True)
        check_time(self.interval, "interval", positive=True)
        check_int(self.flows, "flows", ge=1, le=65536)
        check_bool(self.ecn, "ecn")

    @property
    def target_s(self) -> float:
        return parse_time(self.target, "target")

    @property
    def interval_s(self) -> float:
        return parse_time(self.interval, "interval")


@dataclass(frozen=True, kw_only=True)
class Pie(QueueBase):
    """PIE (RFC 8033): ``target`` delay, probability update every ``tupdate``."""

    KIND: ClassVar[str] = "pie"
    kind: str = "pie"
    limit: str | int = "1000p"
    target: str | float = "15ms"
    tupdate: str | float = "15ms"
    alpha: float = 0.125
    beta: float = 1.25
    ecn: bool = False

    def __post_init__(self) -> None:
        self._check_kind()
        self._check_limit()
        check_time(self.target, "target", positive=True)
        check_time(self.tupdate, "tupdate", positive=True)
        set_attr(self, "alpha", check_float(self.alpha, "alpha", gt=0))
        set_attr(self, "beta", check_float(self.beta, "beta", gt=0))
        check_bool(self.ecn, "ecn")

    @property
    def target_s(self) -> float:
        return parse_time(self.target, "target")

    @property
    def tupdate_s(self) -> float:
        return parse_time(self.tupdate, "tupdate")


Queue = DropTail | Red | Ared | CoDel | FqCoDel | Pie
QUEUES: dict[str, type[QueueBase]] = {c.KIND: c for c in (DropTail, Red, Ared, CoDel, FqCoDel, Pie)}


def queue_from_dict(d: Mapping[str, Any] | QueueBase, field: str = "") -> Queue:
    """Build a queue from a dict with a ``kind`` key (a queue instance is returned as is)."""
    if isinstance(d, QueueBase):
        return d  # type: ignore[return-value]
    if not isinstance(d, Mapping):
        raise ScenarioError(
            field or "queue", d, "must be a queue or a table/dict with a 'kind' key"
        )
    with prefixed(field):
        if "kind" not in d:
            raise ScenarioError(
                "kind", None, f"required key missing; known kinds: {', '.join(QUEUES)}"
            )
        cls = QUEUES[check_kind(d["kind"], "kind", QUEUES)]
    return cls.from_dict(d, field)  # type: ignore[return-value]
