"""CoDel (Nichols & Jacobson 2012) on ns-3's CoDelQueueDisc."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from aqmlab.kinds.controls import Control
from aqmlab.kinds.queues.base import QUEUES, Ns3Queue, QueueBase, max_size, ns_bool, ns_time
from aqmlab.units import check_bool, check_time, parse_time

__all__ = ["CoDel", "CoDelTiming", "CODEL_CONTROLS"]

#: CoDel's two parameters, shared by the kinds built on it.
CODEL_CONTROLS = (
    Control("target", "CoDel target (ms)", 5.0, 0, 10000, 1, unit="ms"),
    Control("interval", "CoDel interval (ms)", 100.0, 0, 100000, 10, unit="ms"),
)


class CoDelTiming:
    """CoDel's ``target`` (acceptable standing delay) and ``interval`` (the window over
    which it must be exceeded), shared by the kinds built on CoDel."""

    target: str | float
    interval: str | float

    def _check_timing(self) -> None:
        check_time(self.target, "target", positive=True)
        check_time(self.interval, "interval", positive=True)

    @property
    def target_s(self) -> float:
        return parse_time(self.target, "target")

    @property
    def interval_s(self) -> float:
        return parse_time(self.interval, "interval")


@QUEUES.register
@dataclass(frozen=True, kw_only=True)
class CoDel(CoDelTiming, QueueBase):
    """CoDel (Nichols & Jacobson 2012): ``target`` sojourn time, ``interval`` window."""

    KIND: ClassVar[str] = "codel"
    LABEL: ClassVar[str] = "CoDel"
    COST: ClassVar[float] = 1.15
    CONTROLS: ClassVar[tuple[Control, ...]] = CODEL_CONTROLS
    kind: str = "codel"
    limit: str | int = "1000p"
    target: str | float = "5ms"
    interval: str | float = "100ms"
    ecn: bool = False

    def __post_init__(self) -> None:
        self._check_kind()
        self._check_limit()
        self._check_timing()
        check_bool(self.ecn, "ecn")

    def ns3(self, rate_bps: float, delay_s: float) -> Ns3Queue:
        return Ns3Queue("ns3::CoDelQueueDisc", (
            ("MaxSize", max_size(self, 1)), ("Target", ns_time(self.target_s)),
            ("Interval", ns_time(self.interval_s)), ("UseEcn", ns_bool(self.ecn))))
