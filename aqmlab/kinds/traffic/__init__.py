"""Traffic kinds: one module per kind, registered in :data:`TRAFFIC` by ``kind`` (other
packages add kinds through the ``aqmlab.traffic`` entry-point group). A kind declares its
fields and checks, how it becomes connections (``plan``), its cost and its explorer
control."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aqmlab.kinds.registry import import_kinds
from aqmlab.kinds.traffic.base import TRAFFIC, ExplorerTraffic, PlanContext, TrafficBase
from aqmlab.kinds.traffic.bulk import Bulk
from aqmlab.kinds.traffic.mah import Mah
from aqmlab.kinds.traffic.packmime import PackMime
from aqmlab.kinds.traffic.transfers import Transfers

import_kinds(__name__, __path__)
TRAFFIC.lead("bulk", "transfers", "packmime", "mah")

__all__ = ["TRAFFIC", "Bulk", "ExplorerTraffic", "Mah", "PackMime", "PlanContext",
           "TrafficBase", "Transfers", "traffic_from_dict"]


def traffic_from_dict(d: Mapping[str, Any] | TrafficBase, field: str = "") -> TrafficBase:
    """Build a traffic group from a dict; a missing ``kind`` means "bulk"."""
    return TRAFFIC.build(d, field, default="bulk")
