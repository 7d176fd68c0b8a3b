"""Bulk: long-lived flows that always have data to send (FTP-like)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from aqmlab.kinds.controls import Control
from aqmlab.kinds.traffic.base import TRAFFIC, ExplorerTraffic, PlanContext, TrafficBase, plan_flows
from aqmlab.units import check_int, check_time, parse_time

__all__ = ["Bulk"]


@TRAFFIC.register
@dataclass(frozen=True, kw_only=True)
class Bulk(TrafficBase):
    """``flows`` long-lived flows; ``processing_time`` is the bound of a per-sender random
    processing delay drawn uniformly from [0, value] (Qiu, Zhang & Keshav, §4)."""

    KIND: ClassVar[str] = "bulk"
    EXPLORER: ClassVar[ExplorerTraffic | None] = ExplorerTraffic(
        "bulk", "bulk (long-lived flows)",
        Control("flows", "bulk flows", 10, 1, 100, 1, integer=True))
    kind: str = "bulk"
    flows: int = 1
    processing_time: str | float = "0s"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int(self.flows, "flows", ge=1)
        check_time(self.processing_time, "processing_time")

    @property
    def n_flows(self) -> int:
        return self.flows

    @property
    def processing_time_s(self) -> float:
        return parse_time(self.processing_time, "processing_time")

    def plan(self, ctx: PlanContext) -> None:
        plan_flows(ctx, self, [0.0] * self.flows, self.processing_time_s)

    def explorer_describe(self) -> tuple[str, str]:
        return "flows", str(self.flows)

    @classmethod
    def explorer_group(cls, value: float, rate_bps: float) -> dict[str, Any]:
        return {"kind": "bulk", "flows": int(value), "start_spread": "1s"}
