"""FQ-CoDel (RFC 8290) on ns-3's FqCoDelQueueDisc."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from aqmlab.kinds.controls import Control
from aqmlab.kinds.queues.base import QUEUES, Ns3Queue, QueueBase, max_size, ns_bool, ns_time
from aqmlab.kinds.queues.codel import CODEL_CONTROLS, CoDelTiming
from aqmlab.units import check_bool, check_int

__all__ = ["FqCoDel"]


@QUEUES.register
@dataclass(frozen=True, kw_only=True)
class FqCoDel(CoDelTiming, QueueBase):
    """FQ-CoDel (RFC 8290): CoDel per flow queue, ``flows`` hash buckets."""

    KIND: ClassVar[str] = "fq_codel"
    LABEL: ClassVar[str] = "FQ-CoDel"
    COST: ClassVar[float] = 1.35
    CONTROLS: ClassVar[tuple[Control, ...]] = CODEL_CONTROLS
    kind: str = "fq_codel"
    limit: str | int = "10240p"
    target: str | float = "5ms"
    interval: str | float = "100ms"
    flows: int = 1024
    ecn: bool = True

    def __post_init__(self) -> None:
        self._check_kind()
        self._check_limit()
        self._check_timing()
        check_int(self.flows, "flows", ge=1, le=65536)
        check_bool(self.ecn, "ecn")

    def ns3(self, rate_bps: float, delay_s: float) -> Ns3Queue:
        return Ns3Queue("ns3::FqCoDelQueueDisc", (
            ("MaxSize", max_size(self, 1)), ("Target", ns_time(self.target_s)),
            ("Interval", ns_time(self.interval_s)), ("Flows", str(self.flows)),
            ("UseEcn", ns_bool(self.ecn))))
