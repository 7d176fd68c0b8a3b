"""PIE (RFC 8033) on ns-3's PieQueueDisc."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from aqmlab.kinds.controls import Control
from aqmlab.kinds.queues.base import QUEUES, Ns3Queue, QueueBase, max_size, ns_bool, ns_time
from aqmlab.units import check_bool, check_float, check_time, parse_time, set_attr

__all__ = ["Pie", "PieControl"]


class PieControl:
    """PIE's controller: the ``target`` queueing delay, the probability update period
    ``tupdate`` and its gains ``alpha`` and ``beta``, shared by the kinds built on PIE."""

    target: str | float
    tupdate: str | float
    alpha: float
    beta: float

    def _check_control(self) -> None:
        check_time(self.target, "target", positive=True)
        check_time(self.tupdate, "tupdate", positive=True)
        set_attr(self, "alpha", check_float(self.alpha, "alpha", gt=0))
        set_attr(self, "beta", check_float(self.beta, "beta", gt=0))

    @property
    def target_s(self) -> float:
        return parse_time(self.target, "target")

    @property
    def tupdate_s(self) -> float:
        return parse_time(self.tupdate, "tupdate")

    def ns3_control(self) -> tuple[tuple[str, str], ...]:
        """The controller's ns-3 attributes (PieQueueDisc and FqPieQueueDisc name them
        alike)."""
        return (("QueueDelayReference", ns_time(self.target_s)),
                ("Tupdate", ns_time(self.tupdate_s)), ("A", repr(self.alpha)),
                ("B", repr(self.beta)))


@QUEUES.register
@dataclass(frozen=True, kw_only=True)
class Pie(PieControl, QueueBase):
    """PIE (RFC 8033): ``target`` delay, probability update every ``tupdate``."""

    KIND: ClassVar[str] = "pie"
    LABEL: ClassVar[str] = "PIE"
    CONTROLS: ClassVar[tuple[Control, ...]] = (
        Control("target", "PIE target (ms)", 15.0, 0, 10000, 1, unit="ms"),
    )
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
        self._check_control()
        check_bool(self.ecn, "ecn")

    def ns3(self, rate_bps: float, delay_s: float) -> Ns3Queue:
        return Ns3Queue("ns3::PieQueueDisc", (
            ("MaxSize", max_size(self, 1)), *self.ns3_control(),
            ("UseEcn", ns_bool(self.ecn))))
