"""FQ-PIE (RFC 8033's PIE per flow queue, with FQ-CoDel's scheduler; Linux 5.6's fq_pie)
on ns-3's FqPieQueueDisc."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from aqmlab.kinds.controls import Control
from aqmlab.kinds.queues.base import QUEUES, Ns3Queue, QueueBase, max_size, ns_bool
from aqmlab.kinds.queues.pie import PieControl
from aqmlab.units import check_bool, check_float, check_int, set_attr

__all__ = ["FqPie"]


@QUEUES.register
@dataclass(frozen=True, kw_only=True)
class FqPie(PieControl, QueueBase):
    """FQ-PIE: ``flows`` hash buckets served round-robin, each queue under PIE with delay
    ``target`` updated every ``tupdate`` (gains ``alpha``, ``beta``); with ``ecn``, packets
    are marked while the drop probability is below ``mark_ecn_threshold``. The CPU cost is
    assumed to be FQ-CoDel's (a per-flow scheduler of the same design) until
    ``bench/bench_queues.py`` measures it."""

    KIND: ClassVar[str] = "fq_pie"
    LABEL: ClassVar[str] = "FQ-PIE"
    COST: ClassVar[float] = 1.35
    CONTROLS: ClassVar[tuple[Control, ...]] = (
        Control("target", "FQ-PIE target (ms)", 15.0, 0, 10000, 1, unit="ms"),
    )
    kind: str = "fq_pie"
    limit: str | int = "10240p"
    target: str | float = "15ms"
    tupdate: str | float = "15ms"
    alpha: float = 0.125
    beta: float = 1.25
    flows: int = 1024
    ecn: bool = True
    mark_ecn_threshold: float = 0.1

    def __post_init__(self) -> None:
        self._check_kind()
        self._check_limit()
        self._check_control()
        check_int(self.flows, "flows", ge=1, le=65536)
        check_bool(self.ecn, "ecn")
        set_attr(self, "mark_ecn_threshold",
                 check_float(self.mark_ecn_threshold, "mark_ecn_threshold", gt=0, le=1))

    def ns3(self, rate_bps: float, delay_s: float) -> Ns3Queue:
        return Ns3Queue("ns3::FqPieQueueDisc", (
            ("MaxSize", max_size(self, 1)), *self.ns3_control(), ("Flows", str(self.flows)),
            ("UseEcn", ns_bool(self.ecn)), ("MarkEcnThreshold", repr(self.mark_ecn_threshold))))
