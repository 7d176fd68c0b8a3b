"""Transfers: a fixed number of finite downloads (e.g. Pentikousis et al.'s 20 MiB files)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from aqmlab.errors import ScenarioError
from aqmlab.kinds.traffic.base import TRAFFIC, PlanContext, TrafficBase, plan_flows
from aqmlab.units import check_int, parse_bytes, set_attr

__all__ = ["Transfers"]


@TRAFFIC.register
@dataclass(frozen=True, kw_only=True)
class Transfers(TrafficBase):
    """``count`` finite transfers of ``size`` bytes each (or a list of ``count`` sizes)."""

    KIND: ClassVar[str] = "transfers"
    kind: str = "transfers"
    count: int = 1
    size: str | int | tuple[str | int, ...] = "20MiB"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int(self.count, "count", ge=1)
        if isinstance(self.size, (list, tuple)):
            sizes = tuple(self.size)
            if len(sizes) != self.count:
                raise ScenarioError(
                    "size", self.size, f"a list of sizes must have count = {self.count} entries"
                )
            for i, s in enumerate(sizes):
                parse_bytes(s, f"size[{i}]")
            set_attr(self, "size", sizes)
        else:
            parse_bytes(self.size, "size")

    @property
    def n_flows(self) -> int:
        return self.count

    @property
    def sizes_bytes(self) -> tuple[int, ...]:
        """The size of each of the ``count`` transfers, in bytes."""
        if isinstance(self.size, tuple):
            return tuple(parse_bytes(s, "size") for s in self.size)
        return (parse_bytes(self.size, "size"),) * self.count

    def finite_bytes(self) -> int | None:
        return sum(self.sizes_bytes)

    def plan(self, ctx: PlanContext) -> None:
        plan_flows(ctx, self, [float(s) for s in self.sizes_bytes], 0.0)
